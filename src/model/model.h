/*
 * model.h - kpipe's own picture of a parsed CUDA file: kernels, their
 * declarations and a small statement/expression tree with byte extents.
 *
 * The parse layer (parse.c) is the only code that talks to libclang; it
 * fills these structures and every later stage (loops, analyze, plan,
 * transforms, emit) works on them alone.
 *
 * Ownership: everything reachable from a kp_file lives in the file's
 * arena and is released with kp_file_release().  Offsets are 0-based byte
 * offsets into kp_file.src (the main file as parsed); `end` is exclusive.
 */
#ifndef KPIPE_MODEL_H
#define KPIPE_MODEL_H

#include "util.h"

typedef enum {
	KP_N_OTHER,
	KP_N_COMPOUND,
	KP_N_DECLSTMT,
	KP_N_VARDECL,
	KP_N_FOR,
	KP_N_WHILE,
	KP_N_DO,
	KP_N_IF,
	KP_N_SWITCH,
	KP_N_RETURN,
	KP_N_BREAK,
	KP_N_CONTINUE,
	KP_N_GOTO,
	KP_N_NULLSTMT,
	KP_N_ASM,
	KP_N_CALL,
	KP_N_DECLREF,
	KP_N_MEMBER,
	KP_N_SUBSCRIPT,
	KP_N_BINOP,
	KP_N_ASSIGNOP, /* compound assignment: += -= ... */
	KP_N_UNOP,
	KP_N_CONDOP,
	KP_N_INTLIT,
	KP_N_FLOATLIT,
	KP_N_PAREN,
	KP_N_CAST,
	KP_N_SIZEOF,
	KP_N_LAMBDA,
	KP_N_INITLIST,
	KP_N_COUNT
} kp_node_kind;

typedef enum {
	KP_D_VAR,
	KP_D_PARM,
	KP_D_TPARAM, /* non-type template parameter */
	KP_D_ENUM,
	KP_D_FUNC,
	KP_D_OTHER
} kp_decl_kind;

#define KP_MAX_DIMS 4

/* What a call synchronises.  The parser decides it from the callee's
 * declaration (a cooperative-groups method or function is judged by its
 * group's class), so no later stage looks at names for it. */
typedef enum {
	KP_SYNC_NONE,
	KP_SYNC_BLOCK,       /* __syncthreads(), cg::thread_block's sync(), cg::sync(block) */
	KP_SYNC_BLOCK_VALUE, /* __syncthreads_count / _and / _or: a block barrier with a result */
	KP_SYNC_PART,        /* part of the block only: __syncwarp(), a tile's or a coalesced
			      * group's sync(), cg::sync(tile) */
	KP_SYNC_OTHER        /* a barrier kpipe does not model: grid, cluster or thread_group
			      * sync, __barrier_sync, thread_block's split barrier, a sync()
			      * outside cooperative groups */
} kp_sync_kind;

/* A type as clang's canonical type sees it (typedefs such as uint32_t and
 * size_t resolved, a reference looked through), recorded by the parser
 * for each declaration and expression.  Decisions that depend on a type
 * read these facts; the spellings (kp_decl.type, kp_node.type) are for
 * rendering only. */
typedef enum {
	KP_TY_UNKNOWN = 0, /* not recorded (a node kpipe made, an invalid type) */
	KP_TY_DEPENDENT,   /* depends on a template parameter */
	KP_TY_BOOL,
	KP_TY_SINT, /* a signed integer (char, wchar_t: as the target has them) */
	KP_TY_UINT, /* an unsigned integer */
	KP_TY_FLOAT,
	KP_TY_ENUM,
	KP_TY_POINTER,
	KP_TY_ARRAY,
	KP_TY_RECORD, /* a struct, class or union (float4, __half, a fragment) */
	KP_TY_OTHER
} kp_type_kind;

/* The arithmetic a value carries, from clang's canonical type: a floating
 * or 8-bit integer scalar, the CUDA half types (records), and a wmma
 * fragment's element type (its fifth template argument). */
typedef enum {
	KP_SCL_NONE = 0,
	KP_SCL_F16,  /* half, __half, __half2, _Float16 */
	KP_SCL_BF16, /* __nv_bfloat16, __nv_bfloat162, __bf16 */
	KP_SCL_F32,
	KP_SCL_F64,
	KP_SCL_INT8, /* signed or unsigned char */
	KP_SCL_OTHER /* a fragment of another element (precision::tf32 ...) */
} kp_scalar;

