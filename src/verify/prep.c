/*
 * prep.c - a CUDA source made ready for the CPU emulator (prep.h): the C
 * port of tests/cpudiff/prep.py.  Every step scans the text with its
 * comments and literals blanked (kp_prep_blank), so positions in the
 * blanked copy are positions in the source.
 */
#define _GNU_SOURCE
#include "prep.h"

#include "util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *kp_prep_blank(const char *src, size_t n)
{
	char *out = kp_xmalloc(n + 1);
	memcpy(out, src, n);
	out[n] = 0;
	size_t i = 0;
	while (i < n) {
		char c = src[i];
		if (c == '/' && i + 1 < n && src[i + 1] == '/') {
			while (i < n && src[i] != '\n')
				out[i++] = ' ';
		} else if (c == '/' && i + 1 < n && src[i + 1] == '*') {
			size_t j = i + 2;
			while (j + 1 < n && !(src[j] == '*' && src[j + 1] == '/'))
				j++;
			j = j + 1 < n ? j + 2 : n;
			for (; i < j; i++)
				if (src[i] != '\n')
					out[i] = ' ';
		} else if (c == '"' || c == '\'') {
			/* a digit separator (1'000) is no literal */
			if (c == '\'' && i > 0 && isdigit((unsigned char)src[i - 1]) && i + 1 < n &&
			    isdigit((unsigned char)src[i + 1])) {
				i++;
				continue;
			}
			size_t j = i + 1;
			while (j < n && src[j] != c && src[j] != '\n')
				j += src[j] == '\\' ? 2 : 1;
			for (size_t k = i + 1; k < j && k < n; k++)
				out[k] = ' ';
			i = j + 1;
		} else
			i++;
	}
	return out;
}

/* ---- unsupported constructs ------------------------------------------- */

static int line_of(const char *s, size_t off)
{
	int l = 1;
	for (size_t i = 0; i < off; i++)
		l += s[i] == '\n';
	return l;
}

static int is_id(char c) { return kp_is_ident_char(c); }

static int starts(const char *s, size_t n, const char *p)
{
	return n >= strlen(p) && !strncmp(s, p, strlen(p));
}

static int in_list(const char *s, size_t n, const char *const *l)
{
	for (; *l; l++)
		if (strlen(*l) == n && !strncmp(s, *l, n))
			return 1;
	return 0;
}

/* The character after position i, blanks skipped. */
static char next_nonblank(const char *c, size_t len, size_t i)
{
	while (i < len && isspace((unsigned char)c[i]))
		i++;
	return i < len ? c[i] : 0;
}

enum { U_WARP, U_CG, U_ASM, U_LIBCU, U_TEX, U_TYPE, U_HEADER, U_WMMA, U_TIMING, U_N };

