/*
 * compdb.c - compiler arguments for the parser.  kp_nvcc_translate() turns
 * an nvcc (or gcc/clang) command line into the clang flags kpipe parses
 * with: response files expanded, include paths, macros, the language
 * standard and relocatable device code kept in clang's spelling, the
 * target architectures recorded, everything else dropped.  It is the only
 * place that decides which flags are kept: parse_args.c (a single file's
 * database entry), cli.c (kpipe's arguments after --) and kp_compdb_load()
 * below (every entry, for a batch) all call it, so a batch parses each
 * file exactly as a single-file run with -p would.
 *
 * Like the parser (parse.c, parse_*.c) and pch.c, it calls libclang:
 * kp_compdb_load() uses the CXCompilationDatabase API alone.  The
 * translation itself calls no libclang (the unit tests drive it directly).
 */
#define _GNU_SOURCE
#include "compdb.h"

#include "util.h"

#include <clang-c/CXCompilationDatabase.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void push(char ***v, int *n, char *s)
{
	*v = kp_xrealloc(*v, sizeof(char *) * (size_t)(*n + 1));
	(*v)[(*n)++] = s;
}

static char *dupf(const char *fmt, ...) KP_PRINTF(1, 2);
static char *dupf(const char *fmt, ...)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	kp_strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	return kp_strbuf_detach(&sb);
}

void kp_flags_release(kp_flags *f)
{
	for (int i = 0; i < f->nkeep; i++)
		free(f->keep[i]);
	for (int i = 0; i < f->ndropped; i++)
		free(f->dropped[i]);
	for (int i = 0; i < f->narchs; i++)
		free(f->archs[i]);
	free(f->keep);
	free(f->dropped);
	free(f->archs);
	free(f->arch);
	memset(f, 0, sizeof(*f));
}

char *kp_flags_join(char *const *v, int n)
{
	if (n == 0)
		return kp_xstrdup("(none)");
	kp_strbuf sb = KP_STRBUF_INIT;
	for (int i = 0; i < n; i++) {
		if (i)
			kp_strbuf_addc(&sb, ' ');
		kp_strbuf_adds(&sb, v[i]);
	}
	return kp_strbuf_detach(&sb);
}

/* ---- response files -------------------------------------------------- */

typedef struct {
	char **v;
	int n;
} toks;

/* Splits like a POSIX shell, without expansions: blanks separate words,
 * '...' is literal, "..." literal but for \" \\ \$ \` and a
 * backslash-newline, and outside quotes a backslash escapes the next
 * character (backslash-newline joins lines). */
static void tokenize(const char *s, size_t n, toks *t)
{
	size_t i = 0;
	while (i < n) {
		while (i < n && isspace((unsigned char)s[i]))
			i++;
		if (i >= n)
			break;
		kp_strbuf w = KP_STRBUF_INIT;
		kp_strbuf_adds(&w, ""); /* "" is an (empty) word */
		while (i < n && !isspace((unsigned char)s[i])) {
			char c = s[i++];
			if (c == '\'') {
				while (i < n && s[i] != '\'')
					kp_strbuf_addc(&w, s[i++]);
				i += i < n;
			} else if (c == '"') {
				while (i < n && s[i] != '"') {
					if (s[i] == '\\' && i + 1 < n &&
					    strchr("\"\\$`\n", s[i + 1])) {
						if (s[i + 1] != '\n')
							kp_strbuf_addc(&w, s[i + 1]);
						i += 2;
					} else
						kp_strbuf_addc(&w, s[i++]);
				}
				i += i < n;
			} else if (c == '\\' && i < n) {
				if (s[i] != '\n')
					kp_strbuf_addc(&w, s[i]);
				i++;
			} else
				kp_strbuf_addc(&w, c);
		}
		push(&t->v, &t->n, kp_strbuf_detach(&w));
	}
}

static void expand(const char *const *argv, int argc, const char *dir, int depth, toks *t,
		   kp_flags *out);

/* Reads response file `name` (`shown` is how it was named) into t. */
static void read_rsp(const char *name, const char *shown, const char *dir, int depth, toks *t,
		     kp_flags *out)
{
	if (depth >= KP_RSP_DEPTH) {
		push(&out->dropped, &out->ndropped,
		     dupf("%s (response files nested deeper than %d)", shown, KP_RSP_DEPTH));
		return;
	}
	char *path = name[0] != '/' && dir && *dir ? dupf("%s/%s", dir, name) : kp_xstrdup(name);
	char *txt = NULL;
	size_t len = 0;
	int e = kp_read_file(path, &txt, &len);
	free(path);
	if (e) {
		push(&out->dropped, &out->ndropped,
		     dupf("%s (cannot read: %s)", shown, strerror(-e)));
		return;
	}
	toks sub = {0};
	tokenize(txt, strlen(txt), &sub);
	free(txt);
	expand((const char *const *)sub.v, sub.n, dir, depth + 1, t, out);
	for (int i = 0; i < sub.n; i++)
		free(sub.v[i]);
	free(sub.v);
}

