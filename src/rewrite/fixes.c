/*
 * fixes.c - replacements from the edit list (or from the edit lists of
 * several passes, applied in turn), and clang-tidy's export-fixes YAML.
 * The same kp_edits that produce -o, -i and --diff produce these, so
 * applying the YAML with clang-apply-replacements gives the -o output.
 */
#include "fixes.h"

#include "util.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	kp_edit e;
	int owner;
} owned_edit;

/* The order kp_edits_apply() uses: by offset, insertions before the
 * replacement that starts at the same offset, then insertion order. */
static int cmp_owned(const void *a, const void *b)
{
	const kp_edit *x = &((const owned_edit *)a)->e, *y = &((const owned_edit *)b)->e;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if ((x->len == 0) != (y->len == 0))
		return x->len == 0 ? -1 : 1;
	return x->seq - y->seq;
}

int kp_fixes_merge(const kp_edits *e, const int *owner, kp_rw_fix **out, int *n)
{
	*out = NULL;
	*n = 0;
	if (!e->n)
		return 0;
	owned_edit *v = kp_xmalloc(sizeof(*v) * (size_t)e->n);
	for (int i = 0; i < e->n; i++) {
		v[i].e = e->v[i];
		v[i].owner = owner ? owner[i] : -1;
	}
	qsort(v, (size_t)e->n, sizeof(*v), cmp_owned);
	kp_rw_fix *f = kp_xcalloc((size_t)e->n, sizeof(*f));
	int m = 0;
	kp_strbuf text = KP_STRBUF_INIT;
	for (int i = 0; i < e->n; i++) {
		const kp_edit *x = &v[i].e;
		if (m > 0) {
			kp_rw_fix *last = &f[m - 1];
			unsigned end = last->off + last->len;
			if (x->off < end) {
				kp_strbuf_release(&text);
				kp_fixes_free(f, m);
				free(v);
				return -1;
			}
			if (x->off == end) {
				/* touching: extend the previous replacement */
				kp_strbuf_adds(&text, last->text);
				kp_strbuf_adds(&text, x->text);
				free(last->text);
				last->text = kp_strbuf_detach(&text);
				last->len += x->len;
				continue;
			}
		}
		f[m].off = x->off;
		f[m].len = x->len;
		f[m].text = kp_xstrdup(x->text);
		f[m].diag = v[i].owner;
		m++;
	}
	free(v);
	*out = f;
	*n = m;
	return 0;
}

/* The runs of `acc` (text k from the source) seen through `s` (text k+1
 * from text k): the parts of text k+1 that are source text, unchanged.
 * Both lists are in order, in both of their offsets. */
static kp_edit_run *compose_runs(const kp_edit_run *acc, int nacc, const kp_edit_run *s, int ns,
				 int *n)
{
	kp_edit_run *c = kp_xmalloc(sizeof(*c) * (size_t)(nacc + ns + 1));
	int m = 0, i = 0;
	for (int j = 0; j < ns; j++) {
		size_t lo = s[j].src, hi = s[j].src + s[j].len;
		while (i < nacc && acc[i].out + acc[i].len <= lo)
			i++;
		for (int t = i; t < nacc && acc[t].out < hi; t++) {
			size_t a = acc[t].out > lo ? acc[t].out : lo;
			size_t b = acc[t].out + acc[t].len < hi ? acc[t].out + acc[t].len : hi;
			if (a < b)
				c[m++] = (kp_edit_run){s[j].out + (a - lo),
						       acc[t].src + (a - acc[t].out), b - a};
		}
	}
	*n = m;
	return c;
}

int kp_fixes_compose(const kp_edits *const *stages, const size_t *inlen, int nstages,
		     const char *out, size_t outlen, int owner, kp_rw_fix **fixes, int *n)
{
	*fixes = NULL;
	*n = 0;
	if (!nstages)
		return 0;
	kp_edit_run *acc = NULL;
	int nacc = 0;
	for (int k = 0; k < nstages; k++) {
		kp_edit_run *s;
		int ns;
		if (kp_edits_runs(stages[k], inlen[k], &s, &ns)) {
			free(acc);
			return -1;
		}
		if (k == 0) {
			acc = s;
			nacc = ns;
			continue;
		}
		kp_edit_run *c = compose_runs(acc, nacc, s, ns, &nacc);
		free(acc);
		free(s);
		acc = c;
	}
	/* the gaps between the runs, and before the first and after the last */
	kp_rw_fix *f = kp_xcalloc((size_t)nacc + 1, sizeof(*f));
	int m = 0;
	size_t src = 0, o = 0, srclen = inlen[0];
	for (int i = 0; i <= nacc; i++) {
		size_t rs = i < nacc ? acc[i].src : srclen, ro = i < nacc ? acc[i].out : outlen;
		if (rs > src || ro > o) {
			f[m].off = (unsigned)src;
			f[m].len = (unsigned)(rs - src);
			f[m].text = kp_xstrndup(out + o, ro - o);
			f[m].diag = owner;
			m++;
		}
		if (i < nacc) {
			src = acc[i].src + acc[i].len;
			o = acc[i].out + acc[i].len;
		}
	}
	free(acc);
	*fixes = f;
	*n = m;
	return 0;
}

