/*
 * sass.c - parses SASS listings, classifies instructions, finds the main
 * loop of a kernel and decides whether its global loads overlap its math.
 *
 * Reads text only: running cuobjdump or nvdisasm is validate.c's job.  The
 * verdict is static (instruction order in one iteration), not a timing:
 * docs/validate.md states the rules and their limits.
 */
#include "sass.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const class_names[KP_SC_COUNT] = {
	[KP_SC_OTHER] = "OTHER",   [KP_SC_LDGSTS] = "LDGSTS",
	[KP_SC_LDG] = "LDG",       [KP_SC_LDGDEPBAR] = "LDGDEPBAR",
	[KP_SC_DEPBAR] = "DEPBAR", [KP_SC_BAR] = "BAR",
	[KP_SC_MATH] = "MATH",     [KP_SC_LDL] = "LDL",
	[KP_SC_STL] = "STL",       [KP_SC_LDS] = "LDS",
	[KP_SC_STS] = "STS",       [KP_SC_BRA] = "BRA",
	[KP_SC_BULK] = "BULK",     [KP_SC_SYNCS] = "SYNCS",
};

const char *kp_sass_class_name(kp_sass_class c)
{
	return (c >= 0 && c < KP_SC_COUNT) ? class_names[c] : "?";
}

/* Math opcodes (the part before the first '.'), FMA and matrix units. */
static const char *const math_ops[] = {
	"FFMA", "FFMA2", "HFMA2", "DFMA",  "HMMA",  "IMMA",  "DMMA",
	"BMMA", "IDP4A", "IDP",   "HGMMA", "IGMMA", "QGMMA", "BGMMA",
};

static int is_math_op(const char *base)
{
	for (size_t i = 0; i < KP_ARRAY_LEN(math_ops); i++)
		if (strcmp(base, math_ops[i]) == 0)
			return 1;
	/* Blackwell tcgen05 MMAs: UTCHMMA, UTCQMMA, ... */
	size_t n = strlen(base);
	return n > 6 && strncmp(base, "UTC", 3) == 0 && strcmp(base + n - 3, "MMA") == 0;
}

/* The idx-th comma-separated operand, whitespace trimmed, into buf. */
static void nth_operand(const char *ops, int idx, char *buf, size_t bufsz)
{
	buf[0] = '\0';
	int depth = 0, cur = 0;
	const char *start = ops;
	for (const char *p = ops;; p++) {
		if (*p == '[' || *p == '(' || *p == '{')
			depth++;
		else if ((*p == ']' || *p == ')' || *p == '}') && depth > 0)
			depth--;
		if (*p == '\0' || (*p == ',' && depth == 0)) {
			if (cur == idx) {
				while (start < p && isspace((unsigned char)*start))
					start++;
				const char *e = p;
				while (e > start && isspace((unsigned char)e[-1]))
					e--;
				size_t n = (size_t)(e - start);
				if (n >= bufsz)
					n = bufsz - 1;
				memcpy(buf, start, n);
				buf[n] = '\0';
				return;
			}
			if (*p == '\0')
				return;
			cur++;
			start = p + 1;
		}
	}
}

static int is_zero_reg(const char *op)
{
	if (*op == '-' || *op == '|')
		op++;
	return strncmp(op, "RZ", 2) == 0 && !isalnum((unsigned char)op[2]);
}

