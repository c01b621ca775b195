/*
 * vbuild.c - the verifier's builds (vbuild.h).
 */
#define _GNU_SOURCE
#include "vbuild.h"

#include "emu_files.h"
#include "prep.h"
#include "proc.h"
#include "scrub.h"
#include "vharness.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* KP_EMU_SPLIT: the emulator's runtime comes from its object (emu_files.h) */
const char *const kp_vbuild_flags[] = {
	"-std=c++17", "-O1", "-w", "-fno-strict-aliasing", "-pthread", "-DKP_EMU_SPLIT", NULL};

/* a run's limit in the launcher (alarm) */
#define KP_VERIFY_RUN_LIMIT_S 60

const char *kp_vbuild_cxx(void)
{
	const char *c = getenv("KPIPE_VERIFY_CXX");
	return c && *c ? c : "g++";
}

char *kp_vbuild_local_headers(const char *text, const char *dir)
{
	kp_strbuf out = KP_STRBUF_INIT;
	char *todo[64];
	char *seen[64];
	int ntodo = 0, nseen = 0;
	todo[ntodo++] = kp_xstrdup(text);
	while (ntodo) {
		char *t = todo[--ntodo];
		for (const char *p = strstr(t, "include"); p; p = strstr(p + 1, "include")) {
			const char *h = p;
			while (h > t && (h[-1] == ' ' || h[-1] == '\t'))
				h--;
			if (h == t || h[-1] != '#')
				continue;
			const char *q = p + 7;
			while (*q == ' ' || *q == '\t')
				q++;
			if (*q != '"')
				continue;
			const char *e = strchr(q + 1, '"');
			if (!e || memchr(q, '\n', (size_t)(e - q)))
				continue;
			kp_strbuf path = KP_STRBUF_INIT;
			kp_strbuf_addf(&path, "%s/%.*s", dir, (int)(e - q - 1), q + 1);
			int dup = 0;
			for (int i = 0; i < nseen && !dup; i++)
				dup = !strcmp(seen[i], kp_strbuf_str(&path));
			char *body = NULL;
			size_t blen = 0;
			if (!dup && nseen < 64 &&
			    !kp_read_file(kp_strbuf_str(&path), &body, &blen)) {
				seen[nseen++] = kp_strbuf_detach(&path);
				kp_strbuf_add(&out, body, blen);
				if (ntodo < 64)
					todo[ntodo++] = body;
				else
					free(body);
			}
			kp_strbuf_release(&path);
		}
		free(t);
	}
	for (int i = 0; i < nseen; i++)
		free(seen[i]);
	return kp_strbuf_detach(&out);
}

static int uses_async_copies(const char *text)
{
	char *c = kp_prep_blank(text, strlen(text));
	int r = strstr(c, "__pipeline_memcpy_async") != NULL;
	free(c);
	return r || strstr(text, "cp.async.bulk") != NULL;
}

/* Prepares v and writes its sources; returns the harness's path, or NULL
 * with v->status and v->why set.  *key gets the build's key. */
static char *write_sources(const kp_vbuild_env *env, const kp_launch_spec *s, kp_vbuild *v,
			   unsigned long long *key)
{
	char *prepped = NULL, *why = NULL;
	char *only = kp_prep_only_kernel(v->text, v->len, s->kernel);
	int rc = kp_prep(only, v->len, v->path, &prepped, &why);
	free(only);
	if (rc) {
		v->status = rc > 0 ? 1 : -1;
		v->why = why;
		return NULL;
	}
	char *via = kp_gpu_launch_via(v->text, s->kernel), *dyn = NULL;
	char err[256];
	if (kp_gpu_launch_override(v->text, s->kernel, &dyn, err, sizeof(err)) < 0) {
		v->status = -1;
		v->why = kp_xstrdup(err);
		free(prepped);
		free(via);
		return NULL;
	}
	kp_strbuf pp = KP_STRBUF_INIT, hp = KP_STRBUF_INIT;
	kp_strbuf_addf(&pp, "%s/%s.cpp", env->work, v->label);
	kp_strbuf_addf(&hp, "%s/%s-main.cpp", env->work, v->label);
	char *main = kp_vharness_source(s, kp_strbuf_str(&pp), dyn, via, KP_VERIFY_RUN_LIMIT_S);
	unsigned long long h = kp_fnv1a64(prepped, strlen(prepped), env->key);
	/* the harness names the work folder: key its text without it */
	h = kp_fnv1a64(via ? via : "", via ? strlen(via) : 0, h);
	h = kp_fnv1a64(dyn ? dyn : "", dyn ? strlen(dyn) : 0, h);
	char *generic = kp_vharness_source(s, "P", dyn, via, KP_VERIFY_RUN_LIMIT_S);
	*key = kp_fnv1a64(generic, strlen(generic), h);
	free(generic);
	if (kp_write_file_atomic(kp_strbuf_str(&pp), prepped, strlen(prepped)) ||
	    kp_write_file_atomic(kp_strbuf_str(&hp), main, strlen(main))) {
		v->status = -1;
		v->why = kp_xstrdup("the emulator's sources could not be written");
		kp_strbuf_release(&hp);
	}
	kp_strbuf_release(&pp);
	free(prepped);
	free(main);
	free(via);
	free(dyn);
	return v->status ? NULL : kp_strbuf_detach(&hp);
}

