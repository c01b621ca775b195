/*
 * parse_header.c - kernels in project headers (kp_parse_opts.headers): which
 * headers qualify (header_policy: --header-filter or a root), one model
 * per such header from the same translation unit (kp_file.headers), and
 * the callers in the main file of a header's __device__ K-loop functions.
 * It also finds an unsaved text given for a header (kp_parse_unsaved_for).
 */
#define _GNU_SOURCE
#include "parse.h"
#include "parse_int.h"

#include <stdlib.h>
#include <string.h>

void kp_parse_header_policy_init(header_policy *p, const kp_parse_opts *o)
{
	memset(p, 0, sizeof(*p));
	if (!o->headers)
		return;
	if (o->header_filter && *o->header_filter)
		p->have_re = regcomp(&p->re, o->header_filter, REG_EXTENDED | REG_NOSUB) == 0;
	else if (!o->header_filter) {
		p->root = o->header_root;
		p->rootlen = p->root ? strlen(p->root) : 0;
	}
}

void kp_parse_header_policy_release(header_policy *p)
{
	if (p->have_re)
		regfree(&p->re);
}

int kp_parse_wanted_header(const header_policy *h, const char *abs)
{
	if (h->have_re)
		return regexec(&h->re, abs, 0, NULL, 0) == 0;
	if (!h->root)
		return 0;
	if (h->rootlen == 1 && h->root[0] == '/')
		return 1;
	return !strncmp(abs, h->root, h->rootlen) && abs[h->rootlen] == '/';
}

typedef struct {
	pctx *c;
	const header_policy *pol;
	CXFile *files;
	char **abs;
	int n;
	CXCursor *dev; /* the __device__ K-loop functions of those headers */
	int ndev;
} header_scan;

static enum CXChildVisitResult find_header_kernels(CXCursor cur, CXCursor parent, CXClientData ud)
{
	(void)parent;
	header_scan *h = ud;
	enum CXCursorKind k = clang_getCursorKind(cur);
	if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec || k == CXCursor_UnexposedDecl)
		return CXChildVisit_Recurse;
	if (k != CXCursor_FunctionDecl && k != CXCursor_FunctionTemplate)
		return CXChildVisit_Continue;
	CXSourceLocation loc = clang_getCursorLocation(cur);
	CXFile file;
	clang_getExpansionLocation(loc, &file, NULL, NULL, NULL);
	if (!file || clang_File_isEqual(file, h->c->main) || clang_Location_isInSystemHeader(loc) ||
	    !clang_isCursorDefinition(cur))
		return CXChildVisit_Continue;
	int known = 0;
	while (known < h->n && !clang_File_isEqual(file, h->files[known]))
		known++;
	attr_scan as = {h->c, 0, 0, 0, 0, 0, 0, 0};
	clang_visitChildren(cur, kp_parse_scan_attrs, &as);
	/* a kernel, or a __device__ function with __shared__ arrays of its
	 * own (a library's K-loop in a header with no kernel) */
	int want = as.global, device = 0;
	if (!want && as.device && !as.host)
		clang_visitChildren(cur, kp_parse_find_shared_var, &device);
	if (!want && !device)
		return CXChildVisit_Continue;
	if (known == h->n) {
		CXString name = clang_getFileName(file);
		char *abs = realpath(clang_getCString(name), NULL);
		clang_disposeString(name);
		if (!abs || !kp_parse_wanted_header(h->pol, abs)) {
			free(abs);
			return CXChildVisit_Continue;
		}
		h->files = kp_xrealloc(h->files, sizeof(*h->files) * (size_t)(h->n + 1));
		h->abs = kp_xrealloc(h->abs, sizeof(*h->abs) * (size_t)(h->n + 1));
		h->files[h->n] = file;
		h->abs[h->n++] = abs;
	}
	if (device) { /* its callers are looked up in the main file's kernels */
		h->dev = kp_xrealloc(h->dev, sizeof(*h->dev) * (size_t)(h->ndev + 1));
		h->dev[h->ndev++] = cur;
	}
	return CXChildVisit_Continue;
}

/* The unsaved file of o whose real path is `abs`, or NULL. */
const kp_unsaved *kp_parse_unsaved_for(const kp_parse_opts *o, const char *abs)
{
	for (int i = 0; i < o->nunsaved; i++) {
		char *u = realpath(o->unsaved[i].path, NULL);
		int same = u && !strcmp(u, abs);
		free(u);
		if (same)
			return &o->unsaved[i];
	}
	return NULL;
}

/* A __device__ K-loop function d of header model m: its callers among the
 * kernels of the main file (c), matched by the declaration the calls
 * refer to (its template's for a function template), and their launch
 * bounds. */
