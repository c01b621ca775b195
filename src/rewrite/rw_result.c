/*
 * rw_result.c - the result of rewriting one file (rw_result.h): its
 * diagnostics, counts and fixes, how they are printed, and their JSON form
 * (the report's entries, and the record a batch's child sends back).
 */
#define _GNU_SOURCE
#include "rw_result.h"

#include "edit.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void kp_counts_add(kp_counts *c, const char *name, int n)
{
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].name, name)) {
			c->v[i].n += n;
			return;
		}
	c->v = kp_xrealloc(c->v, sizeof(*c->v) * (size_t)(c->n + 1));
	c->v[c->n].name = kp_xstrdup(name);
	c->v[c->n].n = n;
	c->n++;
}

void kp_counts_release(kp_counts *c)
{
	for (int i = 0; i < c->n; i++)
		free(c->v[i].name);
	free(c->v);
	c->v = NULL;
	c->n = 0;
}

void kp_fixes_free(kp_rw_fix *v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i].text);
	free(v);
}

void kp_rw_verdict_add_id(kp_rw_verdict *v, const char *id)
{
	for (int i = 0; i < v->nids; i++)
		if (!strcmp(v->ids[i], id))
			return;
	v->ids = kp_xrealloc(v->ids, sizeof(*v->ids) * (size_t)(v->nids + 1));
	v->ids[v->nids++] = kp_xstrdup(id);
}

int kp_rw_verdict_add(kp_rw_result *r, const char *kernel, int line, int col, int eligible,
		      const char *variant, int d0)
{
	r->verdicts = kp_xrealloc(r->verdicts, sizeof(*r->verdicts) * (size_t)(r->nverdicts + 1));
	kp_rw_verdict *v = &r->verdicts[r->nverdicts];
	memset(v, 0, sizeof(*v));
	v->kernel = kp_xstrdup(kernel ? kernel : "");
	v->line = line;
	v->col = col;
	v->eligible = eligible;
	v->pipelined = variant != NULL;
	v->variant = variant ? kp_xstrdup(variant) : NULL;
	for (int i = d0 < 0 ? 0 : d0; i < r->ndiags; i++)
		if (r->diags[i].id && strcmp(r->diags[i].level, "note"))
			kp_rw_verdict_add_id(v, r->diags[i].id);
	return r->nverdicts++;
}

void kp_rw_verdicts_undo(kp_rw_result *r, const char *id)
{
	for (int i = 0; i < r->nverdicts; i++)
		if (r->verdicts[i].pipelined) {
			r->verdicts[i].pipelined = 0;
			free(r->verdicts[i].variant);
			r->verdicts[i].variant = NULL;
			kp_rw_verdict_add_id(&r->verdicts[i], id);
		}
}

static void verdicts_release(kp_rw_result *r)
{
	for (int i = 0; i < r->nverdicts; i++) {
		kp_rw_verdict *v = &r->verdicts[i];
		free(v->kernel);
		free(v->variant);
		for (int k = 0; k < v->nids; k++)
			free(v->ids[k]);
		free(v->ids);
	}
	free(r->verdicts);
	r->verdicts = NULL;
	r->nverdicts = 0;
}

void kp_rw_result_release(kp_rw_result *r)
{
	verdicts_release(r);
	for (int i = 0; i < r->ndiags; i++) {
		free(r->diags[i].file);
		free(r->diags[i].level);
		free(r->diags[i].id);
		free(r->diags[i].message);
	}
	free(r->diags);
	kp_fixes_free(r->fixes, r->nfixes);
	kp_counts_release(&r->by_variant);
	kp_counts_release(&r->by_reason);
	free(r->path);
	free(r->abs_path);
	free(r->output);
	free(r->diff);
	for (int i = 0; i < r->nheaders; i++)
		kp_rw_result_release(&r->headers[i]);
	free(r->headers);
	free(r->included_from);
	free(r->text);
	memset(r, 0, sizeof(*r));
}

