/*
 * probe.c - compiles the original file once with nvcc (ptxas -v) and
 * answers --variant auto's questions: how many registers does the kernel
 * of this loop use, and how many warps per SM stay resident; and the same
 * once a transform has rewritten the loop (probe.h).
 */
#define _GNU_SOURCE
#include "probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_env.h"
#include "pch.h"
#include "prep.h"
#include "scrub.h"
#include "util.h"

#include <sys/stat.h>
#include <unistd.h>

/* nvcc, looked for once. */
static int have_nvcc(kp_ptxas_probe *p)
{
	if (!p->looked) {
		p->looked = 1;
		kp_cuda_env env = KP_CUDA_ENV_INIT;
		if (kp_cuda_env_find_nvcc(&env, p->cuda_path) == 0 && env.nvcc)
			p->nvcc = kp_xstrdup(env.nvcc);
		else
			snprintf(p->error, sizeof(p->error), "%s",
				 env.error ? env.error : "nvcc not found");
		kp_cuda_env_release(&env);
	}
	return p->nvcc != NULL;
}

/* Whether the budget allows compiling f (a rewrite of it when `rewrite`);
 * p->error says why not.  A project header whose K-loop functions are
 * called from the .cu that includes it (kp_kernel.call_decl) is not
 * compiled: it need not compile alone, and its entries are that file's. */
static int within_budget(kp_ptxas_probe *p, const kp_file *f, int rewrite)
{
	for (int i = 0; f->abs_path && i < f->nkernels; i++)
		if (f->kernels[i]->call_decl) {
			snprintf(p->error, sizeof(p->error),
				 "the K-loop is in a __device__ function of a project header, "
				 "whose kernels are in the file that includes it");
			return 0;
		}
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

/* ---- the probe cache: ptxas's report kept between runs -------------
 *
 * `analyze`, then `rewrite`, then an editor's preview ask ptxas the same
 * questions about the same text.  The report (nvcc -Xptxas -v's output,
 * all the probe reads) is kept in <cache>/probe/<key>.log, the key hashing
 * the text compiled, every nvcc argument, the target, nvcc itself (path,
 * size, time) and the files the translation unit includes (kp_file.
 * deps_hash: path, size and time of each).  Failed compilations are not
 * kept.  KPIPE_CACHE_DIR=off (or --no-pch) turns it off with the header
 * cache; past KP_PROBE_CACHE_MAX reports the oldest half go. */

#define KP_PROBE_CACHE_MAX 4000

static unsigned long long mix_str(const char *s, unsigned long long h)
{
	return kp_fnv1a64(s ? s : "", s ? strlen(s) + 1 : 1, h);
}

static char *cache_entry(const kp_ptxas_probe *p, const kp_file *f, const char *text, size_t len,
			 const kp_arch *a, const char *inc)
{
	if (!f->deps_hash) /* a header's model: its includes were not hashed */
		return NULL;
	char *dir = kp_cache_subdir("probe");
	if (!dir)
		return NULL;
	unsigned long long h = KP_FNV1A64_INIT, g = 0x84222325cbf29ce4ULL;
	struct stat st;
	long long nv[2] = {0, 0};
	if (stat(p->nvcc, &st) == 0) {
		nv[0] = (long long)st.st_size;
		nv[1] = (long long)st.st_mtim.tv_sec;
	}
	h = mix_str(p->nvcc, h);
	h = kp_fnv1a64(nv, sizeof(nv), h);
	h = mix_str(a->name, h);
	h = mix_str(inc, h);
	for (int i = 0; i < p->nargs; i++)
		h = mix_str(p->args[i], h);
	h = kp_fnv1a64(&f->deps_hash, sizeof(f->deps_hash), h);
	g = kp_fnv1a64(text, len, g ^ h);
	h = kp_fnv1a64(text, len, h);
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "%s/%016llx%016llx.log", dir, h, g);
	free(dir);
	return kp_strbuf_detach(&sb);
}

/* b from a kept report; 1 when there was one. */
static int cache_get(kp_probe_build *b, const char *entry)
{
	char *log = NULL;
	size_t n = 0;
	if (!entry || kp_read_file(entry, &log, &n) != 0)
		return 0;
	b->res.log = kp_arena_strdup(&b->res.arena, log);
	b->res.status = 0;
	kp_resources_parse(&b->res, b->res.log);
	free(log);
	return 1;
}

