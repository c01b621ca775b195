/*
 * parse.c - libclang front end: parses the device side of a .cu file and
 * hands the translation unit to the conversion into kpipe's model
 * (model.h).  It owns one parse from start to end: the file's text, the
 * compiler arguments (from parse_args.c), the parse itself on a thread
 * with a large stack, with the CUDA headers precompiled (pch.c) when it
 * can, the compiler's diagnostics, the host declarations clang cannot
 * parse (left out and parsed again: recover.c, host_skip.c), which errors
 * a model survives and which kernels they mark.  kp_parse and
 * kp_parse_build_pch are its entry points.
 *
 * Every clang_* call of kpipe lives in src/frontend/: here and in the
 * parse_*.c files (parse_int.h says which does what), compdb.c (a whole
 * database, for batches), pch.c (the batch's precompiled header),
 * consteval.c, launch_scan.c, host_skip.c and recover.c.  The front end
 * does not analyse loops or decide anything: it records what the AST
 * says, with byte extents in the main file, and hands the model on.
 */
#define _GNU_SOURCE
#include "parse.h"
#include "parse_int.h"

#include "pch.h"
#include "host_skip.h"
#include "recover.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Whether loc lies in a function clang marks __device__ or __global__
 * (its enclosing function, found through the semantic parents). */
static int in_device_code(CXTranslationUnit tu, CXSourceLocation loc)
{
	CXCursor cur = clang_getCursor(tu, loc);
	for (int depth = 0; depth < 64 && !clang_Cursor_isNull(cur); depth++) {
		enum CXCursorKind k = clang_getCursorKind(cur);
		if (k == CXCursor_TranslationUnit || clang_isInvalid(k))
			return 0;
		if (k == CXCursor_FunctionDecl || k == CXCursor_FunctionTemplate ||
		    k == CXCursor_CXXMethod || k == CXCursor_Constructor ||
		    k == CXCursor_Destructor || k == CXCursor_ConversionFunction)
			return kp_cursor_is_device(cur); /* (no __shared__ on a function) */
		cur = clang_getCursorSemanticParent(cur);
	}
	return 0;
}

static void add_diag(kp_file *f, CXDiagnostic d, pctx *c)
{
	enum CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(d);
	if (sev < CXDiagnostic_Warning)
		return;
	kp_parse_diag *nd = kp_arena_alloc(&f->arena, sizeof(*nd) * (size_t)(f->ndiags + 1));
	if (f->ndiags)
		memcpy(nd, f->diags, sizeof(*nd) * (size_t)f->ndiags);
	kp_parse_diag *x = &nd[f->ndiags];
	CXFile file;
	unsigned line, col;
	clang_getExpansionLocation(clang_getDiagnosticLocation(d), &file, &line, &col, NULL);
	x->line = (int)line;
	x->col = (int)col;
	x->file = file ? cx_dup(&f->arena, clang_getFileName(file)) : f->path;
	if (file && c->main && clang_File_isEqual(file, c->main))
		x->file = f->path;
	x->severity = sev >= CXDiagnostic_Error ? "error" : "warning";
	x->message = cx_dup(&f->arena, clang_getDiagnosticSpelling(d));
	CXString cat = clang_getDiagnosticCategoryText(d);
	const char *cs = clang_getCString(cat);
	x->semantic = cs && !strcmp(cs, "Semantic Issue");
	x->missing_include = cs && !strcmp(cs, "Lexical or Preprocessor Issue") &&
			     strstr(x->message, "file not found");
	clang_disposeString(cat);
	if (sev >= CXDiagnostic_Error && x->file != f->path) { /* errors_tolerable() */
		CXSourceLocation loc = clang_getDiagnosticLocation(d);
		x->in_system = clang_Location_isInSystemHeader(loc);
		x->in_device = c->tu && in_device_code(c->tu, loc);
	}
	f->diags = nd;
	f->ndiags++;
	if (sev >= CXDiagnostic_Error)
		f->nerrors++;
}

