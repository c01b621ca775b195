"""gpu_batch.py - what the scripts that run other projects' kernels through
bench/gpu_bench.py share (production_gpu.py, convnet_gpu.py,
heldout_gpu.py): cutting one function out of a source file, the options
that build every run at once and time them one at a time, and running a
list of gpu_bench.py commands some at a time with one log each and a
summary table.  Imported, not run.  Python 3 standard library only.
"""
import concurrent.futures
import os
import re
import subprocess
import sys


def cut_function(src, name, head=r"[^\n;{}()]*?"):
    """The function `name` in src: its head (the `template <...>` lines
    before it too) to the brace that closes its body, and the offset where
    it starts.  `head` is what may precede the name on its line (by default
    anything but a statement's or a call's punctuation).  Brace counting:
    bodies with braces in strings or comments are not supported."""
    m = re.search(r"^(?:template\s*<[^{};]*>\s*\n)?%s\b%s\s*\(" % (head, re.escape(name)), src, re.M)
    if not m:
        sys.exit("function %s not found" % name)
    i = src.index("{", m.end())
    depth = 0
    for j in range(i, len(src)):
        depth += {"{": 1, "}": -1}.get(src[j], 0)
        if depth == 0:
            return src[m.start():j + 1] + "\n", m.start()
    sys.exit("function %s has no closing brace" % name)


def selected(only, name):
    """--only: a name part, or several separated by commas."""
    return not only or any(x and x in name for x in only.split(","))


def add_build_args(parser):
    """The `run` options of build_flags() on an argparse (sub)parser."""
    parser.add_argument("--compile-only", action="store_true",
                        help="build every version and stop (no GPU needed: a check here)")
    parser.add_argument("--build-root", help="build each run in BUILD_ROOT/NAME and reuse it: "
                        "--compile-only --parallel N builds everything at once, a later "
                        "--parallel 1 run with the same root times one run at a time")
    parser.add_argument("--sizes", help="the sizes to check (gpu_bench.py --sizes; default all)")


def build_flags(args, name):
    """gpu_bench.py's flags for run `name` from add_build_args()'s options."""
    return (["--compile-only"] if args.compile_only else []) + (
        ["--build-dir", os.path.join(os.path.abspath(args.build_root), name), "--reuse-build"]
        if args.build_root else []) + (["--sizes", args.sizes] if args.sizes else [])


def run_all(jobs, out, parallel, columns):
    """Run jobs, each (cells, cmd): cells the summary row's first columns
    (cells[0] the run's name: its log is OUT/NAME.log), cmd a gpu_bench.py
    command line; `parallel` at once (their builds share the CPUs, their
    launches the GPU: timings taken side by side are not comparable, and
    the summary says how they were run).  Writes OUT/summary.md (`columns`
    name the cells, then gpu_bench.py's exit status) and returns the number
    of runs that failed."""

    def one(job):
        cells, cmd = job
        with open(os.path.join(out, cells[0] + ".log"), "w") as log:
            rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT).returncode
        print("%-40s exit %d" % (cells[0], rc), file=sys.stderr)
        return cells, rc

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, parallel)) as ex:
        rows = list(ex.map(one, jobs))
    bad = sum(rc != 0 for _, rc in rows)
    with open(os.path.join(out, "summary.md"), "w") as fp:
        fp.write("%d gpu_bench.py runs, %d at once\n\n" % (len(rows), parallel))
        fp.write("| %s | gpu_bench.py exit |\n|%s---|\n" % (" | ".join(columns), "---|" * len(columns)))
        for cells, rc in rows:
            fp.write("| %s | %d |\n" % (" | ".join(cells), rc))
    print("%d runs, %d with a failure" % (len(rows), bad), file=sys.stderr)
    return bad