static void cache_put(const kp_probe_build *b, const char *entry)
{
	if (entry && b->res.log)
		kp_cache_put(entry, b->res.log, strlen(b->res.log), ".log", KP_PROBE_CACHE_MAX);
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
		if (b == &p->var && !b->counted) { /* filled by pair() */
			b->counted = 1;
			p->nrewrites++;
		}
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
	b->counted = 1;
	b->hash = h;
	b->compiled = -1;
	b->ecompile = 0;
	kp_strbuf src = KP_STRBUF_INIT, cubin = KP_STRBUF_INIT, inc = KP_STRBUF_INIT;
	char *fdir = kp_dir_of_real_path(f->path);
	kp_strbuf_addf(&inc, "-I%s", fdir ? fdir : ".");
	free(fdir);
	char *entry = cache_entry(p, f, text, len, a, kp_strbuf_str(&inc));
	char *dir = NULL;
	if (cache_get(b, entry)) {
		b->compiled = 1;
		goto done;
	}
	dir = kp_tempdir("probe");
	if (!dir) {
		snprintf(p->error, sizeof(p->error), "no temporary directory");
		goto done;
	}
	const char *stem = b == &p->var ? "rewrite" : "original";
	kp_strbuf_addf(&src, "%s/%s.cu", dir, stem);
	kp_strbuf_addf(&cubin, "%s/%s.cubin", dir, stem);
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
		if (rc == KP_RES_OK) {
			b->compiled = 1;
			cache_put(b, entry);
		} else {
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
done:
	free(dir);
	free(entry);
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
			const kp_arch *a, long long dyn, kp_auto_facts *out)
{
	const char *name = entry_name(l);
	for (int i = 0; i < b->res.nkernels; i++) {
		const kp_kernel_res *k = &b->res.kernels[i];
		if (!k->is_entry || !kp_resources_name_matches(k, name))
			continue;
		int threads = l->threads > 0 ? l->threads : 256;
		kp_occupancy occ =
			kp_arch_occupancy(a, threads, k->registers, (int)(k->smem + dyn));
		out->regs = k->registers;
		out->warps = occ.warps_per_sm;
		out->threads = threads;
		out->smem = k->smem;
		for (int j = i; j < b->res.nkernels; j++) { /* every instantiation */
			const kp_kernel_res *x = &b->res.kernels[j];
			int sp = x->spill_stores + x->spill_loads;
			if (x->is_entry && kp_resources_name_matches(x, name) && sp > out->spills)
				out->spills = sp;
		}
		return 1;
	}
	snprintf(p->error, sizeof(p->error), "ptxas reported no kernel named '%s'", name);
	out->why = p->error;
	return 0;
}

/* `text` (f's, or a rewrite of it) compiled into b, and l's kernel's facts
 * in it, its resident warps counting `dyn` bytes of dynamic shared memory
 * per block; 0 with out->why when unknown.  out is zeroed, the budget
 * checked. */
static int build_facts(kp_ptxas_probe *p, kp_probe_build *b, const kp_file *f, const char *text,
		       size_t len, const kp_loop *l, const kp_arch *a, long long dyn,
		       kp_auto_facts *out)
{
	memset(out, 0, sizeof(*out));
	/* before the text: it is the whole file */
	if (!within_budget(p, f, b == &p->var)) {
		out->why = p->error;
		return 0;
	}
	size_t n;
	char *unit = unit_text(f, text, len, &n);
	int ok = compile_once(p, b, f, unit, n, a);
	free(unit);
	if (!ok) {
		out->why = p->error;
		out->compile_error = p->last_ecompile;
		return 0;
	}
	return kernel_facts(p, b, l, a, dyn, out);
}

static int probe_warps(const kp_auto_probe *base, const kp_file *f, const kp_loop *l,
		       const kp_arch *a, kp_auto_facts *out)
{
	kp_ptxas_probe *p = (kp_ptxas_probe *)base;
	return build_facts(p, &p->orig, f, f->src, f->len, l, a, 0, out);
}

/* A kernel template compiled for several instantiations: each of the
 * variant's entries paired with the original's of the same (mangled)
 * name, and the pair that loses the largest share of its resident warps
 * kept in out (matmul_staged_loader: `double` 32 -> 32 warps, `float` 64
 * -> 32; the first listed is `double`). */
static void paired_facts(const kp_probe_build *o, const kp_probe_build *v, long long vdyn,
			 const kp_loop *l, const kp_arch *a, kp_auto_facts *out)
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
			kp_occupancy ov = kp_arch_occupancy(a, threads, kv->registers,
							    (int)(kv->smem + vdyn));
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
				out->smem = kv->smem;
				out->base_smem = ko->smem;
			}
		}
	}
}