/* Whether the translation unit's errors leave kernels to analyse: every
 * error a semantic one (not a parse error, which can change where a kernel
 * ends) or a header that is not found (torch/extension.h where PyTorch is
 * not installed: the names it declares are then undeclared, semantic
 * errors, and a kernel that uses one is marked) in the main file or a
 * project header (host code clang rejects and
 * nvcc accepts: `time()` without <ctime>, host `max` on mixed types; a
 * `__shared__` object clang will not construct).  Parse errors and errors
 * in other headers stop the file. */
static int errors_tolerable(const kp_file *f, const header_policy *pol)
{
	for (int i = 0; i < f->ndiags; i++) {
		const kp_parse_diag *d = &f->diags[i];
		if (strcmp(d->severity, "error"))
			continue;
		if (d->line <= 0 || (!d->semantic && !d->missing_include))
			return 0;
		if (d->file == f->path)
			continue;
		/* a project header kpipe analyses: its kernels are marked; one
		 * it does not (outside --header-filter, another folder of the
		 * project): an error outside its device code is host code's, as
		 * in the main file (a library's header whose own includes are
		 * not here: faiss's cuVS headers) */
		char *abs = realpath(d->file, NULL);
		int ok = abs &&
			 (kp_parse_wanted_header(pol, abs) || (!d->in_system && !d->in_device));
		free(abs);
		if (!ok)
			return 0;
	}
	return 1;
}

/* The kernel of model m an error at (abs file, line) lies in, or NULL. */
static kp_kernel *kernel_at(kp_file *m, const char *abs, const char *file, int line)
{
	if (m->abs_path ? !abs || strcmp(abs, m->abs_path) : file != m->path)
		return NULL;
	for (int k = 0; k < m->nkernels; k++) {
		kp_kernel *kr = m->kernels[k];
		int e, col;
		kp_file_linecol(m, kr->end, &e, &col);
		if (kr->line > 0 && line >= kr->line && line <= e)
			return kr;
	}
	return NULL;
}

/* Each error inside a kernel marks it (kp_kernel.error, kp_parse_diag.
 * kernel): it is never rewritten.  Returns whether a kernel without an
 * error is left, in the file or its headers' models. */
static int mark_kernel_errors(kp_file *f)
{
	for (int i = 0; i < f->ndiags; i++) {
		kp_parse_diag *d = &f->diags[i];
		if (strcmp(d->severity, "error"))
			continue;
		char *abs = d->file == f->path ? NULL : realpath(d->file, NULL);
		kp_kernel *kr = kernel_at(f, abs, d->file, d->line);
		kp_file *owner = f;
		for (int h = 0; !kr && h < f->nheaders; h++) {
			kr = kernel_at(f->headers[h], abs, d->file, d->line);
			owner = f->headers[h];
		}
		free(abs);
		if (!kr)
			continue;
		d->kernel = kr->name;
		if (!kr->error)
			kr->error =
				kp_arena_printf(&owner->arena, "line %d: %s", d->line, d->message);
	}
	int clean = 0;
	for (int k = 0; k < f->nkernels; k++)
		clean |= !f->kernels[k]->error;
	for (int h = 0; h < f->nheaders; h++)
		for (int k = 0; k < f->headers[h]->nkernels; k++)
			clean |= !f->headers[h]->kernels[k]->error;
	return clean;
}

/* The NUL-separated arguments of a store as an array (malloc'd, NULL
 * ended; the strings stay the store's). */
static const char **store_argv(kp_strbuf *store, int n)
{
	const char **argv = kp_xcalloc((size_t)n + 1, sizeof(char *));
	const char *p = kp_strbuf_str(store);
	for (int i = 0; i < n; i++) {
		argv[i] = p;
		p += strlen(p) + 1;
	}
	return argv;
}

/* Every argument of a parse of `path` with o but the file: the shared
 * ones (kp_clang_base_args), the cache-hint shim, the compilation
 * database's flags (unless the caller gave them), o->args. */
