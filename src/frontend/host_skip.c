/*
 * host_skip.c - the parse errors clang reports in top-level host
 * declarations of the main file (host code of a library whose headers
 * are not here: `a.data_ptr<at::Half>()` without libtorch): each such
 * declaration that holds no device code is blanked in the text clang
 * parses (recover.c finds and blanks it), for parse.c to parse again
 * without it and say so (host_skip.h).
 */
#include "host_skip.h"
#include "recover.h"

#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------- parse errors in host code */

typedef struct {
	CXFile main;
	unsigned *b, *e; /* extents of device code in the main file */
	int n;
} device_code;

static enum CXChildVisitResult device_attr(CXCursor cur, CXCursor parent, CXClientData ud)
{
	(void)parent;
	int *hit = ud;
	switch (clang_getCursorKind(cur)) {
	case CXCursor_CUDAGlobalAttr:
	case CXCursor_CUDADeviceAttr:
	case CXCursor_CUDASharedAttr:
	case CXCursor_CUDAConstantAttr: *hit = 1; return CXChildVisit_Break;
	default: return CXChildVisit_Continue;
	}
}

int kp_cursor_is_device(CXCursor cur)
{
	int hit = 0;
	clang_visitChildren(cur, device_attr, &hit);
	return hit;
}

/* Every declaration of the main file clang marks as device code. */
static enum CXChildVisitResult find_device(CXCursor cur, CXCursor parent, CXClientData ud)
{
	(void)parent;
	device_code *d = ud;
	enum CXCursorKind k = clang_getCursorKind(cur);
	if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec || k == CXCursor_UnexposedDecl)
		return CXChildVisit_Recurse;
	int hit = kp_cursor_is_device(cur);
	if (!hit &&
	    (k == CXCursor_ClassDecl || k == CXCursor_StructDecl || k == CXCursor_ClassTemplate))
		return CXChildVisit_Recurse; /* a class's device members */
	if (!hit)
		return CXChildVisit_Continue;
	CXSourceRange r = clang_getCursorExtent(cur);
	CXFile f1, f2;
	unsigned b, e;
	clang_getExpansionLocation(clang_getRangeStart(r), &f1, NULL, NULL, &b);
	clang_getExpansionLocation(clang_getRangeEnd(r), &f2, NULL, NULL, &e);
	if (!f1 || !f2 || !clang_File_isEqual(f1, d->main) || !clang_File_isEqual(f2, d->main))
		return CXChildVisit_Continue;
	d->b = kp_xrealloc(d->b, sizeof(*d->b) * (size_t)(d->n + 1));
	d->e = kp_xrealloc(d->e, sizeof(*d->e) * (size_t)(d->n + 1));
	d->b[d->n] = b;
	d->e[d->n++] = e;
	return CXChildVisit_Continue;
}

static void line_col(const char *text, size_t off, int *line, int *col)
{
	*line = 1;
	size_t bol = 0;
	for (size_t i = 0; i < off; i++)
		if (text[i] == '\n') {
			++*line;
			bol = i + 1;
		}
	*col = (int)(off - bol) + 1;
}

int kp_recover_host_errors(CXTranslationUnit tu, CXFile main, char *text, size_t len,
			   kp_skipped_decl **v, int *n)
{
	device_code dc = {main, NULL, NULL, 0};
	int done = 0, scanned = 0;
	unsigned nd = clang_getNumDiagnostics(tu);
	for (unsigned i = 0; i < nd; i++) {
		CXDiagnostic d = clang_getDiagnostic(tu, i);
		CXFile file;
		unsigned off;
		clang_getExpansionLocation(clang_getDiagnosticLocation(d), &file, NULL, NULL, &off);
		CXString cat = clang_getDiagnosticCategoryText(d);
		const char *cs = clang_getCString(cat);
		int parse_error = clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error && file &&
				  clang_File_isEqual(file, main) && off < len &&
				  !(cs && (!strcmp(cs, "Semantic Issue") ||
					   !strcmp(cs, "Lexical or Preprocessor Issue")));
		clang_disposeString(cat);
		size_t b, e;
		char name[128];
		if (parse_error && kp_host_decl_at(text, len, off, &b, &e, name, sizeof(name))) {
			if (!scanned) {
				clang_visitChildren(clang_getTranslationUnitCursor(tu), find_device,
						    &dc);
				scanned = 1;
			}
			int device = 0;
			for (int k = 0; k < dc.n && !device; k++)
				device = dc.b[k] < e && dc.e[k] > b;
			if (!device) {
				kp_skipped_decl s = {0};
				s.b = b;
				s.e = e;
				line_col(text, b, &s.line, &s.col);
				int c;
				line_col(text, off, &s.err_line, &c);
				snprintf(s.name, sizeof(s.name), "%s", name);
				CXString m = clang_getDiagnosticSpelling(d);
				s.err = kp_xstrdup(clang_getCString(m));
				clang_disposeString(m);
				kp_blank_range(text, len, b, e);
				*v = kp_xrealloc(*v, sizeof(**v) * (size_t)(*n + 1));
				(*v)[(*n)++] = s;
				done++;
			}
		}
		clang_disposeDiagnostic(d);
	}
	free(dc.b);
	free(dc.e);
	return done;
}

int kp_recover_headers(CXTranslationUnit tu, CXFile main, kp_recovered_file **v, int *n)
{
	int added = 0;
	unsigned nd = clang_getNumDiagnostics(tu);
	for (unsigned i = 0; i < nd && *n < KP_MAX_RECOVERED; i++) {
		CXDiagnostic d = clang_getDiagnostic(tu, i);
		CXSourceLocation loc = clang_getDiagnosticLocation(d);
		CXFile file;
		clang_getExpansionLocation(loc, &file, NULL, NULL, NULL);
		int cand = clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error && file &&
			   !clang_File_isEqual(file, main) && !clang_Location_isInSystemHeader(loc);
		clang_disposeDiagnostic(d);
		if (!cand)
			continue;
		CXString fn = clang_getFileName(file);
		const char *path = clang_getCString(fn);
		int seen = !path;
		for (int k = 0; k < *n && !seen; k++)
			seen = !strcmp((*v)[k].path, path);
		char *text = NULL;
		size_t len = 0;
		char *rec = NULL;
		if (!seen && !kp_read_file(path, &text, &len) && !memchr(text, '\0', len))
			rec = kp_recover_text(text, len);
		free(text);
		if (rec) {
			*v = kp_xrealloc(*v, sizeof(**v) * (size_t)(*n + 1));
			(*v)[(*n)++] = (kp_recovered_file){kp_xstrdup(path), rec, len};
			added++;
		}
		clang_disposeString(fn);
	}
	return added;
}
