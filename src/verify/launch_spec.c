/*
 * launch_spec.c - reads and checks a launch description
 * (docs/launch-spec.md) as bench/gpu_bench.py's load_spec does, and the
 * "// kpipe-launch:" lines a rewritten kernel file carries.  The verify
 * layer runs a spec's launches on the CPU emulator (verify.h); the gpu
 * layer above generates the GPU harness's sources from it (gpu_gen.c).
 * Reads one file at most; writes and runs nothing.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "launch_spec.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h> /* macros only (isfinite, INFINITY): no libm */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *spec, *ctype, *tenum;
	kp_arg_type lane;
	int lanes;
} types[] = {
	[KP_TYPE_FLOAT] = {"float", "float", "T_F32", KP_TYPE_FLOAT, 1},
	[KP_TYPE_HALF] = {"half", "__half", "T_F16", KP_TYPE_HALF, 1},
	[KP_TYPE_INT8] = {"int8", "int8_t", "T_I8", KP_TYPE_INT8, 1},
	[KP_TYPE_INT] = {"int", "int", "T_I32", KP_TYPE_INT, 1},
	[KP_TYPE_DOUBLE] = {"double", "double", "T_F64", KP_TYPE_DOUBLE, 1},
	[KP_TYPE_FLOAT2] = {"float2", "float2", "T_F32", KP_TYPE_FLOAT, 2},
	[KP_TYPE_DOUBLE2] = {"double2", "double2", "T_F64", KP_TYPE_DOUBLE, 2},
};

static const struct {
	const char *spec, *renum;
} roles[] = {
	[KP_ROLE_IN] = {"in", "R_IN"},
	[KP_ROLE_OUT] = {"out", "R_OUT"},
	[KP_ROLE_INOUT] = {"inout", "R_INOUT"},
	[KP_ROLE_SCALAR] = {"scalar", NULL},
};

const char *kp_arg_type_ctype(kp_arg_type t) { return types[t].ctype; }
const char *kp_arg_type_enum(kp_arg_type t) { return types[t].tenum; }
int kp_arg_type_lanes(kp_arg_type t) { return types[t].lanes; }
kp_arg_type kp_arg_type_lane(kp_arg_type t) { return types[t].lane; }
const char *kp_arg_lanes_factor(kp_arg_type t)
{
	return types[t].lanes == 2 ? " * 2" : ""; /* the only widths there are */
}

char *kp_arg_scalar_expr(kp_arg_type t, const char *e)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	if (t == KP_TYPE_HALF)
		kp_strbuf_addf(&sb, "__float2half((float)(%s))", e);
	else if (types[t].lanes == 2)
		kp_strbuf_addf(&sb, "make_%s((%s)(%s), 0)", types[t].ctype,
			       types[types[t].lane].ctype, e);
	else
		kp_strbuf_addf(&sb, "(%s)(%s)", types[t].ctype, e);
	return kp_strbuf_detach(&sb);
}
const char *kp_arg_role_enum(kp_arg_role r) { return roles[r].renum; }

/* ---- small checks ----------------------------------------------------- */

/* ^(::)?IDENT(::IDENT)*$ */
static int is_kernel_name(const char *s)
{
	if (!strncmp(s, "::", 2))
		s += 2;
	for (;;) {
		if (!kp_is_ident_char(*s) || (*s >= '0' && *s <= '9'))
			return 0;
		while (kp_is_ident_char(*s))
			s++;
		if (!*s)
			return 1;
		if (strncmp(s, "::", 2))
			return 0;
		s += 2;
	}
}

int kp_gpu_check_expr(const char *e)
{
	if (!e || strpbrk(e, ";{}\n\"'\\#"))
		return -1;
	for (; *e; e++)
		if (!isspace((unsigned char)*e))
			return 0;
	return -1; /* empty or blank */
}

/* s without leading and trailing blanks, in the arena. */
static const char *strip(kp_arena *a, const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return kp_arena_strndup(a, s, n);
}

static double dabs(double a) { return a < 0 ? -a : a; }