/* The first lines of g++'s output that say "error", as one line. */
static char *first_errors(const char *out)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	int n = 0;
	for (const char *l = out ? out : ""; *l && n < 2;) {
		size_t len = strcspn(l, "\n");
		if (memmem(l, len, "error", 5)) {
			kp_strbuf_addf(&sb, "%s%.*s", n ? "; " : "", (int)len, l);
			n++;
		}
		l += len + (l[len] == '\n');
	}
	if (!n)
		kp_strbuf_adds(&sb, "g++ failed");
	return kp_strbuf_detach(&sb);
}

typedef struct {
	const char *label;
	char *main, *exe, *tmp;
	kp_proc p;
	int running;
} build_job;

/* Starts g++ on job j's harness, or finds its executable in the store. */
static void start_job(const kp_vbuild_env *env, build_job *j, unsigned long long key)
{
	kp_strbuf e = KP_STRBUF_INIT, t = KP_STRBUF_INIT;
	kp_strbuf_addf(&e, "%s/x-%016llx.exe", env->store, key);
	/* two versions of one text (a file verified against itself) build
	 * side by side: each into a file of its own */
	kp_strbuf_addf(&t, "%s.tmp%ld-%s", kp_strbuf_str(&e), (long)getpid(), j->label);
	j->exe = kp_strbuf_detach(&e);
	j->tmp = kp_strbuf_detach(&t);
	if (!access(j->exe, X_OK))
		return;
	kp_strbuf inc = KP_STRBUF_INIT;
	kp_strbuf_addf(&inc, "%s/include", env->emu);
	const char *argv[32];
	int n = 0;
	argv[n++] = kp_vbuild_cxx();
	for (int i = 0; kp_vbuild_flags[i]; i++)
		argv[n++] = kp_vbuild_flags[i];
	if (env->pch) {
		argv[n++] = "-I";
		argv[n++] = env->pch;
	}
	argv[n++] = "-I";
	argv[n++] = kp_strbuf_str(&inc);
	argv[n++] = "-I";
	argv[n++] = env->emu;
	argv[n++] = "-iquote";
	argv[n++] = env->src_dir;
	argv[n++] = j->main;
	argv[n++] = env->rt;
	if (env->static_libs) {
		static const char *const libs[] = {KP_EMU_STATIC_LIBS};
		for (size_t i = 0; i < KP_ARRAY_LEN(libs); i++)
			argv[n++] = libs[i];
	}
	argv[n++] = "-o";
	argv[n++] = j->tmp;
	argv[n] = NULL;
	kp_proc_opts o = {0};
	o.stdin_null = 1;
	o.timeout_s = 300;
	memset(&j->p, 0, sizeof(j->p));
	kp_proc_start(&j->p, (char *const *)argv, &o);
	j->running = 1;
	kp_strbuf_release(&inc);
}

void kp_vbuild_run(const kp_vbuild_env *env, const kp_launch_spec *s, kp_vbuild *v, int n)
{
	build_job *jobs = kp_xcalloc((size_t)n, sizeof(*jobs));
	kp_proc *ps = kp_xcalloc((size_t)n, sizeof(*ps));
	int np = 0, *which = kp_xcalloc((size_t)n, sizeof(int));
	for (int i = 0; i < n; i++) {
		unsigned long long key = 0;
		v[i].cp_async = uses_async_copies(v[i].text);
		jobs[i].label = v[i].label;
		jobs[i].main = write_sources(env, s, &v[i], &key);
		if (!jobs[i].main)
			continue;
		start_job(env, &jobs[i], key);
		if (jobs[i].running) {
			ps[np] = jobs[i].p;
			which[np++] = i;
		}
	}
	kp_proc_wait(ps, np);
	for (int k = 0; k < np; k++)
		jobs[which[k]].p = ps[k];
	for (int i = 0; i < n; i++) {
		build_job *j = &jobs[i];
		if (!j->main)
			continue;
		if (j->running && (j->p.status != 0 || rename(j->tmp, j->exe))) {
			v[i].status = 2;
			/* g++ names the sources in the work folder, whose
			 * name is random: a fixed one in the message */
			v[i].why = kp_scrub_dup(first_errors(j->p.output), env->work, "<verify>");
			unlink(j->tmp);
		} else
			v[i].exe = kp_xstrdup(j->exe);
		free(j->p.output);
		free(j->main);
		free(j->exe);
		free(j->tmp);
	}
	free(jobs);
	free(ps);
	free(which);
}

void kp_vbuild_release(kp_vbuild *v)
{
	free(v->exe);
	free(v->why);
	v->exe = v->why = NULL;
}