int kp_rw_diag_add(kp_rw_result *r, const char *file, int line, int col, long off,
		   const char *level, const char *id, const char *message)
{
	r->diags = kp_xrealloc(r->diags, sizeof(*r->diags) * (size_t)(r->ndiags + 1));
	kp_rw_diag *d = &r->diags[r->ndiags];
	memset(d, 0, sizeof(*d));
	d->file = kp_xstrdup(file ? file : r->path ? r->path : "");
	d->line = line;
	d->col = col;
	d->off = off;
	d->level = kp_xstrdup(level);
	d->id = id ? kp_xstrdup(id) : NULL;
	d->message = kp_xstrdup(message ? message : "");
	return r->ndiags++;
}

void kp_rw_print_diags(const kp_rw_result *r, int verbose, void *out)
{
	FILE *fp = out;
	for (int i = 0; i < r->ndiags; i++) {
		const kp_rw_diag *d = &r->diags[i];
		int pipelined = d->id && !strcmp(d->id, "kpipe-pipelined");
		/* a check that could not run (no ptxas): with -v, as the notes */
		int unchecked = d->id && !strcmp(d->id, "kpipe-registers-over-limit") &&
				!strcmp(d->level, "note");
		if ((pipelined || unchecked || d->suppressed) && !verbose)
			continue;
		if (d->line > 0)
			fprintf(fp, "%s:%d:%d: %s: %s", d->file, d->line, d->col, d->level,
				d->message);
		else
			fprintf(fp, "%s: %s: %s", d->file, d->level, d->message);
		if (d->id && !pipelined)
			fprintf(fp, " [%s%s]", d->id,
				d->suppressed ? ", suppressed in the source" : "");
		fputc('\n', fp);
	}
}

char *kp_rw_abs_path(const char *path)
{
	char *a = realpath(path, NULL);
	if (a)
		return a;
	if (path[0] == '/')
		return kp_xstrdup(path);
	char *cwd = getcwd(NULL, 0);
	if (!cwd)
		return kp_xstrdup(path);
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "%s/%s", cwd, path);
	free(cwd);
	return kp_strbuf_detach(&sb);
}

char *kp_rw_resolve_path(const char *path)
{
	char *abs = kp_rw_abs_path(path);
	if (access(abs, F_OK) == 0 || abs[0] != '/')
		return abs;
	/* the longest prefix that exists, resolved, then the rest of the
	 * components, "." and ".." read as they stand */
	char *real = NULL;
	char *cut = abs + strlen(abs);
	while (!real && cut > abs) {
		while (cut > abs && cut[-1] != '/')
			cut--;
		char keep = *cut;
		*cut = '\0';
		real = realpath(cut == abs + 1 ? "/" : abs, NULL);
		*cut = keep;
		if (!real)
			cut--;
	}
	kp_strbuf out = KP_STRBUF_INIT;
	kp_strbuf_adds(&out, real && strcmp(real, "/") ? real : "");
	for (char *p = real ? cut : abs + 1; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 2 && !strncmp(p, "..", 2)) {
			char *slash = strrchr(out.buf ? out.buf : "", '/');
			if (slash)
				out.len = (size_t)(slash - out.buf);
			if (out.buf)
				out.buf[out.len] = '\0';
		} else if (n && !(n == 1 && p[0] == '.')) {
			kp_strbuf_addc(&out, '/');
			kp_strbuf_add(&out, p, n);
		}
		p += n + (p[n] == '/');
	}
	if (!out.len)
		kp_strbuf_addc(&out, '/');
	free(real);
	free(abs);
	return kp_strbuf_detach(&out);
}

/* The directory of the git work tree holding abs (a `.git` directory or
 * file in it or above), NULL when there is none. */
static char *git_root(const char *abs)
{
	char *d = kp_xstrdup(abs);
	for (;;) {
		char *slash = strrchr(d, '/');
		if (!slash)
			break;
		*slash = '\0';
		kp_strbuf g = KP_STRBUF_INIT;
		kp_strbuf_addf(&g, "%s/.git", d);
		int found = access(kp_strbuf_str(&g), F_OK) == 0;
		kp_strbuf_release(&g);
		if (found) {
			if (!d[0]) {
				free(d);
				return kp_xstrdup("/");
			}
			return d;
		}
	}
	free(d);
	return NULL;
}

