#!/usr/bin/env python3
"""heldout_gpu.py - kpipe's rewrites of the held-out public K-loops run on
the GPU against the projects' own kernels (issue 34: "every rewrite of that
evaluation compiles for the project's targets, and the ones you can run are
bit-identical and sanitizer-clean").

docs/heldout-eval.md evaluates kpipe on public CUDA files it was never tuned
on (bench/heldout_eval.tsv); bench/heldout_eval_results.tsv lists the loops
it rewrites.  This script takes each of those kernels as a user would check
it: the project's file as published (or, where the file cannot be built on
its own, the kernel and the helpers it calls cut out of it), rewritten by
kpipe with the project's flags (its default, and every variant forced that
kpipe accepts), then bench/gpu_bench.py runs the original and each rewrite
at every size of a launch description of ours (bench/heldout_gpu/NAME.launch.json:
sizes that leave partial tiles where the kernel allows them), element for
element, under compute-sanitizer memcheck, racecheck and synccheck, and
timed at `target`.  No code of those projects is kept in this repository:
`prepare` writes the copies into gpu-heldout/ (git-ignored); a copy has
the project's own headers (its `#include "..."` found in the file's folder
or the build's -I folders) inlined, so that it builds on the GPU machine,
where the checkouts are not.

The table is bench/heldout_gpu/*.tsv (one file per repository), each line
  NAME|KEY|FILE|KERNEL|CUT|FLAGS
  KEY    the repository key of bench/heldout_eval.tsv (--tree KEY=DIR)
  FILE   the file in that checkout
  KERNEL the kernel the description launches
  CUT    `file` (the whole file; its main() and other host code stay, built
         into the bench's shared library, where nothing calls them), or
         `cut:F1,F2,...` (the functions F1, F2 ... and then KERNEL cut out
         of FILE, each from its head to the brace closing its body, after
         the file's #include and #define lines and the #if/#else/#endif
         lines around them), or `cut+:F1,...` (the same,
         and everything in the file before the first line of F1 kept too:
         its types, constants and macros)
  FLAGS  the project's build flags: -D... (written as #define lines at the
         top of the copy, which the checker and the bench then build with no
         flags) and -I{tree}/... (given to kpipe; the copy must not need them
         to build on the GPU machine, where the checkouts are not) and
         -l... (not kpipe's: linked into the bench's library of each
         version, for the host code a whole file keeps: -lcublas)

  python3 bench/heldout_gpu.py prepare --kpipe build/kpipe --tree KEY=DIR ...
      here: copy or cut, rewrite (kpipe's default for sm_90, and --variant
      register, register-ca, register-2bar, cp-async where kpipe accepts
      them), the launch descriptions beside; gpu-heldout/
  python3 bench/heldout_gpu.py run [--out DIR] [--only SUBSTRING]
      on the GPU machine (carry gpu-heldout): one gpu_bench.py run per
      kernel, reports DIR/NAME.{md,json}, DIR/summary.md; --compile-only
      builds them and stops (no GPU needed); --no-time checks and
      sanitizes only, --parallel N runs N kernels at once; --build-root
      DIR builds each kernel in DIR/NAME and keeps it, so that a
      `--compile-only --parallel 14` run builds everything at once and a
      later `--parallel 1` run times the kernels one at a time, building
      nothing again; --sizes LIST checks only those sizes
  python3 bench/heldout_gpu.py check [--only SUBSTRING]
      here: the CPU checker (tests/cpudiff/cpudiff.py) on every prepared
      version, at the descriptions' small sizes
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

from gpu_batch import add_build_args, build_flags, cut_function, run_all, selected

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, "gpu-heldout")
SPECS = os.path.join(ROOT, "bench", "heldout_gpu")
VARIANTS = ["register", "register-ca", "register-2bar", "cp-async"]


def rows():
    """The table's rows: dicts name, key, file, kernel, cut, flags"""
    out = []
    for table in sorted(glob.glob(os.path.join(SPECS, "*.tsv"))):
        with open(table) as fp:
            for line in fp:
                line = line.rstrip("\n")
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                f = line.split("|")
                if len(f) != 6:
                    sys.exit("%s: expected 6 fields: %s" % (table, line))
                out.append(dict(zip(("name", "key", "file", "kernel", "cut", "flags"), f)))
    return out


