/*
 * edit.c - applying edit lists and producing unified diffs.
 *
 * The diff is Myers' O(ND) shortest edit script over lines (E. Myers, "An
 * O(ND) difference algorithm and its variations", 1986: the greedy forward
 * search, a trace of each step's furthest reaching paths kept for the way
 * back), run on the region that differs (common prefix and suffix trimmed
 * first), grouped into hunks with three lines of context, in the format
 * git apply and patch accept.  A rewrite changes few lines of a file, so D
 * is small whatever the file's length.
 */
#include "edit.h"

#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void kp_edits_add(kp_edits *e, unsigned off, unsigned len, const char *text)
{
	if (e->n == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 16;
		e->v = kp_xrealloc(e->v, sizeof(*e->v) * (size_t)e->cap);
	}
	e->v[e->n] = (kp_edit){off, len, kp_xstrdup(text), e->n, NULL};
	e->n++;
}

void kp_edits_add_once(kp_edits *e, unsigned off, const char *text, const char *once)
{
	kp_edits_add(e, off, 0, text);
	e->v[e->n - 1].once = once;
}

static int cmp_edit(const void *a, const void *b)
{
	const kp_edit *x = a, *y = b;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	/* at one offset: insertions before the replacement that starts there */
	if ((x->len == 0) != (y->len == 0))
		return x->len == 0 ? -1 : 1;
	return x->seq - y->seq;
}

int kp_edits_apply(const kp_edits *e, const char *src, size_t len, char **out, size_t *outlen)
{
	kp_edit *v = kp_xmalloc(sizeof(*v) * (size_t)(e->n ? e->n : 1));
	if (e->n)
		memcpy(v, e->v, sizeof(*v) * (size_t)e->n);
	qsort(v, (size_t)e->n, sizeof(*v), cmp_edit);
	kp_strbuf sb = KP_STRBUF_INIT;
	size_t pos = 0;
	for (int i = 0; i < e->n; i++) {
		if (v[i].off < pos || (size_t)v[i].off + v[i].len > len) {
			free(v);
			kp_strbuf_release(&sb);
			return -1;
		}
		kp_strbuf_add(&sb, src + pos, v[i].off - pos);
		kp_strbuf_adds(&sb, v[i].text);
		pos = (size_t)v[i].off + v[i].len;
	}
	kp_strbuf_add(&sb, src + pos, len - pos);
	free(v);
	*outlen = sb.len;
	*out = kp_strbuf_detach(&sb);
	return 0;
}

int kp_edits_origin(const kp_edits *e, size_t out_off, size_t *src_off)
{
	/* sorted as kp_edits_apply() sorts them; seq is the index in e->v */
	kp_edit *v = kp_xmalloc(sizeof(*v) * (size_t)(e->n ? e->n : 1));
	if (e->n)
		memcpy(v, e->v, sizeof(*v) * (size_t)e->n);
	qsort(v, (size_t)e->n, sizeof(*v), cmp_edit);
	size_t src = 0, out = 0;
	int hit = -1;
	for (int i = 0; i < e->n && hit < 0; i++) {
		size_t same = v[i].off > src ? v[i].off - src : 0;
		if (out_off < out + same)
			break;
		out += same;
		src += same;
		size_t tl = strlen(v[i].text);
		if (out_off < out + tl)
			hit = v[i].seq;
		out += tl;
		src = (size_t)v[i].off + v[i].len;
	}
	if (hit < 0)
		*src_off = src + (out_off - out);
	free(v);
	return hit;
}

int kp_edits_runs(const kp_edits *e, size_t len, kp_edit_run **runs, int *n)
{
	kp_edit *v = kp_xmalloc(sizeof(*v) * (size_t)(e->n ? e->n : 1));
	if (e->n)
		memcpy(v, e->v, sizeof(*v) * (size_t)e->n);
	qsort(v, (size_t)e->n, sizeof(*v), cmp_edit);
	kp_edit_run *r = kp_xmalloc(sizeof(*r) * (size_t)(e->n + 1));
	int m = 0;
	size_t pos = 0, out = 0;
	for (int i = 0; i <= e->n; i++) {
		size_t off = i < e->n ? v[i].off : len;
		if (off < pos || (i < e->n && off + v[i].len > len)) {
			free(v);
			free(r);
			*runs = NULL;
			*n = 0;
			return -1;
		}
		if (off > pos)
			r[m++] = (kp_edit_run){out, pos, off - pos};
		out += off - pos;
		if (i < e->n) {
			out += strlen(v[i].text);
			pos = off + v[i].len;
		}
	}
	free(v);
	*runs = r;
	*n = m;
	return 0;
}