kp_sass_class kp_sass_classify(const char *pred, const char *opcode, const char *operands)
{
	char base[32];
	size_t n = strcspn(opcode, ".");
	if (n >= sizeof(base))
		return KP_SC_OTHER;
	memcpy(base, opcode, n);
	base[n] = '\0';
	if (!operands)
		operands = "";
	/* Never executed: ptxas pads with `@!PT LDS RZ, [RZ]`. */
	if (pred && strcmp(pred, "@!PT") == 0)
		return KP_SC_OTHER;

	if (strcmp(base, "LDGSTS") == 0)
		return KP_SC_LDGSTS;
	if (strcmp(base, "LDG") == 0)
		return KP_SC_LDG;
	if (strcmp(base, "LDGDEPBAR") == 0)
		return KP_SC_LDGDEPBAR;
	if (strcmp(base, "UBLKCP") == 0 || strcmp(base, "UTMALDG") == 0)
		return KP_SC_BULK;
	if (strcmp(base, "SYNCS") == 0)
		return KP_SC_SYNCS;
	if (strcmp(base, "DEPBAR") == 0)
		return KP_SC_DEPBAR;
	if (strcmp(base, "BAR") == 0)
		return strstr(opcode, ".ARV") ? KP_SC_OTHER : KP_SC_BAR;
	if (strcmp(base, "LDL") == 0)
		return KP_SC_LDL;
	if (strcmp(base, "STL") == 0)
		return KP_SC_STL;
	if (strcmp(base, "LDS") == 0 || strcmp(base, "LDSM") == 0)
		return KP_SC_LDS;
	if (strcmp(base, "STS") == 0)
		return KP_SC_STS;
	if (strcmp(base, "BRA") == 0)
		return KP_SC_BRA;
	if (is_math_op(base)) {
		/* x * 0 + c is how ptxas writes a move on the FMA pipes
		 * (`HFMA2.MMA R23, -RZ, RZ, 0, 0`): not math. */
		if (strstr(base, "FMA")) {
			char a[64], b[64];
			nth_operand(operands, 1, a, sizeof(a));
			nth_operand(operands, 2, b, sizeof(b));
			if (is_zero_reg(a) || is_zero_reg(b))
				return KP_SC_OTHER;
		}
		return KP_SC_MATH;
	}
	return KP_SC_OTHER;
}

/* ---- parsing ---------------------------------------------------------- */

typedef struct {
	char *name;
	int at; /* index of the instruction that follows the label */
} label;

typedef struct {
	kp_sass *s;
	const char *fname;
	kp_sass_insn *insns;
	int ninsns, cap;
	label *labels;
	int nlabels, lcap;
	/* label-valued branch targets waiting for resolution */
	int *pend_insn;
	char **pend_label;
	int npend, pcap;
	kp_sass_func *funcs;
	int nfuncs, fcap;
} parser;

static void grow(void **p, int *cap, int need, size_t elem)
{
	if (need <= *cap)
		return;
	int c = *cap ? *cap * 2 : 64;
	while (c < need)
		c *= 2;
	*p = kp_xrealloc(*p, (size_t)c * elem);
	*cap = c;
}

static void finish_func(parser *ps)
{
	if (!ps->fname)
		return;
	for (int i = 0; i < ps->npend; i++) {
		long t = -1;
		for (int j = 0; j < ps->nlabels; j++)
			if (strcmp(ps->labels[j].name, ps->pend_label[i]) == 0) {
				if (ps->labels[j].at < ps->ninsns)
					t = (long)ps->insns[ps->labels[j].at].addr;
				break;
			}
		ps->insns[ps->pend_insn[i]].target = t;
		free(ps->pend_label[i]);
	}
	for (int j = 0; j < ps->nlabels; j++)
		free(ps->labels[j].name);
	ps->nlabels = ps->npend = 0;

	grow((void **)&ps->funcs, &ps->fcap, ps->nfuncs + 1, sizeof(*ps->funcs));
	kp_sass_func *f = &ps->funcs[ps->nfuncs++];
	f->name = ps->fname;
	f->ninsns = ps->ninsns;
	f->insns = kp_arena_alloc(&ps->s->arena,
				  sizeof(*f->insns) * (size_t)(ps->ninsns ? ps->ninsns : 1));
	if (ps->ninsns)
		memcpy(f->insns, ps->insns, sizeof(*f->insns) * (size_t)ps->ninsns);
	ps->ninsns = 0;
	ps->fname = NULL;
}

static void start_func(parser *ps, const char *name, size_t n)
{
	finish_func(ps);
	while (n > 0 && isspace((unsigned char)name[n - 1]))
		n--;
	ps->fname = kp_arena_strndup(&ps->s->arena, name, n);
}

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* The branch target in the operands: a hex address (cuobjdump), or a label
 * "`(.L_x_1)" (nvdisasm), which is queued for resolution. */
