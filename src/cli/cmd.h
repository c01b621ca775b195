/*
 * cmd.h - the commands, one function each (main.c dispatches to them by
 * name).  Each parses its own arguments (cli.h), prints, and returns
 * kpipe's exit status (util.h); nothing below the command layer prints
 * or chooses an exit status.
 */
#ifndef KPIPE_CMD_H
#define KPIPE_CMD_H

#include <stdio.h>

int cmd_analyze(int argc, char **argv);
int cmd_rewrite(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_lsp(int argc, char **argv);
/* The options each command takes (NULL-terminated lists of the names in
 * cli.c's table), for kp_cli_parse and `kpipe --list-options CMD`. */
extern const char *const kp_opts_analyze[],
	*const kp_opts_rewrite[], *const kp_opts_tune[], *const kp_opts_validate[],
								 *const kp_opts_lsp[];

/* Everything `kpipe validate` does after its option parsing, for another
 * command (`kpipe rewrite --validate`): finds the tools and the launch
 * description, runs steps 1-5, prints the report on stdout (problems on
 * stderr) and returns the exit code of docs/validate.md. */
typedef struct {
	const char *original, *rewritten; /* the two files compared */
	const char *original_name;    /* shown in place of original, and whose NAME.launch.json is
					 the default spec; NULL: original */
	const char *spec;             /* --spec, or NULL */
	const char *kernel;           /* --kernel, or NULL */
	const char *arch;             /* NULL: sm_90 */
	const char *cuda_path;        /* --cuda-path, or NULL */
	const char *format;           /* "text" (NULL) or "json" */
	const char *sizes;            /* --sizes list, or NULL: every size of the spec */
	const char *gpu_dir;          /* --gpu-dir, or NULL */
	int threads;                  /* 0: the spec's block, else 256 */
	int sanitize;                 /* --sanitize */
	int profile;                  /* --profile: Nsight Compute on both kernels */
	const char *const *nvcc_args; /* -I, -D, after "--" */
	int nnvcc_args;
} kp_validate_request;

int kp_validate_files(const kp_validate_request *rq);

/* Help (help.c).  The overview, with the commands' one-line summaries
 * (command_list, one "  name  summary" line each); a bare `kpipe`'s short
 * usage; and one command's options and examples: returns -1 when `cmd`
 * is no command with a help text. */
void kp_help_overview(FILE *fp, const char *command_list);
void kp_help_usage(FILE *fp);
int kp_help_command(FILE *fp, const char *cmd);
/* The table of diagnostic ids (`kpipe help diagnostics`). */
void kp_help_diagnostics(FILE *fp);

#endif
