#!/usr/bin/env python3
"""convnet_gpu.py - kpipe's rewrites of cuda-convnet2's K-loops run on the
GPU against the library's own kernels (issue 34: "the ones you can run are
bit-identical and sanitizer-clean").

cuda-convnet2 (akrizhevsky/cuda-convnet2 3238bf0, bench/production_eval.tsv)
builds its kernels into a library whose host code takes NVMatrix objects
and picks the template arguments at run time, and its files include the
whole library; its own target, sm_35, is not built by CUDA 13.  So the
kernels are run as a user of kpipe would check them: each kernel template
is cut out of its file (the template line to the closing brace, with the
two macros it uses, DIVUP and MIN, defined as the library defines them),
kpipe rewrites the cut file as it rewrites the library's (the same loops,
the same plan: docs/production-eval.md), and bench/gpu_bench.py runs the
cut original and each rewrite at every size of a launch description of
ours (below, two instantiations each: those the library's host code uses,
and one whose copy loops have a remainder), element for element
(tolerance 0), under compute-sanitizer memcheck, racecheck and synccheck,
and timed at `target`.  No cuda-convnet2 code is kept in this repository:
`prepare` writes the cut files into gpu-convnet/ (git-ignored).

  python3 bench/convnet_gpu.py prepare --kpipe build/kpipe --convnet DIR
      here: cut, rewrite (kpipe's default for sm_90, and --variant
      register, register-2bar and cp-async), write the launch descriptions
  python3 bench/convnet_gpu.py run [--out DIR]
      on the GPU machine (carry gpu-convnet): one gpu_bench.py run per
      kernel and instantiation, reports DIR/NAME.{md,json}, DIR/summary.md
"""
import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, "gpu-convnet")
VARIANTS = ["register", "register-2bar", "cp-async"]
PRELUDE = ("// cut out of cuda-convnet2 by bench/convnet_gpu.py (not kept in kpipe's tree)\n"
           "#define DIVUP(x, y) (((x) + (y) - 1) / (y))\n"
           "#define MIN(a, b) ((a) < (b) ? (a) : (b))\n")

# the scalar arguments of the weight_acts kernels after (images, hidActs,
# targets): the library's names; `last` is partialSum or sumWidth
WA_INTS = ["numImages", "numFilters", "numModulesY", "numModulesX", "imgSizeY", "imgSizeX",
           "filterSize", "paddingStart", "moduleStride", "imgStride"]
VALUES = {"numImages": "I", "numFilters": "NF", "numModulesY": "M", "numModulesX": "M",
          "imgSizeY": "S", "imgSizeX": "S", "filterSize": "FS", "paddingStart": "0 - PAD",
          "moduleStride": "1", "imgStride": "I", "numImgColors": "NC", "numGroups": "1",
          "partialSum": "P", "sumWidth": "W"}


def sizes(nf, nc, last):
    """tiny and small ragged in the image count (the copies' else branch),
    target big enough to time"""
    return {"tiny": {"I": 37, "NF": nf, "NC": nc, "M": 3, "S": 5, "FS": 3, "PAD": 0, last: 3 if last == "P" else 2},
            "small": {"I": 70, "NF": nf, "NC": nc, "M": 4, "S": 6, "FS": 3, "PAD": 1, last: 2 if last == "P" else 3},
            "target": {"I": 256, "NF": nf * 2, "NC": nc, "M": 8, "S": 10, "FS": 3, "PAD": 1, last: 4}}


