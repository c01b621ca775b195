/*
 * rewrite.c - the rewrite driver (rewrite.h): parse a file, run the passes
 * (pass.h) in order over its model and each project header's, applying
 * each pass's edits and parsing the unit again with the new texts before
 * the next pass, then check with the compiler that the translation unit
 * still compiles with each file's final text (the re-parse guard) and
 * turn what changed into fixes against the input, before anything is
 * returned.  Every output of `kpipe rewrite`, single file or batch, and
 * tune's candidates come from here.  No printing, no files written.
 */
#define _GNU_SOURCE
#include "rewrite.h"

#include "findings.h"
#include "fixes.h"
#include "format.h"
#include "pass.h"
#include "verify.h"
#include "verify_file.h"
#include "verify_unit.h"
#include "launch_spec.h"

#include "pch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void kp_rw_parse_opts(const kp_rw_opts *o, kp_parse_opts *po)
{
	memset(po, 0, sizeof(*po));
	po->arch = o->arch->name;
	po->cuda_path = o->cuda_path;
	po->args = o->args;
	po->nargs = o->nargs;
	po->build_dir = o->build_dir;
	po->header_filter = o->header_filter;
	po->auto_probe = o->auto_probe;
}

/* The launch description of `file`: --spec, else FILE.launch.json beside
 * it, read by the verify layer's parser (launch_spec.h), the one the
 * verifier, `validate` and the GPU harness use; NULL when there is none
 * or it cannot be used (the verifier's kpipe-unverified says why).  The
 * caller releases it (kp_launch_spec_release) and frees it. */
static kp_launch_spec *load_spec(const kp_rw_opts *o, const char *file)
{
	char *path = o->spec ? kp_xstrdup(o->spec)
		     : file  ? kp_launch_spec_default_path(file)
			     : NULL;
	if (!path)
		return NULL;
	kp_launch_spec *s = kp_xmalloc(sizeof(*s));
	char err[512];
	int rc = kp_launch_spec_load(s, path, err, sizeof(err));
	free(path);
	if (rc) {
		free(s); /* released by the parser */
		return NULL;
	}
	return s;
}

static void drop_spec(kp_launch_spec *s)
{
	if (s)
		kp_launch_spec_release(s);
	free(s);
}

char *kp_rw_spec_targs(const kp_rw_opts *o, const char *file, const char *kernel)
{
	kp_launch_spec *s = load_spec(o, file);
	char *out = s && s->kernel && !strcmp(s->kernel, kernel) && s->template_args[0] == '<'
			    ? kp_xstrdup(s->template_args)
			    : NULL;
	drop_spec(s);
	return out;
}

void kp_rw_analyze_opts(const kp_rw_opts *o, const char *file, kp_analyze_opts *ao,
			char **spec_kernel)
{
	memset(ao, 0, sizeof(*ao));
	ao->arch = o->arch;
	ao->threads = o->threads;
	memcpy(ao->block, o->block, sizeof(ao->block));
	ao->kernel = o->kernel;
	*spec_kernel = NULL;
	kp_launch_spec *s = load_spec(o, file);
	if (!s)
		return;
	/* threads per block when every block entry is a number; the shape
	 * too when each is one of 1..1024 */
	ao->spec_threads = kp_launch_spec_block(s, ao->spec_block);
	if (ao->spec_threads <= 1)
		ao->spec_threads = 0;
	if (s->kernel)
		ao->spec_kernel = *spec_kernel = kp_xstrdup(s->kernel);
	drop_spec(s);
}

/* Whether a compiler diagnostic points into the model's file. */
static int diag_in_model(const kp_parse_diag *d, const kp_file *f)
{
	if (!f->abs_path)
		return !strcmp(d->file, f->path);
	char *a = realpath(d->file, NULL);
	int same = a && !strcmp(a, f->abs_path);
	free(a);
	return same;
}

/* ---- the guard's cache: texts already parsed without an error ------
 *
 * A rewrite whose every input is the same as one the guard passed before
 * is not parsed again (docs/building.md, "The guard cache"): an empty
 * file <cache>/guard/KEY, the key hashing the libclang version, every
 * parse argument and the text of each file given to the parse with its
 * path (kp_parse_key), the files the input includes (kp_file.deps_hash:
 * path, size and time of each) and the format's tag.  Kept only where the
 * guard's parse had no error and the input's had none either, so the
 * comparison of errors is never skipped; a refusal is never kept.
 * KPIPE_CACHE_DIR=off and --no-pch go without; past KP_GUARD_CACHE_MAX
 * entries the older half goes. */

#define KP_GUARD_CACHE_MAX 4000
#define KP_GUARD_CACHE_TAG "kpipe guard cache 2"

/* The entry of the guard's parse p2 of the unit `in` was parsed from
 * (pch: a batch's precompiled header, which parse_input put last in its
 * arguments); NULL when its verdict is not to be kept (malloc'd). */
static char *guard_entry(const kp_parse_opts *p2, const kp_file *in, const char *pch)
{
	if (!in->deps_hash || in->nerrors) /* includes unknown; errors to compare */
		return NULL;
	kp_parse_opts k = *p2;
	/* the batch's header lies in a temporary folder, another each run;
	 * the arguments it was built with are the others */
	if (pch && k.nargs >= 2 && k.args[k.nargs - 1] == pch)
		k.nargs -= 2;
	/* 128 bits, as the probe cache's: two FNV-1a chains of other seeds
	 * (a false hit would skip the guard) */
	unsigned long long h[2] = {KP_FNV1A64_INIT, 0x84222325cbf29ce4ULL};
	for (int i = 0; i < 2; i++) {
		h[i] = kp_fnv1a64(KP_GUARD_CACHE_TAG, sizeof(KP_GUARD_CACHE_TAG), h[i]);
		h[i] = kp_fnv1a64(&in->deps_hash, sizeof(in->deps_hash), h[i]);
		h[i] = kp_parse_key(in->path, &k, h[i]);
	}
	char *dir = h[0] && h[1] ? kp_cache_subdir("guard") : NULL;
	if (!dir)
		return NULL;
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "%s/%016llx%016llx", dir, h[0], h[1]);
	free(dir);
	return kp_strbuf_detach(&sb);
}