/* nvcc's --options-file takes a comma-separated list. */
static void read_rsp_list(const char *list, const char *opt, const char *dir, int depth, toks *t,
			  kp_flags *out)
{
	char *copy = kp_xstrdup(list);
	char *save = NULL;
	for (char *f = strtok_r(copy, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
		char *shown = dupf("%s %s", opt, f);
		read_rsp(f, shown, dir, depth, t, out);
		free(shown);
	}
	free(copy);
}

/* argv with every response file replaced by what it holds. */
static void expand(const char *const *argv, int argc, const char *dir, int depth, toks *t,
		   kp_flags *out)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] == '@' && a[1])
			read_rsp(a + 1, a, dir, depth, t, out);
		else if (!strcmp(a, "--options-file") || !strcmp(a, "-optf")) {
			if (i + 1 < argc) {
				read_rsp_list(argv[i + 1], a, dir, depth, t, out);
				i++;
			} else
				push(&out->dropped, &out->ndropped, dupf("%s (missing value)", a));
		} else if (!strncmp(a, "--options-file=", 15) || !strncmp(a, "-optf=", 6)) {
			const char *eq = strchr(a, '=');
			char *opt = kp_xstrndup(a, (size_t)(eq - a));
			read_rsp_list(eq + 1, opt, dir, depth, t, out);
			free(opt);
		} else
			push(&t->v, &t->n, kp_xstrdup(a));
	}
}

/* ---- the options ----------------------------------------------------- */

enum {
	A_NONE, /* a flag */
	A_VAL,  /* takes a value: -o X, -o=X */
	A_VALJ, /* also joined: -IX */
};

enum {
	K_DROP,    /* nvcc's, or the host compiler's: always dropped */
	K_CLANG,   /* a clang option that does not come from nvcc: passed
		      through for kpipe's own arguments, dropped from a database */
	K_PATH,    /* an include directory: `clang` DIR, made absolute */
	K_INCLUDE, /* -include FILE */
	K_D,
	K_U,
	K_STD,
	K_RDC,      /* -dc: relocatable device code */
	K_RDC_BOOL, /* -rdc=true */
	K_ARCH,     /* -arch, -code, --cuda-gpu-arch: a list of targets */
	K_GENCODE,  /* -gencode arch=compute_90,code=[sm_90,compute_90] */
	K_EQ,       /* -ftemplate-depth N: kept as `clang`N */
	K_WERROR,   /* nvcc's -Werror KIND, or clang's -Werror */
};

typedef struct {
	const char *name;
	unsigned char arg, kind;
	const char *clang; /* the clang spelling (K_PATH, K_INCLUDE, K_EQ) */
} kp_opt;

/* nvcc 13's options (nvcc --help), then the gcc/clang options a database
 * of another compiler holds and those kpipe's own arguments may. */