typedef struct {
	kp_type_kind kind;
	unsigned char scalar;   /* kp_scalar */
	short bits;             /* an integer's or floating type's width, else 0 */
	unsigned char is_ref;   /* a reference (1 lvalue, 2 rvalue): the other fields are the
				 * referee's */
	unsigned char is_const; /* const at the top level (of the referee) */
	unsigned char is_volatile;
	unsigned char is_restrict; /* a restrict-qualified pointer */
	/* a pointer's pointee or an array's element (arrays of arrays looked
	 * through), with its qualifiers; KP_TY_UNKNOWN otherwise */
	kp_type_kind elem;
	unsigned char elem_const, elem_volatile;
	/* a wmma fragment (an array of them looked through): its use, the
	 * first template argument (kp_frag_use), and whether its layout, the
	 * sixth, is col_major */
	unsigned char frag, frag_col;
	/* its sizes M, N, K (the second to fourth template arguments): the
	 * value clang gives (1 to 255); for a declaration of a dependent
	 * fragment, a template parameter of the function written as the
	 * argument: -1 - its position (kp_kernel.tparam_names); 0 unknown
	 * (`WM * 2`, a typedef of a dependent fragment, another node) */
	short frag_dim[3];
} kp_type;

typedef enum {
	KP_FRAG_NONE = 0,
	KP_FRAG_A,   /* matrix_a */
	KP_FRAG_B,   /* matrix_b */
	KP_FRAG_ACC, /* accumulator */
	KP_FRAG_OTHER
} kp_frag_use;

/* An integer type whose wrap-around at zero is defined (unsigned, bool,
 * an enum with an unsigned underlying type is recorded as KP_TY_UINT). */
#define KP_TY_IS_INTEGER(k) ((k) == KP_TY_SINT || (k) == KP_TY_UINT || (k) == KP_TY_BOOL)
/* Volatile itself, or (a pointer, an array) its pointee or elements. */
#define KP_TY_ANY_VOLATILE(t) ((t).is_volatile || (t).elem_volatile)

/* An operator (kp_node.opk), from clang's operator kind: the binary ones of
 * BINOP and ASSIGNOP nodes (and of an overloaded operator call kpipe reads
 * as one), then the unary ones of UNOP nodes.  kp_node.op keeps the
 * spelling for rendering. */
typedef enum {
	KP_OP_NONE = 0,   /* not an operator node, or one kpipe does not name */
	KP_OP_MUL,        /* * */
	KP_OP_DIV,        /* / */
	KP_OP_REM,        /* % */
	KP_OP_ADD,        /* + */
	KP_OP_SUB,        /* - */
	KP_OP_SHL,        /* << */
	KP_OP_SHR,        /* >> */
	KP_OP_CMP3,       /* <=> */
	KP_OP_LT,         /* < */
	KP_OP_GT,         /* > */
	KP_OP_LE,         /* <= */
	KP_OP_GE,         /* >= */
	KP_OP_EQ,         /* == */
	KP_OP_NE,         /* != */
	KP_OP_AND,        /* & */
	KP_OP_XOR,        /* ^ */
	KP_OP_OR,         /* | */
	KP_OP_LAND,       /* && */
	KP_OP_LOR,        /* || */
	KP_OP_ASSIGN,     /* = */
	KP_OP_MUL_ASSIGN, /* *= */
	KP_OP_DIV_ASSIGN, /* /= */
	KP_OP_REM_ASSIGN, /* %= */
	KP_OP_ADD_ASSIGN, /* += */
	KP_OP_SUB_ASSIGN, /* -= */
	KP_OP_SHL_ASSIGN, /* <<= */
	KP_OP_SHR_ASSIGN, /* >>= */
	KP_OP_AND_ASSIGN, /* &= */
	KP_OP_XOR_ASSIGN, /* ^= */
	KP_OP_OR_ASSIGN,  /* |= */
	KP_OP_COMMA,      /* , */
	KP_OP_PTRMEM_D,   /* .* */
	KP_OP_PTRMEM_I,   /* ->* */
	KP_OP_PRE_INC,    /* ++ */
	KP_OP_PRE_DEC,    /* -- */
	KP_OP_POST_INC,   /* ++ */
	KP_OP_POST_DEC,   /* -- */
	KP_OP_ADDR,       /* & */
	KP_OP_DEREF,      /* * */
	KP_OP_PLUS,       /* + */
	KP_OP_MINUS,      /* - */
	KP_OP_NOT,        /* ~ */
	KP_OP_LNOT,       /* ! */
} kp_op;

