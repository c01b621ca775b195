/*
 * probe.c - compiles the original file once with nvcc (ptxas -v) and
 * answers --variant auto's questions: how many registers does the kernel
 * of this loop use, and how many warps per SM stay resident; and the same
 * once a transform has rewritten the loop (probe.h).
 */
#include "probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_env.h"
#include "scrub.h"
#include "util.h"

/* nvcc, looked for once. */
static int have_nvcc(kp_ptxas_probe *p)
{
	if (!p->looked) {
		p->looked = 1;
		kp_cuda_env env = KP_CUDA_ENV_INIT;
		if (kp_cuda_env_find(&env, p->cuda_path) == 0 && env.nvcc)
			p->nvcc = kp_xstrdup(env.nvcc);
		else
			snprintf(p->error, sizeof(p->error), "%s",
				 env.error ? env.error : "nvcc not found");
		kp_cuda_env_release(&env);
	}
	return p->nvcc != NULL;
}

/* Whether the budget allows compiling f (a rewrite of it when `rewrite`);
 * p->error says why not. */
static int within_budget(kp_ptxas_probe *p, const kp_file *f, int rewrite)
{
	const char *path = f->path ? f->path : "";
	if (!p->budget_path || strcmp(p->budget_path, path) != 0) {
		free(p->budget_path);
		p->budget_path = kp_xstrdup(path);
		p->nrewrites = 0;
	}
	if (f->nkernels > KP_PROBE_MAX_KERNELS) {
		snprintf(p->error, sizeof(p->error),
			 "the file has %d kernels and ptxas is asked only about files of up "
			 "to %d",
			 f->nkernels, KP_PROBE_MAX_KERNELS);
		return 0;
	}
	if (rewrite && p->nrewrites >= KP_PROBE_MAX_REWRITES) {
		snprintf(p->error, sizeof(p->error),
			 "ptxas was already asked about %d rewrites of this file, the most "
			 "it is asked per file",
			 KP_PROBE_MAX_REWRITES);
		return 0;
	}
	return 1;
}

/* Compiles `text` (f's file, or a rewrite of it: its includes are found
 * next to f) into b, once per text, within the budget. */
static int compile_once(kp_ptxas_probe *p, kp_probe_build *b, const kp_file *f, const char *text,
			size_t len, const kp_arch *a)
{
	p->last_ecompile = 0;
	if (!have_nvcc(p))
		return 0;
	unsigned long long h = kp_fnv1a64(text, len, KP_FNV1A64_INIT) ^
			       kp_fnv1a64(a->name, strlen(a->name), KP_FNV1A64_INIT);
	if (b->compiled && b->hash == h) {
		if (b->ecompile)
			snprintf(p->error, sizeof(p->error), "%s", b->error);
		p->last_ecompile = b->ecompile;
		return b->compiled > 0;
	}
	if (!within_budget(p, f, b == &p->var))
		return 0;
	if (b == &p->var)
		p->nrewrites++;
	kp_resources_release(&b->res);
	memset(&b->res, 0, sizeof(b->res));
	b->hash = h;
	b->compiled = -1;
	b->ecompile = 0;
	char *dir = kp_tempdir("probe");
	if (!dir) {
		snprintf(p->error, sizeof(p->error), "no temporary directory");
		return 0;
	}
	kp_strbuf src = KP_STRBUF_INIT, cubin = KP_STRBUF_INIT, inc = KP_STRBUF_INIT;
	const char *stem = b == &p->var ? "rewrite" : "original";
	kp_strbuf_addf(&src, "%s/%s.cu", dir, stem);
	kp_strbuf_addf(&cubin, "%s/%s.cubin", dir, stem);
	char *fdir = kp_dir_of_real_path(f->path);
	kp_strbuf_addf(&inc, "-I%s", fdir ? fdir : ".");
	free(fdir);
	FILE *fp = fopen(kp_strbuf_str(&src), "wb");
	int ok = fp && fwrite(text, 1, len, fp) == len;
	if (fp && fclose(fp) != 0)
		ok = 0;
	if (ok) {
		const char **args = kp_xcalloc((size_t)p->nargs + 2, sizeof(char *));
		args[0] = kp_strbuf_str(&inc);
		for (int i = 0; i < p->nargs; i++)
			args[i + 1] = p->args[i];
		kp_compile_opts co = {p->nvcc, a->name, args, p->nargs + 1, NULL};
		int rc = kp_resources_compile(&b->res, &co, kp_strbuf_str(&src),
					      kp_strbuf_str(&cubin));
		free(args);
		if (rc == KP_RES_OK)
			b->compiled = 1;
		else {
			/* nvcc names the copy in the temporary directory: the
			 * message (and the comment made from it) names the
			 * file, the same in every run */
			kp_strbuf o = KP_STRBUF_INIT;
			kp_strbuf_addf(&o, "%s/original.cu", dir);
			kp_scrub(b->res.error, sizeof(b->res.error), kp_strbuf_str(&o),
				 f->path ? f->path : "original.cu");
			kp_strbuf_release(&o);
			kp_scrub(b->res.error, sizeof(b->res.error), dir, "<probe>");
			snprintf(p->error, sizeof(p->error), "nvcc: %.500s", b->res.error);
		}
		if (rc == KP_RES_ECOMPILE) {
			b->ecompile = p->last_ecompile = 1;
			snprintf(b->error, sizeof(b->error), "%s", p->error);
		}
	} else
		snprintf(p->error, sizeof(p->error), "cannot write the text for nvcc");
	kp_remove_tree(dir);
	free(dir);
	kp_strbuf_release(&src);
	kp_strbuf_release(&cubin);
	kp_strbuf_release(&inc);
	return b->compiled > 0;
}