static void parse_args(const char *path, const kp_parse_opts *o, kp_strbuf *store, int *nstore)
{
	kp_clang_base_args(o->arch, o->cuda_path, store, nstore);
	const char *shim = kp_parse_hints_shim();
	if (shim) {
		kp_clang_arg(store, nstore, "-include");
		kp_clang_arg(store, nstore, "%s", shim);
	}
	if (!o->contents || o->build_dir)
		kp_parse_compdb_args(path, o->build_dir, !o->no_compdb, store, nstore);
	for (int i = 0; i < o->nargs; i++)
		kp_clang_arg(store, nstore, "%s", o->args[i]);
}

static unsigned long long mix_text(const char *path, const char *text, size_t len,
				   unsigned long long h)
{
	h = kp_fnv1a64(path, strlen(path) + 1, h);
	h = kp_fnv1a64(&len, sizeof(len), h);
	return kp_fnv1a64(text, len, h);
}

unsigned long long kp_parse_key(const char *path, const kp_parse_opts *o, unsigned long long h)
{
	char *disk = NULL;
	const char *text = o->contents;
	size_t len = o->contents_len;
	if (!text && kp_read_file(path, &disk, &len))
		return 0;
	kp_strbuf store = KP_STRBUF_INIT;
	int nstore = 0;
	parse_args(path, o, &store, &nstore);
	const char **argv = store_argv(&store, nstore);
	h = kp_pch_args_key(argv, nstore, h);
	free(argv);
	kp_strbuf_release(&store);
	h = kp_fnv1a64(&o->diags_only, sizeof(o->diags_only), h);
	h = mix_text(path, text ? text : disk, len, h);
	free(disk);
	for (int i = 0; i < o->nunsaved; i++)
		h = mix_text(o->unsaved[i].path, o->unsaved[i].text, o->unsaved[i].len, h);
	return h ? h : 1;
}

/* Test hook (docs/reliability.md): KPIPE_TEST_TRACE_PARSES=FILE appends
 * one line per parse to FILE, "full PATH" or "diags PATH" (diags_only: the
 * re-parse guard), so the tests can count them. */
static void trace_parse(const char *path, const kp_parse_opts *o)
{
	const char *t = getenv("KPIPE_TEST_TRACE_PARSES");
	if (!t || !*t)
		return;
	int fd = open(t, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "%s %s\n", o->diags_only ? "diags" : "full", path);
	ssize_t w = write(fd, kp_strbuf_str(&sb), sb.len); /* one write: lines whole */
	(void)w;
	kp_strbuf_release(&sb);
	close(fd);
}

/* Whether clang refused the precompiled header `pch` it was given (built
 * by another libclang, or a header changed since): a fatal error that
 * says so or names it. */
static int pch_refused(CXTranslationUnit tu, const char *pch)
{
	int bad = 0;
	unsigned nd = clang_getNumDiagnostics(tu);
	for (unsigned i = 0; i < nd && !bad; i++) {
		CXDiagnostic d = clang_getDiagnostic(tu, i);
		if (clang_getDiagnosticSeverity(d) == CXDiagnostic_Fatal) {
			CXString s = clang_getDiagnosticSpelling(d);
			const char *m = clang_getCString(s);
			bad = m && (strstr(m, "precompiled header") || strstr(m, "PCH") ||
				    strstr(m, "AST file") || strstr(m, pch));
			clang_disposeString(s);
		}
		clang_disposeDiagnostic(d);
	}
	return bad;
}

/* Parses with the CUDA headers precompiled (pch.c's cache) when `cache`
 * is set, argv has no header of its own (a batch's, the language
 * server's) and the cache has or can build one; else, or when clang
 * refuses the cached header (then dropped), from scratch. */