/* An edit as a range [o, e) of a's result, of a (src [so, se)) or of b. */
typedef struct {
	size_t o, e;
	int from_a;
	size_t so, se;
	int ai; /* from_a: the index in the sorted edits of a */
} span;

static int cmp_span(const void *x, const void *y)
{
	const span *p = x, *q = y;
	if (p->o != q->o)
		return p->o < q->o ? -1 : 1;
	return q->from_a - p->from_a; /* a's edit first: it gives the source start */
}

/* The offset in the source of offset p of a's result (sorted edits v),
 * where p is source text or an edge of an edit's text. */
static size_t source_of(const kp_edit *v, int n, size_t p)
{
	long d = 0; /* result - source, before edit i */
	for (int i = 0; i < n; i++) {
		size_t ao = (size_t)((long)v[i].off + d), tl = strlen(v[i].text);
		if (p <= ao)
			break;
		if (p < ao + tl)
			return v[i].off;
		d += (long)tl - (long)v[i].len;
	}
	return (size_t)((long)p - d);
}

int kp_edits_compose(const kp_edits *a, const char *src, size_t len, const kp_edits *b,
		     kp_edits *out)
{
	char *mid = NULL, *fin = NULL;
	size_t mlen, flen;
	if (kp_edits_apply(a, src, len, &mid, &mlen))
		return -1;
	if (kp_edits_apply(b, mid, mlen, &fin, &flen)) {
		free(mid);
		return -1;
	}
	free(fin);
	kp_edit *v = kp_xmalloc(sizeof(*v) * (size_t)(a->n ? a->n : 1));
	if (a->n)
		memcpy(v, a->v, sizeof(*v) * (size_t)a->n);
	qsort(v, (size_t)a->n, sizeof(*v), cmp_edit);
	int ns = a->n + b->n;
	span *s = kp_xmalloc(sizeof(*s) * (size_t)(ns ? ns : 1));
	long d = 0;
	for (int i = 0; i < a->n; i++) {
		size_t ao = (size_t)((long)v[i].off + d), tl = strlen(v[i].text);
		s[i] = (span){ao, ao + tl, 1, v[i].off, (size_t)v[i].off + v[i].len, i};
		d += (long)tl - (long)v[i].len;
	}
	for (int i = 0; i < b->n; i++) {
		size_t o = b->v[i].off, e = o + b->v[i].len;
		s[a->n + i] = (span){o, e, 0, source_of(v, a->n, o), source_of(v, a->n, e), -1};
	}
	qsort(s, (size_t)ns, sizeof(*s), cmp_span);
	for (int i = 0; i < ns;) {
		/* the group of spans that touch s[i] */
		size_t o = s[i].o, e = s[i].e, so = s[i].so, se = s[i].se;
		int j = i + 1, with_b = !s[i].from_a;
		for (; j < ns && s[j].o <= e; j++) {
			if (s[j].e > e)
				e = s[j].e;
			so = s[j].so < so ? s[j].so : so;
			se = s[j].se > se ? s[j].se : se;
			with_b |= !s[j].from_a;
		}
		if (!with_b) { /* edits of a only: as they are */
			for (int k = i; k < j; k++)
				kp_edits_add(out, v[s[k].ai].off, v[s[k].ai].len, v[s[k].ai].text);
			i = j;
			continue;
		}
		kp_edits part = {0};
		for (int k = 0; k < b->n; k++)
			if (b->v[k].off >= o && b->v[k].off + b->v[k].len <= e)
				kp_edits_add(&part, (unsigned)(b->v[k].off - o), b->v[k].len,
					     b->v[k].text);
		char *t = NULL;
		size_t tn;
		kp_edits_apply(&part, mid + o, e - o, &t, &tn);
		kp_edits_add(out, (unsigned)so, (unsigned)(se - so), t);
		free(t);
		kp_edits_release(&part);
		i = j;
	}
	free(s);
	free(v);
	free(mid);
	return 0;
}