/* The category of the identifier c[b..e) (and of what follows it), or -1. */
static int ident_category(const char *c, size_t len, size_t b, size_t e)
{
	static const char *const warp[] = {"__any_sync", "__all_sync",   "__any",
					   "__all",      "__activemask", NULL};
	static const char *const cg[] = {
		"tiled_partition",  "thread_block_tile", "coalesced_threads", "coalesced_group",
		"this_grid",        "grid_group",        "this_multi_grid",   "multi_grid_group",
		"this_cluster",     "cluster_group",     "thread_group",      "labeled_partition",
		"binary_partition", "barrier_arrive",    "barrier_wait",      NULL};
	static const char *const cudans[] = {"memcpy_async", "barrier", "ptx", "std", NULL};
	const char *s = c + b;
	size_t n = e - b;
	char after = next_nonblank(c, len, e);
	if ((starts(s, n, "__shfl") || starts(s, n, "__ballot") || in_list(s, n, warp) ||
	     ((starts(s, n, "__match_") || starts(s, n, "__reduce_")) && n > 5 &&
	      !strncmp(s + n - 5, "_sync", 5))) &&
	    after == '(')
		return U_WARP;
	if (in_list(s, n, cg) || starts(s, n, "invoke_one"))
		return U_CG;
	if ((n == 3 && !strncmp(s, "asm", 3)) || (n == 7 && !strncmp(s, "__asm__", 7)) ||
	    (n == 5 && !strncmp(s, "__asm", 5)))
		return U_ASM;
	if (n == 4 && !strncmp(s, "cuda", 4) && e + 2 < len && c[e] == ':' && c[e + 1] == ':') {
		size_t k = e + 2, m = k;
		while (m < len && is_id(c[m]))
			m++;
		if (in_list(c + k, m - k, cudans) || starts(c + k, m - k, "pipeline"))
			return U_LIBCU;
	}
	if (n == 20 && !strncmp(s, "__pipeline_arrive_on", 20))
		return U_LIBCU;
	if (n >= 5 && (starts(s, n, "tex") || starts(s, n, "surf"))) {
		const char *d = s + (s[0] == 't' ? 3 : 4);
		if (d + 1 < s + n && d[0] >= '1' && d[0] <= '3' && d[1] == 'D' && after == '(')
			return U_TEX;
	}
	if ((n == 7 && !strncmp(s, "texture", 7) && after == '<') ||
	    (n == 19 && !strncmp(s, "cudaTextureObject_t", 19)))
		return U_TEX;
	if (starts(s, n, "__nv_bfloat16") || starts(s, n, "__nv_fp8") ||
	    (n == 11 && !strncmp(s, "nv_bfloat16", 11)))
		return U_TYPE;
	if (n == 4 && !strncmp(s, "wmma", 4) && e + 2 < len && c[e] == ':' && c[e + 1] == ':') {
		const char *t = c + e + 2;
		size_t rest = len - e - 2;
		if ((starts(t, rest, "bf16") && !is_id(t[4])) || starts(t, rest, "experimental") ||
		    starts(t, rest, "precision::b1") || starts(t, rest, "precision::s4") ||
		    starts(t, rest, "precision::u4"))
			return U_WMMA;
	}
	if (n == 5 && !strncmp(s, "clock", 5) && after == '(') {
		size_t k = e;
		while (k < len && c[k] != '(')
			k++;
		if (next_nonblank(c, len, k + 1) == ')')
			return U_TIMING;
	}
	if (n == 13 && !strncmp(s, "__globaltimer", 13))
		return U_TIMING;
	return -1;
}

/* A header the emulator has no stand-in for, on an #include line of src
 * at `line` (its text), or NULL. */
static int bad_header(const char *name, size_t n)
{
	static const char *const pre[] = {"cooperative_groups/", "cub/", "thrust/", "cuda/",
					  "cuda_awbarrier",      NULL};
	if ((n == 11 && !strncmp(name, "cuda_bf16.h", 11)) ||
	    (n == 10 && !strncmp(name, "cuda_fp8.h", 10)))
		return 1;
	for (int i = 0; pre[i]; i++)
		if (starts(name, n, pre[i]))
			return 1;
	return starts(name, n, "sm_") && n > 15 && !strncmp(name + n - 15, "_intrinsics.hpp", 15);
}

static const char *const reasons[U_N] = {"the warp-collective operation %.*s",
					 "cooperative groups (%.*s)",
					 "inline PTX (%.*s)",
					 "libcu++ (%.*s)",
					 "texture or surface access (%.*s)",
					 "the type %.*s",
					 "the header %.*s",
					 "the wmma type %.*s",
					 "%.*s (timing)"};

typedef struct {
	size_t off;
	int cat;
	size_t b, n; /* the text named in the reason */
} hit;

static void add_hit(hit *h, size_t off, int cat, size_t b, size_t n)
{
	if (h[cat].n)
		return; /* the first of each category, as prep.py reports */
	h[cat] = (hit){off, cat, b, n};
}

