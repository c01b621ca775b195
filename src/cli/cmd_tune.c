/*
 * cmd_tune.c - `kpipe tune FILE.cu [--spec LAUNCH] [-o OUT | -i]`: builds
 * every legal variant of the file (the registered transforms' tune
 * candidates, transform.h: register staging with two buffers, plain and
 * with the prefetch through __ldca, and the one-buffer two-barrier form;
 * cp.async, bulk and tensor-map rings of 2, 3 and 4 stages), and each
 * with --pad as well where the padding changes it ("V+pad"), and with
 * --keep-occupancy and --raise-occupancy where the bound changes it
 * ("V+occ", "V+raise"), and with --block-swizzle where the blocks are
 * remapped ("V+swz"), compiles
 * each and reads its SASS (validate.c: the SASS verdict is shown, not a
 * gate), runs the original and all that compiled in one harness run
 * (gpu_run.c: every size checked element by element, the 'target' size
 * timed in rounds; every instantiation the launch description lists, each
 * (instantiation, size) a cell of its own), prints the table, and writes
 * the fastest variant whose paired 95% interval of the speedup lies above
 * 1, or the original when none does (tune.c decides).
 *
 * The target is --arch, else (with -p) the one of the file's
 * compile_commands.json entry, else sm_90.
 *
 * Without a GPU (or without a launch description) it cannot measure: it
 * says so and writes what `rewrite --variant auto` writes, exit 6.
 * Exit codes: 0 tuned (a variant, or the original kept on purpose),
 * 1 nothing to pipeline, 2 usage, 3 input, 4 no variant passed validation
 * (the original is written), 5 nvcc missing, 6 not tuned (fallback).
 */
#define _GNU_SOURCE
#include <cjson/cJSON.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "batch.h"
#include "cli.h"
#include "cmd.h"
#include "cuda_env.h"
#include "gpu_gen.h"
#include "gpu_run.h"
#include "safe_write.h"
#include "transform.h"
#include "tune.h"
#include "validate.h"

#define TUNE_ROUNDS 5

/* The options it takes (cli.h; -I, -D and -U for the listing of
 * kp_cli_list_options: the parser takes them anyway). */
const char *const kp_opts_tune[] = {
	"--arch",    "--kernel",    "--cuda-path", "-p",        "--spec",
	"--threads", "--extra-arg", "-o",          "-i",        "--backup-suffix",
	"--format",  "-v",          "--sizes",     "--gpu-dir", "--no-sanitize",
	"--profile", "-I",          "-D",          "-U",        NULL,
};

/* The most variants tried (kp_transform_tune_list gives them, in the
 * order of the table), with the forms add_modified() appends. */
enum { NKINDS_MAX = 64 };

typedef struct {
	const char *name;
	char *text; /* the rewritten file, NULL when not built */
	size_t len;
	char *skip;            /* why it was not built or not run */
	char *path;            /* where it was written for nvcc */
	int static_ok;         /* compiled (step 1): run and timed */
	int sass_failed;       /* step 2 found no overlap: shown, not a gate */
	char *static_note;     /* step 1/2 verdict, one line */
	const char *same_as;   /* identical to this earlier variant */
	kp_tune_features feat; /* ptxas before and after (step 1) */
} cand;

/* "ptxas": registers, resident warps per SM, static shared memory (original
 * and variant) and the variant's spill bytes: the model's inputs. */
static void add_features(cJSON *x, const kp_tune_features *f)
{
	cJSON *p = cJSON_AddObjectToObject(x, "ptxas");
	const int pairs[3][2] = {
		{f->regs_o, f->regs_v}, {f->warps_o, f->warps_v}, {f->smem_o, f->smem_v}};
	const char *names[3] = {"registers", "warps_per_sm", "smem"};
	for (int k = 0; k < 3; k++) {
		cJSON *a = cJSON_AddArrayToObject(p, names[k]);
		cJSON_AddItemToArray(a, cJSON_CreateNumber(pairs[k][0]));
		cJSON_AddItemToArray(a, cJSON_CreateNumber(pairs[k][1]));
	}
	cJSON_AddNumberToObject(p, "spill_bytes", f->spills_v);
}

/* The first refusal of a rewrite result, as one line. */
static char *first_refusal(const kp_rw_result *r)
{
	for (int i = 0; i < r->ndiags; i++) {
		const kp_rw_diag *d = &r->diags[i];
		if (d->level && strcmp(d->level, "note")) {
			kp_strbuf sb = KP_STRBUF_INIT;
			kp_strbuf_addf(&sb, "%s%s%s%s", d->message, d->id ? " [" : "",
				       d->id ? d->id : "", d->id ? "]" : "");
			return kp_strbuf_detach(&sb);
		}
	}
	return kp_xstrdup("nothing was pipelined");
}

/* like: a file whose mode, owner and group the new file takes (a backup),
 * NULL keeps the destination's. */
static int write_file(const char *path, const char *data, size_t len, const char *like)
{
	int e = like ? kp_write_file_atomic_like(path, data, len, like)
		     : kp_write_file_atomic(path, data, len);
	if (e)
		fprintf(stderr, "kpipe: error: cannot write '%s': %s\n", path, strerror(-e));
	return e ? KP_EXIT_INPUT : KP_EXIT_OK;
}

/* Writes the chosen text where the options say: -o, -i (untouched when it
 * is the original), or stdout. */
static int deliver(const kp_cli *o, const char *in, const char *src, size_t len, const char *text,
		   size_t tlen)
{
	if (o->in_place) {
		if (text == src)
			return KP_EXIT_OK;
		if (o->backup_suffix) {
			kp_strbuf bk = KP_STRBUF_INIT;
			kp_strbuf_addf(&bk, "%s%s", in, o->backup_suffix);
			int rc = write_file(kp_strbuf_str(&bk), src, len, in);
			kp_strbuf_release(&bk);
			if (rc)
				return rc;
		}
		return write_file(in, text, tlen, NULL);
	}
	if (o->output && strcmp(o->output, "-"))
		return write_file(o->output, text, tlen, NULL);
	fwrite(text, 1, tlen, stdout);
	return KP_EXIT_OK;
}

/* The instantiation the launch description launches: "matmul_tiled<32,
 * 32, 32>" (the kernel's name alone when it is no template); the kernel's
 * name alone when it names several (spec->insts). */
static char *instantiation(const kp_launch_spec *spec)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "%s%s", spec->kernel ? spec->kernel : "?",
		       spec->ninsts > 1 || !spec->template_args ? "" : spec->template_args);
	return kp_strbuf_detach(&sb);
}

