/*
 * macro_redefined.c - rule: a macro #define'd or #undef'd inside the loop
 * and named by the loop's code.  Every pipelined form moves code: register
 * staging stores the next tile after the compute phase, cp.async and bulk
 * copy the load phase before the loop.  The moved text would then be
 * expanded under another definition of the macro, or none, than where it
 * was written.  The directives are read from the text of the loop (the
 * main file): a directive line is `#` first, then `define` or `undef` and
 * the macro's name.
 */
#include <string.h>

#include "rules.h"

/* The extent of the logical line from p (backslash continuations joined). */
static unsigned line_end(const kp_file *f, unsigned p, unsigned e)
{
	while (p < e && f->src[p] != '\n')
		p++;
	while (p < e && p > 0 && f->src[p - 1] == '\\') {
		p++;
		while (p < e && f->src[p] != '\n')
			p++;
	}
	return p;
}

/* p is at a line's first character: a directive's offset of '#' or 0. */
static int is_directive(const kp_file *f, unsigned p, unsigned e, unsigned *hash)
{
	while (p < e && (f->src[p] == ' ' || f->src[p] == '\t'))
		p++;
	*hash = p;
	return p < e && f->src[p] == '#';
}

/* The name a `#define NAME` (1) or `#undef NAME` (2) line at hash
 * defines; 0 for another line. */
static int directive_name(const kp_file *f, unsigned hash, unsigned le, unsigned *nb, unsigned *ne)
{
	unsigned p = hash + 1;
	while (p < le && (f->src[p] == ' ' || f->src[p] == '\t'))
		p++;
	unsigned w = p;
	while (p < le && kp_is_ident_char(f->src[p]))
		p++;
	int kind = p - w == 6 && !strncmp(f->src + w, "define", 6)  ? 1
		   : p - w == 5 && !strncmp(f->src + w, "undef", 5) ? 2
								    : 0;
	if (!kind)
		return 0;
	while (p < le && (f->src[p] == ' ' || f->src[p] == '\t'))
		p++;
	*nb = p;
	while (p < le && kp_is_ident_char(f->src[p]))
		p++;
	*ne = p;
	return *ne > *nb ? kind : 0;
}

/* Whether the loop's code (its text, directive lines aside) names `name`. */
static int code_names(const kp_file *f, unsigned b, unsigned e, const char *name)
{
	for (unsigned p = b; p < e;) {
		unsigned le = line_end(f, p, e), hash;
		if (!is_directive(f, p, le, &hash) && kp_mentions_ident(f->src, p, le, name))
			return 1;
		p = le + 1;
	}
	return 0;
}

static void check(kp_rule_ctx *c)
{
	const kp_file *f = c->f;
	const kp_node *n = c->l->node;
	if (!n->in_main || n->end > f->len || n->begin >= n->end)
		return;
	unsigned b = n->begin, e = n->end;
	/* from the start of the loop's line: a directive is a line of its own */
	for (unsigned p = b; p < e;) {
		unsigned le = line_end(f, p, e), hash, nb, ne;
		int kind = is_directive(f, p, le, &hash) ? directive_name(f, hash, le, &nb, &ne)
							 : 0;
		if (kind) {
			char name[128];
			size_t len = ne - nb < sizeof(name) - 1 ? ne - nb : sizeof(name) - 1;
			memcpy(name, f->src + nb, len);
			name[len] = '\0';
			if (code_names(f, b, e, name)) {
				int line, col;
				kp_file_linecol(f, hash, &line, &col);
				kp_rule_refuse(c, NULL, "kpipe-macro-redefined",
					       "line %d: the macro '%s' is #%s'd inside the loop, "
					       "which names it: the rewrite moves code of the loop "
					       "to where another definition of '%s' is in force",
					       line, name,
					       f->src[hash + 1] == 'u' ? "undef" : "define", name);
				return;
			}
		}
		p = le + 1;
	}
}

const kp_rule kp_rule_macro_redefined = {
	"kpipe-macro-redefined",
	"a macro the loop names is #define'd or #undef'd inside the loop",
	check,
};
