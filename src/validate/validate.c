/*
 * validate.c - steps 1 (resources) and 2 (SASS) of `kpipe validate`:
 * compiles both files into a temporary directory, compares ptxas's figures
 * and warnings kernel by kernel, disassembles both cubins and judges the
 * rewritten main loops; renders the result as text or JSON.
 *
 * It runs nvcc, cu++filt/c++filt and cuobjdump/nvdisasm, never a GPU
 * program (gpu_run.c adds steps 3-5 to the same result, with the hooks
 * that render and free their details: kp_gpu_hooks).  Findings are recorded on the
 * result, never printed: the command layer (cmd_validate.c) prints and
 * chooses the exit code.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "validate.h"

#include "build_cache.h"
#include "proc.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { STEP_RES = 1, STEP_SASS = 2 };

static const char *level_name(kp_find_level l)
{
	return l == KP_FIND_ERROR ? "error" : l == KP_FIND_WARNING ? "warning" : "note";
}

/* "kernel: message" of the first error of a step, as the step's reason. */
static void fail_step(kp_validate_result *r, int step)
{
	const kp_finding *e = kp_validate_first_error(r, step);
	kp_validate_set_step(&r->steps[step - 1], KP_STEP_FAILED, "%s%s%s",
			     e->kernel ? e->kernel : "", e->kernel ? ": " : "", e->message);
}

static int count_level(const kp_validate_result *r, int step, kp_find_level l)
{
	int n = 0;
	for (int i = 0; i < r->nfindings; i++)
		n += r->findings[i].step == step && r->findings[i].level == l;
	return n;
}

static const char *display_name(const kp_validate_kernel *k)
{
	return k->demangled ? k->demangled : k->name;
}

/* "void scale<128>(float*, float)" -> "scale<128>"; the mangled name when
 * there is no demangled one. */
static const char *make_label(kp_arena *a, const char *mangled, const char *demangled)
{
	if (!demangled)
		return mangled;
	const char *start = demangled, *p;
	int depth = 0;
	for (p = demangled; *p; p++) {
		if (*p == '<')
			depth++;
		else if (*p == '>' && depth > 0)
			depth--;
		else if (depth == 0 && *p == ' ')
			start = p + 1; /* after the return type */
		else if (depth == 0 && *p == '(')
			break;
	}
	return p > start ? kp_arena_strndup(a, start, (size_t)(p - start)) : demangled;
}

/* ---- step 1 ----------------------------------------------------------- */

static const char *pick_filt(const char *nvcc, const char *explicit_filt, kp_arena *a)
{
	if (explicit_filt)
		return explicit_filt;
	const char *slash = strrchr(nvcc, '/');
	if (slash) {
		char *p = kp_arena_printf(a, "%.*s/cu++filt", (int)(slash - nvcc), nvcc);
		if (access(p, X_OK) == 0)
			return p;
	}
	return "c++filt";
}

static int find_or_add_kernel(kp_validate_result *r, int *cap, const kp_kernel_res *k)
{
	for (int i = 0; i < r->nkernels; i++)
		if (strcmp(r->kernels[i].name, k->name) == 0)
			return i;
	if (r->nkernels == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		r->kernels = kp_xrealloc(r->kernels, (size_t)*cap * sizeof(*r->kernels));
	}
	kp_validate_kernel *v = &r->kernels[r->nkernels];
	memset(v, 0, sizeof(*v));
	v->name = kp_arena_strdup(&r->arena, k->name);
	v->verdict = "not judged";
	return r->nkernels++;
}

static void copy_side(kp_validate_result *r, kp_kernel_side *side, const kp_kernel_res *k)
{
	side->present = 1;
	side->res = *k;
	side->res.name = kp_arena_strdup(&r->arena, k->name);
	side->res.demangled = k->demangled ? kp_arena_strdup(&r->arena, k->demangled) : NULL;
	if (r->target)
		side->occ = kp_arch_occupancy(r->target, r->threads, k->registers, k->smem);
}

