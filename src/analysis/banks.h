/*
 * banks.h - shared-memory bank conflicts and global-memory coalescing of
 * a kernel's accesses, per warp (issue #20): every access to a static
 * __shared__ array and every access through a kernel's pointer parameter
 * is evaluated lane by lane for warp 0 of a known block shape, and gets
 * its bank-conflict degree (sm_70+: 32 banks of 4 bytes, 8-byte accesses
 * in 2 phases of 16 lanes, 16-byte ones in 4 phases of 8) or its 32-byte
 * sectors against the ideal.  A wmma fragment load (matrix_a/matrix_b)
 * and an inline-asm ldmatrix are read as ldmatrix phases: 8 rows of 16
 * bytes each, whose degree is the most distinct 16-byte row segments in
 * one group of 4 banks.  An index that depends on something not known per
 * lane leaves the access "not analysed", with the reason.  A warp-uniform
 * unknown takes the values 0, 1 and 5 (a for-loop counter with a constant
 * start and step: its 1st, 2nd and 6th value).  An array's layout can be
 * changed for the evaluation without an edit: its rows padded, or its
 * innermost index XOR-swizzled (kp_bk_swizzle), and the swizzle that
 * serves an array best chosen (kp_bk_swizzle_choose).
 *
 * Works on the model only; what it returns lives in the file's arena.
 */
#ifndef KPIPE_BANKS_H
#define KPIPE_BANKS_H

#include "analyze.h"

/* The threads of a block, and where the shape came from ("--block",
 * "launch description", "launch at line 12", "--threads (1-D)",
 * "__launch_bounds__ (1-D)"); x 0: not known. */
typedef struct {
	int x, y, z;
	const char *from;
} kp_bk_block;

typedef enum { KP_BK_SHARED, KP_BK_GLOBAL } kp_bk_space;

/* One access of a warp. */
typedef struct {
	const kp_node *node; /* the element access (a subscript, or the dereference
				of a vector cast of its address) */
	const kp_decl *arr;  /* the shared array, or the pointer parameter */
	kp_bk_space space;
	int store;                /* written (also for compound assignments) */
	int width;                /* bytes per lane */
	int elem;                 /* global: bytes per index step (the pointee's size;
				   * a vector read through an element's address is wider) */
	int wmma;                 /* a wmma fragment load or store from the array */
	int ldmatrix;             /* an inline-asm ldmatrix: its matrices (1, 2, 4) */
	const char *frag;         /* wmma: "matrix_a 16x16" (rows x elements of the
				     fragment in memory), NULL when not known */
	long long row_stride;     /* wmma: bytes between the fragment's rows */
	const kp_node *addr;      /* ldmatrix: the element whose address the rows
				     come from (node is the asm statement) */
	const char *not_analysed; /* why the access is not analysed, or NULL */
	/* wmma and ldmatrix: the alignment in bytes their pointer (wmma: 32,
	 * and its row stride a multiple of 16) or every row address
	 * (ldmatrix: 16) needs, and whether one value tried misses it (1), or
	 * the pointer is not known (-1).  Padding must not add a miss. */
	int align, misaligned;
	int hand_offset; /* ldmatrix: bytes added by hand to the converted address */
	/* under the layout's swizzle: a lane's elements would leave their unit
	 * of the swizzle (1) or their row (2): the swizzle would split the
	 * access, or move it to another row's elements; 0: neither */
	int swz_split;
	/* shared: its innermost index reaches outside its row (before 0, or
	 * past the declared bound) where every uniform unknown takes its first
	 * value: the access names an element of another row, which padding
	 * or a swizzle would change */
	int out_of_row;
	/* shared: the worst conflict degree over the uniform values tried
	 * (1: none), its bank and the lanes that reach it (bit L: lane L) */
	int degree, bank;
	unsigned lanes;
	/* 32-byte sectors of the warp's request, and the fewest that the bytes
	 * it touches need (shared: the worst over the uniform values tried; a
	 * copy whose lanes land in sectors of their own is spread over shared
	 * memory, which auto weighs: plan/auto.c) */
	int sectors, ideal;
	int line, col;
} kp_bk_access;

typedef struct {
	kp_bk_access *acc;
	int n;
} kp_bk_result;

/* The block shape of kernel k: --block (o->block), the launch
 * description's block (o->spec_block, for its kernel), the file's
 * <<<grid, block>>> launches of k when they all give the same constant
 * block, else --threads or __launch_bounds__ as 1-D. */
void kp_bk_block_of(kp_file *f, const kp_kernel *k, const kp_analyze_opts *o, kp_bk_block *b);
/* Whether every launch of k that f shows uses at most `threads` threads
 * per block: 0 yes (also when f shows none); -1 a launch whose block kpipe
 * does not read (a runtime value, cudaLaunchKernel, its address taken),
 * 1 a launch of more threads; *line: that launch's line. */
