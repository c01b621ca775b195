/*
 * lsp_analyze.c - a buffer's analysis and one loop's rewrite for the
 * language server (lsp_analyze.h): the rewrite driver on the buffer's
 * text with the file's compile_commands.json flags and a shared
 * precompiled header, plus the "lsp-variants" and "lsp-memory" passes.
 */
#define _GNU_SOURCE
#include "lsp_analyze.h"

#include "batch.h"
#include "findings.h"
#include "pass.h"
#include "plan.h"
#include "safe_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The most stages a code action offers. */
#define KP_LSP_MAX_STAGES 4

void kp_lsp_env_release(kp_lsp_env *e)
{
	if (e->tmpdir)
		kp_remove_tree(e->tmpdir);
	free(e->tmpdir);
	free(e->pch);
	free(e->pch_key);
	e->tmpdir = e->pch = e->pch_key = NULL;
}

/* The flags and target of a file, as `kpipe rewrite FILE` finds them. */
typedef struct {
	kp_flags db;
	const kp_arch *arch;
	const char *arch_name;
} file_setup;

static void setup_file(const kp_lsp_env *e, const char *path, file_setup *fs)
{
	memset(fs, 0, sizeof(*fs));
	fs->arch = e->rw.arch;
	fs->arch_name = e->arch_name;
	char *db_json = NULL;
	if (kp_compdb_lookup(path, e->build_dir, 1, &fs->db, &db_json) > 0)
		kp_db_target(e->rw.arch, e->arch_name, e->arch_given, path, &fs->db, &fs->arch,
			     &fs->arch_name);
	free(db_json);
}

/* The precompiled header for these flags: the one built last when the
 * flags are the same, else a new one; NULL when it cannot be built (the
 * parse is then from scratch). */
static const char *get_pch(kp_lsp_env *e, const file_setup *fs)
{
	if (e->no_pch)
		return NULL;
	kp_strbuf key = KP_STRBUF_INIT;
	kp_strbuf_addf(&key, "%s\n%s", fs->arch_name, e->rw.cuda_path ? e->rw.cuda_path : "");
	int n = fs->db.nkeep + e->rw.nargs;
	const char **args = kp_xcalloc((size_t)n + 1, sizeof(char *));
	for (int i = 0; i < fs->db.nkeep; i++)
		args[i] = fs->db.keep[i];
	for (int i = 0; i < e->rw.nargs; i++)
		args[fs->db.nkeep + i] = e->rw.args[i];
	for (int i = 0; i < n; i++)
		kp_strbuf_addf(&key, "\n%s", args[i]);
	if (e->pch_key && !strcmp(e->pch_key, kp_strbuf_str(&key))) {
		kp_strbuf_release(&key);
		free(args);
		return e->pch_failed ? NULL : e->pch;
	}
	free(e->pch_key);
	e->pch_key = kp_strbuf_detach(&key);
	if (e->pch)
		unlink(e->pch);
	free(e->pch);
	e->pch = NULL;
	e->pch_failed = 1;
	if (!e->tmpdir && (e->tmpdir = kp_tempdir("lsp")))
		kp_guard_add_path(e->tmpdir, 1);
	if (e->tmpdir) {
		char main_path[4200], pch_path[4200];
		snprintf(main_path, sizeof(main_path), "%s/pch-%d.cu", e->tmpdir, e->npch);
		snprintf(pch_path, sizeof(pch_path), "%s/pch-%d.pch", e->tmpdir, e->npch++);
		char *err = NULL;
		if (!kp_write_file_atomic(main_path, "", 0) &&
		    !kp_parse_build_pch(fs->arch_name, e->rw.cuda_path, args, n, main_path,
					pch_path, &err)) {
			e->pch = kp_xstrdup(pch_path);
			e->pch_failed = 0;
		} else
			fprintf(stderr,
				"kpipe lsp: no precompiled header (parses are slower): %s\n",
				err ? err : "cannot write it");
		free(err);
	}
	free(args);
	return e->pch;
}

