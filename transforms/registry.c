/*
 * transforms.c - the registry of transforms (one descriptor per file in
 * transforms/), looked up by name.
 */
#include "transform.h"

#include <string.h>

extern const kp_transform kp_transform_cp_async;
extern const kp_transform kp_transform_register;
extern const kp_transform kp_transform_register_ca;
extern const kp_transform kp_transform_register_2bar;

static const kp_transform *const registry[] = {
	&kp_transform_cp_async,
	&kp_transform_register,
	&kp_transform_register_ca,
	&kp_transform_register_2bar,
};

const kp_transform *kp_transform_find(const char *name)
{
	for (size_t i = 0; i < KP_ARRAY_LEN(registry); i++)
		if (!strcmp(registry[i]->name, name))
			return registry[i];
	return NULL;
}

const kp_transform *const *kp_transform_all(int *n)
{
	*n = (int)KP_ARRAY_LEN(registry);
	return registry;
}