static void scan_headers(const char *src, size_t len, hit *h)
{
	for (size_t i = 0; i < len;) {
		size_t e = i;
		while (e < len && src[e] != '\n')
			e++;
		size_t k = i;
		while (k < e && isspace((unsigned char)src[k]))
			k++;
		if (k < e && src[k] == '#') {
			k++;
			while (k < e && isspace((unsigned char)src[k]))
				k++;
			if (e - k > 7 && !strncmp(src + k, "include", 7)) {
				k += 7;
				while (k < e && isspace((unsigned char)src[k]))
					k++;
				if (k < e && (src[k] == '<' || src[k] == '"')) {
					char close = src[k] == '<' ? '>' : '"';
					size_t b = k + 1, m = b;
					while (m < e && src[m] != close)
						m++;
					if (bad_header(src + b, m - b))
						add_hit(h, i, U_HEADER, b, m - b);
				}
			}
		}
		i = e + 1;
	}
}

char *kp_prep_unsupported(const char *src, size_t len)
{
	char *c = kp_prep_blank(src, len);
	hit h[U_N];
	memset(h, 0, sizeof(h));
	for (size_t i = 0; i < len;) {
		if (!is_id(c[i]) || (i && is_id(c[i - 1]))) {
			i++;
			continue;
		}
		size_t e = i;
		while (e < len && is_id(c[e]))
			e++;
		if (!isdigit((unsigned char)c[i])) {
			int cat = ident_category(c, len, i, e);
			if (cat >= 0)
				add_hit(h, i, cat, i, e - i);
		}
		i = e;
	}
	scan_headers(src, len, h);
	kp_strbuf sb = KP_STRBUF_INIT;
	for (;;) { /* in order of appearance */
		int best = -1;
		for (int k = 0; k < U_N; k++)
			if (h[k].n && (best < 0 || h[k].off < h[best].off))
				best = k;
		if (best < 0)
			break;
		if (sb.len)
			kp_strbuf_adds(&sb, "; ");
		kp_strbuf_addf(&sb, "line %d: ", line_of(src, h[best].off));
		kp_strbuf_addf(&sb, reasons[best], (int)h[best].n, src + h[best].b);
		h[best].n = 0;
	}
	free(c);
	return sb.len ? kp_strbuf_detach(&sb) : NULL;
}

/* ---- brackets and commas ---------------------------------------------- */

/* Index just past the bracket matching c[i] == open, or 0 when unbalanced. */
static size_t match_close(const char *c, size_t len, size_t i, char open, char close)
{
	int depth = 0;
	for (; i < len; i++) {
		if (c[i] == open)
			depth++;
		else if (c[i] == close && --depth == 0)
			return i + 1;
	}
	return 0;
}

static size_t count_nl(const char *s, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += s[i] == '\n';
	return k;
}

/* Adds t[0..n) on one line (line continuations and breaks as spaces). */
static void add_one_line(kp_strbuf *sb, const char *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (t[i] == '\\' && i + 1 < n && t[i + 1] == '\n') {
			kp_strbuf_addc(sb, ' ');
			i++;
		} else
			kp_strbuf_addc(sb, t[i] == '\n' ? ' ' : t[i]);
	}
}

/* Number of top-level comma-separated parts of c[b..e). */
static int top_parts(const char *c, size_t b, size_t e)
{
	int depth = 0, n = 1;
	for (size_t i = b; i < e; i++) {
		if (strchr("([{", c[i]))
			depth++;
		else if (strchr(")]}", c[i]))
			depth--;
		else if (c[i] == ',' && !depth)
			n++;
	}
	return n;
}

static void trim(const char *s, size_t *b, size_t *e)
{
	while (*b < *e && isspace((unsigned char)s[*b]))
		(*b)++;
	while (*e > *b && isspace((unsigned char)s[*e - 1]))
		(*e)--;
}

/* ---- launches --------------------------------------------------------- */

/* The start of the kernel name before `<<<` at lt (its template arguments
 * and qualification included). */