/* The operator a spelling names: binary (`unary` 0) or unary, postfix
 * (`postfix` 1: x++, x--) or prefix; KP_OP_NONE for any other. */
kp_op kp_op_of(const char *spelling, int unary, int postfix);
/* A compound assignment (+= ... |=), or = itself. */
#define KP_OP_IS_ASSIGN(o) ((o) >= KP_OP_ASSIGN && (o) <= KP_OP_OR_ASSIGN)
/* A comparison: < > <= >= == != */
#define KP_OP_IS_COMPARE(o) ((o) >= KP_OP_LT && (o) <= KP_OP_NE)
/* ++ or --, prefix or postfix */
#define KP_OP_IS_INCDEC(o) ((o) >= KP_OP_PRE_INC && (o) <= KP_OP_POST_DEC)

typedef struct kp_node kp_node;
struct kp_kernel;

typedef struct kp_decl {
	const char *name;
	kp_decl_kind kind;
	const char *type;        /* type spelling, e.g. "float[32][32]" */
	kp_type ty;              /* the type's facts (decisions read these) */
	const char *elem_type;   /* element type for arrays, else the type */
	long long elem_size;     /* sizeof element, -1 unknown (dependent) */
	long long elem_align;    /* alignof element (clang), -1 unknown (dependent) */
	long long pointee_align; /* a pointer: alignof what it points to, -1 unknown */
	/* the element type is trivially copyable (clang: no user-provided copy
	 * or move, no user destructor, nothing virtual, at any depth): 1, 0
	 * not, -1 unknown (dependent) */
	int elem_trivial;
	int is_shared;
	/* a variable in global memory: __device__ at namespace or class scope,
	 * not __shared__ or __constant__ (clang's attributes) */
	int is_device_var;
	/* storage class static or extern (clang's, not the text's: a local
	 * `static __device__` variable, an `extern` declaration) */
	int is_static, is_extern;
	int is_const;     /* const-qualified or constexpr */
	int is_constexpr; /* a variable declared constexpr (spelled in the main file) */
	int is_pointer;
	int is_array;
	int ndims;
	long long dims[KP_MAX_DIMS];       /* -1 when not a constant */
	const char *dim_text[KP_MAX_DIMS]; /* the source spelling of each bound */
	int unsized;       /* an array of unknown bound (`extern __shared__ float s[]`) */
	int bounds_hidden; /* an array whose bounds are not written after its name
			      (`SHARED_TILE(As)`, a typedef): no edit can add a
			      stage dimension */
	kp_node *dim_expr[KP_MAX_DIMS]; /* the bound's expression when seen */
	kp_node *init;                  /* initialiser expression, if any */
	unsigned begin, end;            /* extent of the whole declaration */
	unsigned name_off;              /* offset of the name token */
	unsigned name_end;              /* end of the declarator (after the last ']') */
	int in_main;                    /* declared in the main file */
	int line, col;
	int align; /* __align__ value, 0 when none */
	/* A carve-out of dynamic shared memory (`float *Kj = &sram[ts];`,
	 * never reassigned), or of a static __shared__ array of the kernel
	 * (`float *Bs = (float *)(buf + 4096);`): the array it points into, and
	 * the offset in the array's elements (NULL: the array itself).  The parser sets these
	 * once the model is built (model/carves.c decides, frontend/parse_carve.c records)
	 * and marks the pointer is_shared / is_array with unknown bounds, so it
	 * is a tile candidate like the array; no later stage writes them. */
	const struct kp_decl *dyn_base;
	const kp_node *dyn_off;
	int has_value; /* integer constant with a known value */
	long long value;
	/* KP_D_FUNC: a __device__ helper defined in this model's file, with no
	 * __shared__ array of its own, that a kernel calls handing it a shared
	 * array: its definition, converted (parse.c), for the pass that inlines
	 * it (pass_inline.c).  NULL otherwise. */
	struct kp_kernel *fn;
	int in_namespace; /* declared in a namespace (not the global scope) */
	/* KP_D_FUNC: its parameters' types (clang's function type), nparam_ty
	 * of them, and whether it takes `...`; nparam_ty -1 when clang gives
	 * no prototype (an unresolved declaration) */
	kp_type *param_ty;
	int nparam_ty;
	int variadic;
	/* KP_D_FUNC called by a kernel of the main file, fn NULL: why it was
	 * not converted ("it is defined in a system header"), or NULL */
	const char *fn_why;
	/* KP_D_FUNC, a non-static method a kernel of the main file calls on an
	 * object (`a.at(r, c)`), defined in the main file: its definition,
	 * converted, for the inline pass alone, which expands a method whose
	 * body is `return E;` at the call (an accessor).  fn stays NULL, so
	 * the effect sets keep denying the call itself; NULL otherwise. */
	struct kp_kernel *accessor;
	/* KP_D_FUNC, a const method of a class with no `mutable` field: a
	 * call does not change the object it is called on (its pointers'
	 * targets are another matter) */
	int const_method;
	/* KP_D_FUNC, an implicit instantiation of a function template (the
	 * callee of a call outside a template that names the template's
	 * arguments or has them deduced): the template's declaration, whose
	 * definition is the one kpipe reads (fn and fn_why are then the
	 * template's); NULL otherwise.  The instantiation keeps its own type:
	 * the analysis reads its parameters as instantiated. */
	struct kp_decl *tmpl;
	/* clang's unified symbol resolution of a declaration that is not a
	 * parameter or a local (a function, a global variable, an enumerator,
	 * a field): the same in every parse of the unit, so the inline pass
	 * can tell that a name means the same declaration in a trial parse.
	 * NULL for parameters and locals. */
	const char *usr;
	/* KP_D_FUNC or a constructor: declared (its first declaration) in a
	 * system header or the CUDA toolkit, not by the user's code: the
	 * pure-function table (analysis/pure.h) is keyed by this and the name */
	int in_system;
	/* a pointer: its pointee's canonical type spelled without qualifiers
	 * (typedefs resolved: "float" for `const real *`), else NULL */
	const char *pointee_canon;
	/* a struct: the declaration's own canonical type spelled without
	 * qualifiers ("double2" for a `zcomplex` that is a typedef of it),
	 * else NULL */
	const char *type_canon;
} kp_decl;