/* The same for text, a rewrite of f's whole text whose launches pass
 * `dyn` bytes of dynamic shared memory for its tiles (0: none). */
static int rewrite_facts(kp_ptxas_probe *p, kp_file *f, const kp_loop *l, const kp_arch *a,
			 const char *text, size_t len, long long dyn, kp_auto_facts *out)
{
	if (!build_facts(p, &p->var, f, text, len, l, a, dyn, out))
		return 0;
	paired_facts(&p->orig, &p->var, dyn, l, a, out);
	return 1;
}

/* text(): a whole rewrite, asked as it is (occ_bound.c) */
static int probe_text(const kp_auto_probe *base, kp_file *f, const kp_loop *l, const kp_arch *a,
		      const char *text, size_t len, kp_auto_facts *out)
{
	return rewrite_facts((kp_ptxas_probe *)base, f, l, a, text, len, 0, out);
}

/* f's text once t has rewritten l alone (no comments: they change
 * nothing ptxas sees), and the edits (ed, the caller's) that made it;
 * NULL with p->error when the rewrite fails. */
static char *variant_text(kp_ptxas_probe *p, kp_file *f, const kp_loop *l, const kp_arch *a,
			  const kp_transform *t, int stages, int dynamic, kp_edits *ed, size_t *len)
{
	kp_xform_opts xo = {a, stages, "probe", dynamic, 1};
	const char *err = NULL;
	char *text = NULL;
	*len = 0;
	if (!t->apply(f, l, &xo, ed, &err) && !kp_edits_apply(ed, f->src, f->len, &text, len))
		return text;
	snprintf(p->error, sizeof(p->error), "the %s rewrite failed: %s", t->name,
		 err ? err : "overlapping edits");
	free(text);
	return NULL;
}

/* The same once t has rewritten l alone. */
static int probe_variant(const kp_auto_probe *base, kp_file *f, const kp_loop *l, const kp_arch *a,
			 const kp_transform *t, int stages, long long dyn_bytes, kp_auto_facts *out)
{
	kp_ptxas_probe *p = (kp_ptxas_probe *)base;
	memset(out, 0, sizeof(*out)); /* the budget: rewrite_facts' */
	kp_edits ed = {0};
	size_t len = 0;
	char *text = variant_text(p, f, l, a, t, stages, dyn_bytes > 0, &ed, &len);
	kp_edits_release(&ed);
	if (!text) {
		out->why = p->error;
		return 0;
	}
	int ok = rewrite_facts(p, f, l, a, text, len, dyn_bytes > 0 ? dyn_bytes : 0, out);
	free(text);
	return ok;
}

/* ---- one compilation for both -----------------------------------------
 *
 * staging_occupancy (auto.c) and regs_check (launch_check.c) ask about the
 * original and about its rewrite: two nvcc runs of 0.35 s of CPU each,
 * most of it cicc parsing the CUDA headers.  Where the rewrite changes the
 * kernel's definition alone, one file holds both: the original text, then
 * the rewritten definition under another name (NAME_kp_probe_v, with a
 * reference to each instantiation the file makes of a template), compiled
 * once.  ptxas compiles each entry on its own, so the original's entries
 * report what they would alone, and the copy's what the rewrite's kernel
 * would; its names are mapped back (`_Z<n>NAME_kp_probe_v...` ->
 * `_Z<n>NAME...`) and the two builds filled as two compilations would
 * have.  It is not done, and the two compilations are, when the answer
 * could differ:
 * - an edit outside the kernel's definition (a helper, an include, a
 *   launch), a kernel in a namespace or a class, a __device__ function, a
 *   project header, the name anywhere before the definition (a
 *   declaration, which may carry __launch_bounds__) or more than once in
 *   it (a reference to itself);
 * - a template the file does not instantiate;
 * - the combined file does not compile, or the copy's entries are not
 *   exactly the original kernel's (an extern "C" kernel, an instantiation
 *   missed);
 * - ptxas reports a called (not inlined) function: with two callers the
 *   inliner may decide otherwise than with one. */

#define PAIR_SUFFIX "_kp_probe_v"

/* The offsets of identifier `id` in the blanked text s[0, n) from `from`:
 * how many there are. */
static int count_ident(const char *s, size_t from, size_t n, const char *id)
{
	size_t il = strlen(id);
	int c = 0;
	for (const char *q = s + from; (q = memmem(q, n - (size_t)(q - s), id, il));) {
		size_t o = (size_t)(q - s);
		if ((o == 0 || !kp_is_ident_char(s[o - 1])) &&
		    (o + il >= n || !kp_is_ident_char(s[o + il])))
			c++;
		q += il;
		if ((size_t)(q - s) >= n)
			break;
	}
	return c;
}