/*
 * The re-parse guard, the last line of defence against a wrong rewrite
 * (docs/design.md): the rewritten text is parsed as the input was (the same
 * arguments and precompiled header, an unsaved buffer for the same path,
 * diagnostics only), and every error it has that the input did not have
 * (matched by file and message) is new.  Returns the number of new errors
 * (the first in *first, owned by *g), or -1 with *err set when libclang
 * could not parse it at all.  A text that passed before with the same
 * inputs is not parsed again (guard_entry; pch is a batch's precompiled
 * header among po's arguments, or NULL).  The caller releases *g.
 */
static int reparse_new_errors(const kp_parse_opts *po, const char *pch, const kp_file *in,
			      const kp_file *f, const char *text, size_t len, kp_file *g,
			      const kp_parse_diag **first, char **err)
{
	kp_parse_opts p2 = *po;
	kp_unsaved u = {f->abs_path, text, len};
	if (f->abs_path) { /* a header: the main file as it was, the header's new text */
		p2.unsaved = &u;
		p2.nunsaved = 1;
	} else {
		p2.contents = text;
		p2.contents_len = len;
	}
	p2.diags_only = 1;
	p2.headers = 0;
	*first = NULL;
	*err = NULL;
	char *entry = guard_entry(&p2, in, pch);
	if (entry && access(entry, F_OK) == 0) { /* passed before */
		free(entry);
		return 0;
	}
	int prc = kp_parse(g, in->path, &p2, err);
	if (entry && prc == KP_PARSE_OK && !g->nerrors)
		kp_cache_put(entry, "", 0, "", KP_GUARD_CACHE_MAX);
	free(entry);
	if (prc == KP_PARSE_IO || prc == KP_PARSE_FAILED)
		return -1;
	char *used = kp_xcalloc((size_t)in->ndiags + 1, 1);
	int n = 0;
	for (int i = 0; i < g->ndiags; i++) {
		const kp_parse_diag *d = &g->diags[i];
		if (strcmp(d->severity, "error"))
			continue;
		int old = 0;
		for (int k = 0; k < in->ndiags && !old; k++) {
			const kp_parse_diag *x = &in->diags[k];
			if (!used[k] && !strcmp(x->severity, "error") &&
			    !strcmp(x->file, d->file) && !strcmp(x->message, d->message))
				old = used[k] = 1;
		}
		if (old)
			continue;
		if (!n++)
			*first = d;
	}
	free(used);
	return n;
}

/* Test hook (docs/reliability.md): KPIPE_TEST_BREAK_REWRITE=1 appends a
 * statement naming an undeclared identifier to the first loop's rewrite, so
 * the tests can see the guard refuse an output that does not compile. */
static void test_break_rewrite(kp_edits *ed)
{
	const char *v = getenv("KPIPE_TEST_BREAK_REWRITE");
	if (!v || !*v || !strcmp(v, "0"))
		return;
	for (int e = 0; e < ed->n; e++)
		if (ed->v[e].len) {
			kp_strbuf t = KP_STRBUF_INIT;
			kp_strbuf_addf(&t, "%s kpipe_test_break_rewrite = 0;", ed->v[e].text);
			free(ed->v[e].text);
			ed->v[e].text = kp_strbuf_detach(&t);
			return;
		}
}

/* The edits one pass made to one file, relative to the text before it. */
typedef struct {
	kp_edits ed;
	int *owner;   /* owner[i]: edit i's diagnostic in the file's result, or -1 */
	size_t inlen; /* the length of the text the edits apply to */
} rw_stage;

/* One file of the unit (the main file or a project header) as the passes
 * change it.  Owns its text and stages. */
typedef struct {
	const kp_file *orig; /* its model in the input's parse */
	kp_rw_result *r;     /* its result */
	char *text;          /* its text after the passes so far; NULL: orig->src */
	size_t len;
	rw_stage *st; /* one per pass that changed it, in order */
	int nst;
	int bad; /* a pass's edits overlapped: an internal error */
} rw_file;

static void rw_file_release(rw_file *x)
{
	for (int i = 0; i < x->nst; i++) {
		kp_edits_release(&x->st[i].ed);
		free(x->st[i].owner);
	}
	free(x->st);
	free(x->text);
}

/* Where offset `off` of x's current text comes from in its input text:
 * through each stage back to the input, an offset inside a stage's edit
 * going to the start of what it replaced.  *diag (when not NULL) gets the
 * owner of the latest stage's edit that holds it, -1 when none does. */
static size_t rw_origin(const rw_file *x, size_t off, int *diag)
{
	if (diag)
		*diag = -1;
	for (int k = x->nst - 1; k >= 0; k--) {
		size_t so = 0;
		int e = kp_edits_origin(&x->st[k].ed, off, &so);
		if (e < 0) {
			off = so;
			continue;
		}
		if (diag && *diag < 0)
			*diag = x->st[k].owner[e];
		off = x->st[k].ed.v[e].off;
	}
	return off;
}