/* abs below dir: the rest, else NULL. */
static const char *below(const char *abs, const char *dir)
{
	size_t k = strlen(dir);
	if (!strcmp(dir, "/"))
		return abs + 1;
	return !strncmp(abs, dir, k) && abs[k] == '/' ? abs + k + 1 : NULL;
}

char *kp_rw_diff_path(const char *path)
{
	char *abs = kp_rw_resolve_path(path);
	char *top = git_root(abs);
	char *cwd = top ? NULL : getcwd(NULL, 0);
	char *rcwd = cwd ? realpath(cwd, NULL) : NULL;
	const char *rel = top ? below(abs, top) : rcwd ? below(abs, rcwd) : NULL;
	char *r = NULL;
	if (rel && *rel)
		r = kp_xstrdup(rel);
	else {
		/* outside the working directory and any repository: the path
		 * as given, less its leading "./" and "/" */
		const char *lp = path;
		while (lp[0] == '.' && lp[1] == '/')
			lp += 2;
		while (lp[0] == '/')
			lp++;
		r = kp_xstrdup(lp);
	}
	free(top);
	free(cwd);
	free(rcwd);
	free(abs);
	return r;
}

char *kp_rw_diff(const char *path, const char *a, size_t alen, const char *b, size_t blen)
{
	kp_strbuf la = KP_STRBUF_INIT, lb = KP_STRBUF_INIT;
	char *lp = kp_rw_diff_path(path);
	kp_strbuf_addf(&la, "a/%s", lp);
	kp_strbuf_addf(&lb, "b/%s", lp);
	free(lp);
	char *d = kp_diff(kp_strbuf_str(&la), a, alen, kp_strbuf_str(&lb), b, blen);
	kp_strbuf_release(&la);
	kp_strbuf_release(&lb);
	return d;
}

static const char *status_name(const kp_rw_result *r)
{
	if (r->status == KP_EXIT_OK)
		return "pipelined";
	if (r->status == KP_EXIT_NOTHING)
		return r->refused ? "refused" : "unchanged";
	return "error";
}

cJSON *kp_counts_json(const kp_counts *c)
{
	cJSON *o = cJSON_CreateObject();
	for (int i = 0; i < c->n; i++)
		cJSON_AddNumberToObject(o, c->v[i].name, c->v[i].n);
	return o;
}

static void counts_from_json(kp_counts *c, const cJSON *o)
{
	const cJSON *e;
	cJSON_ArrayForEach(e, o)
	{
		if (cJSON_IsNumber(e) && e->string)
			kp_counts_add(c, e->string, (int)e->valuedouble);
	}
}

