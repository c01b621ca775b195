/*
 * cmd_lsp.c - `kpipe lsp`, the command: a language server on stdin and
 * stdout (server.h) for editors, with the target, CUDA path, database
 * and compiler arguments of the command line applied to every buffer.
 * Takes no file; stdout carries only protocol messages, stderr the log.
 */
#include "cli.h"
#include "cmd.h"
#include "server.h"

#include <stdio.h>
#include <stdlib.h>

/* The options it takes (cli.h; -I, -D and -U for the listing of
 * kp_cli_list_options: the parser takes them anyway). */
const char *const kp_opts_lsp[] = {
	"--arch",   "--cuda-path", "-p",       "--extra-arg", "--header-filter",
	"--stages", "--threads",   "--no-pch", "-v",          "-I",
	"-D",       "-U",          NULL,
};

int cmd_lsp(int argc, char **argv)
{
	kp_cli o;
	int rc = kp_cli_parse(&o, argc, argv, "lsp", kp_opts_lsp);
	if (rc)
		return rc;
	if (o.nfiles) {
		fprintf(stderr, "kpipe: error: lsp takes no file (the editor sends the buffers "
				"over stdin)\n");
		kp_cli_release(&o);
		return KP_EXIT_USAGE;
	}
	kp_lsp_config cfg = {0};
	kp_cli_rw_opts(&o, &cfg.env.rw);
	/* no nvcc run while the user types: auto decides from the source */
	cfg.env.rw.auto_probe = NULL;
	cfg.env.arch_name = o.arch_name;
	cfg.env.arch_given = o.arch_given;
	cfg.env.build_dir = o.build_dir;
	cfg.env.no_pch = o.no_pch;
	cfg.verbose = o.verbose;
	const char *docs = getenv("KPIPE_DOCS_URL");
	cfg.docs_url = docs && *docs ? docs : "file://" KPIPE_SOURCE_DIR "/docs/diagnostics.md";
	rc = kp_lsp_serve(stdin, stdout, &cfg);
	kp_cli_release(&o);
	return rc;
}
