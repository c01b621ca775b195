/*
 * cmd_rewrite.c - `kpipe rewrite`, the command: checks the options, hands
 * several files or a directory to the batch (batch.h) and one file to the
 * driver (rewrite.h, with the flags and target of its compile_commands.json
 * entry under -p), then writes what came back (stdout, -o, -i, --diff or
 * --dry-run; the project headers it rewrote with -i or --diff), prints the
 * diagnostics and the reports, and runs --validate.  Nothing is written for
 * a file that failed; one with nothing pipelined goes to -o or stdout as
 * it was (as clang-format does), and -i leaves it alone.
 */
#define _GNU_SOURCE
#include "batch.h"
#include "cli.h"
#include "cmd.h"
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

/* The options it takes (cli.h; -I, -D and -U for the listing of
 * kp_cli_list_options: the parser takes them anyway). */
const char *const kp_opts_rewrite[] = {
	"--arch",
	"--kernel",
	"--cuda-path",
	"-p",
	"--spec",
	"--threads",
	"--block",
	"--pad",
	"--pad-only",
	"--no-pad",
	"--swizzle",
	"--keep-occupancy",
	"--raise-occupancy",
	"--block-swizzle",
	"--extra-arg",
	"-o",
	"-i",
	"--diff",
	"--dry-run",
	"--Werror",
	"--variant",
	"--stages",
	"--no-ptxas",
	"--format-style",
	"-v",
	"--assume-filename",
	"--backup-suffix",
	"--format",
	"--out-dir",
	"-j",
	"--timeout",
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
	"--no-comment",
	"--no-verify",
	"--require-verify",
	"--sarif-all",
	"-I",
	"-D",
	"-U",
	NULL,
};

/* Writes a file atomically (safe_write.c); `like` (the input, for a backup)
 * gives its mode, NULL keeps the destination's. */