/* How a call converts one argument to its parameter (kp_node.arg_conv),
 * decided by the parser on canonical types: the same type (top-level
 * qualifiers aside); the parameter's pointee or referee more qualified
 * (`const float *` given `float *`); an array to a pointer to its element
 * (`float (*)[16]` given `float[16][16]`), the element perhaps gaining
 * const; an arithmetic conversion (`int` given `unsigned`); any other
 * conversion; unknown (a dependent type in a template). */
typedef enum {
	KP_ARG_UNKNOWN,
	KP_ARG_SAME,
	KP_ARG_QUAL,
	KP_ARG_DECAY,
	KP_ARG_ARITH,
	KP_ARG_OTHER
} kp_arg_conv;

struct kp_node {
	kp_node_kind kind;
	unsigned begin, end; /* expansion extent in the main file */
	int in_main;         /* extent is in the main file */
	int from_macro;      /* node comes from a macro expansion */
	int line, col;
	const char *op;   /* operator for BINOP/ASSIGNOP/UNOP ("=", "+=", "++"): its spelling */
	kp_op opk;        /* the operator (decisions read this) */
	int postfix;      /* UNOP: postfix ++/-- */
	const char *name; /* DECLREF/MEMBER/CALL/VARDECL name */
	/* ASM: the statement's tokens joined by spaces (`asm volatile (
	 * "ld.shared.f32 %0, [%1];" : "=f" ( v ) : "r" ( a ) )`), where its
	 * `asm` is spelled: the PTX template and the constraints even where a
	 * macro wrote it; NULL when unknown */
	const char *asm_text;
	/* CALL without a name (a dependent call in a template): the
	 * unqualified name its callee looks up ("__fmaf_rn"), or NULL */
	const char *lookup_name;
	/* CALL without a declaration (unresolved in a template): the functions
	 * its name finds now, when there are some: lookup_system, every one
	 * declared in a system header or the CUDA toolkit; lookup_ro, every one
	 * takes each parameter by value, const reference, rvalue reference or
	 * pointer to const (none can change an argument's object) */
	unsigned char lookup_system, lookup_ro;
	/* CALL unresolved in a template whose name finds two or more
	 * functions outside system headers and the toolkit: all of them
	 * (nlookup), when they are every function of that name the translation
	 * unit declares, in any namespace or class, so that no lookup at
	 * instantiation (argument-dependent included) can find another one
	 * (kp_parse_unresolved_call); NULL and 0 otherwise */
	kp_decl **lookup_decls;
	int nlookup;
	/* CALL without a name of one operand (an implicit copy or move of a
	 * class value) whose type is the operand's, cv-qualifiers aside, by
	 * clang's canonical types (`magmaDoubleComplex` made from a
	 * `cuDoubleComplex`, one class through a typedef) */
	unsigned char same_class_copy;
	/* CALL spelled as a type and an argument list, the type's reference
	 * being the first child libclang shows (`T(0)`, `T{x}` on a type that
	 * depends on a template parameter: an unresolved construction) */
	unsigned char type_construct;
	const char *type;     /* expression or declaration type (its spelling) */
	kp_type ty;           /* the type's facts (decisions read these) */
	long long type_size;  /* sizeof(type), -1 unknown */
	long long type_align; /* alignof(type) (clang), -1 unknown */
	kp_decl *decl;        /* DECLREF, VARDECL, CALL (callee) */
	kp_sync_kind sync;    /* CALL: the barrier it is, KP_SYNC_NONE for other calls */
	unsigned name_off;    /* DECLREF: spelling offset of the name */
	int name_editable;    /* DECLREF: name spelled in the main file */
	unsigned macro_spell; /* DECLREF from a macro body written in this file: the
			       * offset of its spelling there, plus one (0: none) */
	int has_value;        /* INTLIT/FLOATLIT/SIZEOF: value known */
	/* SIZEOF without a value: the template type parameter it measures,
	 * when it is written `sizeof(T)` (cv-qualifiers aside) and T names
	 * one, and the main-file offset of the template declaring T plus one
	 * (0: not in the main file); kp_eval gives it the size of T's
	 * argument per instantiation of that template (a kernel's k->begin) */
	const char *sizeof_tparam;
	unsigned sizeof_owner;
	long long ivalue;
	double fvalue;
	kp_node **kids;
	int nkids;
	/* CALL of a function (not an operator): per argument (kids[1..]),
	 * how it is converted to its parameter (kp_arg_conv); NULL when the
	 * callee's parameters are not known (a dependent call) */
	unsigned char *arg_conv;
	/* FOR: the header's parts and the body, each one of kids or NULL when
	 * absent (for (;;) has none).  The parser decides them from the
	 * header's tokens (parse.c), so no later stage re-derives them from
	 * the number or the position of the kids. */
	kp_node *for_init, *for_cond, *for_inc, *for_body;
};