/* The input's offset of line:col of model f (whose text is no longer the
 * input's), and that position moved back to the input's line and column;
 * -1 when f has no such position. */
static long remap_pos(const rw_file *x, const kp_file *f, int *line, int *col)
{
	long o = kp_file_offset(f, *line, *col);
	if (o < 0)
		return -1;
	size_t so = rw_origin(x, (size_t)o, NULL);
	if (so > x->orig->len)
		so = x->orig->len;
	kp_file_linecol(x->orig, (unsigned)so, line, col);
	return (long)so;
}

/* Diagnostics from index n0 on, and loop verdicts from v0 on, that a pass
 * put in model f, whose text is no longer the input's: moved back to the
 * input's line and column. */
static void remap_diags(const rw_file *x, const kp_file *f, int n0, int v0)
{
	for (int i = n0; i < x->r->ndiags; i++) {
		kp_rw_diag *d = &x->r->diags[i];
		if (d->line <= 0 || strcmp(d->file, f->path))
			continue;
		long so = remap_pos(x, f, &d->line, &d->col);
		if (so >= 0 && d->off >= 0)
			d->off = so;
	}
	for (int i = v0; i < x->r->nverdicts; i++) {
		kp_rw_verdict *v = &x->r->verdicts[i];
		if (v->line > 0)
			remap_pos(x, f, &v->line, &v->col);
	}
}

/* Turns x's result into "nothing rewritten": the kpipe-pipelined notes
 * and every note that owns an edit, their variants and fixes go, every
 * loop that was pipelined counts as refused, and one warning `id` says
 * why, at line:col (0: no position). */
static void refuse_file(rw_file *x, int line, int col, const char *id, const char *msg)
{
	kp_rw_result *r = x->r;
	const kp_file *f = x->orig;
	char *owns = kp_xcalloc((size_t)r->ndiags + 1, 1);
	for (int k = 0; k < x->nst; k++)
		for (int e = 0; e < x->st[k].ed.n; e++)
			if (x->st[k].owner[e] >= 0 && x->st[k].owner[e] < r->ndiags)
				owns[x->st[k].owner[e]] = 1;
	int k = 0;
	for (int i = 0; i < r->ndiags; i++) {
		kp_rw_diag *d = &r->diags[i];
		if (owns[i] || (d->id && !strcmp(d->id, "kpipe-pipelined"))) {
			free(d->file);
			free(d->level);
			free(d->id);
			free(d->message);
			continue;
		}
		r->diags[k++] = *d;
	}
	r->ndiags = k;
	free(owns);
	kp_counts_release(&r->by_variant);
	r->refused += r->pipelined;
	r->pipelined = 0;
	kp_rw_verdicts_undo(r, id);
	kp_rw_diag_add(r, f->path, line, col, line ? kp_file_offset(f, line, col) : -1, "warning",
		       id, msg);
	kp_counts_add(&r->by_reason, id, 1);
}

/* Turns a result whose rewrite failed the guard into "nothing rewritten":
 * the kpipe-pipelined notes and every note that owns an edit, their
 * variants and fixes go, every loop that was pipelined counts as refused,
 * and one kpipe-rewrite-invalid warning says why, at the loop whose
 * rewritten text holds the first new error (or at the input position the
 * error falls on, or at the first loop). */
static void refuse_invalid(rw_file *x, const char *out, size_t outlen, int nnew,
			   const kp_parse_diag *first, const char *err)
{
	kp_rw_result *r = x->r;
	const kp_file *f = x->orig;
	int line = 0, col = 0;
	for (int i = 0; i < r->ndiags && !line; i++)
		if (r->diags[i].id && !strcmp(r->diags[i].id, "kpipe-pipelined")) {
			line = r->diags[i].line;
			col = r->diags[i].col;
		}
	int in_main = first && diag_in_model(first, f);
	long oo = in_main ? kp_text_offset(out, outlen, first->line, first->col) : -1;
	if (oo >= 0) {
		int di;
		size_t so = rw_origin(x, (size_t)oo, &di);
		if (di >= 0) {
			line = r->diags[di].line;
			col = r->diags[di].col;
		} else if (so <= f->len)
			kp_file_linecol(f, (unsigned)so, &line, &col);
	}
	kp_strbuf m = KP_STRBUF_INIT;
	if (nnew < 0)
		kp_strbuf_addf(&m, "libclang could not parse the rewritten code (%s)",
			       err ? err : "no reason given");
	else if (in_main)
		kp_strbuf_addf(&m,
			       "the rewritten code does not compile: line %d of the rewrite: %s",
			       first->line, first->message);
	else
		kp_strbuf_addf(&m, "the rewritten code does not compile: %s:%d: %s", first->file,
			       first->line, first->message);
	if (nnew > 1)
		kp_strbuf_addf(&m, " (and %d more new error%s)", nnew - 1, nnew > 2 ? "s" : "");
	kp_strbuf_adds(&m, "; nothing was rewritten");
	refuse_file(x, line, col, "kpipe-rewrite-invalid", kp_strbuf_str(&m));
	kp_strbuf_release(&m);
}

/* A CRLF file gets CRLF in the generated lines too. */
static void edits_crlf(kp_edits *ed, const kp_file *f)
{
	if (!ed->n || !memmem(f->src, f->len, "\r\n", 2))
		return;
	for (int e = 0; e < ed->n; e++) {
		kp_strbuf t = KP_STRBUF_INIT;
		for (const char *p = ed->v[e].text; *p; p++) {
			if (*p == '\n' && (p == ed->v[e].text || p[-1] != '\r'))
				kp_strbuf_addc(&t, '\r');
			kp_strbuf_addc(&t, *p);
		}
		free(ed->v[e].text);
		ed->v[e].text = kp_strbuf_detach(&t);
	}
}

