/*
 * parse_asm.c - an asm statement's text for the model (kp_node.asm_text):
 * libclang's tokens from where the `asm` keyword is spelled (in the main
 * file, a header, or the body of the macro that wrote the statement) to
 * its closing parenthesis, joined by spaces.  The effect analysis reads
 * the PTX template and the constraints from it; a statement whose
 * template is not a string literal there (a macro parameter) keeps its
 * text all the same, and the analysis takes it for any memory effect.
 */
#include "parse.h"
#include "parse_int.h"

#include <sys/stat.h>

#include <string.h>

/* The size of file f on disk, 0 when unknown. */
static unsigned file_size(CXFile f)
{
	CXString name = clang_getFileName(f);
	const char *p = clang_getCString(name);
	struct stat st;
	unsigned n = p && !stat(p, &st) && st.st_size > 0 ? (unsigned)st.st_size : 0;
	clang_disposeString(name);
	return n;
}

const char *kp_parse_asm_text(pctx *c, CXCursor cur)
{
	CXFile sf;
	unsigned sp;
	clang_getSpellingLocation(clang_getCursorLocation(cur), &sf, NULL, NULL, &sp);
	if (!sf)
		return NULL;
	unsigned size = clang_File_isEqual(sf, c->main) ? (unsigned)c->f->len : file_size(sf);
	if (sp >= size)
		return NULL;
	/* an asm statement is rarely longer than this; one that is keeps no
	 * text (any memory effect) */
	unsigned end = size - sp > 16384 ? sp + 16384 : size;
	CXSourceRange r = clang_getRange(clang_getLocationForOffset(c->tu, sf, sp),
					 clang_getLocationForOffset(c->tu, sf, end));
	CXToken *t = NULL;
	unsigned n = 0;
	clang_tokenize(c->tu, r, &t, &n);
	kp_strbuf sb = KP_STRBUF_INIT;
	int depth = 0, closed = 0;
	for (unsigned i = 0; i < n && !closed; i++) {
		CXString s = clang_getTokenSpelling(c->tu, t[i]);
		const char *w = clang_getCString(s);
		if (i > 0)
			kp_strbuf_addc(&sb, ' ');
		kp_strbuf_adds(&sb, w ? w : "");
		if (w && !strcmp(w, "("))
			depth++;
		else if (w && !strcmp(w, ")") && --depth == 0)
			closed = 1;
		clang_disposeString(s);
	}
	clang_disposeTokens(c->tu, t, n);
	char *text = closed ? kp_arena_strdup(&c->f->arena, kp_strbuf_str(&sb)) : NULL;
	kp_strbuf_release(&sb);
	return text;
}
