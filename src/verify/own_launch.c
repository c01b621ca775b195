/*
 * own_launch.c - a launch description made from the model (own_launch.h).
 */
#define _GNU_SOURCE
#include "own_launch.h"

#include "banks.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The type spelling t without cv-qualifiers, __restrict__ and blanks. */
static char *bare_type(const char *t, int *is_const)
{
	static const char *const drop[] = {"const",      "volatile", "__restrict__",
					   "__restrict", "restrict", NULL};
	kp_strbuf sb = KP_STRBUF_INIT;
	*is_const = 0;
	for (const char *p = t; *p;) {
		if (isspace((unsigned char)*p)) {
			p++;
			continue;
		}
		if (kp_is_ident_char(*p)) {
			const char *e = p;
			while (kp_is_ident_char(*e))
				e++;
			int skip = 0;
			for (int i = 0; drop[i] && !skip; i++)
				skip = strlen(drop[i]) == (size_t)(e - p) &&
				       !strncmp(p, drop[i], (size_t)(e - p));
			/* a const before the '*' qualifies the pointee */
			if (skip && !strncmp(p, "const", 5) && !strchr(sb.buf ? sb.buf : "", '*'))
				*is_const = 1;
			if (!skip) {
				if (sb.len && kp_is_ident_char(sb.buf[sb.len - 1]))
					kp_strbuf_addc(&sb, ' ');
				kp_strbuf_add(&sb, p, (size_t)(e - p));
			}
			p = e;
			continue;
		}
		kp_strbuf_addc(&sb, *p++);
	}
	return kp_strbuf_detach(&sb);
}

/* The spec's type of an element or scalar type, or NULL. */
static const char *spec_type(const char *t)
{
	static const struct {
		const char *c, *spec;
	} map[] = {{"float", "float"},       {"__half", "half"},      {"half", "half"},
		   {"int8_t", "int8"},       {"signed char", "int8"}, {"char", "int8"},
		   {"int", "int"},           {"unsigned", "int"},     {"unsigned int", "int"},
		   {"int32_t", "int"},       {"uint32_t", "int"},     {"long", "int"},
		   {"size_t", "int"},        {"long long", "int"},    {"int64_t", "int"},
		   {"unsigned long", "int"}, {"short", "int"},        {"double", "double"},
		   {"float2", "float2"},     {"double2", "double2"}};
	for (size_t i = 0; i < KP_ARRAY_LEN(map); i++)
		if (!strcmp(t, map[i].c))
			return map[i].spec;
	return NULL;
}

/* One parameter as an entry of "args"; 0, or -1 with *why. */
static int param_arg(const kp_decl *d, kp_strbuf *sb, int *outputs, char **why)
{
	int is_const = 0;
	char *t = bare_type(d->type, &is_const);
	size_t n = strlen(t);
	int ptr = n && t[n - 1] == '*';
	if (ptr)
		t[--n] = 0;
	/* a pointer's element by its canonical type: typedefs such as
	 * cuDoubleComplex or a library's complex type resolved */
	const char *st = ptr && d->pointee_canon ? spec_type(d->pointee_canon) : NULL;
	if (!st && !ptr && d->type_canon)
		st = spec_type(d->type_canon);
	if (!st)
		st = spec_type(t);
	int rc = 0;
	if (!st || (ptr && strchr(t, '*')) || (!ptr && !strcmp(st, "half"))) {
		kp_strbuf m = KP_STRBUF_INIT;
		kp_strbuf_addf(&m, "its parameter %s has the type %s, which kpipe cannot fill",
			       d->name, d->type);
		*why = kp_strbuf_detach(&m);
		rc = -1;
	} else if (ptr) {
		kp_strbuf_addf(sb,
			       "{\"name\": \"%s\", \"role\": \"%s\", \"type\": \"%s\", \"count\": "
			       "\"8 * (V + 64) * (V + 64)\"}",
			       d->name, is_const ? "in" : "inout", st);
		*outputs += !is_const;
	} else
		kp_strbuf_addf(
			sb,
			"{\"name\": \"%s\", \"role\": \"scalar\", \"type\": \"%s\", \"value\": "
			"\"%s\"}",
			d->name, st, !strcmp(st, "int") || !strcmp(st, "int8") ? "V" : "1.5");
	free(t);
	return rc;
}

char *kp_own_launch_spec(kp_file *f, const kp_kernel *k, const kp_analyze_opts *ao, char **why)
{
	*why = NULL;
	if (k->is_device || (k->is_template && k->ninst < 1)) {
		*why = kp_xstrdup(k->is_device ? "it is a __device__ function (its callers are the "
						 "kernels to launch)"
					       : "it is a template no launch instantiates");
		return NULL;
	}
	kp_bk_block b;
	kp_bk_block_of(f, k, ao, &b);
	if (b.x <= 0) {
		*why = kp_xstrdup("no block shape: no launch in the file gives one, no "
				  "__launch_bounds__, no --threads");
		return NULL;
	}
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "{\"kernel\": \"%s\", ", k->qualified ? k->qualified : k->name);
	if (k->is_template)
		kp_strbuf_addf(&sb, "\"template_args\": \"<%s>\", ", k->inst_args[0]);
	/* dynamic shared memory: 48 KB when the file has an extern __shared__
	 * array (the original uses what its code reaches; a rewrite that
	 * keeps a copy per stage divides the launch's bytes) */
	for (int i = 0; i < f->ndecls; i++)
		if (f->decls[i]->is_shared && f->decls[i]->unsized) {
			kp_strbuf_adds(&sb, "\"dynamic_smem\": \"49152\", ");
			break;
		}
	kp_strbuf_addf(&sb,
		       "\"block\": [\"%d\", \"%d\", \"%d\"], \"grid\": [\"2\", \"2\", \"1\"], "
		       "\"sizes\": {\"empty\": {\"V\": 0}, \"tiny\": {\"V\": 16}, \"small\": "
		       "{\"V\": 48}, \"even\": {\"V\": 64}, \"ragged\": {\"V\": 112}, \"target\": "
		       "{\"V\": 4096}}, \"args\": [",
		       b.x, b.y > 0 ? b.y : 1, b.z > 0 ? b.z : 1);
	int outputs = 0;
	for (int i = 0; i < k->nparams; i++) {
		if (i)
			kp_strbuf_adds(&sb, ", ");
		if (param_arg(k->params[i], &sb, &outputs, why)) {
			kp_strbuf_release(&sb);
			return NULL;
		}
	}
	if (!outputs) {
		*why = kp_xstrdup("no pointer parameter it writes through (all point to const)");
		kp_strbuf_release(&sb);
		return NULL;
	}
	kp_strbuf_adds(&sb, "], \"note\": \"made by kpipe (docs/verify.md)\"}");
	return kp_strbuf_detach(&sb);
}
