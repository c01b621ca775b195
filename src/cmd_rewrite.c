/*
 * cmd_rewrite.c - `kpipe rewrite`: parse (with the flags and target of
 * the file's compile_commands.json entry under -p), analyse, plan each
 * eligible loop, let its transform produce edits, apply them and write the
 * result (stdout, -o, -i, --diff or --dry-run).  Refusals are printed as
 * file:line:col diagnostics with their stable ids; nothing is written
 * for a file that failed or had nothing to pipeline.
 */
#define _GNU_SOURCE
#include "batch.h"
#include "cli.h"
#include "fixes.h"
#include "plan.h"
#include "sarif.h"
#include "validate.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const rewrite_opts[] = {
	"--arch",
	"--kernel",
	"--cuda-path",
	"-p",
	"--spec",
	"--threads",
	"--extra-arg",
	"-o",
	"-i",
	"--diff",
	"--dry-run",
	"--variant",
	"--stages",
	"-v",
	"--assume-filename",
	"--backup-suffix",
	"--format",
	"--out-dir",
	"-j",
	"--exclude",
	"--shard",
	"--export-fixes",
	"--no-pch",
	"--validate",
	"--sanitize",
	"--no-sanitize",
	"--sizes",
	"--gpu-dir",
	"--header-filter",
	NULL,
};

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
static int rewrite_model(const kp_cli *o, const kp_parse_opts *po, const kp_file *tu, kp_file *f,
			 kp_rw_result *r, char **out, size_t *outlen)
{
	*out = NULL;
	*outlen = 0;
	kp_analyze_opts ao;
	char *sk;
	kp_cli_analyze_opts(o, tu->path, &ao, &sk);
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

int kp_rewrite_buffer(const kp_cli *o, const kp_rw_input *in, kp_rw_result *r, char **out,
		      size_t *outlen)
{
	*out = NULL;
	*outlen = 0;
	const char *path = in->path, *pch = in->pch;
	const char *const *extra_args = in->extra_args;
	int nextra = in->nextra;
	kp_file f = {0};
	kp_parse_opts po;
	kp_cli_parse_opts(o, &po);
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
	const char **args = kp_xcalloc((size_t)(nextra + o->ncargs + 2), sizeof(char *));
	int nargs = 0;
	for (int i = 0; i < nextra; i++)
		args[nargs++] = extra_args[i];
	for (int i = 0; i < o->ncargs; i++)
		args[nargs++] = o->cargs[i];
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

/* Writes a file atomically (safe_write.c); `like` (the input, for a backup)
 * gives its mode, NULL keeps the destination's. */
static int write_out(const char *path, const char *data, size_t len, const char *like)
{
	int e = like ? kp_write_file_atomic_like(path, data, len, like)
		     : kp_write_file_atomic(path, data, len);
	if (e) {
		fprintf(stderr, "kpipe rewrite: error: cannot write '%s': %s\n", path, strerror(-e));
		return KP_EXIT_INPUT;
	}
	return 0;
}

/* Is any input a directory? */
static int any_directory(const kp_cli *o)
{
	for (int i = 0; i < o->nfiles; i++) {
		struct stat st;
		if (strcmp(o->files[i], "-") && stat(o->files[i], &st) == 0 && S_ISDIR(st.st_mode))
			return 1;
	}
	return 0;
}

/* -i and --diff for the project headers a single-file rewrite changed:
 * the diff on stdout after the file's, the headers written in place.
 * Returns non-zero when one could not be read or written. */
static int write_headers(const kp_cli *o, kp_rw_result *r)
{
	int bad = 0;
	for (int h = 0; h < r->nheaders; h++) {
		kp_rw_result *x = &r->headers[h];
		if (!x->text)
			continue;
		char *old = NULL;
		size_t oldlen = 0;
		int e = kp_read_file(x->abs_path, &old, &oldlen);
		if (e) {
			fprintf(stderr, "kpipe rewrite: error: cannot read '%s': %s\n", x->path,
				strerror(-e));
			bad = 1;
			continue;
		}
		if (kp_rw_write(o, x, x->path, x->abs_path, old, oldlen, x->text, x->textlen, "/"))
			bad = 1;
		if (x->diff)
			fputs(x->diff, stdout);
		for (int i = 0; i < x->ndiags; i++)
			if (!strcmp(x->diags[i].level, "error"))
				fprintf(stderr, "%s: error: %s\n", x->path, x->diags[i].message);
		free(old);
	}
	return bad;
}

/* --format json / sarif and --export-fixes for one file (and the project
 * headers rewritten through it). */
static int write_reports(const kp_cli *o, kp_rw_result *r, int rc)
{
	int n = 1 + r->nheaders;
	const kp_rw_result **one = kp_xcalloc((size_t)n, sizeof(*one));
	one[0] = r;
	for (int h = 0; h < r->nheaders; h++)
		one[1 + h] = &r->headers[h];
	if (!strcmp(o->format, "sarif")) {
		char *cwd = getcwd(NULL, 0);
		char *log = kp_sarif_log(one, n, cwd, rc);
		fputs(log, stdout);
		free(log);
		free(cwd);
	} else if (!strcmp(o->format, "json")) {
		char *j = kp_batch_report_json(one, n, 0, 0);
		fputs(j, stdout);
		free(j);
	}
	if (o->export_fixes) {
		char *cwd = getcwd(NULL, 0);
		char *y = kp_fixes_yaml(one, n, r->abs_path ? r->abs_path : r->path, cwd);
		int e = kp_write_file_atomic(o->export_fixes, y, strlen(y));
		free(y);
		free(cwd);
		if (e) {
			fprintf(stderr, "kpipe rewrite: error: cannot write '%s': %s\n", o->export_fixes,
				strerror(-e));
			free(one);
			return KP_EXIT_INPUT;
		}
	}
	free(one);
	return 0;
}

/*
 * --validate: runs `kpipe validate` on the input and what was just written
 * (steps 1-5, report on stdout).  With -i the input is gone, so the
 * original text is kept in a temporary file beside it (its #includes still
 * resolve) and, when the validation fails, put back: -i never leaves a
 * rewrite that failed its proof.  Returns the validation's exit code.
 */
static int validate_written(const kp_cli *o, const char *in, const char *written,
			    const char *orig_src, size_t orig_len)
{
	char *orig_copy = NULL;
	if (o->in_place) {
		char *dup = kp_xstrdup(in);
		kp_strbuf t = KP_STRBUF_INIT;
		kp_strbuf_addf(&t, "%s/.kpipe-orig-XXXXXX.cu", dirname(dup));
		free(dup);
		int fd = mkstemps(t.buf, 3);
		int e = fd < 0 ? -errno : 0;
		if (fd >= 0) {
			close(fd);
			e = kp_write_file_atomic(t.buf, orig_src, orig_len);
		}
		if (e) {
			fprintf(stderr, "kpipe rewrite: error: cannot keep a copy of the original for "
					"--validate beside '%s': %s\n", in, strerror(-e));
			if (fd >= 0)
				unlink(t.buf);
			kp_strbuf_release(&t);
			return KP_EXIT_INPUT;
		}
		orig_copy = kp_strbuf_detach(&t);
	}
	int nflags = 0;
	const char **flags = kp_cli_nvcc_flags(o, NULL, &nflags);
	kp_validate_request rq = {
		.original = orig_copy ? orig_copy : in,
		.rewritten = written,
		.original_name = in,
		.spec = o->spec,
		.kernel = o->kernel,
		.arch = o->arch_name,
		.cuda_path = o->cuda_path,
		.format = "text",
		.sizes = o->sizes,
		.gpu_dir = o->gpu_dir,
		.threads = o->threads,
		.sanitize = o->sanitize >= 0,
		.nvcc_args = flags,
		.nnvcc_args = nflags,
	};
	fflush(stdout);
	int rc = kp_validate_files(&rq);
	fflush(stdout);
	if (rc == KP_EXIT_VALIDATION && orig_copy) {
		int e = kp_write_file_atomic(in, orig_src, orig_len);
		if (e)
			fprintf(stderr, "kpipe rewrite: error: validation failed and '%s' could not be "
					"restored (%s); the original is in '%s'\n", in, strerror(-e),
				orig_copy);
		else
			fprintf(stderr, "kpipe rewrite: validation failed: '%s' is back to the "
					"original\n", in);
		if (e) {
			free(orig_copy);
			orig_copy = NULL; /* keep it */
		}
	} else if (rc == KP_EXIT_VALIDATION)
		fprintf(stderr, "kpipe rewrite: validation failed: '%s' was written but did not pass\n",
			written);
	if (orig_copy)
		unlink(orig_copy);
	free(orig_copy);
	free(flags);
	return rc;
}

int cmd_rewrite(int argc, char **argv)
{
	kp_cli o;
	int rc = kp_cli_parse(&o, argc, argv, "rewrite", rewrite_opts);
	if (rc)
		return rc;
	if ((o.in_place && o.output) || (o.in_place && o.diff) || (o.diff && o.output) ||
	    (o.out_dir && (o.output || o.in_place || o.diff))) {
		fprintf(stderr, "kpipe rewrite: error: -o, -i, --out-dir and --diff exclude each other\n");
		kp_cli_release(&o);
		return KP_EXIT_USAGE;
	}
	int report_stdout = strcmp(o.format, "text") != 0;
	if (report_stdout && (o.diff || (o.output && !strcmp(o.output, "-")))) {
		fprintf(stderr,
			"kpipe rewrite: error: --format %s writes to stdout: use it with -o FILE, -i, "
			"--out-dir or --dry-run, not with %s\n",
			o.format, o.diff ? "--diff" : "-o -");
		kp_cli_release(&o);
		return KP_EXIT_USAGE;
	}
	if ((o.sanitize || o.sizes || o.gpu_dir) && !o.validate) {
		fprintf(stderr,
			"kpipe rewrite: error: --sanitize, --no-sanitize, --sizes and --gpu-dir "
			"go with --validate\n");
		kp_cli_release(&o);
		return KP_EXIT_USAGE;
	}
	if (o.validate && (o.diff || o.dry_run || report_stdout || o.out_dir || o.nfiles > 1 ||
			   any_directory(&o) || (!o.output && !o.in_place) ||
			   (o.output && !strcmp(o.output, "-")) ||
			   (o.nfiles == 1 && !strcmp(o.files[0], "-")))) {
		fprintf(stderr, "kpipe rewrite: error: --validate checks a file it wrote: use it with "
				"one input FILE and -o OUT or -i (not with stdin, --diff, --dry-run, "
				"--out-dir, several files or --format json/sarif)\n");
		kp_cli_release(&o);
		return KP_EXIT_USAGE;
	}
	if (o.nfiles > 1 || o.out_dir || (o.nfiles == 0 && o.build_dir) || any_directory(&o)) {
		for (int i = 0; i < o.nfiles; i++)
			if (!strcmp(o.files[i], "-")) {
				fprintf(stderr, "kpipe rewrite: error: stdin ('-') is one input on its own\n");
				kp_cli_release(&o);
				return KP_EXIT_USAGE;
			}
		if (o.output) {
			fprintf(stderr, "kpipe rewrite: error: -o takes one input file; use --out-dir "
					"DIR (or -i) for several files and directories\n");
			kp_cli_release(&o);
			return KP_EXIT_USAGE;
		}
		rc = kp_batch_run(&o);
		kp_cli_release(&o);
		return rc;
	}
	if (o.nfiles != 1) {
		fprintf(stderr, "kpipe rewrite: error: no input file\n");
		kp_cli_release(&o);
		return KP_EXIT_USAGE;
	}
	if (o.jobs || o.nexcludes || o.shard_n) {
		fprintf(stderr, "kpipe rewrite: error: -j, --exclude and --shard apply to directories "
				"and several files\n");
		kp_cli_release(&o);
		return KP_EXIT_USAGE;
	}
	const char *in = o.files[0];
	int from_stdin = !strcmp(in, "-");
	if (from_stdin && o.in_place) {
		fprintf(stderr, "kpipe rewrite: error: -i needs a file, not stdin\n");
		kp_cli_release(&o);
		return KP_EXIT_USAGE;
	}
	const char *path = from_stdin ? (o.assume_filename ? o.assume_filename : "<stdin>.cu") : in;
	char *src = NULL;
	size_t len = 0;
	int e = from_stdin ? kp_read_stream(stdin, &src, &len) : kp_read_file(in, &src, &len);
	if (e) {
		fprintf(stderr, "kpipe rewrite: error: cannot read '%s': %s\n", in, strerror(-e));
		kp_cli_release(&o);
		return KP_EXIT_INPUT;
	}
	/* -o naming the input behaves like -i */
	if (o.output && !from_stdin && strcmp(o.output, "-")) {
		char *a = realpath(in, NULL), *b = realpath(o.output, NULL);
		if (a && b && !strcmp(a, b)) {
			o.in_place = 1;
			o.output = NULL;
		}
		free(a);
		free(b);
	}
	/* reports only (--format json/sarif, --export-fixes, and no -o, -i,
	 * --diff): the rewritten code is not printed */
	int reports_only = (report_stdout || o.export_fixes) && !o.output && !o.in_place &&
			   !o.diff && !o.dry_run;
	kp_rw_result r = {0};
	r.path = kp_xstrdup(path);
	r.abs_path = kp_batch_abs_path(path);
	char *out = NULL;
	size_t outlen = 0;
	/* the flags and target of the file's compile_commands.json entry
	 * (with -p only: the buffer may not be the file on disk) */
	kp_file_setup fs;
	kp_cli_file_setup(&o, path, 0, &fs);
	kp_cli fo = o;
	fo.arch = fs.arch;
	fo.arch_name = fs.arch_name;
	kp_rw_input rin = {.path = path,
			   .contents = src,
			   .len = len,
			   .extra_args = (const char *const *)fs.db.keep,
			   .nextra = fs.db.nkeep,
			   .no_compdb = 1,
			   .headers = 1};
	rc = kp_rewrite_buffer(&fo, &rin, &r, &out, &outlen);
	kp_rw_print_diags(&r, o.verbose, stderr);
	int nheaders_changed = 0;
	const char *first_header = NULL;
	for (int h = 0; h < r.nheaders; h++) {
		kp_rw_print_diags(&r.headers[h], o.verbose, stderr);
		if (r.headers[h].text && !nheaders_changed++)
			first_header = r.headers[h].path;
	}
	if (rc == KP_EXIT_NOTHING && o.verbose)
		fprintf(stderr, "%s: nothing to pipeline (%d loop%s found, %d refused)\n", path, r.loops,
			r.loops == 1 ? "" : "s", r.refused);
	if (rc == KP_EXIT_OK && nheaders_changed && !o.dry_run && !reports_only &&
	    (o.validate || (!o.diff && !o.in_place))) {
		fprintf(stderr,
			"kpipe rewrite: error: the rewrite changes %s%s too (kernels in a project "
			"header); %s: use %s, or --header-filter '' to leave headers alone; nothing "
			"was written\n",
			first_header, nheaders_changed > 1 ? " and other headers" : "",
			o.validate ? "--validate checks one rewritten file"
				   : "-o and stdout hold one file",
			o.validate ? "-i or --diff without --validate"
				   : "-i, --diff or --out-dir DIR");
		kp_rw_result_release(&r);
		free(out);
		free(src);
		kp_cli_release(&o);
		return KP_EXIT_USAGE;
	}
	if (rc == KP_EXIT_OK && !reports_only) {
		if (o.dry_run) {
			if (!report_stdout) {
				if (out || !nheaders_changed)
					printf("%s: would pipeline %d of %d loop%s\n", path,
					       r.pipelined, r.loops, r.loops == 1 ? "" : "s");
				for (int h = 0; h < r.nheaders; h++)
					if (r.headers[h].text)
						printf("%s: would pipeline %d of %d loop%s\n",
						       r.headers[h].path, r.headers[h].pipelined,
						       r.headers[h].loops,
						       r.headers[h].loops == 1 ? "" : "s");
			}
			rc = KP_EXIT_NOTHING; /* like clang-format --dry-run -Werror: 1 = would change */
		} else if (o.diff) {
			if (out) {
				char *d = kp_batch_diff(path, src, len, out, outlen);
				fputs(d, stdout);
				free(d);
			}
		} else if (o.in_place) {
			if (out && o.backup_suffix) {
				kp_strbuf bk = KP_STRBUF_INIT;
				kp_strbuf_addf(&bk, "%s%s", in, o.backup_suffix);
				rc = write_out(kp_strbuf_str(&bk), src, len, in);
				kp_strbuf_release(&bk);
			}
			if (out && rc == KP_EXIT_OK)
				rc = write_out(in, out, outlen, NULL);
		} else if (o.output && strcmp(o.output, "-")) {
			rc = write_out(o.output, out, outlen, NULL);
		} else {
			fwrite(out, 1, outlen, stdout);
		}
		if (rc == KP_EXIT_OK && (o.diff || o.in_place) && write_headers(&o, &r))
			rc = KP_EXIT_INPUT;
	} else if (rc == KP_EXIT_NOTHING && o.dry_run) {
		if (!report_stdout)
			printf("%s: nothing to pipeline\n", path);
		rc = KP_EXIT_OK;
	} else if (rc == KP_EXIT_NOTHING && from_stdin && !o.diff && !o.in_place && !reports_only &&
		   (!o.output || !strcmp(o.output, "-"))) {
		/* an editor piping its buffer gets it back unchanged (exit 1 still
		 * says nothing was pipelined), as clang-format does */
		fwrite(src, 1, len, stdout);
	}
	int wr = write_reports(&o, &r, rc);
	if (wr)
		rc = wr;
	if (rc == KP_EXIT_OK && o.validate)
		rc = validate_written(&fo, in, o.in_place ? in : o.output, src, len);
	kp_file_setup_release(&fs);
	kp_rw_result_release(&r);
	free(out);
	free(src);
	kp_cli_release(&o);
	return rc;
}