/* kp_rewrite_buffer() on the buffer with o (its target set here). */
static int run_rewrite(kp_lsp_env *e, kp_rw_opts *o, const char *path, const char *text, size_t len,
		       int headers, kp_rw_result *r, char **out, size_t *outlen)
{
	file_setup fs;
	setup_file(e, path, &fs);
	o->arch = fs.arch;
	const char *pch = get_pch(e, &fs);
	kp_rw_input in = {
		.path = path,
		.contents = text,
		.len = len,
		.extra_args = (const char *const *)fs.db.keep,
		.nextra = fs.db.nkeep,
		.no_compdb = 1,
		.pch = pch,
		.headers = headers,
	};
	r->path = kp_xstrdup(path);
	r->abs_path = kp_rw_abs_path(path);
	int rc = kp_rewrite_buffer(o, &in, r, out, outlen);
	kp_flags_release(&fs.db);
	return rc;
}

static kp_lsp_loop *add_loop(kp_lsp_analysis *a, int line, int col)
{
	a->loops = kp_xrealloc(a->loops, sizeof(*a->loops) * (size_t)(a->nloops + 1));
	kp_lsp_loop *l = &a->loops[a->nloops++];
	memset(l, 0, sizeof(*l));
	l->line = line;
	l->col = col;
	return l;
}

/* The "lsp-variants" pass: every eligible loop of the main file with the
 * transforms and stage counts whose plan accepts it.  Edits nothing. */
static void variants_run(kp_pass_ctx *c)
{
	kp_lsp_analysis *a = c->o->pass_data;
	if (!a || c->f != c->tu)
		return;
	kp_analyze_opts ao;
	char *sk;
	kp_rw_analyze_opts(c->o, c->tu->path, &ao, &sk);
	kp_analysis an;
	kp_analyze(&an, c->f, &ao);
	int n;
	const kp_transform *const *all = kp_transform_all(&n);
	for (int i = 0; i < an.nloops; i++) {
		const kp_loop *l = an.loops[i];
		if (!l->eligible)
			continue;
		kp_lsp_loop *x = add_loop(a, l->node->line, l->node->col);
		for (int t = 0; t < n; t++) {
			const char *why;
			if (!kp_transform_match(all[t], c->f, l, c->o->arch, &c->f->arena, &why))
				continue;
			for (int s = all[t]->min_stages;
			     s <= all[t]->max_stages && s <= KP_LSP_MAX_STAGES; s++) {
				kp_plan p;
				kp_plan_loop(&p, c->f, l, c->o->arch, all[t]->name, s);
				if (p.xform != all[t])
					continue;
				x->alts = kp_xrealloc(x->alts,
						      sizeof(*x->alts) * (size_t)(x->nalts + 1));
				x->alts[x->nalts++] = (kp_lsp_choice){all[t], s};
			}
		}
	}
	free(sk);
}

static const kp_pass variants_pass = {
	"lsp-variants",
	"lists the variants and stage counts that apply to each eligible loop",
	variants_run,
};

/* The "lsp-memory" pass: the bank conflicts and uncoalesced global
 * accesses of every kernel of every model (the main file's and its
 * headers'), as warnings at their accesses (findings.h).  It runs before
 * any pass edits the text, so their positions are the buffer's.  Edits
 * nothing. */
static void memory_run(kp_pass_ctx *c)
{
	kp_analyze_opts ao;
	char *sk;
	kp_rw_analyze_opts(c->o, c->tu->path, &ao, &sk);
	for (int i = 0; i < c->f->nkernels; i++) {
		const kp_kernel *k = c->f->kernels[i];
		if (!c->o->kernel || kp_kernel_matches(k, c->o->kernel))
			kp_rw_memory_findings(c->r, c->f, k, &ao);
	}
	free(sk);
}

static const kp_pass memory_pass = {
	"lsp-memory",
	"reports the bank conflicts and uncoalesced global accesses of each kernel",
	memory_run,
};

