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
#include "transform.h"

#include <cjson/cJSON.h>
#include <regex.h>
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
	return rc;
}

static int cli_parse(kp_cli *o, int argc, char **argv, const char *cmd, const char *const *allowed)
{
	memset(o, 0, sizeof(*o));
	o->arch_name = "sm_90";
	o->format = "text";
	o->variant = "auto";
	o->stages = 2;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = NULL;
		char name[64];
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
			if (!a[2] && i + 1 < argc) {
				push(&o->cargs, &o->ncargs, argv[++i]);
			}
			continue;
		}
		/* -j4 is -j 4 */
		if (a[1] == 'j' && a[2] >= '0' && a[2] <= '9') {
			snprintf(name, sizeof(name), "-j");
			val = a + 2;
		} else if (strchr(a, '=') && a[1] == '-') {
			const char *eq = strchr(a, '=');
			snprintf(name, sizeof(name), "%.*s", (int)(eq - a), a);
			val = eq + 1;
		} else
			snprintf(name, sizeof(name), "%s", a);
		static const struct {
			const char *name, *alias;
			int takes;
		} opts[] = {
			{"--arch", "--cuda-gpu-arch", 1},
			{"--kernel", NULL, 1},
			{"--format", NULL, 1},
			{"--cuda-path", NULL, 1},
			{"-p", NULL, 1},
			{"-o", "--output", 1},
			{"--variant", NULL, 1},
			{"--assume-filename", NULL, 1},
			{"--backup-suffix", NULL, 1},
			{"--spec", NULL, 1},
			{"--stages", NULL, 1},
			{"--threads", NULL, 1},
			{"-i", "--in-place", 0},
			{"--diff", NULL, 0},
			{"--dry-run", NULL, 0},
			{"-v", "--verbose", 0},
			{"--extra-arg", NULL, 1},
			{"--out-dir", NULL, 1},
			{"-j", "--jobs", 1},
			{"--exclude", NULL, 1},
			{"--shard", NULL, 1},
			{"--export-fixes", NULL, 1},
			{"--no-pch", NULL, 0},
			{"--validate", NULL, 0},
			{"--sanitize", NULL, 0},
			{"--no-sanitize", NULL, 0},
			{"--sizes", NULL, 1},
			{"--gpu-dir", NULL, 1},
			{"--header-filter", NULL, 1},
		};
		int found = -1;
		for (size_t k = 0; k < KP_ARRAY_LEN(opts); k++)
			if (!strcmp(name, opts[k].name) || (opts[k].alias && !strcmp(name, opts[k].alias)))
				found = (int)k;
		if (found < 0 || !allowed_opt(allowed, opts[found].name)) {
			fprintf(stderr, "kpipe %s: error: unknown option '%s'\n", cmd, a);
			fprintf(stderr, "run 'kpipe %s --help' for usage\n", cmd);
			return KP_EXIT_USAGE;
		}
		if (!strcmp(opts[found].name, "-o") && o->output) {
			fprintf(stderr, "kpipe %s: error: '-o' given twice\n", cmd);
			return KP_EXIT_USAGE;
		}
		if (opts[found].takes && !val) {
			if (i + 1 >= argc) {
				fprintf(stderr, "kpipe %s: error: option '%s' needs a value\n", cmd, a);
				return KP_EXIT_USAGE;
			}
			val = argv[++i];
		}
		if (!opts[found].takes && val) {
			fprintf(stderr, "kpipe %s: error: option '%s' takes no value\n", cmd, name);
			return KP_EXIT_USAGE;
		}
		const char *n = opts[found].name;
		if (!strcmp(n, "--arch")) {
			o->arch_name = val;
			o->arch_given = 1;
		} else if (!strcmp(n, "--kernel"))
			o->kernel = val;
		else if (!strcmp(n, "--format"))
			o->format = val;
		else if (!strcmp(n, "--cuda-path"))
			o->cuda_path = val;
		else if (!strcmp(n, "-p"))
			o->build_dir = val;
		else if (!strcmp(n, "-o"))
			o->output = val;
		else if (!strcmp(n, "--variant"))
			o->variant = val;
		else if (!strcmp(n, "--assume-filename"))
			o->assume_filename = val;
		else if (!strcmp(n, "--backup-suffix"))
			o->backup_suffix = val;
		else if (!strcmp(n, "--spec"))
			o->spec = val;
		else if (!strcmp(n, "--extra-arg"))
			push(&o->cargs, &o->ncargs, val);
		else if (!strcmp(n, "--out-dir"))
			o->out_dir = val;
		else if (!strcmp(n, "--exclude"))
			push(&o->excludes, &o->nexcludes, val);
		else if (!strcmp(n, "--export-fixes"))
			o->export_fixes = val;
		else if (!strcmp(n, "--no-pch"))
			o->no_pch = 1;
		else if (!strcmp(n, "--validate"))
			o->validate = 1;
		else if (!strcmp(n, "--sanitize"))
			o->sanitize = 1;
		else if (!strcmp(n, "--no-sanitize"))
			o->sanitize = -1;
		else if (!strcmp(n, "--sizes"))
			o->sizes = val;
		else if (!strcmp(n, "--gpu-dir"))
			o->gpu_dir = val;
		else if (!strcmp(n, "--header-filter")) {
			regex_t re;
			int e = regcomp(&re, val, REG_EXTENDED | REG_NOSUB);
			if (e) {
				char why[256];
				regerror(e, &re, why, sizeof(why));
				fprintf(stderr,
					"kpipe %s: error: invalid regular expression '%s' for "
					"'--header-filter': %s\n",
					cmd, val, why);
				return KP_EXIT_USAGE;
			}
			regfree(&re);
			o->header_filter = val;
		} else if (!strcmp(n, "-j")) {
			char *end;
			long v = strtol(val, &end, 10);
			if (*end || end == val || v <= 0 || v > 1024) {
				fprintf(stderr, "kpipe %s: error: invalid value '%s' for '-j'\n", cmd, val);
				return KP_EXIT_USAGE;
			}
			o->jobs = (int)v;
		} else if (!strcmp(n, "--shard")) {
			char *end;
			long i = strtol(val, &end, 10), m = -1;
			if (end != val && *end == '/') {
				const char *q = end + 1;
				m = strtol(q, &end, 10);
				if (end == q)
					m = -1;
			}
			if (*end || m <= 0 || m > 1000000 || i < 0 || i >= m) {
				fprintf(stderr,
					"kpipe %s: error: invalid value '%s' for '--shard' (I/N with 0 <= I < N)\n",
					cmd, val);
				return KP_EXIT_USAGE;
			}
			o->shard_i = (int)i;
			o->shard_n = (int)m;
		} else if (!strcmp(n, "--stages") || !strcmp(n, "--threads")) {
			char *end;
			long v = strtol(val, &end, 10);
			if (*end || v <= 0 || v > 4096 || (!strcmp(n, "--stages") && (v < 2 || v > 8))) {
				fprintf(stderr, "kpipe %s: error: invalid value '%s' for '%s'\n", cmd, val, n);
				return KP_EXIT_USAGE;
			}
			if (!strcmp(n, "--stages"))
				o->stages = (int)v;
			else
				o->threads = (int)v;
		} else if (!strcmp(n, "-i"))
			o->in_place = 1;
		else if (!strcmp(n, "--diff"))
			o->diff = 1;
		else if (!strcmp(n, "--dry-run"))
			o->dry_run = 1;
		else if (!strcmp(n, "-v"))
			o->verbose = 1;
	}
	translate_cargs(o);
	o->arch = kp_arch_find(o->arch_name);
	if (!o->arch) {
		int na = 0;
		const kp_arch *all = kp_arch_all(&na);
		fprintf(stderr, "kpipe %s: error: unknown target '%s'; known:", cmd, o->arch_name);
		for (int i = 0; i < na; i++)
			fprintf(stderr, " %s", all[i].name);
		fprintf(stderr, " (sm_XXa and sm_XXf suffixes accepted)\n");
		return KP_EXIT_USAGE;
	}
	int sarif_ok = !strcmp(cmd, "rewrite");
	if (strcmp(o->format, "text") && strcmp(o->format, "json") &&
	    (!sarif_ok || strcmp(o->format, "sarif"))) {
		fprintf(stderr, "kpipe %s: error: unknown format '%s' (text%s)\n", cmd, o->format,
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
		fprintf(stderr, "kpipe %s: error: unknown variant '%s' (%s)\n", cmd, o->variant,
			kp_strbuf_str(&known));
		kp_strbuf_release(&known);
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
	*arch = o->arch;
	*name = o->arch_name;
	if (o->arch_given || !db->arch)
		return 0;
	const kp_arch *a = kp_arch_find(db->arch);
	if (!a) {
		fprintf(stderr,
			"kpipe: warning: %s: target %s of compile_commands.json is not in kpipe's "
			"table; analysing for %s\n",
			file, db->arch, o->arch->name);
		return 0;
	}
	*arch = a;
	*name = db->arch;
	return 1;
}

void kp_cli_print_flags(const kp_cli *o, const char *file, const char *db_json, const kp_flags *db)
{
	char *k = kp_flags_join(db->keep, db->nkeep);
	char *d = kp_flags_join(db->dropped, db->ndropped);
	fprintf(stderr, "kpipe: flags for %s from %s: %s; dropped: %s", file, db_json, k, d);
	if (db->narchs) {
		char *a = kp_flags_join(db->archs, db->narchs);
		const char *t = o->arch_given                        ? o->arch_name
				: db->arch && kp_arch_find(db->arch) ? db->arch
								     : o->arch->name;
		fprintf(stderr, "; targets: %s (target %s%s)", a, t,
			o->arch_given ? ", given on the command line" : "");
		free(a);
	}
	fputc('\n', stderr);
	free(k);
	free(d);
}

void kp_cli_file_setup(const kp_cli *o, const char *path, int search, kp_file_setup *fs)
{
	memset(fs, 0, sizeof(*fs));
	fs->arch = o->arch;
	fs->arch_name = o->arch_name;
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

void kp_cli_parse_opts(const kp_cli *o, kp_parse_opts *po)
{
	memset(po, 0, sizeof(*po));
	po->arch = o->arch->name;
	po->cuda_path = o->cuda_path;
	po->args = o->cargs;
	po->nargs = o->ncargs;
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
			long v = cJSON_IsNumber(e) ? (long)e->valuedouble
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

void kp_cli_analyze_opts(const kp_cli *o, const char *file, kp_analyze_opts *ao, char **spec_kernel)
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

int kp_cli_print_parse_diags(const kp_file *f, int warnings_too)
{
	int n = 0;
	for (int i = 0; i < f->ndiags; i++) {
		const kp_parse_diag *d = &f->diags[i];
		if (strcmp(d->severity, "error") && !warnings_too)
			continue;
		fprintf(stderr, "%s:%d:%d: %s: %s\n", d->file, d->line, d->col, d->severity, d->message);
		n++;
	}
	return n;
}

int kp_cli_print_ignored_errors(const kp_file *f)
{
	if (!f->outside_errors)
		return 0;
	int n = 0;
	for (int i = 0; i < f->ndiags; i++) {
		const kp_parse_diag *d = &f->diags[i];
		if (strcmp(d->severity, "error"))
			continue;
		if (d->kernel)
			fprintf(stderr,
				"%s:%d:%d: warning: in kernel '%s', which is not rewritten: %s\n",
				d->file, d->line, d->col, d->kernel, d->message);
		else
			fprintf(stderr,
				"%s:%d:%d: warning: ignored, outside every kernel (host code nvcc may "
				"accept): %s\n",
				d->file, d->line, d->col, d->message);
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