def make_copy(src, row):
    """The text kpipe and the bench are given for one row"""
    cut = row["cut"]
    if cut == "file":
        return src
    mode, _, names = cut.partition(":")
    if mode not in ("cut", "cut+"):
        sys.exit("%s: bad CUT '%s'" % (row["name"], cut))
    fns = [n for n in names.split(",") if n] + [row["kernel"]]
    parts = [cut_function(src, n) for n in fns]
    head = "// cut out of %s by bench/heldout_gpu.py (not kept in kpipe's tree)\n" % row["file"]
    if mode == "cut+":
        head += src[:parts[0][1]]
    else:
        # the conditionals around them too (kNN-CUDA's legacy files:
        # `#if MATLAB_CODE == 1 #include "mex.h" #else ... #endif`)
        head += "".join(l for l in src.splitlines(True)
                        if re.match(r"\s*#\s*(include|define|if|ifdef|ifndef|elif|else|endif)\b", l))
    return head + "".join(p[0] for p in parts)


def inline_local(text, dirs, seen):
    """text with each `#include "NAME"` that one of dirs holds replaced by
    that file (its own local includes too, each file once; `#pragma once`
    dropped): the copy builds where the checkout is not"""
    out = []
    for line in text.splitlines(True):
        m = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
        path = None
        for d in dirs if m else []:
            if os.path.isfile(os.path.join(d, m.group(1))):
                path = os.path.realpath(os.path.join(d, m.group(1)))
                break
        if not path:
            if not re.match(r"\s*#\s*pragma\s+once\b", line):
                out.append(line)
            continue
        if path in seen:
            continue
        seen.add(path)
        with open(path, errors="replace") as fp:
            body = inline_local(fp.read(), [os.path.dirname(path)] + dirs, seen)
        out.append("// ---- %s (inlined by bench/heldout_gpu.py)\n%s\n" % (m.group(1), body))
    return "".join(out)


def tree_flags(flags, trees):
    """FLAGS with {tree} and {tree:KEY} replaced"""
    def sub(m):
        k = m.group(1)
        if k not in trees:
            sys.exit("no --tree %s" % k)
        return trees[k]
    return re.sub(r"\{tree:([A-Za-z0-9_]+)\}", sub, flags)


