/*
 * help.c - kpipe's help texts: the overview (`kpipe --help`), each
 * command's options and examples (`kpipe help CMD`, `kpipe CMD --help`,
 * `kpipe CMD -h`) and the short usage a bare `kpipe` prints on stderr.
 * The variant names and tune's builds come from the transform registry.
 * docs/kpipe.1 says the same at more length; keep them consistent.
 */
#include "cli.h"
#include "cmd.h"
#include "diag_ids.h"
#include "transform.h"

#include <stdio.h>
#include <string.h>

static const char usage_lines[] =
	"usage: kpipe <command> [options] FILE... [-- compiler-args]\n"
	"       kpipe rewrite DIR... --out-dir OUT [-j N] [--exclude GLOB] [--shard I/N]\n"
	"       kpipe rewrite -p BUILD_DIR (-i | --out-dir OUT | --dry-run | --diff)\n"
	"       kpipe analyze DIR... | -p BUILD_DIR [-j N] [--exclude GLOB]\n"
	"       kpipe lsp [--arch sm_XX] [-p BUILD_DIR] [-- compiler-args]   (editors)\n"
	"       kpipe help <command>    (or kpipe <command> --help): its options and examples\n";

/* analyze, rewrite and tune share these (cli.c parses them); the value of
 * an option that takes one follows it as `--opt VALUE` or `--opt=VALUE`. */
static const char common_opts[] =
	"  --arch sm_XX        target architecture (default: the file's\n"
	"                      compile_commands.json targets, else sm_90); drives the\n"
	"                      shared-memory budget; a list (sm_70,sm_80,sm_90) plans\n"
	"                      for each target, one source\n"
	"  --kernel NAME       only this kernel (k, ns::k or k<32, 8>)\n"
	"  --cuda-path DIR     CUDA toolkit (default: CUDA_HOME, PATH, /usr/local/cuda)\n"
	"  -p BUILD_DIR        read compile flags from BUILD_DIR/compile_commands.json\n"
	"                      (searched upward from the file when omitted)\n"
	"  -I DIR, -D NAME[=V], -U NAME\n"
	"                      passed to the parser; so are --extra-arg ARG and everything\n"
	"                      after --, nvcc's spellings translated and its other options\n"
	"                      dropped, as for the database (-v lists what was kept)\n"
	"  --threads N         threads per block for the compute/load ratio (1..4096)\n"
	"  --spec FILE         launch description (default: FILE.launch.json beside the source)\n"
	"  -v                  say which variant was chosen and why, and which compile flags\n"
	"                      were kept and dropped, on stderr\n";

static const char format_header_opts[] =
	"  --header-filter RE  kernels in the headers whose real path the POSIX regex RE\n"
	"                      matches (default: headers under the input's directory tree;\n"
	"                      '' none; never system headers)\n";

static const char exit_codes[] =
	"exit codes (every command):\n"
	"  0  success: analyze reported loops; rewrite wrote its output (unchanged when nothing\n"
	"     was pipelined); validate passed; tune wrote the fastest or the original\n"
	"  1  the check says no: analyze found no candidate loop; rewrite --dry-run: a file\n"
	"     would change; rewrite --Werror: a warning (a loop refused)\n"
	"  2  usage error (nothing read or written)\n"
	"  3  input error: unreadable, parse errors, a failed write, a batch file that crashed or\n"
	"     timed out (for many files: in any file)\n"
	"  4  validation failed   5  a required tool (nvcc) missing   6  validation incomplete\n"
	"  128+N  killed by signal N (nothing partial left)\n";

static const char see_also[] =
	"diagnostic ids are explained in docs/diagnostics.md; see also man kpipe (docs/kpipe.1)\n";