/* Whether --kernel names what the GPU timed: the one instantiation of the
 * launch description (spaces aside). */
static int kernel_is_timed(const char *kernel, const kp_launch_spec *spec, const char *inst)
{
	return spec->ninsts <= 1 && kp_str_eq_but_space(kernel, inst);
}

/* With several timed cells: each version's median in each cell and its
 * speedup there, on fp; a column per size, or per instantiation and size
 * (two header lines) when the launch description names several. */
static void print_sizes(FILE *fp, cand *c, int nc, const kp_tune_run *run)
{
	const kp_tune_version *orig = kp_tune_find(run, "original");
	int multi = kp_tune_ninsts(run) > 1, w[KP_TUNE_MAX_SIZES];
	for (int k = 0; k < run->nsizes; k++) {
		int n = multi ? (int)strlen(run->insts[k]) : 0;
		w[k] = n > 20 ? n : 20;
	}
	if (multi) {
		fprintf(fp, "  per instantiation and size: median ms (speedup)\n  %-12s", "");
		for (int k = 0; k < run->nsizes; k++)
			fprintf(fp, " %*s", w[k], run->insts[k]);
		fprintf(fp, "\n  %-12s", "version");
	} else
		fprintf(fp, "  per size: median ms (speedup)\n  %-12s", "version");
	for (int k = 0; k < run->nsizes; k++)
		fprintf(fp, " %*s", w[k], run->sizes[k]);
	fputc('\n', fp);
	for (int i = -1; i < nc; i++) {
		const char *name = i < 0 ? "original" : c[i].name;
		const kp_tune_version *v = kp_tune_find(run, name);
		if (!v || (i >= 0 && c[i].same_as))
			continue;
		kp_tune_cmp cmp = {0};
		int cmp_ok = i >= 0 && orig && kp_tune_qualifies(run, v, NULL, 0);
		if (cmp_ok)
			kp_tune_compare(run, orig, v, &cmp);
		fprintf(fp, "  %-12s", name);
		for (int k = 0; k < run->nsizes; k++) {
			char cell[48] = "-";
			if (v->t[k].nsamples && cmp_ok)
				snprintf(cell, sizeof(cell), "%.4f (%.3fx)", v->t[k].median_ms,
					 cmp.size_speedup[k]);
			else if (v->t[k].nsamples)
				snprintf(cell, sizeof(cell), "%.4f", v->t[k].median_ms);
			fprintf(fp, " %*s", w[k], cell);
		}
		fputc('\n', fp);
	}
}

/* The table's first line: file, target, device, instantiation (or the
 * instantiations), timed sizes. */
static void print_head(FILE *fp, const char *in, const kp_cli *o, const kp_tune_run *run,
		       const kp_launch_spec *spec, const char *inst)
{
	const kp_tune_version *orig = kp_tune_find(run, "original");
	int multi = spec->ninsts > 1, nz = multi ? kp_tune_nsizes(run) : run->nsizes;
	fprintf(fp, "kpipe tune: %s (%s%s%s, kernel %s, ", in, o->arch_name,
		run->device ? ", " : "", run->device ? run->device : "", inst);
	for (int i = 0; multi && i < spec->ninsts; i++)
		fprintf(fp, "%s%s", i ? ", " : "instantiations ", spec->insts[i]);
	fprintf(fp, "%ssize%s ", multi ? ", " : "", nz > 1 ? "s" : "");
	for (int k = 0, n = 0; k < (run->nsizes ? run->nsizes : 1); k++) {
		/* with several instantiations each size is a cell of each */
		int seen = 0;
		for (int j = 0; j < k; j++)
			seen |= !strcmp(run->sizes[j], run->sizes[k]);
		if (!seen)
			fprintf(fp, "%s'%s'", n++ ? ", " : "",
				run->nsizes ? run->sizes[k] : "target");
	}
	fprintf(fp, ", %d rounds)\n", orig ? orig->t[0].rounds : 0);
	if (o->kernel && !kernel_is_timed(o->kernel, spec, inst))
		fprintf(fp,
			"  --kernel %s chose the kernel checked statically; the GPU timed %s%s, the "
			"launch description's\n",
			o->kernel, multi ? "every instantiation of " : "", inst);
	char at[256];
	if (multi && run->nsizes > 1)
		fprintf(fp,
			"  median, spread and rate at %s; speedup: geometric mean over the %d "
			"(instantiation, size) cells\n",
			kp_tune_cell(run, 0, at, sizeof(at)), run->nsizes);
	else if (run->nsizes > 1)
		fprintf(fp,
			"  median, spread and rate at '%s'; speedup: geometric mean over the %d "
			"sizes\n",
			run->sizes[0], run->nsizes);
}

/* Where a tune's time went: kpipe's own rewriting, validate's static
 * steps (nvcc, ptxas, cuobjdump), then the GPU runs' parts (run->build_s,
 * run_s, sanitize_s). */
typedef struct {
	double rewrite_s, static_s;
} tune_phases;

static void print_phases(FILE *fp, const kp_tune_run *run, const tune_phases *ph)
{
	fprintf(fp,
		"time: rewriting %.1f s, static checks %.1f s, GPU build %.1f s, GPU run %.1f s",
		ph->rewrite_s, ph->static_s, run->build_s, run->run_s);
	if (run->sanitize_s > 0)
		fprintf(fp, ", compute-sanitizer %.1f s", run->sanitize_s);
	fputc('\n', fp);
}

static void json_phases(cJSON *j, const kp_tune_run *run, const tune_phases *ph)
{
	cJSON *p = cJSON_AddObjectToObject(j, "phases");
	cJSON_AddNumberToObject(p, "rewrite", ph->rewrite_s);
	cJSON_AddNumberToObject(p, "static", ph->static_s);
	cJSON_AddNumberToObject(p, "gpu_build", run->build_s);
	cJSON_AddNumberToObject(p, "gpu_run", run->run_s);
	cJSON_AddNumberToObject(p, "sanitize", run->sanitize_s);
}