static enum CXErrorCode parse_tu(CXIndex idx, const char *path, const char *const *argv, int n,
				 struct CXUnsavedFile *uf, unsigned nuf, int cache,
				 CXTranslationUnit *tu)
{
	const unsigned flags = CXTranslationUnit_KeepGoing;
	for (int i = 0; cache && i < n; i++)
		cache = strcmp(argv[i], "-include-pch") != 0;
	char *pch = cache ? kp_pch_cached(argv, n) : NULL;
	if (pch) {
		const char **a = kp_xcalloc((size_t)n + 3, sizeof(*a));
		memcpy(a, argv, (size_t)n * sizeof(*a));
		a[n] = "-include-pch";
		a[n + 1] = pch;
		enum CXErrorCode ec =
			clang_parseTranslationUnit2(idx, path, a, n + 2, uf, nuf, flags, tu);
		free(a);
		int refused = ec == CXError_ASTReadError ||
			      (ec == CXError_Success && *tu && pch_refused(*tu, pch));
		if (!refused) {
			free(pch);
			return ec;
		}
		if (*tu)
			clang_disposeTranslationUnit(*tu);
		*tu = NULL;
		kp_pch_drop(pch);
		free(pch);
	}
	return clang_parseTranslationUnit2(idx, path, argv, n, uf, nuf, flags, tu);
}

static void free_recovered(kp_recovered_file *v, int n)
{
	for (int i = 0; i < n; i++) {
		free(v[i].path);
		free(v[i].text);
	}
	free(v);
}

static void free_skipped(kp_skipped_decl *v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i].err);
	free(v);
}

/* A parse error in a top-level host declaration of the main file (host
 * code of a library whose headers are not here: `a.data_ptr<at::Half>()`
 * without libtorch): the declaration is blanked in the text clang parses
 * (*ctext, then the main file's unsaved entry in uf) and the file parsed
 * again; each one left out goes to *v.  Before that, a project header
 * with an error whose text recover.c changes (a `%laneid`) is given to
 * clang recovered (*hv, and an entry of uf).  Up to 8 parses more.
 * Returns the error code of the last parse, whose unit is *tu. */
static enum CXErrorCode skip_host_errors(CXIndex idx, const char *path, const char *const *argv,
					 int nstore, kp_file *f, char **ctext,
					 struct CXUnsavedFile *uf, unsigned *nuf,
					 enum CXErrorCode ec, CXTranslationUnit *tu,
					 kp_skipped_decl **v, int *n, kp_recovered_file **hv,
					 int *nh)
{
	for (int round = 0; round < 8 && ec == CXError_Success && *tu; round++) {
		CXFile main = clang_getFile(*tu, path);
		if (!main || !clang_getNumDiagnostics(*tu))
			break;
		int had = *nh;
		if (kp_recover_headers(*tu, main, hv, nh)) {
			/* a header with a `%laneid` (...): its recovered text */
			for (int i = had; i < *nh; i++)
				uf[(*nuf)++] = (struct CXUnsavedFile){(*hv)[i].path, (*hv)[i].text,
								      (unsigned long)(*hv)[i].len};
			clang_disposeTranslationUnit(*tu);
			*tu = NULL;
			ec = parse_tu(idx, path, argv, nstore, uf, *nuf, 1, tu);
			continue;
		}
		int fresh = !*ctext;
		if (fresh)
			*ctext = kp_xstrndup(f->src, f->len);
		if (!kp_recover_host_errors(*tu, main, *ctext, f->len, v, n)) {
			if (fresh) {
				free(*ctext);
				*ctext = NULL;
			}
			break;
		}
		unsigned m = 0;
		while (m < *nuf && strcmp(uf[m].Filename, path))
			m++;
		if (m == *nuf)
			++*nuf;
		uf[m] = (struct CXUnsavedFile){path, *ctext, (unsigned long)f->len};
		clang_disposeTranslationUnit(*tu);
		*tu = NULL;
		ec = parse_tu(idx, path, argv, nstore, uf, *nuf, 1, tu);
	}
	return ec;
}

/* A kernel of f named in a host declaration left out of the parse: its
 * launches there are not seen.  Recorded as a launch of api "skipped" at
 * the first mention (model.h), never editable, its dynamic shared memory
 * unknown, so that nothing takes the kernel for one launched elsewhere. */