int kp_lsp_note_choice(const char *message, kp_lsp_choice *c)
{
	char name[64];
	int stages;
	if (sscanf(message, "pipelined with %63s (%d stages", name, &stages) != 2)
		return 0;
	c->xform = kp_transform_find(name);
	c->stages = stages;
	return c->xform != NULL;
}

void kp_lsp_analyze(kp_lsp_env *e, const char *path, const char *text, size_t len,
		    kp_lsp_analysis *out)
{
	memset(out, 0, sizeof(*out));
	int nd;
	const kp_pass *const *dflt = kp_pass_default(&nd);
	const kp_pass **passes = kp_xcalloc((size_t)nd + 2, sizeof(*passes));
	passes[0] = &variants_pass;
	passes[1] = &memory_pass;
	for (int i = 0; i < nd; i++)
		passes[2 + i] = dflt[i];
	kp_rw_opts o = e->rw;
	o.passes = passes;
	o.npasses = nd + 2;
	o.pass_data = out;
	/* the text is dropped: the code action that applies a rewrite
	 * (kp_lsp_rewrite_loop) is what gets verified (docs/verify.md) */
	o.no_verify = 1;
	char *text_out = NULL;
	size_t outlen = 0;
	out->status = run_rewrite(e, &o, path, text, len, 1, &out->r, &text_out, &outlen);
	free(text_out);
	free(passes);
	/* what the rewrite did with each loop */
	for (int i = 0; i < out->r.ndiags; i++) {
		const kp_rw_diag *d = &out->r.diags[i];
		kp_lsp_choice c;
		if (!d->id || strcmp(d->id, "kpipe-pipelined") || strcmp(d->file, out->r.path) ||
		    !kp_lsp_note_choice(d->message, &c))
			continue;
		kp_lsp_loop *l = NULL;
		for (int k = 0; k < out->nloops && !l; k++)
			if (out->loops[k].line == d->line && out->loops[k].col == d->col)
				l = &out->loops[k];
		if (!l)
			l = add_loop(out, d->line, d->col);
		l->best = c;
	}
	/* only loops with something to offer */
	int k = 0;
	for (int i = 0; i < out->nloops; i++)
		if (out->loops[i].best.xform || out->loops[i].nalts)
			out->loops[k++] = out->loops[i];
		else
			free(out->loops[i].alts);
	out->nloops = k;
}

void kp_lsp_analysis_release(kp_lsp_analysis *a)
{
	for (int i = 0; i < a->nloops; i++)
		free(a->loops[i].alts);
	free(a->loops);
	kp_rw_result_release(&a->r);
	memset(a, 0, sizeof(*a));
}

int kp_lsp_rewrite_loop(kp_lsp_env *e, const char *path, const char *text, size_t len, int line,
			int col, const kp_lsp_choice *c, kp_rw_result *r, char **out,
			size_t *outlen, char **why)
{
	*why = NULL;
	kp_rw_opts o = e->rw;
	o.loop_line = line;
	o.loop_col = col;
	if (c && c->xform) {
		o.variant = c->xform->name;
		o.stages = c->stages;
	}
	int rc = run_rewrite(e, &o, path, text, len, 0, r, out, outlen);
	if (rc == KP_EXIT_OK && r->pipelined == 1)
		return rc;
	free(*out);
	*out = NULL;
	kp_strbuf sb = KP_STRBUF_INIT;
	for (int i = 0; i < r->ndiags && !sb.len; i++) {
		const kp_rw_diag *d = &r->diags[i];
		if (!strcmp(d->level, "warning") || !strcmp(d->level, "error"))
			kp_strbuf_addf(&sb, "%s%s%s%s", d->message, d->id ? " [" : "",
				       d->id ? d->id : "", d->id ? "]" : "");
	}
	if (!sb.len)
		kp_strbuf_addf(&sb, "no loop to pipeline at line %d", line);
	*why = kp_strbuf_detach(&sb);
	return rc == KP_EXIT_OK ? KP_EXIT_NOTHING : rc;
}