static const kp_opt opts[] = {
	/* kept, in clang's spelling */
	{"-I", A_VALJ, K_PATH, "-I"},
	{"--include-path", A_VAL, K_PATH, "-I"},
	{"-isystem", A_VALJ, K_PATH, "-isystem"},
	{"--system-include", A_VAL, K_PATH, "-isystem"},
	{"-iquote", A_VALJ, K_PATH, "-iquote"},
	{"-idirafter", A_VALJ, K_PATH, "-idirafter"},
	{"-include", A_VALJ, K_INCLUDE, "-include"},
	{"--pre-include", A_VAL, K_INCLUDE, "-include"},
	{"-D", A_VALJ, K_D, NULL},
	{"--define-macro", A_VAL, K_D, NULL},
	{"-U", A_VALJ, K_U, NULL},
	{"--undefine-macro", A_VAL, K_U, NULL},
	{"-std", A_VAL, K_STD, NULL},
	{"--std", A_VAL, K_STD, NULL},
	{"-rdc", A_VAL, K_RDC_BOOL, NULL},
	{"--relocatable-device-code", A_VAL, K_RDC_BOOL, NULL},
	{"-dc", A_NONE, K_RDC, NULL},
	{"--device-c", A_NONE, K_RDC, NULL},
	{"-fgpu-rdc", A_NONE, K_RDC, NULL},
	{"-ftemplate-depth", A_VAL, K_EQ, "-ftemplate-depth="},
	{"--ftemplate-depth", A_VAL, K_EQ, "-ftemplate-depth="},
	{"-ftemplate-backtrace-limit", A_VAL, K_EQ, "-ftemplate-backtrace-limit="},
	{"--ftemplate-backtrace-limit", A_VAL, K_EQ, "-ftemplate-backtrace-limit="},
	/* targets */
	{"-arch", A_VAL, K_ARCH, NULL},
	{"--gpu-architecture", A_VAL, K_ARCH, NULL},
	{"-code", A_VAL, K_ARCH, NULL},
	{"--gpu-code", A_VAL, K_ARCH, NULL},
	{"--cuda-gpu-arch", A_VAL, K_ARCH, NULL},
	{"--offload-arch", A_VAL, K_ARCH, NULL},
	{"-gencode", A_VAL, K_GENCODE, NULL},
	{"--generate-code", A_VAL, K_GENCODE, NULL},
	{"-Werror", A_VAL, K_WERROR, NULL},
	{"--Werror", A_VAL, K_WERROR, NULL},
	/* nvcc's, with a value */
	{"-o", A_VAL, K_DROP, NULL},
	{"--output-file", A_VAL, K_DROP, NULL},
	{"-l", A_VALJ, K_DROP, NULL},
	{"--library", A_VAL, K_DROP, NULL},
	{"-L", A_VALJ, K_DROP, NULL},
	{"--library-path", A_VAL, K_DROP, NULL},
	{"-odir", A_VAL, K_DROP, NULL},
	{"--output-directory", A_VAL, K_DROP, NULL},
	{"-ccbin", A_VAL, K_DROP, NULL},
	{"--compiler-bindir", A_VAL, K_DROP, NULL},
	{"-arbin", A_VAL, K_DROP, NULL},
	{"--archiver-binary", A_VAL, K_DROP, NULL},
	{"-cudart", A_VAL, K_DROP, NULL},
	{"--cudart", A_VAL, K_DROP, NULL},
	{"-cudadevrt", A_VAL, K_DROP, NULL},
	{"--cudadevrt", A_VAL, K_DROP, NULL},
	{"-ldir", A_VAL, K_DROP, NULL},
	{"--libdevice-directory", A_VAL, K_DROP, NULL},
	{"-target-dir", A_VAL, K_DROP, NULL},
	{"--target-directory", A_VAL, K_DROP, NULL},
	{"-opt-info", A_VAL, K_DROP, NULL},
	{"--optimization-info", A_VAL, K_DROP, NULL},
	{"-O", A_VALJ, K_DROP, NULL},
	{"--optimize", A_VAL, K_DROP, NULL},
	{"-Ofc", A_VAL, K_DROP, NULL},
	{"--Ofast-compile", A_VAL, K_DROP, NULL},
	{"-dopt", A_VAL, K_DROP, NULL},
	{"--dopt", A_VAL, K_DROP, NULL},
	{"-x", A_VALJ, K_DROP, NULL},
	{"--x", A_VAL, K_DROP, NULL},
	{"-m", A_VAL, K_DROP, NULL},
	{"--machine", A_VAL, K_DROP, NULL},
	{"-Xcompiler", A_VAL, K_DROP, NULL},
	{"--compiler-options", A_VAL, K_DROP, NULL},
	{"-Xlinker", A_VAL, K_DROP, NULL},
	{"--linker-options", A_VAL, K_DROP, NULL},
	{"-Xarchive", A_VAL, K_DROP, NULL},
	{"--archive-options", A_VAL, K_DROP, NULL},
	{"-Xptxas", A_VAL, K_DROP, NULL},
	{"--ptxas-options", A_VAL, K_DROP, NULL},
	{"-Xnvlink", A_VAL, K_DROP, NULL},
	{"--nvlink-options", A_VAL, K_DROP, NULL},
	{"-Xcudafe", A_VAL, K_DROP, NULL},
	{"-Xfatbin", A_VAL, K_DROP, NULL},
	{"--fatbin-options", A_VAL, K_DROP, NULL},
	{"-static-global-template-stub", A_VAL, K_DROP, NULL},
	{"--static-global-template-stub", A_VAL, K_DROP, NULL},
	{"-device-entity-has-hidden-visibility", A_VAL, K_DROP, NULL},
	{"--device-entity-has-hidden-visibility", A_VAL, K_DROP, NULL},
	{"-t", A_VAL, K_DROP, NULL},
	{"--threads", A_VAL, K_DROP, NULL},
	{"-split-compile", A_VAL, K_DROP, NULL},
	{"--split-compile", A_VAL, K_DROP, NULL},
	{"-split-compile-extended", A_VAL, K_DROP, NULL},
	{"--split-compile-extended", A_VAL, K_DROP, NULL},
	{"-fdevice-time-trace", A_VAL, K_DROP, NULL},
	{"--fdevice-time-trace", A_VAL, K_DROP, NULL},
	{"-keep-dir", A_VAL, K_DROP, NULL},
	{"--keep-dir", A_VAL, K_DROP, NULL},
	{"-time", A_VAL, K_DROP, NULL},
	{"--time", A_VAL, K_DROP, NULL},
	{"-run-args", A_VAL, K_DROP, NULL},
	{"--run-args", A_VAL, K_DROP, NULL},
	{"-idp", A_VAL, K_DROP, NULL},
	{"--input-drive-prefix", A_VAL, K_DROP, NULL},
	{"-ddp", A_VAL, K_DROP, NULL},
	{"--dependency-drive-prefix", A_VAL, K_DROP, NULL},
	{"-dp", A_VAL, K_DROP, NULL},
	{"--drive-prefix", A_VAL, K_DROP, NULL},
	{"-MT", A_VALJ, K_DROP, NULL},
	{"--dependency-target-name", A_VAL, K_DROP, NULL},
	{"-MF", A_VALJ, K_DROP, NULL},
	{"--dependency-output", A_VAL, K_DROP, NULL},
	{"-MQ", A_VALJ, K_DROP, NULL},
	{"-e", A_VAL, K_DROP, NULL},
	{"--entries", A_VAL, K_DROP, NULL},
	{"-maxrregcount", A_VAL, K_DROP, NULL},
	{"--maxrregcount", A_VAL, K_DROP, NULL},
	{"-ftz", A_VAL, K_DROP, NULL},
	{"--ftz", A_VAL, K_DROP, NULL},
	{"-prec-div", A_VAL, K_DROP, NULL},
	{"--prec-div", A_VAL, K_DROP, NULL},
	{"-prec-sqrt", A_VAL, K_DROP, NULL},
	{"--prec-sqrt", A_VAL, K_DROP, NULL},
	{"-fmad", A_VAL, K_DROP, NULL},
	{"--fmad", A_VAL, K_DROP, NULL},
	{"-default-stream", A_VAL, K_DROP, NULL},
	{"--default-stream", A_VAL, K_DROP, NULL},
	{"-qpp-config", A_VAL, K_DROP, NULL},
	{"--qpp-config", A_VAL, K_DROP, NULL},
	{"-diag-error", A_VAL, K_DROP, NULL},
	{"--diag-error", A_VAL, K_DROP, NULL},
	{"-diag-suppress", A_VAL, K_DROP, NULL},
	{"--diag-suppress", A_VAL, K_DROP, NULL},
	{"-diag-warn", A_VAL, K_DROP, NULL},
	{"--diag-warn", A_VAL, K_DROP, NULL},
	{"-hls", A_VAL, K_DROP, NULL},
	{"--host-linker-script", A_VAL, K_DROP, NULL},
	{"-brief-diag", A_VAL, K_DROP, NULL},
	{"--brief-diagnostics", A_VAL, K_DROP, NULL},
	{"-jtd", A_VAL, K_DROP, NULL},
	{"--jump-table-density", A_VAL, K_DROP, NULL},
	{"-device-stack-protector", A_VAL, K_DROP, NULL},
	{"--device-stack-protector", A_VAL, K_DROP, NULL},
	{"-compress-mode", A_VAL, K_DROP, NULL},
	{"--compress-mode", A_VAL, K_DROP, NULL},
	{"-frandom-seed", A_VAL, K_DROP, NULL},
	{"--frandom-seed", A_VAL, K_DROP, NULL},
	{"-sanitize", A_VAL, K_DROP, NULL},
	{"--sanitize", A_VAL, K_DROP, NULL},
	/* nvcc's flags */
	{"-cuda", A_NONE, K_DROP, NULL},
	{"--cuda", A_NONE, K_DROP, NULL},
	{"-cubin", A_NONE, K_DROP, NULL},
	{"--cubin", A_NONE, K_DROP, NULL},
	{"-fatbin", A_NONE, K_DROP, NULL},
	{"--fatbin", A_NONE, K_DROP, NULL},
	{"-ptx", A_NONE, K_DROP, NULL},
	{"--ptx", A_NONE, K_DROP, NULL},
	{"-optix-ir", A_NONE, K_DROP, NULL},
	{"--optix-ir", A_NONE, K_DROP, NULL},
	{"-ltoir", A_NONE, K_DROP, NULL},
	{"--ltoir", A_NONE, K_DROP, NULL},
	{"-E", A_NONE, K_DROP, NULL},
	{"--preprocess", A_NONE, K_DROP, NULL},
	{"-M", A_NONE, K_DROP, NULL},
	{"--generate-dependencies", A_NONE, K_DROP, NULL},
	{"-MM", A_NONE, K_DROP, NULL},
	{"--generate-nonsystem-dependencies", A_NONE, K_DROP, NULL},
	{"-MD", A_NONE, K_DROP, NULL},
	{"--generate-dependencies-with-compile", A_NONE, K_DROP, NULL},
	{"-MMD", A_NONE, K_DROP, NULL},
	{"--generate-nonsystem-dependencies-with-compile", A_NONE, K_DROP, NULL},
	{"-MP", A_NONE, K_DROP, NULL},
	{"--generate-dependency-targets", A_NONE, K_DROP, NULL},
	{"-c", A_NONE, K_DROP, NULL},
	{"--compile", A_NONE, K_DROP, NULL},
	{"-S", A_NONE, K_DROP, NULL},
	{"-dw", A_NONE, K_DROP, NULL},
	{"--device-w", A_NONE, K_DROP, NULL},
	{"-dlink", A_NONE, K_DROP, NULL},
	{"--device-link", A_NONE, K_DROP, NULL},
	{"-link", A_NONE, K_DROP, NULL},
	{"--link", A_NONE, K_DROP, NULL},
	{"-lib", A_NONE, K_DROP, NULL},
	{"--lib", A_NONE, K_DROP, NULL},
	{"-run", A_NONE, K_DROP, NULL},
	{"--run", A_NONE, K_DROP, NULL},
	{"-objtemp", A_NONE, K_DROP, NULL},
	{"--objdir-as-tempdir", A_NONE, K_DROP, NULL},
	{"-allow-unsupported-compiler", A_NONE, K_DROP, NULL},
	{"--allow-unsupported-compiler", A_NONE, K_DROP, NULL},
	{"-use-local-env", A_NONE, K_DROP, NULL},
	{"--use-local-env", A_NONE, K_DROP, NULL},
	{"-force-cl-env-setup", A_NONE, K_DROP, NULL},
	{"--force-cl-env-setup", A_NONE, K_DROP, NULL},
	{"-pg", A_NONE, K_DROP, NULL},
	{"--profile", A_NONE, K_DROP, NULL},
	{"-g", A_NONE, K_DROP, NULL},
	{"--debug", A_NONE, K_DROP, NULL},
	{"-G", A_NONE, K_DROP, NULL},
	{"--device-debug", A_NONE, K_DROP, NULL},
	{"-lineinfo", A_NONE, K_DROP, NULL},
	{"--generate-line-info", A_NONE, K_DROP, NULL},
	{"-dlto", A_NONE, K_DROP, NULL},
	{"--dlink-time-opt", A_NONE, K_DROP, NULL},
	{"-lto", A_NONE, K_DROP, NULL},
	{"--lto", A_NONE, K_DROP, NULL},
	{"-gen-opt-lto", A_NONE, K_DROP, NULL},
	{"--gen-opt-lto", A_NONE, K_DROP, NULL},
	{"-noeh", A_NONE, K_DROP, NULL},
	{"--no-exceptions", A_NONE, K_DROP, NULL},
	{"-shared", A_NONE, K_DROP, NULL},
	{"--shared", A_NONE, K_DROP, NULL},
	{"-nohdinitlist", A_NONE, K_DROP, NULL},
	{"--no-host-device-initializer-list", A_NONE, K_DROP, NULL},
	{"-nohdmoveforward", A_NONE, K_DROP, NULL},
	{"--no-host-device-move-forward", A_NONE, K_DROP, NULL},
	{"-expt-relaxed-constexpr", A_NONE, K_DROP, NULL},
	{"--expt-relaxed-constexpr", A_NONE, K_DROP, NULL},
	{"-extended-lambda", A_NONE, K_DROP, NULL},
	{"--extended-lambda", A_NONE, K_DROP, NULL},
	{"-expt-extended-lambda", A_NONE, K_DROP, NULL},
	{"--expt-extended-lambda", A_NONE, K_DROP, NULL},
	{"-m64", A_NONE, K_DROP, NULL},
	{"--m64", A_NONE, K_DROP, NULL},
	{"-forward-unknown-to-host-compiler", A_NONE, K_DROP, NULL},
	{"--forward-unknown-to-host-compiler", A_NONE, K_DROP, NULL},
	{"-forward-unknown-to-host-linker", A_NONE, K_DROP, NULL},
	{"--forward-unknown-to-host-linker", A_NONE, K_DROP, NULL},
	{"-forward-unknown-opts", A_NONE, K_DROP, NULL},
	{"--forward-unknown-opts", A_NONE, K_DROP, NULL},
	{"-noprof", A_NONE, K_DROP, NULL},
	{"--dont-use-profile", A_NONE, K_DROP, NULL},
	{"-dryrun", A_NONE, K_DROP, NULL},
	{"--dryrun", A_NONE, K_DROP, NULL},
	{"-v", A_NONE, K_DROP, NULL},
	{"--verbose", A_NONE, K_DROP, NULL},
	{"-fdevice-syntax-only", A_NONE, K_DROP, NULL},
	{"--fdevice-syntax-only", A_NONE, K_DROP, NULL},
	{"-keep", A_NONE, K_DROP, NULL},
	{"--keep", A_NONE, K_DROP, NULL},
	{"-save-temps", A_NONE, K_DROP, NULL},
	{"--save-temps", A_NONE, K_DROP, NULL},
	{"-clean", A_NONE, K_DROP, NULL},
	{"--clean-targets", A_NONE, K_DROP, NULL},
	{"--no-align-double", A_NONE, K_DROP, NULL},
	{"-nodlink", A_NONE, K_DROP, NULL},
	{"--no-device-link", A_NONE, K_DROP, NULL},
	{"-use_fast_math", A_NONE, K_DROP, NULL},
	{"--use_fast_math", A_NONE, K_DROP, NULL},
	{"-extra-device-vectorization", A_NONE, K_DROP, NULL},
	{"--extra-device-vectorization", A_NONE, K_DROP, NULL},
	{"-w", A_NONE, K_DROP, NULL},
	{"--disable-warnings", A_NONE, K_DROP, NULL},
	{"-keep-device-functions", A_NONE, K_DROP, NULL},
	{"--keep-device-functions", A_NONE, K_DROP, NULL},
	{"-src-in-ptx", A_NONE, K_DROP, NULL},
	{"--source-in-ptx", A_NONE, K_DROP, NULL},
	{"-restrict", A_NONE, K_DROP, NULL},
	{"--restrict", A_NONE, K_DROP, NULL},
	{"-Wreorder", A_NONE, K_DROP, NULL},
	{"--Wreorder", A_NONE, K_DROP, NULL},
	{"-Wdefault-stream-launch", A_NONE, K_DROP, NULL},
	{"--Wdefault-stream-launch", A_NONE, K_DROP, NULL},
	{"-Wmissing-launch-bounds", A_NONE, K_DROP, NULL},
	{"--Wmissing-launch-bounds", A_NONE, K_DROP, NULL},
	{"-Wext-lambda-captures-this", A_NONE, K_DROP, NULL},
	{"--Wext-lambda-captures-this", A_NONE, K_DROP, NULL},
	{"-Wno-deprecated-declarations", A_NONE, K_DROP, NULL},
	{"--Wno-deprecated-declarations", A_NONE, K_DROP, NULL},
	{"-Wno-deprecated-gpu-targets", A_NONE, K_DROP, NULL},
	{"--Wno-deprecated-gpu-targets", A_NONE, K_DROP, NULL},
	{"-res-usage", A_NONE, K_DROP, NULL},
	{"--resource-usage", A_NONE, K_DROP, NULL},
	{"-ewp", A_NONE, K_DROP, NULL},
	{"--extensible-whole-program", A_NONE, K_DROP, NULL},
	{"-no-compress", A_NONE, K_DROP, NULL},
	{"--no-compress", A_NONE, K_DROP, NULL},
	{"-astoolspatch", A_NONE, K_DROP, NULL},
	{"--compile-as-tools-patch", A_NONE, K_DROP, NULL},
	{"-code-ls", A_NONE, K_DROP, NULL},
	{"--list-gpu-code", A_NONE, K_DROP, NULL},
	{"-arch-ls", A_NONE, K_DROP, NULL},
	{"--list-gpu-arch", A_NONE, K_DROP, NULL},
	{"-err-no", A_NONE, K_DROP, NULL},
	{"--display-error-number", A_NONE, K_DROP, NULL},
	{"-no-err-no", A_NONE, K_DROP, NULL},
	{"--no-display-error-number", A_NONE, K_DROP, NULL},
	{"-aug-hls", A_NONE, K_DROP, NULL},
	{"--augment-host-linker-script", A_NONE, K_DROP, NULL},
	{"-r", A_NONE, K_DROP, NULL},
	{"--relocatable-link", A_NONE, K_DROP, NULL},
	{"-reloc-ptx", A_NONE, K_DROP, NULL},
	{"--relocatable-ptx", A_NONE, K_DROP, NULL},
	{"-jobserver", A_NONE, K_DROP, NULL},
	{"--jobserver", A_NONE, K_DROP, NULL},
	{"-h", A_NONE, K_DROP, NULL},
	{"--help", A_NONE, K_DROP, NULL},
	{"-V", A_NONE, K_DROP, NULL},
	{"--version", A_NONE, K_DROP, NULL},
	/* clang's CUDA driver: kpipe sets these itself */
	{"--cuda-device-only", A_NONE, K_DROP, NULL},
	{"--cuda-host-only", A_NONE, K_DROP, NULL},
	{"--cuda-compile-host-device", A_NONE, K_DROP, NULL},
	{"-fno-gpu-rdc", A_NONE, K_DROP, NULL},
	{"--no-offload-arch", A_VAL, K_DROP, NULL},
	{"--driver-mode", A_VAL, K_DROP, NULL},
	{"-Xcuda-ptxas", A_VAL, K_DROP, NULL},
	{"-Xcuda-fatbinary", A_VAL, K_DROP, NULL},
	/* clang's, with a value: kept after --, not from a database */
	{"--cuda-path", A_VAL, K_CLANG, NULL},
	{"-Xclang", A_VAL, K_CLANG, NULL},
	{"-mllvm", A_VAL, K_CLANG, NULL},
	{"-Xarch_device", A_VAL, K_CLANG, NULL},
	{"-Xarch_host", A_VAL, K_CLANG, NULL},
	{"-Xassembler", A_VAL, K_CLANG, NULL},
	{"-Xpreprocessor", A_VAL, K_CLANG, NULL},
	{"-Xopenmp-target", A_VAL, K_CLANG, NULL},
	{"-target", A_VAL, K_CLANG, NULL},
	{"--target", A_VAL, K_CLANG, NULL},
	{"-include-pch", A_VAL, K_CLANG, NULL},
	{"-resource-dir", A_VAL, K_CLANG, NULL},
	{"-imacros", A_VALJ, K_CLANG, NULL},
	{"-isysroot", A_VALJ, K_CLANG, NULL},
	{"--sysroot", A_VAL, K_CLANG, NULL},
	{"-iprefix", A_VALJ, K_CLANG, NULL},
	{"-iwithprefix", A_VALJ, K_CLANG, NULL},
	{"-iwithprefixbefore", A_VALJ, K_CLANG, NULL},
	{"-isystem-after", A_VAL, K_CLANG, NULL}, /* not -isystem "-after" */
};