/* Applies the edits a pass made to model f (x's current text) and keeps
 * them as x's next stage; takes c's edits and owners.  Returns whether
 * x's text changed. */
static int add_stage(rw_file *x, const kp_file *f, kp_pass_ctx *c)
{
	edits_crlf(&c->ed, f);
	if (!x->nst)
		test_break_rewrite(&c->ed);
	char *out = NULL;
	size_t outlen = 0;
	if (kp_edits_apply(&c->ed, f->src, f->len, &out, &outlen)) {
		x->bad = 1;
		kp_edits_release(&c->ed);
		free(c->owner);
		return 0;
	}
	x->st = kp_xrealloc(x->st, sizeof(*x->st) * (size_t)(x->nst + 1));
	x->st[x->nst++] = (rw_stage){c->ed, c->owner, f->len};
	free(x->text);
	x->text = out;
	x->len = outlen;
	return 1;
}

/* The file of model f (the main file, or a header by its real path). */
static rw_file *file_of(rw_file *files, int nfiles, const kp_file *f)
{
	if (!f->abs_path)
		return &files[0];
	for (int i = 1; i < nfiles; i++)
		if (!strcmp(files[i].orig->abs_path, f->abs_path))
			return &files[i];
	return NULL; /* a header the input's parse had no model of */
}

static int reparse_texts(const kp_parse_opts *po, const char *path, const rw_file *files,
			 int nfiles, kp_file *g, char **err);

/* What kp_pass_ctx.reparse needs: the unit's parse options and files. */
typedef struct {
	const kp_parse_opts *po;
	const char *path;
	rw_file *files;
	int nfiles;
} reparse_env;

/* kp_pass_ctx.reparse: the unit with f's file at `text`. */
static kp_file *reparse_with(void *env, const kp_file *f, const char *text, size_t len,
			     kp_file **tu)
{
	reparse_env *e = env;
	rw_file *x = file_of(e->files, e->nfiles, f);
	*tu = kp_xcalloc(1, sizeof(**tu));
	if (!x)
		return NULL;
	char *keep = x->text;
	size_t keeplen = x->len;
	x->text = (char *)text;
	x->len = len;
	char *err = NULL;
	int prc = reparse_texts(e->po, e->path, e->files, e->nfiles, *tu, &err);
	x->text = keep;
	x->len = keeplen;
	free(err);
	return prc == KP_PARSE_OK ? kp_file_model_in(*tu, f) : NULL;
}

/* Runs one pass over every model of the parse tu (the main file's, then
 * each header's).  Returns whether it changed a file. */
static int run_pass(const kp_rw_opts *o, const kp_pass *pass, kp_file *tu, reparse_env *env)
{
	rw_file *files = env->files;
	int nfiles = env->nfiles;
	int changed = 0;
	for (int m = 0; m <= tu->nheaders; m++) {
		kp_file *f = m ? tu->headers[m - 1] : tu;
		rw_file *x = file_of(files, nfiles, f);
		if (!x || x->bad)
			continue;
		kp_pass_ctx c = {o, tu, f, x->r, {0}, NULL, reparse_with, env, 0};
		int n0 = x->r->ndiags, v0 = x->r->nverdicts;
		pass->run(&c);
		if (x->nst)
			remap_diags(x, f, n0, v0);
		if (c.ed.n)
			changed |= add_stage(x, f, &c);
		else {
			kp_edits_release(&c.ed);
			free(c.owner);
		}
	}
	return changed;
}

/* Parses the unit again as po did, with every file's current text (the
 * main file's as the contents, each header's as an unsaved file), into g.
 * Returns kp_parse()'s code. */
static int reparse_texts(const kp_parse_opts *po, const char *path, const rw_file *files,
			 int nfiles, kp_file *g, char **err)
{
	kp_parse_opts p2 = *po;
	p2.contents = files[0].text ? files[0].text : files[0].orig->src;
	p2.contents_len = files[0].text ? files[0].len : files[0].orig->len;
	kp_unsaved *u = kp_xcalloc((size_t)nfiles, sizeof(*u));
	for (int i = 1; i < nfiles; i++) {
		const rw_file *x = &files[i];
		u[i - 1] = (kp_unsaved){x->orig->abs_path, x->text ? x->text : x->orig->src,
					x->text ? x->len : x->orig->len};
	}
	p2.unsaved = u;
	p2.nunsaved = nfiles - 1;
	int prc = kp_parse(g, path, &p2, err);
	free(u);
	return prc;
}

/* Runs o's passes in order over the input's parse f, and after a pass that
 * changed a file, over a fresh parse of the new texts. */