void kp_edits_release(kp_edits *e)
{
	for (int i = 0; i < e->n; i++)
		free(e->v[i].text);
	free(e->v);
	e->v = NULL;
	e->n = e->cap = 0;
}

typedef struct {
	const char *p;
	size_t n; /* bytes including the newline, if any */
} line_t;

static line_t *split_lines(const char *s, size_t len, int *count)
{
	int cap = 64, n = 0;
	line_t *v = kp_xmalloc(sizeof(*v) * (size_t)cap);
	size_t i = 0;
	while (i < len) {
		size_t j = i;
		while (j < len && s[j] != '\n')
			j++;
		if (j < len)
			j++;
		if (n == cap) {
			cap *= 2;
			v = kp_xrealloc(v, sizeof(*v) * (size_t)cap);
		}
		v[n++] = (line_t){s + i, j - i};
		i = j;
	}
	*count = n;
	return v;
}

static int line_eq(line_t a, line_t b) { return a.n == b.n && !memcmp(a.p, b.p, a.n); }

typedef enum { OP_EQ, OP_DEL, OP_ADD } op_t;

static void emit_line(kp_strbuf *sb, char tag, line_t l)
{
	kp_strbuf_addc(sb, tag);
	kp_strbuf_add(sb, l.p, l.n);
	if (!l.n || l.p[l.n - 1] != '\n')
		kp_strbuf_adds(sb, "\n\\ No newline at end of file\n");
}

/* The most differing lines myers() searches: its trace holds (D + 1)^2
 * path ends, 64 MB at this bound; past it (or past its comparison budget)
 * kp_diff() writes the region as deleted and added. */
#define MYERS_MAX_D 4000

/* The shortest edit script turning a[0..n) into b[0..m): appends its ops
 * (equal, delete, add, in order; a deletion before an addition where
 * either would do) to ops and adds their count to *nops.  Returns 0,
 * appending nothing, when it needs more than MYERS_MAX_D deletions and
 * additions. */
static int myers(const line_t *a, int n, const line_t *b, int m, op_t *ops, int *nops)
{
	/* the search costs up to (n + m) line comparisons a step: a long
	 * region gets fewer steps (400 million comparisons at most) */
	long long cap = 400000000LL / ((long long)n + m + 1);
	int max = n + m, dmax = max < MYERS_MAX_D ? max : MYERS_MAX_D;
	if (dmax > cap)
		dmax = (int)cap;
	/* v[off + k]: the furthest x reached on diagonal k = x - y */
	int off = max + 1, *v = kp_xcalloc((size_t)(2 * max + 3), sizeof(int));
	/* trace[d]: v[off - d .. off + d] after step d */
	int **trace = kp_xcalloc((size_t)dmax + 1, sizeof(*trace));
	int found = -1;
	for (int d = 0; d <= dmax && found < 0; d++) {
		for (int k = -d; k <= d; k += 2) {
			int x = k == -d || (k != d && v[off + k - 1] < v[off + k + 1])
					? v[off + k + 1]      /* down: b[y] added */
					: v[off + k - 1] + 1; /* right: a[x] deleted */
			int y = x - k;
			while (x < n && y < m && line_eq(a[x], b[y])) {
				x++;
				y++;
			}
			v[off + k] = x;
			if (x >= n && y >= m) {
				found = d;
				break;
			}
		}
		trace[d] = kp_xmalloc(sizeof(int) * (size_t)(2 * d + 1));
		memcpy(trace[d], v + off - d, sizeof(int) * (size_t)(2 * d + 1));
	}
	if (found >= 0) {
		/* back from (n, m): ops in reverse, at the end of the array */
		int len = 0, x = n, y = m;
		op_t *rev = kp_xmalloc(sizeof(*rev) * (size_t)(n + m + 1));
		for (int d = found; d > 0; d--) {
			const int *pv = trace[d - 1] + (d - 1); /* pv[k], k in -(d-1)..d-1 */
			int k = x - y;
			int down = k == -d || (k != d && pv[k - 1] < pv[k + 1]);
			int pk = down ? k + 1 : k - 1;
			int px = pv[pk], py = px - pk;
			while (x > px + !down && y > py + down) {
				rev[len++] = OP_EQ;
				x--;
				y--;
			}
			rev[len++] = down ? OP_ADD : OP_DEL;
			x = px;
			y = py;
		}
		while (x > 0 && y > 0) {
			rev[len++] = OP_EQ;
			x--;
			y--;
		}
		for (int i = len - 1; i >= 0; i--)
			ops[(*nops)++] = rev[i];
		free(rev);
	}
	for (int d = 0; d <= dmax; d++)
		free(trace[d]);
	free(trace);
	free(v);
	return found >= 0;
}