/* The kernel's rewritten definition as it lies in the variant text (its
 * name changed to NAME PAIR_SUFFIX), with the template references; NULL
 * when the edits are not all inside the definition or the kernel is not
 * one pair() handles.  Caller frees. */
static char *pair_copy(const kp_file *f, const kp_kernel *k, const kp_edits *ed, const char *vtext,
		       size_t vlen)
{
	size_t nl = strlen(k->name);
	if (f->abs_path || k->is_device || k->home || k->error || !k->name_off ||
	    (k->qualified && strcmp(k->qualified, k->name)) || k->begin >= k->end ||
	    k->end > f->len || k->name_off < k->begin || k->name_off + nl > k->end ||
	    (k->is_template && k->ninst <= 0) || strstr(f->src, PAIR_SUFFIX))
		return NULL;
	long delta_name = 0, delta = 0;
	for (int i = 0; i < ed->n; i++) {
		const kp_edit *e = &ed->v[i];
		int inside = e->off > k->begin &&
			     (e->len ? e->off + e->len <= k->end : e->off < k->end);
		if (!inside || (e->off < k->name_off + nl && e->off + e->len > k->name_off) ||
		    (!e->len && e->off > k->name_off && e->off < k->name_off + nl))
			return NULL;
		long d = (long)strlen(e->text) - (long)e->len;
		delta += d;
		if (e->off + e->len <= k->name_off) /* an insertion there: before it */
			delta_name += d;
	}
	char *blank = kp_prep_blank(f->src, f->len);
	int once = count_ident(blank, 0, k->end, k->name) == 1 &&
		   count_ident(blank, k->begin, k->end, k->name) == 1;
	free(blank);
	size_t cb = k->begin, ce = (size_t)((long)k->end + delta);
	size_t no = (size_t)((long)k->name_off + delta_name);
	if (!once || ce > vlen || no < cb || no + nl > ce || strncmp(vtext + no, k->name, nl))
		return NULL;
	/* `extern "C" __global__ void k(...)`: the copy too (in an
	 * extern "C" block it is not: pair_split then finds no match) */
	size_t x = k->begin;
	while (x > 0 && strchr(" \t\r\n", f->src[x - 1]))
		x--;
	int c_link = x >= 10 && !strncmp(f->src + x - 10, "extern \"C\"", 10);
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_adds(&sb, c_link ? "\nextern \"C\" " : "\n");
	kp_strbuf_add(&sb, vtext + cb, no - cb);
	kp_strbuf_addf(&sb, "%s" PAIR_SUFFIX, k->name);
	kp_strbuf_add(&sb, vtext + no + nl, ce - no - nl);
	kp_strbuf_adds(&sb, "\n");
	for (int j = 0; k->is_template && j < k->ninst; j++)
		kp_strbuf_addf(&sb,
			       "static void *kp_probe_pair_ref_%d = (void *)&%s" PAIR_SUFFIX
			       "<%s>;\n",
			       j, k->name, k->inst_args[j]);
	return kp_strbuf_detach(&sb);
}

/* Whether name s (mangled, or an extern "C" kernel's) is of the function
 * `name` at global scope: 2 mangled, 1 plain, 0 not; *rest gets what
 * follows the name (the template arguments and parameters). */
static int names_fn(const char *s, const char *name, const char **rest)
{
	size_t nl = strlen(name);
	char pre[300];
	if (nl > 256)
		return 0;
	if (!strcmp(s, name)) {
		*rest = s + nl;
		return 1;
	}
	/* Itanium: _Z<length><name>, the length pinning the identifier */
	snprintf(pre, sizeof(pre), "_Z%zu%s", nl, name);
	size_t pl = strlen(pre);
	if (strncmp(s, pre, pl))
		return 0;
	*rest = s + pl;
	return 2;
}

/* c (the combined build) split into o (the original's entries) and v (the
 * rewrite's: the original's with the kernel's entries replaced by the
 * copy's, renamed back, in place); 0 when the copy's entries are not
 * exactly the kernel's or a called function was reported. */
