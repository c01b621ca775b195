/*
 * cli.c - option parsing shared by the commands (the compiler arguments
 * translated by kp_nvcc_translate), a file's compile setup (its
 * compilation-database entry and target, and the -v line saying which
 * flags were kept and dropped), the launch-description lookup (threads
 * per block for the compute/load ratio) and printing of the parser's
 * diagnostics.
 */
#define _GNU_SOURCE
#include "cli.h"
#include "pass.h"
#include "probe.h"
#include "transform.h"

#include <cjson/cJSON.h>
#include <regex.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int allowed_opt(const char *const *allowed, const char *name)
{
	for (int i = 0; allowed && allowed[i]; i++)
		if (!strcmp(allowed[i], name))
			return 1;
	return 0;
}

static void push(const char ***v, int *n, const char *s)
{
	*v = kp_xrealloc((void *)*v, sizeof(char *) * (size_t)(*n + 1));
	(*v)[(*n)++] = s;
}

static int cli_parse(kp_cli *o, int argc, char **argv, const char *cmd, const char *const *allowed);

/* The compiler arguments, as given, become their translation (nvcc
 * spellings in clang's, nvcc-only options dropped); a target among them
 * counts as --arch when that was not given. */
static void translate_cargs(kp_cli *o)
{
	int given = o->ncargs;
	kp_nvcc_translate(o->cargs, o->ncargs, NULL, 1, &o->cflags);
	free((void *)o->cargs);
	o->cargs = kp_xcalloc((size_t)o->cflags.nkeep + 1, sizeof(char *));
	o->ncargs = o->cflags.nkeep;
	for (int i = 0; i < o->cflags.nkeep; i++)
		o->cargs[i] = o->cflags.keep[i];
	if (o->cflags.arch && !o->arch_given) {
		o->arch_name = o->cflags.arch;
		o->arch_given = 1;
		kp_db_targets(&o->cflags, &o->targets);
		if (o->targets.n && !kp_arch_find(o->arch_name))
			o->arch_name = o->targets.v[0]->name;
	}
	if (o->verbose && given) {
		char *k = kp_flags_join(o->cflags.keep, o->cflags.nkeep);
		char *d = kp_flags_join(o->cflags.dropped, o->cflags.ndropped);
		fprintf(stderr, "kpipe: compiler arguments: %s; dropped: %s", k, d);
		if (o->cflags.narchs) {
			char *a = kp_flags_join(o->cflags.archs, o->cflags.narchs);
			fprintf(stderr, "; targets: %s", a);
			free(a);
		}
		fputc('\n', stderr);
		free(k);
		free(d);
	}
}

int kp_cli_parse(kp_cli *o, int argc, char **argv, const char *cmd, const char *const *allowed)
{
	int rc = cli_parse(o, argc, argv, cmd, allowed);
	if (rc)
		kp_cli_release(o); /* the caller only releases a parsed kp_cli */
	else if (o->no_pch)
		setenv("KPIPE_CACHE_DIR", "off", 1); /* nor the cached header (pch.h) */
	return rc;
}

/* ---- the options: one table, a setter where a value needs checking ---- */

static int bad_value(const char *name, const char *val, const char *how)
{
	fprintf(stderr, "kpipe: error: invalid value '%s' for '%s'%s\n", val, name, how);
	return KP_EXIT_USAGE;
}

static int set_arch(kp_cli *o, const char *val)
{
	o->arch_name = val;
	o->arch_given = 1;
	return 0;
}

static int set_output(kp_cli *o, const char *val)
{
	if (o->output) {
		fprintf(stderr, "kpipe: error: '-o' given twice\n");
		return KP_EXIT_USAGE;
	}
	o->output = val;
	return 0;
}

static int set_extra_arg(kp_cli *o, const char *val)
{
	push(&o->cargs, &o->ncargs, val);
	return 0;
}

static int set_exclude(kp_cli *o, const char *val)
{
	push(&o->excludes, &o->nexcludes, val);
	return 0;
}

