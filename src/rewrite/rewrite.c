/*
 * rewrite.c - the rewrite driver (rewrite.h): parse a file, and for its
 * model and each project header's, analyse the loops, plan each, let its
 * transform produce edits, apply them, and check with the compiler that
 * the translation unit still compiles with the new text (the re-parse
 * guard) before anything is returned.  Every output of `kpipe rewrite`,
 * single file or batch, and tune's candidates come from here.  No
 * printing, no files written.
 */
#define _GNU_SOURCE
#include "rewrite.h"

#include "fixes.h"
#include "plan.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kp_rw_parse_opts(const kp_rw_opts *o, kp_parse_opts *po)
{
	memset(po, 0, sizeof(*po));
	po->arch = o->arch->name;
	po->cuda_path = o->cuda_path;
	po->args = o->args;
	po->nargs = o->nargs;
	po->build_dir = o->build_dir;
	po->header_filter = o->header_filter;
}

/* Threads per block and kernel name from a launch description. */
static int read_spec(const char *path, int *threads, char **kernel)
{
	char *txt;
	size_t len;
	if (kp_read_file(path, &txt, &len))
		return -1;
	cJSON *j = cJSON_Parse(txt);
	free(txt);
	if (!j)
		return -1;
	cJSON *block = cJSON_GetObjectItemCaseSensitive(j, "block");
	int t = 1;
	if (cJSON_IsArray(block)) {
		cJSON *e;
		cJSON_ArrayForEach(e, block)
		{
			long v = cJSON_IsNumber(e)   ? (long)e->valuedouble
				 : cJSON_IsString(e) ? strtol(e->valuestring, NULL, 10)
						     : 0;
			if (v > 0)
				t *= (int)v;
		}
	}
	cJSON *k = cJSON_GetObjectItemCaseSensitive(j, "kernel");
	if (cJSON_IsString(k))
		*kernel = kp_xstrdup(k->valuestring);
	*threads = t > 1 ? t : 0;
	cJSON_Delete(j);
	return 0;
}

void kp_rw_analyze_opts(const kp_rw_opts *o, const char *file, kp_analyze_opts *ao,
			char **spec_kernel)
{
	memset(ao, 0, sizeof(*ao));
	ao->arch = o->arch;
	ao->threads = o->threads;
	ao->kernel = o->kernel;
	*spec_kernel = NULL;
	char *spec = NULL;
	if (o->spec)
		spec = kp_xstrdup(o->spec);
	else if (file) {
		size_t n = strlen(file);
		const char *dot = strrchr(file, '.');
		if (dot && (!strcmp(dot, ".cu") || !strcmp(dot, ".cuh")))
			n = (size_t)(dot - file);
		kp_strbuf sb = KP_STRBUF_INIT;
		kp_strbuf_add(&sb, file, n);
		kp_strbuf_adds(&sb, ".launch.json");
		spec = kp_strbuf_detach(&sb);
	}
	if (spec && read_spec(spec, &ao->spec_threads, spec_kernel) == 0)
		ao->spec_kernel = *spec_kernel;
	free(spec);
}

/* Byte offset of a 1-based line and (byte) column, -1 when out of range. */
static long offset_of(const char *src, size_t len, int line, int col)
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