static void add_skipped_launches(kp_file *f, const kp_skipped_decl *v, int n)
{
	for (int k = 0; k < f->nkernels; k++) {
		kp_kernel *kr = f->kernels[k];
		size_t nl = strlen(kr->name);
		if (kr->is_device || !nl)
			continue;
		for (int i = 0; i < n; i++) {
			const char *p = f->src + v[i].b, *end = f->src + v[i].e;
			while ((p = memmem(p, (size_t)(end - p), kr->name, nl)) &&
			       ((p > f->src && kp_is_ident_char(p[-1])) ||
				(p + nl < end && kp_is_ident_char(p[nl]))))
				p += nl;
			if (!p)
				continue;
			kp_launch *nv =
				kp_arena_alloc(&f->arena, sizeof(*nv) * (size_t)(f->nlaunches + 1));
			if (f->nlaunches)
				memcpy(nv, f->launches, sizeof(*nv) * (size_t)f->nlaunches);
			kp_launch *x = &nv[f->nlaunches];
			memset(x, 0, sizeof(*x));
			x->kernel = kr;
			x->begin = (unsigned)(p - f->src);
			x->api = "skipped";
			x->dyn_smem = -1;
			kp_file_linecol(f, x->begin, &x->line, &x->col);
			f->launches = nv;
			f->nlaunches++;
			break;
		}
	}
}

/* The host declarations skip_host_errors left out, as notes of f. */
static void add_skipped_notes(kp_file *f, const kp_skipped_decl *v, int n)
{
	if (!n)
		return;
	kp_parse_diag *nd = kp_arena_alloc(&f->arena, sizeof(*nd) * (size_t)(f->ndiags + n));
	if (f->ndiags)
		memcpy(nd, f->diags, sizeof(*nd) * (size_t)f->ndiags);
	for (int i = 0; i < n; i++) {
		kp_parse_diag *x = &nd[f->ndiags + i];
		memset(x, 0, sizeof(*x));
		x->file = f->path;
		x->line = v[i].line;
		x->col = v[i].col;
		x->severity = "note";
		x->skipped = 1;
		if (v[i].name[0])
			x->message = kp_arena_printf(
				&f->arena,
				"host function '%s' left out of the parse: clang cannot parse it as "
				"nvcc would (line %d: %s); kernels are analysed without it, and the "
				"launches in it are not seen",
				v[i].name, v[i].err_line, v[i].err);
		else
			x->message = kp_arena_printf(
				&f->arena,
				"host declaration left out of the parse: clang cannot parse it as "
				"nvcc would (line %d: %s); kernels are analysed without it",
				v[i].err_line, v[i].err);
	}
	f->diags = nd;
	f->ndiags += n;
}