static int set_header_filter(kp_cli *o, const char *val)
{
	regex_t re;
	int e = regcomp(&re, val, REG_EXTENDED | REG_NOSUB);
	if (e) {
		char why[256];
		regerror(e, &re, why, sizeof(why));
		fprintf(stderr,
			"kpipe: error: invalid regular expression '%s' for '--header-filter': "
			"%s\n",
			val, why);
		return KP_EXIT_USAGE;
	}
	regfree(&re);
	o->header_filter = val;
	return 0;
}

/* An integer in [lo, hi], or -1. */
static long int_in(const char *val, long lo, long hi)
{
	char *end;
	long v = strtol(val, &end, 10);
	return *end || end == val || v < lo || v > hi ? -1 : v;
}

static int set_jobs(kp_cli *o, const char *val)
{
	long v = int_in(val, 1, 1024);
	if (v < 0)
		return bad_value("-j", val, " (1..1024)");
	o->jobs = (int)v;
	return 0;
}

static int set_timeout(kp_cli *o, const char *val)
{
	long v = int_in(val, 0, 1000000);
	if (v < 0)
		return bad_value("--timeout", val, " (seconds, 0..1000000, 0 for none)");
	o->timeout = (int)v;
	return 0;
}

static int set_stages(kp_cli *o, const char *val)
{
	long v = int_in(val, 2, 8);
	if (v < 0)
		return bad_value("--stages", val, " (2..8)");
	o->stages = (int)v;
	return 0;
}

static int set_threads(kp_cli *o, const char *val)
{
	long v = int_in(val, 1, 4096);
	if (v < 0)
		return bad_value("--threads", val, " (1..4096)");
	o->threads = (int)v;
	return 0;
}

static int set_block(kp_cli *o, const char *val)
{
	const char *p = val;
	int xyz[3] = {1, 1, 1}, n = 0;
	while (n < 3) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p || v < 1 || v > 1024)
			break;
		xyz[n++] = (int)v;
		if (!*end) {
			if ((long)xyz[0] * xyz[1] * xyz[2] > 1024)
				break;
			memcpy(o->block, xyz, sizeof(xyz));
			return 0;
		}
		if (*end != ',')
			break;
		p = end + 1;
	}
	return bad_value("--block", val, " (X[,Y[,Z]], at most 1024 threads)");
}

/* --block-swizzle[=G]: G rows of blocks per group (default 8). */
static int set_block_swizzle(kp_cli *o, const char *val)
{
	if (!val) {
		o->block_swizzle = KP_BLOCK_SWIZZLE_DEFAULT;
		return 0;
	}
	char *end;
	long g = strtol(val, &end, 10);
	if (end == val || *end || g < 1 || g > 65535)
		return bad_value("--block-swizzle", val, " (rows of blocks per group, 1 to 65535)");
	o->block_swizzle = (int)g;
	return 0;
}

static int set_shard(kp_cli *o, const char *val)
{
	char *end;
	long i = strtol(val, &end, 10), m = -1;
	if (end != val && *end == '/') {
		const char *q = end + 1;
		m = strtol(q, &end, 10);
		if (end == q)
			m = -1;
	}
	if (*end || m <= 0 || m > 1000000 || i < 0 || i >= m)
		return bad_value("--shard", val, " (I/N with 0 <= I < N)");
	o->shard_i = (int)i;
	o->shard_n = (int)m;
	return 0;
}

/* One option: its names, the value it takes and what it does in a few
 * words.  `value` is NULL for a flag (a flag with a setter takes an
 * optional `=VALUE`, the setter getting NULL without one), else how a shell completes the
 * value (printed by kp_cli_list_options): "file", "dir", "json" (a .json
 * file), "text" (nothing to offer), or one of the lists "@arch",
 * "@variant", "@format", "@stages" and "{a b c}"; a trailing "..." marks
 * an option that may be repeated. */
typedef struct {
	const char *name, *alias;
	const char *value;
	size_t off; /* with no setter: a `const char *` of kp_cli (value), else an int set to
		       `flag` */
	int flag;
	int (*set)(kp_cli *o, const char *val);
	const char *summary; /* completions' description (no brackets or colons) */
} cli_opt;