static void parse_target(parser *ps, kp_sass_insn *in, int idx)
{
	const char *ops = in->operands;
	const char *lab = strstr(ops, "`(");
	if (lab) {
		lab += 2;
		size_t n = strcspn(lab, ")");
		grow((void **)&ps->pend_insn, &ps->pcap, ps->npend + 1, sizeof(int));
		ps->pend_label = kp_xrealloc(ps->pend_label, (size_t)ps->pcap * sizeof(char *));
		ps->pend_insn[ps->npend] = idx;
		ps->pend_label[ps->npend] = kp_xstrndup(lab, n);
		ps->npend++;
		return;
	}
	const char *last = strrchr(ops, ',');
	last = skip_ws(last ? last + 1 : ops);
	if (last[0] == '0' && last[1] == 'x') {
		char *end;
		unsigned long v = strtoul(last, &end, 16);
		if (end != last + 2)
			in->target = (long)v;
	}
}

/* One instruction line: the address in a comment, an optional predicate, the
 * opcode, operands up to ';', then (cuobjdump) the encoding in a comment. */
static void parse_insn(parser *ps, const char *line, size_t len)
{
	const char *p = skip_ws(line);
	char *end;
	unsigned long addr = strtoul(p + 2, &end, 16);
	if (end == p + 2 || end[0] != '*' || end[1] != '/')
		return;
	p = skip_ws(end + 2);
	if (*p == '{')
		p = skip_ws(p + 1);
	const char *stop = line + len;
	const char *semi = memchr(p, ';', (size_t)(stop - p));
	if (semi)
		stop = semi;

	kp_arena *a = &ps->s->arena;
	kp_sass_insn in = {.addr = (unsigned)addr, .pred = NULL, .operands = "", .target = -1};
	if (*p == '@') {
		size_t n = strcspn(p, " \t;");
		in.pred = kp_arena_strndup(a, p, n);
		p = skip_ws(p + n);
	}
	size_t n = strcspn(p, " \t;");
	if (n == 0 || p + n > stop)
		return;
	in.opcode = kp_arena_strndup(a, p, n);
	p = skip_ws(p + n);
	const char *e = stop;
	while (e > p && isspace((unsigned char)e[-1]))
		e--;
	if (e > p)
		in.operands = kp_arena_strndup(a, p, (size_t)(e - p));
	in.cls = kp_sass_classify(in.pred, in.opcode, in.operands);

	grow((void **)&ps->insns, &ps->cap, ps->ninsns + 1, sizeof(*ps->insns));
	ps->insns[ps->ninsns] = in;
	if (in.cls == KP_SC_BRA)
		parse_target(ps, &ps->insns[ps->ninsns], ps->ninsns);
	ps->ninsns++;
}

static int is_label_line(const char *p, size_t len)
{
	if (len < 2 || p[len - 1] != ':')
		return 0;
	for (size_t i = 0; i + 1 < len; i++)
		if (!(isalnum((unsigned char)p[i]) || p[i] == '_' || p[i] == '.' || p[i] == '$'))
			return 0;
	return 1;
}

static void parse_line(parser *ps, const char *line, size_t len)
{
	const char *p = skip_ws(line);
	size_t rest = len - (size_t)(p - line);
	while (rest > 0 && isspace((unsigned char)p[rest - 1]))
		rest--;
	if (rest == 0)
		return;

	/* cuobjdump: "Function : NAME" */
	const char *fn = "Function : ";
	if (rest > strlen(fn) && strncmp(p, fn, strlen(fn)) == 0) {
		start_func(ps, p + strlen(fn), rest - strlen(fn));
		return;
	}
	if (p[0] == '/' && p[1] == '*' && isxdigit((unsigned char)p[2])) {
		if (ps->fname)
			parse_insn(ps, p, rest);
		return;
	}
	if (is_label_line(p, rest)) {
		/* nvdisasm: ".text.NAME:" opens a function; other labels name
		 * branch targets. */
		if (rest > 7 && strncmp(p, ".text.", 6) == 0) {
			start_func(ps, p + 6, rest - 7);
			return;
		}
		if (!ps->fname)
			return;
		grow((void **)&ps->labels, &ps->lcap, ps->nlabels + 1, sizeof(*ps->labels));
		ps->labels[ps->nlabels].name = kp_xstrndup(p, rest - 1);
		ps->labels[ps->nlabels].at = ps->ninsns;
		ps->nlabels++;
	}
}