static void add_str_or_null(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

cJSON *kp_rw_result_to_json(const kp_rw_result *r, int internal)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "path", r->path ? r->path : "");
	if (r->included_from)
		cJSON_AddStringToObject(o, "included_from", r->included_from);
	cJSON_AddStringToObject(o, "status", status_name(r));
	cJSON_AddNumberToObject(o, "exit", r->status);
	add_str_or_null(o, "output", r->output);
	cJSON_AddNumberToObject(o, "kernels", r->kernels);
	cJSON_AddNumberToObject(o, "loops", r->loops);
	cJSON_AddNumberToObject(o, "pipelined", r->pipelined);
	cJSON_AddNumberToObject(o, "refused", r->refused);
	if (internal)
		cJSON_AddNumberToObject(o, "left_alone", r->left_alone);
	cJSON_AddItemToObject(o, "pipelined_by_variant", kp_counts_json(&r->by_variant));
	cJSON_AddItemToObject(o, "refused_by_reason", kp_counts_json(&r->by_reason));
	cJSON_AddNumberToObject(o, "seconds", (double)(long)(r->seconds * 1000 + 0.5) / 1000);
	cJSON *ds = cJSON_AddArrayToObject(o, "diagnostics");
	for (int i = 0; i < r->ndiags; i++) {
		const kp_rw_diag *d = &r->diags[i];
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "file", d->file);
		cJSON_AddNumberToObject(x, "line", d->line);
		cJSON_AddNumberToObject(x, "col", d->col);
		cJSON_AddNumberToObject(x, "offset", (double)d->off);
		cJSON_AddStringToObject(x, "level", d->level);
		add_str_or_null(x, "id", d->id);
		cJSON_AddStringToObject(x, "message", d->message);
		if (d->suppressed) /* only when true: "// kpipe: ignore" in the source */
			cJSON_AddTrueToObject(x, "suppressed");
		cJSON_AddItemToArray(ds, x);
	}
	cJSON *vs = cJSON_AddArrayToObject(o, "verdicts");
	for (int i = 0; i < r->nverdicts; i++) {
		const kp_rw_verdict *v = &r->verdicts[i];
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "kernel", v->kernel);
		cJSON_AddNumberToObject(x, "line", v->line);
		cJSON_AddNumberToObject(x, "col", v->col);
		cJSON_AddBoolToObject(x, "eligible", v->eligible);
		cJSON_AddBoolToObject(x, "pipelined", v->pipelined);
		add_str_or_null(x, "variant", v->variant);
		cJSON *ids = cJSON_AddArrayToObject(x, "reasons");
		for (int k = 0; k < v->nids; k++)
			cJSON_AddItemToArray(ids, cJSON_CreateString(v->ids[k]));
		cJSON_AddItemToArray(vs, x);
	}
	if (internal) {
		add_str_or_null(o, "abs_path", r->abs_path);
		add_str_or_null(o, "diff", r->diff);
		cJSON *fs = cJSON_AddArrayToObject(o, "fixes");
		for (int i = 0; i < r->nfixes; i++) {
			cJSON *x = cJSON_CreateObject();
			cJSON_AddNumberToObject(x, "off", r->fixes[i].off);
			cJSON_AddNumberToObject(x, "len", r->fixes[i].len);
			cJSON_AddStringToObject(x, "text", r->fixes[i].text);
			cJSON_AddNumberToObject(x, "diag", r->fixes[i].diag);
			cJSON_AddItemToArray(fs, x);
		}
		if (r->text)
			cJSON_AddItemToObject(o, "text", cJSON_CreateString(r->text));
		if (r->nheaders) {
			cJSON *hs = cJSON_AddArrayToObject(o, "headers");
			for (int i = 0; i < r->nheaders; i++)
				cJSON_AddItemToArray(hs, kp_rw_result_to_json(&r->headers[i], 1));
		}
	}
	return o;
}