#define STR(f) offsetof(kp_cli, f), 0, NULL
#define FLAG(f, v) offsetof(kp_cli, f), v, NULL
#define FN(fn) 0, 0, fn

static const cli_opt cli_opts[] = {
	{"--arch", "--cuda-gpu-arch", "@arch", FN(set_arch), "target architecture"},
	{"--kernel", NULL, "text", STR(kernel), "only this kernel"},
	{"--format", NULL, "@format", STR(format), "report format"},
	{"--cuda-path", NULL, "dir", STR(cuda_path), "CUDA toolkit"},
	{"-p", NULL, "dir", STR(build_dir), "directory of compile_commands.json"},
	{"-o", "--output", "file", FN(set_output), "write the result to OUT"},
	{"--variant", NULL, "@variant", STR(variant), "pipelining variant"},
	{"--assume-filename", NULL, "file", STR(assume_filename),
	 "name of the buffer read from stdin"},
	{"--backup-suffix", NULL, "text", STR(backup_suffix),
	 "with -i, keep the original as FILE+SUFFIX"},
	{"--spec", NULL, "json", STR(spec), "launch description (JSON)"},
	{"--stages", NULL, "@stages", FN(set_stages), "pipeline depth"},
	{"--threads", NULL, "text", FN(set_threads), "threads per block"},
	{"--block", NULL, "text", FN(set_block), "block shape X,Y,Z for the bank analysis"},
	{"--pad", NULL, NULL, FLAG(pad, 1),
	 "pad shared arrays against bank conflicts, then pipeline"},
	{"--pad-only", NULL, NULL, FLAG(pad, 2), "pad shared arrays against bank conflicts only"},
	{"--swizzle", NULL, NULL, FLAG(swizzle, 1),
	 "with --pad, XOR-swizzle conflicted columns instead of padding rows"},
	{"--no-pad", NULL, NULL, FLAG(no_pad, 1), "with --variant auto, pad nothing"},
	{"--keep-occupancy", NULL, NULL, FLAG(keep_occupancy, 1),
	 "keep the original's blocks per SM with __launch_bounds__ where registers cost them"},
	{"--raise-occupancy", NULL, NULL, FLAG(raise_occupancy, 1),
	 "one block per SM more than the rewrite's with __launch_bounds__ where registers "
	 "limit it"},
	{"--block-swizzle", NULL, NULL, FN(set_block_swizzle),
	 "remap the blocks in groups of G rows of blocks to share tiles in L2 (=G, default 8)"},
	{"-i", "--in-place", NULL, FLAG(in_place, 1), "rewrite the input files"},
	{"--diff", NULL, NULL, FLAG(diff, 1), "print a unified diff"},
	{"--dry-run", NULL, NULL, FLAG(dry_run, 1),
	 "write nothing, exit 1 when something would change"},
	{"--Werror", NULL, NULL, FLAG(werror, 1), "exit 1 when a warning was printed"},
	{"-v", "--verbose", NULL, FLAG(verbose, 1), "say what was chosen and why"},
	{"--extra-arg", NULL, "text...", FN(set_extra_arg), "argument for the parser"},
	{"--out-dir", NULL, "dir", STR(out_dir), "write the rewritten files under OUT"},
	{"-j", "--jobs", "text", FN(set_jobs), "files at a time"},
	{"--timeout", NULL, "text", FN(set_timeout), "give up on a file after S seconds"},
	{"--exclude", NULL, "text...", FN(set_exclude), "skip matching files and directories"},
	{"--shard", NULL, "text", FN(set_shard), "only the files I, I+N, ... (I/N)"},
	{"--export-fixes", NULL, "file", STR(export_fixes), "write clang-tidy fixes (YAML)"},
	{"--no-pch", NULL, NULL, FLAG(no_pch, 1), "parse from scratch, no precompiled CUDA header"},
	{"--validate", NULL, NULL, FLAG(validate, 1), "then run kpipe validate"},
	{"--sanitize", NULL, NULL, FLAG(sanitize, 1), "run compute-sanitizer (default)"},
	{"--no-sanitize", NULL, NULL, FLAG(sanitize, -1), "skip compute-sanitizer"},
	{"--sizes", NULL, "{tiny small target}", STR(sizes), "sizes of the launch description"},
	{"--gpu-dir", NULL, "dir", STR(gpu_dir), "build the GPU harness here"},
	{"--profile", NULL, NULL, FLAG(profile, 1), "Nsight Compute on the kernels"},
	{"--header-filter", NULL, "text", FN(set_header_filter),
	 "kernels in the headers whose path matches (POSIX regex)"},
	{"--no-ptxas", NULL, NULL, FLAG(no_ptxas, 1), "auto decides from the source alone"},
	{"--no-comment", NULL, NULL, FLAG(no_comment, 1), "leave out kpipe's explanatory comments"},
	{"--no-verify", NULL, NULL, FLAG(no_verify, 1), "do not verify the rewrite on the CPU"},
	{"--require-verify", NULL, NULL, FLAG(require_verify, 1),
	 "refuse a rewrite that cannot be verified"},
	{"--format-style", NULL, "{file none llvm google chromium mozilla webkit}",
	 STR(format_style), "format the lines kpipe writes with clang-format"},
	{"--sarif-all", NULL, NULL, FLAG(sarif_all, 1),
	 "with --format sarif, the pipelined loops too"},
};