static const char analyze_text[] =
	"usage: kpipe analyze [options] DIR|FILE... [-- compiler-args]\n"
	"       kpipe analyze [options] -p BUILD_DIR   (every .cu of compile_commands.json)\n"
	"\n"
	"Reports every tiled K-loop of the file's kernels: induction variables, barriers,\n"
	"copies, math, shared arrays, the shared-memory budget for 1 to 4 stages, which\n"
	"fetch mechanisms apply, and the plan `kpipe rewrite` would follow; and each\n"
	"kernel's shared-memory bank conflicts and uncoalesced global accesses per warp.\n"
	"Directories are walked for .cu/.cuh files as `kpipe rewrite` walks them; each\n"
	"file is reported as a run on it alone would, in file order, one JSON document.\n"
	"\n"
	"options (--opt VALUE and --opt=VALUE both work):\n"
	"%s"
	"%s"
	"  --format F          text (default), json or sarif (the refusals, bank conflicts\n"
	"                      and uncoalesced accesses as a SARIF 2.1.0 log), on stdout\n"
	"  --stages N          plan for this pipeline depth, 2 to 8 (default: 2, or auto's)\n"
	"  --no-ptxas          auto decides from the source alone (no nvcc run)\n"
	"  --block X[,Y[,Z]]   block shape for the bank and coalescing analysis (default:\n"
	"                      the launch description, a <<<>>> launch in the file, else\n"
	"                      --threads or __launch_bounds__ as 1-D)\n"
	"  -j N, --jobs N      files at a time, each in a process of its own (default: one\n"
	"                      per core; --format sarif: one)\n"
	"  --exclude GLOB      skip matching files and directories (repeatable)\n"
	"%s"
	"\n"
	"examples:\n"
	"  kpipe analyze samples/matmul_32x32.cu\n"
	"  kpipe analyze src/ -j 2 --exclude 'third_party/*'\n"
	"  kpipe analyze -p build/ --format json > loops.json\n"
	"  kpipe analyze --block 32,8 transpose.cu\n"
	"  kpipe analyze --format json samples/sgemm_128x128x8.cu\n"
	"  kpipe analyze --format sarif samples/matmul_column_read.cu > memory.sarif\n"
	"  kpipe analyze --kernel sgemm -p build/ src/gemm.cu\n"
	"\n"
	"%s%s";

