/*
 * split.c - one loop for two groups of targets (transform.h,
 * kp_split_apply): the edits of two transforms of the same loop, the one
 * for the newer targets under `#if !defined(__CUDA_ARCH__) ||
 * __CUDA_ARCH__ >= NNN` and the other in the #else.  The host pass sees
 * the first, which is what a build for the newer targets alone compiles
 * today.  Everything but the loop itself (the tile declarations, an
 * #include) must be the same edit in both, or appear in one only without
 * touching the other's: the plan gave both the same number of buffers, so
 * the declarations agree.
 *
 * Where the older targets have no form (kp_tplan.lo_asis), the #else
 * holds the loop as written, and the lines the newer form edits outside
 * the loop (the tile declarations, a tile's uses after the loop) are
 * guarded the same way, each group of edited lines with the lines as
 * written in its #else: each branch declares the tiles its loop indexes.
 */
#include "transform.h"

#include <stdlib.h>
#include <string.h>

/* The edit of `e` that replaces the loop (it covers the loop's node). */
static int loop_edit(const kp_edits *e, const kp_loop *l)
{
	for (int i = 0; i < e->n; i++)
		if (e->v[i].off <= l->node->begin && e->v[i].off + e->v[i].len >= l->node->end)
			return i;
	return -1;
}

static int same_edit(const kp_edit *a, const kp_edit *b)
{
	return a->off == b->off && a->len == b->len && !strcmp(a->text, b->text);
}

static int touches(const kp_edit *a, const kp_edit *b)
{
	return a->off <= b->off + b->len && b->off <= a->off + a->len;
}

/* Adds the edits of `a` but its loop edit ia, checking them against b's
 * (ib its loop edit): each is in b too (added once, from a's side) or
 * touches none of b's.  0, or -1. */
static int add_rest(kp_edits *out, const kp_edits *a, int ia, const kp_edits *b, int ib, int first)
{
	for (int i = 0; i < a->n; i++) {
		if (i == ia)
			continue;
		int twin = 0, clash = 0;
		for (int k = 0; k < b->n; k++) {
			if (k == ib)
				clash |= touches(&a->v[i], &b->v[k]) && a->v[i].len > 0;
			else if (same_edit(&a->v[i], &b->v[k]))
				twin = 1;
			else if (touches(&a->v[i], &b->v[k]))
				clash = 1;
		}
		if (clash && !twin)
			return -1;
		if (!twin || first) {
			kp_edits_add(out, a->v[i].off, a->v[i].len, a->v[i].text);
			out->v[out->n - 1].once = a->v[i].once;
		}
	}
	return 0;
}

/* Appends `rest` to out, each edit's `once` name with it. */
static void append_edits(kp_edits *out, const kp_edits *rest)
{
	for (int i = 0; i < rest->n; i++) {
		kp_edits_add(out, rest->v[i].off, rest->v[i].len, rest->v[i].text);
		out->v[out->n - 1].once = rest->v[i].once; /* one #include per file */
	}
}

/* The start of the line holding offset o, and the end of the line
 * holding offset e (its newline, or the end of the file). */
static unsigned line_start(const kp_file *f, unsigned o)
{
	while (o > 0 && f->src[o - 1] != '\n')
		o--;
	return o;
}

static unsigned line_end(const kp_file *f, unsigned e)
{
	while (e < f->len && f->src[e] != '\n')
		e++;
	return e;
}

/* Whether a shared array other than l's loaded tiles is declared in
 * [b, e): another loop may edit it, and the wrapped lines would clash. */
static int other_shared_decl(const kp_file *f, const kp_loop *l, unsigned b, unsigned e)
{
	for (int i = 0; i < f->ndecls; i++) {
		const kp_decl *d = f->decls[i];
		if (!d->is_shared || d->name_off < b || d->name_off >= e)
			continue;
		int mine = 0;
		for (int t = 0; t < l->ntiles; t++)
			mine |= l->tiles[t].arr == d;
		if (!mine)
			return 1;
	}
	return 0;
}

/* The older targets keep the loop as written: hi's edits outside the loop
 * (the tile declarations' stage dimensions, uses of a tile after the
 * loop) are made whole lines at a time, the edited lines under the guard
 * and the lines as written in the #else; what the file needs once (an
 * #include, helpers) as it is.  0, or -1 with *err. */