/* The table, on fp. */
static void print_table(FILE *fp, const char *in, const kp_cli *o, cand *c, int nc,
			const kp_tune_run *run, const kp_tune_choice *ch, double secs,
			const kp_launch_spec *spec, const char *inst, const tune_phases *ph)
{
	const kp_tune_version *orig = kp_tune_find(run, "original");
	print_head(fp, in, o, run, spec, inst);
	const char *unit = run->work_kind && !strcmp(run->work_kind, "bytes") ? "GB/s" : "GFLOP/s";
	fprintf(fp, "  %-12s %-6s %-10s %-8s %-9s %10s %10s %9s %8s %s\n", "version", "build",
		"sass", "check", "sanitize", "median ms", "spread ms", unit, "speedup",
		"95% interval");
	for (int i = -1; i < nc; i++) {
		const char *name = i < 0 ? "original" : c[i].name;
		const kp_tune_version *v = kp_tune_find(run, name);
		const char *st = i < 0 ? "-" : c[i].text ? (c[i].static_ok ? "PASS" : "FAIL") : "-";
		const char *sass = i < 0 || !c[i].text || !c[i].static_ok ? "-"
				   : c[i].sass_failed                     ? "no overlap"
									  : "overlap";
		char why[512] = "";
		const char *chk = "-";
		int ok = 0;
		if (i >= 0 && c[i].text && c[i].static_ok && !c[i].same_as) {
			ok = kp_tune_qualifies(run, v, why, sizeof(why));
			chk = ok ? "ok" : "FAIL";
		}
		char med[32] = "-", spr[32] = "-", rate[32] = "-", sp[32] = "-", ci[48] = "";
		if (v && v->t[0].nsamples) {
			snprintf(med, sizeof(med), "%.4f", v->t[0].median_ms);
			snprintf(spr, sizeof(spr), "%.4f", v->t[0].spread_ms);
			if (run->work[0] > 0 && v->t[0].median_ms > 0)
				snprintf(rate, sizeof(rate), "%.1f",
					 run->work[0] / (v->t[0].median_ms * 1e-3) / 1e9);
			if (orig && orig->t[0].nsamples && i >= 0 && (ok || run->nsizes <= 1)) {
				kp_tune_cmp cmp;
				kp_tune_compare(run, orig, v, &cmp);
				snprintf(sp, sizeof(sp), "%.3fx", cmp.speedup);
				snprintf(ci, sizeof(ci), "%.3f-%.3f", cmp.lo, cmp.hi);
			}
		}
		/* compute-sanitizer memcheck, racecheck, synccheck at 'small' */
		const char *san = !v || !v->sanitized    ? "-"
				  : v->sanitizer_failure ? "FAIL"
							 : "clean";
		fprintf(fp, "  %-12s %-6s %-10s %-8s %-9s %10s %10s %9s %8s %-12s%s\n", name, st,
			sass, chk, san, med, spr, rate, sp, ci,
			i >= 0 && ch->winner == i ? "  <- chosen" : "");
		if (i < 0)
			continue;
		if (!c[i].text)
			fprintf(fp, "      not built: %s\n", c[i].skip);
		else if (c[i].same_as)
			fprintf(fp, "      same code as %s\n", c[i].same_as);
		else if (!c[i].static_ok)
			fprintf(fp, "      failed validation: %s\n", c[i].static_note);
		else if (why[0])
			fprintf(fp, "      failed validation: %s\n", why);
		else if (kp_tune_dropped(run, v))
			fprintf(fp,
				"      timed %d rounds only: slower than the original by more than "
				"%.0f%% in each (not a candidate)\n",
				v->t[0].dropped ? v->t[0].dropped : v->t[0].rounds,
				KP_TUNE_DROP_SLOWER_PCT);
	}
	if (run->nsizes > 1)
		print_sizes(fp, c, nc, run);
	fprintf(fp, "result: %s\n", ch->reason);
	fprintf(fp, "tuned in %.1f s\n", secs);
	print_phases(fp, run, ph);
}

/* "sizes": the version's timing at every timed size, and its speedup there
 * (cmp: NULL for the original). */
static void add_sizes(cJSON *x, const kp_tune_run *run, const kp_tune_version *v,
		      const kp_tune_cmp *cmp)
{
	cJSON *arr = cJSON_AddArrayToObject(x, "sizes");
	for (int k = 0; k < run->nsizes; k++) {
		const kp_tune_timing *tm = &v->t[k];
		cJSON *s = cJSON_CreateObject();
		if (run->insts[k])
			cJSON_AddStringToObject(s, "instantiation", run->insts[k]);
		cJSON_AddStringToObject(s, "size", run->sizes[k]);
		if (tm->nsamples) {
			cJSON_AddNumberToObject(s, "median_ms", tm->median_ms);
			cJSON_AddNumberToObject(s, "spread_ms", tm->spread_ms);
			cJSON_AddNumberToObject(s, "launches", tm->nsamples);
			cJSON_AddNumberToObject(s, "rounds", tm->rounds);
			if (tm->dropped)
				cJSON_AddNumberToObject(s, "dropped_after_rounds", tm->dropped);
			if (run->work[k] > 0)
				cJSON_AddNumberToObject(s, "work", run->work[k]);
			if (cmp && cmp->speedup > 0)
				cJSON_AddNumberToObject(s, "speedup", cmp->size_speedup[k]);
		}
		cJSON_AddItemToArray(arr, s);
	}
}

/* The timing members of one version's JSON entry (i < 0: the original). */
static void json_timing(cJSON *x, const kp_tune_run *run, const kp_tune_version *v, int i, int ok)
{
	const kp_tune_version *orig = kp_tune_find(run, "original");
	if (!v || !v->t[0].nsamples)
		return;
	cJSON_AddNumberToObject(x, "median_ms", v->t[0].median_ms);
	cJSON_AddNumberToObject(x, "spread_ms", v->t[0].spread_ms);
	cJSON_AddNumberToObject(x, "launches", v->t[0].nsamples);
	cJSON_AddNumberToObject(x, "rounds", v->t[0].rounds);
	if (kp_tune_dropped(run, v))
		cJSON_AddBoolToObject(x, "dropped", 1);
	kp_tune_cmp cmp = {0};
	int have = i >= 0 && orig && orig->t[0].nsamples && (ok || run->nsizes <= 1);
	if (have) {
		kp_tune_compare(run, orig, v, &cmp);
		cJSON_AddNumberToObject(x, "speedup", cmp.speedup);
		cJSON *iv = cJSON_AddArrayToObject(x, "interval95");
		cJSON_AddItemToArray(iv, cJSON_CreateNumber(cmp.lo));
		cJSON_AddItemToArray(iv, cJSON_CreateNumber(cmp.hi));
	}
	add_sizes(x, run, v, have ? &cmp : NULL);
}