/*
 * The option t is, or NULL.  *val gets a value written in t (-o=X, -IX),
 * *next is set when the value is the next argument (-o X).  An exact name
 * wins, then NAME=VALUE, then the longest name t starts with among the
 * options that take a joined value.
 */
static const kp_opt *find_opt(const char *t, const char **val, int *next)
{
	*val = NULL;
	*next = 0;
	const char *eq = strchr(t, '=');
	const kp_opt *joined = NULL;
	size_t jlen = 0;
	for (size_t k = 0; k < KP_ARRAY_LEN(opts); k++)
		if (!strcmp(t, opts[k].name)) {
			*next = opts[k].arg != A_NONE;
			return &opts[k];
		}
	for (size_t k = 0; eq && k < KP_ARRAY_LEN(opts); k++) {
		size_t n = strlen(opts[k].name);
		if (opts[k].arg != A_NONE && (size_t)(eq - t) == n &&
		    !strncmp(t, opts[k].name, n)) {
			*val = eq + 1;
			return &opts[k];
		}
	}
	for (size_t k = 0; k < KP_ARRAY_LEN(opts); k++) {
		size_t n = strlen(opts[k].name);
		if (opts[k].arg == A_VALJ && n > jlen && !strncmp(t, opts[k].name, n)) {
			joined = &opts[k];
			jlen = n;
		}
	}
	if (joined)
		*val = t + jlen;
	return joined;
}