static int add_asis_rest(const kp_file *f, const kp_loop *l, const kp_edits *hi, int ih,
			 int guard_cc, kp_edits *out, const char **err)
{
	int n = hi->n;
	char *taken = kp_xcalloc((size_t)n + 1, 1);
	int rc = 0;
	for (int i = 0; i < n && !rc; i++) {
		if (i == ih || taken[i])
			continue;
		if (hi->v[i].once) {
			kp_edits one = {&hi->v[i], 1, 1};
			append_edits(out, &one);
			continue;
		}
		/* the lines of edit i, grown by every edit that falls on them */
		unsigned b = line_start(f, hi->v[i].off);
		unsigned e = line_end(f, hi->v[i].off + hi->v[i].len);
		for (int grew = 1; grew;) {
			grew = 0;
			for (int k = 0; k < n; k++) {
				if (k == ih || taken[k] || hi->v[k].once || k == i)
					continue;
				unsigned nb = line_start(f, hi->v[k].off),
					 ne = line_end(f, hi->v[k].off + hi->v[k].len);
				if (nb <= e && ne >= b) {
					taken[k] = 1;
					grew = nb < b || ne > e;
					b = nb < b ? nb : b;
					e = ne > e ? ne : e;
				}
			}
		}
		taken[i] = 1;
		unsigned lb = line_start(f, hi->v[ih].off),
			 le = line_end(f, hi->v[ih].off + hi->v[ih].len);
		if (b <= le && e >= lb) {
			*err = "an edit of the newer targets' form falls on the loop's lines";
			rc = -1;
			break;
		}
		if ((b > 1 && f->src[b - 2] == '\\') || (e > 0 && f->src[e - 1] == '\\')) {
			*err = "an edit of the newer targets' form falls in a macro definition";
			rc = -1;
			break;
		}
		if (other_shared_decl(f, l, b, e)) {
			*err = "a tile is declared on a line with another shared array";
			rc = -1;
			break;
		}
		/* the lines with the edits in [b, e) applied */
		kp_edits part = {0};
		for (int k = 0; k < n; k++)
			if (k != ih && !hi->v[k].once && hi->v[k].off >= b &&
			    hi->v[k].off + hi->v[k].len <= e)
				kp_edits_add(&part, hi->v[k].off - b, hi->v[k].len, hi->v[k].text);
		char *lines = NULL;
		size_t nl = 0;
		if (kp_edits_apply(&part, f->src + b, e - b, &lines, &nl)) {
			kp_edits_release(&part);
			*err = "the newer targets' edits outside the loop overlap";
			rc = -1;
			break;
		}
		kp_edits_release(&part);
		kp_strbuf sb = KP_STRBUF_INIT;
		kp_strbuf_addf(&sb, "%s%d0\n%.*s\n#else\n%.*s\n#endif", KP_SPLIT_GUARD, guard_cc,
			       (int)nl, lines, (int)(e - b), f->src + b);
		free(lines);
		kp_edits_add(out, b, e - b, kp_strbuf_str(&sb));
		kp_strbuf_release(&sb);
	}
	free(taken);
	return rc;
}

/* The lines of the loop edit h, [*b, *e): from the start of its first
 * line (the directives start lines) to the end of its last, which must end
 * there.  0, or -1 with *err. */
static int loop_lines(const kp_file *f, const kp_edit *h, unsigned *b, unsigned *e,
		      const char **err)
{
	*b = h->off;
	*e = h->off + h->len;
	while (*b > 0 && (f->src[*b - 1] == ' ' || f->src[*b - 1] == '\t'))
		(*b)--;
	if (*b > 0 && f->src[*b - 1] != '\n') {
		*err = "the loop does not start a line";
		return -1;
	}
	unsigned q = *e;
	while (q < f->len && (f->src[q] == ' ' || f->src[q] == '\t' || f->src[q] == '\r'))
		q++;
	if (q < f->len && f->src[q] != '\n') {
		*err = "code follows the loop on its last line";
		return -1;
	}
	return 0;
}

/* The loop's edit: h's text under the guard, `older` in the #else. */
static void add_loop(const kp_file *f, const kp_edit *h, unsigned b, unsigned e, int guard_cc,
		     const char *older, int nolder, kp_edits *out)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	const char *pre = f->src + b;
	int npre = (int)(h->off - b);
	kp_strbuf_addf(&sb, "%s%d0\n%.*s%s\n#else\n%.*s%.*s\n#endif", KP_SPLIT_GUARD, guard_cc,
		       npre, pre, h->text, npre, pre, nolder, older);
	kp_edits_add(out, b, e - b, kp_strbuf_str(&sb));
	kp_strbuf_release(&sb);
}

int kp_split_compose(const kp_file *f, const kp_loop *l, const kp_edits *hi, const kp_edits *lo,
		     int guard_cc, kp_edits *out, const char **err)
{
	int ih = loop_edit(hi, l), il = lo ? loop_edit(lo, l) : -1;
	if (ih < 0 ||
	    (lo && (il < 0 || hi->v[ih].off != lo->v[il].off || hi->v[ih].len != lo->v[il].len))) {
		*err = "the two forms do not replace the same text";
		return -1;
	}
	const kp_edit *h = &hi->v[ih];
	unsigned b, e;
	if (loop_lines(f, h, &b, &e, err))
		return -1;
	if (!lo) { /* the older targets keep the loop as written */
		kp_edits rest = {0};
		if (add_asis_rest(f, l, hi, ih, guard_cc, &rest, err)) {
			kp_edits_release(&rest);
			return -1;
		}
		add_loop(f, h, b, e, guard_cc, f->src + h->off, (int)h->len, out);
		append_edits(out, &rest);
		kp_edits_release(&rest);
		return 0;
	}
	const kp_edit *w = &lo->v[il];
	kp_edits rest = {0};
	if (add_rest(&rest, hi, ih, lo, il, 1) || add_rest(&rest, lo, il, hi, ih, 0)) {
		kp_edits_release(&rest);
		*err = "the two forms edit the same text outside the loop differently";
		return -1;
	}
	for (int i = 0; i < rest.n; i++)
		if (rest.v[i].off < e && rest.v[i].off + rest.v[i].len > b) {
			kp_edits_release(&rest);
			*err = "an edit falls on the loop's line";
			return -1;
		}
	add_loop(f, h, b, e, guard_cc, w->text, (int)strlen(w->text), out);
	append_edits(out, &rest);
	kp_edits_release(&rest);
	return 0;
}
