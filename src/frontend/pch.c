/*
 * pch.c - builds the precompiled CUDA header a batch parses every file
 * with (-include-pch).  It calls libclang (parse an empty .cu file as an
 * incomplete translation unit, save it), so it is, with parse.c and
 * compdb.c, one of the three files that do.  Its leading arguments must
 * stay those of kp_parse() in parse.c: a header built with other language
 * options is rejected by clang, and the batch then falls back to parsing
 * the file without it (correct, only slower).
 */
#define _GNU_SOURCE
#include "pch.h"
#include "parse.h"

#include "util.h"

#include <clang-c/Index.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* the smallest file-size limit a precompiled header is written under */
#define KP_PCH_MIN_FSIZE ((rlim_t)64 << 20)

int kp_pch_build(const char *arch, const char *cuda_path, const char *const *args, int nargs,
		 const char *main_path, const char *pch_path, char **err)
{
	*err = NULL;
	/* The header is several megabytes, and LLVM aborts the process when
	 * a write of it fails (EFBIG under `ulimit -f`), so under a small
	 * file-size limit the batch goes without one. */
	struct rlimit fs;
	if (getrlimit(RLIMIT_FSIZE, &fs) == 0 && fs.rlim_cur != RLIM_INFINITY &&
	    fs.rlim_cur < KP_PCH_MIN_FSIZE) {
		*err = kp_xstrdup("the file-size limit (ulimit -f) is below 64 MiB");
		return -1;
	}
	FILE *fp = fopen(main_path, "w");
	if (!fp) {
		*err = kp_xstrdup("cannot create the precompiled header's source");
		return -1;
	}
	fclose(fp);
	kp_strbuf store = KP_STRBUF_INIT;
	int nstore = 0;
#define ADD_ARG(...) kp_clang_arg(&store, &nstore, __VA_ARGS__)
	kp_clang_base_args(arch, cuda_path, &store, &nstore);
	for (int i = 0; i < nargs; i++)
		ADD_ARG("%s", args[i]);
#undef ADD_ARG
	const char **argv = kp_xcalloc((size_t)nstore + 1, sizeof(char *));
	const char *p = kp_strbuf_str(&store);
	for (int i = 0; i < nstore; i++) {
		argv[i] = p;
		p += strlen(p) + 1;
	}
	CXIndex idx = clang_createIndex(0, 0);
	CXTranslationUnit tu = NULL;
	enum CXErrorCode ec = clang_parseTranslationUnit2(
		idx, main_path, argv, nstore, NULL, 0,
		CXTranslationUnit_Incomplete | CXTranslationUnit_ForSerialization, &tu);
	free(argv);
	kp_strbuf_release(&store);
	int rc = 0;
	if (ec != CXError_Success || !tu) {
		*err = kp_xstrdup("libclang could not parse the CUDA headers");
		rc = -1;
	} else {
		unsigned nd = clang_getNumDiagnostics(tu);
		for (unsigned i = 0; i < nd && !rc; i++) {
			CXDiagnostic d = clang_getDiagnostic(tu, i);
			if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
				CXString s = clang_getDiagnosticSpelling(d);
				*err = kp_xstrdup(clang_getCString(s));
				clang_disposeString(s);
				rc = -1;
			}
			clang_disposeDiagnostic(d);
		}
		if (!rc && clang_saveTranslationUnit(tu, pch_path, clang_defaultSaveOptions(tu)) !=
				   CXSaveError_None) {
			*err = kp_xstrdup("libclang could not save the precompiled header");
			rc = -1;
		}
	}
	if (tu)
		clang_disposeTranslationUnit(tu);
	clang_disposeIndex(idx);
	return rc;
}