/* nvcc's -Werror takes a list of these. */
static int nvcc_werror_list(const char *s)
{
	static const char *const kinds[] = {
		"all-warnings",
		"cross-execution-space-call",
		"reorder",
		"default-stream-launch",
		"missing-launch-bounds",
		"ext-lambda-captures-this",
		"deprecated-declarations",
	};
	char *copy = kp_xstrdup(s), *save = NULL;
	int ok = *s != '\0';
	for (char *w = strtok_r(copy, ",", &save); w && ok; w = strtok_r(NULL, ",", &save)) {
		ok = 0;
		for (size_t k = 0; k < KP_ARRAY_LEN(kinds); k++)
			ok |= !strcmp(w, kinds[k]);
	}
	free(copy);
	return ok;
}

/* ---- targets --------------------------------------------------------- */

/* sm_90, sm_90a, compute_90, lto_90: the number, or -1. */
static int arch_number(const char *a, int *real)
{
	const char *d = NULL;
	if (!strncmp(a, "sm_", 3))
		d = a + 3, *real = 1;
	else if (!strncmp(a, "compute_", 8))
		d = a + 8, *real = 0;
	else if (!strncmp(a, "lto_", 4))
		d = a + 4, *real = 0;
	if (!d || !isdigit((unsigned char)*d))
		return -1;
	return atoi(d);
}

