/*
 * main.c - kpipe's entry point: the command table, --help (its variant
 * names and tune's builds from the transform registry) and --version.
 * Each command lives in its own cmd_*.c (cmd.h) and returns one of the exit
 * codes of util.h; only this layer and the commands print.
 */
#include "kp_commit.h"
#include "cli.h"
#include "cmd.h"
#include "cuda_env.h"
#include "safe_write.h"
#include "transform.h"
#include "validate.h"

#include <stdio.h>
#include <string.h>

static int cmd_version(int argc, char **argv);
static int cmd_help(int argc, char **argv);

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *summary;
} commands[] = {
	{"analyze", cmd_analyze, "report every tiled K-loop, its budget and eligibility"},
	{"rewrite", cmd_rewrite, "pipeline the eligible K-loops (cp.async or register staging)"},
	{"tune", cmd_tune,
	 "build every legal variant, validate and time them on the GPU, keep the fastest"},
	{"validate", cmd_validate,
	 "prove a rewrite: resources, SASS overlap, GPU run, timing, sanitizers"},
	{"lsp", cmd_lsp, "language server for editors (LSP over stdin/stdout; docs/editors.md)"},
	{"version", cmd_version, "print kpipe's, libclang's and CUDA's versions"},
	{"help", cmd_help, "show this help"},
};