static void run_passes(const kp_rw_opts *o, const kp_parse_opts *po, kp_file *f, rw_file *files,
		       int nfiles)
{
	int np = o->npasses;
	const kp_pass *const *given = o->passes;
	if (!given)
		given = kp_pass_default(&np);
	/* --block-swizzle: its pass after the others (on their output) */
	const kp_pass *list[16];
	const kp_pass *const *passes = given;
	if (o->block_swizzle && np < (int)KP_ARRAY_LEN(list)) {
		memcpy(list, given, sizeof(*list) * (size_t)np);
		list[np++] = &kp_pass_block_swizzle;
		passes = list;
	}
	kp_file *cur = f;
	reparse_env env = {po, f->path, files, nfiles};
	for (int p = 0; p < np; p++) {
		if (!run_pass(o, passes[p], cur, &env) || p + 1 == np)
			continue;
		kp_file *g = kp_xcalloc(1, sizeof(*g));
		char *err = NULL;
		int prc = reparse_texts(po, f->path, files, nfiles, g, &err);
		if (prc != KP_PARSE_OK) {
			kp_strbuf m = KP_STRBUF_INIT;
			kp_strbuf_addf(&m,
				       "pass '%s' and those after it were not run: the code after "
				       "pass '%s' does not parse again (%s)",
				       passes[p + 1]->name, passes[p]->name,
				       err ? err : "it has errors");
			kp_rw_diag_add(files[0].r, f->path, 0, 0, -1, "warning",
				       "kpipe-pass-skipped", kp_strbuf_str(&m));
			kp_strbuf_release(&m);
			free(err);
			kp_file_release(g);
			free(g);
			break;
		}
		free(err);
		if (cur != f) {
			kp_file_release(cur);
			free(cur);
		}
		cur = g;
	}
	if (cur != f) {
		kp_file_release(cur);
		free(cur);
	}
}

/* The last stage of a file the passes changed: the changed lines through
 * clang-format in the project's style (format.h; --format-style).  When
 * the project has a style but clang-format cannot be run, a remark says
 * the code keeps kpipe's layout. */
static void format_file(const kp_rw_opts *o, rw_file *x)
{
	const char *want = o->format_style ? o->format_style : "file";
	if (!x->nst || x->bad || !strcmp(want, "none"))
		return;
	const kp_file *f = x->orig;
	char *style = strcmp(want, "file")
			      ? kp_xstrdup(want)
			      : kp_format_style_file(f->abs_path ? f->abs_path : f->path);
	if (!style || (!strcmp(want, "file") && kp_format_disabled(style))) {
		free(style);
		return;
	}
	char *tool = kp_format_tool(), *err = NULL, *out = NULL;
	kp_edits ed = {0};
	size_t outlen = 0;
	if (!tool)
		err = kp_xstrdup("no clang-format on PATH (KPIPE_CLANG_FORMAT names one)");
	else if (!kp_format_edits(tool, style, f->src, f->len, x->text, x->len, &ed, &err) &&
		 ed.n && kp_edits_apply(&ed, x->text, x->len, &out, &outlen))
		err = kp_xstrdup("its replacements overlap");
	if (err) {
		kp_strbuf m = KP_STRBUF_INIT;
		kp_strbuf_addf(&m,
			       "not formatted in the style of %s: %s; the rewritten code keeps "
			       "kpipe's layout",
			       style, err);
		kp_rw_diag_add(x->r, f->path, 0, 0, -1, "remark", "kpipe-not-formatted",
			       kp_strbuf_str(&m));
		kp_strbuf_release(&m);
		kp_edits_release(&ed);
	} else if (out) {
		int *owner = kp_xcalloc((size_t)ed.n, sizeof(int));
		for (int e = 0; e < ed.n; e++)
			owner[e] = -1;
		x->st = kp_xrealloc(x->st, sizeof(*x->st) * (size_t)(x->nst + 1));
		x->st[x->nst++] = (rw_stage){ed, owner, x->len};
		free(x->text);
		x->text = out;
		x->len = outlen;
	} else
		kp_edits_release(&ed);
	free(err);
	free(tool);
	free(style);
}

/* The diagnostic that owns the fixes of a file several passes changed:
 * its first kpipe-pipelined note, else the first diagnostic that owns an
 * edit, else the first with an id; -1 when none. */
static int fixes_owner(const rw_file *x)
{
	const kp_rw_result *r = x->r;
	for (int i = 0; i < r->ndiags; i++)
		if (r->diags[i].id && !strcmp(r->diags[i].id, "kpipe-pipelined"))
			return i;
	for (int k = 0; k < x->nst; k++)
		for (int e = 0; e < x->st[k].ed.n; e++)
			if (x->st[k].owner[e] >= 0)
				return x->st[k].owner[e];
	for (int i = 0; i < r->ndiags; i++)
		if (r->diags[i].id)
			return i;
	return -1;
}

/* r->fixes, relative to the input: with one pass that changed the file,
 * its edits merged (each owned by its diagnostic); with several, the
 * regions the passes changed, all owned by fixes_owner().  -1 when edits
 * overlap. */
static int make_fixes(rw_file *x)
{
	kp_rw_result *r = x->r;
	if (x->nst == 1)
		return kp_fixes_merge(&x->st[0].ed, x->st[0].owner, &r->fixes, &r->nfixes);
	const kp_edits **eds = kp_xcalloc((size_t)x->nst, sizeof(*eds));
	size_t *inlen = kp_xcalloc((size_t)x->nst, sizeof(*inlen));
	for (int k = 0; k < x->nst; k++) {
		eds[k] = &x->st[k].ed;
		inlen[k] = x->st[k].inlen;
	}
	int rc = kp_fixes_compose(eds, inlen, x->nst, x->text, x->len, fixes_owner(x), &r->fixes,
				  &r->nfixes);
	free(eds);
	free(inlen);
	return rc;
}

/*
 * The end of one file: its final text through the re-parse guard (against
 * the input's parse tu, which po made, with the batch's precompiled header
 * pch or none), then its fixes.  Sets *out (NULL
 * when nothing changed or the text was refused) and r->status; returns
 * the file's exit code.
 */