static void header_device_callers(pctx *c, const header_scan *h, kp_file *m, kp_kernel *d)
{
	for (int i = 0; i < h->ndev; i++) {
		CXString nm = clang_getCursorSpelling(h->dev[i]);
		int same = !strcmp(clang_getCString(nm), d->name);
		clang_disposeString(nm);
		unsigned off;
		CXFile file;
		clang_getExpansionLocation(clang_getCursorLocation(h->dev[i]), &file, NULL, NULL,
					   &off);
		if (!same || off < d->begin || off >= d->end || !m->abs_path)
			continue;
		CXString fn = clang_getFileName(file);
		char *abs = realpath(clang_getCString(fn), NULL);
		clang_disposeString(fn);
		int here = abs && !strcmp(abs, m->abs_path);
		free(abs);
		if (here && !d->call_decl) {
			/* set only when the .cu calls it: a function that only the
			 * header's own kernels call stays as in one file */
			const kp_decl *key = kp_parse_decl_for(c, h->dev[i]);
			int before = d->ncallers;
			kp_parse_device_callers(m, c->f, d, key);
			if (d->ncallers > before)
				d->call_decl = key;
			break;
		}
	}
}

/* A __device__ K-loop function d of header model hs[i] that no kernel of
 * the .cu calls: its callers among the kernels of the other project
 * headers (a library's kernels in one header, its K-loop functions in
 * another, the .cu only host code), matched by the USR of the declaration
 * their calls refer to (the models do not share declarations). */
static void sibling_callers(pctx *c, const header_scan *h, kp_file **hs, int nh, int i,
			    kp_kernel *d)
{
	kp_file *m = hs[i];
	for (int x = 0; x < h->ndev && m->abs_path; x++) {
		CXString nm = clang_getCursorSpelling(h->dev[x]);
		int same = !strcmp(clang_getCString(nm), d->name);
		clang_disposeString(nm);
		unsigned off;
		CXFile file;
		clang_getExpansionLocation(clang_getCursorLocation(h->dev[x]), &file, NULL, NULL,
					   &off);
		if (!same || off < d->begin || off >= d->end)
			continue;
		CXString fn = clang_getFileName(file);
		char *abs = realpath(clang_getCString(fn), NULL);
		clang_disposeString(fn);
		int here = abs && !strcmp(abs, m->abs_path);
		free(abs);
		if (!here)
			continue;
		const kp_decl *key = kp_parse_decl_for(c, h->dev[x]);
		if (!key || !key->usr || !*key->usr)
			return;
		for (int j = 0; j < nh; j++)
			if (j != i)
				kp_parse_device_callers(m, hs[j], d, key);
		if (d->ncallers)
			d->call_decl = key;
		return;
	}
}

/* One model per project header that defines a kernel, in the order the
 * translation unit declares them, into f->headers.  The text is the
 * header's on disk, or its unsaved text in o->unsaved. */
void kp_parse_build_header_models(pctx *c, const kp_parse_opts *o, const header_policy *pol,
				  const char *const *argv, int nstore)
{
	header_scan h = {0};
	h.c = c;
	h.pol = pol;
	if (pol->have_re || pol->root)
		clang_visitChildren(clang_getTranslationUnitCursor(c->tu), find_header_kernels, &h);
	for (int i = 0; i < h.n; i++) {
		kp_file *m = kp_xcalloc(1, sizeof(*m));
		m->abs_path = kp_arena_strdup(&m->arena, h.abs[i]);
		m->includer = c->f;
		char *shown = kp_display_path(h.abs[i]);
		m->path = kp_arena_strdup(&m->arena, shown);
		free(shown);
		int e = 0;
		const kp_unsaved *u = kp_parse_unsaved_for(o, h.abs[i]);
		if (u) {
			m->src = kp_xstrndup(u->text, u->len);
			m->len = u->len;
		} else
			e = kp_read_file(h.abs[i], &m->src, &m->len);
		if (e || memchr(m->src, '\0', m->len)) {
			kp_file_release(m);
			free(m);
			continue;
		}
		m->has_bom = m->len >= 3 && !memcmp(m->src, "\xEF\xBB\xBF", 3);
		m->auto_probe = o->auto_probe;
		kp_parse_scan_includes(m);
		pctx hc = {0};
		hc.f = m;
		hc.tu = c->tu;
		hc.main = h.files[i];
		hc.o = o; /* helpers of other project headers too (kp_parse_add_helpers) */
		kp_parse_build_model(&hc, argv, nstore);
		free(hc.dkeys);
		free(hc.mcur);
		free(hc.mdecl);
		free(hc.dvals);
		free(hc.dindex);
		/* a __device__ K-loop function of the header: its callers are
		 * the kernels of the .cu that includes it */
		for (int k = 0; k < m->nkernels; k++)
			if (m->kernels[k]->is_device)
				header_device_callers(c, &h, m, m->kernels[k]);
		if (hc.too_deep || !m->nkernels) {
			kp_file_release(m);
			free(m);
			continue;
		}
		c->f->headers = kp_xrealloc(c->f->headers,
					    sizeof(kp_file *) * (size_t)(c->f->nheaders + 1));
		c->f->headers[c->f->nheaders++] = m;
	}
	for (int i = 0; i < c->f->nheaders; i++)
		for (int k = 0; k < c->f->headers[i]->nkernels; k++) {
			kp_kernel *d = c->f->headers[i]->kernels[k];
			if (d->is_device && !d->ncallers && !d->call_decl)
				sibling_callers(c, &h, c->f->headers, c->f->nheaders, i, d);
		}
	for (int i = 0; i < h.n; i++)
		free(h.abs[i]);
	free(h.abs);
	free(h.files);
	free(h.dev);
}