/* Python's repr() of a float: the shortest text that reads back the same,
 * with ".0" when it would look like an integer. */
void kp_float_repr(char *buf, size_t sz, double v)
{
	if (isinf(v)) {
		snprintf(buf, sz, v > 0 ? "inf" : "-inf");
		return;
	}
	if (isnan(v)) {
		snprintf(buf, sz, "nan");
		return;
	}
	for (int p = 1; p <= 17; p++) {
		snprintf(buf, sz, "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (!strpbrk(buf, ".e"))
		strncat(buf, ".0", sz - strlen(buf) - 1);
}

/* ---- parsing ---------------------------------------------------------- */

typedef struct {
	kp_launch_spec *s;
	char *err;
	size_t errsz;
} parser;

static int fail(parser *p, const char *fmt, ...) KP_PRINTF(2, 3);

static int fail(parser *p, const char *fmt, ...)
{
	int n = snprintf(p->err, p->errsz, "%s: ", p->s->path);
	if (n < 0 || (size_t)n >= p->errsz)
		n = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errsz - (size_t)n, fmt, ap);
	va_end(ap);
	return KP_SPEC_EINVALID;
}

/* A JSON value used as an expression: a string, or a number written as C. */
static int expr_of(parser *p, const cJSON *v, const char *where, const char **out)
{
	kp_arena *a = &p->s->arena;
	if (cJSON_IsBool(v))
		return fail(p, "%s: expected an expression, got a boolean", where);
	if (cJSON_IsNumber(v)) {
		char buf[64];
		double d = v->valuedouble;
		if (dabs(d) < 1e15 && d == (double)(long long)d)
			snprintf(buf, sizeof(buf), "%.0f", d);
		else
			kp_float_repr(buf, sizeof(buf), d);
		*out = kp_arena_strdup(a, buf);
		return 0;
	}
	if (!cJSON_IsString(v) || kp_gpu_check_expr(v->valuestring) != 0) {
		if (cJSON_IsString(v) && strpbrk(v->valuestring, ";{}\n\"'\\#"))
			return fail(p, "%s: '%s' is not a plain C expression", where,
				    v->valuestring);
		return fail(p, "%s: expected a C expression string", where);
	}
	*out = strip(a, v->valuestring);
	return 0;
}

static int parse_dims(parser *p, const cJSON *root, const char *key, const char **dims)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
	int n = cJSON_GetArraySize(v);
	if (!cJSON_IsArray(v) || n < 1 || n > 3)
		return fail(p, "'%s': expected a list of 1 to 3 expressions", key);
	for (int i = 0; i < 3; i++) {
		if (i >= n) {
			dims[i] = "1";
			continue;
		}
		char where[64];
		snprintf(where, sizeof(where), "'%s'[%d]", key, i);
		int rc = expr_of(p, cJSON_GetArrayItem(v, i), where, &dims[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static int parse_sizes(parser *p, const cJSON *root)
{
	kp_launch_spec *s = p->s;
	const cJSON *sizes = cJSON_GetObjectItemCaseSensitive(root, "sizes");
	if (!cJSON_IsObject(sizes) || !sizes->child)
		return fail(p, "'sizes': expected an object of named sizes");
	s->nsizes = cJSON_GetArraySize(sizes);
	s->sizes = kp_arena_alloc(&s->arena, sizeof(*s->sizes) * (size_t)s->nsizes);
	int i = 0;
	const cJSON *z;
	cJSON_ArrayForEach(z, sizes)
	{
		if (!kp_is_ident(z->string))
			return fail(p, "'sizes': bad size name '%s'", z->string);
		if (kp_launch_spec_size(s, z->string) >= 0)
			return fail(p, "'sizes': size '%s' given twice", z->string);
		if (!cJSON_IsObject(z) || !z->child)
			return fail(p, "'sizes': size '%s' must map symbols to integers",
				    z->string);
		const cJSON *v;
		cJSON_ArrayForEach(v, z)
		{
			if (!kp_is_ident(v->string) || !strncmp(v->string, "kpipe_", 6))
				return fail(p, "'sizes': bad size symbol '%s'", v->string);
			if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 9e18 ||
			    v->valuedouble != (double)(long long)v->valuedouble)
				return fail(p, "'sizes': %s.%s must be a non-negative integer",
					    z->string, v->string);
		}
		if (i == 0) {
			s->nsymbols = cJSON_GetArraySize(z);
			s->symbols =
				kp_arena_alloc(&s->arena, sizeof(char *) * (size_t)s->nsymbols);
			int k = 0;
			cJSON_ArrayForEach(v, z)
			{
				for (int j = 0; j < k; j++)
					if (!strcmp(s->symbols[j], v->string))
						return fail(
							p,
							"'sizes': symbol '%s' given twice in '%s'",
							v->string, z->string);
				s->symbols[k++] = kp_arena_strdup(&s->arena, v->string);
			}
		}
		int same = cJSON_GetArraySize(z) == s->nsymbols;
		for (int k = 0; k < s->nsymbols && same; k++)
			same = cJSON_GetObjectItemCaseSensitive(z, s->symbols[k]) != NULL;
		if (!same) {
			kp_strbuf sb = KP_STRBUF_INIT;
			for (int k = 0; k < s->nsymbols; k++)
				kp_strbuf_addf(&sb, "%s%s", k ? ", " : "", s->symbols[k]);
			fail(p, "'sizes': size '%s' does not define the same symbols (%s)",
			     z->string, kp_strbuf_str(&sb));
			kp_strbuf_release(&sb);
			return KP_SPEC_EINVALID;
		}
		kp_launch_size *sz = &s->sizes[i++];
		sz->name = kp_arena_strdup(&s->arena, z->string);
		sz->vals = kp_arena_alloc(&s->arena, sizeof(long) * (size_t)s->nsymbols);
		for (int k = 0; k < s->nsymbols; k++)
			sz->vals[k] = (long)cJSON_GetObjectItemCaseSensitive(z, s->symbols[k])
					      ->valuedouble;
	}
	static const char *const must[] = {"tiny", "small", "target"};
	for (size_t m = 0; m < KP_ARRAY_LEN(must); m++)
		if (kp_launch_spec_size(s, must[m]) < 0)
			return fail(p, "'sizes': size '%s' is missing", must[m]);
	return 0;
}

static int parse_args(parser *p, const cJSON *root)
{
	kp_launch_spec *s = p->s;
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(root, "args");
	if (!cJSON_IsArray(args) || !args->child)
		return fail(p, "'args': expected a non-empty list");
	s->nargs = cJSON_GetArraySize(args);
	s->args = kp_arena_alloc(&s->arena, sizeof(*s->args) * (size_t)s->nargs);
	int outputs = 0;
	for (int i = 0; i < s->nargs; i++) {
		const cJSON *a = cJSON_GetArrayItem(args, i);
		kp_launch_arg *arg = &s->args[i];
		char where[64];
		snprintf(where, sizeof(where), "'args'[%d]", i);
		if (!cJSON_IsObject(a))
			return fail(p, "%s: expected an object", where);
		const cJSON *nm = cJSON_GetObjectItemCaseSensitive(a, "name");
		const cJSON *role = cJSON_GetObjectItemCaseSensitive(a, "role");
		const cJSON *ty = cJSON_GetObjectItemCaseSensitive(a, "type");
		if (!cJSON_IsString(nm) || !kp_is_ident(nm->valuestring))
			return fail(p, "%s: bad name", where);
		arg->name = kp_arena_strdup(&s->arena, nm->valuestring);
		int r = -1, t = -1;
		for (size_t k = 0; cJSON_IsString(role) && k < KP_ARRAY_LEN(roles); k++)
			if (!strcmp(role->valuestring, roles[k].spec))
				r = (int)k;
		if (r < 0)
			return fail(p, "%s: role must be one of in, out, inout, scalar", where);
		for (size_t k = 0; cJSON_IsString(ty) && k < KP_ARRAY_LEN(types); k++)
			if (!strcmp(ty->valuestring, types[k].spec))
				t = (int)k;
		if (t < 0)
			return fail(
				p,
				"%s: type must be one of float, half, int8, int, double, float2, double2",
				where);
		arg->role = (kp_arg_role)r;
		arg->type = (kp_arg_type)t;
		const char *key = r == KP_ROLE_SCALAR ? "value" : "count";
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(a, key);
		if (!e)
			return fail(p, "%s: a %s needs '%s'", where,
				    r == KP_ROLE_SCALAR ? "scalar" : "buffer", key);
		char w2[80];
		snprintf(w2, sizeof(w2), "%s.%s", where, key);
		int rc = expr_of(p, e, w2, &arg->expr);
		if (rc)
			return rc;
		outputs += r == KP_ROLE_OUT || r == KP_ROLE_INOUT;
	}
	if (!outputs)
		return fail(p, "'args': no 'out' or 'inout' buffer to compare");
	return 0;
}

/* "<...>" as the launch pastes it after the kernel's name (blanks around
 * it dropped), or NULL.  empty_ok: "" too. */
static const char *template_arg_list(parser *p, const cJSON *v, int empty_ok)
{
	const char *t = cJSON_IsString(v) ? strip(&p->s->arena, v->valuestring) : NULL;
	size_t n = t ? strlen(t) : 0;
	if (!t || (!n && !empty_ok) || (n && (t[0] != '<' || t[n - 1] != '>')) ||
	    (n && kp_gpu_check_expr(t) != 0))
		return NULL;
	return t;
}

/* "template_args": one string ("" or "<...>"), or a list of "<...>", one
 * per instantiation to launch. */
static int parse_template_args(parser *p, const cJSON *root)
{
	kp_launch_spec *s = p->s;
	const cJSON *ta = cJSON_GetObjectItemCaseSensitive(root, "template_args");
	s->template_args = "";
	if (cJSON_IsArray(ta)) {
		int n = cJSON_GetArraySize(ta);
		if (n == 0)
			return fail(p, "'template_args': an empty list names no instantiation "
				       "(\"\" is the form for a kernel that is no template)");
		if (n > KP_LAUNCH_MAX_INSTS)
			return fail(p, "'template_args': %d instantiations, at most %d", n,
				    KP_LAUNCH_MAX_INSTS);
		s->insts = kp_arena_alloc(&s->arena, sizeof(char *) * (size_t)n);
		for (int i = 0; i < n; i++) {
			const char *t = template_arg_list(p, cJSON_GetArrayItem(ta, i), 0);
			if (!t)
				return fail(p, "'template_args'[%d]: expected \"<...>\"", i);
			for (int k = 0; k < i; k++)
				if (kp_str_eq_but_space(s->insts[k], t))
					return fail(p, "'template_args'[%d]: %s is given twice", i,
						    t);
			s->insts[s->ninsts++] = t;
		}
		s->template_args = s->insts[0];
		return 0;
	}
	if (ta && !cJSON_IsNull(ta)) {
		const char *t = template_arg_list(p, ta, 1);
		if (!t)
			return fail(p, "'template_args': expected \"\" or \"<...>\", or a list "
				       "of \"<...>\"");
		s->template_args = t;
	}
	s->insts = kp_arena_alloc(&s->arena, sizeof(char *));
	s->insts[0] = s->template_args;
	s->ninsts = 1;
	return 0;
}

static int parse_root(parser *p, const cJSON *root)
{
	kp_launch_spec *s = p->s;
	static const char *const known[] = {"kernel",       "template_args",
					    "block",        "grid",
					    "dynamic_smem", "requires",
					    "sizes",        "args",
					    "tolerance",    "work",
					    "eligible",     "refusal",
					    "note",         "variants_unavailable"};
	if (!cJSON_IsObject(root))
		return fail(p, "top level must be an object");
	const cJSON *f;
	cJSON_ArrayForEach(f, root)
	{
		size_t k = 0;
		while (k < KP_ARRAY_LEN(known) && strcmp(known[k], f->string))
			k++;
		if (k == KP_ARRAY_LEN(known))
			return fail(p, "unknown field '%s'", f->string);
	}
	const cJSON *k = cJSON_GetObjectItemCaseSensitive(root, "kernel");
	if (!cJSON_IsString(k) || !is_kernel_name(k->valuestring))
		return fail(p, "'kernel': expected a kernel name");
	s->kernel = kp_arena_strdup(&s->arena, k->valuestring);
	int rc;
	if ((rc = parse_template_args(p, root)))
		return rc;
	if ((rc = parse_dims(p, root, "block", s->block)) ||
	    (rc = parse_dims(p, root, "grid", s->grid)))
		return rc;
	const cJSON *ds = cJSON_GetObjectItemCaseSensitive(root, "dynamic_smem");
	s->dynamic_smem = "0";
	if (ds && (rc = expr_of(p, ds, "'dynamic_smem'", &s->dynamic_smem)))
		return rc;
	const cJSON *req = cJSON_GetObjectItemCaseSensitive(root, "requires");
	if (req && !cJSON_IsArray(req))
		return fail(p, "'requires': expected a list of expressions");
	s->nrequires = cJSON_GetArraySize(req);
	s->
		requires
	= kp_arena_alloc(&s->arena, sizeof(char *) * (size_t)(s->nrequires + 1));
	for (int i = 0; i < s->nrequires; i++)
		if ((rc = expr_of(p, cJSON_GetArrayItem(req, i), "'requires'", &s->requires[i])))
			return rc;
	if ((rc = parse_sizes(p, root)) || (rc = parse_args(p, root)))
		return rc;

	const cJSON *tol = cJSON_GetObjectItemCaseSensitive(root, "tolerance");
	if (tol && !cJSON_IsObject(tol))
		return fail(p, "'tolerance': expected {\"abs\": x, \"rel\": y}");
	for (int i = 0; i < 2; i++) {
		const char *key = i ? "rel" : "abs";
		const cJSON *v = tol ? cJSON_GetObjectItemCaseSensitive(tol, key) : NULL;
		double d = 0.0;
		if (v) {
			if (!cJSON_IsNumber(v) || v->valuedouble < 0)
				return fail(p, "'tolerance': '%s' must be a non-negative number",
					    key);
			d = v->valuedouble;
		}
		*(i ? &s->tol_rel : &s->tol_abs) = d;
	}

	const cJSON *w = cJSON_GetObjectItemCaseSensitive(root, "work");
	s->work_kind = "";
	s->work = "0";
	if (w && !cJSON_IsNull(w)) {
		if (!cJSON_IsObject(w) || cJSON_GetArraySize(w) > 1 ||
		    (w->child && strcmp(w->child->string, "flops") &&
		     strcmp(w->child->string, "bytes")))
			return fail(p, "'work': expected {\"flops\": expr} or {\"bytes\": expr}");
		if (w->child) {
			s->work_kind = kp_arena_strdup(&s->arena, w->child->string);
			if ((rc = expr_of(p, w->child, "'work'", &s->work)))
				return rc;
		}
	}
	const cJSON *el = cJSON_GetObjectItemCaseSensitive(root, "eligible");
	if (el && !cJSON_IsBool(el))
		return fail(p, "'eligible': expected true or false");
	s->eligible = !el || cJSON_IsTrue(el);
	return 0;
}

int kp_launch_spec_parse(kp_launch_spec *out, const char *text, const char *path, char *err,
			 size_t errsz)
{
	memset(out, 0, sizeof(*out));
	out->path = kp_arena_strdup(&out->arena, path);
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base);
	const char *suffix = ".launch.json";
	if (n > strlen(suffix) && !strcmp(base + n - strlen(suffix), suffix))
		n -= strlen(suffix);
	else if (strrchr(base, '.'))
		n = (size_t)(strrchr(base, '.') - base);
	out->name = kp_arena_strndup(&out->arena, base, n);
	parser p = {out, err, errsz};
	if (err && errsz)
		err[0] = '\0';
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
	int rc;
	if (!root) {
		int line = 1;
		for (const char *c = text; end && c < end && *c; c++)
			line += *c == '\n';
		rc = fail(&p, "not valid JSON (near line %d)", line);
	} else
		rc = parse_root(&p, root);
	cJSON_Delete(root);
	if (rc)
		kp_launch_spec_release(out);
	return rc;
}

int kp_launch_spec_load(kp_launch_spec *out, const char *path, char *err, size_t errsz)
{
	char *text = NULL;
	int e = kp_read_file(path, &text, NULL);
	if (e) {
		memset(out, 0, sizeof(*out));
		snprintf(err, errsz, "%s: %s", path, strerror(-e));
		return KP_SPEC_EREAD;
	}
	int rc = kp_launch_spec_parse(out, text, path, err, errsz);
	free(text);
	return rc;
}

void kp_launch_spec_release(kp_launch_spec *s)
{
	kp_arena_release(&s->arena);
	memset(s, 0, sizeof(*s));
}

int kp_launch_spec_size(const kp_launch_spec *s, const char *name)
{
	for (int i = 0; i < s->nsizes; i++)
		if (s->sizes[i].name && !strcmp(s->sizes[i].name, name))
			return i;
	return -1;
}

int kp_launch_spec_block(const kp_launch_spec *s, int block[3])
{
	long t = 1;
	int exact = 1;
	memset(block, 0, 3 * sizeof(*block));
	for (int i = 0; i < 3; i++) {
		char *end;
		long v = strtol(s->block[i], &end, 10);
		if (end == s->block[i] || *end || v <= 0)
			return 0;
		t *= v;
		if (t > 1 << 20)
			return 0;
		if (v > 1024)
			exact = 0;
		else
			block[i] = (int)v;
	}
	if (!exact)
		memset(block, 0, 3 * sizeof(*block));
	return (int)t;
}

int kp_launch_spec_threads(const kp_launch_spec *s)
{
	int block[3];
	return kp_launch_spec_block(s, block);
}

char *kp_launch_spec_default_path(const char *source)
{
	size_t n = strlen(source);
	const char *dot = strrchr(source, '.');
	const char *slash = strrchr(source, '/');
	if (dot && (!slash || dot > slash) && (!strcmp(dot, ".cu") || !strcmp(dot, ".cuh")))
		n = (size_t)(dot - source);
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_add(&sb, source, n);
	kp_strbuf_adds(&sb, ".launch.json");
	return kp_strbuf_detach(&sb);
}

int kp_gpu_parse_sizes(const kp_launch_spec *s, const char *list, const char **names, int max,
		       char *err, size_t errsz)
{
	int n = 0;
	if (!strcmp(list, "all")) {
		for (int i = 0; i < s->nsizes && n < max; i++)
			names[n++] = s->sizes[i].name;
		return n;
	}
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		if (len) {
			int idx = -1;
			for (int i = 0; i < s->nsizes; i++)
				if (strlen(s->sizes[i].name) == len &&
				    !strncmp(s->sizes[i].name, p, len))
					idx = i;
			if (idx < 0) {
				kp_strbuf sb = KP_STRBUF_INIT;
				for (int i = 0; i < s->nsizes; i++)
					kp_strbuf_addf(&sb, "%s%s", i ? ", " : "",
						       s->sizes[i].name);
				snprintf(err, errsz, "unknown size '%.*s' (%s has %s)", (int)len, p,
					 s->path, kp_strbuf_str(&sb));
				kp_strbuf_release(&sb);
				return -1;
			}
			int dup = 0;
			for (int k = 0; k < n; k++)
				dup |= names[k] == s->sizes[idx].name;
			if (!dup && n < max)
				names[n++] = s->sizes[idx].name;
		}
		p += len + (p[len] == ',');
	}
	if (n == 0) {
		snprintf(err, errsz, "no size named in '%s'", list);
		return -1;
	}
	return n;
}

char *kp_gpu_launch_via(const char *source, const char *kernel)
{
	static const char key[] = "kpipe-launch:";
	size_t kl = strlen(kernel);
	for (const char *p = strstr(source, key); p; p = strstr(p + 1, key)) {
		const char *q = p + strlen(key);
		while (*q == ' ' || *q == '\t')
			q++;
		if (strncmp(q, "launcher(", 9) || strncmp(q + 9, kernel, kl) || q[9 + kl] != ')')
			continue;
		q += 10 + kl;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q++ != '=')
			continue;
		while (*q == ' ' || *q == '\t')
			q++;
		size_t n = 0;
		while (q[n] == '_' || isalnum((unsigned char)q[n]))
			n++;
		if (n && !isalpha((unsigned char)q[0]) && q[0] != '_')
			continue;
		if (n)
			return kp_xstrndup(q, n);
	}
	return NULL;
}

