/*
 * parse_int.h - what the parts of the parser share inside src/frontend/:
 * not for other layers.  parse.c runs a parse (the translation unit, its
 * diagnostics, the host code clang cannot parse); parse_args.c builds the
 * compiler command line; parse_decl.c converts types and declarations,
 * parse_convert.c statements and expressions, parse_call.c what a call
 * is; parse_kernel.c finds the kernels and builds a file's model,
 * parse_inst.c its template instantiations, parse_helper.c the helpers
 * the kernels call, parse_header.c the models of project headers;
 * parse_text.c reads the source text (includes, names, macros);
 * launch_scan.c reads launches with the same cursor helpers.  Include
 * it after parse.h; it includes no project header itself, so the module
 * graph keeps no cycle.
 */
#ifndef KPIPE_PARSE_INT_H
#define KPIPE_PARSE_INT_H

#ifndef KPIPE_PARSE_H
#error "include parse.h before parse_int.h"
#endif

#include <clang-c/Index.h>
#include <regex.h>

/* The state of converting one translation unit into one file's model (the
 * main file's, a project header's, or a header holding helpers). */
typedef struct {
	kp_file *f;
	CXTranslationUnit tu;
	CXFile main;
	int in_template; /* converting a template body: types may be dependent */
	int depth;       /* kp_parse_convert()'s recursion depth */
	int too_deep;    /* line of the first node past KP_MAX_NESTING, 0 if none */
	/* declaration identity: clang canonical cursor -> kp_decl, with an
	 * open-addressing index (dindex[h] = entry + 1, 0 empty) hashed on
	 * the cursor's declaration pointer: a file of thousands of kernels
	 * has tens of thousands of declarations, and a scan per lookup made
	 * it quadratic */
	CXCursor *dkeys;
	kp_decl **dvals;
	int nd, capd;
	int *dindex;
	size_t dindex_cap;       /* a power of two, at least twice nd */
	const char *const *argv; /* the compiler arguments (-D for consteval.c) */
	int nargv;
	/* the parse options, for the main file's model only: load helpers
	 * defined in project headers are converted for it
	 * (kp_parse_add_helpers) */
	const kp_parse_opts *o;
	/* functions of the translation unit counted by name
	 * (kp_parse_unresolved_call), arena-owned */
	struct name_count *names;
	/* the methods the converted calls name (kp_decl.fn_why "a member of a
	 * class"), each once with its cursor, for kp_parse_add_helpers'
	 * accessors; freed with dkeys */
	CXCursor *mcur;
	kp_decl **mdecl;
	int nm, capm;
} pctx;

/* The text of s in the arena (s disposed). */
static inline char *cx_dup(kp_arena *a, CXString s)
{
	const char *c = clang_getCString(s);
	char *r = kp_arena_strdup(a, c ? c : "");
	clang_disposeString(s);
	return r;
}

/* Offset of a location in the main file (expansion/file location), -1 if
 * elsewhere. */
static inline long main_offset(pctx *c, CXSourceLocation loc)
{
	CXFile file;
	unsigned off;
	clang_getExpansionLocation(loc, &file, NULL, NULL, &off);
	if (!file || !clang_File_isEqual(file, c->main))
		return -1;
	return (long)off;
}

/* Offset of a location's file location in the main file, -1 if elsewhere. */
static inline long file_offset(pctx *c, CXSourceLocation loc)
{
	CXFile file;
	unsigned off;
	clang_getFileLocation(loc, &file, NULL, NULL, &off);
	if (!file || !clang_File_isEqual(file, c->main))
		return -1;
	return (long)off;
}

/* Whether loc comes from a macro expansion (its expansion and spelling
 * locations differ). */
static inline int is_from_macro(CXSourceLocation loc)
{
	CXFile f1, f2;
	unsigned o1, o2;
	clang_getExpansionLocation(loc, &f1, NULL, NULL, &o1);
	clang_getSpellingLocation(loc, &f2, NULL, NULL, &o2);
	if (!f1 || !f2)
		return 0;
	return !clang_File_isEqual(f1, f2) || o1 != o2;
}