static int finish_file(const kp_parse_opts *po, const char *pch, const kp_file *tu, rw_file *x,
		       char **out, size_t *outlen)
{
	kp_rw_result *r = x->r;
	*out = NULL;
	*outlen = 0;
	int rc = x->nst ? KP_EXIT_OK : KP_EXIT_NOTHING;
	if (x->nst && !x->bad) {
		/* every output (-o, -i, stdout, --diff, --out-dir, the fixes,
		 * tune's candidates) comes from here: check it */
		kp_file g = {0};
		const kp_parse_diag *first = NULL;
		char *gerr = NULL;
		int nnew = reparse_new_errors(po, pch, tu, x->orig, x->text, x->len, &g, &first,
					      &gerr);
		if (nnew) {
			refuse_invalid(x, x->text, x->len, nnew, first, gerr);
			rc = KP_EXIT_NOTHING;
		}
		free(gerr);
		kp_file_release(&g);
	}
	/* a compiler run kpipe made (the ptxas probe) failed: nothing is
	 * written, whatever else was pipelined */
	for (int i = 0; i < r->ndiags; i++)
		if (r->diags[i].id && !strcmp(r->diags[i].id, "kpipe-compiler-error"))
			rc = KP_EXIT_INPUT;
	if (rc == KP_EXIT_INPUT && !x->bad) {
		r->status = rc;
		return rc;
	}
	if (x->bad || (rc == KP_EXIT_OK && make_fixes(x))) {
		kp_rw_diag_add(r, x->orig->path, 0, 0, -1, "error", NULL,
			       "internal error: overlapping edits; nothing written");
		rc = KP_EXIT_INPUT;
	}
	if (rc == KP_EXIT_OK) {
		*out = x->text;
		*outlen = x->len;
		x->text = NULL;
	}
	r->status = rc;
	return rc;
}

/* The position of x's first kpipe-pipelined note (0 0 when none). */
static void first_pipelined(const rw_file *x, int *line, int *col)
{
	*line = *col = 0;
	for (int i = 0; i < x->r->ndiags && !*line; i++)
		if (x->r->diags[i].id && !strcmp(x->r->diags[i].id, "kpipe-pipelined")) {
			*line = x->r->diags[i].line;
			*col = x->r->diags[i].col;
		}
}

/*
 * Every rewrite verified before it is returned (verify.h, docs/verify.md):
 * the main file's rewrite runs against its input on the CPU emulator.  A
 * difference leaves the whole file as it was (kpipe-verify-failed, with
 * the launch and the first mismatch); a rewrite that cannot be verified
 * is returned with a kpipe-unverified warning, or refused with
 * --require-verify.  Returns the file's exit code; frees *out when it
 * refuses.
 */
/*
 * The test hook of the verifier (docs/verify.md): KPIPE_VERIFY_SUBSTITUTE
 * names a file whose text replaces kpipe's rewrite of the input of the
 * same name (up to the first '.' of both base names: dup_copy.wrong.cu
 * for dup_copy.cu), so the tests can show what happens to a wrong rewrite
 * once kpipe itself no longer writes any.
 */
static void test_substitute(const char *path, char **out, size_t *outlen)
{
	const char *sub = getenv("KPIPE_VERIFY_SUBSTITUTE");
	if (!sub || !*sub || !*out)
		return;
	const char *a = strrchr(path, '/'), *b = strrchr(sub, '/');
	a = a ? a + 1 : path;
	b = b ? b + 1 : sub;
	size_t na = strcspn(a, "."), nb = strcspn(b, ".");
	char *t;
	size_t tl;
	if (na != nb || strncmp(a, b, na) || kp_read_file(sub, &t, &tl))
		return;
	free(*out);
	*out = t;
	*outlen = tl;
}

/* The changed headers' texts (hs: the headers' rw_files, n of them; NULL
 * where unchanged) for kp_verify_headers.  Caller frees the arrays. */
static char **header_texts(rw_file *hs, int n, size_t **lens)
{
	char **t = kp_xcalloc((size_t)n + 1, sizeof(char *));
	*lens = kp_xcalloc((size_t)n + 1, sizeof(size_t));
	for (int h = 0; h < n; h++) {
		t[h] = hs[h].r->text;
		(*lens)[h] = hs[h].r->textlen;
	}
	return t;
}

/* The kpipe-unverified warning (msg) at x's first pipelined loop. */
static void unverified(rw_file *x, const char *msg)
{
	int line, col;
	first_pipelined(x, &line, &col);
	long off = line ? kp_file_offset(x->orig, line, col) : -1;
	int d = kp_rw_diag_add(x->r, x->orig->path, line, col, off, "warning", "kpipe-unverified",
			       msg);
	/* "// kpipe: ignore kpipe-unverified" on the loop */
	x->r->diags[d].suppressed = off >= 0 && kp_rw_ignored(x->orig->src, x->orig->len,
							      (size_t)off, "kpipe-unverified");
}

/* A refused rewrite exports no replacements (--export-fixes): they would
 * hang on the refusal's diagnostic. */
static void drop_fixes(kp_rw_result *r)
{
	kp_fixes_free(r->fixes, r->nfixes);
	r->fixes = NULL;
	r->nfixes = 0;
}

/* A failed or refused verification of a unit with rewritten headers: each
 * changed header refused too, its text dropped. */
static void refuse_headers(rw_file *hs, int n, const char *id, const char *msg)
{
	for (int h = 0; h < n; h++) {
		kp_rw_result *hr = hs[h].r;
		if (!hr->text)
			continue;
		int line, col;
		first_pipelined(&hs[h], &line, &col);
		refuse_file(&hs[h], line, col, id, msg);
		drop_fixes(hr);
		free(hr->text);
		hr->text = NULL;
		hr->textlen = 0;
		hr->status = KP_EXIT_NOTHING;
	}
}

