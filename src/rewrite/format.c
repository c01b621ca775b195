/*
 * format.c - the rewritten lines through clang-format in the file's own
 * style (format.h): the .clang-format found above the file, clang-format's
 * replacements (--output-replacements-xml) for the lines kpipe wrote, as an edit list over the
 * rewritten text.
 */
#define _GNU_SOURCE /* realpath */
#include "format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "edit.h"
#include "proc.h"
#include "scrub.h"
#include "util.h"

char *kp_format_style_file(const char *path)
{
	if (!path)
		return NULL;
	/* the path's own directory, whether or not the file exists (a buffer
	 * of an editor, stdin with --assume-filename), absolute */
	kp_strbuf sb = KP_STRBUF_INIT;
	if (path[0] != '/') {
		char *cwd = realpath(".", NULL);
		kp_strbuf_addf(&sb, "%s/", cwd ? cwd : "");
		free(cwd);
	}
	kp_strbuf_adds(&sb, path);
	char *dir = kp_strbuf_detach(&sb);
	char *last = strrchr(dir, '/');
	if (last)
		*last = '\0';
	for (;;) {
		static const char *const names[] = {".clang-format", "_clang-format"};
		for (int i = 0; i < 2; i++) {
			char *p = kp_xstrdup(dir);
			size_t n = strlen(p);
			p = kp_xrealloc(p, n + strlen(names[i]) + 2);
			snprintf(p + n, strlen(names[i]) + 2, "/%s", names[i]);
			if (access(p, R_OK) == 0) {
				free(dir);
				return p;
			}
			free(p);
		}
		char *slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			break;
		*slash = '\0';
	}
	free(dir);
	return NULL;
}

int kp_format_disabled(const char *style_file)
{
	char *text = NULL;
	if (kp_read_file(style_file, &text, NULL) != 0)
		return 0;
	int off = 0;
	for (const char *p = text; (p = strstr(p, "DisableFormat:")); p++) {
		const char *v = p + strlen("DisableFormat:");
		v += strspn(v, " \t");
		off = !strncmp(v, "true", 4);
	}
	free(text);
	return off;
}

char *kp_format_tool(void)
{
	const char *env = getenv("KPIPE_CLANG_FORMAT");
	if (env && *env)
		return kp_is_executable(env) ? kp_xstrdup(env) : NULL;
	static const char *const names[] = {"clang-format",    "clang-format-19",
					    "clang-format-18", "clang-format-17",
					    "clang-format-16", "clang-format-15",
					    "clang-format-14", NULL};
	for (int i = 0; names[i]; i++) {
		char *p = kp_find_on_path(names[i]);
		if (p)
			return p;
	}
	return NULL;
}

/* Whether the line at p is a // comment and nothing else.  Such lines
 * are left out of what clang-format is given: with ReflowComments it would
 * join an over-long `// kpipe:` line to the next one, and a
 * `// kpipe-launch: dynamic_smem = N` line read by validate, the verifier
 * and the bench would no longer start the line. */
static int line_comment(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p[0] == '/' && p[1] == '/';
}

/* The lines of `b` that are not lines of `a` (the unified diff's added
 * lines) and not comment lines, as 1-based "first:last" pairs in lines[]
 * (the caller frees); returns how many runs. */
static int changed_lines(const char *a, size_t alen, const char *b, size_t blen, int **lines)
{
	char *d = kp_diff("a", a, alen, "b", b, blen);
	int n = 0, line = 0, in_hunk = 0;
	*lines = NULL;
	for (const char *p = d; p && *p;) {
		const char *nl = strchr(p, '\n');
		if (!strncmp(p, "@@ -", 4)) {
			const char *plus = strstr(p, " +");
			line = plus ? (int)strtol(plus + 2, NULL, 10) : 0;
			in_hunk = line > 0;
		} else if (in_hunk && *p == '+' && line_comment(p + 1)) {
			line++; /* kpipe's own comment lines stay as written */
		} else if (in_hunk && *p == '+') {
			if (n && (*lines)[2 * n - 1] == line - 1)
				(*lines)[2 * n - 1] = line;
			else {
				*lines = kp_xrealloc(*lines, sizeof(int) * 2 * (size_t)(n + 1));
				(*lines)[2 * n] = (*lines)[2 * n + 1] = line;
				n++;
			}
			line++;
		} else if (in_hunk && *p == ' ')
			line++;
		p = nl ? nl + 1 : NULL;
	}
	free(d);
	return n;
}

/* XML text as clang-format escapes it: &#10; &#13; &lt; &gt; &amp;
 * &apos; &quot; and other numeric references.  Caller frees. */