static const char rewrite_text[] =
	"usage: kpipe rewrite [options] FILE [-o OUT | -i | --diff | --dry-run]\n"
	"       kpipe rewrite [options] DIR|FILE... (--out-dir OUT | -i | --diff | --dry-run)\n"
	"       kpipe rewrite -p BUILD_DIR (-i | --out-dir OUT | --dry-run | --diff)\n"
	"       kpipe rewrite - --assume-filename PATH   (the buffer on stdin)\n"
	"\n"
	"Pipelines the eligible K-loops (register staging, cp.async, bulk or tensor-map\n"
	"copies: --variant below); a loop that cannot be proven safe is left alone with\n"
	"a diagnostic.\n"
	"\n"
	"options (--opt VALUE and --opt=VALUE both work):\n"
	"%s"
	"  --format F          text (default), json or sarif: the report on stdout (the code\n"
	"                      then needs -o, -i or --out-dir)\n"
	"  --sarif-all         with --format sarif: the pipelined loops too, as notes\n"
	"                      (default: refusals only)\n"
	"%s"
	"                      -i, --diff, --out-dir and --export-fixes cover them; -o and\n"
	"                      stdout then refuse (exit 2)\n"
	"\n"
	"rewrite options:\n"
	"  -o OUT              write the result to OUT (default: stdout; -o - is stdout): the\n"
	"                      whole file, unchanged when nothing was pipelined (exit 0)\n"
	"  -i, --in-place      rewrite the input file(s)\n"
	"  --backup-suffix S   with -i: keep the original as FILE+S (e.g. .orig)\n"
	"  --diff              print a unified diff (git apply / patch -p1)\n"
	"  --dry-run           write nothing; exit 1 when something would change\n"
	"  --Werror            exit 1 when a warning was printed (a loop refused)\n"
	"%s"
	"  --stages N          pipeline depth, 2 to 8 (more than 2 uses cp.async or, with\n"
	"                      --variant bulk, bulk copies); default 2, or auto's choice (up\n"
	"                      to 4 for tensor-core tiles)\n"
	"  --no-ptxas          auto decides from the source alone: no nvcc run for loops of\n"
	"                      >= 20 FLOP/B (also KPIPE_NO_PTXAS=1); the choice says it is a\n"
	"                      guess\n"
	"  --no-comment        leave out kpipe's explanatory comments in the rewritten code\n"
	"  --no-verify         do not run the rewrite against the original on the CPU\n"
	"                      emulator before writing it (docs/verify.md)\n"
	"  --require-verify    refuse a rewrite that cannot be verified (kpipe-unverified)\n"
	"                      instead of writing it with a warning\n"
	"  --format-style=S    format the lines kpipe writes with clang-format: file (the\n"
	"                      default: the .clang-format above the file, when there is\n"
	"                      one), none, or a style (llvm, \"{IndentWidth: 2}\", ...)\n"
	"  --pad               pad the rows of shared arrays with bank conflicts, then\n"
	"                      pipeline (passes: canon, inline, pad, pipeline)\n"
	"  --pad-only          pad only; pipeline nothing\n"
	"  --no-pad            with --variant auto: pad nothing (auto pads the tiles it\n"
	"                      pipelines where a padding of at most 1/8 more shared\n"
	"                      memory lowers their bank conflicts)\n"
	"  --swizzle           with --pad or --pad-only: XOR-swizzle the columns of a\n"
	"                      conflicted array instead of padding its rows wherever that\n"
	"                      does as well (no extra memory); without it, only where no\n"
	"                      padding helps or fits\n"
	"  --keep-occupancy    where ptxas says the rewrite loses resident blocks per SM to\n"
	"                      registers, give the kernel __launch_bounds__(THREADS, N): N\n"
	"                      the original's blocks (as the rewrite's shared memory\n"
	"                      allows), THREADS its bound or the block of every launch;\n"
	"                      dropped where the bound makes ptxas spill (note\n"
	"                      kpipe-keep-occupancy; not applied by --variant auto)\n"
	"  --raise-occupancy   the same bound with N one block more than the rewrite's, where\n"
	"                      registers limit it (what measured 1.28x -> 1.41x on\n"
	"                      LeetCUDA's mma HGEMM; not proven never to lose: kpipe tune\n"
	"                      measures it as V+raise)\n"
	"  --block-swizzle=G   remap each kernel's (x, y) blocks in groups of G rows of\n"
	"                      blocks (--block-swizzle alone: 8; Triton's grouped order,\n"
	"                      a permutation of the grid, no launch change) so that blocks\n"
	"                      started together share A and B tiles in L2; refused where\n"
	"                      the blocks may communicate or depend on their order\n"
	"                      (atomics outside shared memory, fences, grid-stride loops;\n"
	"                      kpipe-block-swizzle-refused); not applied by --variant auto\n"
	"                      (kpipe tune measures it as V+swz)\n"
	"  --block X[,Y[,Z]]   block shape for --pad (default as for analyze)\n"
	"  --assume-filename P name of the buffer read from stdin (only with FILE = -)\n"
	"  --export-fixes F    write the changes and refusals as clang-tidy fixes (YAML) for\n"
	"                      clang-apply-replacements\n"
	"  --validate          then run `kpipe validate` on the input and what was written (needs\n"
	"                      -o OUT or -i; -i puts the original back when a step fails);\n"
	"                      with --sizes a,b, --sanitize (default) or --no-sanitize and\n"
	"                      --gpu-dir DIR as for validate\n"
	"\n"
	"many files (FILE is a directory, several files, or -p without FILE):\n"
	"  --out-dir OUT       write every file under OUT, mirroring the tree (unchanged when\n"
	"                      nothing was pipelined); not inside an input directory\n"
	"  --timeout S         give up on a file after S seconds (default 600, 0: none)\n"
	"  -j N                N files at a time, 1..1024 (default: one per core)\n"
	"  --exclude GLOB      skip matching files and directories (repeatable)\n"
	"  --shard I/N         only the files at positions I, I+N, ... of the sorted list\n"
	"                      (0 <= I < N)\n"
	"  --no-pch            parse every file from scratch: no precompiled CUDA header,\n"
	"                      neither the batch's nor the cache's (slower)\n"
	"  on a terminal, stderr shows one progress line (files done/total, failures);\n"
	"  -v lists each file as it finishes\n"
	"\n"
	"examples:\n"
	" one file\n"
	"   kpipe rewrite --diff samples/matmul_32x32.cu          # preview\n"
	"   kpipe rewrite samples/matmul_32x32.cu -o matmul_pipelined.cu\n"
	"   kpipe rewrite -i --backup-suffix=.orig kernel.cu\n"
	"   kpipe rewrite --variant %s kernel.cu -o out.cu\n"
	"   kpipe rewrite --pad-only transpose.cu -o padded.cu  # tile[32][32] -> [32][33]\n"
	"   kpipe rewrite --pad-only --swizzle transpose.cu     # tile[r][c ^ (r & 31)]\n"
	" a project\n"
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
	"   kpipe rewrite kernel.cu -o out.cu --validate\n"
	"\n"
	"%s%s";

static const char lsp_text[] =
	"usage: kpipe lsp [--arch sm_XX] [-p BUILD_DIR] [--cuda-path DIR] [--stages N]\n"
	"                 [--threads N] [--header-filter RE] [--no-pch] [-v]\n"
	"                 [-I DIR] [-D NAME[=V]] [-U NAME] [--extra-arg ARG] [-- compiler-args]\n"
	"\n"
	"A language server (LSP over stdin/stdout) for editors: kpipe's diagnostics on the\n"
	"editor's buffers, a hint on each loop that can be pipelined, and a code action per\n"
	"loop and variant whose edit is that loop's rewrite.  Takes no file.  Setup for\n"
	"Neovim, Helix, Emacs and VS Code: docs/editors.md.  auto decides from the source\n"
	"alone here (no nvcc run while you type).\n";