/* What is compiled for f's text: the text itself; for a project header,
 * which no file compiles alone, also a reference to every instantiation
 * of its kernel templates the translation unit made (their arguments as
 * spelled there), which makes nvcc compile them.  Caller frees. */
static char *unit_text(const kp_file *f, const char *text, size_t len, size_t *outlen)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_add(&sb, text, len);
	int n = 0;
	for (int i = 0; f->abs_path && i < f->nkernels; i++) {
		const kp_kernel *k = f->kernels[i];
		if (!k->is_template || k->is_device)
			continue;
		for (int j = 0; j < k->ninst; j++)
			kp_strbuf_addf(&sb, "\nstatic void *kp_probe_ref_%d = (void *)&%s<%s>;",
				       n++, k->qualified ? k->qualified : k->name, k->inst_args[j]);
	}
	if (n)
		kp_strbuf_adds(&sb, "\n");
	*outlen = sb.len;
	return kp_strbuf_detach(&sb);
}

/* l's kernel in build b: its registers and resident warps. */
/* The entry ptxas reports for l: its kernel, or for a K-loop in a
 * __device__ function its first calling kernel. */
static const char *entry_name(const kp_loop *l)
{
	const kp_kernel *k = l->kernel;
	return k->is_device && k->ncallers > 0 ? k->caller_k[0]->name : k->name;
}

static int kernel_facts(kp_ptxas_probe *p, const kp_probe_build *b, const kp_loop *l,
			const kp_arch *a, kp_auto_facts *out)
{
	const char *name = entry_name(l);
	for (int i = 0; i < b->res.nkernels; i++) {
		const kp_kernel_res *k = &b->res.kernels[i];
		if (!k->is_entry || !kp_resources_name_matches(k, name))
			continue;
		int threads = l->threads > 0 ? l->threads : 256;
		kp_occupancy occ = kp_arch_occupancy(a, threads, k->registers, k->smem);
		out->regs = k->registers;
		out->warps = occ.warps_per_sm;
		out->threads = threads;
		return 1;
	}
	snprintf(p->error, sizeof(p->error), "ptxas reported no kernel named '%s'", name);
	out->why = p->error;
	return 0;
}

static int probe_warps(const kp_auto_probe *base, const kp_file *f, const kp_loop *l,
		       const kp_arch *a, kp_auto_facts *out)
{
	kp_ptxas_probe *p = (kp_ptxas_probe *)base;
	memset(out, 0, sizeof(*out));
	if (!within_budget(p, f, 0)) { /* before the text: it is the whole file */
		out->why = p->error;
		return 0;
	}
	size_t n;
	char *text = unit_text(f, f->src, f->len, &n);
	int ok = compile_once(p, &p->orig, f, text, n, a);
	free(text);
	if (!ok) {
		out->why = p->error;
		out->compile_error = p->last_ecompile;
		return 0;
	}
	return kernel_facts(p, &p->orig, l, a, out);
}

/* A kernel template compiled for several instantiations: each of the
 * variant's entries paired with the original's of the same (mangled)
 * name, and the pair that loses the largest share of its resident warps
 * kept in out (matmul_staged_loader: `double` 32 -> 32 warps, `float` 64
 * -> 32; the first listed is `double`). */