/* The CUDA attributes of a declaration (kp_parse_scan_attrs). */
typedef struct {
	pctx *c;
	int shared, global, is_const;
	int align;
	int device, host, constant;
} attr_scan;

/* A cursor's children (kp_parse_collect; the caller frees v). */
typedef struct {
	CXCursor *v;
	int n, cap;
} cursor_list;

/* Deepest statement/expression nesting converted: analyze.c walks the tree
 * recursively on the caller's stack, and no real kernel nests this deep
 * (a 100 000-term sum on one line did, and overflowed it). */
#define KP_MAX_NESTING 2000

/* The functions of the main file the kernel scan found (parse_kernel.c). */
typedef struct {
	pctx *c;
	kp_kernel **v;
	int n, cap;
	CXCursor *helpers; /* __device__ definitions without __shared__ arrays */
	int nhelpers, caphelpers;
	/* main-file definitions that are not helpers, and why
	 * (kp_parse_add_helpers tells a kernel's callee why it is not
	 * inlined) */
	CXCursor *others;
	const char **other_why;
	int nothers;
} kernel_scan;

/* Kernels in project headers: a header qualifies when it is not a system
 * header and o->header_filter (a POSIX extended regex, searched in its real
 * path) matches, or without a filter when it lies under o->header_root. */
typedef struct {
	regex_t re;
	int have_re;
	const char *root;
	size_t rootlen;
} header_policy;

/* parse_args.c: the command line */
/* Whether the real path abs lies under dir (a path, resolved here). */
int kp_parse_path_under(const char *abs, const char *dir);
/* The toolkit root: --cuda-path, $CUDA_HOME, $CUDA_PATH, /usr/local/cuda. */
const char *kp_parse_cuda_root(const char *cuda_path);
/* The directory of the CUDA 13 stand-in header, NULL when none is needed. */
const char *kp_parse_stub_dir(const char *cuda_path);
/* Appends the flags of the file's compilation-database entry to store. */
void kp_parse_compdb_args(const char *path, const char *build_dir, int search, kp_strbuf *store,
			  int *nstore);
/* The force-included declarations of the cache-hint intrinsics (a path),
 * or NULL when they cannot be written. */
const char *kp_parse_hints_shim(void);

/* parse_text.c: the source text */
/* kp_file.includes_pipeline and last_include_end of f. */
void kp_parse_scan_includes(kp_file *f);
/* kp_file.idents, fn_macros and deps_hash of c->f. */
void kp_parse_collect_names(pctx *c, const char *const *argv, int argc);

/* parse_decl.c: declarations and types */
/* sizeof / alignof a type, -1 when unknown (never asked of a dependent
 * type, on which clang can spin). */
long long kp_parse_safe_sizeof(pctx *c, CXType t);
long long kp_parse_safe_alignof(pctx *c, CXType t);
/* The facts of a type (kp_type), from its canonical type. */
kp_type kp_parse_type_facts(CXType t);
/* parse_frag.c: the sizes of the dependent wmma fragment declared at cur
 * (kp_type.frag_dim) that are written as a template parameter or a
 * constant, read from the declaration's template arguments. */
void kp_parse_frag_dims(CXCursor cur, kp_type *ty);
/* Trivially copyable: 1, 0, or -1 unknown (dependent). */
int kp_parse_type_trivial(CXType t);
/* Visitor filling an attr_scan with a declaration's CUDA attributes. */
enum CXChildVisitResult kp_parse_scan_attrs(CXCursor cur, CXCursor parent, CXClientData ud);
/* A function, method or lambda: what declares parameters and locals. */
int kp_parse_is_function_kind(enum CXCursorKind k);
/* Whether d is in a system header or under the toolkit (kp_decl.in_system). */
int kp_parse_system_decl(pctx *c, CXCursor d);
/* The kp_decl of a declaration (made on first use), NULL for a null cursor. */
kp_decl *kp_parse_decl_for(pctx *c, CXCursor ref);
/* The expression under the implicit conversions libclang shows as
 * unexposed wrappers of one child (parse_call.c). */