static void add_arch(kp_flags *out, const char *a, size_t n)
{
	char *s = kp_xstrndup(a, n);
	int real;
	if (arch_number(s, &real) < 0) { /* native, all, all-major, gfx90a */
		free(s);
		return;
	}
	for (int i = 0; i < out->narchs; i++)
		if (!strcmp(out->archs[i], s)) {
			free(s);
			return;
		}
	push(&out->archs, &out->narchs, s);
}

/* Every sm_XX, compute_XX and lto_XX in a list: "sm_80,sm_90",
 * "arch=compute_90,code=[compute_90,sm_90]", "arch=compute_80,code=\"sm_80,compute_80\"". */
static void add_arch_list(kp_flags *out, const char *v)
{
	const char *sep = ",=[]\"' ";
	while (*v) {
		size_t n = strcspn(v, sep);
		if (n)
			add_arch(out, v, n);
		v += n;
		v += *v != '\0';
	}
}

/* The lowest real target, else the lowest virtual one as sm_XX. */
static char *pick_arch(const kp_flags *f)
{
	const char *best = NULL;
	int bn = 0, breal = 0;
	for (int i = 0; i < f->narchs; i++) {
		int real, n = arch_number(f->archs[i], &real);
		if (!best || (real && !breal) || (real == breal && n < bn)) {
			best = f->archs[i];
			bn = n;
			breal = real;
		}
	}
	if (!best)
		return NULL;
	if (breal)
		return kp_xstrdup(best);
	return dupf("sm_%s", strchr(best, '_') + 1);
}