static size_t launch_name_start(const char *c, size_t lt)
{
	long j = (long)lt - 1;
	while (j >= 0 && isspace((unsigned char)c[j]))
		j--;
	if (j >= 0 && c[j] == '>') {
		int depth = 0;
		for (; j >= 0; j--) {
			if (c[j] == '>')
				depth++;
			else if (c[j] == '<' && --depth == 0)
				break;
		}
		j--;
		while (j >= 0 && isspace((unsigned char)c[j]))
			j--;
	}
	while (j >= 0 && (is_id(c[j]) || c[j] == ':'))
		j--;
	return (size_t)(j + 1);
}

static int fail_at(char **why, const char *c, size_t off, const char *what)
{
	kp_strbuf m = KP_STRBUF_INIT;
	kp_strbuf_addf(&m, "line %d: %s", line_of(c, off), what);
	*why = kp_strbuf_detach(&m);
	return -1;
}

static int rewrite_launches(const char *src, size_t len, char **out, char **why)
{
	char *c = kp_prep_blank(src, len);
	kp_strbuf sb = KP_STRBUF_INIT;
	size_t last = 0, pos = 0;
	int rc = 0;
	for (;;) {
		char *p = memmem(c + pos, len - pos, "<<<", 3);
		if (!p)
			break;
		size_t lt = (size_t)(p - c), start = launch_name_start(c, lt);
		size_t nb = start, ne = lt;
		trim(src, &nb, &ne);
		if (nb == ne) {
			rc = fail_at(why, c, lt, "a launch without a kernel name");
			break;
		}
		size_t k = lt + 3;
		int depth = 0;
		for (; k < len; k++) {
			if (strchr("([{", c[k]))
				depth++;
			else if (strchr(")]}", c[k]))
				depth--;
			else if (!depth && k + 2 < len && !strncmp(c + k, ">>>", 3))
				break;
		}
		if (k >= len) {
			rc = fail_at(why, c, lt, "no >>> after <<<");
			break;
		}
		size_t a = k + 3;
		while (a < len && isspace((unsigned char)c[a]))
			a++;
		size_t end = a < len && c[a] == '(' ? match_close(c, len, a, '(', ')') : 0;
		if (!end) {
			rc = fail_at(why, c, lt, "no argument list after >>>");
			break;
		}
		if (top_parts(c, lt + 3, k) > 4) {
			rc = fail_at(why, c, lt, "launch configuration with more than 4 parts");
			break;
		}
		size_t cb = lt + 3, ce = k, ab = a + 1, ae = end - 1;
		trim(src, &cb, &ce);
		trim(src, &ab, &ae);
		kp_strbuf_add(&sb, src + last, start - last);
		kp_strbuf_adds(&sb, "kp::launch(kp::cfg(");
		add_one_line(&sb, src + cb, ce - cb);
		kp_strbuf_adds(&sb, "), ");
		add_one_line(&sb, src + nb, ne - nb);
		if (ae > ab) {
			kp_strbuf_adds(&sb, ", ");
			add_one_line(&sb, src + ab, ae - ab);
		}
		kp_strbuf_adds(&sb, ")");
		int in_macro = memmem(src + start, end - start, "\\\n", 2) != NULL;
		for (size_t nl = count_nl(src + start, end - start); nl; nl--)
			kp_strbuf_adds(&sb, in_macro ? "\\\n" : "\n");
		last = pos = end;
	}
	free(c);
	if (rc) {
		kp_strbuf_release(&sb);
		return rc;
	}
	kp_strbuf_add(&sb, src + last, len - last);
	*out = kp_strbuf_detach(&sb);
	return 0;
}

/* ---- shared memory ---------------------------------------------------- */

static int word_at(const char *c, size_t len, size_t i, const char *w)
{
	size_t n = strlen(w);
	return i + n <= len && !strncmp(c + i, w, n) && (!i || !is_id(c[i - 1])) &&
	       (i + n == len || !is_id(c[i + n]));
}

/* c[b..e) with __align__(...), alignas(...) and __attribute__((...))
 * blanked (a copy). */
