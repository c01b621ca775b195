/*
 * launch_check.c - the launch-level resources of a planned rewrite
 * (plan.h, kp_plan_launch_check), checked against every launch kpipe can
 * see in the file (model.h, kp_launch: <<<>>>, cudaLaunchKernel,
 * cudaLaunchKernelEx, cooperative launches, the kernel's address taken):
 *
 *  - static plus dynamic shared memory: the tiles' buffers (with the
 *    kernel's other static shared memory and what the transform adds)
 *    plus the bytes each launch passes must stay within the static limit
 *    (48 KB), or the opt-in limit for a kernel the file raises with
 *    cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize,
 *    ...); otherwise the launch fails with "invalid argument".  A size
 *    kpipe cannot evaluate next to grown tiles is refused too.
 *  - a K-loop in a __device__ function counts its callers' static shared
 *    memory and the dynamic memory their launches pass.
 *  - registers times threads: without __launch_bounds__, a block size
 *    that is not known (taken as 1024, the most a launch may ask) or that
 *    leaves fewer than the variant's registers per thread fails with "too
 *    many resources requested for launch".  ptxas (the --variant auto
 *    probe, plan.h) gives the registers; without it the plan says that the
 *    check could not run.
 * Each refusal names the launch (file:line) and the numbers.
 */
#include "plan.h"

#include <string.h>

#include "banks.h"

/* Static shared memory of the tiles after (bufs buffers) and before the
 * rewrite, the largest over the instantiations; -1 when not known. */
static void static_bytes(const kp_loop *l, int bufs, long long extra, long long *after,
			 long long *before)
{
	*after = *before = 0;
	int n = l->nper_inst > 0 ? l->nper_inst : 1;
	for (int i = 0; i < n; i++) {
		const kp_loop *q = l->nper_inst > 0 ? l->per_inst[i] : l;
		if (q->tile_bytes < 0) {
			*after = *before = -1;
			return;
		}
		long long a = q->tile_bytes * bufs + q->other_smem + extra;
		long long b = q->tile_bytes + q->other_smem;
		if (a > *after)
			*after = a;
		if (b > *before)
			*before = b;
	}
}

/* Whether the file raises the dynamic shared-memory limit of launch x's
 * function; *value gets the largest value it sets (-1 unknown). */
static int raised(const kp_file *f, const kp_launch *x, long long *value)
{
	int hit = 0;
	*value = 0;
	for (int i = 0; i < f->nraises; i++) {
		const kp_smem_raise *r = &f->raises[i];
		if (r->kernel != x->kernel ||
		    (r->usr && x->usr && strcmp(r->usr, x->usr) && x->kernel->is_template))
			continue;
		hit = 1;
		if (r->value < 0 || *value < 0)
			*value = -1;
		else if (r->value > *value)
			*value = r->value;
	}
	return hit;
}

/* Whether a kernel declares or uses dynamic shared memory. */
static int uses_dynamic(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	int *hit = ud;
	if ((n->kind == KP_N_DECLREF || n->kind == KP_N_VARDECL) &&
	    kp_decl_is_dynamic_smem(n->decl))
		*hit = 1;
	return !*hit;
}

static const char *where(kp_file *f, const kp_launch *x)
{
	return kp_arena_printf(&f->arena, "%s:%d", f->path ? f->path : "<input>", x->line);
}

/* Launch x of a kernel holding `stat` bytes of static shared memory after
 * the rewrite (`before` before it): why it would fail, or NULL.  `what`
 * names those bytes. */
