/*
 * emu_files.c - the emulator's embedded files written out (emu_files.h).
 */
#define _GNU_SOURCE
#include "emu_files.h"

#include "proc.h"
#include "util.h"

#include "kpipe_emu_src.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

unsigned long long kp_emu_hash(void)
{
	unsigned long long h = KP_FNV1A64_INIT;
	for (size_t i = 0; i < KP_ARRAY_LEN(kp_emu_table); i++) {
		h = kp_fnv1a64(kp_emu_table[i].name, strlen(kp_emu_table[i].name) + 1, h);
		h = kp_fnv1a64(kp_emu_table[i].text, kp_emu_table[i].len, h);
	}
	return h;
}

/* The source of the runtime's object: the functions kp_cpu_cuda.h and
 * kp_harness.h mark KP_RT, defined once for every kernel's build. */
static const char rt_source[] = "#include \"kp_cpu_cuda.h\"\n#include \"kp_harness.h\"\n";

/* One of the emulator's builds, done once per folder: `out` made from
 * argv by g++ (into `out`.tmpPID, then renamed). */
typedef struct {
	kp_strbuf out, tmp;
	kp_proc p;
	int running;
} once_job;

/* Starts g++ with `flags`, then `extra` (NULL-terminated), then -o the
 * job's temporary file, unless `out` is already there. */
static void once_start(once_job *j, const char *out, const char *cxx, const char *const *flags,
		       const char *const *extra)
{
	memset(j, 0, sizeof(*j));
	kp_strbuf_adds(&j->out, out);
	kp_strbuf_addf(&j->tmp, "%s.tmp%ld", out, (long)getpid());
	if (!access(out, R_OK))
		return;
	const char *argv[40];
	int n = 0;
	argv[n++] = cxx;
	for (int i = 0; flags[i] && n < 24; i++)
		argv[n++] = flags[i];
	for (int i = 0; extra[i] && n < 36; i++)
		argv[n++] = extra[i];
	argv[n++] = "-o";
	argv[n++] = kp_strbuf_str(&j->tmp);
	argv[n] = NULL;
	kp_proc_opts o = {0};
	o.stdin_null = 1;
	o.timeout_s = 300;
	kp_proc_start(&j->p, (char *const *)argv, &o);
	j->running = 1;
}

/* 0 when the job's file is there (built now or before); else -1 with its
 * output in *log (caller frees) when log is not NULL. */
static int once_finish(once_job *j, char **log)
{
	int rc = 0;
	if (j->running &&
	    (j->p.status != 0 || rename(kp_strbuf_str(&j->tmp), kp_strbuf_str(&j->out)))) {
		unlink(kp_strbuf_str(&j->tmp));
		rc = -1;
		if (log)
			*log = kp_xstrdup(j->p.output && *j->p.output ? j->p.output : "g++ failed");
	}
	free(j->p.output);
	kp_strbuf_release(&j->out);
	kp_strbuf_release(&j->tmp);
	return rc;
}

/* dir/pch/kp_cpu_cuda.h.gch (when pch is not NULL) and dir/rt/
 * kp_emu_rt.o, built side by side when missing. */
static int build_once(const char *dir, const char *cxx, const char *const *flags, char **pch,
		      char **rt, char **err)
{
	kp_strbuf pd = KP_STRBUF_INIT, gch = KP_STRBUF_INIT, hdr = KP_STRBUF_INIT,
		  rd = KP_STRBUF_INIT, obj = KP_STRBUF_INIT, src = KP_STRBUF_INIT,
		  inc = KP_STRBUF_INIT, inc2 = KP_STRBUF_INIT;
	kp_strbuf_addf(&pd, "%s/pch", dir);
	kp_strbuf_addf(&gch, "%s/kp_cpu_cuda.h.gch", kp_strbuf_str(&pd));
	kp_strbuf_addf(&hdr, "%s/kp_cpu_cuda.h", dir);
	kp_strbuf_addf(&rd, "%s/rt", dir);
	kp_strbuf_addf(&obj, "%s/kp_emu_rt.o", kp_strbuf_str(&rd));
	kp_strbuf_addf(&src, "%s/kp_emu_rt.cpp", kp_strbuf_str(&rd));
	kp_strbuf_addf(&inc, "-I%s/include", dir);
	kp_strbuf_addf(&inc2, "-I%s", dir);
	once_job j[2];
	int np = 0;
	kp_proc ps[2];
	if (pch) {
		mkdir(kp_strbuf_str(&pd), 0777);
		const char *x[] = {"-x", "c++-header", kp_strbuf_str(&hdr), NULL};
		once_start(&j[0], kp_strbuf_str(&gch), cxx, flags, x);
	}
	mkdir(kp_strbuf_str(&rd), 0777);
	int src_ok = !access(kp_strbuf_str(&src), R_OK) ||
		     !kp_write_file_atomic(kp_strbuf_str(&src), rt_source, strlen(rt_source));
	const char *y[] = {"-DKP_EMU_RUNTIME",   kp_strbuf_str(&inc),
			   kp_strbuf_str(&inc2), "-c",
			   kp_strbuf_str(&src),  NULL};
	once_start(&j[1], kp_strbuf_str(&obj), cxx, flags, y);
	for (int i = !pch; i < 2; i++)
		if (j[i].running)
			ps[np++] = j[i].p;
	kp_proc_wait(ps, np);
	for (int i = !pch, k = 0; i < 2; i++)
		if (j[i].running)
			j[i].p = ps[k++];
	/* without the precompiled header the builds parse the header */
	if (pch && !once_finish(&j[0], NULL))
		*pch = kp_strbuf_detach(&pd);
	char *log = NULL;
	int rc = once_finish(&j[1], &log) || !src_ok ? -1 : 0;
	if (rc) {
		kp_strbuf m = KP_STRBUF_INIT;
		kp_strbuf_addf(&m, "the emulator's runtime does not build: %s",
			       log ? log : "its source could not be written");
		*err = kp_strbuf_detach(&m);
	} else
		*rt = kp_strbuf_detach(&obj);
	free(log);
	kp_strbuf_release(&pd);
	kp_strbuf_release(&gch);
	kp_strbuf_release(&hdr);
	kp_strbuf_release(&rd);
	kp_strbuf_release(&obj);
	kp_strbuf_release(&src);
	kp_strbuf_release(&inc);
	kp_strbuf_release(&inc2);
	return rc;
}