static char *table_json(const char *in, const kp_cli *o, cand *c, int nc, const kp_tune_run *run,
			const kp_tune_choice *ch, double secs, const char *written, int rc,
			const kp_gpu_result *prof, const kp_launch_spec *spec, const char *inst,
			const tune_phases *ph)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "file", in);
	cJSON_AddStringToObject(j, "arch", o->arch_name);
	if (run->device)
		cJSON_AddStringToObject(j, "device", run->device);
	cJSON_AddStringToObject(j, "kernel", inst);
	if (spec->ninsts > 1) {
		cJSON *is = cJSON_AddArrayToObject(j, "instantiations");
		for (int i = 0; i < spec->ninsts; i++)
			cJSON_AddItemToArray(is, cJSON_CreateString(spec->insts[i]));
	}
	cJSON_AddStringToObject(j, "timed_size", run->nsizes ? run->sizes[0] : "target");
	cJSON *ts = cJSON_AddArrayToObject(j, "timed_sizes");
	for (int k = 0; k < run->nsizes; k++) {
		int seen = 0; /* each size once (a cell of every instantiation) */
		for (int i = 0; i < k; i++)
			seen |= !strcmp(run->sizes[i], run->sizes[k]);
		if (!seen)
			cJSON_AddItemToArray(ts, cJSON_CreateString(run->sizes[k]));
	}
	const kp_tune_version *orig = kp_tune_find(run, "original");
	cJSON_AddNumberToObject(j, "rounds", orig ? orig->t[0].rounds : 0);
	if (run->work_kind)
		cJSON_AddStringToObject(j, "work_kind", run->work_kind);
	cJSON_AddNumberToObject(j, "work", run->work[0]);
	cJSON *arr = cJSON_AddArrayToObject(j, "versions");
	for (int i = -1; i < nc; i++) {
		const char *name = i < 0 ? "original" : c[i].name;
		const kp_tune_version *v = kp_tune_find(run, name);
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "name", name);
		int ok = 0;
		if (i >= 0) {
			cJSON_AddBoolToObject(x, "built", c[i].text != NULL);
			if (c[i].skip)
				cJSON_AddStringToObject(x, "skipped", c[i].skip);
			if (c[i].same_as)
				cJSON_AddStringToObject(x, "same_as", c[i].same_as);
			if (c[i].text)
				cJSON_AddBoolToObject(x, "static_ok", c[i].static_ok);
			if (c[i].text && c[i].static_ok)
				cJSON_AddBoolToObject(x, "sass_overlap", !c[i].sass_failed);
			if (c[i].static_note)
				cJSON_AddStringToObject(x, "static", c[i].static_note);
			if (c[i].feat.known)
				add_features(x, &c[i].feat);
			char why[512];
			if (c[i].text && c[i].static_ok && !c[i].same_as) {
				ok = kp_tune_qualifies(run, v, why, sizeof(why));
				cJSON_AddBoolToObject(x, "checked_ok", ok);
				if (!ok)
					cJSON_AddStringToObject(x, "failure", why);
			}
		}
		if (v && v->sanitized) {
			cJSON_AddNumberToObject(x, "sanitizer_runs", v->sanitized);
			cJSON_AddBoolToObject(x, "sanitizer_clean", !v->sanitizer_failure);
			if (v->sanitizer_failure)
				cJSON_AddStringToObject(x, "sanitizer_failure",
							v->sanitizer_failure);
		}
		json_timing(x, run, v, i, ok);
		cJSON_AddBoolToObject(x, "chosen", i >= 0 && ch->winner == i);
		cJSON_AddItemToArray(arr, x);
	}
	cJSON_AddStringToObject(j, "chosen", ch->winner >= 0 ? c[ch->winner].name : "original");
	cJSON_AddStringToObject(j, "reason", ch->reason);
	if (ch->best >= 0) {
		cJSON_AddNumberToObject(j, "speedup", ch->speedup);
		cJSON *iv = cJSON_AddArrayToObject(j, "interval95");
		cJSON_AddItemToArray(iv, cJSON_CreateNumber(ch->ci_lo));
		cJSON_AddItemToArray(iv, cJSON_CreateNumber(ch->ci_hi));
	}
	cJSON_AddNumberToObject(j, "spread_ms", ch->spread_ms);
	cJSON_AddNumberToObject(j, "seconds", secs);
	json_phases(j, run, ph);
	if (written)
		cJSON_AddStringToObject(j, "written", written);
	cJSON_AddNumberToObject(j, "exit_code", rc);
	if (prof)
		cJSON_AddItemToObject(j, "profile", (cJSON *)kp_ncu_render_json(&prof->profile));
	else
		cJSON_AddNullToObject(j, "profile");
	char *s = cJSON_Print(j);
	cJSON_Delete(j);
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "%s\n", s);
	cJSON_free(s);
	return kp_strbuf_detach(&sb);
}

/* Cannot measure: the auto variant, as `rewrite` would write it. */
static int fall_back(const kp_cli *o, const char *in, const char *src, size_t len, const char *why)
{
	fprintf(stderr, "kpipe tune: cannot tune: %s; writing what --variant auto gives\n", why);
	kp_cli a = *o;
	a.variant = "auto";
	a.stages = 0; /* auto picks the depth */
	kp_rw_result r = {0};
	r.path = kp_xstrdup(in);
	char *out = NULL;
	size_t outlen = 0;
	kp_rw_input rin = {.path = in, .contents = src, .len = len};
	kp_rw_opts rwo;
	kp_cli_rw_opts(&a, &rwo);
	int rc = kp_rewrite_buffer(&rwo, &rin, &r, &out, &outlen);
	if (rc == KP_EXIT_OK) {
		if (o->verbose)
			kp_rw_print_diags(&r, 1, stderr);
		rc = deliver(o, in, src, len, out, outlen);
		if (rc == KP_EXIT_OK)
			rc = KP_EXIT_INCOMPLETE;
	} else
		kp_rw_print_diags(&r, o->verbose, stderr);
	free(out);
	kp_rw_result_release(&r);
	return rc;
}

/* Everything one run holds; tune_release() frees it. */
typedef struct {
	kp_cli o;
	const char *in;
	char *src;
	size_t len;
	/* the registered transforms' tune candidates (kp_transform_tune_list),
	 * nk of them, in the order of the table */
	const kp_tune_cand *kinds[NKINDS_MAX];
	const kp_transform *kind_xf[NKINDS_MAX];
	int nk;
	/* the names of the candidates add_modified() appends ("V+pad", "V+occ") */
	char pad_name[NKINDS_MAX][48];
	cand c[NKINDS_MAX];
	kp_tune_run run;
	kp_tune_choice ch;
	kp_cuda_env env;
	kp_launch_spec spec;
	int have_spec;
	char *spec_path, *workdir, *dir_flag, *events, *gerr, *abs_in;
	char *cache_dir; /* workdir/cache: nvcc's outputs by content, this run only */
	const char **flags;
	int nflags;
	int keep_dir;          /* --gpu-dir: the variants and the build stay */
	const char *sizes[64]; /* --sizes: checked and timed */
	int nsizes;
	const char *timed[KP_TUNE_MAX_SIZES]; /* the sizes timed: --sizes, else target */
	int ntimed;
	const char *names[NKINDS_MAX];
	int eligible[NKINDS_MAX];
	kp_gpu_version vers[NKINDS_MAX + 1]; /* the original, then every eligible variant */
	int nv;
	kp_file_setup fs; /* the file's compile_commands.json entry (-p) */
	int have_fs;
	kp_gpu_result *prof; /* --profile: the original and the choice under ncu */
	tune_phases ph;
} tune_state;