static const char *launch_smem(kp_file *f, const kp_launch *x, const kp_arch *a, long long stat,
			       const char *what)
{
	kp_arena *ar = &f->arena;
	int dyn_kernel = 0;
	kp_node_walk(x->kernel->body, NULL, uses_dynamic, &dyn_kernel);
	long long dyn = x->dyn_smem;
	if (x->api && (!strcmp(x->api, "reference") || !strcmp(x->api, "skipped"))) {
		if (!dyn_kernel)
			return NULL;
		return kp_arena_printf(ar,
				       "'%s' uses dynamic shared memory and %s at %s: the "
				       "dynamic shared memory of the launches made through it "
				       "is not known, and %s",
				       x->kernel->name,
				       strcmp(x->api, "skipped") ? "its address is taken"
								 : "is named in host code left out "
								   "of the parse",
				       where(f, x), what);
	}
	if (dyn == 0)
		return NULL;
	long long rv;
	int up = raised(f, x, &rv);
	int limit = up ? a->smem_optin_per_block : a->smem_static_per_block;
	const char *lim = kp_arena_printf(
		ar, "the %d B %s limit of %s%s", limit, up ? "opt-in" : "static", a->name,
		up ? " (the file raises cudaFuncAttributeMaxDynamicSharedMemorySize)" : "");
	if (dyn < 0) {
		const char *arg =
			x->dyn_text ? kp_arena_printf(ar, "'%s'", x->dyn_text)
				    : kp_arena_printf(ar, "set in the configuration of %s", x->api);
		return kp_arena_printf(
			ar,
			"the launch at %s passes dynamic shared memory kpipe cannot "
			"evaluate (%s), and %s: static plus dynamic must stay within %s",
			where(f, x), arg, what, lim);
	}
	if (up && rv > dyn)
		dyn = rv;
	if (stat + dyn <= limit)
		return NULL;
	return kp_arena_printf(ar,
			       "the launch at %s passes %lld B of dynamic shared memory, and %s: "
			       "%lld B in all, over %s (the launch would fail: invalid argument)",
			       where(f, x), dyn, what, stat + dyn, lim);
}

/* The static shared memory a kernel's body declares (its own arrays), -1
 * when a size is not known. */
typedef struct {
	long long bytes;
} body_smem;

static int own_static(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	body_smem *s = ud;
	const kp_decl *d = n->decl;
	if (n->kind != KP_N_VARDECL || !d || !d->is_shared || kp_decl_is_dynamic_smem(d) ||
	    d->dyn_base || s->bytes < 0)
		return 1;
	long long e = d->elem_size;
	for (int i = 0; i < d->ndims && e > 0; i++)
		e = d->dims[i] > 0 ? e * d->dims[i] : -1;
	if (d->is_array && d->ndims == 0)
		e = -1;
	s->bytes = e > 0 ? s->bytes + e : -1;
	return 1;
}

static const char *smem_check(kp_file *f, const kp_loop *l, const kp_arch *a, long long after,
			      long long before)
{
	kp_arena *ar = &f->arena;
	const kp_kernel *k = l->kernel;
	if (after >= 0 && after <= before)
		return NULL; /* nothing grows */
	const char *what =
		after < 0 ? "the size of the tiles is not known"
			  : kp_arena_printf(ar,
					    "the rewrite takes %lld B of static shared memory "
					    "(%lld B before)",
					    after, before);
	if (!k->is_device) {
		for (int i = 0; i < f->nlaunches; i++) {
			const kp_launch *x = &f->launches[i];
			const char *why = x->kernel == k ? launch_smem(f, x, a, after, what) : NULL;
			if (why)
				return why;
		}
		return NULL;
	}
	if (!k->ncallers)
		return kp_arena_printf(ar,
				       "the K-loop is in the __device__ function '%s', which no "
				       "kernel of the file calls directly: its callers' shared "
				       "memory is not known, and %s",
				       k->name, what);
	for (int c = 0; c < k->ncallers; c++) {
		const kp_kernel *ck = k->caller_k[c];
		body_smem s = {0};
		kp_node_walk(ck->body, NULL, own_static, &s);
		if (s.bytes < 0 || after < 0)
			return kp_arena_printf(
				ar,
				"the K-loop is in the __device__ function '%s', called "
				"by '%s' (line %d), whose own shared memory is not "
				"known, and %s",
				k->name, ck->name, ck->line, what);
		long long tot = s.bytes + after;
		const char *w2 = kp_arena_printf(
			ar,
			"its caller '%s' (line %d) holds %lld B of static shared memory of its "
			"own and the function's %lld B (%lld B before): %lld B",
			ck->name, ck->line, s.bytes, after, before, tot);
		if (tot > a->smem_static_per_block)
			return kp_arena_printf(
				ar,
				"the K-loop is in the __device__ function '%s': %s, over "
				"the %d B static limit of %s",
				k->name, w2, a->smem_static_per_block, a->name);
		/* a function of a header: its callers' launches are in the .cu */
		kp_file *lf = k->call_decl && f->includer ? f->includer : f;
		for (int i = 0; i < lf->nlaunches; i++) {
			const kp_launch *x = &lf->launches[i];
			const char *why = x->kernel == ck ? launch_smem(lf, x, a, tot, w2) : NULL;
			if (why)
				return why;
		}
	}
	return NULL;
}