/* Collects the entry kernels of both files that pass the filter. */
static void collect_kernels(kp_validate_result *r, const kp_resources *orig,
			    const kp_resources *rew, const char *filter)
{
	int cap = 0;
	const kp_resources *files[2] = {orig, rew};
	for (int f = 0; f < 2; f++) {
		for (int i = 0; i < files[f]->nkernels; i++) {
			const kp_kernel_res *k = &files[f]->kernels[i];
			if (!k->is_entry || !kp_resources_name_matches(k, filter))
				continue;
			int idx = find_or_add_kernel(r, &cap, k); /* may move r->kernels */
			kp_validate_kernel *v = &r->kernels[idx];
			if (!v->demangled && k->demangled)
				v->demangled = kp_arena_strdup(&r->arena, k->demangled);
			v->label = make_label(&r->arena, v->name, v->demangled);
			copy_side(r, f == 0 ? &v->orig : &v->rew, k);
		}
	}
}

/* A kernel whose parameters the rewrite changed (the tensor-map form adds
 * its maps) has another mangled name there: an original-only kernel and a
 * rewritten-only one with the same label (the name and template
 * arguments, without parameters) are one kernel, compared as such. */
static void pair_changed_signatures(kp_validate_result *r)
{
	for (int i = 0; i < r->nkernels; i++) {
		kp_validate_kernel *o = &r->kernels[i];
		if (!o->orig.present || o->rew.present)
			continue;
		int hit = -1, n = 0;
		for (int j = 0; j < r->nkernels; j++) {
			const kp_validate_kernel *w = &r->kernels[j];
			if (!w->orig.present && w->rew.present && !strcmp(w->label, o->label)) {
				hit = j;
				n++;
			}
		}
		if (n != 1)
			continue; /* none, or overloads kpipe cannot tell apart */
		o->rew = r->kernels[hit].rew;
		memmove(&r->kernels[hit], &r->kernels[hit + 1],
			(size_t)(r->nkernels - hit - 1) * sizeof(*r->kernels));
		r->nkernels--;
		if (hit < i)
			i--;
	}
}

static void check_kernel_resources(kp_validate_result *r, kp_validate_kernel *k)
{
	const char *kn = k->label;
	const kp_kernel_res *b = &k->orig.res, *n = &k->rew.res;
	if (!k->rew.present) {
		kp_validate_finding(r, KP_FIND_ERROR, STEP_RES, kn,
				    "kernel missing from the rewritten file");
		return;
	}
	if (!k->orig.present) {
		kp_validate_finding(r, KP_FIND_NOTE, STEP_RES, kn,
				    "kernel only in the rewritten file: not compared");
		return;
	}
	if (n->spill_stores > b->spill_stores || n->spill_loads > b->spill_loads)
		kp_validate_finding(
			r, KP_FIND_ERROR, STEP_RES, kn,
			"new spills: stores %d -> %d bytes, loads %d -> %d bytes (registers %d -> %d)",
			b->spill_stores, n->spill_stores, b->spill_loads, n->spill_loads,
			b->registers, n->registers);
	else if (n->stack_frame > b->stack_frame)
		kp_validate_finding(r, KP_FIND_WARNING, STEP_RES, kn,
				    "stack frame grew: %d -> %d bytes", b->stack_frame,
				    n->stack_frame);

	char msg[256];
	if (k->rew.occ.blocks_per_sm == 0 && k->orig.occ.blocks_per_sm > 0)
		kp_validate_finding(
			r, KP_FIND_ERROR, STEP_RES, kn,
			"the rewritten kernel cannot be resident with %d threads per block "
			"(registers %d, static smem %d bytes)",
			r->threads, n->registers, n->smem);
	else if (kp_resources_cliff(r->target, r->threads, b, n, msg, sizeof(msg)))
		kp_validate_finding(r, KP_FIND_WARNING, STEP_RES, kn, "%s", msg);
}

/* Warnings of the rewritten file that the original does not have (as many
 * times): compared without their "file(line): " prefix. */
static void check_warnings(kp_validate_result *r, const kp_resources *orig, const kp_resources *rew)
{
	char *used = kp_xcalloc((size_t)orig->nwarnings + 1, 1);
	for (int i = 0; i < rew->nwarnings; i++) {
		const char *key = kp_resources_warning_key(rew->warnings[i]);
		int matched = 0;
		for (int j = 0; j < orig->nwarnings && !matched; j++)
			if (!used[j] &&
			    strcmp(kp_resources_warning_key(orig->warnings[j]), key) == 0)
				used[j] = matched = 1;
		if (!matched)
			kp_validate_finding(r, KP_FIND_ERROR, STEP_RES, NULL,
					    "new compiler warning: %s", rew->warnings[i]);
	}
	free(used);
}

