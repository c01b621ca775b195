/*
 * host_edits.c - the edits outside the pipelined loop (host_edits.h): the
 * text a file needs once at its include point, and the edits of a
 * kernel's <<<>>> launches, for the transforms (cp.async's #include, the
 * bulk and tensor-map helpers and launcher) and the pipeline pass (the
 * dynamic shared memory every launch passes).
 */
#include "host_edits.h"
#include "util.h"

#include <string.h>

unsigned kp_include_point(const kp_file *f)
{
	return f->last_include_end ? f->last_include_end : (f->has_bom ? 3 : 0);
}

void kp_edit_file_once(kp_edits *out, const kp_file *f, const char *once, const char *text)
{
	kp_edits_add_once(out, kp_include_point(f), text, once);
}

int kp_launch_set_config(kp_edits *out, const kp_file *f, const kp_launch *x, int arg,
			 const char *text)
{
	if (arg < x->nconfig) {
		unsigned ab, ae;
		kp_launch_span(f, x, arg, &ab, &ae);
		kp_edits_add(out, ab, ae - ab, text);
		return 0;
	}
	if (!x->nconfig || arg > x->nconfig)
		return -1;
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, ", %s", text);
	kp_edits_add(out, x->arg_e[x->nconfig - 1], 0, kp_strbuf_str(&sb));
	kp_strbuf_release(&sb);
	return 0;
}

int kp_launch_to_call(kp_edits *out, const kp_file *f, const kp_launch *x, const char *callee)
{
	unsigned p = x->close + 3;
	while (p < f->len &&
	       (f->src[p] == ' ' || f->src[p] == '\t' || f->src[p] == '\n' || f->src[p] == '\r'))
		p++;
	if (p >= f->len || f->src[p] != '(')
		return -1; /* not a launch the parser would have called editable */
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "%s(", callee);
	for (int a = 0; a < 4; a++) {
		unsigned ab, ae;
		if (a < x->nconfig) {
			kp_launch_span(f, x, a, &ab, &ae);
			kp_strbuf_addf(&sb, "%.*s, ", (int)(ae - ab), f->src + ab);
		} else
			kp_strbuf_adds(&sb, "0, ");
	}
	kp_edits_add(out, x->begin, p + 1 - x->begin, kp_strbuf_str(&sb));
	kp_strbuf_release(&sb);
	return 0;
}