static char *drop_attrs(const char *c, size_t b, size_t e)
{
	static const char *const attrs[] = {"__align__", "alignas", "__attribute__", NULL};
	char *d = kp_xstrndup(c + b, e - b);
	size_t n = e - b;
	for (size_t i = 0; i < n; i++)
		for (int a = 0; attrs[a]; a++)
			if (word_at(d, n, i, attrs[a])) {
				size_t k = i + strlen(attrs[a]);
				while (k < n && isspace((unsigned char)d[k]))
					k++;
				size_t end = k < n && d[k] == '(' ? match_close(d, n, k, '(', ')')
								  : 0;
				if (end)
					memset(d + i, ' ', end - i);
			}
	return d;
}

/* The declared name of a declaration without initializer `T name[..]..`
 * (d, n bytes), as [*b, *e); 0 when there is none. */
static int decl_name(const char *d, size_t n, size_t *b, size_t *e)
{
	size_t j = n;
	while (j && isspace((unsigned char)d[j - 1]))
		j--;
	while (j && d[j - 1] == ']') {
		int depth = 0;
		while (j) {
			j--;
			if (d[j] == ']')
				depth++;
			else if (d[j] == '[' && --depth == 0)
				break;
		}
		while (j && isspace((unsigned char)d[j - 1]))
			j--;
	}
	*e = j;
	while (j && is_id(d[j - 1]))
		j--;
	*b = j;
	return *e > *b && !isdigit((unsigned char)d[*b]);
}

static int preceded_by_extern(const char *c, size_t i)
{
	size_t j = i;
	while (j && isspace((unsigned char)c[j - 1]))
		j--;
	return j >= 6 && word_at(c, i, j - 6, "extern");
}

static char *register_shared(const char *src, size_t len)
{
	char *c = kp_prep_blank(src, len);
	kp_strbuf sb = KP_STRBUF_INIT;
	size_t last = 0;
	int n = 0;
	for (size_t i = 0; i < len; i++) {
		if (!word_at(c, len, i, "__shared__") || preceded_by_extern(c, i))
			continue;
		size_t b = i + 10;
		char *semi = memchr(c + b, ';', len - b);
		if (!semi)
			break;
		size_t end = (size_t)(semi - c);
		char *d = drop_attrs(c, b, end);
		size_t nb, ne;
		if (!strpbrk(d, "=,{}()") && decl_name(d, end - b, &nb, &ne)) {
			kp_strbuf_add(&sb, src + last, end + 1 - last);
			kp_strbuf_addf(&sb, " static kp::ShmReg kp_shm_reg_%d(&%.*s, sizeof %.*s);",
				       n++, (int)(ne - nb), d + nb, (int)(ne - nb), d + nb);
			last = end + 1;
		}
		free(d);
		i = end;
	}
	kp_strbuf_add(&sb, src + last, len - last);
	free(c);
	return kp_strbuf_detach(&sb);
}