static const char tune_text[] =
	"usage: kpipe tune FILE.cu [--spec LAUNCH] [-o OUT | -i] [--sizes a,b] [--gpu-dir DIR]\n"
	"                  [--no-sanitize] [--profile] [options] [-- compiler-args]\n"
	"\n"
	"%s"
	"\n"
	"options (--opt VALUE and --opt=VALUE both work):\n"
	"%s"
	"  --format F          text (default) or json\n"
	"\n"
	"tune options:\n"
	"  -o OUT              write the fastest to OUT (default: stdout)\n"
	"  -i                  write it over FILE; --backup-suffix S keeps the original\n"
	"  --sizes a,b         check and time these sizes of the launch description and\n"
	"                      decide by the geometric mean of the per-size speedups\n"
	"                      (default: check every size, time 'target')\n"
	"  --gpu-dir DIR       build the GPU harness in DIR and keep it\n"
	"  --no-sanitize       skip compute-sanitizer\n"
	"  --profile           then Nsight Compute (ncu) on one launch of the original and the\n"
	"                      choice: bank conflicts, DRAM %%, occupancy, stalls, %% of copy\n"
	"\n"
	"examples:\n"
	"  kpipe tune kernel.cu --spec kernel.launch.json -o out.cu\n"
	"  kpipe tune samples/matmul_32x32.cu -i --backup-suffix=.orig\n"
	"\n"
	"%s%s";

static const char validate_text[] =
	"usage: kpipe validate ORIGINAL.cu REWRITTEN.cu [--profile] [options] [-- nvcc args...]\n"
	"\n"
	"Compiles both files, checks the rewrite, and runs it on the GPU when there is one:\n"
	"  step 1 resources  registers, shared memory, spills, occupancy, warnings (ptxas -v)\n"
	"  step 2 sass       next-tile loads overlap the math in the main loop (cuobjdump)\n"
	"  step 3 gpu-run    both kernels on the same random inputs, every element compared\n"
	"  step 4 benchmark  median time of both at the 'target' size, speedup or noise\n"
	"  step 5 sanitizer  compute-sanitizer memcheck, racecheck, synccheck, initcheck\n"
	"                    on the rewritten kernel at the 'small' size (a race can\n"
	"                    compute the right numbers in a plain run; --no-sanitize skips it)\n"
	"\n"
	"options (--opt VALUE and --opt=VALUE both work):\n"
	"  --spec FILE        launch description (default: ORIGINAL with .cu -> .launch.json)\n"
	"  --sizes a,b        sizes of the launch description to run (default: all)\n"
	"  --no-sanitize      skip step 5 (--sanitize, the default, runs it)\n"
	"  --profile          Nsight Compute (ncu) on one launch of each kernel at the timed\n"
	"                     size, shown under step 4: shared-memory bank conflicts, DRAM\n"
	"                     throughput, occupancy, warp stalls, % of a copy kernel's GB/s\n"
	"  --gpu-dir DIR      build the GPU harness in DIR and keep it (also without a GPU)\n"
	"  --kernel NAME      only this kernel (mangled, demangled or plain name)\n"
	"  --arch sm_XX       target (default sm_90)\n"
	"  --threads N        threads per block for occupancy, 1..1024 (default: the launch\n"
	"                     description's block, else 256)\n"
	"  --cuda-path DIR    CUDA toolkit root\n"
	"  --format text|json report format (default text)\n"
	"  -I DIR, -D NAME[=V] passed to nvcc, as is everything after --\n"
	"\n"
	"exit: 0 passed, 2 usage, 3 input missing, 4 a step failed, 5 nvcc missing,\n"
	"      6 incomplete (a step was skipped: no GPU, no launch description, ...)\n"
	"\n"
	"examples:\n"
	"  kpipe validate matmul.cu matmul.pipelined.cu --arch sm_90 --threads 1024\n"
	"  kpipe validate samples/matmul_32x32.cu out.cu --sizes small,target\n";

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

/* The --variant line: "auto (default)" and the transforms' names, as
 * --variant and tune know them. */
static void variant_line(kp_strbuf *sb)
{
	int n;
	const kp_transform *const *all = kp_transform_all(&n);
	kp_strbuf text = KP_STRBUF_INIT;
	kp_strbuf_adds(&text, "auto (default)");
	for (int i = 0; i < n; i++)
		kp_strbuf_addf(&text, "%s%s%s%s%s", i == n - 1 ? " or " : ", ", all[i]->name,
			       all[i]->usage ? " (" : "", all[i]->usage ? all[i]->usage : "",
			       all[i]->usage ? ")" : "");
	wrap(sb, "  --variant V         ", "                      ", kp_strbuf_str(&text));
	kp_strbuf_release(&text);
}