int kp_sass_parse(kp_sass *out, const char *text)
{
	memset(out, 0, sizeof(*out));
	parser ps = {.s = out};
	const char *p = text;
	while (*p) {
		size_t len = strcspn(p, "\n");
		parse_line(&ps, p, len);
		p += len;
		if (*p == '\n')
			p++;
	}
	finish_func(&ps);
	if (ps.nfuncs) {
		out->funcs = kp_arena_alloc(&out->arena, sizeof(*out->funcs) * (size_t)ps.nfuncs);
		memcpy(out->funcs, ps.funcs, sizeof(*out->funcs) * (size_t)ps.nfuncs);
		out->nfuncs = ps.nfuncs;
	}
	free(ps.insns);
	free(ps.labels);
	free(ps.pend_insn);
	free(ps.pend_label);
	free(ps.funcs);
	return out->nfuncs ? 0 : -1;
}

const kp_sass_func *kp_sass_find(const kp_sass *s, const char *name)
{
	for (int i = 0; i < s->nfuncs; i++)
		if (strcmp(s->funcs[i].name, name) == 0)
			return &s->funcs[i];
	return NULL;
}

void kp_sass_release(kp_sass *s)
{
	kp_arena_release(&s->arena);
	s->funcs = NULL;
	s->nfuncs = 0;
}

/* ---- the main loop ---------------------------------------------------- */

typedef struct {
	int begin, end; /* instruction indices */
	int nmath, nload;
} loop_span;

static int index_of_addr(const kp_sass_func *f, long addr)
{
	for (int i = 0; i < f->ninsns; i++)
		if ((long)f->insns[i].addr == addr)
			return i;
	return -1;
}

/* The async loads the overlap is judged by: cp.async, plain loads, and
 * the bulk copies (UBLKCP, UTMALDG) of sm_90+. */
static int is_load(kp_sass_class c)
{
	return c == KP_SC_LDGSTS || c == KP_SC_LDG || c == KP_SC_BULK;
}

static int contains(const loop_span *outer, const loop_span *inner)
{
	return outer != inner && inner->begin >= outer->begin && inner->end <= outer->end &&
	       (inner->begin != outer->begin || inner->end != outer->end);
}

/* From load li, walks forward through the loop [b, e], wrapping over the
 * backward branch, until a barrier or back at li.  Returns the math
 * instructions met; *first gets the first one (-1), *wraps whether the
 * walk wrapped before reaching it, *stop the barrier it stopped at (-1). */
static int walk_from_load(const kp_sass_func *f, int b, int e, int li, int *first, int *wraps,
			  int *stop)
{
	int nmath = 0, wrapped = 0;
	*first = -1;
	*wraps = 0;
	*stop = -1;
	for (int i = li + 1;; i++) {
		if (i > e) {
			i = b;
			wrapped = 1;
		}
		if (i == li)
			break;
		kp_sass_class c = f->insns[i].cls;
		if (c == KP_SC_BAR) {
			*stop = i;
			break;
		}
		if (c == KP_SC_MATH) {
			if (*first < 0) {
				*first = i;
				*wraps = wrapped;
			}
			nmath++;
		}
	}
	return nmath;
}

/* The math instructions between load li and the barrier before it, walking
 * backward with the same wrap-around (the loop holds a barrier). */
static int math_before_load(const kp_sass_func *f, int b, int e, int li)
{
	int nmath = 0;
	for (int i = li - 1;; i--) {
		if (i < b)
			i = e;
		if (i == li || f->insns[i].cls == KP_SC_BAR)
			break;
		nmath += f->insns[i].cls == KP_SC_MATH;
	}
	return nmath;
}

/* One load: the math it is in flight over, the math of its barrier
 * interval (the stretch between two barriers, the whole loop without
 * one), and the barrier closing that interval. */