/* `extern __shared__ T name[];` -> `T *const name = (T *)kp::dyn_smem_buf;` */
static char *rewrite_extern_shared(const char *src, size_t len)
{
	char *c = kp_prep_blank(src, len);
	kp_strbuf sb = KP_STRBUF_INIT;
	size_t last = 0;
	for (size_t i = 0; i < len; i++) {
		if (!word_at(c, len, i, "extern"))
			continue;
		size_t k = i + 6;
		while (k < len && isspace((unsigned char)c[k]))
			k++;
		if (!word_at(c, len, k, "__shared__"))
			continue;
		size_t b = k + 10;
		char *semi = memchr(c + b, ';', len - b);
		if (!semi)
			break;
		size_t end = (size_t)(semi - c), j = end;
		while (j > b && isspace((unsigned char)c[j - 1]))
			j--;
		if (j < b + 2 || c[j - 1] != ']')
			continue;
		j--;
		while (j > b && isspace((unsigned char)c[j - 1]))
			j--;
		if (c[j - 1] != '[')
			continue;
		j--;
		char *d = drop_attrs(c, b, j);
		size_t nb, ne, tb = 0, te;
		if (strpbrk(d, ";[]{}") || !decl_name(d, j - b, &nb, &ne) || ne != j - b) {
			free(d);
			continue;
		}
		te = nb;
		trim(d, &tb, &te);
		kp_strbuf t = KP_STRBUF_INIT; /* the type, blanks collapsed */
		for (size_t q = tb; q < te; q++)
			if (!isspace((unsigned char)d[q]))
				kp_strbuf_addc(&t, d[q]);
			else if (t.len && t.buf[t.len - 1] != ' ')
				kp_strbuf_addc(&t, ' ');
		kp_strbuf_add(&sb, src + last, i - last);
		kp_strbuf_addf(&sb, "%s *const %.*s = (%s *)kp::dyn_smem_buf;", kp_strbuf_str(&t),
			       (int)(ne - nb), d + nb, kp_strbuf_str(&t));
		for (size_t nl = count_nl(src + i, end + 1 - i); nl; nl--)
			kp_strbuf_addc(&sb, '\n');
		kp_strbuf_release(&t);
		free(d);
		last = end + 1;
		i = end;
	}
	kp_strbuf_add(&sb, src + last, len - last);
	free(c);
	return kp_strbuf_detach(&sb);
}

/* ---- kpipe's inline PTX ----------------------------------------------- */

/* An instruction of a helper's asm template and the call doing its work
 * ({iN}: the N-th input operand, {oN}: the N-th output). */
static const struct {
	const char *insn, *call;
} ptx_calls[] = {
	{"%%dynamic_smem_size", "{o0} = kp::dyn_smem_size();"},
	{"mbarrier.init.shared", "kp::ptx_mbar_init({i0}, {i1});"},
	{"mbarrier.arrive.expect_tx.shared", "kp::ptx_mbar_arrive_tx({i0}, {i1});"},
	{"mbarrier.arrive.shared", "kp::ptx_mbar_arrive({i0});"},
	{"mbarrier.try_wait.parity.shared", "{o0} = kp::ptx_mbar_try_wait_parity({i0}, {i1});"},
	{"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes",
	 "kp::ptx_bulk_copy({i0}, {i1}, {i2}, {i3});"},
	{"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
	 "kp::ptx_tensor_copy_2d({i0}, (const void *)({i1}), {i2}, {i3}, {i4});"},
	{"fence.mbarrier_init.", "(void)0;"},
	{"fence.proxy.async.", "(void)0;"},
};

#define KP_PTX_MAX_OPS 8

typedef struct {
	size_t b[KP_PTX_MAX_OPS], e[KP_PTX_MAX_OPS];
	int n;
} operands;

/* The expressions of `"c"(expr), ...` in s[b..e) (blanked copy c). */
static void parse_operands(const char *s, const char *c, size_t b, size_t e, operands *o)
{
	o->n = 0;
	size_t i = b;
	while (i < e && o->n < KP_PTX_MAX_OPS) {
		while (i < e && c[i] != '(' && c[i] != ',')
			i++;
		if (i >= e)
			break;
		if (c[i] == ',') {
			i++;
			continue;
		}
		size_t end = match_close(c, e, i, '(', ')');
		if (!end)
			break;
		size_t xb = i + 1, xe = end - 1;
		trim(s, &xb, &xe);
		o->b[o->n] = xb;
		o->e[o->n++] = xe;
		i = end;
	}
}

/* The asm statement's parts: template, outputs, inputs (split at ':'
 * outside brackets; c is the blanked copy, where strings hold no ':'). */
static int split_colons(const char *c, size_t b, size_t e, size_t *pb, size_t *pe, int max)
{
	int n = 0, depth = 0;
	pb[0] = b;
	for (size_t i = b; i < e; i++) {
		if (strchr("([{", c[i]))
			depth++;
		else if (strchr(")]}", c[i]))
			depth--;
		else if (c[i] == ':' && !depth) {
			pe[n++] = i;
			if (n == max)
				return n;
			pb[n] = i + 1;
		}
	}
	pe[n++] = e;
	return n;
}

