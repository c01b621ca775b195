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

int kp_split_compose(const kp_file *f, const kp_loop *l, const kp_edits *hi, const kp_edits *lo,
		     int guard_cc, kp_edits *out, const char **err)
{
	int ih = loop_edit(hi, l), il = loop_edit(lo, l);
	if (ih < 0 || il < 0 || hi->v[ih].off != lo->v[il].off || hi->v[ih].len != lo->v[il].len) {
		*err = "the two forms do not replace the same text";
		return -1;
	}
	const kp_edit *h = &hi->v[ih], *w = &lo->v[il];
	/* the directives start lines: from the start of the loop's line to
	 * its end, which must be the end of a line */
	unsigned b = h->off, e = h->off + h->len;
	while (b > 0 && (f->src[b - 1] == ' ' || f->src[b - 1] == '\t'))
		b--;
	if (b > 0 && f->src[b - 1] != '\n') {
		*err = "the loop does not start a line";
		return -1;
	}
	unsigned q = e;
	while (q < f->len && (f->src[q] == ' ' || f->src[q] == '\t' || f->src[q] == '\r'))
		q++;
	if (q < f->len && f->src[q] != '\n') {
		*err = "code follows the loop on its last line";
		return -1;
	}
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
	kp_strbuf sb = KP_STRBUF_INIT;
	const char *pre = f->src + b;
	int npre = (int)(h->off - b);
	kp_strbuf_addf(&sb, "%s%d0\n%.*s%s\n#else\n%.*s%s\n#endif", KP_SPLIT_GUARD, guard_cc, npre,
		       pre, h->text, npre, pre, w->text);
	kp_edits_add(out, b, e - b, kp_strbuf_str(&sb));
	kp_strbuf_release(&sb);
	for (int i = 0; i < rest.n; i++) {
		kp_edits_add(out, rest.v[i].off, rest.v[i].len, rest.v[i].text);
		out->v[out->n - 1].once = rest.v[i].once; /* one #include per file */
	}
	kp_edits_release(&rest);
	return 0;
}