static void step_resources(kp_validate_result *r, const kp_resources *orig, const kp_resources *rew,
			   const char *filter)
{
	kp_step *s = &r->steps[0];
	collect_kernels(r, orig, rew, filter);
	pair_changed_signatures(r);
	if (r->nkernels == 0) {
		if (filter)
			kp_validate_set_step(s, KP_STEP_FAILED,
					     "no kernel matches '%s' in either file", filter);
		else
			kp_validate_set_step(s, KP_STEP_FAILED,
					     "ptxas reported no kernel in either file");
		return;
	}
	if (!r->target)
		kp_validate_finding(r, KP_FIND_NOTE, STEP_RES, NULL,
				    "target '%s' is not in kpipe's table: occupancy not computed",
				    r->arch);
	for (int i = 0; i < r->nkernels; i++)
		check_kernel_resources(r, &r->kernels[i]);
	check_warnings(r, orig, rew);

	if (kp_validate_first_error(r, STEP_RES))
		fail_step(r, STEP_RES);
	else
		kp_validate_set_step(s, KP_STEP_PASSED,
				     "%d kernel%s compared, no new spills or warnings", r->nkernels,
				     r->nkernels == 1 ? "" : "s");
}

/* ---- step 2 ----------------------------------------------------------- */

/* The disassembler's listing of cubin: from o->cache_dir when a cubin of
 * the same bytes was disassembled by the same tool before (the original of
 * each variant tune or the tests validate), else run (and kept there when
 * it succeeded).  Returns the tool's exit status. */
static int run_disassembler(const kp_validate_opts *o, char *const *argv, char **text)
{
	const char *cubin = argv[2];
	char *key = o->cache_dir ? kp_build_key_content((const char *const *)argv, 2, &cubin, 1)
				 : NULL;
	*text = key ? kp_build_cache_get_text(o->cache_dir, key, "sass") : NULL;
	if (*text) {
		free(key);
		return 0;
	}
	int rc = kp_run_capture(argv, text);
	if (key && rc == 0 && *text)
		kp_build_cache_put_text(o->cache_dir, key, "sass", *text);
	free(key);
	return rc;
}

static int disassemble(kp_validate_result *r, const kp_validate_opts *o, const char *cubin,
		       kp_sass *out, char *why, size_t whysz)
{
	const char *tools[2][3] = {{o->cuobjdump, "-sass", "cuobjdump"},
				   {o->nvdisasm, "-c", "nvdisasm"}};
	why[0] = '\0';
	for (int t = 0; t < 2; t++) {
		if (!tools[t][0])
			continue;
		char *argv[] = {(char *)tools[t][0], (char *)tools[t][1], (char *)cubin, NULL};
		char *text = NULL;
		int rc = run_disassembler(o, argv, &text);
		if (rc == 0 && kp_sass_parse(out, text) == 0) {
			free(text);
			r->disassembler = tools[t][2];
			return 0;
		}
		if (rc == 0)
			kp_sass_release(out);
		snprintf(why, whysz, "%s %s", tools[t][2],
			 rc < 0 ? "could not be run"
			 : rc   ? "failed"
				: "printed no function");
		free(text);
	}
	if (!why[0])
		snprintf(why, whysz, "no cuobjdump or nvdisasm found");
	return -1;
}

