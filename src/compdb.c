/*
 * compdb.c - lists the CUDA files of a compile_commands.json with their
 * flags.  Besides parse.c, the only file that calls libclang: it uses the
 * CXCompilationDatabase API alone, and keeps the same flags parse.c keeps
 * for one file (compdb_args there), so a batch parses each file exactly
 * as a single-file run with -p would.
 */
#define _GNU_SOURCE
#include "compdb.h"

#include "util.h"

#include <clang-c/CXCompilationDatabase.h>
#include <stdlib.h>
#include <string.h>

static int is_cuda(const char *p)
{
	const char *dot = strrchr(p, '.');
	return dot && (!strcmp(dot, ".cu") || !strcmp(dot, ".cuh"));
}

static void push_arg(kp_compdb_entry *e, char *s)
{
	e->args = kp_xrealloc(e->args, sizeof(char *) * (size_t)(e->nargs + 1));
	e->args[e->nargs++] = s;
}

static void keep_flags(kp_compdb_entry *e, CXCompileCommand cmd, const char *wds)
{
	unsigned n = clang_CompileCommand_getNumArgs(cmd);
	for (unsigned i = 1; i < n; i++) {
		CXString a = clang_CompileCommand_getArg(cmd, i);
		const char *s = clang_getCString(a);
		int takes_next = !strcmp(s, "-I") || !strcmp(s, "-D") || !strcmp(s, "-isystem") ||
				 !strcmp(s, "-include") || !strcmp(s, "-U");
		int keep = !strncmp(s, "-I", 2) || !strncmp(s, "-D", 2) || !strncmp(s, "-U", 2) ||
			   !strncmp(s, "-std=", 5) || !strcmp(s, "-isystem") ||
			   !strcmp(s, "-include");
		if (keep) {
			kp_strbuf sb = KP_STRBUF_INIT;
			if (!strncmp(s, "-I", 2) && s[2] && s[2] != '/' && wds)
				kp_strbuf_addf(&sb, "-I%s/%s", wds, s + 2);
			else
				kp_strbuf_adds(&sb, s);
			push_arg(e, kp_strbuf_detach(&sb));
			if (takes_next && i + 1 < n) {
				CXString b = clang_CompileCommand_getArg(cmd, ++i);
				const char *bs = clang_getCString(b);
				kp_strbuf sv = KP_STRBUF_INIT;
				if (!strcmp(s, "-I") && bs[0] != '/' && wds)
					kp_strbuf_addf(&sv, "%s/%s", wds, bs);
				else
					kp_strbuf_adds(&sv, bs);
				push_arg(e, kp_strbuf_detach(&sv));
				clang_disposeString(b);
			}
		}
		clang_disposeString(a);
	}
}

int kp_compdb_load(const char *build_dir, kp_compdb_entry **out, int *n, char **err)
{
	*out = NULL;
	*n = 0;
	*err = NULL;
	CXCompilationDatabase_Error cerr;
	CXCompilationDatabase db = clang_CompilationDatabase_fromDirectory(build_dir, &cerr);
	if (cerr != CXCompilationDatabase_NoError || !db) {
		kp_strbuf sb = KP_STRBUF_INIT;
		kp_strbuf_addf(&sb, "cannot load '%s/compile_commands.json'", build_dir);
		*err = kp_strbuf_detach(&sb);
		if (db)
			clang_CompilationDatabase_dispose(db);
		return -1;
	}
	CXCompileCommands cmds = clang_CompilationDatabase_getAllCompileCommands(db);
	unsigned nc = cmds ? clang_CompileCommands_getSize(cmds) : 0;
	kp_compdb_entry *v = NULL;
	int m = 0;
	for (unsigned i = 0; i < nc; i++) {
		CXCompileCommand cmd = clang_CompileCommands_getCommand(cmds, i);
		CXString fn = clang_CompileCommand_getFilename(cmd);
		CXString wd = clang_CompileCommand_getDirectory(cmd);
		const char *fs = clang_getCString(fn);
		const char *wds = clang_getCString(wd);
		if (fs && *fs && is_cuda(fs)) {
			kp_strbuf p = KP_STRBUF_INIT;
			if (fs[0] != '/' && wds && *wds)
				kp_strbuf_addf(&p, "%s/%s", wds, fs);
			else
				kp_strbuf_adds(&p, fs);
			char *abs = realpath(kp_strbuf_str(&p), NULL);
			char *file = abs ? abs : kp_strbuf_detach(&p);
			if (abs)
				kp_strbuf_release(&p);
			int dup = 0;
			for (int k = 0; k < m && !dup; k++)
				dup = !strcmp(v[k].file, file);
			if (dup)
				free(file);
			else {
				v = kp_xrealloc(v, sizeof(*v) * (size_t)(m + 1));
				v[m] = (kp_compdb_entry){file, NULL, 0};
				keep_flags(&v[m], cmd, wds);
				m++;
			}
		}
		clang_disposeString(fn);
		clang_disposeString(wd);
	}
	if (cmds)
		clang_CompileCommands_dispose(cmds);
	clang_CompilationDatabase_dispose(db);
	*out = v;
	*n = m;
	return 0;
}

void kp_compdb_release(kp_compdb_entry *v, int n)
{
	for (int i = 0; i < n; i++) {
		for (int k = 0; k < v[i].nargs; k++)
			free(v[i].args[k]);
		free(v[i].args);
		free(v[i].file);
	}
	free(v);
}