/* What tune does, with the names of the variants it builds. */
static void tune_paragraph(kp_strbuf *sb)
{
	const kp_tune_cand *cand[64];
	const kp_transform *xf[64];
	int nc = kp_transform_tune_list(cand, xf, (int)KP_ARRAY_LEN(cand));
	kp_strbuf text = KP_STRBUF_INIT;
	kp_strbuf_adds(&text, "Builds");
	for (int i = 0; i < nc; i++)
		kp_strbuf_addf(&text, "%s%s",
			       !i            ? " "
			       : i == nc - 1 ? " and "
					     : ", ",
			       cand[i]->name);
	kp_strbuf_adds(
		&text,
		", each also with --pad (as V+pad), --keep-occupancy (V+occ), "
		"--raise-occupancy (V+raise) and --block-swizzle (V+swz) where that changes "
		"its rewrite; "
		"drops those that do not compile (the SASS verdict is shown, not used to "
		"drop), checks and times "
		"the rest against the original in one GPU run, drops those "
		"compute-sanitizer memcheck/racecheck/synccheck flags, and writes the "
		"fastest whose paired 95% interval lies above 1 (the original when none does: a gain inside the noise is a tie); "
		"the table goes to stdout (stderr when the code does); without a GPU it "
		"writes the --variant auto rewrite and exits 6.");
	wrap(sb, "", "", kp_strbuf_str(&text));
	kp_strbuf_release(&text);
}

void kp_help_usage(FILE *fp)
{
	fputs(usage_lines, fp);
	fputs("run 'kpipe --help' for the commands, 'kpipe help <command>' for one command\n", fp);
}

void kp_help_overview(FILE *fp, const char *command_list)
{
	fprintf(fp,
		"%s\n"
		"commands:\n%s\n"
		"options analyze, rewrite and tune share (--opt VALUE and --opt=VALUE both work):\n"
		"%s"
		"\n"
		"examples:\n"
		"  kpipe analyze samples/matmul_32x32.cu\n"
		"  kpipe rewrite --diff samples/matmul_32x32.cu\n"
		"  kpipe rewrite src/ --out-dir pipelined/ -j 8\n"
		"  kpipe validate kernel.cu out.cu --arch sm_90\n"
		"  kpipe tune kernel.cu --spec kernel.launch.json -o out.cu\n"
		"\n"
		"%s%s",
		usage_lines, command_list, common_opts, exit_codes, see_also);
}

/* `kpipe help diagnostics`: the registry of ids (diag_ids.h) as the table
 * of ids in docs/diagnostics.md, which tests/layout/diag_ids.sh compares
 * with it. */
void kp_help_diagnostics(FILE *fp)
{
	fputs("| id | in short |\n|---|---|\n", fp);
	for (int i = 0; i < kp_ndiag_ids; i++)
		fprintf(fp, "| [`%s`](#%s) | %s |\n", kp_diag_ids[i].id, kp_diag_ids[i].id,
			kp_diag_ids[i].summary);
}

int kp_help_command(FILE *fp, const char *cmd)
{
	kp_strbuf a = KP_STRBUF_INIT;
	int n;
	const kp_transform *const *all = kp_transform_all(&n);
	int rc = 0;
	if (!strcmp(cmd, "analyze")) {
		variant_line(&a);
		fprintf(fp, analyze_text, common_opts, format_header_opts, kp_strbuf_str(&a),
			exit_codes, see_also);
	} else if (!strcmp(cmd, "rewrite")) {
		variant_line(&a);
		fprintf(fp, rewrite_text, common_opts, format_header_opts, kp_strbuf_str(&a),
			all[0]->name, exit_codes, see_also);
	} else if (!strcmp(cmd, "tune")) {
		tune_paragraph(&a);
		fprintf(fp, tune_text, kp_strbuf_str(&a), common_opts, exit_codes, see_also);
	} else if (!strcmp(cmd, "validate"))
		fputs(validate_text, fp);
	else if (!strcmp(cmd, "lsp"))
		fprintf(fp, "%s\n%s%s", lsp_text, exit_codes, see_also);
	else if (!strcmp(cmd, "diagnostics"))
		kp_help_diagnostics(fp);
	else
		rc = -1;
	kp_strbuf_release(&a);
	return rc;
}