char *kp_diff(const char *label_a, const char *a, size_t alen, const char *label_b, const char *b,
	      size_t blen)
{
	int na, nb;
	line_t *la = split_lines(a, alen, &na);
	line_t *lb = split_lines(b, blen, &nb);
	int pre = 0;
	while (pre < na && pre < nb && line_eq(la[pre], lb[pre]))
		pre++;
	int suf = 0;
	while (suf < na - pre && suf < nb - pre && line_eq(la[na - 1 - suf], lb[nb - 1 - suf]))
		suf++;
	int ma = na - pre - suf, mb = nb - pre - suf;
	/* ops over the whole file */
	int nops = 0, capops = na + nb + 1;
	op_t *ops = kp_xmalloc(sizeof(*ops) * (size_t)capops);
	for (int i = 0; i < pre; i++)
		ops[nops++] = OP_EQ;
	if (!myers(la + pre, ma, lb + pre, mb, ops, &nops)) {
		/* more differences than MYERS_MAX_D: every line of the region
		 * deleted, then every line added (a valid diff, not a short one) */
		for (int i = 0; i < ma; i++)
			ops[nops++] = OP_DEL;
		for (int j = 0; j < mb; j++)
			ops[nops++] = OP_ADD;
	}
	for (int i = 0; i < suf; i++)
		ops[nops++] = OP_EQ;

	kp_strbuf sb = KP_STRBUF_INIT;
	int k = 0;
	int ai = 0, bi = 0; /* line indexes before op k */
	const int ctx = 3;
	int header = 0;
	while (k < nops) {
		if (ops[k] == OP_EQ) {
			k++;
			ai++;
			bi++;
			continue;
		}
		/* hunk start: back up ctx lines */
		int hs = k, back = 0;
		while (hs > 0 && back < ctx && ops[hs - 1] == OP_EQ) {
			hs--;
			back++;
		}
		int ha = ai - back, hb = bi - back;
		/* hunk end: extend while the gap between changes is <= 2*ctx */
		int he = k, eqrun = 0;
		while (he < nops) {
			if (ops[he] == OP_EQ) {
				if (eqrun + 1 > 2 * ctx)
					break;
				eqrun++;
			} else
				eqrun = 0;
			he++;
		}
		if (eqrun > ctx)
			he -= eqrun - ctx;
		int ca = 0, cb = 0;
		for (int x = hs; x < he; x++) {
			if (ops[x] != OP_ADD)
				ca++;
			if (ops[x] != OP_DEL)
				cb++;
		}
		if (!header) {
			kp_strbuf_addf(&sb, "--- %s\n+++ %s\n", label_a, label_b);
			header = 1;
		}
		kp_strbuf_addf(&sb, "@@ -%d,%d +%d,%d @@\n", ca ? ha + 1 : ha, ca, cb ? hb + 1 : hb,
			       cb);
		int x = ha, y = hb;
		for (int o = hs; o < he; o++) {
			if (ops[o] == OP_EQ) {
				emit_line(&sb, ' ', la[x]);
				x++;
				y++;
			} else if (ops[o] == OP_DEL)
				emit_line(&sb, '-', la[x++]);
			else
				emit_line(&sb, '+', lb[y++]);
		}
		ai = x;
		bi = y;
		k = he;
	}
	free(ops);
	free(la);
	free(lb);
	return kp_strbuf_detach(&sb);
}
