/*
 * server.h - `kpipe lsp`: a Language Server Protocol server over two
 * streams (stdin and stdout for the command).  It keeps the text and
 * version of every open buffer, publishes kpipe's diagnostics on open,
 * save and, debounced, change (refusals with their ids, a hint on every loop that can be
 * pipelined, the compiler's errors; a project header's go to the header's
 * URI), answers textDocument/codeAction with one action per loop and
 * variant (resolved lazily into a WorkspaceEdit that names the version it
 * was computed against), and runs the commands kpipe.pipelineLoop
 * (through workspace/applyEdit) and kpipe.preview (the unified diff).
 * docs/editors.md describes the protocol as kpipe speaks it.
 *
 * Messages go through jsonrpc.h; the analyses through lsp_analyze.h.
 * Logs go to stderr.
 */
#ifndef KPIPE_SERVER_H
#define KPIPE_SERVER_H

#include "lsp_analyze.h"

#include <stdio.h>

typedef struct {
	kp_lsp_env env;       /* how buffers are analysed (the server releases it) */
	const char *docs_url; /* codeDescription links: docs_url#kpipe-id */
	int verbose;          /* log every message's method and the analyses' times */
} kp_lsp_config;

/* Serves until `exit` (or the end of input).  Returns the exit status:
 * 0 after shutdown then exit, 1 otherwise (the protocol's rule). */
int kp_lsp_serve(FILE *in, FILE *out, kp_lsp_config *cfg);

#endif
