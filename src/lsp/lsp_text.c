/*
 * lsp_text.c - URIs, protocol positions and buffer edits for the
 * language server (lsp_text.h).
 */
#include "lsp_text.h"

#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

char *kp_lsp_uri_path(const char *uri)
{
	if (strncmp(uri, "file://", 7))
		return NULL;
	const char *p = uri + 7;
	/* file://host/path: only the local host (empty or localhost) */
	if (*p != '/') {
		if (strncmp(p, "localhost/", 10))
			return NULL;
		p += 9;
	}
	kp_strbuf sb = KP_STRBUF_INIT;
	for (; *p && *p != '?' && *p != '#'; p++) {
		int h, l;
		if (*p == '%' && (h = hexval(p[1])) >= 0 && (l = hexval(p[2])) >= 0) {
			kp_strbuf_addc(&sb, (char)(h * 16 + l));
			p += 2;
		} else
			kp_strbuf_addc(&sb, *p);
	}
	return kp_strbuf_detach(&sb);
}

char *kp_lsp_path_uri(const char *path)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_adds(&sb, "file://");
	if (path[0] != '/') {
		char *cwd = getcwd(NULL, 0);
		if (cwd) {
			kp_strbuf tmp = KP_STRBUF_INIT;
			kp_strbuf_addf(&tmp, "%s/%s", cwd, path);
			free(cwd);
			char *uri = kp_lsp_path_uri(kp_strbuf_str(&tmp));
			kp_strbuf_release(&tmp);
			kp_strbuf_release(&sb);
			return uri;
		}
	}
	static const char hex[] = "0123456789ABCDEF";
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("/._~-", *p))
			kp_strbuf_addc(&sb, (char)*p);
		else {
			kp_strbuf_addc(&sb, '%');
			kp_strbuf_addc(&sb, hex[*p >> 4]);
			kp_strbuf_addc(&sb, hex[*p & 15]);
		}
	}
	return kp_strbuf_detach(&sb);
}

/* UTF-16 code units of the UTF-8 sequence starting at s[i] (one, two for
 * a four-byte sequence); *step gets its length in bytes.  A byte that
 * starts no valid sequence counts as one unit of one byte. */
static int utf16_units(const char *s, size_t len, size_t i, size_t *step)
{
	unsigned char c = (unsigned char)s[i];
	size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
	if (i + n > len)
		n = 1;
	for (size_t k = 1; k < n; k++)
		if (((unsigned char)s[i + k] >> 6) != 2)
			n = 1;
	*step = n;
	return n == 4 ? 2 : 1;
}

void kp_lsp_position(const char *text, size_t len, size_t off, int *line, int *character)
{
	if (off > len)
		off = len;
	int ln = 0;
	size_t start = 0;
	for (size_t i = 0; i < off; i++)
		if (text[i] == '\n') {
			ln++;
			start = i + 1;
		}
	int ch = 0;
	for (size_t i = start; i < off;) {
		size_t step;
		ch += utf16_units(text, len, i, &step);
		i += step;
	}
	*line = ln;
	*character = ch;
}

size_t kp_lsp_offset(const char *text, size_t len, int line, int character)
{
	size_t i = 0;
	for (int ln = 0; ln < line; ln++) {
		const char *nl = memchr(text + i, '\n', len - i);
		if (!nl)
			return len;
		i = (size_t)(nl - text) + 1;
	}
	int ch = 0;
	while (i < len && text[i] != '\n' && ch < character) {
		size_t step;
		ch += utf16_units(text, len, i, &step);
		i += step;
	}
	return i;
}

void kp_lsp_splice(char **text, size_t *len, size_t a, size_t b, const char *repl, size_t rlen)
{
	if (a > *len)
		a = *len;
	if (b > *len)
		b = *len;
	if (b < a)
		b = a;
	size_t n = *len - (b - a) + rlen;
	char *t = kp_xmalloc(n + 1);
	memcpy(t, *text, a);
	memcpy(t + a, repl, rlen);
	memcpy(t + a + rlen, *text + b, *len - b);
	t[n] = 0;
	free(*text);
	*text = t;
	*len = n;
}