static void judge_kernel(kp_validate_result *r, kp_validate_kernel *k, const kp_sass *so,
			 const kp_sass *sr, int excerpt_lines)
{
	const char *kn = k->label;
	const kp_sass_func *fo = kp_sass_find(so, k->name);
	const kp_sass_func *fr =
		kp_sass_find(sr, k->rew.present && k->rew.res.name ? k->rew.res.name : k->name);
	if (fo) {
		k->orig.has_sass = 1;
		kp_sass_main_loop(&k->orig.loop, fo);
	}
	if (fr) {
		k->rew.has_sass = 1;
		kp_sass_main_loop(&k->rew.loop, fr);
	}
	if (!fr || !fo) {
		if (k->orig.present && k->rew.present)
			kp_validate_finding(r, KP_FIND_ERROR, STEP_SASS, kn,
					    "not found in the %s disassembly",
					    fr ? "original" : "rewritten");
		return;
	}
	if (kp_sass_same_code(fo, fr)) {
		k->unchanged = 1;
		k->verdict = "unchanged";
		kp_validate_finding(r, KP_FIND_NOTE, STEP_SASS, kn,
				    "same SASS before and after: not judged");
		return;
	}

	const kp_sass_loop *lo = &k->orig.loop, *lr = &k->rew.loop;
	int errors = count_level(r, STEP_SASS, KP_FIND_ERROR);
	if (!lr->found) {
		kp_validate_finding(r, KP_FIND_ERROR, STEP_SASS, kn,
				    "no main loop in the rewritten kernel: %s", lr->reason);
	} else {
		char *ex = kp_sass_excerpt(fr, lr, excerpt_lines);
		k->excerpt = kp_arena_strdup(&r->arena, ex);
		free(ex);
		if (!lr->overlap)
			kp_validate_finding(r, KP_FIND_ERROR, STEP_SASS, kn, "no overlap: %s",
					    lr->reason);
		if (!lo->found) {
			kp_validate_finding(r, KP_FIND_NOTE, STEP_SASS, kn,
					    "no main loop in the original (%s): math not compared",
					    lo->reason);
		} else {
			char msg[256];
			if (!kp_sass_math_equal(lo, lr, msg, sizeof(msg)))
				kp_validate_finding(r, KP_FIND_ERROR, STEP_SASS, kn, "%s", msg);
			int lb = lo->counts[KP_SC_LDL], ln = lr->counts[KP_SC_LDL];
			int sb = lo->counts[KP_SC_STL], sn = lr->counts[KP_SC_STL];
			if (ln > lb || sn > sb)
				kp_validate_finding(
					r, KP_FIND_ERROR, STEP_SASS, kn,
					"new local-memory traffic in the main loop: LDL %d -> %d, "
					"STL %d -> %d",
					lb, ln, sb, sn);
		}
	}
	k->verdict = count_level(r, STEP_SASS, KP_FIND_ERROR) > errors ? "FAIL" : "PASS";
}

static void step_sass(kp_validate_result *r, const kp_validate_opts *o, const char *cubin_o,
		      const char *cubin_r)
{
	kp_step *s = &r->steps[1];
	kp_sass so = {0}, sr = {0};
	char why[256];
	if (disassemble(r, o, cubin_o, &so, why, sizeof(why)) != 0 ||
	    disassemble(r, o, cubin_r, &sr, why, sizeof(why)) != 0) {
		kp_validate_set_step(s, KP_STEP_SKIPPED, "%s", why);
		goto cleanup;
	}
	int judged = 0, unchanged = 0;
	for (int i = 0; i < r->nkernels; i++) {
		kp_validate_kernel *k = &r->kernels[i];
		if (!k->orig.present || !k->rew.present)
			continue;
		judge_kernel(r, k, &so, &sr, o->excerpt_lines > 0 ? o->excerpt_lines : 40);
		judged++;
		unchanged += k->unchanged;
	}
	if (kp_validate_first_error(r, STEP_SASS))
		fail_step(r, STEP_SASS);
	else if (judged == 0)
		kp_validate_set_step(s, KP_STEP_SKIPPED, "no kernel is present in both files");
	else if (unchanged == judged)
		kp_validate_set_step(
			s, KP_STEP_FAILED,
			"the SASS of every kernel is the same before and after: nothing was "
			"pipelined");
	else
		kp_validate_set_step(s, KP_STEP_PASSED, "%d kernel%s pipelined: loads overlap math",
				     judged - unchanged, judged - unchanged == 1 ? "" : "s");
cleanup:
	kp_sass_release(&so);
	kp_sass_release(&sr);
}

/* ---- driver ----------------------------------------------------------- */

/* nvcc wants sm_XX; "90" or "compute_90" name the table's entry. */
static const char *nvcc_arch_of(const kp_validate_opts *o)
{
	const kp_arch *a = kp_arch_find(o->arch);
	return strncmp(o->arch, "sm_", 3) == 0 ? o->arch : a ? a->name : o->arch;
}