/* The compiler arguments every command that parses sources takes (cli_parse
 * passes them on before the table is consulted); an allowed list names
 * them to have them listed. */
static const cli_opt compiler_opts[] = {
	{"-I", NULL, "dir...", 0, 0, NULL, "include directory for the parser"},
	{"-D", NULL, "text...", 0, 0, NULL, "macro for the parser, NAME or NAME=VALUE"},
	{"-U", NULL, "text...", 0, 0, NULL, "undefine a macro"},
};

static const cli_opt *find_opt(const char *name)
{
	for (size_t k = 0; k < KP_ARRAY_LEN(cli_opts); k++)
		if (!strcmp(name, cli_opts[k].name))
			return &cli_opts[k];
	for (size_t k = 0; k < KP_ARRAY_LEN(compiler_opts); k++)
		if (!strcmp(name, compiler_opts[k].name))
			return &compiler_opts[k];
	return NULL;
}

void kp_cli_list_variants(FILE *fp)
{
	int n;
	const kp_transform *const *all = kp_transform_all(&n);
	fputs("auto\n", fp);
	for (int i = 0; i < n; i++)
		fprintf(fp, "%s\n", all[i]->name);
}

/* A value kind of the table as the shells read it: the lists spelled out. */
static void print_value(FILE *fp, const char *cmd, const char *v)
{
	if (!strcmp(v, "@variant")) {
		int n;
		const kp_transform *const *all = kp_transform_all(&n);
		fputs("{auto", fp);
		for (int i = 0; i < n; i++)
			fprintf(fp, " %s", all[i]->name);
		fputc('}', fp);
	} else if (!strcmp(v, "@arch")) {
		int n;
		const kp_arch *all = kp_arch_all(&n);
		for (int i = 0; i < n; i++)
			fprintf(fp, "%c%s", i ? ' ' : '{', all[i].name);
		fputc('}', fp);
	} else if (!strcmp(v, "@format"))
		fputs(!strcmp(cmd, "rewrite") || !strcmp(cmd, "analyze") ? "{text json sarif}"
									 : "{text json}",
		      fp);
	else if (!strcmp(v, "@stages"))
		fputs("{2 3 4 5 6 7 8}", fp);
	else
		fputs(v, fp);
}

int kp_cli_list_options(FILE *fp, const char *cmd, const char *const *allowed)
{
	int rc = 0;
	for (int i = 0; allowed && allowed[i]; i++) {
		const cli_opt *opt = find_opt(allowed[i]);
		if (!opt) {
			rc = -1; /* an allowed name the table does not know */
			continue;
		}
		fprintf(fp, "%s\t%s\t", opt->name, opt->alias ? opt->alias : "-");
		if (opt->value)
			print_value(fp, cmd, opt->value);
		else
			fputc('-', fp);
		fprintf(fp, "\t%s\n", opt->summary);
	}
	fputs("--help\t-h\t-\tshow the help\n", fp);
	return rc;
}

