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

/* The precompiled header dir/pch/kp_cpu_cuda.h.gch, built when missing. */
static char *build_pch(const char *dir, const char *cxx, const char *const *flags)
{
	kp_strbuf d = KP_STRBUF_INIT, gch = KP_STRBUF_INIT, tmp = KP_STRBUF_INIT,
		  hdr = KP_STRBUF_INIT;
	kp_strbuf_addf(&d, "%s/pch", dir);
	kp_strbuf_addf(&gch, "%s/kp_cpu_cuda.h.gch", kp_strbuf_str(&d));
	kp_strbuf_addf(&tmp, "%s.tmp%ld", kp_strbuf_str(&gch), (long)getpid());
	kp_strbuf_addf(&hdr, "%s/kp_cpu_cuda.h", dir);
	char *out = NULL;
	if (access(kp_strbuf_str(&gch), R_OK)) {
		mkdir(kp_strbuf_str(&d), 0777);
		const char *argv[32];
		int n = 0;
		argv[n++] = cxx;
		for (int i = 0; flags[i] && n < 24; i++)
			argv[n++] = flags[i];
		argv[n++] = "-x";
		argv[n++] = "c++-header";
		argv[n++] = kp_strbuf_str(&hdr);
		argv[n++] = "-o";
		argv[n++] = kp_strbuf_str(&tmp);
		argv[n] = NULL;
		kp_proc p;
		kp_proc_opts o = {0};
		o.stdin_null = 1;
		o.timeout_s = 300;
		kp_proc_run(&p, (char *const *)argv, &o);
		free(p.output);
		if (p.status == 0 && !rename(kp_strbuf_str(&tmp), kp_strbuf_str(&gch)))
			out = kp_strbuf_detach(&d);
		else
			unlink(kp_strbuf_str(&tmp));
	} else
		out = kp_strbuf_detach(&d);
	kp_strbuf_release(&d);
	kp_strbuf_release(&gch);
	kp_strbuf_release(&tmp);
	kp_strbuf_release(&hdr);
	return out;
}

char *kp_emu_install(const char *base, const char *cxx, const char *const *flags, char **pch,
		     char **err)
{
	*pch = NULL;
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
	*pch = build_pch(d, cxx, flags);
	return d;
}