def wa_spec(kernel, targs, bx, by, fpt, cpt, ints, last, nf, nc, chunked):
    """weight_acts.cu's mc_mf kernels: block (B_X, B_Y), grid x the filter
    blocks times the module chunks, y the color blocks, z the filter's
    pixels (the library's _weightActs)"""
    mods = "((M + W - 1) / W) * ((M + W - 1) / W)" if chunked else "(M * M / P)"
    args = [{"name": "images", "role": "in", "type": "float", "count": "NC * S * S * I"},
            {"name": "hidActs", "role": "in", "type": "float", "count": "NF * M * M * I"},
            {"name": "targets", "role": "inout", "type": "float",
             "count": "%s * NC * FS * FS * NF" % mods}]
    args += [{"name": n, "role": "scalar", "type": "int", "value": VALUES[n]} for n in ints]
    args += [{"name": "scaleTargets", "role": "scalar", "type": "float", "value": "0.5"},
             {"name": "scaleOutputs", "role": "scalar", "type": "float", "value": "2.0"}]
    return {"kernel": kernel, "template_args": targs, "block": [str(bx), str(by), "1"],
            "grid": ["(NF / %d) * %s" % (bx * fpt, mods), "NC / %d" % (by * cpt), "FS * FS"],
            "dynamic_smem": "0", "requires": [], "sizes": sizes(nf, nc, last), "args": args,
            "tolerance": {"abs": 0, "rel": 0},
            "work": {"flops": "2.0 * NC * NF * FS * FS * M * M * I"}, "eligible": True}


def c_kepler_spec(targs, bx, by, ppt, fpt, ncol):
    """weight_acts.cu's conv_weight_acts_c_kepler: block (B_X, B_Y), grid x
    the filter blocks times the module groups, y the pixel blocks"""
    ints = WA_INTS + ["partialSum"]
    sz = sizes(32, 0, "P")
    for v in sz.values():
        v.pop("NC")
        if "false>" in targs:  # checkCaseBounds false: whole blocks of preloadCases images
            v["I"] = {37: 64, 70: 32}.get(v["I"], v["I"])
    args = [{"name": "images", "role": "in", "type": "float", "count": "%d * S * S * I" % ncol},
            {"name": "hidActs", "role": "in", "type": "float", "count": "NF * M * M * I"},
            {"name": "targets", "role": "inout", "type": "float",
             "count": "(M * M / P) * %d * FS * FS * NF" % ncol}]
    args += [{"name": n, "role": "scalar", "type": "int", "value": VALUES[n]} for n in ints]
    args += [{"name": "scaleTargets", "role": "scalar", "type": "float", "value": "0.5"},
             {"name": "scaleOutputs", "role": "scalar", "type": "float", "value": "2.0"}]
    return {"kernel": "conv_weight_acts_c_kepler", "template_args": targs,
            "block": [str(bx), str(by), "1"],
            "grid": ["(NF / %d) * (M * M / P)" % (bx * fpt),
                     "(FS * FS + %d) / %d" % (by * ppt - 1, by * ppt), "1"],
            "dynamic_smem": "0", "requires": [], "sizes": sz, "args": args,
            "tolerance": {"abs": 0, "rel": 0},
            "work": {"flops": "2.0 * %d * NF * FS * FS * M * M * I" % ncol}, "eligible": True}


def img_spec(targs):
    """img_acts.cu's conv_img_acts_manycolor <4, 32, imgsPerThread, 8, 16,
    ...>: block (32, 4), grid x the image blocks times the color blocks, y
    the image's pixels (the library's _imgActs)"""
    ipt = int(targs.strip("<>").split(",")[2])
    cases = 32 * ipt
    s = {"tiny": {"I": 130, "NC": 32, "NF": 32, "S": 5, "FS": 3, "M": 3},
         "small": {"I": 100, "NC": 64, "NF": 48, "S": 6, "FS": 3, "M": 4},
         "target": {"I": 256, "NC": 64, "NF": 64, "S": 12, "FS": 3, "M": 10}}
    ints = [("numModulesY", "M"), ("numModulesX", "M"), ("numImages", "I"), ("numFilters", "NF"),
            ("filterSize", "FS"), ("imgSizeY", "S"), ("imgSizeX", "S"), ("paddingStart", "0"),
            ("moduleStride", "1"), ("numImgColors", "NC"), ("numGroups", "1")]
    args = [{"name": "hidActs", "role": "in", "type": "float", "count": "NF * M * M * I"},
            {"name": "filters", "role": "in", "type": "float", "count": "M * M * NC * FS * FS * NF"},
            {"name": "targets", "role": "inout", "type": "float", "count": "NC * S * S * I"}]
    args += [{"name": n, "role": "scalar", "type": "int", "value": v} for n, v in ints]
    args += [{"name": "scaleTargets", "role": "scalar", "type": "float", "value": "0.5"},
             {"name": "scaleOutputs", "role": "scalar", "type": "float", "value": "2.0"}]
    return {"kernel": "conv_img_acts_manycolor", "template_args": targs, "block": ["32", "4", "1"],
            "grid": ["((I + %d) / %d) * (NC / 32)" % (cases - 1, cases), "S * S", "1"],
            "dynamic_smem": "0", "requires": [], "sizes": s, "args": args,
            "tolerance": {"abs": 0, "rel": 0},
            "work": {"flops": "2.0 * NC * NF * FS * FS * S * S * I"}, "eligible": True}