static void add_reason(kp_rw_result *r, const char *path, const char *src, size_t len, int line,
		       int col, const char *level, const char *id, const char *msg)
{
	kp_rw_diag_add(r, path, line, col, offset_of(src, len, line, col), level, id, msg);
	r->refused++;
	kp_counts_add(&r->by_reason, id, 1);
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

/*
 * The re-parse guard, the last line of defence against a wrong rewrite
 * (docs/design.md): the rewritten text is parsed as the input was (the same
 * arguments and precompiled header, an unsaved buffer for the same path,
 * diagnostics only), and every error it has that the input did not have
 * (matched by file and message) is new.  Returns the number of new errors
 * (the first in *first, owned by *g), or -1 with *err set when libclang
 * could not parse it at all.  The caller releases *g.
 */
static int reparse_new_errors(const kp_parse_opts *po, const kp_file *in, const kp_file *f,
			      const char *text, size_t len, kp_file *g, const kp_parse_diag **first,
			      char **err)
{
	kp_parse_opts p2 = *po;
	if (f->abs_path) { /* a header: the main file as it was, the header's new text */
		p2.unsaved_header = f->abs_path;
		p2.unsaved_header_text = text;
		p2.unsaved_header_len = len;
	} else {
		p2.contents = text;
		p2.contents_len = len;
	}
	p2.diags_only = 1;
	p2.headers = 0;
	*first = NULL;
	*err = NULL;
	int prc = kp_parse(g, in->path, &p2, err);
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

/* Turns a result whose rewrite failed the guard into "nothing pipelined":
 * the kpipe-pipelined notes, their variants and fixes go, every loop that
 * was pipelined counts as refused, and one kpipe-rewrite-invalid warning
 * says why, at the loop whose rewritten text holds the first new error (or
 * at the input position the error falls on, or at the first loop). */
static void refuse_invalid(kp_rw_result *r, const kp_file *f, const kp_edits *ed, const int *owner,
			   const char *out, size_t outlen, int nnew, const kp_parse_diag *first,
			   const char *err)
{
	const char *path = f->path;
	int line = 0, col = 0;
	for (int i = 0; i < r->ndiags && !line; i++)
		if (r->diags[i].id && !strcmp(r->diags[i].id, "kpipe-pipelined")) {
			line = r->diags[i].line;
			col = r->diags[i].col;
		}
	int in_main = first && diag_in_model(first, f);
	if (in_main) {
		long oo = offset_of(out, outlen, first->line, first->col);
		size_t so = 0;
		int e = oo >= 0 ? kp_edits_origin(ed, (size_t)oo, &so) : -1;
		if (e >= 0 && owner[e] >= 0) {
			line = r->diags[owner[e]].line;
			col = r->diags[owner[e]].col;
		} else if (oo >= 0 && so <= f->len)
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
	/* the notes of the loops pipelined go: nothing is */
	int k = 0;
	for (int i = 0; i < r->ndiags; i++) {
		kp_rw_diag *d = &r->diags[i];
		if (d->id && !strcmp(d->id, "kpipe-pipelined")) {
			free(d->file);
			free(d->level);
			free(d->id);
			free(d->message);
			continue;
		}
		r->diags[k++] = *d;
	}
	r->ndiags = k;
	kp_counts_release(&r->by_variant);
	r->refused += r->pipelined;
	r->pipelined = 0;
	kp_rw_diag_add(r, path, line, col, line ? offset_of(f->src, f->len, line, col) : -1,
		       "warning", "kpipe-rewrite-invalid", kp_strbuf_str(&m));
	kp_counts_add(&r->by_reason, "kpipe-rewrite-invalid", 1);
	kp_strbuf_release(&m);
}

/*
 * One model of the translation unit (the main file, or a project header
 * with kernels): analyse, plan and transform its loops, apply the edits and
 * check that the unit still compiles with the new text.  `tu` is the main
 * file's model (its path and diagnostics), po the options it was parsed
 * with.  Fills r and *out (NULL when nothing changed); returns the model's
 * exit code.
 */
static int rewrite_model(const kp_rw_opts *o, const kp_parse_opts *po, const kp_file *tu,
			 kp_file *f, kp_rw_result *r, char **out, size_t *outlen)
{
	*out = NULL;
	*outlen = 0;
	kp_analyze_opts ao;
	char *sk;
	kp_rw_analyze_opts(o, tu->path, &ao, &sk);
	kp_analysis an;
	kp_analyze(&an, f, &ao);
	r->kernels += an.nkernels;
	kp_edits ed = {0};
	int *owner = NULL;
	kp_decl **done = NULL;
	int ndone = 0;
	int rc = KP_EXIT_OK;
	for (int i = 0; i < an.nloops; i++) {
		kp_loop *l = an.loops[i];
		r->loops++;
		if (!l->eligible) {
			for (int k = 0; k < l->nreasons; k++) {
				const kp_reason *x = &l->reasons[k];
				int remark = !strcmp(x->id, "kpipe-already-pipelined");
				kp_rw_diag_add(r, f->path, x->line, x->col,
					       offset_of(f->src, f->len, x->line, x->col),
					       remark ? "remark" : "warning", x->id, x->message);
				kp_counts_add(&r->by_reason, x->id, 1);
			}
			r->refused++;
			continue;
		}
		int clash = 0;
		for (int t = 0; t < l->ntiles; t++)
			for (int d = 0; d < ndone; d++)
				if (l->tiles[t].loaded && done[d] == l->tiles[t].arr)
					clash = 1;
		if (clash) {
			add_reason(r, f->path, f->src, f->len, l->node->line, l->node->col,
				   "warning", "kpipe-tile-shared-by-loops",
				   "a tile of this loop was already pipelined in an earlier loop");
			continue;
		}
		kp_plan p;
		kp_plan_loop(&p, f, l, o->arch, o->variant, o->stages);
		if (!p.xform) {
			add_reason(r, f->path, f->src, f->len, l->node->line, l->node->col,
				   "warning", p.refuse_id, p.refuse_msg);
			continue;
		}
		kp_xform_opts xo = {o->arch, p.stages, p.why};
		const char *xerr = NULL;
		kp_edits mine = {0};
		if (p.xform->apply(f, l, &xo, &mine, &xerr)) {
			add_reason(r, f->path, f->src, f->len, l->node->line, l->node->col,
				   "warning", "kpipe-transform-failed",
				   xerr ? xerr : "the transform failed");
			kp_edits_release(&mine);
			continue;
		}
		kp_strbuf note = KP_STRBUF_INIT;
		kp_strbuf_addf(&note, "pipelined with %s (%d stages): %s", p.xform->name, p.stages,
			       p.why);
		int di = kp_rw_diag_add(r, f->path, l->node->line, l->node->col,
					offset_of(f->src, f->len, l->node->line, l->node->col),
					"note", "kpipe-pipelined", kp_strbuf_str(&note));
		kp_strbuf_release(&note);
		for (int e = 0; e < mine.n; e++) {
			/* one #include per file */
			int dup = 0;
			for (int k = 0; k < ed.n; k++)
				if (ed.v[k].off == mine.v[e].off && ed.v[k].len == mine.v[e].len &&
				    !strcmp(ed.v[k].text, mine.v[e].text) && mine.v[e].len == 0 &&
				    strstr(mine.v[e].text, "#include"))
					dup = 1;
			if (!dup) {
				kp_edits_add(&ed, mine.v[e].off, mine.v[e].len, mine.v[e].text);
				owner = kp_xrealloc(owner, sizeof(*owner) * (size_t)ed.n);
				owner[ed.n - 1] = di;
			}
		}
		kp_edits_release(&mine);
		for (int t = 0; t < l->ntiles; t++)
			if (l->tiles[t].loaded) {
				done = kp_xrealloc(done, sizeof(*done) * (size_t)(ndone + 1));
				done[ndone++] = l->tiles[t].arr;
			}
		r->pipelined++;
		kp_counts_add(&r->by_variant, p.xform->name, 1);
	}
	free(done);
	if (ed.n && memmem(f->src, f->len, "\r\n", 2)) {
		/* a CRLF file gets CRLF in the generated lines too */
		for (int e = 0; e < ed.n; e++) {
			kp_strbuf t = KP_STRBUF_INIT;
			for (const char *p = ed.v[e].text; *p; p++) {
				if (*p == '\n' && (p == ed.v[e].text || p[-1] != '\r'))
					kp_strbuf_addc(&t, '\r');
				kp_strbuf_addc(&t, *p);
			}
			free(ed.v[e].text);
			ed.v[e].text = kp_strbuf_detach(&t);
		}
	}
	if (ed.n) {
		test_break_rewrite(&ed);
		int bad = kp_edits_apply(&ed, f->src, f->len, out, outlen);
		if (!bad) {
			/* every output (-o, -i, stdout, --diff, --out-dir, the
			 * fixes, tune's candidates) comes from here: check it */
			kp_file g = {0};
			const kp_parse_diag *first = NULL;
			char *gerr = NULL;
			int nnew = reparse_new_errors(po, tu, f, *out, *outlen, &g, &first, &gerr);
			if (nnew) {
				refuse_invalid(r, f, &ed, owner, *out, *outlen, nnew, first, gerr);
				free(*out);
				*out = NULL;
				*outlen = 0;
				rc = KP_EXIT_NOTHING;
			}
			free(gerr);
			kp_file_release(&g);
		}
		if (bad ||
		    (rc == KP_EXIT_OK && kp_fixes_merge(&ed, owner, &r->fixes, &r->nfixes))) {
			free(*out);
			*out = NULL;
			kp_rw_diag_add(r, f->path, 0, 0, -1, "error", NULL,
				       "internal error: overlapping edits; nothing written");
			rc = KP_EXIT_INPUT;
		}
	} else
		rc = KP_EXIT_NOTHING;
	kp_edits_release(&ed);
	free(owner);
	free(sk);
	r->status = rc;
	return rc;
}

int kp_rewrite_buffer(const kp_rw_opts *o, const kp_rw_input *in, kp_rw_result *r, char **out,
		      size_t *outlen)
{
	*out = NULL;
	*outlen = 0;
	const char *path = in->path, *pch = in->pch;
	const char *const *extra_args = in->extra_args;
	int nextra = in->nextra;
	kp_file f = {0};
	kp_parse_opts po;
	kp_rw_parse_opts(o, &po);
	po.contents = in->contents;
	po.contents_len = in->len;
	char *root = in->headers && !in->header_root ? kp_dir_of_real_path(path) : NULL;
	po.headers = in->headers;
	po.header_root = in->header_root ? in->header_root : root;
	if (in->no_compdb) {
		po.no_compdb = 1;
		po.build_dir = NULL;
	}
	/* the batch's flags (from compile_commands.json) come first, the
	 * user's after them, as parse.c orders them */
	const char **args = kp_xcalloc((size_t)(nextra + o->nargs + 2), sizeof(char *));
	int nargs = 0;
	for (int i = 0; i < nextra; i++)
		args[nargs++] = extra_args[i];
	for (int i = 0; i < o->nargs; i++)
		args[nargs++] = o->args[i];
	po.args = args;
	po.nargs = nargs;
	if (pch) {
		args[nargs] = "-include-pch";
		args[nargs + 1] = pch;
		po.nargs = nargs + 2;
	}
	char *err = NULL;
	int prc = kp_parse(&f, path, &po, &err);
	if (pch && prc != KP_PARSE_OK && prc != KP_PARSE_IO) {
		/* a precompiled header the flags do not fit (another -std, a
		 * macro it was built without): parse from scratch */
		free(err);
		err = NULL;
		kp_file_release(&f);
		memset(&f, 0, sizeof(f));
		po.nargs = nargs;
		prc = kp_parse(&f, path, &po, &err);
	}
	if (prc == KP_PARSE_IO || prc == KP_PARSE_FAILED) {
		kp_rw_diag_add(r, path, 0, 0, -1, "error", NULL, err ? err : "cannot parse");
		free(err);
		free(args);
		free(root);
		kp_file_release(&f);
		r->status = KP_EXIT_INPUT;
		return KP_EXIT_INPUT;
	}
	if (prc == KP_PARSE_ERRORS) {
		for (int i = 0; i < f.ndiags; i++) {
			const kp_parse_diag *d = &f.diags[i];
			if (strcmp(d->severity, "error"))
				continue;
			long off = d->file == f.path ? offset_of(f.src, f.len, d->line, d->col)
						     : -1;
			kp_rw_diag_add(r, d->file, d->line, d->col, off, d->severity, NULL,
				       d->message);
		}
		kp_rw_diag_add(r, path, 0, 0, -1, "error", NULL,
			       "the file does not compile; nothing was rewritten");
		free(args);
		free(root);
		kp_file_release(&f);
		r->status = KP_EXIT_INPUT;
		return KP_EXIT_INPUT;
	}
	for (int i = 0; f.outside_errors && i < f.ndiags; i++) {
		const kp_parse_diag *d = &f.diags[i];
		if (strcmp(d->severity, "error"))
			continue;
		long off = d->file == f.path ? offset_of(f.src, f.len, d->line, d->col) : -1;
		if (d->kernel)
			kp_rw_diag_add(r, d->file, d->line, d->col, off, "warning", NULL,
				       kp_arena_printf(&f.arena,
						       "in kernel '%s', which is not rewritten: %s",
						       d->kernel, d->message));
		else
			kp_rw_diag_add(
				r, d->file, d->line, d->col, off, "warning", NULL,
				kp_arena_printf(&f.arena,
						"ignored, outside every kernel (host code nvcc "
						"may accept): %s",
						d->message));
	}
	int rc = rewrite_model(o, &po, &f, &f, r, out, outlen); /* sets r->status */
	if (f.nheaders)
		r->headers = kp_xcalloc((size_t)f.nheaders, sizeof(*r->headers));
	for (int h = 0; h < f.nheaders; h++) {
		kp_file *hf = f.headers[h];
		kp_rw_result *hr = &r->headers[r->nheaders++];
		hr->path = kp_xstrdup(hf->path);
		hr->abs_path = kp_xstrdup(hf->abs_path);
		hr->included_from = kp_xstrdup(path);
		int hrc = rewrite_model(o, &po, &f, hf, hr, &hr->text, &hr->textlen);
		if (hrc == KP_EXIT_OK && rc == KP_EXIT_NOTHING)
			rc = KP_EXIT_OK;
	}
	free(args);
	free(root);
	kp_file_release(&f);
	return rc;
}