static char *unescape(const char *s, size_t n)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '&') {
			kp_strbuf_addc(&sb, s[i]);
			continue;
		}
		const char *semi = memchr(s + i, ';', n - i);
		if (!semi) {
			kp_strbuf_addc(&sb, s[i]);
			continue;
		}
		size_t len = (size_t)(semi - (s + i)) + 1;
		static const struct {
			const char *ent;
			char c;
		} ents[] = {{"&lt;", '<'},    {"&gt;", '>'},   {"&amp;", '&'},
			    {"&apos;", '\''}, {"&quot;", '"'}, {NULL, 0}};
		int done = 0;
		for (int k = 0; ents[k].ent && !done; k++)
			if (len == strlen(ents[k].ent) && !strncmp(s + i, ents[k].ent, len)) {
				kp_strbuf_addc(&sb, ents[k].c);
				done = 1;
			}
		if (!done && s[i + 1] == '#') {
			long c = s[i + 2] == 'x' ? strtol(s + i + 3, NULL, 16)
						 : strtol(s + i + 2, NULL, 10);
			if (c > 0 && c < 128) {
				kp_strbuf_addc(&sb, (char)c);
				done = 1;
			}
		}
		if (!done)
			kp_strbuf_add(&sb, s + i, len);
		i += len - 1;
	}
	return kp_strbuf_detach(&sb);
}

/* The <replacement offset='O' length='L'>TEXT</replacement> elements of
 * clang-format's XML as edits; -1 when it is not that XML. */
static int parse_xml(const char *xml, size_t textlen, kp_edits *out)
{
	if (!strstr(xml, "<replacements"))
		return -1;
	for (const char *p = xml; (p = strstr(p, "<replacement ")); p++) {
		const char *o = strstr(p, "offset='"), *l = strstr(p, "length='");
		const char *gt = strchr(p, '>');
		if (!o || !l || !gt || o > gt || l > gt)
			return -1;
		unsigned long off = strtoul(o + 8, NULL, 10), len = strtoul(l + 8, NULL, 10);
		const char *end = gt[-1] == '/' ? gt : strstr(gt, "</replacement>");
		if (!end || off + len > textlen)
			return -1;
		char *text = gt[-1] == '/' ? kp_xstrdup("")
					   : unescape(gt + 1, (size_t)(end - gt - 1));
		kp_edits_add(out, (unsigned)off, (unsigned)len, text);
		free(text);
	}
	return 0;
}

int kp_format_edits(const char *tool, const char *style, const char *orig, size_t origlen,
		    const char *text, size_t len, kp_edits *out, char **err)
{
	memset(out, 0, sizeof(*out));
	*err = NULL;
	int *lines = NULL;
	int nl = changed_lines(orig, origlen, text, len, &lines);
	if (!nl)
		return 0;
	char *dir = kp_tempdir("format");
	if (!dir) {
		free(lines);
		*err = kp_xstrdup("no temporary directory");
		return -1;
	}
	kp_strbuf src = KP_STRBUF_INIT, errf = KP_STRBUF_INIT, st = KP_STRBUF_INIT;
	kp_strbuf_addf(&src, "%s/kernel.cu", dir);
	kp_strbuf_addf(&errf, "%s/stderr", dir);
	kp_strbuf_addf(&st, "--style=%s%s", strchr(style, '/') ? "file:" : "", style);
	int rc = kp_write_file_atomic(kp_strbuf_str(&src), text, len) ? -1 : 0;
	char **argv = kp_xcalloc((size_t)nl + 6, sizeof(char *));
	char **own = kp_xcalloc((size_t)nl, sizeof(char *));
	int a = 0;
	argv[a++] = (char *)tool;
	argv[a++] = (char *)kp_strbuf_str(&st);
	argv[a++] = "--output-replacements-xml";
	for (int i = 0; i < nl; i++) {
		kp_strbuf s = KP_STRBUF_INIT;
		kp_strbuf_addf(&s, "--lines=%d:%d", lines[2 * i], lines[2 * i + 1]);
		argv[a++] = own[i] = kp_strbuf_detach(&s);
	}
	argv[a++] = (char *)kp_strbuf_str(&src);
	kp_proc pr;
	memset(&pr, 0, sizeof(pr));
	kp_proc_opts po = {.err_path = kp_strbuf_str(&errf), .stdin_null = 1, .timeout_s = 60};
	if (rc == 0 && kp_proc_run(&pr, argv, &po) == 0 && pr.status == 0 && pr.output) {
		if (parse_xml(pr.output, len, out)) {
			kp_edits_release(out);
			*err = kp_xstrdup("clang-format gave no replacements XML");
			rc = -1;
		}
	} else {
		char *msg = NULL;
		kp_read_file(kp_strbuf_str(&errf), &msg, NULL);
		kp_strbuf m = KP_STRBUF_INIT;
		kp_strbuf_addf(&m, "%s failed: %.300s", tool, msg && *msg ? msg : "(no message)");
		/* the copy it read lies in a directory of random name */
		*err = kp_scrub_dup(kp_strbuf_detach(&m), dir, "<format>");
		free(msg);
		rc = -1;
	}
	free(pr.output);
	for (int i = 0; i < nl; i++)
		free(own[i]);
	free(own);
	free(argv);
	free(lines);
	kp_remove_tree(dir);
	free(dir);
	kp_strbuf_release(&src);
	kp_strbuf_release(&errf);
	kp_strbuf_release(&st);
	return rc;
}