/* Template arguments kpipe reads per instantiation (a kernel with more is
 * analysed with its parameters left symbolic). */
#define KP_MAX_TARGS 16

/* One argument of a template instantiation (see kp_kernel.inst_targs). */
typedef struct {
	const char *type; /* a type argument's spelling ("float", "__half"), NULL otherwise */
	long long size;   /* sizeof that type, -1 unknown or not a type */
	int known;        /* a type with a known size, or a value in inst_values */
	long long align;  /* alignof that type, -1 unknown */
	int trivial;      /* that type is trivially copyable: 1, 0 not, -1 unknown */
} kp_targ;

typedef struct kp_kernel {
	const char *name;      /* "sgemm" */
	const char *display;   /* "sgemm<BM, BN, BK>" */
	const char *qualified; /* "ns::sgemm" (the name when at global scope) */
	int is_template;
	int ntparams;
	const char **tparam_names;
	unsigned tparam_bool;   /* bit i: template parameter i (< KP_MAX_TARGS) is a bool */
	unsigned tparam_type;   /* bit i: template parameter i (< 32) is a type parameter */
	int tparam_unusual;     /* a template template parameter or a pack, which
				   tparam_names leaves out or counts as one */
	int ninst;              /* instantiations seen in the file (launches, references,
				   explicit instantiations), each once */
	const char **inst_args; /* "32, 32, 8" per instantiation */
	long long (*inst_values)[KP_MAX_TARGS]; /* value arguments by parameter position
						   (0 otherwise) */
	kp_targ (*inst_targs)[KP_MAX_TARGS];    /* per instantiation, the first
						   KP_MAX_TARGS arguments */
	int launch_bounds;                      /* __launch_bounds__ max threads, 0 none; a
						   __device__ function: its calling kernels'
						   when they agree */
	int launch_bounds_args;                 /* the kernel's __launch_bounds__: its number of
						   arguments (0 none, -1 not readable) */
	unsigned launch_bounds_close;           /* and the offset of its ')' */
	unsigned name_off; /* the offset of the name in the main file, 0 unknown */
	/* a __device__ function with __shared__ arrays of its own (its K-loops
	 * are candidates like a kernel's), not a __global__ kernel */
	int is_device;
	const char *callers;         /* is_device: the kernels of the file calling it,
					"k1, k2" (NULL: none seen) */
	struct kp_kernel **caller_k; /* is_device: those kernels (ncallers) */
	int ncallers;
	/* is_device, in a project header's model: the declaration the calls
	 * of its callers (kernels of the .cu that includes the header) refer
	 * to, or to whose template they do; NULL otherwise */
	const struct kp_decl *call_decl;
	/* the first compiler error inside the kernel ("line 12: message"), or
	 * NULL: such a kernel is analysed but never rewritten (the other
	 * kernels of the file are; parse.c) */
	const char *error;
	kp_node *body;
	unsigned begin, end;
	int line, col;
	kp_decl **params;
	int nparams;
	/* Per template parameter, the text of its default argument as
	 * written (`0U`, `int4`), or NULL; NULL when none has one. */
	const char **tparam_defaults;
	/* The model whose text holds this function (offsets, nodes and
	 * declarations are its): NULL for the model it is found in, or a
	 * model of a project header (kp_file.helper_homes) for a load helper
	 * defined there. */
	struct kp_file *home;
	/* A load helper: the namespace of a type or template its body names
	 * without qualification (`Vec` declared in `wt`), "wt" for the first
	 * such, or NULL: a kernel outside that namespace would find another
	 * declaration, or none. */
	const char *ns_type;
	/* A method converted as a value accessor (kp_decl.accessor): the
	 * offsets, in its home's text, of the members its body names through
	 * the implicit `this` (`data` of `return data[r * ld + c];`), nself of
	 * them; the first member it names that is not public, or NULL; and
	 * whether it names `this` itself. */
	unsigned *self_members;
	int nself;
	const char *nonpublic;
	int names_this;
} kp_kernel;