int kp_validate_static(kp_validate_result *out, const kp_validate_opts *o)
{
	memset(out, 0, sizeof(*out));
	kp_validate_result *r = out;
	r->original = kp_arena_strdup(&r->arena, o->original);
	r->rewritten = kp_arena_strdup(&r->arena, o->rewritten);
	r->arch = kp_arena_strdup(&r->arena, o->arch);
	r->threads = o->threads > 0 ? o->threads : 256;
	static const char *const names[] = {"resources", "sass", "gpu-run", "benchmark",
					    "sanitizer"};
	for (int i = 0; i < 5; i++) {
		r->steps[i].name = names[i];
		kp_validate_set_step(&r->steps[i], KP_STEP_SKIPPED, "%s",
				     i < 2 ? "not run" : KP_VALIDATE_GPU_SKIP);
	}

	r->target = kp_arch_find(o->arch);
	const char *nvcc_arch = nvcc_arch_of(o);

	char *dir = kp_tempdir("validate");
	if (!dir) {
		kp_validate_set_step(&r->steps[0], KP_STEP_FAILED,
				     "cannot create a temporary directory in %s",
				     kp_tempdir_base());
		return KP_VALIDATE_ETEMP;
	}
	char *cubin_o = kp_arena_printf(&r->arena, "%s/original.cubin", dir);
	char *cubin_r = kp_arena_printf(&r->arena, "%s/rewritten.cubin", dir);

	kp_compile_opts co = {.nvcc = o->nvcc,
			      .arch = nvcc_arch,
			      .args = o->nvcc_args,
			      .nargs = o->nnvcc_args,
			      .cache_dir = o->cache_dir};
	kp_resources ro, rr;
	memset(&rr, 0, sizeof(rr));
	int rc = KP_VALIDATE_OK;
	int eo = kp_resources_compile(&ro, &co, o->original, cubin_o), er;
	if (eo == KP_RES_ENOTOOL) {
		kp_validate_set_step(&r->steps[0], KP_STEP_FAILED, "%s", ro.error);
		rc = KP_VALIDATE_ENOTOOL;
		goto cleanup;
	}
	er = kp_resources_compile(&rr, &co, o->rewritten, cubin_r);
	if (eo != KP_RES_OK || er != KP_RES_OK) {
		const kp_resources *bad = eo != KP_RES_OK ? &ro : &rr;
		kp_validate_set_step(&r->steps[0], KP_STEP_FAILED, "cannot compile %s: %s",
				     eo != KP_RES_OK ? o->original : o->rewritten, bad->error);
		r->compile_log = kp_arena_strdup(&r->arena, bad->log ? bad->log : "");
		kp_validate_set_step(&r->steps[1], KP_STEP_SKIPPED, "no cubin: compilation failed");
		goto cleanup;
	}

	const char *filt = pick_filt(o->nvcc, o->cxxfilt, &r->arena);
	kp_resources_demangle(&ro, filt);
	kp_resources_demangle(&rr, filt);
	step_resources(r, &ro, &rr, o->kernel);
	if (r->nkernels == 0)
		kp_validate_set_step(&r->steps[1], KP_STEP_SKIPPED, "no kernel to judge");
	else
		step_sass(r, o, cubin_o, cubin_r);

cleanup:
	kp_resources_release(&ro);
	kp_resources_release(&rr);
	kp_remove_tree(dir);
	free(dir);
	return rc;
}

int kp_validate_warm_cache(const kp_validate_opts *o)
{
	const char *nvcc_arch = nvcc_arch_of(o);
	char *dir = kp_tempdir("validate");
	if (!dir)
		return KP_VALIDATE_ETEMP;
	kp_strbuf cubin = KP_STRBUF_INIT;
	kp_strbuf_addf(&cubin, "%s/original.cubin", dir);
	kp_compile_opts co = {.nvcc = o->nvcc,
			      .arch = nvcc_arch,
			      .args = o->nvcc_args,
			      .nargs = o->nnvcc_args,
			      .cache_dir = o->cache_dir};
	kp_resources ro;
	int e = kp_resources_compile(&ro, &co, o->original, kp_strbuf_str(&cubin));
	kp_resources_release(&ro);
	kp_strbuf_release(&cubin);
	kp_remove_tree(dir);
	free(dir);
	return e == KP_RES_ENOTOOL ? KP_VALIDATE_ENOTOOL : KP_VALIDATE_OK;
}

void kp_validate_result_release(kp_validate_result *r)
{
	if (r->gpu && r->gpu_hooks)
		r->gpu_hooks->release(r->gpu);
	free(r->kernels);
	free(r->findings);
	kp_arena_release(&r->arena);
	memset(r, 0, sizeof(*r));
}

/* ---- rendering -------------------------------------------------------- */