static void paired_facts(const kp_probe_build *o, const kp_probe_build *v, const kp_loop *l,
			 const kp_arch *a, kp_auto_facts *out)
{
	const char *name = entry_name(l);
	int threads = l->threads > 0 ? l->threads : 256;
	double worst = 2.0;
	for (int i = 0; o->compiled > 0 && i < v->res.nkernels; i++) {
		const kp_kernel_res *kv = &v->res.kernels[i];
		if (!kv->is_entry || !kp_resources_name_matches(kv, name) || !kv->name)
			continue;
		for (int j = 0; j < o->res.nkernels; j++) {
			const kp_kernel_res *ko = &o->res.kernels[j];
			if (!ko->is_entry || !ko->name || strcmp(ko->name, kv->name))
				continue;
			kp_occupancy ov = kp_arch_occupancy(a, threads, kv->registers, kv->smem);
			kp_occupancy oo = kp_arch_occupancy(a, threads, ko->registers, ko->smem);
			if (oo.warps_per_sm <= 0)
				continue;
			double r = (double)ov.warps_per_sm / oo.warps_per_sm;
			if (r < worst) {
				worst = r;
				out->regs = kv->registers;
				out->warps = ov.warps_per_sm;
				out->base_regs = ko->registers;
				out->base_warps = oo.warps_per_sm;
			}
		}
	}
}

/* The same once t has rewritten l alone (no comments: they change
 * nothing ptxas sees). */
static int probe_variant(const kp_auto_probe *base, kp_file *f, const kp_loop *l, const kp_arch *a,
			 const kp_transform *t, int stages, kp_auto_facts *out)
{
	kp_ptxas_probe *p = (kp_ptxas_probe *)base;
	memset(out, 0, sizeof(*out));
	if (!within_budget(p, f, 1)) {
		out->why = p->error;
		return 0;
	}
	kp_xform_opts xo = {a, stages, "probe", 0, 1};
	kp_edits ed = {0};
	const char *err = NULL;
	char *text = NULL;
	size_t len = 0;
	int ok = !t->apply(f, l, &xo, &ed, &err) &&
		 !kp_edits_apply(&ed, f->src, f->len, &text, &len);
	kp_edits_release(&ed);
	if (!ok) {
		snprintf(p->error, sizeof(p->error), "the %s rewrite failed: %s", t->name,
			 err ? err : "overlapping edits");
		out->why = p->error;
		free(text);
		return 0;
	}
	size_t n;
	char *unit = unit_text(f, text, len, &n);
	ok = compile_once(p, &p->var, f, unit, n, a);
	free(unit);
	free(text);
	if (!ok) {
		out->why = p->error;
		out->compile_error = p->last_ecompile;
		return 0;
	}
	if (!kernel_facts(p, &p->var, l, a, out))
		return 0;
	paired_facts(&p->orig, &p->var, l, a, out);
	return 1;
}

/* The parse flags nvcc also takes. */
static int nvcc_flag(const char *s)
{
	static const char *const pre[] = {"-I", "-D", "-U", "-std=", "-isystem", "-include", NULL};
	for (int i = 0; pre[i]; i++)
		if (!strncmp(s, pre[i], strlen(pre[i])))
			return 1;
	return 0;
}

void kp_ptxas_probe_init(kp_ptxas_probe *p, const char *cuda_path, const char *const *args,
			 int nargs)
{
	memset(p, 0, sizeof(*p));
	p->base.facts = probe_warps;
	p->base.variant = probe_variant;
	p->cuda_path = cuda_path ? kp_xstrdup(cuda_path) : NULL;
	p->args = kp_xcalloc((size_t)nargs + 1, sizeof(char *));
	for (int i = 0; i < nargs; i++) {
		const char *s = args[i];
		/* "-I" "dir" as two arguments */
		int two = (!strcmp(s, "-I") || !strcmp(s, "-D") || !strcmp(s, "-U") ||
			   !strcmp(s, "-isystem") || !strcmp(s, "-include")) &&
			  i + 1 < nargs;
		if (two) {
			p->args[p->nargs++] = kp_xstrdup(s);
			p->args[p->nargs++] = kp_xstrdup(args[++i]);
		} else if (nvcc_flag(s))
			p->args[p->nargs++] = kp_xstrdup(s);
	}
}

void kp_ptxas_probe_release(kp_ptxas_probe *p)
{
	free(p->nvcc);
	free(p->budget_path);
	free(p->cuda_path);
	for (int i = 0; i < p->nargs; i++)
		free((char *)p->args[i]);
	free(p->args);
	kp_resources_release(&p->orig.res);
	kp_resources_release(&p->var.res);
	memset(p, 0, sizeof(*p));
}
