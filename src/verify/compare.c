/*
 * compare.c - two dumps compared element by element (compare.h).
 */
#define _GNU_SOURCE
#include "compare.h"

#include "util.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

double kp_half_value(unsigned short h)
{
	int s = h >> 15, e = (h >> 10) & 31, f = h & 1023;
	double v;
	if (e == 31)
		v = f ? NAN : INFINITY;
	else if (!e)
		v = ldexp((double)f, -24);
	else
		v = ldexp((double)(f | 1024), e - 25);
	return s ? -v : v;
}

static size_t elsize(int t)
{
	return t == KP_DUMP_F64                       ? 8
	       : t == KP_DUMP_F32 || t == KP_DUMP_I32 ? 4
	       : t == KP_DUMP_F16                     ? 2
						      : 1;
}

static double value(const unsigned char *p, int t)
{
	if (t == KP_DUMP_F32) {
		float f;
		memcpy(&f, p, 4);
		return f;
	}
	if (t == KP_DUMP_F64) {
		double d;
		memcpy(&d, p, 8);
		return d;
	}
	if (t == KP_DUMP_F16) {
		unsigned short h;
		memcpy(&h, p, 2);
		return kp_half_value(h);
	}
	if (t == KP_DUMP_I8)
		return (double)(int8_t)*p;
	int32_t i;
	memcpy(&i, p, 4);
	return i;
}

/* One buffer's header in a dump at *off. */
typedef struct {
	const char *name;
	uint32_t nl, type, role;
	uint64_t count;
	const unsigned char *data;
} dump_buf;

static int next_buf(const unsigned char *d, size_t len, size_t *off, dump_buf *b)
{
	if (*off + 4 > len)
		return -1;
	memcpy(&b->nl, d + *off, 4);
	*off += 4;
	if (*off + b->nl + 16 > len)
		return -1;
	b->name = (const char *)d + *off;
	*off += b->nl;
	memcpy(&b->type, d + *off, 4);
	memcpy(&b->role, d + *off + 4, 4);
	memcpy(&b->count, d + *off + 8, 8);
	*off += 16;
	if (b->type > KP_DUMP_F64 || b->count > (len - *off) / elsize((int)b->type))
		return -1;
	b->data = d + *off;
	*off += b->count * elsize((int)b->type);
	return 0;
}

/* Whether element k of a and b match. */
static int same(const dump_buf *a, const dump_buf *b, uint64_t k, double tabs, double trel)
{
	size_t es = elsize((int)a->type);
	if (!memcmp(a->data + k * es, b->data + k * es, es))
		return 1;
	double e = value(a->data + k * es, (int)a->type), g = value(b->data + k * es, (int)a->type);
	if (isnan(e) || isnan(g))
		return isnan(e) && isnan(g);
	if (tabs <= 0 && trel <= 0)
		return 0; /* bit for bit */
	return fabs(g - e) <= tabs + trel * fabs(e);
}

int kp_dump_compare(const unsigned char *ref, size_t rlen, const unsigned char *got, size_t glen,
		    double tol_abs, double tol_rel, kp_mismatch *m)
{
	memset(m, 0, sizeof(*m));
	if (rlen < 4 || glen < 4 || memcmp(ref, "KPB1", 4) || memcmp(got, "KPB1", 4)) {
		snprintf(m->buffer, sizeof(m->buffer), "(not a dump)");
		return -1;
	}
	size_t ro = 4, go = 4;
	while (ro < rlen || go < glen) {
		dump_buf a, b;
		if (next_buf(ref, rlen, &ro, &a) || next_buf(got, glen, &go, &b) || a.nl != b.nl ||
		    memcmp(a.name, b.name, a.nl) || a.type != b.type || a.count != b.count) {
			snprintf(m->buffer, sizeof(m->buffer), "(the buffers differ)");
			return -1;
		}
		snprintf(m->buffer, sizeof(m->buffer), "%.*s", (int)a.nl, a.name);
		m->type = (int)a.type;
		m->count = (long)a.count;
		for (uint64_t k = 0; k < a.count; k++) {
			if (same(&a, &b, k, tol_abs, tol_rel))
				continue;
			if (!m->ndiff++) {
				size_t es = elsize((int)a.type);
				m->index = (long)k;
				m->expected = value(a.data + k * es, (int)a.type);
				m->got = value(b.data + k * es, (int)a.type);
			}
		}
		if (m->ndiff)
			return 1;
	}
	memset(m, 0, sizeof(*m));
	return 0;
}

char *kp_mismatch_text(const kp_mismatch *m)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	if (m->type == KP_DUMP_F64)
		kp_strbuf_addf(&sb, "%s[%ld]: expected %.17g, got %.17g", m->buffer, m->index,
			       m->expected, m->got);
	else if (m->type == KP_DUMP_F32 || m->type == KP_DUMP_F16)
		kp_strbuf_addf(&sb, "%s[%ld]: expected %.9g, got %.9g", m->buffer, m->index,
			       m->expected, m->got);
	else
		kp_strbuf_addf(&sb, "%s[%ld]: expected %.0f, got %.0f", m->buffer, m->index,
			       m->expected, m->got);
	kp_strbuf_addf(&sb, " (%ld of %ld elements differ)", m->ndiff, m->count);
	return kp_strbuf_detach(&sb);
}