/* The call for one asm statement's text, or NULL when it is not one of
 * kpipe's helpers (it stays, for kp_prep_unsupported to report). */
static char *ptx_call(const char *src, const char *c, size_t b, size_t e)
{
	size_t pb[4], pe[4];
	int np = split_colons(c, b, e, pb, pe, 4);
	kp_strbuf tpl = KP_STRBUF_INIT; /* the template's strings, joined */
	for (size_t i = pb[0]; i < pe[0]; i++)
		if (src[i] == '"') {
			size_t j = i + 1;
			while (j < pe[0] && src[j] != '"')
				j += src[j] == '\\' ? 2 : 1;
			kp_strbuf_add(&tpl, src + i + 1, j - i - 1);
			i = j;
		}
	char *call = NULL;
	for (size_t k = 0; k < KP_ARRAY_LEN(ptx_calls) && !call; k++) {
		if (!strstr(kp_strbuf_str(&tpl), ptx_calls[k].insn))
			continue;
		operands out = {0}, in = {0};
		if (np > 1)
			parse_operands(src, c, pb[1], pe[1], &out);
		if (np > 2)
			parse_operands(src, c, pb[2], pe[2], &in);
		kp_strbuf sb = KP_STRBUF_INIT;
		int ok = 1;
		for (const char *p = ptx_calls[k].call; *p && ok; p++) {
			if (*p != '{') {
				kp_strbuf_addc(&sb, *p);
				continue;
			}
			const operands *o = p[1] == 'i' ? &in : &out;
			int idx = p[2] - '0';
			if (idx >= o->n)
				ok = 0;
			else
				add_one_line(&sb, src + o->b[idx], o->e[idx] - o->b[idx]);
			p += 3;
		}
		call = ok ? kp_strbuf_detach(&sb) : NULL;
		kp_strbuf_release(&sb);
		break;
	}
	kp_strbuf_release(&tpl);
	return call;
}

static char *rewrite_ptx(const char *src, size_t len)
{
	char *c = kp_prep_blank(src, len);
	kp_strbuf sb = KP_STRBUF_INIT;
	size_t last = 0;
	for (size_t i = 0; i < len; i++) {
		size_t k;
		if (word_at(c, len, i, "asm"))
			k = i + 3;
		else if (word_at(c, len, i, "__asm__"))
			k = i + 7;
		else if (word_at(c, len, i, "__asm"))
			k = i + 5;
		else
			continue;
		while (k < len && isspace((unsigned char)c[k]))
			k++;
		if (word_at(c, len, k, "volatile") || word_at(c, len, k, "__volatile__")) {
			k += c[k] == 'v' ? 8 : 12;
			while (k < len && isspace((unsigned char)c[k]))
				k++;
		}
		size_t end = k < len && c[k] == '(' ? match_close(c, len, k, '(', ')') : 0;
		if (!end)
			continue;
		size_t semi = end;
		while (semi < len && isspace((unsigned char)c[semi]))
			semi++;
		if (semi >= len || c[semi] != ';')
			continue;
		char *call = ptx_call(src, c, k + 1, end - 1);
		if (!call)
			continue;
		kp_strbuf_add(&sb, src + last, i - last);
		kp_strbuf_adds(&sb, call);
		for (size_t nl = count_nl(src + i, semi + 1 - i); nl; nl--)
			kp_strbuf_addc(&sb, '\n');
		free(call);
		last = semi + 1;
		i = semi;
	}
	kp_strbuf_add(&sb, src + last, len - last);
	free(c);
	return kp_strbuf_detach(&sb);
}