typedef struct {
	int i, n, m, first, wraps, stop;
} load_walk;

/* The overlap verdict.  ptxas unrolls the rewritten loop too, each copy
 * with its barrier, so a load is judged against the math of its own
 * barrier interval (one iteration as compiled): it overlaps when it is in
 * flight over at least half of it.  Every interval that holds loads must
 * have one that overlaps; the load reported is the best one of the first
 * interval that has none, or else the one in flight over the most math. */
static void judge(kp_sass_loop *l, const kp_sass_func *f)
{
	const kp_sass_insn *in = f->insns;
	int nl = 0;
	for (int i = l->begin; i <= l->end; i++)
		nl += is_load(in[i].cls);
	load_walk *w = kp_xcalloc((size_t)(nl ? nl : 1), sizeof(*w));
	nl = 0;
	for (int i = l->begin; i <= l->end; i++) {
		if (!is_load(in[i].cls))
			continue;
		load_walk *x = &w[nl++];
		x->i = i;
		x->n = walk_from_load(f, l->begin, l->end, i, &x->first, &x->wraps, &x->stop);
		x->m = l->nbars ? x->n + math_before_load(f, l->begin, l->end, i)
				: l->counts[KP_SC_MATH];
	}
	const load_walk *best = NULL, *bad = NULL;
	for (int a = 0; a < nl; a++)
		if (w[a].n > 0 && (!best || w[a].n > best->n))
			best = &w[a];
	for (int a = 0; a < nl && !bad; a++) {
		const load_walk *ib = &w[a]; /* the best load of w[a]'s interval */
		for (int c = 0; c < nl; c++)
			if (w[c].stop == w[a].stop && w[c].n > ib->n)
				ib = &w[c];
		if (ib->n == 0 || ib->n * 2 < ib->m)
			bad = ib;
	}
	const load_walk *r = bad ? bad : best;
	l->overlap = best && !bad;
	l->overlap_load = r ? r->i : -1;
	l->overlap_math = r ? r->first : -1;
	l->overlap_nmath = r ? r->n : 0;
	l->overlap_wraps = r ? r->wraps : 0;

	if (!l->has_loads) {
		snprintf(l->reason, sizeof(l->reason),
			 "the main loop /*%04x*/../*%04x*/ issues no LDG, LDGSTS or bulk copy",
			 l->begin_addr, l->end_addr);
	} else if (r && r->first >= 0) {
		char of[96];
		if (r->m != l->counts[KP_SC_MATH])
			snprintf(of, sizeof(of),
				 "%d math instructions between its barriers (%d in "
				 "the loop)",
				 r->m, l->counts[KP_SC_MATH]);
		else
			snprintf(of, sizeof(of), "%d math instructions", r->m);
		snprintf(l->reason, sizeof(l->reason),
			 "%s /*%04x*/ is in flight during %s%d of %s (first: %s /*%04x*/%s), no "
			 "barrier between%s",
			 in[r->i].opcode, in[r->i].addr, l->overlap ? "" : "only ", r->n, of,
			 in[r->first].opcode, in[r->first].addr, r->wraps ? ", next iteration" : "",
			 l->overlap ? "" : ": the loads are issued after most of the math");
	} else {
		int li = r ? r->i : l->first_load;
		int bar = -1;
		for (int k = 0; k < l->nbars && k < KP_SASS_MAX_BARS; k++)
			if (l->bars[k] > li) {
				bar = l->bars[k];
				break;
			}
		if (bar < 0 && l->nbars > 0)
			bar = l->bars[0];
		if (bar >= 0)
			snprintf(
				l->reason, sizeof(l->reason),
				"every load is followed by a barrier before any math (%s /*%04x*/, "
				"then %s /*%04x*/)",
				in[li].opcode, in[li].addr, in[bar].opcode, in[bar].addr);
		else
			snprintf(l->reason, sizeof(l->reason),
				 "no math follows the loads in the loop");
	}
	free(w);
}