static const char usage[] =
	"usage: kpipe <command> [options] FILE... [-- compiler-args]\n"
	"       kpipe rewrite DIR... --out-dir OUT [-j N] [--exclude GLOB] [--shard I/N]\n"
	"       kpipe rewrite -p BUILD_DIR (-i | --out-dir OUT | --dry-run | --diff)\n"
	"       kpipe lsp [--arch sm_XX] [-p BUILD_DIR] [-- compiler-args]   (editors)\n"
	"\n"
	"commands:\n"
	"%s"
	"\n"
	"common options:\n"
	"  --arch sm_XX        target architecture (default: the lowest of the file's\n"
	"                      compile_commands.json entry, else sm_90); drives the\n"
	"                      shared-memory budget\n"
	"  --kernel NAME       only this kernel (k, ns::k or k<32, 8>)\n"
	"  --cuda-path DIR     CUDA toolkit (default: CUDA_HOME, PATH, /usr/local/cuda)\n"
	"  -p BUILD_DIR        read compile flags from BUILD_DIR/compile_commands.json\n"
	"                      (searched upward from the file when omitted); rewrite without\n"
	"                      FILE: every .cu/.cuh file of the database\n"
	"  -I DIR, -D NAME[=V] passed to the parser; everything after -- is too, nvcc's\n"
	"                      spellings translated and its other options dropped, as for\n"
	"                      the database (-v lists what was kept and dropped)\n"
	"  --threads N         threads per block for the compute/load ratio\n"
	"  --spec FILE         launch description (default: FILE.launch.json beside the source)\n"
	"  --format F          analyze, validate: text or json; rewrite: text, json or sarif\n"
	"                      (the report goes to stdout; the code then needs -o, -i or --out-dir)\n"
	"  --header-filter RE  analyze, rewrite: kernels in the headers whose real path the POSIX\n"
	"                      regex RE matches (default: headers under the input's directory\n"
	"                      tree; '' none; never system headers); -i, --diff, --out-dir and\n"
	"                      --export-fixes cover them, -o and stdout then refuse (exit 2)\n"
	"\n"
	"rewrite options:\n"
	"  -o OUT              write the result to OUT (default: stdout; -o - is stdout): the\n"
	"                      whole file, unchanged when nothing was pipelined (exit 0)\n"
	"  -i, --in-place      rewrite the input file(s); --backup-suffix=.orig keeps a copy\n"
	"  --diff              print a unified diff (git apply / patch -p1)\n"
	"  --dry-run           write nothing; exit 1 when something would change\n"
	"  --Werror            exit 1 when a warning was printed (a loop refused)\n"
	"%s"
	"  --stages N          pipeline depth, 2 to 8 (more than 2 uses cp.async or,\n"
	"                      with --variant bulk, bulk copies); default 2,\n"
	"                      or auto's choice (up to 4 for tensor-core tiles)\n"
	"  --no-ptxas          auto decides from the source alone: no nvcc run for loops of\n"
	"                      >= 20 FLOP/B (also KPIPE_NO_PTXAS=1); the choice says it is a guess\n"
	"  --assume-filename P name of the buffer read from stdin (FILE = -)\n"
	"  --export-fixes F    write the changes and refusals as clang-tidy fixes (YAML) for\n"
	"                      clang-apply-replacements\n"
	"  -v                  say which variant was chosen and why, and which compile flags\n"
	"                      were kept and dropped, on stderr\n"
	"  --validate          then run `kpipe validate` on the input and what was written (needs\n"
	"                      -o OUT or -i; -i puts the original back when a step fails);\n"
	"                      with --sizes a,b, --no-sanitize and --gpu-dir DIR as for validate\n"
	"\n"
	"tune FILE.cu [--spec LAUNCH] [-o OUT | -i] [--sizes a,b] [--gpu-dir DIR] [--no-sanitize]:\n"
	"%s"
	"\n"
	"many files (FILE is a directory, several files, or -p without FILE):\n"
	"  --out-dir OUT       write every file under OUT, mirroring the tree (unchanged when\n"
	"                      nothing was pipelined); not inside an input directory\n"
	"  --timeout S         give up on a file after S seconds (default 600, 0: none)\n"
	"  -j N                N files at a time (default: one per core)\n"
	"  --exclude GLOB      skip matching files and directories (repeatable)\n"
	"  --shard I/N         only the files at positions I, I+N, ... of the sorted list\n"
	"  --no-pch            do not share a precompiled CUDA header between files (slower)\n"
	"\n"
	"examples, by workflow:\n"
	" understand a kernel\n"
	"   kpipe analyze samples/matmul_32x32.cu\n"
	"   kpipe analyze --format json samples/sgemm_128x128x8.cu\n"
	" rewrite one file\n"
	"   kpipe rewrite --diff samples/matmul_32x32.cu          # preview\n"
	"   kpipe rewrite samples/matmul_32x32.cu -o matmul_pipelined.cu\n"
	"   kpipe rewrite -i --backup-suffix=.orig kernel.cu\n"
	"   kpipe rewrite --variant %s kernel.cu -o out.cu\n"
	" rewrite a project\n"
	"   kpipe rewrite src/ --out-dir pipelined/ -j 8 --exclude 'third_party/*'\n"
	"   kpipe rewrite -p build/ --dry-run                   # what would change\n"
	"   kpipe rewrite -p build/ -i --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT\n"
	"   kpipe rewrite src/ --dry-run --format json > report.json\n"
	" review and CI\n"
	"   kpipe rewrite --diff src/ | git apply --check\n"
	"   kpipe rewrite src/ --format sarif > kpipe.sarif     # code scanning\n"
	"   kpipe rewrite src/ --export-fixes fixes.yaml && clang-apply-replacements .\n"
	" editors (the buffer on stdin; stdout is the result, stderr stays empty)\n"
	"   kpipe rewrite - --assume-filename kernel.cu < kernel.cu\n"
	"   kpipe rewrite - --assume-filename kernel.cu --diff < kernel.cu\n"
	" check the result with the compiler\n"
	"   kpipe validate kernel.cu out.cu --arch sm_90\n"
	"   kpipe rewrite kernel.cu -o out.cu --validate\n"
	" pick the variant by measurement (needs a GPU)\n"
	"   kpipe tune kernel.cu --spec kernel.launch.json -o out.cu\n"
	"\n"
	"exit codes (every command):\n"
	"  0  success: analyze reported loops; rewrite wrote its output (unchanged when nothing\n"
	"     was pipelined); validate passed; tune wrote the fastest or the original\n"
	"  1  the check says no: analyze found no candidate loop; rewrite --dry-run: a file\n"
	"     would change; rewrite --Werror: a warning (a loop refused)\n"
	"  2  usage error (nothing read or written)\n"
	"  3  input error: unreadable, parse errors, a failed write, a batch file that crashed or\n"
	"     timed out (for many files: in any file)\n"
	"  4  validation failed   5  a required tool (nvcc) missing   6  validation incomplete\n"
	"  128+N  killed by signal N (nothing partial left)\n"
	"diagnostic ids are explained in docs/diagnostics.md; see also man kpipe (docs/kpipe.1)\n";

/* Appends `text` word by word in lines of at most 80 columns: the first
 * after `first`, the others after `indent`. */