static int parse_file(kp_file *f, const char *path, const kp_parse_opts *o, char **errmsg)
{
	int rc = KP_PARSE_OK;
	*errmsg = NULL;
	f->path = path;
	f->auto_probe = o->auto_probe;
	if (o->contents) {
		f->src = kp_xstrndup(o->contents, o->contents_len);
		f->len = o->contents_len;
	} else {
		int e = kp_read_file(path, &f->src, &f->len);
		if (e) {
			*errmsg = kp_xstrdup(strerror(-e));
			return KP_PARSE_IO;
		}
	}
	if (memchr(f->src, '\0', f->len)) {
		*errmsg = kp_xstrdup("file contains NUL bytes (not a source file)");
		return KP_PARSE_IO;
	}
	if (f->len >= 3 && (unsigned char)f->src[0] == 0xEF && (unsigned char)f->src[1] == 0xBB &&
	    (unsigned char)f->src[2] == 0xBF)
		f->has_bom = 1;
	kp_parse_scan_includes(f);

	kp_strbuf store = KP_STRBUF_INIT; /* NUL-separated argument strings */
	int nstore = 0;
	parse_args(path, o, &store, &nstore);
	const char **argv = store_argv(&store, nstore);

	CXIndex idx = clang_createIndex(1, 0); /* skip declarations from a shared PCH */
	CXTranslationUnit tu = NULL;
	struct CXUnsavedFile *uf =
		kp_xcalloc((size_t)o->nunsaved + 2 + KP_MAX_RECOVERED, sizeof(*uf));
	unsigned nuf = 0;
	/* the text clang parses: the file's, or recover.c's copy of it */
	char *ctext = kp_recover_text(f->src, f->len);
	if (o->contents || ctext)
		uf[nuf++] =
			(struct CXUnsavedFile){path, ctext ? ctext : f->src, (unsigned long)f->len};
	for (int i = 0; i < o->nunsaved; i++)
		uf[nuf++] = (struct CXUnsavedFile){o->unsaved[i].path, o->unsaved[i].text,
						   (unsigned long)o->unsaved[i].len};
	enum CXErrorCode ec = parse_tu(idx, path, argv, nstore, nuf ? uf : NULL, nuf, 1, &tu);
	kp_skipped_decl *skipped = NULL;
	int nskipped = 0;
	kp_recovered_file *hv = NULL;
	int nh = 0;
	ec = skip_host_errors(idx, path, argv, nstore, f, &ctext, uf, &nuf, ec, &tu, &skipped,
			      &nskipped, &hv, &nh);
	if (ec != CXError_Success || !tu) {
		free(ctext);
		free_skipped(skipped, nskipped);
		free_recovered(hv, nh);
		free(uf);
		free(argv);
		kp_strbuf_release(&store);
		const char *why = ec == CXError_Crashed            ? "libclang crashed"
				  : ec == CXError_InvalidArguments ? "invalid arguments"
				  : ec == CXError_ASTReadError     ? "AST read error"
								   : "libclang failed";
		*errmsg = kp_xstrdup(why);
		clang_disposeIndex(idx);
		return KP_PARSE_FAILED;
	}
	pctx c = {0};
	c.f = f;
	c.tu = tu;
	c.main = clang_getFile(tu, path);
	c.o = o;
	unsigned nd = clang_getNumDiagnostics(tu);
	for (unsigned i = 0; i < nd; i++) {
		CXDiagnostic d = clang_getDiagnostic(tu, i);
		add_diag(f, d, &c);
		clang_disposeDiagnostic(d);
	}
	add_skipped_notes(f, skipped, nskipped);
	if (!c.main) {
		*errmsg = kp_xstrdup("libclang did not load the main file");
		rc = KP_PARSE_FAILED;
		goto cleanup;
	}
	if (o->diags_only) {
		rc = f->nerrors ? KP_PARSE_ERRORS : KP_PARSE_OK;
		goto cleanup;
	}
	kp_parse_build_model(&c, argv, nstore);
	add_skipped_launches(f, skipped, nskipped);
	header_policy pol;
	kp_parse_header_policy_init(&pol, o);
	if (f->nerrors && !errors_tolerable(f, &pol))
		rc = KP_PARSE_ERRORS;
	else if (c.too_deep) {
		kp_strbuf m = KP_STRBUF_INIT;
		if (c.too_deep > 0)
			kp_strbuf_addf(&m, "line %d: ", c.too_deep);
		kp_strbuf_addf(&m,
			       "statements or expressions nest deeper than %d levels; kpipe "
			       "does not analyse such a file",
			       KP_MAX_NESTING);
		*errmsg = kp_strbuf_detach(&m);
		rc = KP_PARSE_FAILED;
	}
	if (rc == KP_PARSE_OK && o->headers)
		kp_parse_build_header_models(&c, o, &pol, argv, nstore);
	if (rc == KP_PARSE_OK && f->nerrors) {
		if (mark_kernel_errors(f))
			f->outside_errors = f->nerrors;
		else
			rc = KP_PARSE_ERRORS;
	}
	kp_parse_mark_carves(f);
	kp_parse_header_policy_release(&pol);
cleanup:
	free(ctext);
	free_skipped(skipped, nskipped);
	free_recovered(hv, nh);
	free(uf);
	free(argv);
	kp_strbuf_release(&store);
	free(c.dkeys);
	free(c.mcur);
	free(c.mdecl);
	free(c.dvals);
	free(c.dindex);
	clang_disposeTranslationUnit(tu);
	clang_disposeIndex(idx);
	return rc;
}