/* The classes shown in the per-iteration table, in order. */
static const kp_sass_class shown[] = {KP_SC_LDGSTS, KP_SC_LDG,  KP_SC_LDGDEPBAR, KP_SC_DEPBAR,
				      KP_SC_BAR,    KP_SC_MATH, KP_SC_LDS,       KP_SC_STS,
				      KP_SC_LDL,    KP_SC_STL,  KP_SC_BULK,      KP_SC_SYNCS};

/* The first max_lines lines of a compiler log, indented. */
static void text_log(kp_strbuf *sb, const char *log, int max_lines)
{
	int n = 0;
	for (const char *p = log; *p; n++) {
		size_t len = strcspn(p, "\n");
		if (n == max_lines) {
			kp_strbuf_adds(sb, "  | ...\n");
			break;
		}
		kp_strbuf_adds(sb, "  | ");
		kp_strbuf_add(sb, p, len);
		kp_strbuf_addc(sb, '\n');
		p += len + (p[len] == '\n');
	}
}

static void text_findings(kp_strbuf *sb, const kp_validate_result *r, int step)
{
	for (int i = 0; i < r->nfindings; i++) {
		const kp_finding *f = &r->findings[i];
		if (f->step != step)
			continue;
		kp_strbuf_addf(sb, "  %s: ", level_name(f->level));
		if (f->kernel)
			kp_strbuf_addf(sb, "%s: ", f->kernel);
		kp_strbuf_addf(sb, "%s\n", f->message);
	}
}

static void text_counts_row(kp_strbuf *sb, const char *label, const kp_kernel_side *s)
{
	kp_strbuf_addf(sb, "    %-10s", label);
	if (!s->has_sass || !s->loop.found) {
		kp_strbuf_addf(sb, " (no main loop%s%s)\n", s->has_sass ? ": " : "",
			       s->has_sass ? s->loop.reason : "");
		return;
	}
	for (size_t c = 0; c < KP_ARRAY_LEN(shown); c++)
		kp_strbuf_addf(sb, " %*d", (int)strlen(kp_sass_class_name(shown[c])),
			       s->loop.counts[shown[c]]);
	kp_strbuf_addf(sb, "   /*%04x*/../*%04x*/\n", s->loop.begin_addr, s->loop.end_addr);
}

static void text_resources(kp_strbuf *sb, const kp_validate_kernel *k)
{
	kp_strbuf_addf(sb, "  %s\n", display_name(k));
	if (!k->orig.present || !k->rew.present) {
		kp_strbuf_addf(sb, "    only in the %s file\n",
			       k->orig.present ? "original" : "rewritten");
		return;
	}
	const kp_kernel_res *b = &k->orig.res, *n = &k->rew.res;
	kp_strbuf_addf(sb,
		       "    registers %d -> %d, static smem %d -> %d bytes, stack %d -> %d bytes, "
		       "spills (stores/loads) %d/%d -> %d/%d bytes\n",
		       b->registers, n->registers, b->smem, n->smem, b->stack_frame, n->stack_frame,
		       b->spill_stores, b->spill_loads, n->spill_stores, n->spill_loads);
	if (k->orig.occ.blocks_per_sm || k->rew.occ.blocks_per_sm)
		kp_strbuf_addf(
			sb, "    occupancy %d -> %d blocks/SM, %d -> %d warps/SM (limited by %s)\n",
			k->orig.occ.blocks_per_sm, k->rew.occ.blocks_per_sm,
			k->orig.occ.warps_per_sm, k->rew.occ.warps_per_sm,
			kp_limit_name(k->rew.occ.limiter));
}

static void text_sass(kp_strbuf *sb, const kp_validate_kernel *k)
{
	if (!k->orig.has_sass && !k->rew.has_sass)
		return;
	kp_strbuf_addf(sb, "  %s: %s\n", k->label, k->verdict);
	if (k->unchanged)
		return;
	kp_strbuf_addf(sb, "    %-10s", "");
	for (size_t c = 0; c < KP_ARRAY_LEN(shown); c++)
		kp_strbuf_addf(sb, " %s", kp_sass_class_name(shown[c]));
	kp_strbuf_adds(sb, "   main loop\n");
	text_counts_row(sb, "original", &k->orig);
	text_counts_row(sb, "rewritten", &k->rew);
	if (k->rew.loop.found)
		kp_strbuf_addf(sb, "    %s\n", k->rew.loop.reason);
	if (k->excerpt && k->excerpt[0]) {
		kp_strbuf_addf(sb, "    rewritten main loop%s:\n",
			       k->rew.loop.overlap_load >= 0 ? " ('>' marks the overlapping pair)"
							     : "");
		for (const char *p = k->excerpt; *p;) {
			size_t len = strcspn(p, "\n");
			kp_strbuf_adds(sb, "  ");
			kp_strbuf_add(sb, p, len);
			kp_strbuf_addc(sb, '\n');
			p += len + (p[len] == '\n');
		}
	}
}