static void wrap(kp_strbuf *sb, const char *first, const char *indent, const char *text)
{
	size_t col = strlen(first);
	kp_strbuf_adds(sb, first);
	int fresh = 1;
	for (const char *p = text; *p;) {
		while (*p == ' ')
			p++;
		size_t w = strcspn(p, " ");
		if (!w)
			break;
		if (!fresh && col + 1 + w > 80) {
			kp_strbuf_addf(sb, "\n%s", indent);
			col = strlen(indent);
			fresh = 1;
		}
		if (!fresh) {
			kp_strbuf_addc(sb, ' ');
			col++;
		}
		kp_strbuf_add(sb, p, w);
		col += w;
		fresh = 0;
		p += w;
	}
	kp_strbuf_addc(sb, '\n');
}

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	kp_strbuf list = KP_STRBUF_INIT, variants = KP_STRBUF_INIT, tune = KP_STRBUF_INIT;
	for (size_t i = 0; i < KP_ARRAY_LEN(commands); i++)
		kp_strbuf_addf(&list, "  %-10s %s\n", commands[i].name, commands[i].summary);
	/* the transforms' names, as --variant and tune know them */
	int n;
	const kp_transform *const *all = kp_transform_all(&n);
	kp_strbuf text = KP_STRBUF_INIT;
	kp_strbuf_adds(&text, "auto (default)");
	for (int i = 0; i < n; i++)
		kp_strbuf_addf(&text, "%s%s%s%s%s", i == n - 1 ? " or " : ", ", all[i]->name,
			       all[i]->usage ? " (" : "", all[i]->usage ? all[i]->usage : "",
			       all[i]->usage ? ")" : "");
	wrap(&variants, "  --variant V         ", "                      ", kp_strbuf_str(&text));
	const kp_tune_cand *cand[64];
	const kp_transform *xf[64];
	int nc = kp_transform_tune_list(cand, xf, (int)KP_ARRAY_LEN(cand));
	kp_strbuf_release(&text);
	kp_strbuf_adds(&text, "builds");
	for (int i = 0; i < nc; i++)
		kp_strbuf_addf(&text, "%s%s",
			       !i            ? " "
			       : i == nc - 1 ? " and "
					     : ", ",
			       cand[i]->name);
	kp_strbuf_adds(&text,
		       ", drops those that fail validation (compile, SASS), checks and times "
		       "the rest against the original in one GPU run, drops those "
		       "compute-sanitizer memcheck/racecheck/synccheck flags, and writes the "
		       "fastest, or the original when none beats it by more than the spread; "
		       "the table goes to stdout (stderr when the code does); without a GPU it "
		       "writes the --variant auto rewrite and exits 6");
	wrap(&tune, "  ", "  ", kp_strbuf_str(&text));
	printf(usage, kp_strbuf_str(&list), kp_strbuf_str(&variants), kp_strbuf_str(&tune),
	       all[0]->name);
	kp_strbuf_release(&text);
	kp_strbuf_release(&list);
	kp_strbuf_release(&variants);
	kp_strbuf_release(&tune);
	return KP_EXIT_OK;
}

static int cmd_version(int argc, char **argv)
{
	const char *cuda_path = NULL;
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--cuda-path"))
			cuda_path = argv[i + 1];
	printf("kpipe %s (commit %s)\n", KPIPE_VERSION, KPIPE_COMMIT);
	printf("libclang: %s\n", kp_libclang_version());
	kp_cuda_env env = KP_CUDA_ENV_INIT;
	if (kp_cuda_env_find(&env, cuda_path) == 0)
		printf("CUDA: %s (%s)\n", env.version ? env.version : "unknown version", env.nvcc);
	else
		printf("CUDA: not found (%s)\n", env.error ? env.error : "no nvcc");
	printf("cuobjdump: %s\n", env.cuobjdump ? env.cuobjdump : "not found");
	printf("nvdisasm: %s\n", env.nvdisasm ? env.nvdisasm : "not found");
	kp_cuda_env_release(&env);
	return KP_EXIT_OK;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		cmd_help(0, NULL);
		return KP_EXIT_USAGE;
	}
	const char *c = argv[1];
	if (!strcmp(c, "--help") || !strcmp(c, "-h"))
		return cmd_help(argc - 1, argv + 1);
	if (!strcmp(c, "--version"))
		return cmd_version(argc - 1, argv + 1);
	for (size_t i = 0; i < KP_ARRAY_LEN(commands); i++)
		if (!strcmp(c, commands[i].name)) {
			/* an interrupted command leaves no temporary file behind */
			kp_guard_install();
			for (int j = 2; j < argc; j++)
				if (!strcmp(argv[j], "--help") || !strcmp(argv[j], "-h"))
					return cmd_help(0, NULL);
				else if (!strcmp(argv[j], "--"))
					break;
			return commands[i].fn(argc - 1, argv + 1);
		}
	fprintf(stderr, "kpipe: error: unknown command '%s'\n", c);
	fprintf(stderr, "run 'kpipe --help' for usage\n");
	return KP_EXIT_USAGE;
}