/* The threads per block of l's kernel: the analysis's (--threads, the
 * launch description, __launch_bounds__), else the file's <<<>>> launches
 * when they agree; 0 when not known.  *from says where it came from. */
static int block_threads(kp_file *f, const kp_loop *l, const char **from)
{
	*from = l->threads_from;
	if (l->threads > 0)
		return l->threads;
	const kp_kernel *k = l->kernel;
	const kp_kernel *one = k->is_device && k->ncallers == 1 ? k->caller_k[0] : k;
	if (k->is_device && k->ncallers != 1)
		return 0;
	if (k->call_decl && f->includer) /* its caller's launches are in the .cu */
		f = f->includer;
	for (int i = 0; i < f->nlaunches; i++)
		if (f->launches[i].kernel == one && f->launches[i].api)
			return 0; /* a launch whose block is not read */
	kp_analyze_opts o;
	memset(&o, 0, sizeof(o));
	kp_bk_block b;
	kp_bk_block_of(f, one, &o, &b);
	*from = b.from;
	return b.x > 0 ? b.x * (b.y > 0 ? b.y : 1) * (b.z > 0 ? b.z : 1) : 0;
}

/* The registers per thread a block of `threads` threads may use. */
static int regs_allowed(const kp_arch *a, int threads)
{
	int warps = (threads + 31) / 32;
	int unit = a->reg_alloc_unit > 0 ? a->reg_alloc_unit / 32 : 8;
	int r = a->regs_per_sm / warps / 32;
	r -= r % (unit > 0 ? unit : 1);
	return r < a->max_regs_per_thread ? r : a->max_regs_per_thread;
}

static void regs_check(kp_plan *p, kp_file *f, const kp_loop *l, const kp_arch *a)
{
	kp_arena *ar = &f->arena;
	const kp_kernel *k = l->kernel;
	if (k->launch_bounds > 0 || p->stages <= 0)
		return; /* ptxas keeps the registers within the bounds */
	const char *from = NULL;
	int t = block_threads(f, l, &from);
	const char *tt = t > 0 ? kp_arena_printf(ar, "%d threads per block (%s)", t,
						 from ? from : "the launches")
			       : "a block size kpipe does not know (up to 1024 threads)";
	int allowed = regs_allowed(a, t > 0 ? t : 1024);
	if (allowed >= a->max_regs_per_thread)
		return;
	const kp_auto_probe *pr = f->auto_probe;
	kp_auto_facts o, v;
	memset(&o, 0, sizeof(o));
	memset(&v, 0, sizeof(v));
	if (!pr || !pr->variant) {
		p->unchecked = kp_arena_printf(ar,
					       "registers per thread not checked: with %s and no "
					       "__launch_bounds__ a block may use at most %d, and "
					       "ptxas was not asked (nvcc not used)",
					       tt, allowed);
		return;
	}
	long long dyn = p->dynamic ? p->dyn_bytes : 0;
	if (pr->pair)
		pr->pair(pr, f, l, a, p->xform, p->stages, dyn);
	if (!pr->facts(pr, f, l, a, &o) ||
	    !pr->variant(pr, f, l, a, p->xform, p->stages, dyn, &v)) {
		const kp_auto_facts *bad = o.compile_error || !v.compile_error ? &o : &v;
		/* only the rewrite failing where the original compiles is
		 * kpipe's error (an original nvcc rejects leaves ptxas without
		 * an answer, as without nvcc) */
		if (v.compile_error && !o.compile_error) {
			kp_plan_compile_error(p, f, v.why);
			return;
		}
		p->unchecked =
			kp_arena_printf(ar,
					"registers per thread not checked: with %s and no "
					"__launch_bounds__ a block may use at most %d, and ptxas "
					"could not be asked (%s)",
					tt, allowed, bad->why ? bad->why : "no reason given");
		return;
	}
	int before = v.base_regs > 0 ? v.base_regs : o.regs;
	if (v.regs <= allowed || before > allowed)
		return;
	p->xform = NULL;
	p->why = NULL;
	p->refuse_id = "kpipe-registers-over-limit";
	p->refuse_msg = kp_arena_printf(
		ar,
		"the rewrite takes '%s' from %d to %d registers per thread (ptxas), and with %s "
		"and no __launch_bounds__ a block may use at most %d: the launch would fail (too "
		"many resources requested for launch); add __launch_bounds__ to the kernel or "
		"choose another variant",
		k->name, before, v.regs, tt, allowed);
}