int kp_sass_main_loop(kp_sass_loop *out, const kp_sass_func *f)
{
	memset(out, 0, sizeof(*out));
	out->begin = out->end = out->first_load = out->first_math = -1;
	out->overlap_load = out->overlap_math = -1;

	/* One loop per backward-branch target, closed by its last branch. */
	loop_span *loops = kp_xcalloc((size_t)(f->ninsns ? f->ninsns : 1), sizeof(*loops));
	int nloops = 0;
	for (int i = 0; i < f->ninsns; i++) {
		const kp_sass_insn *b = &f->insns[i];
		if (b->cls != KP_SC_BRA || b->target < 0 || b->target >= (long)b->addr)
			continue; /* forward, unknown, or the `BRA self` after EXIT */
		int t = index_of_addr(f, b->target);
		if (t < 0)
			continue;
		out->nbackward++;
		int k;
		for (k = 0; k < nloops; k++)
			if (loops[k].begin == t)
				break;
		if (k == nloops)
			loops[nloops++] = (loop_span){.begin = t, .end = i};
		else if (i > loops[k].end)
			loops[k].end = i;
	}
	out->nloops = nloops;
	for (int k = 0; k < nloops; k++)
		for (int i = loops[k].begin; i <= loops[k].end; i++) {
			loops[k].nmath += f->insns[i].cls == KP_SC_MATH;
			loops[k].nload += is_load(f->insns[i].cls);
		}

	/* Candidates hold loads and math.  Keep the innermost of nested
	 * candidates (an outer persistent-tile loop also holds the K-loop's
	 * loads and math); inner compute loops without loads are no
	 * candidates, so the K-loop encloses them.  Then most math wins, then
	 * the longer span. */
	int pick = -1;
	for (int pass = 0; pass < 2 && pick < 0; pass++) {
		for (int k = 0; k < nloops; k++) {
			loop_span *c = &loops[k];
			if (c->nmath == 0 || (pass == 0 && c->nload == 0))
				continue;
			int has_inner = 0;
			for (int j = 0; pass == 0 && j < nloops && !has_inner; j++)
				has_inner = loops[j].nmath > 0 && loops[j].nload > 0 &&
					    contains(c, &loops[j]);
			if (has_inner)
				continue;
			if (pick < 0 || c->nmath > loops[pick].nmath ||
			    (c->nmath == loops[pick].nmath &&
			     c->end - c->begin > loops[pick].end - loops[pick].begin))
				pick = k;
		}
	}
	if (pick < 0) {
		free(loops);
		snprintf(out->reason, sizeof(out->reason),
			 nloops ? "no loop holds math instructions"
				: "no backward branch: no loop");
		return -1;
	}

	out->found = 1;
	out->begin = loops[pick].begin;
	out->end = loops[pick].end;
	free(loops);
	out->begin_addr = f->insns[out->begin].addr;
	out->end_addr = f->insns[out->end].addr;
	for (int i = out->begin; i <= out->end; i++) {
		kp_sass_class c = f->insns[i].cls;
		out->counts[c]++;
		if (is_load(c) && out->first_load < 0)
			out->first_load = i;
		if (c == KP_SC_MATH && out->first_math < 0)
			out->first_math = i;
		if (c == KP_SC_BAR) {
			if (out->nbars < KP_SASS_MAX_BARS)
				out->bars[out->nbars] = i;
			out->nbars++;
		}
	}
	out->has_loads = out->first_load >= 0;
	judge(out, f);
	return 0;
}

int kp_sass_math_equal(const kp_sass_loop *orig, const kp_sass_loop *rew, char *msg, size_t msgsz)
{
	int a = orig->counts[KP_SC_MATH], b = rew->counts[KP_SC_MATH];
	if (msgsz)
		msg[0] = '\0';
	if (a == b)
		return 1;
	/* nvcc may unroll one loop and not the other: the comparison is per
	 * tile, and the global loads per iteration count the tiles */
	int la = orig->counts[KP_SC_LDG] + orig->counts[KP_SC_LDGSTS] + orig->counts[KP_SC_BULK];
	int lb = rew->counts[KP_SC_LDG] + rew->counts[KP_SC_LDGSTS] + rew->counts[KP_SC_BULK];
	if (a > 0 && b > 0 && la > 0 && lb > 0 && (long)a * lb == (long)b * la) {
		if (msgsz)
			snprintf(
				msg, msgsz,
				"math per tile equal: original %d per %d loads, rewritten %d per %d "
				"loads (one loop is unrolled %dx more)",
				a, la, b, lb, a > b ? a / b : b / a);
		return 1;
	}
	if (msgsz) {
		if (a > 0 && b > 0 && (a % b == 0 || b % a == 0))
			snprintf(
				msg, msgsz,
				"math per iteration differs: original %d, rewritten %d (a %dx ratio: "
				"the loops may be unrolled differently)",
				a, b, a > b ? a / b : b / a);
		else
			snprintf(msg, msgsz,
				 "math per iteration differs: original %d, rewritten %d", a, b);
	}
	return 0;
}