/* ---- the translation ------------------------------------------------- */

typedef struct {
	kp_flags *out;
	const char *dir;
	int user;
	int rdc; /* -fgpu-rdc kept already */
} xlate;

static void keep(xlate *x, char *s) { push(&x->out->keep, &x->out->nkeep, s); }

static char *abs_path(const xlate *x, const char *p)
{
	if (!x->dir || !*x->dir || p[0] == '/' || !*p)
		return kp_xstrdup(p);
	return dupf("%s/%s", x->dir, p);
}

/* Applies option o, written t, to its value v (NULL for a flag; the next
 * argument when sep). */
static void apply(xlate *x, const kp_opt *o, const char *t, const char *v, int sep)
{
	kp_flags *out = x->out;
	if (v && !*v && o->kind != K_DROP && o->kind != K_CLANG) {
		push(&out->dropped, &out->ndropped,
		     dupf("%s%s (missing value)", t, sep ? " ''" : ""));
		return;
	}
	switch (o->kind) {
	case K_PATH: {
		char *p = abs_path(x, v);
		if (!strcmp(o->clang, "-I")) {
			keep(x, dupf("-I%s", p));
			free(p);
		} else {
			keep(x, kp_xstrdup(o->clang));
			keep(x, p);
		}
		return;
	}
	case K_INCLUDE: {
		/* a name that is not in the directory may be found on the
		 * include path, as clang looks for it */
		char *p = abs_path(x, v);
		if (strcmp(p, v) && access(p, F_OK)) {
			free(p);
			p = kp_xstrdup(v);
		}
		keep(x, kp_xstrdup("-include"));
		keep(x, p);
		return;
	}
	case K_D: keep(x, dupf("-D%s", v)); return;
	case K_U: keep(x, dupf("-U%s", v)); return;
	case K_STD: keep(x, dupf("-std=%s", v)); return;
	case K_EQ: keep(x, dupf("%s%s", o->clang, v)); return;
	case K_RDC_BOOL:
		if (strcmp(v, "true"))
			break;
		/* fallthrough */
	case K_RDC:
		if (!x->rdc)
			keep(x, kp_xstrdup("-fgpu-rdc"));
		x->rdc = 1;
		return;
	case K_ARCH:
	case K_GENCODE: add_arch_list(out, v); return;
	case K_CLANG:
		if (x->user) {
			keep(x, kp_xstrdup(t));
			if (sep)
				keep(x, kp_xstrdup(v));
			return;
		}
		break;
	default: break;
	}
	push(&out->dropped, &out->ndropped, sep ? dupf("%s %s", t, v) : kp_xstrdup(t));
}