/* One "// kpipe-launch: dynamic_smem[(KERNEL)] = EXPR" line [p, end):
 * 0 when it is not one; else 1 with *name (NULL unqualified) and
 * [*eb, *ee) the expression. */
static int override_line(const char *p, const char *end, const char **name, size_t *nlen,
			 const char **eb, const char **ee)
{
	static const char key[] = "kpipe-launch:";
	while (p < end && isspace((unsigned char)*p))
		p++;
	if (end - p < 2 || p[0] != '/' || p[1] != '/')
		return 0;
	p += 2;
	while (p < end && isspace((unsigned char)*p))
		p++;
	if ((size_t)(end - p) <= strlen(key) || strncmp(p, key, strlen(key)))
		return 0;
	p += strlen(key);
	while (p < end && isspace((unsigned char)*p))
		p++;
	if ((size_t)(end - p) <= 12 || strncmp(p, "dynamic_smem", 12))
		return 0;
	p += 12;
	*name = NULL;
	*nlen = 0;
	if (p < end && *p == '(') {
		const char *nb = ++p;
		while (p < end && (*p == '_' || *p == ':' || isalnum((unsigned char)*p)))
			p++;
		if (p == nb || p >= end || *p != ')')
			return 0;
		*name = nb;
		*nlen = (size_t)(p - nb);
		p++;
	}
	while (p < end && isspace((unsigned char)*p))
		p++;
	if (p >= end || *p != '=')
		return 0;
	p++;
	while (p < end && isspace((unsigned char)*p))
		p++;
	const char *e = end;
	while (e > p && isspace((unsigned char)e[-1]))
		e--;
	*eb = p;
	*ee = e;
	return 1;
}