/* Options that would otherwise be silently ignored: a usage error naming
 * what they need (NULL: none). */
static const char *ignored_combination(const kp_cli *o)
{
	int from_stdin = 0;
	for (int i = 0; i < o->nfiles; i++)
		from_stdin |= !strcmp(o->files[i], "-");
	if (o->backup_suffix && !o->in_place)
		return "--backup-suffix names the copy -i keeps: use it with -i";
	if (o->assume_filename && !from_stdin)
		return "--assume-filename names the buffer read from stdin: use it with FILE = -";
	if (o->dry_run && (o->in_place || o->output || o->diff || o->out_dir))
		return "--dry-run writes nothing: not with -i, -o, --diff or --out-dir";
	if (o->no_pad && o->pad)
		return "--no-pad and --pad (or --pad-only) contradict each other";
	if (o->swizzle && !o->pad)
		return "--swizzle chooses how --pad lays out a conflicted array: use it with --pad "
		       "or --pad-only";
	if (o->keep_occupancy && o->raise_occupancy)
		return "--keep-occupancy and --raise-occupancy each choose the blocks per SM of the "
		       "bound: give one";
	if ((o->keep_occupancy || o->raise_occupancy) && o->pad == 2)
		return "--keep-occupancy and --raise-occupancy bound a pipelined kernel: --pad-only "
		       "pipelines nothing";
	if (o->no_verify && o->require_verify)
		return "--no-verify and --require-verify contradict each other";
	if (o->sarif_all && strcmp(o->format, "sarif"))
		return "--sarif-all goes with --format sarif";
	return NULL;
}

/* One option argv[*i] (its value from the next argument when needed). */
static int parse_option(kp_cli *o, int argc, char **argv, int *i, const char *cmd,
			const char *const *allowed)
{
	const char *a = argv[*i];
	const char *val = NULL;
	char name[64];
	if (a[1] == 'j' && a[2] >= '0' && a[2] <= '9') { /* -j4 is -j 4 */
		snprintf(name, sizeof(name), "-j");
		val = a + 2;
	} else if (strchr(a, '=')) { /* --opt=value, -p=DIR */
		const char *eq = strchr(a, '=');
		snprintf(name, sizeof(name), "%.*s", (int)(eq - a), a);
		val = eq + 1;
	} else
		snprintf(name, sizeof(name), "%s", a);
	const cli_opt *opt = NULL;
	for (size_t k = 0; k < KP_ARRAY_LEN(cli_opts) && !opt; k++)
		if (!strcmp(name, cli_opts[k].name) ||
		    (cli_opts[k].alias && !strcmp(name, cli_opts[k].alias)))
			opt = &cli_opts[k];
	if (!opt || !allowed_opt(allowed, opt->name)) {
		fprintf(stderr, "kpipe: error: unknown option '%s'\n", a);
		fprintf(stderr, "run 'kpipe %s --help' for usage\n", cmd);
		return KP_EXIT_USAGE;
	}
	if (opt->value && !val) {
		if (*i + 1 >= argc) {
			fprintf(stderr, "kpipe: error: option '%s' needs a value\n", a);
			return KP_EXIT_USAGE;
		}
		val = argv[++*i];
	}
	if (!opt->value && val && !opt->set) {
		fprintf(stderr, "kpipe: error: option '%s' takes no value\n", name);
		return KP_EXIT_USAGE;
	}
	if (opt->set)
		return opt->set(o, val);
	if (opt->value)
		*(const char **)((char *)o + opt->off) = val;
	else
		*(int *)((char *)o + opt->off) = opt->flag;
	return 0;
}