/* libclang parses on a thread of its own with an 8 MB stack, and clang
 * recurses once per operand of a long chain such as 1 + 1 + ... + 1: a
 * 100 000-term line overflowed it and killed kpipe with SIGSEGV.  So the
 * parse (and the conversion, which recurses too) runs on a thread with a
 * large stack, reserved but only touched as deep as the input needs, and
 * libclang is told to stay on it (LIBCLANG_NOTHREADS; it still recovers
 * from its own crashes there).  Without the thread it parses in place. */
#define KP_PARSE_STACK ((size_t)1 << 30)

typedef struct {
	kp_file *f;
	const char *path;
	const kp_parse_opts *o;
	char **errmsg;
	int rc;
} parse_job;

/* The alternate signal stack of the parse thread.  LLVM installs one of
 * its own (malloc'd) on the thread that first registers its crash
 * handlers when the thread's is smaller than 64 KB plus MINSIGSTKSZ (the
 * precompiled header's save does, on the first run with an empty cache);
 * under ASan, whose threads have a 32 KB one, the sanitizer then aborts
 * as the thread exits, unmapping LLVM's stack as if it were its own.  A
 * large enough stack of kpipe's, put back as it was before the thread
 * ends, leaves LLVM nothing to replace. */
#define KP_ALT_STACK ((size_t)256 << 10)

static void *parse_thread(void *arg)
{
	parse_job *j = arg;
	stack_t mine = {0}, old = {0};
	void *p = mmap(NULL, KP_ALT_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		       0);
	int alt = p != MAP_FAILED;
	if (alt) {
		mine.ss_sp = p;
		mine.ss_size = KP_ALT_STACK;
		alt = sigaltstack(&mine, &old) == 0;
		if (!alt)
			munmap(p, KP_ALT_STACK);
	}
	j->rc = parse_file(j->f, j->path, j->o, j->errmsg);
	if (alt) {
		stack_t now = {0};
		/* put back the thread's own (or none), unless LLVM replaced ours
		 * after all: then leave its stack where it is */
		if (sigaltstack(NULL, &now) == 0 && now.ss_sp == p) {
			if (!old.ss_sp)
				old.ss_flags = SS_DISABLE;
			if (sigaltstack(&old, NULL) == 0)
				munmap(p, KP_ALT_STACK);
		}
	}
	return NULL;
}

int kp_parse(kp_file *f, const char *path, const kp_parse_opts *o, char **errmsg)
{
	trace_parse(path, o);
	parse_job j = {f, path, o, errmsg, KP_PARSE_FAILED};
	pthread_attr_t attr;
	pthread_t t;
	int started = 0;
	if (pthread_attr_init(&attr) == 0) {
		if (pthread_attr_setstacksize(&attr, KP_PARSE_STACK) == 0) {
			setenv("LIBCLANG_NOTHREADS", "1", 0);
			started = pthread_create(&t, &attr, parse_thread, &j) == 0;
		}
		pthread_attr_destroy(&attr);
	}
	if (!started)
		return parse_file(f, path, o, errmsg);
	pthread_join(t, NULL);
	return j.rc;
}

int kp_parse_build_pch(const char *arch, const char *cuda_path, const char *const *args, int nargs,
		       const char *main_path, const char *pch_path, char **err)
{
	*err = NULL;
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
	const char **argv = store_argv(&store, nstore);
	int rc = kp_pch_build(argv, nstore, main_path, pch_path, err);
	free(argv);
	kp_strbuf_release(&store);
	return rc;
}