CXCursor kp_parse_under_implicit(CXCursor cur);
/* Visitor appending each child to a cursor_list. */
enum CXChildVisitResult kp_parse_collect(CXCursor cur, CXCursor parent, CXClientData ud);

/* parse_convert.c: statements and expressions */
/* The kp_node of a cursor and its children (cut at KP_MAX_NESTING). */
kp_node *kp_parse_convert(pctx *c, CXCursor cur);

/* parse_call.c: what a call is */
/* What a call to `name` (declared by `ref`, possibly null) synchronises. */
kp_sync_kind kp_parse_call_sync(const char *name, CXCursor ref);
/* The callee of a dependent call when its name finds one function. */
kp_decl *kp_parse_single_overload(pctx *c, CXCursor call);
/* kp_node.arg_conv of a call, NULL when unknown. */
unsigned char *kp_parse_call_arg_conv(pctx *c, CXCursor call, CXCursor ref, int nargs);
/* The name of an operator call clang left unresolved ("operator+"). */
void kp_parse_name_unresolved_operator(kp_file *f, kp_node *n);
/* The lookup name and lookup facts of a call left unresolved. */
void kp_parse_unresolved_call(pctx *c, CXCursor cur, kp_node *n);
/* Whether n calls a binary operator function written as an operator. */
int kp_parse_binary_operator_call(const kp_node *n);

/* parse_kernel.c: a file's model */
/* A function definition converted (a kernel, a __device__ K-loop
 * function, a helper). */
kp_kernel *kp_parse_make_function(pctx *c, CXCursor cur, int is_template);
/* Visitor setting *(int *)ud when a body declares a __shared__ variable. */
enum CXChildVisitResult kp_parse_find_shared_var(CXCursor cur, CXCursor parent, CXClientData ud);
/* The callers of __device__ K-loop function d among the kernels of
 * `from`, and their common __launch_bounds__. */
void kp_parse_device_callers(kp_file *f, const kp_file *from, kp_kernel *d, const kp_decl *key);
/* The model of the file c->main stands for, into c->f. */
void kp_parse_build_model(pctx *c, const char *const *argv, int nstore);

/* parse_inst.c: template instantiations */
/* Explicit instantiations found in the text of f. */
void kp_parse_scan_explicit_insts(kp_file *f);
/* Sorts k's instantiations in an order independent of the file's. */
void kp_parse_sort_insts(kp_kernel *k);
/* Visitor adding the specialisations it meets to their kernel_scan kernels. */
enum CXChildVisitResult kp_parse_find_insts(CXCursor cur, CXCursor parent, CXClientData ud);

/* parse_helper.c: called helpers */
/* The helpers the kernels call into kp_decl.fn, or the reason in fn_why. */
void kp_parse_add_helpers(pctx *c, kernel_scan *ks);

/* parse_header.c: project headers */
void kp_parse_header_policy_init(header_policy *p, const kp_parse_opts *o);
void kp_parse_header_policy_release(header_policy *p);
/* Whether a header (its real path) qualifies under the policy. */
int kp_parse_wanted_header(const header_policy *h, const char *abs);
/* The unsaved file of o whose real path is `abs`, or NULL. */
const kp_unsaved *kp_parse_unsaved_for(const kp_parse_opts *o, const char *abs);
/* One model per qualifying project header with kernels, into c->f->headers. */
void kp_parse_build_header_models(pctx *c, const kp_parse_opts *o, const header_policy *pol,
				  const char *const *argv, int nstore);
/* parse_carve.c: records the carve-outs of shared memory of the kernels
 * of f and of its header models (kp_decl.dyn_base), the model's last
 * change before kp_parse returns. */
void kp_parse_mark_carves(kp_file *f);

/* An asm statement's tokens, from its `asm` keyword where it is spelled
 * to its closing parenthesis, joined by spaces (parse_asm.c); NULL when
 * they cannot be read. */
const char *kp_parse_asm_text(pctx *c, CXCursor cur);

#endif