static int cli_parse(kp_cli *o, int argc, char **argv, const char *cmd, const char *const *allowed)
{
	memset(o, 0, sizeof(*o));
	o->arch_name = "sm_90";
	o->format = "text";
	o->variant = "auto";
	o->stages = 0; /* not given: 2, or auto's choice (plan.h) */
	o->timeout = -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			for (i++; i < argc; i++)
				push(&o->cargs, &o->ncargs, argv[i]);
			break;
		}
		if (a[0] != '-' || !strcmp(a, "-")) {
			push(&o->files, &o->nfiles, a);
			continue;
		}
		/* -I/-D/-U pass straight to the parser */
		if (!strncmp(a, "-I", 2) || !strncmp(a, "-D", 2) || !strncmp(a, "-U", 2)) {
			push(&o->cargs, &o->ncargs, a);
			if (!a[2] && i + 1 < argc)
				push(&o->cargs, &o->ncargs, argv[++i]);
			continue;
		}
		int rc = parse_option(o, argc, argv, &i, cmd, allowed);
		if (rc)
			return rc;
	}
	translate_cargs(o);
	if (strchr(o->arch_name, ',')) { /* --arch sm_70,sm_80,sm_90 */
		char bad[64];
		if (kp_targets_parse(&o->targets, o->arch_name, bad, (int)sizeof(bad))) {
			fprintf(stderr, "kpipe: error: unknown target '%s' in --arch %s\n", bad,
				o->arch_name);
			return KP_EXIT_USAGE;
		}
		o->arch_name = o->targets.v[0]->name;
	}
	o->arch = kp_arch_find(o->arch_name);
	if (!o->arch) {
		int na = 0;
		const kp_arch *all = kp_arch_all(&na);
		fprintf(stderr, "kpipe: error: unknown target '%s'; known:", o->arch_name);
		for (int i = 0; i < na; i++)
			fprintf(stderr, " %s", all[i].name);
		fprintf(stderr, " (sm_XXa and sm_XXf suffixes accepted)\n");
		return KP_EXIT_USAGE;
	}
	int sarif_ok = !strcmp(cmd, "rewrite") || !strcmp(cmd, "analyze");
	if (strcmp(o->format, "text") && strcmp(o->format, "json") &&
	    (!sarif_ok || strcmp(o->format, "sarif"))) {
		fprintf(stderr, "kpipe: error: unknown format '%s' (text%s)\n", o->format,
			sarif_ok ? ", json or sarif" : " or json");
		return KP_EXIT_USAGE;
	}
	if (strcmp(o->variant, "auto") && !kp_transform_find(o->variant)) {
		int n;
		const kp_transform *const *all = kp_transform_all(&n);
		kp_strbuf known = KP_STRBUF_INIT;
		kp_strbuf_adds(&known, "auto");
		for (int i = 0; i < n; i++)
			kp_strbuf_addf(&known, "%s%s", i == n - 1 ? " or " : ", ", all[i]->name);
		fprintf(stderr, "kpipe: error: unknown variant '%s' (%s)\n", o->variant,
			kp_strbuf_str(&known));
		kp_strbuf_release(&known);
		return KP_EXIT_USAGE;
	}
	const char *bad = ignored_combination(o);
	if (bad) {
		fprintf(stderr, "kpipe: error: %s\n", bad);
		return KP_EXIT_USAGE;
	}
	return 0;
}

void kp_cli_release(kp_cli *o)
{
	free((void *)o->files);
	free((void *)o->cargs);
	free((void *)o->excludes);
	o->files = o->cargs = o->excludes = NULL;
	kp_flags_release(&o->cflags);
}

int kp_cli_db_target(const kp_cli *o, const char *file, const kp_flags *db, const kp_arch **arch,
		     const char **name)
{
	return kp_db_target(o->arch, o->arch_name, o->arch_given, file, db, arch, name);
}

void kp_cli_print_flags(const kp_cli *o, const char *file, const char *db_json, const kp_flags *db)
{
	kp_db_print_flags(o->arch, o->arch_name, o->arch_given, file, db_json, db);
}