static int pair_split(const kp_resources *c, const char *name, kp_resources *o, kp_resources *v)
{
	kp_strbuf copy = KP_STRBUF_INIT;
	kp_strbuf_addf(&copy, "%s" PAIR_SUFFIX, name);
	const char *cn = kp_strbuf_str(&copy);
	int ncopy = 0, nkern = 0, ok = 1;
	for (int i = 0; i < c->nkernels && ok; i++) {
		const kp_kernel_res *k = &c->kernels[i];
		const char *rest;
		if (!k->is_entry)
			ok = 0; /* a called function: inlining may differ */
		else if (names_fn(k->name, cn, &rest))
			ncopy++;
		else {
			kp_resources_add_copy(o, k, NULL);
			nkern += names_fn(k->name, name, &rest) != 0;
		}
	}
	for (int i = 0; ok && i < o->nkernels; i++) {
		const kp_kernel_res *k = &o->kernels[i];
		const char *rest, *found = NULL;
		if (!names_fn(k->name, name, &rest)) {
			kp_resources_add_copy(v, k, NULL);
			continue;
		}
		/* the copy's entry of the same instantiation */
		int kind = names_fn(k->name, name, &rest);
		for (int j = 0; j < c->nkernels && !found; j++) {
			const char *r2;
			const kp_kernel_res *x = &c->kernels[j];
			if (names_fn(x->name, cn, &r2) == kind && !strcmp(r2, rest)) {
				kp_resources_add_copy(v, x, k->name);
				found = x->name;
			}
		}
		ok = found != NULL;
	}
	kp_strbuf_release(&copy);
	return ok && ncopy == nkern && nkern > 0;
}

static void pair(const kp_auto_probe *base, kp_file *f, const kp_loop *l, const kp_arch *a,
		 const kp_transform *t, int stages, long long dyn_bytes)
{
	kp_ptxas_probe *p = (kp_ptxas_probe *)base;
	if (!p->pair_on || !have_nvcc(p) || !within_budget(p, f, 1))
		return;
	size_t on = 0, vn = 0, vlen = 0;
	char *ounit = unit_text(f, f->src, f->len, &on);
	unsigned long long ah = kp_fnv1a64(a->name, strlen(a->name), KP_FNV1A64_INIT);
	unsigned long long oh = kp_fnv1a64(ounit, on, KP_FNV1A64_INIT) ^ ah;
	if (p->orig.compiled && p->orig.hash == oh) {
		free(ounit); /* the original is known: one compilation is left */
		return;
	}
	kp_edits ed = {0};
	char *vtext = variant_text(p, f, l, a, t, stages, dyn_bytes > 0, &ed, &vlen);
	char *copy = vtext ? pair_copy(f, l->kernel, &ed, vtext, vlen) : NULL;
	kp_edits_release(&ed);
	char *vunit = vtext ? unit_text(f, vtext, vlen, &vn) : NULL;
	unsigned long long vh = vunit ? kp_fnv1a64(vunit, vn, KP_FNV1A64_INIT) ^ ah : 0;
	if (copy && !(p->var.compiled && p->var.hash == vh)) {
		kp_strbuf both = KP_STRBUF_INIT;
		kp_strbuf_add(&both, ounit, on);
		kp_strbuf_adds(&both, copy);
		kp_probe_build c;
		memset(&c, 0, sizeof(c));
		if (compile_once(p, &c, f, both.buf, both.len, a)) {
			kp_resources o, v;
			memset(&o, 0, sizeof(o));
			memset(&v, 0, sizeof(v));
			if (pair_split(&c.res, l->kernel->name, &o, &v)) {
				/* both logs are the combined compilation's */
				const char *log = c.res.log ? c.res.log : "";
				o.log = kp_arena_strdup(&o.arena, log);
				v.log = kp_arena_strdup(&v.arena, log);
				kp_resources_release(&p->orig.res);
				kp_resources_release(&p->var.res);
				memset(&p->orig, 0, sizeof(p->orig));
				memset(&p->var, 0, sizeof(p->var));
				p->orig.hash = oh;
				p->orig.compiled = 1;
				p->orig.res = o;
				p->orig.counted = 1;
				p->var.hash = vh;
				p->var.compiled = 1;
				p->var.res = v; /* counted when variant() asks */
			} else {
				kp_resources_release(&o);
				kp_resources_release(&v);
			}
		}
		kp_resources_release(&c.res);
		kp_strbuf_release(&both);
		p->error[0] = 0;
		p->last_ecompile = 0;
	}
	free(ounit);
	free(vunit);
	free(vtext);
	free(copy);
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
	p->base.text = probe_text;
	p->base.pair = pair;
	const char *pe = getenv("KPIPE_PROBE_PAIR");
	p->pair_on = !pe || strcmp(pe, "off") != 0;
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

void kp_ptxas_probe_new_budget(kp_ptxas_probe *p) { p->nrewrites = 0; }