def prepare(args):
    trees = dict(t.split("=", 1) for t in args.tree)
    trees = {k: os.path.abspath(v) for k, v in trees.items()}
    for sub in ("orig", "out"):
        os.makedirs(os.path.join(WORK, sub), exist_ok=True)
    log = open(os.path.join(WORK, "rewrite.log"), "a" if args.only else "w")
    for row in rows():
        if not selected(args.only, row["name"]):
            continue
        key = row["key"]
        if key not in trees:
            print("skipped %s: no --tree %s" % (row["name"], key), file=sys.stderr)
            continue
        spec_path = os.path.join(SPECS, row["name"] + ".launch.json")
        if not os.path.isfile(spec_path):
            sys.exit("%s: no launch description %s" % (row["name"], spec_path))
        with open(os.path.join(trees[key], row["file"]), errors="replace") as fp:
            text = make_copy(fp.read(), row)
        # the build's -D flags become #define lines at the top of the copy
        # (the CPU checker and the bench build it with no flags); the -I
        # flags, and the file's own folder for its includes, go to kpipe
        flags, defs, libs = [], [], []
        for w in tree_flags(row["flags"].replace("{tree}", "{tree:%s}" % key), trees).split():
            if w.startswith("-D"):
                nm, _, val = w[2:].partition("=")
                defs.append("#define %s %s\n" % (nm, val or "1"))
            elif w.startswith("-l"):
                libs.append(w)  # linked into the bench's libraries, not kpipe's
            else:
                flags.append(w)
        here = os.path.dirname(os.path.join(trees[key], row["file"]))
        dirs = [here] + [flags[i + 1] if f == "-I" else f[2:] for i, f in enumerate(flags)
                         if f.startswith("-I") and (f != "-I" or i + 1 < len(flags))]
        if row["cut"].startswith("cut:"):
            # a cut keeps no host code: an `#include <NAME>` of a header that
            # the build's -I folders hold (cuda-samples' helper_timer.h, for
            # the host's timers) goes, as the GPU machine has none of them
            text = "".join(l for l in text.splitlines(True) if not any(
                os.path.isfile(os.path.join(d, m.group(1)))
                for m in [re.match(r"\s*#\s*include\s*<([^>]+)>", l)] if m for d in dirs[1:]))
        text = "".join(defs) + inline_local(text, dirs, set())
        flags += ["-I", here]
        name = row["name"]
        orig = os.path.join(WORK, "orig", name + ".cu")
        with open(orig, "w") as fp:
            fp.write(text)
        # beside the copy, where kpipe (the block, the instantiation) and
        # the CPU checker look for it
        shutil.copy(spec_path, orig[:-3] + ".launch.json")
        got = []
        for v in ["kpipe"] + VARIANTS:
            dst = os.path.join(WORK, "out", "%s.%s.cu" % (name, v))
            cmd = [args.kpipe, "rewrite", "--no-verify"] + (
                [] if v == "kpipe" else ["--variant", v]) + [orig, "-o", dst, "--"] + flags
            r = subprocess.run(cmd, capture_output=True, text=True)
            log.write("$ %s\n%s\n" % (" ".join(cmd), r.stderr))
            same = r.returncode == 0 and open(dst).read() == text
            if r.returncode != 0:
                sys.exit("kpipe failed on %s (%s): gpu-heldout/rewrite.log" % (name, v))
            if same and v != "kpipe":
                os.remove(dst)  # the variant does not apply: kpipe said why
                continue
            got.append(v + (" (left alone)" if same else ""))
        # a launch shim of ours (bench/heldout_gpu/NAME.shim.cu: a host
        # function, named by the `// kpipe-launch: launcher(KERNEL) = FN`
        # line in it, that the bench and the checker call instead of the
        # kernel) where the kernel takes a type the descriptions lack
        # (float4): appended to the copy and to each version once kpipe ran;
        # else a shim of the whole project (bench/heldout_gpu/KEY.shim.cu:
        # host functions its files call but another file defines)
        shim = os.path.join(SPECS, name + ".shim.cu")
        if not os.path.isfile(shim):
            shim = os.path.join(SPECS, key + ".shim.cu")
        if os.path.isfile(shim):
            with open(shim) as fp:
                tail = "\n" + fp.read()
            for v in [None] + [g.split()[0] for g in got]:
                p = orig if v is None else os.path.join(WORK, "out", "%s.%s.cu" % (name, v))
                with open(p, "a") as fp:
                    fp.write(tail)
        # -l... of FLAGS (cuBLAS for host code the copy keeps): the bench
        # links them into the version's library (dlopen()ed RTLD_NOW)
        if libs:
            with open(orig[:-3] + ".libs", "w") as fp:
                fp.write(" ".join(libs) + "\n")
        elif os.path.exists(orig[:-3] + ".libs"):
            os.remove(orig[:-3] + ".libs")
        with open(orig[:-3] + ".versions", "w") as fp:
            fp.write(", ".join(got) + "\n")
        print("%-32s %s" % (name, ", ".join(got)), file=sys.stderr)


def versions(name):
    """(version, file) of every prepared rewrite of name"""
    out = []
    for v in ["kpipe"] + VARIANTS:
        p = os.path.join(WORK, "out", "%s.%s.cu" % (name, v))
        if os.path.isfile(p):
            out.append((v, p))
    return out