/* -Werror: nvcc's with a list of kinds (dropped), else clang's. */
static int werror(xlate *x, const char *t, const char *const *v, int n, int i)
{
	const char *eq = strchr(t, '=');
	int nvcc = !strncmp(t, "--", 2);
	int takes = !eq && i + 1 < n && (nvcc || nvcc_werror_list(v[i + 1]));
	if (eq)
		nvcc |= nvcc_werror_list(eq + 1);
	if (takes) {
		push(&x->out->dropped, &x->out->ndropped, dupf("%s %s", t, v[i + 1]));
		return i + 1;
	}
	if (x->user && !nvcc)
		keep(x, kp_xstrdup(t));
	else
		push(&x->out->dropped, &x->out->ndropped, kp_xstrdup(t));
	return i;
}

void kp_nvcc_translate(const char *const *argv, int argc, const char *dir, int user, kp_flags *out)
{
	memset(out, 0, sizeof(*out));
	toks t = {0};
	expand(argv, argc, dir, 0, &t, out);
	xlate x = {out, dir, user, 0};
	const char *const *v = (const char *const *)t.v;
	for (int i = 0; i < t.n; i++) {
		const char *a = v[i];
		if (a[0] != '-' || !a[1]) { /* the source file, or a stray value */
			push(&out->dropped, &out->ndropped, kp_xstrdup(a));
			continue;
		}
		const char *val;
		int next;
		const kp_opt *o = find_opt(a, &val, &next);
		if (!o) {
			if (user)
				keep(&x, kp_xstrdup(a));
			else
				push(&out->dropped, &out->ndropped, kp_xstrdup(a));
			continue;
		}
		if (o->kind == K_WERROR) {
			i = werror(&x, a, v, t.n, i);
			continue;
		}
		if (next) {
			if (i + 1 >= t.n) {
				push(&out->dropped, &out->ndropped, dupf("%s (missing value)", a));
				continue;
			}
			val = v[++i];
		}
		apply(&x, o, a, val, next);
	}
	for (int i = 0; i < t.n; i++)
		free(t.v[i]);
	free(t.v);
	out->arch = pick_arch(out);
}

/* ---- the database ---------------------------------------------------- */

static int is_cuda(const char *p)
{
	const char *dot = strrchr(p, '.');
	return dot && (!strcmp(dot, ".cu") || !strcmp(dot, ".cuh"));
}

/* The command's arguments but the compiler's name, translated. */
static void entry_flags(CXCompileCommand cmd, const char *wd, kp_flags *out)
{
	unsigned n = clang_CompileCommand_getNumArgs(cmd);
	char **argv = kp_xcalloc((size_t)n + 1, sizeof(char *));
	int argc = 0;
	for (unsigned i = 1; i < n; i++) {
		CXString a = clang_CompileCommand_getArg(cmd, i);
		const char *s = clang_getCString(a);
		argv[argc++] = kp_xstrdup(s ? s : "");
		clang_disposeString(a);
	}
	kp_nvcc_translate((const char *const *)argv, argc, wd, 0, out);
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
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
				v[m].file = file;
				entry_flags(cmd, wds, &v[m].flags);
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
		kp_flags_release(&v[i].flags);
		free(v[i].file);
	}
	free(v);
}