/* Whether g++ links libstdc++ and libgcc statically here (their archives
 * installed): asked once per folder by linking a trivial program into
 * rt/static-probe, whose existence is the answer (rt/static-probe.no the
 * negative one). */
static int static_libs_ok(const char *dir, const char *cxx, const char *const *flags)
{
	kp_strbuf exe = KP_STRBUF_INIT, no = KP_STRBUF_INIT, src = KP_STRBUF_INIT;
	kp_strbuf_addf(&exe, "%s/rt/static-probe", dir);
	kp_strbuf_addf(&no, "%s/rt/static-probe.no", dir);
	kp_strbuf_addf(&src, "%s/rt/static-probe.cpp", dir);
	int ok = !access(kp_strbuf_str(&exe), X_OK);
	if (!ok && access(kp_strbuf_str(&no), R_OK)) {
		static const char probe[] =
			"#include <vector>\nint main() { return (int)std::vector<int>(3).size() - 3; }\n";
		if (!kp_write_file_atomic(kp_strbuf_str(&src), probe, strlen(probe))) {
			const char *x[] = {kp_strbuf_str(&src), KP_EMU_STATIC_LIBS, NULL};
			once_job j;
			once_start(&j, kp_strbuf_str(&exe), cxx, flags, x);
			if (j.running)
				kp_proc_wait(&j.p, 1);
			ok = !once_finish(&j, NULL);
		}
		if (!ok)
			kp_write_file_atomic(kp_strbuf_str(&no), "", 0);
	}
	kp_strbuf_release(&exe);
	kp_strbuf_release(&no);
	kp_strbuf_release(&src);
	return ok;
}

char *kp_emu_install(const char *base, const char *cxx, const char *const *flags, int want_pch,
		     char **pch, char **rt, int *static_libs, char **err)
{
	*pch = *rt = NULL;
	*static_libs = 0;
	*err = NULL;
	kp_strbuf dir = KP_STRBUF_INIT;
	kp_strbuf_addf(&dir, "%s/emu-%016llx", base, kp_emu_hash());
	kp_strbuf done = KP_STRBUF_INIT;
	kp_strbuf_addf(&done, "%s/.complete", kp_strbuf_str(&dir));
	if (access(kp_strbuf_str(&done), R_OK)) {
		for (size_t i = 0; i < KP_ARRAY_LEN(kp_emu_table); i++) {
			kp_strbuf p = KP_STRBUF_INIT;
			kp_strbuf_addf(&p, "%s/%s", kp_strbuf_str(&dir), kp_emu_table[i].name);
			int rc = kp_make_parents(kp_strbuf_str(&p));
			if (!rc)
				rc = kp_write_file_atomic(kp_strbuf_str(&p),
							  (const char *)kp_emu_table[i].text,
							  kp_emu_table[i].len);
			if (rc) {
				kp_strbuf m = KP_STRBUF_INIT;
				kp_strbuf_addf(&m,
					       "the emulator's file %s could not be written (%s)",
					       kp_strbuf_str(&p), strerror(rc < 0 ? -rc : errno));
				*err = kp_strbuf_detach(&m);
				kp_strbuf_release(&p);
				kp_strbuf_release(&dir);
				kp_strbuf_release(&done);
				return NULL;
			}
			kp_strbuf_release(&p);
		}
		kp_write_file_atomic(kp_strbuf_str(&done), "", 0);
	}
	kp_strbuf_release(&done);
	char *d = kp_strbuf_detach(&dir);
	if (build_once(d, cxx, flags, want_pch ? pch : NULL, rt, err)) {
		free(d);
		return NULL;
	}
	/* without a cache the probe would be paid on every call */
	*static_libs = want_pch && static_libs_ok(d, cxx, flags);
	return d;
}