def libs_flags(name):
    """gpu_bench.py's --nvcc-flags for the -l... of name's FLAGS (prepare
    wrote them beside its copy), or none"""
    p = os.path.join(WORK, "orig", name + ".libs")
    if not os.path.isfile(p):
        return []
    with open(p) as fp:
        return ["--nvcc-flags=" + fp.read().strip()]  # "=": the value starts with "-"


def prepared():
    names = sorted(f[:-3] for f in os.listdir(os.path.join(WORK, "orig")) if f.endswith(".cu"))
    return names


def run(args):
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    jobs = []
    for name in prepared():
        if not selected(args.only, name) or any(x in name for x in args.exclude):
            continue
        variants = []
        for v, p in versions(name):
            variants += ["--variant", "%s=%s" % (v, p)]
        cmd = [sys.executable, os.path.join(ROOT, "bench", "gpu_bench.py"),
               "--spec", os.path.join(WORK, "orig", name + ".launch.json"),
               "--baseline", os.path.join(WORK, "orig", name + ".cu")] + variants + [
               "--arch", args.arch, "--jobs", "8"] + libs_flags(name) + (
               [] if args.no_sanitize else ["--sanitize", "--sanitize-size", "tiny"]) + (
               ["--no-time"] if args.no_time else []) + build_flags(args, name) + [
               "--json", os.path.join(out, name + ".json"),
               "--report", os.path.join(out, name + ".md"), "--quiet"]
        jobs.append(((name,), cmd))
    return 1 if run_all(jobs, out, args.parallel, ["run"]) else 0


def check(args):
    bad = 0
    for name in prepared():
        if not selected(args.only, name):
            continue
        orig = os.path.join(WORK, "orig", name + ".cu")
        for v, p in versions(name):
            if open(p).read() == open(orig).read():
                continue
            cmd = [sys.executable, os.path.join(ROOT, "tests", "cpudiff", "cpudiff.py"), orig, p,
                   "--spec", os.path.join(WORK, "orig", name + ".launch.json"), "-q"]
            for s in args.size:
                cmd += ["--size", s]
            r = subprocess.run(cmd, capture_output=True, text=True)
            last = (r.stdout + r.stderr).strip().splitlines()[-1:] or [""]
            print("%-32s %-14s exit %d  %s" % (name, v, r.returncode, last[0]), file=sys.stderr)
            bad += r.returncode not in (0, 77)  # 77: the checker cannot run it
    return 1 if bad else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("prepare")
    a.add_argument("--kpipe", default=os.path.join(ROOT, "build", "kpipe"))
    a.add_argument("--tree", action="append", default=[], help="KEY=DIR: a checkout")
    a.add_argument("--only", help="the rows whose name contains this (or one of several, comma-separated)")
    b = sub.add_parser("run")
    b.add_argument("--out", default=os.path.join(ROOT, "heldout-gpu-out"))
    b.add_argument("--arch", default="sm_90")
    b.add_argument("--only", help="the runs whose name contains this (or one of several, comma-separated)")
    b.add_argument("--no-sanitize", action="store_true", help="no compute-sanitizer runs")
    b.add_argument("--no-time", action="store_true", help="check and sanitize only")
    b.add_argument("--parallel", type=int, default=1, help="kernels at once (default 1)")
    b.add_argument("--exclude", action="append", default=[],
                   help="leave out the runs whose name contains this (repeat)")
    add_build_args(b)
    c = sub.add_parser("check")
    c.add_argument("--only", help="the rows whose name contains this (or one of several, comma-separated)")
    c.add_argument("--size", action="append", default=[], help="a size of the description (repeat)")
    args = p.parse_args()
    if args.cmd == "prepare":
        return prepare(args)
    if args.cmd == "run":
        return run(args)
    return check(args)


if __name__ == "__main__":
    sys.exit(main() or 0)