def kernels():
    """(file in the checkout, kernel, spec name, spec)"""
    wa = "cudaconv3/src/weight_acts.cu"
    mc_ints = WA_INTS + ["numImgColors", "numGroups"]
    out = []
    for name, targs, bx, by, fpt, cpt, nc in [("a", "<8, 16, 2, 8, 32, false>", 16, 8, 2, 8, 64),
                                               ("b", "<4, 16, 1, 5, 8, true>", 16, 4, 1, 5, 20)]:
        out.append((wa, "conv_weight_acts_mc_mf_kepler", "mc_mf_" + name,
                    wa_spec("conv_weight_acts_mc_mf_kepler", targs, bx, by, fpt, cpt,
                            mc_ints + ["partialSum"], "P", 32, nc, False)))
    for name, targs, bx, by, fpt, cpt, nc in [("a", "<8, 16, 2, 8, 32, false>", 16, 8, 2, 8, 64),
                                               ("b", "<4, 16, 1, 4, 32, true>", 16, 4, 1, 4, 32)]:
        out.append((wa, "conv_weight_acts_mc_mf_kepler_sw", "mc_mf_sw_" + name,
                    wa_spec("conv_weight_acts_mc_mf_kepler_sw", targs, bx, by, fpt, cpt,
                            mc_ints + ["sumWidth"], "W", 32, nc, True)))
    for name, targs, bx, by, ppt, fpt, ncol in [
            ("a", "<16, 16, 2, 16, 1, 32, 2, false, false>", 16, 16, 16, 1, 2),
            ("b", "<4, 16, 2, 4, 2, 16, 3, true, true>", 16, 4, 4, 2, 3)]:
        out.append((wa, "conv_weight_acts_c_kepler", "c_kepler_" + name,
                    c_kepler_spec(targs, bx, by, ppt, fpt, ncol)))
    for name, targs in [("a", "<4, 32, 4, 8, 16, false, true, true>"),
                        ("b", "<4, 32, 2, 8, 16, true, true, false>")]:
        out.append(("cudaconv3/src/img_acts.cu", "conv_img_acts_manycolor", "manycolor_" + name,
                    img_spec(targs)))
    return out


def cut(src, kernel):
    """The template of `kernel` in src: its `template <...>` line to the
    brace that closes its body (brace counting; the bodies hold no braces
    in strings or comments)"""
    m = re.search(r"^template\s*<[^\n]*>\s*\n__global__ void %s\(" % re.escape(kernel), src,
                  re.M)
    if not m:
        sys.exit("kernel %s not found" % kernel)
    i = src.index("{", m.end())
    depth = 0
    for j in range(i, len(src)):
        depth += {"{": 1, "}": -1}.get(src[j], 0)
        if depth == 0:
            return src[m.start():j + 1] + "\n"
    sys.exit("kernel %s has no closing brace" % kernel)