int kp_bk_launches_within(kp_file *f, const kp_kernel *k, int threads, int *line);
/* The three components of launch x's block as written, white space
 * dropped ("DIM", "DIM", "1"; "1" where absent): the dim3(...) or {...}
 * of the launch, or the initialiser of the dim3 variable it names when
 * clang did not read that variable as a run-time value; arena-owned.
 * 0, or -1 when not readable. */
int kp_bk_block_texts(kp_file *f, const kp_launch *x, const char *comp[3]);

/* An XOR swizzle of the innermost index of a shared array: element c of
 * row r (r: the index of the next dimension out) is stored at
 * c ^ (((r >> shift) & mask) * unit), which moves whole units of `unit`
 * elements (a power of two) within the row; mask 0: no swizzle. */
typedef struct {
	long long unit;
	int mask, shift;
} kp_bk_swizzle;

/* A layout of one array to evaluate instead of its declared one: rows
 * `pad` elements longer, and the swizzle `swz` of its innermost index. */
typedef struct {
	const kp_decl *arr; /* NULL: every array as declared */
	long long pad;
	kp_bk_swizzle swz;
} kp_bk_layout;

/* The accesses of kernel k for block b, with the innermost dimension of
 * `pad_arr` (may be NULL) widened by `pad` elements.  A template kernel
 * is evaluated for each instantiation, and keeps the worst.  Without a
 * block shape (b->x 0) only the wmma fragment loads and stores: a
 * fragment's bank pattern is its row stride's, its pointer evaluated at
 * thread (0, 0, 0), which is lane 0 of warp 0 whatever the block. */
void kp_bk_analyze(kp_file *f, const kp_kernel *k, const kp_bk_block *b, const kp_decl *pad_arr,
		   long long pad, kp_bk_result *out);
/* The same with the layout `lay` (may be NULL). */
void kp_bk_analyze_layout(kp_file *f, const kp_kernel *k, const kp_bk_block *b,
			  const kp_bk_layout *lay, kp_bk_result *out);

/* The worst conflict degree of array d's analysed accesses in r, and the
 * sum of their degrees in *sum (may be NULL). */
int kp_bk_worst(const kp_bk_result *r, const kp_decl *d, int *sum);

/* The swizzle of shared array d of kernel k, in units of `unit` elements,
 * that gives d's accesses the lowest worst degree, then the lowest sum:
 * masks of 1 to 5 bits (at most a row's units, at most 128 bytes of
 * units) and shifts 0 to 4 are tried; fewer bits, then smaller shifts win
 * a tie.  Returns 0 with the swizzle in *best and its degrees in *worst
 * and *sum; -1 with the reason in *why (and the line of the access it
 * names, or 0, in *line) when d cannot be swizzled in such units: a bound
 * not known, rows that are not a power of two of at least two units (for
 * some instantiation), or an access the swizzle would split. */
int kp_bk_swizzle_choose(kp_file *f, const kp_kernel *k, const kp_bk_block *b, const kp_decl *d,
			 long long unit, kp_bk_swizzle *best, int *worst, int *sum,
			 const char **why, int *line);

/* Whether q reads or writes one object through the pointer below it:
 * `*P`, or `P[0]` with P the ancestor `below` (casts and parentheses
 * aside), the vector macros' `reinterpret_cast<float4 *>(&x)[0]`
 * (indexes evaluated for kernel k, may be NULL). */
int kp_bk_deref_of(const kp_node *q, const kp_node *below, const kp_kernel *k);

/* The bound expression of dimension i (0 outermost) of array d, by its
 * place in the source; NULL when not every bound was seen. */
const kp_node *kp_bk_dim_expr(const kp_decl *d, int i);

/* The finding of an analysed access, or NULL when there is none (no
 * conflict, coalesced, not analysed): its message (arena-owned) and its
 * id ("kpipe-bank-conflict", "kpipe-uncoalesced") in *id. */
const char *kp_bk_finding(kp_file *f, const kp_bk_access *x, const char **id);

/* "0,1,2,...,31" style list of the lanes of a mask (arena-owned). */
const char *kp_bk_lanes_text(kp_file *f, unsigned lanes);

/* The degree of a warp's shared access from its lanes' byte addresses
 * (addr[0..nlanes-1]) and width: the worst phase's largest number of
 * distinct 4-byte words in one bank; its bank and lanes in *bank, *lanes. */
int kp_bk_degree(const long long *addr, int nlanes, int width, int *bank, unsigned *lanes);
/* 32-byte sectors of a warp's global request, and the ideal in *ideal. */
int kp_bk_sectors(const long long *addr, int nlanes, int width, int *ideal);

#endif
