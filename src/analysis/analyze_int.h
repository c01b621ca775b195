/*
 * analyze_int.h - what the parts of the analysis share inside src/analysis/
 * (analyze.c runs them on each candidate loop; analyze_eval.c, writes.c,
 * types.c, dyn_smem.c, static_carve.c, trip_bound.c, barriers.c, rw.c, induction.c, loads.c,
 * copy_spelled.c, copy_temp.c, math.c, tile_ptr.c, candidates.c and
 * instantiate.c find the facts; the rules of rules/ read them): not for
 * other layers.  Include it after analyze.h; it includes no project header
 * itself, so the module graph keeps no cycle.
 */
#ifndef KPIPE_ANALYZE_INT_H
#define KPIPE_ANALYZE_INT_H

#ifndef KPIPE_ANALYZE_H
#error "include analyze.h before analyze_int.h"
#endif

struct kp_copy_temp;

/* One analysis of one candidate loop (analyze.c, analyze_one). */
typedef struct {
	kp_file *f;
	kp_kernel *k;
	const long long *iv; /* instantiation values or NULL */
	kp_loop *l;
	const kp_targ *targs;       /* the instantiation's arguments (types) or NULL */
	struct kp_copy_temp *temps; /* copies through a temporary (kp_find_temps) */
	int ntemps;
	const kp_analyze_opts *o; /* the analysis's options, or NULL */
} actx;

/* Refuses c's loop with diagnostic `id` at node `at` (NULL: the loop):
 * the analysis's own refusals, where a finding stops it (analyze.c). */
void kp_ana_refuse(actx *c, const kp_node *at, const char *id, const char *fmt, ...)
	KP_PRINTF(4, 5);

static inline int kp_is_assign(const kp_node *n)
{
	return n && n->kind == KP_N_BINOP && n->op && n->opk == KP_OP_ASSIGN;
}

/* Whether n lies in the main file's range [b, e). */
static inline int kp_node_in(const kp_node *n, unsigned b, unsigned e)
{
	return n->in_main && n->begin >= b && n->end <= e;
}

/* ---- analyze.c */
/* The innermost loop of k around l's loop that also holds `use`, or NULL. */
const kp_node *kp_loop_around(const kp_kernel *k, const kp_loop *l, const kp_node *use);

/* ---- analyze_eval.c */
/* A call the condition may repeat: a function of its operands, or __ldg. */
int kp_pure_call(const kp_node *n);

/* ---- writes.c */
/* A local pointer initialised into a shared array and never changed: the
 * array, or NULL. */
const kp_decl *kp_carve_out_of(const kp_kernel *k, const kp_decl *d);
/* A local pointer, never changed, into a variable of the thread: the
 * variable, or NULL. */
const kp_decl *kp_points_into_local(const kp_file *f, const kp_kernel *k, const kp_decl *d);

/* ---- types.c */
const char *kp_strip_cv(kp_arena *a, const char *t);
long long kp_bound_size(actx *c, const char *t);
long long kp_elem_size_of(actx *c, const kp_decl *d);
int kp_same_pointee(actx *c, const char *ptr, const char *elem, int *uses_param);
int kp_same_canon(const kp_decl *src, const kp_decl *tile);

/* ---- dyn_smem.c */
/* Why the dynamic tile t cannot get a buffer per stage, or NULL. */
const char *kp_dynamic_tile_problem(kp_file *f, kp_kernel *k, const long long *iv,
				    const kp_tile *t);

/* ---- static_carve.c: carve-outs of a static __shared__ array */
/* Why the static carve-out tile t cannot get a buffer per stage, or NULL. */
const char *kp_static_carve_problem(kp_file *f, const kp_kernel *k, const long long *iv,
				    const kp_tile *t);
/* Counts l->carve_tiles and gives each array's bytes to its first loaded
 * carve-out (the others 0). */
void kp_static_carve_tiles(actx *c);
/* Whether base is the array of a loaded carve-out of l. */
int kp_static_carve_region_loaded(const kp_loop *l, const kp_decl *base);

/* ---- barriers.c */
typedef struct {
	actx *c;
	int barriers, nested_barriers, divergent_barriers;
	int atomics, fences, pipeline, asm_stmt;
	kp_node *first_barrier_nested, *first_atomic, *first_fence, *first_pipeline;
	kp_node *first_other_sync; /* a barrier kpipe does not model (KP_SYNC_OTHER) */
	kp_node *first_part_sync;  /* a sync of part of the block (KP_SYNC_PART) */
	int depth_if, depth_loop;
} kp_scan_info;

int kp_is_barrier(const kp_node *n);
void kp_scan_calls(kp_node *n, kp_scan_info *s, int in_if, int in_loop);
int kp_contains_barrier(const kp_node *n);
int kp_top_barriers(actx *c, const kp_scan_info *si);
void kp_find_exit_barrier(actx *c);

/* ---- rw.c: reads and writes of declarations in a subtree */
typedef struct {
	kp_decl **w;
	kp_node **wat;
	int nw, capw;
	kp_decl **r;
	int nr, capr;
	kp_decl **decl; /* declared inside */
	int nd, capd;
	kp_decl **gs; /* pointers stored through (global memory), first store each */
	kp_node **gsat;
	int ngs, capgs;
} kp_rw_set;

/* The load phase's, the compute phase's and the whole body's sets: what
 * the rules get (kp_rule_ctx.rw). */
typedef struct kp_loop_rw {
	kp_rw_set load, comp, all;
} kp_loop_rw;

