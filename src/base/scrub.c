/*
 * scrub.c - messages without kpipe's temporary directory names (scrub.h):
 * plain string replacement, in a fixed buffer or a malloc'd string.
 */
#include "scrub.h"

#include "util.h"

#include <stdlib.h>
#include <string.h>

char *kp_scrub_dup(char *s, const char *from, const char *to)
{
	if (!s || !from || !*from || !strstr(s, from))
		return s;
	size_t n = strlen(from);
	kp_strbuf sb = KP_STRBUF_INIT;
	const char *p = s, *q;
	while ((q = strstr(p, from))) {
		kp_strbuf_add(&sb, p, (size_t)(q - p));
		kp_strbuf_adds(&sb, to);
		p = q + n;
	}
	kp_strbuf_adds(&sb, p);
	free(s);
	return kp_strbuf_detach(&sb);
}

void kp_scrub(char *buf, size_t cap, const char *from, const char *to)
{
	if (!buf || !cap || !from || !*from || !strstr(buf, from))
		return;
	char *t = kp_scrub_dup(kp_xstrdup(buf), from, to);
	size_t n = strlen(t);
	if (n >= cap)
		n = cap - 1;
	memcpy(buf, t, n);
	buf[n] = '\0';
	free(t);
}