typedef struct {
	int line, col;
	const char *severity; /* "error", "warning", "note" */
	const char *file;
	const char *message;
	int semantic;        /* clang's "Semantic Issue" category (not a parse error) */
	int missing_include; /* an #include clang could not find */
	const char *kernel;  /* an error inside a kernel: its name (f->kernels or a
			      * header's); NULL when outside every kernel */
	int skipped;         /* a note of kpipe's: a host declaration clang could not
			      * parse, left out (frontend/recover.c) */
	int in_system;       /* in a system header (the toolkit's, the library's) */
	int in_device;       /* inside a function clang marks __device__ or __global__ */
} kp_parse_diag;

/* A launch `name<<<grid, block[, smem[, stream]]>>>(...)` of one of the
 * file's kernels, found in the main file (parse.c): what a rewrite that
 * moves tiles to dynamic shared memory edits. */
typedef struct {
	kp_kernel *kernel;
	unsigned begin;              /* the callee's first byte */
	unsigned open, close;        /* offsets of "<<<" and ">>>" */
	int nconfig;                 /* configuration arguments, 2 to 4 */
	unsigned arg_b[4], arg_e[4]; /* their extents */
	int editable;                /* a <<<>>> with 2 to 4 arguments, every token spelled in
				      * the main file, none by a macro (a kernel call written
				      * by a macro is kept, not editable) */
	int line, col;
	/* How the kernel is launched (launch_scan.c): NULL for <<<>>>, else
	 * the runtime function ("cudaLaunchKernel", "cudaLaunchKernelEx",
	 * "cudaLaunchCooperativeKernel", ...), or "reference" for any other
	 * mention of the kernel (its address taken: the launches made through
	 * it are not seen), or "skipped" for a mention in a host declaration
	 * left out of the parse (frontend/host_skip.c).  Such a launch has
	 * nconfig 0 and is never editable. */
	const char *api;
	/* The dynamic shared memory it passes, in bytes: 0 none (no third
	 * <<<>>> argument, a literal 0), the value when clang evaluates the
	 * argument as a constant, -1 unknown. */
	long long dyn_smem;
	const char *dyn_text; /* that argument as written, or NULL */
	/* The block shape of a <<<>>> launch as clang evaluates it (launch_scan.c):
	 * an integer constant, a dim3(...) or {...}, or a dim3 variable whose
	 * initialiser is one, each component a constant expression (numbers,
	 * constexpr and const-initialised variables, sizeof).  All 0: unknown.
	 * block_runtime: clang read the argument as a run-time value (a
	 * parameter, a variable that is not a constant, a local dim3 used
	 * elsewhere than in launches: a member assigned, passed by
	 * reference), so nothing else may read a shape from its text. */
	int block[3];
	int block_runtime;
	/* clang's USR of the function launched (a template's instantiation
	 * is its own), to pair it with cudaFuncSetAttribute calls */
	const char *usr;
} kp_launch;

/* `cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
 * v)` in the main file (launch_scan.c): the opt-in limit applies to the
 * launches of that function. */
typedef struct {
	kp_kernel *kernel;
	const char *usr; /* the function named (an instantiation is its own) */
	long long value; /* v, -1 unknown */
	int line;
} kp_smem_raise;