def prepare(args):
    conv = os.path.abspath(args.convnet)
    for sub in ("cut", "out", "specs"):
        os.makedirs(os.path.join(WORK, sub), exist_ok=True)
    log = open(os.path.join(WORK, "rewrite.log"), "w")
    done = set()
    for f, kernel, name, spec in kernels():
        cutf = os.path.join(WORK, "cut", kernel + ".cu")
        if kernel not in done:
            with open(os.path.join(conv, f)) as fp:
                text = PRELUDE + cut(fp.read(), kernel)
            with open(cutf, "w") as fp:
                fp.write(text)
            for v in ["kpipe"] + VARIANTS:
                dst = os.path.join(WORK, "out", "%s.%s.cu" % (kernel, v))
                cmd = [args.kpipe, "rewrite", "--no-verify", cutf, "-o", dst]
                if v != "kpipe":
                    cmd[2:2] = ["--variant", v]
                r = subprocess.run(cmd, capture_output=True, text=True)
                log.write("$ %s\n%s\n" % (" ".join(cmd), r.stderr))
                # kpipe's default may leave the loop alone (auto's rule 0: a
                # template nothing in the file instantiates); its version is
                # then the original, which the run times as such
                left = (v == "kpipe" and r.returncode == 0 and
                        "[kpipe-no-predicted-gain]" in r.stderr)
                if r.returncode != 0 or ("kpipe: " not in open(dst).read() and not left):
                    sys.exit("kpipe did not rewrite %s (%s): gpu-convnet/rewrite.log" % (kernel, v))
            done.add(kernel)
        spec["note"] = "cuda-convnet2 3238bf0 %s, %s cut out by bench/convnet_gpu.py" % (f, kernel)
        with open(os.path.join(WORK, "specs", name + ".launch.json"), "w") as fp:
            json.dump(spec, fp, indent=1)
    print("prepared %s: %d kernels, %d runs" % (WORK, len(done), len(kernels())), file=sys.stderr)


def run(args):
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    rows, bad = [], 0
    for f, kernel, name, spec in kernels():
        if args.only and args.only not in name:
            continue
        variants = []
        for v in ["kpipe"] + VARIANTS:
            variants += ["--variant", "%s=%s" % (v, os.path.join(WORK, "out", "%s.%s.cu" % (kernel, v)))]
        cmd = [sys.executable, os.path.join(ROOT, "bench", "gpu_bench.py"),
               "--spec", os.path.join(WORK, "specs", name + ".launch.json"),
               "--baseline", os.path.join(WORK, "cut", kernel + ".cu")] + variants + [
               "--arch", args.arch, "--jobs", "4"] + (
               [] if args.no_sanitize else ["--sanitize", "--sanitize-size", "tiny"]) + [
               "--json", os.path.join(out, name + ".json"),
               "--report", os.path.join(out, name + ".md"), "--quiet"]
        with open(os.path.join(out, name + ".log"), "w") as log:
            rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT).returncode
        bad += rc != 0
        rows.append((name, kernel, rc))
        print("%-24s exit %d" % (name, rc), file=sys.stderr)
    with open(os.path.join(out, "summary.md"), "w") as fp:
        fp.write("| run | kernel | gpu_bench.py exit |\n|---|---|---|\n")
        for name, kernel, rc in rows:
            fp.write("| %s | %s | %d |\n" % (name, kernel, rc))
    print("%d runs, %d with a failure" % (len(rows), bad), file=sys.stderr)
    return 1 if bad else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("prepare")
    a.add_argument("--kpipe", default=os.path.join(ROOT, "build", "kpipe"))
    a.add_argument("--convnet", required=True, help="the cuda-convnet2 checkout")
    b = sub.add_parser("run")
    b.add_argument("--out", default=os.path.join(os.environ.get("OUT", WORK), "results"))
    b.add_argument("--arch", default="sm_90")
    b.add_argument("--only", help="the runs whose name contains this")
    b.add_argument("--no-sanitize", action="store_true", help="no compute-sanitizer runs")
    args = p.parse_args()
    if args.cmd == "prepare":
        prepare(args)
        return 0
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