void kp_yaml_quote(kp_strbuf *sb, const char *s)
{
	kp_strbuf_addc(sb, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': kp_strbuf_adds(sb, "\\\""); break;
		case '\\': kp_strbuf_adds(sb, "\\\\"); break;
		case '\n': kp_strbuf_adds(sb, "\\n"); break;
		case '\r': kp_strbuf_adds(sb, "\\r"); break;
		case '\t': kp_strbuf_adds(sb, "\\t"); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				kp_strbuf_addf(sb, "\\x%02x", *p);
			else
				kp_strbuf_addc(sb, (char)*p);
		}
	}
	kp_strbuf_addc(sb, '"');
}

static const char *yaml_level(const char *level)
{
	if (!strcmp(level, "error"))
		return "Error";
	if (!strcmp(level, "warning"))
		return "Warning";
	return "Remark"; /* remark, note: clang-tidy's third level */
}

char *kp_fixes_yaml(const kp_rw_result *const *r, int n, const char *main_file,
		    const char *build_dir)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_adds(&sb, "---\nMainSourceFile:  ");
	kp_yaml_quote(&sb, main_file ? main_file : "");
	kp_strbuf_adds(&sb, "\nDiagnostics:");
	int any = 0;
	for (int i = 0; i < n; i++) {
		const kp_rw_result *x = r[i];
		const char *fp = x->abs_path ? x->abs_path : x->path;
		for (int d = 0; d < x->ndiags; d++) {
			const kp_rw_diag *g = &x->diags[d];
			/* a refusal suppressed in the source ("// kpipe: ignore")
			 * is left out; a pipelined loop keeps its replacements */
			int owns = 0;
			for (int k = 0; k < x->nfixes; k++)
				owns |= x->fixes[k].diag == d;
			if (!g->id || (g->suppressed && !owns))
				continue;
			any = 1;
			kp_strbuf_adds(&sb, "\n  - DiagnosticName:  ");
			kp_yaml_quote(&sb, g->id);
			kp_strbuf_adds(&sb, "\n    DiagnosticMessage:\n      Message:         ");
			kp_yaml_quote(&sb, g->message);
			kp_strbuf_adds(&sb, "\n      FilePath:        ");
			kp_yaml_quote(&sb, fp);
			kp_strbuf_addf(&sb, "\n      FileOffset:      %ld",
				       g->off > 0 ? g->off : 0);
			kp_strbuf_adds(&sb, "\n      Replacements:");
			int nrep = 0;
			for (int k = 0; k < x->nfixes; k++) {
				const kp_rw_fix *fx = &x->fixes[k];
				if (fx->diag != d)
					continue;
				kp_strbuf_adds(&sb, "\n        - FilePath:        ");
				kp_yaml_quote(&sb, fp);
				kp_strbuf_addf(&sb, "\n          Offset:          %u", fx->off);
				kp_strbuf_addf(&sb, "\n          Length:          %u", fx->len);
				kp_strbuf_adds(&sb, "\n          ReplacementText: ");
				kp_yaml_quote(&sb, fx->text);
				nrep++;
			}
			if (!nrep)
				kp_strbuf_adds(&sb, " []");
			kp_strbuf_adds(&sb, "\n    Level:           ");
			kp_strbuf_adds(&sb, yaml_level(g->level));
			if (build_dir) {
				kp_strbuf_adds(&sb, "\n    BuildDirectory:  ");
				kp_yaml_quote(&sb, build_dir);
			}
		}
	}
	if (!any)
		kp_strbuf_adds(&sb, " []");
	kp_strbuf_adds(&sb, "\n...\n");
	return kp_strbuf_detach(&sb);
}