static int str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

int kp_sass_same_code(const kp_sass_func *a, const kp_sass_func *b)
{
	if (a->ninsns != b->ninsns)
		return 0;
	for (int i = 0; i < a->ninsns; i++) {
		const kp_sass_insn *x = &a->insns[i], *y = &b->insns[i];
		if (!str_eq(x->pred, y->pred) || !str_eq(x->opcode, y->opcode))
			return 0;
		/* Branch operands hold addresses, which move with the code. */
		if (x->cls != KP_SC_BRA && !str_eq(x->operands, y->operands))
			return 0;
	}
	return 1;
}

/* ---- excerpt ---------------------------------------------------------- */

static const char *tag_of(kp_sass_class c)
{
	switch (c) {
	case KP_SC_LDGSTS:
	case KP_SC_LDG:
	case KP_SC_BULK: return "LOAD";
	case KP_SC_LDGDEPBAR:
	case KP_SC_DEPBAR:
	case KP_SC_SYNCS: return "FENCE";
	case KP_SC_BAR: return "BAR";
	case KP_SC_MATH: return "MATH";
	case KP_SC_LDL:
	case KP_SC_STL: return "LOCAL";
	case KP_SC_BRA: return "BRA";
	default: return NULL;
	}
}

static void add_insn_line(kp_strbuf *sb, const char *tag, const kp_sass_insn *in, int mark)
{
	kp_strbuf_addf(sb, "  %-5s %c/*%04x*/ ", tag, mark ? '>' : ' ', in->addr);
	if (in->pred)
		kp_strbuf_addf(sb, "%s ", in->pred);
	kp_strbuf_adds(sb, in->opcode);
	if (in->operands[0])
		kp_strbuf_addf(sb, " %s", in->operands);
	kp_strbuf_adds(sb, " ;\n");
}

char *kp_sass_excerpt(const kp_sass_func *f, const kp_sass_loop *l, int max_lines)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	if (!l->found)
		return kp_strbuf_detach(&sb);
	int lines = 0, dropped = 0;
	for (int i = l->begin; i <= l->end; i++) {
		const kp_sass_insn *in = &f->insns[i];
		const char *tag = tag_of(in->cls);
		if (!tag)
			continue;
		if (lines >= max_lines) {
			dropped++;
			continue;
		}
		int mark = i == l->overlap_load || i == l->overlap_math;
		add_insn_line(&sb, tag, in, mark);
		lines++;
		if (in->cls != KP_SC_MATH)
			continue;
		/* Fold the rest of a run of math (other untagged instructions,
		 * such as LDS, may sit inside the run). */
		int n = 0, last = i, j;
		for (j = i + 1; j <= l->end; j++) {
			kp_sass_class c = f->insns[j].cls;
			if (c == KP_SC_MATH) {
				if (j == l->overlap_math)
					break;
				n++;
				last = j;
			} else if (tag_of(c)) {
				break;
			}
		}
		if (n > 0) {
			if (lines < max_lines) {
				kp_strbuf_addf(&sb, "  %-5s  ... %d more math up to /*%04x*/\n", "",
					       n, f->insns[last].addr);
				lines++;
			} else {
				dropped++;
			}
			i = last;
		}
	}
	if (dropped)
		kp_strbuf_addf(&sb, "  ... %d more lines\n", dropped);
	return kp_strbuf_detach(&sb);
}