/* A step's "go on" (every other value is the exit code). */
enum { TUNE_GO = -1 };

static void tune_release(tune_state *t)
{
	for (int i = 0; i < t->nk; i++) {
		free(t->c[i].text);
		free(t->c[i].skip);
		free(t->c[i].path);
		free(t->c[i].static_note);
	}
	if (t->workdir && !t->keep_dir)
		kp_remove_tree(t->workdir);
	kp_gpu_result_free(t->prof);
	free(t->workdir);
	free(t->cache_dir);
	free(t->dir_flag);
	free(t->flags);
	free(t->events);
	free(t->gerr);
	free(t->spec_path);
	free(t->abs_in);
	if (t->have_spec)
		kp_launch_spec_release(&t->spec);
	kp_cuda_env_release(&t->env);
	kp_tune_run_release(&t->run);
	free(t->src);
	if (t->have_fs)
		kp_file_setup_release(&t->fs);
	kp_cli_release(&t->o);
}

/* The options tune does not take together; 0 or KP_EXIT_USAGE. */
static int usage_error(const kp_cli *o)
{
	const char *e = NULL;
	if (o->nfiles != 1 || !strcmp(o->files[0], "-"))
		e = "tune takes one input FILE.cu (not stdin, not a directory)";
	else if (o->in_place && o->output)
		e = "-o and -i exclude each other";
	else if (!strcmp(o->format, "sarif"))
		e = "--format is text or json";
	else if (!strcmp(o->format, "json") && !o->output && !o->in_place)
		e = "--format json puts the table on stdout: the code needs -o OUT or -i";
	if (!e)
		return 0;
	fprintf(stderr, "kpipe: error: %s\n", e);
	return KP_EXIT_USAGE;
}

/* The modifiers tune builds each variant with as well (add_modified). */
enum { MOD_NONE, MOD_PAD, MOD_OCC, MOD_RAISE, MOD_SWZ };

/* Kind i rewritten as `rewrite --variant V --stages N` (with --pad or
 * --keep-occupancy, --raise-occupancy or --block-swizzle as mod says) writes it: kp_rewrite_buffer's
 * exit code, its result in *r (path set here; the caller releases it) and text. */
static int rewrite_kind(tune_state *t, int i, int mod, kp_rw_result *r, char **text, size_t *len)
{
	kp_cli a = t->o;
	a.variant = t->kind_xf[i]->name;
	a.stages = t->kinds[i]->stages;
	if (mod == MOD_PAD)
		a.pad = 1;
	if (mod == MOD_OCC)
		a.keep_occupancy = 1;
	if (mod == MOD_RAISE)
		a.raise_occupancy = 1;
	if (mod == MOD_SWZ)
		a.block_swizzle = KP_BLOCK_SWIZZLE_DEFAULT;
	r->path = kp_xstrdup(t->in);
	kp_cli_probe_new_budget(); /* as one `kpipe rewrite` of the variant */
	kp_rw_input rin = {.path = t->in, .contents = t->src, .len = t->len};
	kp_rw_opts rwo;
	kp_cli_rw_opts(&a, &rwo);
	return kp_rewrite_buffer(&rwo, &rin, r, text, len);
}

/* The last of c[0..n) built with exactly this text, or -1. */
static int same_text(const cand *c, int n, const char *text, size_t len)
{
	for (int k = n - 1; k >= 0; k--)
		if (c[k].text && c[k].len == len && !memcmp(c[k].text, text, len))
			return k;
	return -1;
}

/* 1b. each variant built with --pad as well, as one more candidate where
 * the padding changes its rewrite (tune measures the padded and the
 * unpadded form; `rewrite --variant auto` pads only where bank conflicts
 * of reads make it pay, pass_pad.c); and with --keep-occupancy ("V+occ"),
 * where a __launch_bounds__ keeps the original's blocks per SM, and with
 * --raise-occupancy ("V+raise"), where one more block per SM than the
 * rewrite's fits without spills (occ_bound.c); and with --block-swizzle
 * ("V+swz"), where the kernel's blocks are remapped in groups of 8 rows
 * (pass_block_swizzle.c).  auto adds none of the last three: they are
 * measured choices */
static void add_modified(tune_state *t, int n0, int mod)
{
	const char *suffix = mod == MOD_PAD   ? "pad"
			     : mod == MOD_OCC ? "occ"
			     : mod == MOD_SWZ ? "swz"
					      : "raise";
	for (int i = 0; i < n0 && t->nk < NKINDS_MAX; i++) {
		if (!t->c[i].text || t->c[i].same_as)
			continue;
		int j = t->nk;
		kp_rw_result r = {0};
		char *text = NULL;
		size_t len = 0;
		int xr = rewrite_kind(t, i, mod, &r, &text, &len);
		kp_rw_result_release(&r);
		if (xr != KP_EXIT_OK || same_text(t->c, t->nk, text, len) >= 0) {
			free(text);
			continue;
		}
		memset(&t->c[j], 0, sizeof(t->c[j]));
		t->kinds[j] = t->kinds[i];
		t->kind_xf[j] = t->kind_xf[i];
		snprintf(t->pad_name[j], sizeof(t->pad_name[j]), "%s+%s", t->kinds[i]->name,
			 suffix);
		t->c[j].name = t->pad_name[j];
		t->c[j].text = text;
		t->c[j].len = len;
		t->nk++;
	}
}