void kp_plan_compile_error(kp_plan *p, kp_file *f, const char *error)
{
	p->xform = NULL;
	p->why = NULL;
	p->fatal = 1;
	p->refuse_id = "kpipe-compiler-error";
	p->refuse_msg =
		kp_arena_printf(&f->arena,
				"a compiler run kpipe made for this loop failed, so nothing is "
				"written: %s",
				error ? error : "no message");
}

/* Tiles already in dynamic shared memory, `bufs` copies of the region:
 * each launch passes that many times its bytes (rounded to 16) and raises
 * the opt-in limit (pass_pipeline.c); with the kernel's static shared
 * memory they must fit it.  Checked where the launch's size is known. */
static const char *copies_check(kp_file *f, const kp_loop *l, const kp_arch *a, int bufs,
				long long extra)
{
	long long stat = l->other_smem + extra;
	for (int i = 0; i < l->nper_inst; i++)
		if (l->per_inst[i]->other_smem + extra > stat)
			stat = l->per_inst[i]->other_smem + extra;
	for (int i = 0; i < f->nlaunches; i++) {
		const kp_launch *x = &f->launches[i];
		if (x->kernel != l->kernel || x->dyn_smem <= 0)
			continue;
		long long need = stat + (long long)bufs * ((x->dyn_smem + 15) / 16 * 16);
		if (need > a->smem_optin_per_block)
			return kp_arena_printf(
				&f->arena,
				"the launch at %s passes %lld B of dynamic shared memory, "
				"and %d copies of it with %lld B of static shared memory "
				"make %lld B, over the %d B opt-in limit of %s",
				where(f, x), x->dyn_smem, bufs, stat, need, a->smem_optin_per_block,
				a->name);
	}
	return NULL;
}

void kp_plan_launch_check(kp_plan *p, kp_file *f, const kp_loop *l, const kp_arch *a)
{
	if (!p->xform)
		return;
	const kp_transform *t = p->xform;
	int bufs = t->buffers(p->stages);
	long long extra = t->own_smem ? t->own_smem(p->stages) : 0;
	const char *why = NULL;
	if (l->dyn_tiles)
		why = bufs > 1 ? copies_check(f, l, a, bufs, extra) : NULL;
	else if (!p->dynamic) {
		long long after, before;
		static_bytes(l, bufs, extra, &after, &before);
		why = smem_check(f, l, a, after, before);
	}
	if (why) {
		p->xform = NULL;
		p->why = NULL;
		p->refuse_id = "kpipe-smem-over-limit";
		p->refuse_msg = why;
		return;
	}
	regs_check(p, f, l, a);
}