static int verify_main(const kp_rw_opts *o, const kp_rw_input *in, rw_file *x, rw_file *hs, int nh,
		       const char *const *args, int nargs, char **out, size_t *outlen)
{
	test_substitute(in->path, out, outlen);
	int headers = 0, kernels = 0;
	for (int h = 0; h < nh; h++) {
		test_substitute(hs[h].r->path, &hs[h].r->text, &hs[h].r->textlen);
		headers |= hs[h].r->text != NULL;
		for (int k = 0; hs[h].r->text && k < hs[h].orig->nkernels; k++)
			kernels |= !hs[h].orig->kernels[k]->is_device;
	}
	/* __global__ kernels rewritten in headers alone: not verified, as
	 * before (kp_verify_headers says so when the file changed too) */
	if (o->no_verify || (!*out && (!headers || kernels)))
		return KP_EXIT_OK;
	kp_verify_result vr;
	memset(&vr, 0, sizeof(vr));
	/* the input offsets of the loops pipelined and of the kernels whose
	 * blocks were remapped (pass_block_swizzle.c) */
	long *offs = kp_xcalloc((size_t)x->r->ndiags + 1, sizeof(long));
	int n = 0;
	for (int i = 0; i < x->r->ndiags; i++) {
		const kp_rw_diag *d = &x->r->diags[i];
		if (d->id &&
		    (!strcmp(d->id, "kpipe-pipelined") || !strcmp(d->id, "kpipe-block-swizzled")))
			offs[n++] = d->off >= 0 ? d->off : kp_file_offset(x->orig, d->line, d->col);
	}
	kp_analyze_opts ao;
	char *spec_kernel = NULL;
	kp_rw_analyze_opts(o, in->path, &ao, &spec_kernel);
	if (headers) { /* the headers through the file's kernels (verify_unit.h) */
		size_t *hl = NULL;
		char **ht = header_texts(hs, nh, &hl);
		kp_verify_headers(o, &ao, in->path, (kp_file *)x->orig, *out, *outlen, ht, hl, args,
				  nargs, offs, n, &vr);
		free(ht);
		free(hl);
	} else
		kp_verify_file(o, &ao, in->path, (kp_file *)x->orig, *out, *outlen, offs, n, &vr);
	free(spec_kernel);
	free(offs);
	int rc = KP_EXIT_OK;
	kp_strbuf m = KP_STRBUF_INIT;
	const char *id = NULL;
	if (vr.status == KP_VERIFY_FAILED) {
		kp_strbuf_addf(&m,
			       "the rewrite differs from the original on the CPU emulator: kernel "
			       "%s, %s: %s; nothing was rewritten (docs/verify.md)",
			       vr.kernel ? vr.kernel : "?", vr.launch ? vr.launch : "?",
			       vr.detail ? vr.detail : "?");
		id = "kpipe-verify-failed";
	} else if (vr.status == KP_VERIFY_UNAVAILABLE && o->require_verify) {
		kp_strbuf_addf(
			&m,
			"the rewrite cannot be verified on the CPU emulator: %s; nothing was "
			"rewritten (--require-verify)",
			vr.detail ? vr.detail : "no reason given");
		id = "kpipe-unverified";
	} else if (vr.status == KP_VERIFY_UNAVAILABLE) {
		kp_strbuf_addf(&m,
			       "the rewrite was not verified on the CPU emulator: %s (written "
			       "anyway; --require-verify refuses it, --no-verify skips the check)",
			       vr.detail ? vr.detail : "no reason given");
		if (*out)
			unverified(x, kp_strbuf_str(&m));
		for (int h = 0; h < nh; h++)
			if (hs[h].r->text)
				unverified(&hs[h], kp_strbuf_str(&m));
	}
	if (id) {
		int line, col;
		first_pipelined(x, &line, &col);
		if (*out) {
			refuse_file(x, line, col, id, kp_strbuf_str(&m));
			drop_fixes(x->r);
		}
		refuse_headers(hs, nh, id, kp_strbuf_str(&m));
		free(*out);
		*out = NULL;
		*outlen = 0;
		x->r->status = rc = KP_EXIT_NOTHING;
	}
	kp_strbuf_release(&m);
	kp_verify_result_release(&vr);
	return rc;
}

/* Parses the input as the options say into *f, with *po the options it
 * was parsed with (*args and *root hold their strings: the caller frees
 * them).  Returns KP_EXIT_OK, or KP_EXIT_INPUT with r filled when the file
 * cannot be parsed or does not compile. */
