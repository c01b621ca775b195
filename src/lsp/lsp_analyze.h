/*
 * lsp_analyze.h - what the language server (server.h) knows about a
 * buffer: the rewrite driver (rewrite.h) run on its text as `kpipe
 * rewrite` would run on the file (its compile_commands.json entry and
 * target, the project headers with kernels), with one more pass that
 * plans every eligible loop with each registered transform, so that the
 * server can list the variants that apply; and the rewrite of one loop
 * with one variant, for a code action.  Parses share a precompiled
 * header of the CUDA headers (pch.h), built on the first analysis.
 *
 * Ownership: a kp_lsp_analysis owns its result and loops
 * (kp_lsp_analysis_release); the environment owns its precompiled
 * header's directory (kp_lsp_env_release removes it).
 */
#ifndef KPIPE_LSP_ANALYZE_H
#define KPIPE_LSP_ANALYZE_H

#include "rewrite.h"
#include "transform.h"

/* How every buffer is analysed. */
typedef struct {
	kp_rw_opts rw;         /* target, CUDA path, the user's compiler arguments, stages */
	const char *arch_name; /* as given ("sm_90a") */
	int arch_given;        /* --arch: a database's target does not replace it */
	const char *build_dir; /* -p, or NULL: compile_commands.json searched upward */
	int no_pch;            /* parse every time from scratch */
	/* the precompiled header (built on demand) */
	char *tmpdir, *pch, *pch_key;
	int pch_failed, npch;
} kp_lsp_env;

void kp_lsp_env_release(kp_lsp_env *e);

/* One way to pipeline a loop: --variant xform->name --stages stages. */
typedef struct {
	const kp_transform *xform;
	int stages;
} kp_lsp_choice;

/* A loop of the buffer that can be pipelined. */
typedef struct {
	int line, col;       /* where it starts (kpipe's: 1-based, byte column) */
	kp_lsp_choice best;  /* what `kpipe rewrite` does with it */
	kp_lsp_choice *alts; /* every forced variant and stage count (2..4) that applies,
				registry order; none for a loop that needs its load
				helper inlined first */
	int nalts;
} kp_lsp_loop;

typedef struct {
	kp_rw_result r; /* the diagnostics: the buffer's, then r.headers' */
	kp_lsp_loop *loops;
	int nloops;
	int status; /* kp_rewrite_buffer's exit code */
} kp_lsp_analysis;

/* Analyses the buffer `text` of file `path`. */
void kp_lsp_analyze(kp_lsp_env *e, const char *path, const char *text, size_t len,
		    kp_lsp_analysis *out);
void kp_lsp_analysis_release(kp_lsp_analysis *a);

/* Parses "pipelined with NAME (N stages)..." (a kpipe-pipelined note):
 * 1 with *c filled, else 0. */
int kp_lsp_note_choice(const char *message, kp_lsp_choice *c);

/* Rewrites only the loop at (line, col) of the buffer with choice c
 * (xform NULL: kpipe's choice).  Returns KP_EXIT_OK with r->fixes the
 * replacements (in the buffer's bytes) and *out the new text; otherwise
 * *why says why not (a refusal's message with its id, malloc'd). */
int kp_lsp_rewrite_loop(kp_lsp_env *e, const char *path, const char *text, size_t len, int line,
			int col, const kp_lsp_choice *c, kp_rw_result *r, char **out,
			size_t *outlen, char **why);

#endif