/* 1. every variant, as `rewrite --variant V --stages N` writes it */
static int build_candidates(tune_state *t)
{
	cand *c = t->c;
	int built = 0;
	for (int i = 0; i < t->nk; i++) {
		c[i].name = t->kinds[i]->name;
		kp_rw_result r = {0};
		int xr = rewrite_kind(t, i, 0, &r, &c[i].text, &c[i].len);
		if (xr == KP_EXIT_INPUT) {
			kp_rw_print_diags(&r, 0, stderr);
			kp_rw_result_release(&r);
			return KP_EXIT_INPUT;
		}
		if (xr != KP_EXIT_OK) {
			free(c[i].text);
			c[i].text = NULL;
			c[i].skip = first_refusal(&r);
			if (i == 0 && t->o.verbose)
				kp_rw_print_diags(&r, 1, stderr);
		} else {
			built++;
			int k = same_text(c, i, c[i].text, c[i].len);
			if (k >= 0)
				c[i].same_as = c[k].name;
			/* without its transform's marker a build is its base's
			 * (register-ca without a read through __ldca is register) */
			const kp_transform *xf = t->kind_xf[i];
			if (xf->tune_marker &&
			    !memmem(c[i].text, c[i].len, xf->tune_marker, strlen(xf->tune_marker)))
				for (int k = 0; k < i; k++)
					if (c[k].text && !strcmp(c[k].name, xf->tune_base))
						c[i].same_as = c[k].name;
		}
		kp_rw_result_release(&r);
	}
	if (built) {
		int n0 = t->nk;
		add_modified(t, n0, MOD_PAD);
		add_modified(t, n0, MOD_OCC);
		add_modified(t, n0, MOD_RAISE);
		add_modified(t, n0, MOD_SWZ);
		return TUNE_GO;
	}
	for (int i = 0; i < t->nk; i++)
		fprintf(stderr, "%s: %s: %s\n", t->in, c[i].name, c[i].skip);
	/* as rewrite does: the output is the original, unchanged */
	fprintf(stderr, "kpipe tune: nothing to pipeline in %s; the original is kept\n", t->in);
	return deliver(&t->o, t->in, t->src, t->len, t->src, t->len);
}

/* fall_back() with a formatted reason. */
static int fall_back_f(tune_state *t, const char *fmt, const char *arg)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, fmt, arg);
	int rc = fall_back(&t->o, t->in, t->src, t->len, kp_strbuf_str(&sb));
	kp_strbuf_release(&sb);
	return rc;
}

/* 2. what is needed to measure: the launch description, the sizes, a
 * device (or --gpu-dir), nvcc */
static int prepare_measuring(tune_state *t)
{
	const kp_cli *o = &t->o;
	t->spec_path = o->spec ? kp_xstrdup(o->spec) : kp_launch_spec_default_path(t->in);
	char err[1024];
	if (!o->spec && access(t->spec_path, F_OK) != 0)
		return fall_back_f(t, "no launch description (%s not found; give one with --spec)",
				   t->spec_path);
	if (kp_launch_spec_load(&t->spec, t->spec_path, err, sizeof(err)) != KP_SPEC_OK) {
		fprintf(stderr, "kpipe: error: %s\n", err);
		return KP_EXIT_INPUT;
	}
	t->have_spec = 1;
	if (o->sizes) {
		t->nsizes = kp_gpu_parse_sizes(&t->spec, o->sizes, t->sizes,
					       (int)KP_ARRAY_LEN(t->sizes), err, sizeof(err));
		if (t->nsizes < 0) {
			fprintf(stderr, "kpipe: error: --sizes: %s\n", err);
			return KP_EXIT_USAGE;
		}
		if (t->nsizes > KP_TUNE_MAX_SIZES) {
			fprintf(stderr, "kpipe: error: --sizes: at most %d sizes are timed\n",
				KP_TUNE_MAX_SIZES);
			return KP_EXIT_USAGE;
		}
		if (t->nsizes * t->spec.ninsts > KP_TUNE_MAX_SIZES) {
			fprintf(stderr,
				"kpipe: error: --sizes: %d sizes of %d instantiations: at most %d "
				"(instantiation, size) cells are timed\n",
				t->nsizes, t->spec.ninsts, KP_TUNE_MAX_SIZES);
			return KP_EXIT_USAGE;
		}
		/* every size named is checked and timed */
		for (int i = 0; i < t->nsizes; i++)
			t->timed[t->ntimed++] = t->sizes[i];
	} else
		t->timed[t->ntimed++] = "target"; /* the default: one timed size */
	char why[256];
	if (!kp_gpu_probe(why, sizeof(why)) && !o->gpu_dir)
		return fall_back_f(t, "no CUDA device (%s)", why);
	if (kp_cuda_env_find(&t->env, o->cuda_path) != 0) {
		fprintf(stderr, "kpipe tune: %s\n", t->env.error ? t->env.error : "nvcc not found");
		return KP_EXIT_TOOL;
	}
	return TUNE_GO;
}

/* The options of validate's static steps on the variant at path. */
static kp_validate_opts static_opts(const tune_state *t, const char *path)
{
	const kp_cli *o = &t->o;
	kp_validate_opts vo = {
		.original = t->in,
		.rewritten = path,
		.arch = o->arch_name,
		.threads = o->threads > 0 ? o->threads : kp_launch_spec_threads(&t->spec),
		.kernel = o->kernel,
		.nvcc_args = t->flags,
		.nnvcc_args = t->nflags,
		.nvcc = t->env.nvcc,
		.cuobjdump = t->env.cuobjdump,
		.nvdisasm = t->env.nvdisasm,
		.cache_dir = t->cache_dir,
	};
	if (vo.threads <= 0 || vo.threads > 1024)
		vo.threads = 256;
	return vo;
}

/* Steps 1 and 2 of validate on variant c (written to c->path); sets
 * c->static_ok and c->static_note. */
static void validate_candidate(tune_state *t, cand *c)
{
	const kp_cli *o = &t->o;
	kp_validate_result res;
	kp_validate_opts vo = static_opts(t, c->path);
	int vr = kp_validate_static(&res, &vo);
	char note[1200];
	c->static_ok = kp_tune_runs_variant(&res, vr, note, sizeof(note));
	c->sass_failed = vr == KP_VALIDATE_OK && res.steps[1].status == KP_STEP_FAILED;
	c->static_note = kp_xstrdup(note);
	if (vr == KP_VALIDATE_OK)
		kp_tune_features_of(&res, o->kernel, &c->feat);
	kp_validate_result_release(&res);
	if (o->verbose)
		fprintf(stderr, "kpipe tune: %s: %s\n", c->name, c->static_note);
}

/* One child per variant runs validate_candidate() and sends its verdict
 * back as one line: static_ok sass_failed known regs_o regs_v warps_o
 * warps_v smem_o smem_v spills TAB note.  The variants compile in
 * parallel (two nvcc runs and two disassemblies each). */