static int parse_input(const kp_rw_opts *o, const kp_rw_input *in, kp_rw_result *r, kp_file *f,
		       kp_parse_opts *po, const char ***args, char **root)
{
	const char *path = in->path, *pch = in->pch;
	kp_rw_parse_opts(o, po);
	po->contents = in->contents;
	po->contents_len = in->len;
	*root = in->headers && !in->header_root ? kp_dir_of_real_path(path) : NULL;
	po->headers = in->headers;
	po->header_root = in->header_root ? in->header_root : *root;
	if (in->no_compdb) {
		po->no_compdb = 1;
		po->build_dir = NULL;
	}
	/* the batch's flags (from compile_commands.json) come first, the
	 * user's after them, as parse.c orders them */
	const char **a = kp_xcalloc((size_t)(in->nextra + o->nargs + 2), sizeof(char *));
	*args = a;
	int nargs = 0;
	for (int i = 0; i < in->nextra; i++)
		a[nargs++] = in->extra_args[i];
	for (int i = 0; i < o->nargs; i++)
		a[nargs++] = o->args[i];
	po->args = a;
	po->nargs = nargs;
	if (pch) {
		a[nargs] = "-include-pch";
		a[nargs + 1] = pch;
		po->nargs = nargs + 2;
	}
	char *err = NULL;
	int prc = kp_parse(f, path, po, &err);
	if (pch && prc != KP_PARSE_OK && prc != KP_PARSE_IO) {
		/* a precompiled header the flags do not fit (another -std, a
		 * macro it was built without): parse from scratch */
		free(err);
		err = NULL;
		kp_file_release(f);
		memset(f, 0, sizeof(*f));
		po->nargs = nargs;
		prc = kp_parse(f, path, po, &err);
	}
	if (prc == KP_PARSE_IO || prc == KP_PARSE_FAILED) {
		kp_rw_diag_add(r, path, 0, 0, -1, "error", NULL, err ? err : "cannot parse");
		free(err);
		r->status = KP_EXIT_INPUT;
		return KP_EXIT_INPUT;
	}
	if (prc == KP_PARSE_ERRORS) {
		kp_rw_parse_errors(r, f, path, "the file does not compile; nothing was rewritten");
		r->status = KP_EXIT_INPUT;
		return KP_EXIT_INPUT;
	}
	return KP_EXIT_OK;
}

/* The errors a parse tolerated (kp_file.outside_errors), as warnings. */
static void report_outside_errors(kp_rw_result *r, kp_file *f)
{
	for (int i = 0; i < f->ndiags; i++) {
		const kp_parse_diag *d = &f->diags[i];
		long off = d->file == f->path ? kp_file_offset(f, d->line, d->col) : -1;
		if (d->skipped) /* a host declaration left out of the parse */
			kp_rw_diag_add(r, d->file, d->line, d->col, off, "note", NULL, d->message);
		if (!f->outside_errors || strcmp(d->severity, "error"))
			continue;
		if (d->kernel)
			kp_rw_diag_add(r, d->file, d->line, d->col, off, "warning", NULL,
				       kp_arena_printf(&f->arena,
						       "in kernel '%s', which is not rewritten: %s",
						       d->kernel, d->message));
		else
			kp_rw_diag_add(r, d->file, d->line, d->col, off, "warning", NULL,
				       kp_arena_printf(&f->arena, "%s: %s", kp_parse_diag_note(d),
						       d->message));
	}
}

int kp_rewrite_buffer(const kp_rw_opts *o, const kp_rw_input *in, kp_rw_result *r, char **out,
		      size_t *outlen)
{
	*out = NULL;
	*outlen = 0;
	kp_file f = {0};
	kp_parse_opts po;
	const char **args = NULL;
	char *root = NULL;
	if (parse_input(o, in, r, &f, &po, &args, &root) != KP_EXIT_OK) {
		free(args);
		free(root);
		kp_file_release(&f);
		return KP_EXIT_INPUT;
	}
	report_outside_errors(r, &f);
	if (o->kernel && !in->in_batch && !kp_file_has_kernel(&f, o->kernel))
		kp_rw_diag_add(r, f.path, 0, 0, -1, "warning", "kpipe-no-such-kernel",
			       kp_arena_printf(&f.arena,
					       "--kernel %s names no kernel of this file or its "
					       "project headers (%s%s)",
					       o->kernel,
					       *kp_kernel_names(&f) ? "they have: " : "none",
					       kp_kernel_names(&f)));
	/* the main file, then each project header with kernels */
	int nfiles = 1 + f.nheaders;
	rw_file *files = kp_xcalloc((size_t)nfiles, sizeof(*files));
	files[0] = (rw_file){.orig = &f, .r = r};
	if (f.nheaders)
		r->headers = kp_xcalloc((size_t)f.nheaders, sizeof(*r->headers));
	for (int h = 0; h < f.nheaders; h++) {
		kp_file *hf = f.headers[h];
		kp_rw_result *hr = &r->headers[r->nheaders++];
		hr->path = kp_xstrdup(hf->path);
		hr->abs_path = kp_xstrdup(hf->abs_path);
		hr->included_from = kp_xstrdup(in->path);
		files[1 + h] = (rw_file){.orig = hf, .r = hr};
	}
	run_passes(o, &po, &f, files, nfiles);
	for (int i = 0; i < nfiles; i++)
		format_file(o, &files[i]);
	int rc = finish_file(&po, in->pch, &f, &files[0], out, outlen); /* sets r->status */
	int hchanged = 0;
	for (int h = 0; h < f.nheaders; h++) {
		kp_rw_result *hr = &r->headers[h];
		int hrc = finish_file(&po, in->pch, &f, &files[1 + h], &hr->text, &hr->textlen);
		hchanged |= hr->text != NULL;
		if (hrc == KP_EXIT_OK && rc == KP_EXIT_NOTHING)
			rc = KP_EXIT_OK;
	}
	if (rc == KP_EXIT_OK && verify_main(o, in, &files[0], files + 1, f.nheaders, args, po.nargs,
					    out, outlen) != KP_EXIT_OK) {
		hchanged = 0;
		for (int h = 0; h < f.nheaders; h++)
			hchanged |= r->headers[h].text != NULL;
		if (!hchanged)
			rc = KP_EXIT_NOTHING;
	}
	for (int i = 0; i < nfiles; i++)
		rw_file_release(&files[i]);
	free(files);
	free(args);
	free(root);
	kp_file_release(&f);
	return rc;
}