void kp_cli_file_setup(const kp_cli *o, const char *path, int search, kp_file_setup *fs)
{
	memset(fs, 0, sizeof(*fs));
	fs->arch = o->arch;
	fs->arch_name = o->arch_name;
	fs->targets = o->targets;
	int rc = kp_compdb_lookup(path, o->build_dir, search, &fs->db, &fs->db_json);
	if (rc < 0) {
		if (o->verbose && o->build_dir)
			fprintf(stderr, "kpipe: no flags for %s from '%s/compile_commands.json'\n",
				path, o->build_dir);
		return;
	}
	if (rc == 0) {
		if (o->verbose)
			fprintf(stderr, "kpipe: no flags for %s: no entry in %s\n", path,
				fs->db_json);
		return;
	}
	fs->arch_from_db = kp_cli_db_target(o, path, &fs->db, &fs->arch, &fs->arch_name);
	if (fs->arch_from_db)
		kp_db_targets(&fs->db, &fs->targets);
	if (o->verbose)
		kp_cli_print_flags(o, path, fs->db_json, &fs->db);
}

void kp_file_setup_release(kp_file_setup *fs)
{
	kp_flags_release(&fs->db);
	free(fs->db_json);
	fs->db_json = NULL;
}

const char **kp_cli_file_args(const kp_cli *o, const kp_file_setup *fs, int *n)
{
	const char **v = kp_xcalloc((size_t)(fs->db.nkeep + o->ncargs) + 1, sizeof(char *));
	*n = 0;
	for (int i = 0; i < fs->db.nkeep; i++)
		v[(*n)++] = fs->db.keep[i];
	for (int i = 0; i < o->ncargs; i++)
		v[(*n)++] = o->cargs[i];
	return v;
}

/* An environment variable set to something other than "" or "0". */
static int getenv_flag(const char *name)
{
	const char *v = getenv(name);
	return v && *v && strcmp(v, "0");
}

/* The process's ptxas probe (probe.h): --variant auto's facts, and the
 * registers of any variant's rewrite (launch_check.c); made on first
 * use when neither --no-ptxas nor KPIPE_NO_PTXAS=1
 * is given (it looks for nvcc when first asked); released at exit. */
static kp_ptxas_probe *probe_made;
static int probe_tried;

static void probe_release(void)
{
	if (probe_made)
		kp_ptxas_probe_release(probe_made);
	free(probe_made);
	probe_made = NULL;
}

void kp_cli_probe_new_budget(void)
{
	if (probe_made)
		kp_ptxas_probe_new_budget(probe_made);
}

static const kp_auto_probe *cli_probe(const kp_cli *o)
{
	/* every variant: the plan asks ptxas the registers of a rewrite that
	 * no __launch_bounds__ bounds (plan.h, kp_plan_launch_check) */
	if (o->no_ptxas || !o->variant)
		return NULL;
	if (!probe_tried && !getenv_flag("KPIPE_NO_PTXAS")) {
		probe_tried = 1;
		probe_made = kp_xcalloc(1, sizeof(*probe_made));
		kp_ptxas_probe_init(probe_made, o->cuda_path, o->cargs, o->ncargs);
		atexit(probe_release);
	}
	return probe_made ? &probe_made->base : NULL;
}

void kp_cli_parse_opts(const kp_cli *o, kp_parse_opts *po)
{
	memset(po, 0, sizeof(*po));
	po->arch = o->arch->name;
	po->cuda_path = o->cuda_path;
	po->args = o->cargs;
	po->nargs = o->ncargs;
	po->build_dir = o->build_dir;
	po->header_filter = o->header_filter;
	po->auto_probe = cli_probe(o);
}

void kp_cli_analyze_opts(const kp_cli *o, const char *file, kp_analyze_opts *ao, char **spec_kernel)
{
	kp_rw_opts rw;
	kp_cli_rw_opts(o, &rw);
	kp_rw_analyze_opts(&rw, file, ao, spec_kernel);
}