static void send_verdict(int fd, const cand *c)
{
	const kp_tune_features *f = &c->feat;
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "%d %d %d %d %d %d %d %d %d %d\t%s\n", c->static_ok, c->sass_failed,
		       f->known, f->regs_o, f->regs_v, f->warps_o, f->warps_v, f->smem_o, f->smem_v,
		       f->spills_v, c->static_note ? c->static_note : "");
	const char *s = kp_strbuf_str(&sb);
	size_t n = strlen(s), off = 0;
	while (off < n) {
		ssize_t w = write(fd, s + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	kp_strbuf_release(&sb);
}

static void read_verdict(int fd, cand *c)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	char buf[4096];
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		kp_strbuf_add(&sb, buf, (size_t)n);
	}
	const char *s = kp_strbuf_str(&sb);
	kp_tune_features *f = &c->feat;
	const char *tab = strchr(s, '\t');
	if (!tab || sscanf(s, "%d %d %d %d %d %d %d %d %d %d", &c->static_ok, &c->sass_failed,
			   &f->known, &f->regs_o, &f->regs_v, &f->warps_o, &f->warps_v, &f->smem_o,
			   &f->smem_v, &f->spills_v) != 10) {
		c->static_ok = 0;
		c->static_note = kp_xstrdup("the static check did not finish");
	} else {
		size_t n = strlen(tab + 1);
		c->static_note = kp_xstrndup(tab + 1, n && tab[n] == '\n' ? n - 1 : n);
	}
	kp_strbuf_release(&sb);
}

/* validate_candidate() for every variant written, in parallel. */
static void validate_all(tune_state *t)
{
	int fds[NKINDS_MAX];
	pid_t pids[NKINDS_MAX];
	for (int i = 0; i < t->nk; i++) {
		cand *c = &t->c[i];
		fds[i] = -1;
		pids[i] = -1;
		if (!c->path)
			continue;
		int pp[2];
		if (pipe(pp) == 0) {
			fflush(NULL);
			pids[i] = kp_guard_fork();
			if (pids[i] == 0) {
				close(pp[0]);
				validate_candidate(t, c);
				send_verdict(pp[1], c);
				close(pp[1]);
				_exit(0);
			}
			close(pp[1]);
			if (pids[i] > 0) {
				fds[i] = pp[0];
				continue;
			}
			close(pp[0]);
		}
		validate_candidate(t, c); /* no pipe or no fork: here */
	}
	for (int i = 0; i < t->nk; i++) {
		if (fds[i] < 0)
			continue;
		read_verdict(fds[i], &t->c[i]);
		close(fds[i]);
		int st;
		kp_guard_forget_child(pids[i]);
		while (waitpid(pids[i], &st, 0) < 0 && errno == EINTR)
			;
	}
}

/* 3. the variants on disk, and the static steps of validate for each */
static int validate_candidates(tune_state *t)
{
	const kp_cli *o = &t->o;
	if (o->gpu_dir) {
		if (mkdir(o->gpu_dir, 0755) != 0 && errno != EEXIST) {
			fprintf(stderr, "kpipe: error: cannot create %s: %s\n", o->gpu_dir,
				strerror(errno));
			return KP_EXIT_INPUT;
		}
		t->workdir = kp_xstrdup(o->gpu_dir);
	} else if (!(t->workdir = kp_tempdir("tune-src"))) {
		fprintf(stderr, "kpipe: error: cannot create a temporary directory\n");
		return KP_EXIT_INPUT;
	}
	/* a fresh cache: one kept by --gpu-dir from an earlier run could
	 * predate a change to a header the key does not cover */
	kp_strbuf cd = KP_STRBUF_INIT;
	kp_strbuf_addf(&cd, "%s/cache", t->workdir);
	t->cache_dir = kp_strbuf_detach(&cd);
	kp_remove_tree(t->cache_dir);
	/* -I for the input's directory: the variants are compiled from elsewhere */
	char *dup = kp_xstrdup(t->in);
	kp_strbuf df = KP_STRBUF_INIT;
	kp_strbuf_addf(&df, "-I%s", dirname(dup));
	free(dup);
	t->dir_flag = kp_strbuf_detach(&df);
	t->flags = kp_cli_nvcc_flags(o, t->dir_flag, &t->nflags);
	t->abs_in = realpath(t->in, NULL);
	t->vers[t->nv++] = (kp_gpu_version){"original", t->abs_in ? t->abs_in : t->in};
	for (int i = 0; i < t->nk; i++) {
		cand *c = &t->c[i];
		t->names[i] = c->name;
		t->eligible[i] = 0;
		if (!c->text || c->same_as)
			continue;
		kp_strbuf p = KP_STRBUF_INIT;
		kp_strbuf_addf(&p, "%s/%s.cu", t->workdir, c->name);
		c->path = kp_strbuf_detach(&p);
		if (write_file(c->path, c->text, c->len, NULL))
			return KP_EXIT_INPUT;
	}
	/* the original once, here; the variants' checks find it in the cache */
	double w0 = kp_now();
	kp_validate_opts vo = static_opts(t, NULL);
	kp_validate_warm_cache(&vo);
	if (o->verbose)
		fprintf(stderr,
			"kpipe tune: the original compiled in %.1f s (cached for the variants)\n",
			kp_now() - w0);
	validate_all(t);
	for (int i = 0; i < t->nk; i++) {
		cand *c = &t->c[i];
		if (c->path && c->static_ok) {
			t->eligible[i] = 1;
			t->vers[t->nv++] = (kp_gpu_version){c->name, c->path};
		}
	}
	return TUNE_GO;
}

/* The harness options every run of a tune shares: the spec, the target,
 * the flags and the toolkit. */
static kp_gpu_opts gpu_opts(const tune_state *t)
{
	return (kp_gpu_opts){
		.spec = &t->spec,
		.arch = t->o.arch_name,
		.nvcc_args = t->flags,
		.nnvcc_args = t->nflags,
		.nvcc = t->env.nvcc,
		.cuda_root = t->env.root,
		.cache_dir = t->cache_dir,
	};
}

/* 4. one harness run: every size checked, 'target' timed in rounds; then
 * the choice */