char *kp_validate_render_text(const kp_validate_result *r)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "kpipe validate: %s -> %s (%s, %d threads per block)\n", r->original,
		       r->rewritten, r->arch, r->threads);
	for (int s = 0; s < 2; s++) {
		const kp_step *st = &r->steps[s];
		kp_strbuf_addf(&sb, "\nstep %d  %-9s  %s: %s", s + 1, st->name,
			       kp_step_status_name(st->status), st->reason);
		if (s == 1 && r->disassembler)
			kp_strbuf_addf(&sb, " [%s]", r->disassembler);
		kp_strbuf_addc(&sb, '\n');
		if (s == 0 && r->compile_log)
			text_log(&sb, r->compile_log, 20);
		for (int i = 0; i < r->nkernels; i++) {
			if (s == 0)
				text_resources(&sb, &r->kernels[i]);
			else
				text_sass(&sb, &r->kernels[i]);
		}
		text_findings(&sb, r, s + 1);
	}
	int code = kp_validate_exit_code(r);
	const char *verdict = code == 0 ? "PASSED" : code == 4 ? "FAILED" : "INCOMPLETE";
	if (!r->gpu) {
		kp_strbuf_adds(&sb, "\n");
		for (int s = 2; s < 5; s++)
			kp_strbuf_addf(&sb, "step %d  %-9s  skipped: %s\n", s + 1, r->steps[s].name,
				       KP_VALIDATE_GPU_SKIP);
		kp_strbuf_addf(&sb, "\nresult: %s (static steps 1-2; the GPU steps did not run)\n",
			       verdict);
		return kp_strbuf_detach(&sb);
	}
	int skipped = 0, not_requested = 0;
	for (int s = 0; s < 5; s++) {
		const kp_step *st = &r->steps[s];
		skipped += st->status == KP_STEP_SKIPPED && !st->not_requested;
		not_requested += st->not_requested;
		if (s < 2)
			continue;
		kp_strbuf_addf(&sb, "\nstep %d  %-9s  %s: %s\n", s + 1, st->name,
			       kp_step_status_name(st->status), st->reason);
		if (r->gpu && r->gpu_hooks)
			r->gpu_hooks->render_text(&sb, r, s + 1);
		text_findings(&sb, r, s + 1);
	}
	kp_strbuf_addf(&sb, "\nresult: %s", verdict);
	if (code == 6)
		kp_strbuf_addf(&sb, " (%d step%s skipped)", skipped, skipped == 1 ? "" : "s");
	else if (code == 0 && not_requested)
		kp_strbuf_addf(&sb, " (%d step%s not requested)", not_requested,
			       not_requested == 1 ? "" : "s");
	kp_strbuf_adds(&sb, "\n");
	return kp_strbuf_detach(&sb);
}