int kp_prep(const char *src, size_t len, const char *path, char **out, char **why)
{
	*out = *why = NULL;
	char *t1 = rewrite_ptx(src, len);
	char *bad = kp_prep_unsupported(t1, strlen(t1));
	if (bad) {
		free(t1);
		*why = bad;
		return 1;
	}
	char *t2 = NULL;
	if (rewrite_launches(t1, strlen(t1), &t2, why)) {
		free(t1);
		return -1;
	}
	free(t1);
	char *t3 = register_shared(t2, strlen(t2));
	free(t2);
	char *t4 = rewrite_extern_shared(t3, strlen(t3));
	free(t3);
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_adds(&sb, "#line 1 \"");
	for (const char *p = path; *p; p++) {
		if (*p == '\\' || *p == '"')
			kp_strbuf_addc(&sb, '\\');
		kp_strbuf_addc(&sb, *p);
	}
	kp_strbuf_adds(&sb, "\"\n");
	kp_strbuf_adds(&sb, t4);
	free(t4);
	*out = kp_strbuf_detach(&sb);
	return 0;
}

/* ---- the kernels the launch never reaches ------------------------------ */

/* The identifier that ends at e (exclusive) in c, as [*b, e). */
static size_t id_before(const char *c, size_t e)
{
	size_t b = e;
	while (b > 0 && is_id(c[b - 1]))
		b--;
	return b;
}

/* One __global__ definition found from position i of the blanked copy c:
 * its name [nb, ne) and its body's braces [ob, cb]; 0 when the
 * declaration has no body (or is not understood). */
static int global_def(const char *c, size_t len, size_t i, size_t *nb, size_t *ne, size_t *ob,
		      size_t *cb)
{
	*nb = *ne = 0;
	for (size_t k = i; k < len; k++) {
		if (c[k] == ';' || c[k] == '{' || c[k] == '}')
			return 0;
		if (c[k] != '(')
			continue;
		size_t e = k;
		while (e > 0 && isspace((unsigned char)c[e - 1]))
			e--;
		size_t b = id_before(c, e);
		size_t past = match_close(c, len, k, '(', ')');
		if (!past)
			return 0;
		size_t close = past - 1;
		if (b == e || (e - b == 17 && !strncmp(c + b, "__launch_bounds__", 17)) ||
		    (e - b == 13 && !strncmp(c + b, "__attribute__", 13))) {
			k = close;
			continue;
		}
		*nb = b;
		*ne = e;
		for (size_t j = close + 1; j < len; j++) {
			if (c[j] == ';')
				return 0;
			if (c[j] == '{') {
				size_t past = match_close(c, len, j, '{', '}');
				*ob = j;
				*cb = past ? past - 1 : 0;
				return past != 0;
			}
		}
		return 0;
	}
	return 0;
}

char *kp_prep_only_kernel(const char *src, size_t len, const char *kernel)
{
	/* the kernel's own name: no namespace, no template arguments */
	const char *k = kernel ? kernel : "";
	size_t kn = strcspn(k, "<");
	for (size_t i = 0; i + 1 < kn; i++)
		if (k[i] == ':' && k[i + 1] == ':') {
			k += i + 2;
			kn -= i + 2;
			i = (size_t)-1;
		}
	char *c = kp_prep_blank(src, len);
	char *out = kp_xmalloc(len + 1);
	memcpy(out, src, len);
	out[len] = 0;
	int found = 0, launches = 0;
	/* first the kernel itself, then the others' bodies */
	for (int pass = 0; pass < 2 && kn && (pass == 0 || (found && !launches)); pass++)
		for (const char *p = c; (p = strstr(p, "__global__")) != NULL; p += 10) {
			size_t i = (size_t)(p - c), nb, ne, ob, cb;
			if ((i > 0 && is_id(c[i - 1])) || is_id(c[i + 10]) ||
			    !global_def(c, len, i + 10, &nb, &ne, &ob, &cb))
				continue;
			int self = ne - nb == kn && !strncmp(c + nb, k, kn);
			if (pass == 0) {
				found |= self;
				launches |= self && memmem(c + ob, cb - ob, "<<<", 3) != NULL;
			} else if (!self) {
				for (size_t j = ob + 1; j < cb; j++)
					if (out[j] != '\n')
						out[j] = ' ';
			}
		}
	free(c);
	return out;
}