void kp_push_decl(kp_decl ***v, int *n, int *cap, kp_decl *d);
int kp_rw_has(kp_decl **v, int n, const kp_decl *d);
void kp_rw_release(kp_rw_set *s);
void kp_rw_collect(kp_node *n, kp_rw_set *s);
void kp_rw_range(kp_loop *l, int b, int e, kp_rw_set *s);

/* ---- copies.c */
/* The facts the asynchronous forms need proven of each copy of loop l of
 * kernel k (one instantiation: value arguments iv and type arguments
 * targs, NULL when symbolic), once its copies were read: sets
 * kp_load.src_global and kp_load.async_why.  load_rw: the load phase's
 * reads and writes (kp_rw_range), whose written names prove nothing about
 * where two copies land. */
void kp_copy_facts(kp_file *f, const kp_kernel *k, kp_loop *l, const long long *iv,
		   const kp_targ *targs, const kp_rw_set *load_rw);

/* ---- induction.c */
const char *kp_step_text(actx *c, kp_node *n, int *sign);
kp_decl *kp_inc_var(kp_node *n);
int kp_is_ind(const kp_loop *l, const kp_decl *d);
kp_node *kp_step_node(kp_node *stmt);
void kp_find_induction(actx *c);
int kp_cond_monotone(actx *c);

/* ---- tile_value.c (the rest in tile_value.h) */
/* Finds c->l's tile values (kp_loop.tval_stmt); needs the phases and the
 * induction variables. */
void kp_find_tile_values(actx *c);

/* ---- banks_block.c */
/* kp_loop.block and block_from: kp_bk_block_of()'s shape of kernel k
 * (banks_block.c; kept out of analyze.c, which banks.h includes). */
void kp_loop_block(kp_file *f, const kp_kernel *k, const kp_analyze_opts *o, int block[3],
		   const char **from);

/* ---- loads.c */
typedef struct {
	const kp_decl *d;
	kp_node *load; /* the global load an assignment to d reads */
} kp_assign_walk;

kp_node *kp_assign_of(kp_node *stmt);
/* A refused loop pipelined by hand through registers (hand_prefetch.c):
 * its reasons become one kpipe-already-pipelined; 1 when it is one. */
int kp_find_hand_prefetch(actx *c);
int kp_shared_lhs(kp_node *lhs, kp_decl **tile);
kp_node *kp_global_load_root(kp_node *n);
kp_node *kp_find_global_load(kp_node *n);
/* `o.p` (parens and casts around it allowed): a pointer member of an
 * object a variable or parameter holds by value, not a reference, in
 * whatever memory the pointer says (the object's own variables are
 * read, as written); NULL for any other expression.  Such a member is
 * the root of a global load `o.p[i]` (a view or tensor object handed
 * to the kernel, or the expansion of its accessor: pass_inline.c). */
kp_node *kp_member_pointer(kp_node *n);
int kp_find_assign_load(kp_node *n, kp_node *parent, void *ud);
const char *kp_callee_name(kp_file *f, const kp_node *n);
/* The copies of the load phase (l->loads) and what keeps them from being
 * read (the refusals of a copy kpipe cannot rewrite). */
void kp_find_loads(actx *c);

/* ---- copy_spelled.c */
int kp_spelled_assign(const kp_file *f, const kp_node *as);
void kp_check_copy_spelled(actx *c, const kp_load *ld, kp_node *as, kp_node *rhs);

/* ---- copy_temp.c: `T t = VALUE; ... TILE[...] = t;` or `T t; t = VALUE;
 * ... TILE[...] = t;` in one block of the load phase, t named nowhere else
 * in the loop: the copy of VALUE (a global load, possibly guarded) into
 * the tile. */
typedef struct kp_copy_temp {
	kp_decl *var;
	kp_node *decl_stmt; /* the DECLSTMT declaring only t */
	kp_node *set_stmt;  /* `t = VALUE;`, NULL when VALUE is the initialiser */
	kp_node *value;
	kp_node *copy; /* the assignment TILE[...] = t */
} kp_copy_temp;

int kp_same_unqualified(const char *a, const char *b);
void kp_find_temps(actx *c);
const kp_copy_temp *kp_temp_of_copy(const actx *c, const kp_node *as);

/* ---- math.c */
void kp_count_copy_trips(actx *c);
/* trip_bound.c: the most trips of a counted loop whose first value is
 * only bounded below (by the thread indices), -1 when not known. */
double kp_range_max_trips(actx *c, const kp_range *r);
void kp_count_math(actx *c);

/* ---- tile_ptr.c */
const kp_decl *kp_alias_target(kp_node *init, kp_node **ref);
/* The aliases of each loaded tile (kp_tile.alias). */
void kp_find_tile_aliases(actx *c);

/* ---- candidates.c */
typedef struct {
	kp_node **v;
	int n, cap;
} kp_node_vec;

kp_node *kp_loop_body(const kp_node *n);
const kp_decl *kp_hand_buffers(const kp_kernel *k, const kp_node *loop);
int kp_uses_kpipe_stage(kp_node *body);
int kp_kloop_like(const kp_node *n);
int kp_top_level_barrier(const kp_node *loop);
kp_node *kp_nested_kloop(kp_node *n);
void kp_find_candidates(kp_node *n, kp_node_vec *out);

/* ---- instantiate.c */
int kp_inst_known(const kp_kernel *k, int i);
kp_loop *kp_merge_insts(kp_file *f, kp_kernel *k, kp_loop **per);

#endif