static int write_out(const char *path, const char *data, size_t len, const char *like)
{
	int e = like ? kp_write_file_atomic_like(path, data, len, like)
		     : kp_write_file_atomic(path, data, len);
	if (e) {
		fprintf(stderr, "kpipe: error: cannot write '%s': %s\n", path, strerror(-e));
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
		kp_rw_output wo = {o->diff, o->in_place, o->backup_suffix, NULL};
		if (kp_rw_write_header(&wo, x, "/"))
			bad = 1;
		if (x->diff)
			fputs(x->diff, stdout);
		for (int i = 0; i < x->ndiags; i++)
			if (!strcmp(x->diags[i].level, "error"))
				fprintf(stderr, "%s: error: %s\n", x->path, x->diags[i].message);
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
		char *log = kp_sarif_log(one, n, cwd, rc, o->sarif_all);
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
		int e = kp_make_parents(o->export_fixes);
		if (!e)
			e = kp_write_file_atomic(o->export_fixes, y, strlen(y));
		free(y);
		free(cwd);
		if (e) {
			fprintf(stderr, "kpipe: error: cannot write '%s': %s\n", o->export_fixes,
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
			fprintf(stderr,
				"kpipe: error: cannot keep a copy of the original for "
				"--validate beside '%s': %s\n",
				in, strerror(-e));
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
			fprintf(stderr,
				"kpipe: error: validation failed and '%s' could not be "
				"restored (%s); the original is in '%s'\n",
				in, strerror(-e), orig_copy);
		else
			fprintf(stderr,
				"kpipe: error: validation failed: '%s' is back to the "
				"original\n",
				in);
		if (e) {
			free(orig_copy);
			orig_copy = NULL; /* keep it */
		}
	} else if (rc == KP_EXIT_VALIDATION)
		fprintf(stderr,
			"kpipe: error: validation failed: '%s' was written but did not pass\n",
			written);
	if (orig_copy)
		unlink(orig_copy);
	free(orig_copy);
	free(flags);
	return rc;
}

/* What is wrong with the options, before anything is read (NULL: nothing).
 * The message is static or in buf. */
static const char *usage_error(const kp_cli *o, int batch, char *buf, size_t bufsz)
{
	int report_stdout = strcmp(o->format, "text") != 0;
	if ((o->in_place && o->output) || (o->in_place && o->diff) || (o->diff && o->output) ||
	    (o->out_dir && (o->output || o->in_place || o->diff)))
		return "-o, -i, --out-dir and --diff exclude each other";
	if (report_stdout && (o->diff || (o->output && !strcmp(o->output, "-")))) {
		snprintf(buf, bufsz,
			 "--format %s writes to stdout: use it with -o FILE, -i, --out-dir or "
			 "--dry-run, not with %s",
			 o->format, o->diff ? "--diff" : "-o -");
		return buf;
	}
	if ((o->sanitize || o->sizes || o->gpu_dir) && !o->validate)
		return "--sanitize, --no-sanitize, --sizes and --gpu-dir go with --validate";
	if (o->validate &&
	    (o->diff || o->dry_run || report_stdout || batch || (!o->output && !o->in_place) ||
	     (o->output && !strcmp(o->output, "-")) ||
	     (o->nfiles == 1 && !strcmp(o->files[0], "-"))))
		return "--validate checks a file it wrote: use it with one input FILE and -o OUT "
		       "or -i (not with stdin, --diff, --dry-run, --out-dir, several files or "
		       "--format json/sarif)";
	if (batch) {
		for (int i = 0; i < o->nfiles; i++)
			if (!strcmp(o->files[i], "-"))
				return "stdin ('-') is one input on its own";
		if (o->output)
			return "-o takes one input file; use --out-dir DIR (or -i) for several files "
			       "and directories";
		return NULL;
	}
	if (o->nfiles != 1)
		return "no input file";
	if (o->jobs || o->nexcludes || o->shard_n || o->timeout >= 0)
		return "-j, --exclude, --shard and --timeout apply to directories and several "
		       "files";
	if (!strcmp(o->files[0], "-") && o->in_place)
		return "-i needs a file, not stdin";
	return NULL;
}

/* Writes what one file's rewrite gave, by the options: --dry-run's line,
 * the diff, the file in place (and the headers it changed) or at -o, or
 * stdout; with nothing pipelined, the text unchanged to -o or stdout.
 * Returns the exit code. */
static int emit_one(const kp_cli *o, const char *in, const char *src, size_t len, kp_rw_result *r,
		    const char *out, size_t outlen, int rc, int reports_only, int nheaders_changed)
{
	int report_stdout = strcmp(o->format, "text") != 0;
	const char *path = r->path;
	if (rc == KP_EXIT_OK && !reports_only) {
		if (o->dry_run) {
			if (!report_stdout) {
				if (out || !nheaders_changed)
					printf("%s: would pipeline %d of %d loop%s\n", path,
					       r->pipelined, r->loops, r->loops == 1 ? "" : "s");
				for (int h = 0; h < r->nheaders; h++)
					if (r->headers[h].text)
						printf("%s: would pipeline %d of %d loop%s\n",
						       r->headers[h].path, r->headers[h].pipelined,
						       r->headers[h].loops,
						       r->headers[h].loops == 1 ? "" : "s");
			}
			return KP_EXIT_NOTHING; /* like clang-format --dry-run -Werror: 1 = would
						   change */
		}
		if (o->diff) {
			if (out) {
				char *d = kp_rw_diff(path, src, len, out, outlen);
				fputs(d, stdout);
				free(d);
			}
		} else if (o->in_place) {
			if (out && o->backup_suffix) {
				kp_strbuf bk = KP_STRBUF_INIT;
				kp_strbuf_addf(&bk, "%s%s", in, o->backup_suffix);
				rc = write_out(kp_strbuf_str(&bk), src, len, in);
				kp_strbuf_release(&bk);
			}
			if (out && rc == KP_EXIT_OK)
				rc = write_out(in, out, outlen, NULL);
		} else if (o->output && strcmp(o->output, "-")) {
			rc = write_out(o->output, out, outlen, NULL);
		} else {
			fwrite(out, 1, outlen, stdout);
		}
		if (rc == KP_EXIT_OK && (o->diff || o->in_place) && write_headers(o, r))
			rc = KP_EXIT_INPUT;
	} else if (rc == KP_EXIT_NOTHING && o->dry_run) {
		if (!report_stdout)
			printf("%s: nothing to pipeline\n", path);
		rc = KP_EXIT_OK;
	} else if (rc == KP_EXIT_NOTHING) {
		/* nothing pipelined: the output is the input as it was, as
		 * clang-format's is (stdout and -o get the full text, -i and
		 * --diff have nothing to do); the reasons are on stderr */
		rc = KP_EXIT_OK;
		if (!reports_only && !o->diff && !o->in_place) {
			if (o->output && strcmp(o->output, "-"))
				rc = write_out(o->output, src, len, NULL);
			else
				fwrite(src, 1, len, stdout);
		}
	}
	return rc;
}

/* Did the rewrite print a warning (a refused loop, --kernel naming
 * nothing...)?  --Werror makes that exit 1. */
static int any_warning(const kp_rw_result *r)
{
	for (int i = 0; i < r->ndiags; i++)
		if (!strcmp(r->diags[i].level, "warning"))
			return 1;
	for (int h = 0; h < r->nheaders; h++)
		if (any_warning(&r->headers[h]))
			return 1;
	return 0;
}

/* `kpipe rewrite FILE`: one file (or stdin) through the driver. */
static int rewrite_one(kp_cli *o)
{
	const char *in = o->files[0];
	int from_stdin = !strcmp(in, "-");
	const char *path = from_stdin ? (o->assume_filename ? o->assume_filename : "<stdin>.cu")
				      : in;
	char *src = NULL;
	size_t len = 0;
	int e = from_stdin ? kp_read_stream(stdin, &src, &len) : kp_read_file(in, &src, &len);
	if (e) {
		fprintf(stderr, "kpipe: error: cannot read '%s': %s\n", in, strerror(-e));
		return KP_EXIT_INPUT;
	}
	/* -o naming the input behaves like -i */
	if (o->output && !from_stdin && strcmp(o->output, "-")) {
		char *a = realpath(in, NULL), *b = realpath(o->output, NULL);
		if (a && b && !strcmp(a, b)) {
			o->in_place = 1;
			o->output = NULL;
		}
		free(a);
		free(b);
	}
	/* reports only (--format json/sarif, --export-fixes, and no -o, -i,
	 * --diff): the rewritten code is not printed */
	int reports_only = (strcmp(o->format, "text") || o->export_fixes) && !o->output &&
			   !o->in_place && !o->diff && !o->dry_run;
	kp_rw_result r = {0};
	r.path = kp_xstrdup(path);
	r.abs_path = kp_rw_abs_path(path);
	char *out = NULL;
	size_t outlen = 0;
	/* the flags and target of the file's compile_commands.json entry
	 * (with -p only: the buffer may not be the file on disk) */
	kp_file_setup fs;
	kp_cli_file_setup(o, path, 0, &fs);
	kp_cli fo = *o;
	fo.arch = fs.arch;
	fo.arch_name = fs.arch_name;
	fo.targets = fs.targets;
	kp_rw_opts rwo;
	kp_cli_rw_opts(&fo, &rwo);
	kp_rw_input rin = {.path = path,
			   .contents = src,
			   .len = len,
			   .extra_args = (const char *const *)fs.db.keep,
			   .nextra = fs.db.nkeep,
			   .no_compdb = 1,
			   .headers = 1};
	int rc = kp_rewrite_buffer(&rwo, &rin, &r, &out, &outlen);
	kp_rw_print_diags(&r, o->verbose, stderr);
	int nheaders_changed = 0;
	const char *first_header = NULL;
	for (int h = 0; h < r.nheaders; h++) {
		kp_rw_print_diags(&r.headers[h], o->verbose, stderr);
		if (r.headers[h].text && !nheaders_changed++)
			first_header = r.headers[h].path;
	}
	if (rc == KP_EXIT_NOTHING && o->verbose)
		fprintf(stderr, "%s: nothing to pipeline (%d loop%s found, %d refused)\n", path,
			r.loops, r.loops == 1 ? "" : "s", r.refused);
	if (rc == KP_EXIT_OK && nheaders_changed && !o->dry_run && !reports_only &&
	    (o->validate || (!o->diff && !o->in_place))) {
		fprintf(stderr,
			"kpipe: error: the rewrite changes %s%s too (kernels in a project "
			"header); %s: use %s, or --header-filter '' to leave headers alone; nothing "
			"was written\n",
			first_header, nheaders_changed > 1 ? " and other headers" : "",
			o->validate ? "--validate checks one rewritten file"
				    : "-o and stdout hold one file",
			o->validate ? "-i or --diff without --validate"
				    : "-i, --diff or --out-dir DIR");
		rc = KP_EXIT_USAGE;
	} else {
		int changed = rc == KP_EXIT_OK;
		rc = emit_one(o, in, src, len, &r, out, outlen, rc, reports_only, nheaders_changed);
		if (rc == KP_EXIT_OK && o->werror && any_warning(&r))
			rc = KP_EXIT_NOTHING;
		int wr = write_reports(o, &r, rc);
		if (wr)
			rc = wr;
		/* nothing to prove when the output is the input */
		if (rc == KP_EXIT_OK && o->validate && changed)
			rc = validate_written(&fo, in, o->in_place ? in : o->output, src, len);
	}
	kp_file_setup_release(&fs);
	kp_rw_result_release(&r);
	free(out);
	free(src);
	return rc;
}

int cmd_rewrite(int argc, char **argv)
{
	kp_cli o;
	int rc = kp_cli_parse(&o, argc, argv, "rewrite", kp_opts_rewrite);
	if (rc)
		return rc;
	int batch = o.nfiles > 1 || o.out_dir || (o.nfiles == 0 && o.build_dir) ||
		    any_directory(&o);
	char buf[512];
	const char *bad = usage_error(&o, batch, buf, sizeof(buf));
	if (bad) {
		fprintf(stderr, "kpipe: error: %s\n", bad);
		rc = KP_EXIT_USAGE;
	} else if (batch) {
		kp_batch_opts bo;
		kp_cli_batch_opts(&o, &bo);
		rc = kp_batch_run(&bo);
	} else
		rc = rewrite_one(&o);
	kp_cli_release(&o);
	return rc;
}
