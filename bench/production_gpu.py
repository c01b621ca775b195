#!/usr/bin/env python3
"""production_gpu.py - kpipe's rewrites of production-library K-loops run
on the GPU against the library's own kernels (issue 34: "the ones you can
run are bit-identical and sanitizer-clean").

MAGMA (icl-utk-edu/magma c64e52a, its precisions generated as
bench/production_eval.tsv says) is the library: the files whose K-loops
docs/production-eval.md counts as rewritten and whose kernels take plain
buffers and integers — magmablas/ztrtri_lower.cu, ztrtri_upper.cu (the
triple_zgemm*_part{1,2} kernels over the rewritten __device__ functions of
ztrtri_{lower,upper}_device.cuh), zlanhe.cu (zlanhe_inf_kernel_{lower,
upper}) and the Hermitian and symmetric matrix-vector products' first
kernels (zhemv.cu, zhemv_upper.cu, zsymv.cu, zsymv_upper.cu, and
zhemv_mgpu.cu, zhemv_mgpu_upper.cu run as one GPU with a column offset).
Each kernel is launched as MAGMA's host code launches it
(magmablas/ztrtri_diag.cu, zlanhe.cu: the geometry is in KERNELS below),
with complex buffers as `double2` (docs/launch-spec.md), by
bench/gpu_bench.py: the original file and kpipe's rewrite of it, checked
element for element (tolerance 0) at every size, run under
compute-sanitizer memcheck, racecheck and synccheck, timed at `target`.
No MAGMA code is kept in this repository: `prepare` copies what the build
needs out of your checkout into gpu-production/ (git-ignored).

  python3 bench/production_gpu.py prepare --kpipe build/kpipe --magma DIR
      here: kpipe rewrites the three files with MAGMA's own flags
      (--out-dir gpu-production/out), the launch descriptions are written
      to gpu-production/specs, MAGMA's headers copied
  python3 bench/production_gpu.py run [--out DIR]
      on the GPU machine (carry gpu-production): one gpu_bench.py run per
      kernel, reports DIR/NAME.{md,json}, a summary table DIR/summary.md
  prepare --variants register,cp-async,...: each variant also forced
  (out-VARIANT/), and run times them beside kpipe's pick ("kpipe");
  run --only TEXT, --parallel 1 (comparable timings), --no-sanitize
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys

from gpu_batch import run_all

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, "gpu-production")
# MAGMA's Makefile flags (bench/production_eval.tsv), its targets sm_70 and sm_80
FLAGS = ["-O3", "-DNDEBUG", "-DADD_", "-std=c++11", "-I{m}/include", "-I{m}/testing",
         "-I{m}/control", "-gencode", "arch=compute_70,code=sm_70",
         "-gencode", "arch=compute_80,code=sm_80"]
FILES = ["magmablas/ztrtri_lower.cu", "magmablas/ztrtri_upper.cu", "magmablas/zlanhe.cu",
         "magmablas/zhemv.cu", "magmablas/zhemv_upper.cu", "magmablas/zsymv.cu",
         "magmablas/zsymv_upper.cu", "magmablas/zhemv_mgpu.cu", "magmablas/zhemv_mgpu_upper.cu"]
# MAGMA library functions the files' host code calls (zlanhe.cu's
# magmablas_zlanhe_inf): the harness loads each version as a shared library
# with RTLD_NOW, so they get definitions that abort if ever called (the
# bench launches the kernels, never that host code)
STUBS = ["magma_getdevice_arch", "magma_getvector_internal", "magma_xerbla",
         # zhemv.cu, zsymv.cu, zhemv_mgpu.cu (their _work and _mgpu drivers)
         "magma_free_internal", "magma_malloc", "magma_zhemv", "magma_getdevice",
         "magma_setdevice", "magma_getvector_async_internal", "magma_setvector_async_internal",
         "magma_queue_sync_internal", "zscal_", "zaxpy_"]
# a file whose host code launches the kernels of another (magmablas_zhemv_work
# in zhemv.cu launches zhemv_upper.cu's zhemv_kernel_U): that file, as MAGMA
# has it, is linked into each version of the first
PARTNERS = {"magmablas/zhemv.cu": "magmablas/zhemv_upper.cu",
            "magmablas/zsymv.cu": "magmablas/zsymv_upper.cu",
            "magmablas/zhemv_mgpu.cu": "magmablas/zhemv_mgpu_upper.cu"}


def trtri(side, name, jb):
    """magmablas/ztrtri_diag.cu: threads (jb <= 32 ? jb/4 : 16, 4), grid
    (jb / (threads.x * threads.y), npages * (jb / 16)), npages =
    ceil(n / 2jb); d_dinvA is roundup(n, NB) * NB with NB = 128.  n a
    multiple of 128: the pages then lie inside A, as in MAGMA's own use."""
    tx = jb // 4 if jb <= 32 else 16
    npages = "((N + %d) / %d)" % (2 * jb - 1, 2 * jb)
    return {
        "kernel": "triple_zgemm%s_%s_kernel" % (name, side),
        "block": [str(tx), "4", "1"],
        "grid": [str(jb // (tx * 4)), "%s * %d" % (npages, jb // 16), "1"],
        "requires": ["N % 128 == 0"],
        "sizes": {"tiny": {"N": 128}, "small": {"N": 256}, "odd": {"N": 384},
                  "target": {"N": 8192}},
        "args": [
            {"name": "n", "role": "scalar", "type": "int", "value": "N"},
            {"name": "Ain", "role": "in", "type": "double2", "count": "N * N"},
            {"name": "lda", "role": "scalar", "type": "int", "value": "N"},
            {"name": "d_dinvA", "role": "inout", "type": "double2",
             "count": "((N + 127) / 128) * 128 * 128"},
            {"name": "jb", "role": "scalar", "type": "int", "value": str(jb)},
            {"name": "npages", "role": "scalar", "type": "int", "value": npages},
        ],
        "tolerance": {"abs": 0, "rel": 0},
        "work": {"flops": "8.0 * %d * %d * N" % (jb, jb)},
        "note": "MAGMA magmablas/ztrtri_diag.cu's launch of this kernel with jb = %d" % jb,
    }


def lanhe(side):
    """magmablas/zlanhe.cu zlanhe_inf: threads (inf_bs, 4), grid
    ceil(n / inf_bs), inf_bs = 32; dwork has n entries."""
    return {
        "kernel": "zlanhe_inf_kernel_%s" % side,
        "block": ["32", "4", "1"],
        "grid": ["(N + 31) / 32", "1", "1"],
        # no n = 0: magmablas_zlanhe returns before launching (a grid of
        # no blocks is an invalid launch)
        "sizes": {"tiny": {"N": 32}, "small": {"N": 100}, "ragged": {"N": 77},
                  "target": {"N": 8192}},
        "args": [
            {"name": "n", "role": "scalar", "type": "int", "value": "N"},
            {"name": "A", "role": "in", "type": "double2", "count": "N * N"},
            {"name": "lda", "role": "scalar", "type": "int", "value": "N"},
            {"name": "dwork", "role": "out", "type": "double", "count": "N"},
            {"name": "n_full_block", "role": "scalar", "type": "int", "value": "N / 32"},
            {"name": "n_mod_bs", "role": "scalar", "type": "int", "value": "N % 32"},
        ],
        "tolerance": {"abs": 0, "rel": 0},
        "work": {"bytes": "16.0 * N * N"},
        "note": "MAGMA magmablas/zlanhe.cu's launch (zlanhe_inf)",
    }


def hemv(name, mgpu):
    """magmablas/zhemv.cu magmablas_zhemv_work (and zsymv.cu's): threads
    (NB_X, NB_Y) = (64, 4), grid ceil(n / 64), dwork ldda * blocks.  The
    multi-GPU kernels (zhemv_mgpu.cu magmablas_zhemv_mgpu) run as one GPU
    of one (ngpu 1, my_gpu_id 0) with a column offset of 5 inside the first
    block (block_offset 5: blocks ceil((n + 5) / 64), x placed after the
    offset in a vector of ldda entries).  ldda: n (plus the offset) rounded
    up to 32, as MAGMA recommends a multiple of 16."""
    off = "5" if mgpu else "0"
    blocks = "((N + %s + 63) / 64)" % off
    lda = "(((N + %s + 31) / 32) * 32)" % off
    args = [
        {"name": "n", "role": "scalar", "type": "int", "value": "N"},
        {"name": "A", "role": "in", "type": "double2", "count": "%s * %s * 64" % (lda, blocks)},
        {"name": "lda", "role": "scalar", "type": "int", "value": lda},
        {"name": "x", "role": "in", "type": "double2", "count": "%s * 64" % blocks},
        {"name": "incx", "role": "scalar", "type": "int", "value": "1"},
        # each block writes its partial sums for the blocks beside its
        # diagonal only: the rest keeps what the harness put there
        {"name": "work", "role": "inout", "type": "double2", "count": "%s * %s" % (lda, blocks)},
    ]
    if mgpu:
        args += [{"name": "my_gpu_id", "role": "scalar", "type": "int", "value": "0"},
                 {"name": "ngpu", "role": "scalar", "type": "int", "value": "1"},
                 {"name": "block_offset", "role": "scalar", "type": "int", "value": off}]
    return {
        "kernel": name,
        "block": ["64", "4", "1"],
        "grid": [blocks, "1", "1"],
        "sizes": {"tiny": {"N": 64}, "small": {"N": 200}, "ragged": {"N": 333},
                  "target": {"N": 8192}},
        "args": args,
        "tolerance": {"abs": 0, "rel": 0},
        "work": {"bytes": "16.0 * N * N"},
        "note": "MAGMA magmablas/%s's launch" % ("zhemv_mgpu.cu (one GPU, offset 5)" if mgpu
                                                 else "zhemv.cu (zsymv.cu alike)"),
    }


HEMV = [("magmablas/zhemv.cu", "zhemv_kernel_L", 0), ("magmablas/zhemv_upper.cu", "zhemv_kernel_U", 0),
        ("magmablas/zsymv.cu", "zsymv_kernel_L", 0), ("magmablas/zsymv_upper.cu", "zsymv_kernel_U", 0),
        ("magmablas/zhemv_mgpu.cu", "zhemv_kernel_L_mgpu", 1),
        ("magmablas/zhemv_mgpu_upper.cu", "zhemv_kernel_U_mgpu", 1)]


def kernels():
    """(file, spec) of every kernel run."""
    out = []
    for side in ("lower", "upper"):
        for jb in (16, 32, 64):
            for part in (1, 2):
                out.append(("magmablas/ztrtri_%s.cu" % side, trtri(side, "%d_part%d" % (jb, part), jb)))
        for part in (1, 2):  # the above-64 forms at jb = 64, the largest NB = 128 allows
            out.append(("magmablas/ztrtri_%s.cu" % side, trtri(side, "_above64_part%d" % part, 64)))
        out.append(("magmablas/zlanhe.cu", lanhe(side)))
    for f, name, mgpu in HEMV:
        out.append((f, hemv(name, mgpu)))
    return out


def prepare(args):
    magma = os.path.abspath(args.magma)
    if os.path.isdir(WORK):
        shutil.rmtree(WORK)
    dst = os.path.join(WORK, "magma")
    for sub in ("include", "control", "magmablas"):
        os.makedirs(os.path.join(dst, sub))
    for f in glob.glob(os.path.join(magma, "include", "*.h")):
        shutil.copy(f, os.path.join(dst, "include"))
    for f in glob.glob(os.path.join(magma, "control", "*.h")):
        shutil.copy(f, os.path.join(dst, "control"))
    for pat in ("*.h", "*.cuh"):
        for f in glob.glob(os.path.join(magma, "magmablas", pat)):
            shutil.copy(f, os.path.join(dst, "magmablas"))
    for f in FILES:
        shutil.copy(os.path.join(magma, f), os.path.join(dst, "magmablas"))
    flags = [x.format(m=magma) for x in FLAGS]
    out = os.path.join(WORK, "out")
    r = subprocess.run([args.kpipe, "rewrite"] + [os.path.join(magma, f) for f in FILES]
                       + ["--out-dir", out, "--"] + flags,
                       capture_output=True, text=True)
    with open(os.path.join(WORK, "rewrite.log"), "w") as f:
        f.write(r.stderr)
    print(r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "", file=sys.stderr)
    if r.returncode not in (0, 1):
        sys.exit("kpipe rewrite exited %d (gpu-production/rewrite.log)" % r.returncode)
    # --variants: each variant forced, in out-VARIANT/ (what auto did not pick)
    for v in [x for x in (args.variants or "").split(",") if x]:
        vout = os.path.join(WORK, "out-" + v)
        st = re.match(r"(.*)-s([0-9]+)$", v)
        extra = ["--stages", st.group(2)] if st else []
        base = st.group(1) if st else v
        r = subprocess.run([args.kpipe, "rewrite", "--variant", base] + extra
                           + [os.path.join(magma, f) for f in FILES]
                           + ["--out-dir", vout, "--"] + flags, capture_output=True, text=True)
        with open(os.path.join(WORK, "rewrite-%s.log" % v), "w") as f:
            f.write(r.stderr)
        if r.returncode not in (0, 1):
            sys.exit("kpipe rewrite --variant %s exited %d" % (v, r.returncode))
    specs = os.path.join(WORK, "specs")
    os.makedirs(specs)
    for f, spec in kernels():
        spec["note"] += "; file %s" % f
        with open(os.path.join(specs, spec["kernel"] + ".launch.json"), "w") as fp:
            json.dump(spec, fp, indent=1)
    print("prepared %s: %d kernels" % (WORK, len(kernels())), file=sys.stderr)


def run(args):
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    m = os.path.join(WORK, "magma")
    stub_src, stub = os.path.join(out, "magma_stubs.cu"), os.path.join(out, "magma_stubs.o")
    with open(stub_src, "w") as fp:
        fp.write("// generated by bench/production_gpu.py: MAGMA host functions the\n"
                 "// kernels' files call, never called by the bench\n#include <cstdlib>\n")
        for name in STUBS:
            fp.write('extern "C" void %s(void) { abort(); }\n' % name)
    subprocess.run(["nvcc", "-c", "-Xcompiler", "-fPIC", stub_src, "-o", stub], check=True)
    compile_flags = "-std=c++11 -DADD_ -DNDEBUG -I%s/include -I%s/control -I%s/magmablas" % (
        m, m, m)
    flags = compile_flags + " " + stub
    partner_obj = {}
    for f, other in PARTNERS.items():
        if args.only and not any(args.only in spec["kernel"] for g, spec in kernels() if g == f):
            continue
        obj = os.path.join(out, os.path.basename(other) + ".o")
        subprocess.run(["nvcc", "-c", "-Xcompiler", "-fPIC", "-arch", args.arch] +
                       compile_flags.split() + [os.path.join(m, other), "-o", obj], check=True)
        partner_obj[f] = obj
    jobs = []
    for f, spec in kernels():
        name = spec["kernel"]
        if args.only and args.only not in name:
            continue
        base = os.path.join(m, f)
        ver = os.path.join(WORK, "out", os.path.basename(f))
        forced = []
        for d in sorted(glob.glob(os.path.join(WORK, "out-*"))):
            fv = os.path.join(d, os.path.basename(f))
            if os.path.exists(fv):
                forced += ["--variant", "%s=%s" % (os.path.basename(d)[4:], fv)]
        cmd = [sys.executable, os.path.join(ROOT, "bench", "gpu_bench.py"),
               "--spec", os.path.join(WORK, "specs", name + ".launch.json"),
               "--baseline", base, "--variant", "kpipe=" + ver] + forced + [
               "--arch", args.arch, "--nvcc-flags",
               flags + (" " + partner_obj[f] if f in partner_obj else ""), "--jobs", "2"] + (
               [] if args.no_sanitize else ["--sanitize", "--sanitize-size", "tiny"]) + [
               "--json", os.path.join(out, name + ".json"),
               "--report", os.path.join(out, name + ".md"), "--quiet"]
        jobs.append(((name, f), cmd))
    # --parallel runs at once: the builds are most of the time; the timings
    # of kernels timed side by side are not comparable (correctness is the
    # point here), so the summary says how they were run
    return 1 if run_all(jobs, out, args.parallel, ["kernel", "file"]) else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("prepare")
    a.add_argument("--kpipe", default=os.path.join(ROOT, "build", "kpipe"))
    a.add_argument("--magma", required=True)
    a.add_argument("--variants", help="also each of these variants forced (comma-separated: "
                   "register,register-ca,cp-async-s3), timed beside kpipe's default pick")
    b = sub.add_parser("run")
    b.add_argument("--out", default=os.path.join(os.environ.get("OUT", WORK), "results"))
    b.add_argument("--arch", default="sm_90")
    b.add_argument("--parallel", type=int, default=4, help="gpu_bench.py runs at once")
    b.add_argument("--only", help="the kernels whose name contains this")
    b.add_argument("--no-sanitize", action="store_true", help="no compute-sanitizer runs")
    args = p.parse_args()
    if args.cmd == "prepare":
        prepare(args)
        return 0
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