typedef struct kp_file {
	kp_arena arena;
	const char *path; /* as given; for a header model, as clang found it */
	char *src;        /* main file contents (owned, malloc) */
	size_t len;
	kp_kernel **kernels;
	int nkernels;
	kp_decl **decls; /* every declaration seen (for identity) */
	int ndecls;
	kp_parse_diag *diags;
	int ndiags;
	int nerrors;
	int outside_errors; /* semantic errors only, in the main file or a project
			     * header, and at least one kernel without one:
			     * kp_parse returned OK; the diags keep them (those
			     * inside a kernel name it, which is not rewritten) */
	int has_bom;
	kp_launch *launches; /* the launches of its kernels in the main file: <<<>>>,
			      * then the runtime API's and other mentions (api) */
	int nlaunches;
	kp_smem_raise *raises; /* the opt-in attributes the main file sets */
	int nraises;
	unsigned last_include_end; /* offset after the last #include line; without
				    * one, after the leading comments, #pragma once
				    * and include guard (0 when none) */
	int includes_pipeline;     /* main file includes <cuda_pipeline.h> */
	/* ptxas's view of the original for --variant auto (plan.h), set by the
	 * rewrite driver when nvcc can run; NULL otherwise.  Not owned. */
	const struct kp_auto_probe *auto_probe;
	/* The lines of the shared arrays an earlier pass of the same rewrite
	 * padded (kpipe-padded, rewrite/pass_pad.c), set by the pipeline pass
	 * for --variant auto (plan/auto.c, busy_kernel()); NULL / 0 otherwise
	 * (none padded, or not in a rewrite: pad_known).
	 * Not owned. */
	const int *padded_lines;
	int npadded;
	int pad_known;         /* set with them: 0 outside a rewrite's pipeline pass */
	unsigned *line_starts; /* lazily built line table (malloc) */
	int nlines;
	/* Names a rewrite must not declare (parse.c): every identifier-like
	 * word of the main file, comments and strings included, and every one
	 * that begins with KP_GEN_PREFIX in the rest of the translation unit
	 * (the text of each header it includes: macro names, macro bodies,
	 * declarations; and -D arguments).  Sorted, unique. */
	const char **idents;
	int nidents;
	/* The function-like macros the translation unit defines (`#define
	 * NAME(`, in the main file and every file it includes outside the
	 * precompiled CUDA headers; parse.c): their names, sorted, unique.
	 * A header kpipe adds must not see one it uses as a name
	 * (<cuda_pipeline.h> calls max()). */
	const char **fn_macros;
	int nfn_macros;
	/* The files the translation unit includes outside the precompiled CUDA
	 * headers (parse.c): their paths, sizes and modification times hashed
	 * in inclusion order; part of the ptxas probe's cache key (probe.c). */
	unsigned long long deps_hash;
	/* The names kp_fresh_name() chose: fresh_name[i] for fresh_base[i]. */
	const char **fresh_base, **fresh_name;
	int nfresh;
	/* The project headers that define kernels or __device__ K-loop functions
	 * (__shared__ arrays of their own; kp_parse_opts.want_header),
	 * each a model of its own built from the same translation unit: its
	 * path, src, kernels, declarations and offsets are the header's, and
	 * it has no diagnostics of its own (they are the main file's).  Owned:
	 * kp_file_release() releases them. */
	struct kp_file **headers;
	int nheaders;
	const char *abs_path; /* a header model's real path (NULL for the main file) */
	/* a header model: the model of the file that includes it, whose
	 * kernels and launches call its __device__ K-loop functions
	 * (kp_kernel.call_decl); NULL for the main file */
	struct kp_file *includer;
	/* The project headers (not system headers, not the CUDA toolkit's)
	 * that define load helpers the main file's kernels call, each a model
	 * holding only its path, text, the helpers (kp_kernel.home) and their
	 * declarations.  Owned: kp_file_release() releases them. */
	struct kp_file **helper_homes;
	int nhelper_homes;
} kp_file;

/* Every identifier a transform declares begins with this prefix (the
 * parser records the identifiers of headers only when they begin with it). */
#define KP_GEN_PREFIX "kp_"

void kp_file_release(kp_file *f);

/* Line/column of an offset (1-based). */
void kp_file_linecol(const kp_file *f, unsigned off, int *line, int *col);
/* The offset of a 1-based line and column, -1 when the line is not in
 * the file (kp_text_offset() over f->src, through the line table). */