void kp_cli_rw_opts(const kp_cli *o, kp_rw_opts *rw)
{
	memset(rw, 0, sizeof(*rw));
	rw->arch = o->arch;
	rw->targets = o->targets;
	rw->cuda_path = o->cuda_path;
	rw->args = o->cargs;
	rw->nargs = o->ncargs;
	rw->build_dir = o->build_dir;
	rw->header_filter = o->header_filter;
	rw->kernel = o->kernel;
	rw->threads = o->threads;
	memcpy(rw->block, o->block, sizeof(rw->block));
	rw->spec = o->spec;
	rw->variant = o->variant;
	rw->stages = o->stages;
	rw->auto_probe = cli_probe(o);
	rw->no_comment = o->no_comment;
	rw->no_verify = o->no_verify;
	rw->require_verify = o->require_verify;
	rw->format_style = o->format_style;
	rw->swizzle = o->swizzle;
	rw->keep_occupancy = o->raise_occupancy ? 2 : o->keep_occupancy;
	rw->block_swizzle = o->block_swizzle;
	if (o->pad)
		rw->passes = kp_pass_pad_list(o->pad == 2, &rw->npasses);
	else if (!o->no_pad && o->variant && !strcmp(o->variant, "auto")) {
		rw->passes = kp_pass_pad_list(0, &rw->npasses);
		rw->pad_auto = 1;
	}
}

void kp_cli_batch_opts(const kp_cli *o, kp_batch_opts *b)
{
	memset(b, 0, sizeof(*b));
	kp_cli_rw_opts(o, &b->rw);
	b->arch_name = o->arch_name;
	b->arch_given = o->arch_given;
	b->out.diff = o->diff;
	b->out.in_place = o->in_place;
	b->out.backup_suffix = o->backup_suffix;
	b->out.out_dir = o->out_dir;
	b->dry_run = o->dry_run;
	b->werror = o->werror;
	b->files = o->files;
	b->nfiles = o->nfiles;
	b->excludes = o->excludes;
	b->nexcludes = o->nexcludes;
	b->shard_i = o->shard_i;
	b->shard_n = o->shard_n;
	b->jobs = o->jobs;
	b->timeout = o->timeout < 0 ? 600 : o->timeout;
	b->no_pch = o->no_pch;
	b->format = o->format;
	b->export_fixes = o->export_fixes;
	b->verbose = o->verbose;
	b->sarif_all = o->sarif_all;
}

/* "FILE:LINE:COL: " for a diagnostic with a position, "FILE: " without
 * one (never FILE:0:0), "kpipe: " without a file. */
static void print_at(const kp_parse_diag *d)
{
	if (d->file && *d->file && d->line > 0)
		fprintf(stderr, "%s:%d:%d: ", d->file, d->line, d->col);
	else if (d->file && *d->file)
		fprintf(stderr, "%s: ", d->file);
	else
		fputs("kpipe: ", stderr);
}

int kp_cli_print_parse_diags(const kp_file *f, int warnings_too)
{
	int n = 0;
	for (int i = 0; i < f->ndiags; i++) {
		const kp_parse_diag *d = &f->diags[i];
		if (strcmp(d->severity, "error") && !warnings_too)
			continue;
		print_at(d);
		fprintf(stderr, "%s: %s\n", d->severity, d->message);
		n++;
	}
	return n;
}

int kp_cli_print_ignored_errors(const kp_file *f)
{
	int n = 0;
	for (int i = 0; i < f->ndiags; i++) {
		const kp_parse_diag *d = &f->diags[i];
		if (d->skipped) { /* a host declaration left out of the parse */
			print_at(d);
			fprintf(stderr, "note: %s\n", d->message);
			continue;
		}
		if (!f->outside_errors || strcmp(d->severity, "error"))
			continue;
		print_at(d);
		if (d->kernel)
			fprintf(stderr, "warning: in kernel '%s', which is not rewritten: %s\n",
				d->kernel, d->message);
		else
			fprintf(stderr, "warning: %s: %s\n", kp_parse_diag_note(d), d->message);
		n++;
	}
	return n;
}

const char **kp_cli_nvcc_flags(const kp_cli *o, const char *first, int *n)
{
	const char **v = kp_xcalloc((size_t)o->ncargs + 2, sizeof(char *));
	*n = 0;
	if (first)
		v[(*n)++] = first;
	for (int i = 0; i < o->ncargs; i++) {
		const char *a = o->cargs[i];
		if (strncmp(a, "-I", 2) && strncmp(a, "-D", 2) && strncmp(a, "-U", 2))
			continue;
		v[(*n)++] = a;
		if (!a[2] && i + 1 < o->ncargs)
			v[(*n)++] = o->cargs[++i];
	}
	return v;
}