static const char *jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double jnum(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static char *dup_or_null(const char *s) { return s ? kp_xstrdup(s) : NULL; }

int kp_rw_result_from_json(kp_rw_result *r, const cJSON *o)
{
	memset(r, 0, sizeof(*r));
	if (!cJSON_IsObject(o) || !jstr(o, "path"))
		return -1;
	r->path = kp_xstrdup(jstr(o, "path"));
	r->abs_path = dup_or_null(jstr(o, "abs_path"));
	r->output = dup_or_null(jstr(o, "output"));
	r->diff = dup_or_null(jstr(o, "diff"));
	r->status = (int)jnum(o, "exit");
	r->kernels = (int)jnum(o, "kernels");
	r->loops = (int)jnum(o, "loops");
	r->pipelined = (int)jnum(o, "pipelined");
	r->refused = (int)jnum(o, "refused");
	r->left_alone = (int)jnum(o, "left_alone");
	r->seconds = jnum(o, "seconds");
	counts_from_json(&r->by_variant,
			 cJSON_GetObjectItemCaseSensitive(o, "pipelined_by_variant"));
	counts_from_json(&r->by_reason, cJSON_GetObjectItemCaseSensitive(o, "refused_by_reason"));
	const cJSON *e;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(o, "diagnostics"))
	{
		int di = kp_rw_diag_add(r, jstr(e, "file"), (int)jnum(e, "line"),
					(int)jnum(e, "col"), (long)jnum(e, "offset"),
					jstr(e, "level") ? jstr(e, "level") : "error",
					jstr(e, "id"), jstr(e, "message"));
		r->diags[di].suppressed =
			cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "suppressed"));
	}
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(o, "verdicts"))
	{
		const cJSON *ve = cJSON_GetObjectItemCaseSensitive(e, "eligible");
		int vi = kp_rw_verdict_add(r, jstr(e, "kernel"), (int)jnum(e, "line"),
					   (int)jnum(e, "col"), cJSON_IsTrue(ve),
					   jstr(e, "variant"), r->ndiags);
		r->verdicts[vi].pipelined =
			cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "pipelined"));
		const cJSON *id;
		cJSON_ArrayForEach(id, cJSON_GetObjectItemCaseSensitive(e, "reasons"))
		{
			if (cJSON_IsString(id))
				kp_rw_verdict_add_id(&r->verdicts[vi], id->valuestring);
		}
	}
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(o, "fixes"))
	{
		r->fixes = kp_xrealloc(r->fixes, sizeof(*r->fixes) * (size_t)(r->nfixes + 1));
		kp_rw_fix *f = &r->fixes[r->nfixes++];
		f->off = (unsigned)jnum(e, "off");
		f->len = (unsigned)jnum(e, "len");
		f->text = kp_xstrdup(jstr(e, "text") ? jstr(e, "text") : "");
		f->diag = (int)jnum(e, "diag");
	}
	r->included_from = dup_or_null(jstr(o, "included_from"));
	if (jstr(o, "text")) {
		r->text = kp_xstrdup(jstr(o, "text"));
		r->textlen = strlen(r->text);
	}
	const cJSON *hs = cJSON_GetObjectItemCaseSensitive(o, "headers");
	int nh = cJSON_GetArraySize(hs);
	if (nh > 0) {
		r->headers = kp_xcalloc((size_t)nh, sizeof(*r->headers));
		cJSON_ArrayForEach(e, hs)
		{
			if (kp_rw_result_from_json(&r->headers[r->nheaders], e))
				return -1;
			r->nheaders++;
		}
	}
	return 0;
}

/* The start of the line holding src[off]. */
static size_t line_start(const char *src, size_t off)
{
	while (off > 0 && src[off - 1] != '\n')
		off--;
	return off;
}

/* Whether the line at p (up to end) holds a // comment "kpipe: ignore"
 * that covers id. */
static int line_ignores(const char *p, const char *end, const char *id)
{
	const char *eol = memchr(p, '\n', (size_t)(end - p));
	if (!eol)
		eol = end;
	static const char key[] = "kpipe: ignore";
	for (const char *c = p; c + 2 <= eol; c++) {
		if (c[0] != '/' || c[1] != '/')
			continue;
		const char *t = c + 2;
		while (t < eol && (*t == ' ' || *t == '\t'))
			t++;
		if ((size_t)(eol - t) < sizeof(key) - 1 || strncmp(t, key, sizeof(key) - 1))
			continue; /* another comment, or // in a string */
		t += sizeof(key) - 1;
		if (t < eol && *t != ' ' && *t != '\t' && *t != ',' && *t != '\r')
			return 0; /* "kpipe: ignored" is no suppression */
		int nids = 0;
		size_t idn = strlen(id);
		while (t < eol) {
			while (t < eol && (*t == ' ' || *t == '\t' || *t == ',' || *t == '\r'))
				t++;
			const char *w = t;
			while (t < eol && *t != ' ' && *t != '\t' && *t != ',' && *t != '\r')
				t++;
			if (t == w)
				break;
			if (t - w < 7 || strncmp(w, "kpipe-", 6))
				break; /* a reason follows */
			nids++;
			if ((size_t)(t - w) == idn && !strncmp(w, id, idn))
				return 1;
		}
		return nids == 0;
	}
	return 0;
}

int kp_rw_ignored(const char *src, size_t len, size_t off, const char *id)
{
	if (!src || !id || off > len)
		return 0;
	size_t here = line_start(src, off);
	if (line_ignores(src + here, src + len, id))
		return 1;
	return here > 0 && line_ignores(src + line_start(src, here - 1), src + len, id);
}