int kp_gpu_launch_override(const char *source, const char *kernel, char **expr, char *err,
			   size_t errsz)
{
	*expr = NULL;
	/* a spec's "ns::k" is the file's "k" */
	const char *id = kernel ? strrchr(kernel, ':') : NULL;
	id = id ? id + 1 : kernel;
	const char *any_b = NULL, *any_e = NULL; /* the first unqualified line */
	const char *eb = NULL, *ee = NULL;
	for (const char *line = source; *line;) {
		size_t len = strcspn(line, "\n");
		const char *name, *b, *e;
		size_t nlen;
		if (override_line(line, line + len, &name, &nlen, &b, &e)) {
			if (name && id &&
			    ((strlen(kernel) == nlen && !strncmp(name, kernel, nlen)) ||
			     (strlen(id) == nlen && !strncmp(name, id, nlen)))) {
				eb = b;
				ee = e;
				break;
			}
			if (!name && !any_b) {
				any_b = b;
				any_e = e;
			}
		}
		line += len + (line[len] == '\n');
	}
	if (!eb) {
		eb = any_b;
		ee = any_e;
	}
	if (!eb)
		return 0;
	char *v = kp_xstrndup(eb, (size_t)(ee - eb));
	if (kp_gpu_check_expr(v) != 0) {
		snprintf(err, errsz, "kpipe-launch: dynamic_smem: '%s' is not a plain C expression",
			 v);
		free(v);
		return -1;
	}
	*expr = v;
	return 1;
}
