/*
 * verify_file.c - one rewritten file verified (verify_file.h).  A rewrite
 * for several targets (transform.h, KP_SPLIT_GUARD) is verified once per
 * branch: the emulator defines __CUDA_ARCH__ as 900, which takes the newer
 * targets' loop; a copy whose guards read `#if 0` takes the older ones'.
 */
#define _GNU_SOURCE
#include "verify_file.h"

#include "launch_spec.h"
#include "own_launch.h"
#include "transform.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Whether the launch description the verifier would read exists. */
static int has_spec(const kp_rw_opts *o, const char *path)
{
	if (o->spec)
		return 1;
	char *p = kp_launch_spec_default_path(path);
	int ok = !access(p, R_OK);
	free(p);
	return ok;
}

/* Whether kernel k holds one of the n offsets. */
static int holds(const kp_kernel *k, const long *off, int n)
{
	for (int i = 0; i < n; i++)
		if (off[i] >= (long)k->begin && off[i] < (long)k->end)
			return 1;
	return 0;
}

/* r for kernel k's unavailability. */
static void kernel_unavailable(kp_verify_result *r, const kp_kernel *k, const char *why)
{
	kp_strbuf m = KP_STRBUF_INIT;
	kp_strbuf_addf(&m, "no launch description, and kpipe cannot launch kernel %s itself: %s",
		       k->name, why);
	r->status = KP_VERIFY_UNAVAILABLE;
	free(r->detail);
	r->detail = kp_strbuf_detach(&m);
}

static void verify_once(const kp_rw_opts *o, const kp_analyze_opts *ao, const char *path,
			kp_file *f, const char *rew, size_t len, const long *pipelined, int n,
			kp_verify_result *r)
{
	kp_verify_texts(o, ao, path, f, f->src, f->len, rew, len, pipelined, n, r);
}

void kp_verify_texts(const kp_rw_opts *o, const kp_analyze_opts *ao, const char *path, kp_file *f,
		     const char *orig, size_t olen, const char *rew, size_t len,
		     const long *pipelined, int n, kp_verify_result *r)
{
	memset(r, 0, sizeof(*r));
	kp_verify_input vi = {path, orig, olen, rew, len, o->spec, NULL, NULL};
	if (has_spec(o, path)) {
		kp_verify(&vi, r);
		return;
	}
	int done = 0;
	r->status = KP_VERIFY_PASSED;
	for (int i = 0; i < f->nkernels && r->status != KP_VERIFY_FAILED; i++) {
		const kp_kernel *k = f->kernels[i];
		if (!holds(k, pipelined, n))
			continue;
		char *why = NULL, *spec = kp_own_launch_spec(f, k, ao, &why);
		if (!spec) {
			kernel_unavailable(r, k, why);
			free(why);
			continue;
		}
		vi.spec_text = spec;
		kp_verify_result one;
		kp_verify(&vi, &one);
		free(spec);
		done++;
		if (one.status == KP_VERIFY_PASSED) {
			r->runs += one.runs;
			kp_verify_result_release(&one);
			continue;
		}
		if (one.status == KP_VERIFY_UNAVAILABLE && r->status == KP_VERIFY_UNAVAILABLE) {
			kp_verify_result_release(&one); /* the first reason stays */
			continue;
		}
		if (one.status == KP_VERIFY_UNAVAILABLE) {
			kp_strbuf m = KP_STRBUF_INIT;
			kp_strbuf_addf(&m, "kpipe's own launches of kernel %s: %s", k->name,
				       one.detail ? one.detail : "no reason given");
			free(one.detail);
			one.detail = kp_strbuf_detach(&m);
		} else {
			kp_strbuf m = KP_STRBUF_INIT; /* say the launch is kpipe's */
			kp_strbuf_addf(&m,
				       "kpipe's own launch (no launch description) with every "
				       "integer parameter V, %s",
				       one.launch ? one.launch : "");
			free(one.launch);
			one.launch = kp_strbuf_detach(&m);
		}
		kp_verify_result_release(r);
		*r = one;
	}
	if (!done && r->status == KP_VERIFY_PASSED) {
		r->status = KP_VERIFY_UNAVAILABLE;
		r->detail = kp_xstrdup("no launch description, and no kernel of the file holds the "
				       "loops rewritten");
	}
}

/* rew with every split guard line turned into `#if 0` (the same length),
 * or NULL when it has none. */
static char *older_branch(const char *rew, size_t len)
{
	size_t gl = strlen(KP_SPLIT_GUARD);
	char *copy = NULL;
	for (size_t p = 0; p + gl <= len; p++) {
		if ((p && rew[p - 1] != '\n') || strncmp(rew + p, KP_SPLIT_GUARD, gl))
			continue;
		if (!copy) {
			copy = kp_xmalloc(len + 1);
			memcpy(copy, rew, len);
			copy[len] = '\0';
		}
		size_t e = p;
		while (e < len && rew[e] != '\n')
			e++;
		memset(copy + p, ' ', e - p);
		memcpy(copy + p, "#if 0", 5);
	}
	return copy;
}

void kp_verify_file(const kp_rw_opts *o, const kp_analyze_opts *ao, const char *path, kp_file *f,
		    const char *rew, size_t len, const long *pipelined, int n, kp_verify_result *r)
{
	verify_once(o, ao, path, f, rew, len, pipelined, n, r);
	char *older = r->status == KP_VERIFY_FAILED ? NULL : older_branch(rew, len);
	if (!older)
		return;
	kp_verify_result two;
	verify_once(o, ao, path, f, older, len, pipelined, n, &two);
	free(older);
	if (two.status == KP_VERIFY_PASSED ||
	    (two.status == KP_VERIFY_UNAVAILABLE && r->status == KP_VERIFY_UNAVAILABLE)) {
		r->runs += two.runs;
		kp_verify_result_release(&two);
		return;
	}
	/* the #else's failure, or its reason when only it could not run */
	kp_strbuf m = KP_STRBUF_INIT;
	kp_strbuf_addf(&m, "the older targets' loop (the #else of the __CUDA_ARCH__ guard): %s",
		       two.detail ? two.detail : "no reason given");
	free(two.detail);
	two.detail = kp_strbuf_detach(&m);
	kp_verify_result_release(r);
	*r = two;
}