static int measure(tune_state *t)
{
	const kp_cli *o = &t->o;
	if (t->nv > 1) {
		kp_gpu_opts go = gpu_opts(t);
		go.sizes = t->nsizes > 0 ? t->sizes : NULL;
		go.nsizes = t->nsizes;
		go.time_sizes = t->timed;
		go.ntime_sizes = t->ntimed;
		go.dir = t->keep_dir ? t->workdir : NULL;
		go.sanitize = o->sanitize >= 0;
		go.drop_slower_pct = KP_TUNE_DROP_SLOWER_PCT;
		go.round_ms = KP_TUNE_ROUND_MS;
		int gr =
			kp_gpu_run_versions(&go, t->vers, t->nv, TUNE_ROUNDS, &t->events, &t->gerr);
		if (t->events)
			kp_tune_absorb(&t->run, t->events);
		if (gr != 0 && !t->run.done)
			return fall_back(o, t->in, t->src, t->len,
					 t->gerr ? t->gerr : "the GPU run failed");
	}
	int bad = kp_tune_decide(&t->run, t->names, t->eligible, t->nk, &t->ch);
	if (!bad && t->ch.more_rounds && t->nv > 1) {
		/* the rounds disagree and the interval includes 1: as many
		 * rounds again, at the timed sizes only (every size was checked
		 * already) */
		kp_gpu_opts go = gpu_opts(t);
		go.sizes = t->timed;
		go.nsizes = t->ntimed;
		go.time_sizes = t->timed;
		go.ntime_sizes = t->ntimed;
		go.round_ms = KP_TUNE_ROUND_MS;
		char *ev = NULL, *gerr = NULL;
		if (o->verbose)
			fprintf(stderr, "kpipe tune: the rounds disagree (%s): %d more\n",
				t->ch.reason, TUNE_ROUNDS);
		/* not the variants the first run stopped timing: their rounds
		 * would pair with the wrong rounds of the original */
		kp_gpu_version more[NKINDS_MAX + 1];
		int nmore = 0;
		for (int i = 0; i < t->nv; i++)
			if (!kp_tune_dropped(&t->run, kp_tune_find(&t->run, t->vers[i].name)))
				more[nmore++] = t->vers[i];
		kp_gpu_run_versions(&go, more, nmore, TUNE_ROUNDS, &ev, &gerr);
		if (ev)
			kp_tune_absorb(&t->run, ev);
		free(ev);
		free(gerr);
		bad = kp_tune_decide(&t->run, t->names, t->eligible, t->nk, &t->ch);
	}
	if (bad && t->nv > 1) {
		fprintf(stderr, "kpipe: error: %s\n", t->ch.reason);
		return KP_EXIT_VALIDATION;
	}
	if (t->nv == 1)
		snprintf(t->ch.reason, sizeof(t->ch.reason),
			 "no variant passed validation: the original is kept");
	return TUNE_GO;
}

/* 4b. --profile: ncu on the original and the chosen variant */
static void profile_choice(tune_state *t)
{
	if (!t->o.profile)
		return;
	const kp_tune_choice *ch = &t->ch;
	if (ch->winner < 0 || !t->c[ch->winner].path) {
		t->prof = kp_gpu_result_new();
		t->prof->profile.requested = 1;
		t->prof->profile.skip =
			"no variant was chosen: nothing to compare with the original";
		return;
	}
	if (t->o.verbose)
		fprintf(stderr, "kpipe tune: profiling the original and %s with ncu\n",
			t->c[ch->winner].name);
	kp_gpu_opts go = gpu_opts(t);
	kp_gpu_version v[2] = {t->vers[0], {t->c[ch->winner].name, t->c[ch->winner].path}};
	t->prof = kp_gpu_profile_pair(&go, v);
}

/* 5. the file and the table (on stdout when the code does not go there) */
static int report(tune_state *t, double t0)
{
	const kp_cli *o = &t->o;
	const kp_tune_choice *ch = &t->ch;
	cand *c = t->c;
	const char *text = ch->winner >= 0 ? c[ch->winner].text : t->src;
	size_t tlen = ch->winner >= 0 ? c[ch->winner].len : t->len;
	int rc = deliver(o, t->in, t->src, t->len, text, tlen);
	if (rc == KP_EXIT_OK && ch->best < 0)
		rc = KP_EXIT_VALIDATION;
	const char *written = o->in_place                           ? t->in
			      : o->output && strcmp(o->output, "-") ? o->output
								    : NULL;
	char *inst = instantiation(&t->spec);
	if (!strcmp(o->format, "json")) {
		char *j = table_json(t->in, o, c, t->nk, &t->run, ch, kp_now() - t0, written, rc,
				     t->prof, &t->spec, inst, &t->ph);
		fputs(j, stdout);
		free(j);
		free(inst);
		return rc;
	}
	FILE *tfp = o->output || o->in_place ? stdout : stderr;
	print_table(tfp, t->in, o, c, t->nk, &t->run, ch, kp_now() - t0, &t->spec, inst, &t->ph);
	free(inst);
	if (t->prof) {
		kp_strbuf sb = KP_STRBUF_INIT;
		kp_ncu_render_text(&sb, &t->prof->profile);
		fputs(kp_strbuf_str(&sb), tfp);
		kp_strbuf_release(&sb);
	}
	if (written)
		fprintf(tfp, "wrote %s: %s\n", written,
			ch->winner >= 0 ? c[ch->winner].name
					: (o->in_place ? "left unchanged (the original)"
						       : "the original, unchanged"));
	return rc;
}

int cmd_tune(int argc, char **argv)
{
	tune_state t;
	memset(&t, 0, sizeof(t));
	int rc = kp_cli_parse(&t.o, argc, argv, "tune", kp_opts_tune);
	if (rc)
		return rc;
	double t0 = kp_now();
	if ((rc = usage_error(&t.o))) {
		kp_cli_release(&t.o);
		return rc;
	}
	t.in = t.o.files[0];
	int e = kp_read_file(t.in, &t.src, &t.len);
	if (e) {
		fprintf(stderr, "kpipe: error: cannot read '%s': %s\n", t.in, strerror(-e));
		kp_cli_release(&t.o);
		return KP_EXIT_INPUT;
	}
	/* with -p and no --arch, the target of the file's compile_commands.json
	 * entry (its flags reach the parser through parse.c) */
	kp_cli_file_setup(&t.o, t.in, 0, &t.fs);
	t.have_fs = 1;
	t.o.arch = t.fs.arch;
	t.o.arch_name = t.fs.arch_name;
	t.nk = kp_transform_tune_list(t.kinds, t.kind_xf, NKINDS_MAX);
	t.ch = (kp_tune_choice){.winner = -1, .best = -1};
	t.env = (kp_cuda_env)KP_CUDA_ENV_INIT;
	t.keep_dir = t.o.gpu_dir != NULL;
	rc = build_candidates(&t);
	t.ph.rewrite_s = kp_now() - t0;
	if (rc == TUNE_GO && (rc = prepare_measuring(&t)) == TUNE_GO) {
		rc = validate_candidates(&t);
		t.ph.static_s = kp_now() - t0 - t.ph.rewrite_s;
	}
	if (rc == TUNE_GO && (rc = measure(&t)) == TUNE_GO) {
		profile_choice(&t);
		rc = report(&t, t0);
	} else if (t.o.profile)
		fprintf(stderr, "kpipe tune: profile: SKIPPED: nothing was measured (see above)\n");
	tune_release(&t);
	return rc;
}