static cJSON *json_side(const kp_kernel_side *s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "present", s->present);
	if (s->present) {
		cJSON_AddNumberToObject(o, "registers", s->res.registers);
		cJSON_AddNumberToObject(o, "smem_static", s->res.smem);
		cJSON_AddNumberToObject(o, "stack_frame", s->res.stack_frame);
		cJSON_AddNumberToObject(o, "spill_stores", s->res.spill_stores);
		cJSON_AddNumberToObject(o, "spill_loads", s->res.spill_loads);
		cJSON_AddNumberToObject(o, "blocks_per_sm", s->occ.blocks_per_sm);
		cJSON_AddNumberToObject(o, "warps_per_sm", s->occ.warps_per_sm);
		cJSON_AddStringToObject(o, "occupancy_limit", kp_limit_name(s->occ.limiter));
	}
	if (s->has_sass) {
		const kp_sass_loop *l = &s->loop;
		cJSON *j = cJSON_AddObjectToObject(o, "main_loop");
		cJSON_AddBoolToObject(j, "found", l->found);
		cJSON_AddStringToObject(j, "reason", l->reason);
		if (l->found) {
			char buf[32];
			snprintf(buf, sizeof(buf), "0x%04x", l->begin_addr);
			cJSON_AddStringToObject(j, "begin", buf);
			snprintf(buf, sizeof(buf), "0x%04x", l->end_addr);
			cJSON_AddStringToObject(j, "end", buf);
			cJSON_AddNumberToObject(j, "backward_branches", l->nbackward);
			cJSON_AddBoolToObject(j, "overlap", l->overlap);
			cJSON_AddNumberToObject(j, "overlapped_math", l->overlap_nmath);
			cJSON *c = cJSON_AddObjectToObject(j, "counts");
			for (size_t k = 0; k < KP_ARRAY_LEN(shown); k++)
				cJSON_AddNumberToObject(c, kp_sass_class_name(shown[k]),
							l->counts[shown[k]]);
		}
	}
	return o;
}

char *kp_validate_render_json(const kp_validate_result *r)
{
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "original", r->original);
	cJSON_AddStringToObject(root, "rewritten", r->rewritten);
	cJSON_AddStringToObject(root, "arch", r->arch);
	cJSON_AddNumberToObject(root, "threads", r->threads);
	if (r->disassembler)
		cJSON_AddStringToObject(root, "disassembler", r->disassembler);
	else
		cJSON_AddNullToObject(root, "disassembler");

	cJSON *steps = cJSON_AddArrayToObject(root, "steps");
	for (int s = 0; s < 5; s++) {
		const kp_step *st = &r->steps[s];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "step", s + 1);
		cJSON_AddStringToObject(o, "name", st->name);
		cJSON_AddStringToObject(o, "status", kp_step_status_name(st->status));
		cJSON_AddStringToObject(o, "reason", st->reason);
		cJSON_AddBoolToObject(o, "implemented", 1);
		/* whether the status counts towards exit_code */
		cJSON_AddBoolToObject(o, "counted", (s < 2 || r->gpu) && !st->not_requested);
		cJSON_AddItemToArray(steps, o);
	}

	cJSON *ks = cJSON_AddArrayToObject(root, "kernels");
	for (int i = 0; i < r->nkernels; i++) {
		const kp_validate_kernel *k = &r->kernels[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", k->name);
		if (k->demangled)
			cJSON_AddStringToObject(o, "demangled", k->demangled);
		else
			cJSON_AddNullToObject(o, "demangled");
		cJSON_AddStringToObject(o, "label", k->label);
		cJSON_AddStringToObject(o, "verdict", k->verdict);
		cJSON_AddItemToObject(o, "original", json_side(&k->orig));
		cJSON_AddItemToObject(o, "rewritten", json_side(&k->rew));
		if (k->excerpt)
			cJSON_AddStringToObject(o, "excerpt", k->excerpt);
		cJSON_AddItemToArray(ks, o);
	}

	cJSON *fs = cJSON_AddArrayToObject(root, "findings");
	for (int i = 0; i < r->nfindings; i++) {
		const kp_finding *f = &r->findings[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "level", level_name(f->level));
		cJSON_AddNumberToObject(o, "step", f->step);
		if (f->kernel)
			cJSON_AddStringToObject(o, "kernel", f->kernel);
		else
			cJSON_AddNullToObject(o, "kernel");
		cJSON_AddStringToObject(o, "message", f->message);
		cJSON_AddItemToArray(fs, o);
	}
	if (r->compile_log)
		cJSON_AddStringToObject(root, "compile_log", r->compile_log);
	if (r->gpu && r->gpu_hooks)
		cJSON_AddItemToObject(root, "gpu", (cJSON *)r->gpu_hooks->render_json(r));
	else
		cJSON_AddNullToObject(root, "gpu");
	cJSON_AddNumberToObject(root, "exit_code", kp_validate_exit_code(r));

	char *txt = cJSON_Print(root);
	cJSON_Delete(root);
	/* cJSON allocates with malloc by default: hand over as is, plus "\n". */
	size_t n = strlen(txt);
	char *outp = kp_xmalloc(n + 2);
	memcpy(outp, txt, n);
	outp[n] = '\n';
	outp[n + 1] = '\0';
	cJSON_free(txt);
	return outp;
}
