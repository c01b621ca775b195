/*
 * pass.c - the registry of passes (pass.h) and what every pass uses to
 * report: diagnostics at a model's positions, refusals, owned edits.
 */
#include "pass.h"

#include "analyze.h"
#include "findings.h"

#include <string.h>

static const kp_pass *const builtin[] = {
	&kp_pass_canon, &kp_pass_inline, &kp_pass_pipeline, &kp_pass_pad, &kp_pass_block_swizzle,
};

static const kp_pass *const pad_list[] = {
	&kp_pass_canon,
	&kp_pass_inline,
	&kp_pass_pad,
	&kp_pass_pipeline,
};

static const kp_pass *const default_list[] = {
	&kp_pass_canon,
	&kp_pass_inline,
	&kp_pass_pipeline,
};

#define KP_MAX_REGISTERED 8
static const kp_pass *registered[KP_MAX_REGISTERED];
static int nregistered;

int kp_pass_loop_wanted(const kp_pass_ctx *c, const kp_loop *l)
{
	if (!c->o->loop_line)
		return 1;
	return c->f == c->tu && l->node->line == c->o->loop_line &&
	       (!c->o->loop_col || l->node->col == c->o->loop_col);
}

const kp_pass *kp_pass_find(const char *name)
{
	for (size_t i = 0; i < KP_ARRAY_LEN(builtin); i++)
		if (!strcmp(builtin[i]->name, name))
			return builtin[i];
	for (int i = 0; i < nregistered; i++)
		if (!strcmp(registered[i]->name, name))
			return registered[i];
	return NULL;
}

const kp_pass *const *kp_pass_default(int *n)
{
	*n = (int)KP_ARRAY_LEN(default_list);
	return default_list;
}

const kp_pass *const *kp_pass_pad_list(int pad_only, int *n)
{
	static const kp_pass *const only[] = {&kp_pass_pad};
	*n = pad_only ? 1 : (int)KP_ARRAY_LEN(pad_list);
	return pad_only ? only : pad_list;
}

int kp_pass_register(const kp_pass *p)
{
	if (kp_pass_find(p->name) || nregistered == KP_MAX_REGISTERED)
		return -1;
	registered[nregistered++] = p;
	return 0;
}

long kp_text_offset(const char *src, size_t len, int line, int col)
{
	if (line <= 0)
		return -1;
	size_t i = 0;
	for (int l = 1; l < line; l++) {
		const char *nl = memchr(src + i, '\n', len - i);
		if (!nl)
			return -1;
		i = (size_t)(nl - src) + 1;
	}
	i += (size_t)(col > 0 ? col - 1 : 0);
	return i <= len ? (long)i : -1;
}

int kp_pass_diag(kp_pass_ctx *c, int line, int col, const char *level, const char *id,
		 const char *msg)
{
	return kp_rw_diag_at(c->r, c->f, NULL, line, col, level, id, msg, c->loop_begin);
}

void kp_pass_refuse(kp_pass_ctx *c, int line, int col, const char *id, const char *msg)
{
	kp_pass_diag(c, line, col, kp_rw_refusal_level(id), id, msg);
	c->r->refused++;
	kp_counts_add(&c->r->by_reason, id, 1);
}

void kp_pass_edit(kp_pass_ctx *c, unsigned off, unsigned len, const char *text, int diag)
{
	kp_edits_add(&c->ed, off, len, text);
	c->owner = kp_xrealloc(c->owner, sizeof(*c->owner) * (size_t)c->ed.n);
	c->owner[c->ed.n - 1] = diag;
}