long kp_file_offset(const kp_file *f, int line, int col);

/* 1 when `name` is one of f->idents. */
int kp_file_uses_name(const kp_file *f, const char *name);
/* The name to declare for a generated identifier `base` (which begins with
 * KP_GEN_PREFIX): `base` when the translation unit does not use it, else the
 * first unused of base_1, base_2, ...  One file gets one answer per base,
 * so every loop rewritten in it uses the same names, and two bases never
 * get the same name.  Arena-owned. */
const char *kp_fresh_name(kp_file *f, const char *base);

/* Source text of a node / range, arena-owned. */
const char *kp_node_text(kp_file *f, const kp_node *n);
const char *kp_range_text(kp_file *f, unsigned begin, unsigned end);

/* Helpers used by every stage. */
const kp_node *kp_node_strip(const kp_node *n); /* parens, casts */
/* The nodes from n down to target, path[0] = n and path[*np - 1] = target
 * (at most max): 1 when target is under n, else 0 with *np as it was. */
int kp_node_path(const kp_node *n, const kp_node *target, const kp_node **path, int *np, int max);
/* A call's name, or for a dependent call in a template the name its
 * callee looks up (kp_node.lookup_name); "" when neither is known. */
const char *kp_call_name(const kp_node *n);
/* The object a call calls a method on, as written: the base of the
 * member `a.at` of `a.at(r, c)` (`p` of `p->at(...)`), or the first child
 * of a call of an operator of the object's class, `a(r, c)` or `a[i]`
 * (children: the object, the operator's name, then the arguments); NULL
 * for any other call.  *arg0, when not NULL, is then the child of the
 * first argument (1, or 2 for an operator); left as it is otherwise. */
const kp_node *kp_call_object(const kp_node *n, int *arg0);
typedef int (*kp_visit_fn)(kp_node *n, kp_node *parent, void *ud); /* return 0 to skip kids */
void kp_node_walk(kp_node *n, kp_node *parent, kp_visit_fn fn, void *ud);
int kp_node_names_decl(const kp_node *n, const kp_decl *d); /* a DECLREF to d in the subtree */

/* Whether `--kernel want` names k: its name, its qualified name
 * (`ns::k`), or one of its instantiations spelled as written
 * (`k<32, 8>`, `ns::k<32,8>`; white space ignored). */
int kp_kernel_matches(const kp_kernel *k, const char *want);
/* The kernels of f and of its header models, as a user would name them
 * ("k1, ns::k2<BM, BN>"), arena-owned; "" when none. */
const char *kp_kernel_names(kp_file *f);
/* The model in the parse tu of the same file as f (a model of another
 * parse): tu itself for a main file, else the header model with f's real
 * path; NULL when tu has none. */
kp_file *kp_file_model_in(kp_file *tu, const kp_file *f);

/* Whether a kernel of f or of its header models matches `want`. */
int kp_file_has_kernel(const kp_file *f, const char *want);

/* "threadIdx", "blockIdx", "blockDim" or "gridDim" when n is a member of
 * that builtin variable (`threadIdx.x`), else NULL.  *comp: 0, 1, 2 for
 * .x/.y/.z as spelled in the main file; with by_name, else from the
 * member's name (a macro's expansion); -1 when neither tells. */
const char *kp_node_builtin(const kp_file *f, const kp_node *n, int by_name, int *comp);

/* An extern __shared__ array (its bound unknown), not a carve-out of one. */
int kp_decl_is_extern_shared(const kp_decl *d);
/* Dynamic shared memory: an extern __shared__ array or a carve-out of one
 * (kp_decl.dyn_base, set by the parser: model/carves.c). */
int kp_decl_is_dynamic_smem(const kp_decl *d);
/* A carve-out of a static __shared__ array (`float *As = (float *)buf;`,
 * kp_decl.dyn_base a sized array, set by the parser: model/carves.c). */
int kp_decl_is_static_carve(const kp_decl *d);

/* A launch's callee (arg -1) or configuration argument arg (0..nconfig-1),
 * without the white space around it: [*b, *e) in f->src. */
void kp_launch_span(const kp_file *f, const kp_launch *x, int arg, unsigned *b, unsigned *e);

/* Why a rewrite that must edit launch x cannot (written by a macro, ...),
 * in `arena`, or NULL when x is editable. */
const char *kp_launch_uneditable(const kp_launch *x, kp_arena *arena);

/* How a tolerated error (kp_file.outside_errors) is reported, as the
 * warning's text before clang's message (static text). */
const char *kp_parse_diag_note(const kp_parse_diag *d);

#endif
