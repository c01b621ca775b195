#!/usr/bin/env python3
"""convnet_gpu.py - kpipe's rewrites of cuda-convnet2's K-loops run on the
GPU against the library's own kernels (issue 34: "the ones you can run are
bit-identical and sanitizer-clean").

cuda-convnet2 (akrizhevsky/cuda-convnet2 3238bf0, bench/production_eval.tsv)
builds its kernels into a library whose host code takes NVMatrix objects
and picks the template arguments at run time, and its files include the
whole library; its own target, sm_35, is not built by CUDA 13.  So the
kernels are run as a user of kpipe would check them: each kernel template
is cut out of its file (the template line to the closing brace, after the
macros it uses, DIVUP, MIN and MAX, defined as the library defines them,
and the helper functions it calls, cut out too), kpipe rewrites the cut
file as it rewrites the library's (the same loops: docs/production-eval.md;
the cut file references the runs' instantiations, so that kpipe's default
plans with their sizes and ptxas's answer as it does where the library's
host code instantiates the template), and bench/gpu_bench.py runs the cut original and
each rewrite at every size of a launch description of ours (below, two
instantiations each: one the library's host code uses, and one whose copy
loops or bounds checks have a remainder), element for element (tolerance
0), under compute-sanitizer memcheck, racecheck and synccheck, and timed at
`target`.  The templates are the eleven K-loops of the library that kpipe
rewrites (bench/production_eval.tsv): weight_acts.cu's four, img_acts.cu's
four, filter_acts.cu's filterActs_YxX_sparse2 and conv_util.cu's kCNorm2
and kRNormUndo2.  No cuda-convnet2 code is kept in this repository:
`prepare` writes the cut files into gpu-convnet/ (git-ignored).

  python3 bench/convnet_gpu.py prepare --kpipe build/kpipe --convnet DIR
      here: cut, rewrite (kpipe's default for sm_90, and --variant
      register, register-2bar and cp-async), write the launch descriptions
  python3 bench/convnet_gpu.py run [--out DIR]
      on the GPU machine (carry gpu-convnet): one gpu_bench.py run per
      kernel and instantiation, reports DIR/NAME.{md,json}, DIR/summary.md
      (--no-time: check and sanitize only; --parallel N: N runs at once;
      --build-root DIR with --compile-only builds every run at once, and a
      later --parallel 1 run with the same DIR times them one at a time)
"""
import argparse
import json
import os
import subprocess
import sys

from gpu_batch import add_build_args, build_flags, cut_function, run_all, selected

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, "gpu-convnet")
VARIANTS = ["register", "register-2bar", "cp-async"]
PRELUDE = ("// cut out of cuda-convnet2 by bench/convnet_gpu.py (not kept in kpipe's tree)\n"
           "#define DIVUP(x, y) (((x) + (y) - 1) / (y))\n"
           "#define MIN(a, b) ((a) < (b) ? (a) : (b))\n")
# what a kernel uses beyond the prelude, put before it in its cut file: a
# macro of cudaconv3/include/conv_util.cuh (defined as it defines it) or a
# function of the kernel's own file (cut out of it as the kernel is)
MACROS = {"MAX": "#define MAX(a, b) ((a) > (b) ? (a) : (b))\n"}
NEEDS = {"kCNorm2": ["MAX", "square"], "kRNormUndo2": ["MAX"], "filterActs_YxX_sparse2": ["MAX"]}

# the scalar arguments of the weight_acts kernels after (images, hidActs,
# targets): the library's names; `last` is partialSum or sumWidth
WA_INTS = ["numImages", "numFilters", "numModulesY", "numModulesX", "imgSizeY", "imgSizeX",
           "filterSize", "paddingStart", "moduleStride", "imgStride"]
VALUES = {"numImages": "I", "numFilters": "NF", "numModulesY": "M", "numModulesX": "M",
          "imgSizeY": "S", "imgSizeX": "S", "filterSize": "FS", "paddingStart": "0 - PAD",
          "moduleStride": "1", "imgStride": "I", "numImgColors": "NC", "numGroups": "1",
          "partialSum": "P", "sumWidth": "W", "imgSize": "S", "sizeX": "SX"}
# the image acts kernels' (hidActs, filters, targets, ...) scalars
IA_INTS = ["numModulesY", "numModulesX", "numImages", "numFilters", "filterSize", "imgSizeY",
           "imgSizeX", "paddingStart", "moduleStride"]


def tparams(targs):
    """The template arguments "<a, b, ...>" as a list of strings"""
    return [t.strip() for t in targs.strip().strip("<>").split(",")]


def buf(name, role, count):
    """A float buffer argument"""
    return {"name": name, "role": role, "type": "float", "count": count}


def ints(names, values=None):
    """int scalar arguments, valued by VALUES unless `values` names them"""
    values = dict(VALUES, **(values or {}))
    return [{"name": n, "role": "scalar", "type": "int", "value": values[n]} for n in names]


def floats(*pairs):
    """float scalar arguments (name, value)"""
    return [{"name": n, "role": "scalar", "type": "float", "value": v} for n, v in pairs]


SCALES = floats(("scaleTargets", "0.5"), ("scaleOutputs", "2.0"))


def launch(kernel, targs, block, grid, sz, args, flops):
    """A launch description: bit-identical results asked (tolerance 0)"""
    return {"kernel": kernel, "template_args": targs, "block": [str(b) for b in block] + ["1"],
            "grid": grid, "dynamic_smem": "0", "requires": [], "sizes": sz, "args": args,
            "tolerance": {"abs": 0, "rel": 0}, "work": {"flops": flops}, "eligible": True}


def three(**syms):
    """The sizes tiny, small and target: each symbol one value or a (tiny,
    small, target) triple"""
    return {n: {s: v[k] if isinstance(v, tuple) else v for s, v in syms.items()}
            for k, n in enumerate(("tiny", "small", "target"))}


def conv_sizes(**syms):
    """three() with the geometry of the convolution kernels: S x S images,
    FS x FS filters, PAD pixels of padding and modules of stride 1 from edge
    to edge (M = S + 2 PAD - FS + 1, as the library's asserts ask)"""
    sz = three(**dict({"S": (5, 6, 16), "FS": (3, 3, 5), "PAD": (1, 0, 2)}, **syms))
    for v in sz.values():
        v["M"] = v["S"] + 2 * v["PAD"] - v["FS"] + 1
    return sz


def out_role(scale):
    """targets: read when the kernel scales them, else written whole (poisoned
    before the launch: an element left unwritten shows)"""
    return "inout" if scale == "true" else "out"


def sizes(nf, nc, last):
    """tiny and small ragged in the image count (the copies' else branch),
    target big enough to time"""
    return {"tiny": {"I": 37, "NF": nf, "NC": nc, "M": 3, "S": 5, "FS": 3, "PAD": 0, last: 3 if last == "P" else 2},
            "small": {"I": 70, "NF": nf, "NC": nc, "M": 4, "S": 6, "FS": 3, "PAD": 1, last: 2 if last == "P" else 3},
            "target": {"I": 256, "NF": nf * 2, "NC": nc, "M": 8, "S": 10, "FS": 3, "PAD": 1, last: 4}}


def chunks(chunked):
    """the weight_acts kernels' output module chunks: sumWidth x sumWidth
    squares (the _sw kernels) or partialSum modules"""
    return "((M + W - 1) / W) * ((M + W - 1) / W)" if chunked else "(M * M / P)"


def wa_spec(kernel, targs, bx, by, fpt, cpt, names, last, nf, nc, chunked):
    """weight_acts.cu's mc_mf kernels: block (B_X, B_Y), grid x the filter
    blocks times the module chunks, y the color blocks, z the filter's
    pixels (the library's _weightActs)"""
    mods = chunks(chunked)
    args = [buf("images", "in", "NC * S * S * I"), buf("hidActs", "in", "NF * M * M * I"),
            buf("targets", "inout", "%s * NC * FS * FS * NF" % mods)]
    return launch(kernel, targs, [bx, by],
                  ["(NF / %d) * %s" % (bx * fpt, mods), "NC / %d" % (by * cpt), "FS * FS"],
                  sizes(nf, nc, last), args + ints(names) + SCALES,
                  "2.0 * NC * NF * FS * FS * M * M * I")


def c_kepler_spec(targs, bx, by, ppt, fpt, ncol, chunked=False, nf=32, target=None):
    """weight_acts.cu's conv_weight_acts_c_kepler and (chunked)
    conv_weight_acts_c_kepler_sw: block (B_X, B_Y), grid x the filter blocks
    times the module chunks, y the pixel blocks; `target` replaces symbols
    of the target size"""
    last = "W" if chunked else "P"
    mods = chunks(chunked)
    sz = sizes(nf, 0, last)
    sz["target"].update(target or {})
    for v in sz.values():
        v.pop("NC")
        if "false>" in targs:  # checkCaseBounds false: whole blocks of preloadCases images
            v["I"] = {37: 64, 70: 32}.get(v["I"], v["I"])
    args = [buf("images", "in", "%d * S * S * I" % ncol), buf("hidActs", "in", "NF * M * M * I"),
            buf("targets", "inout", "%s * %d * FS * FS * NF" % (mods, ncol))]
    return launch("conv_weight_acts_c_kepler" + ("_sw" if chunked else ""), targs, [bx, by],
                  ["(NF / %d) * %s" % (bx * fpt, mods),
                   "(FS * FS + %d) / %d" % (by * ppt - 1, by * ppt), "1"],
                  sz, args + ints(WA_INTS + ["sumWidth" if chunked else "partialSum"]) + SCALES,
                  "2.0 * %d * NF * FS * FS * M * M * I" % ncol)


def img_spec(targs):
    """img_acts.cu's conv_img_acts_manycolor <4, 32, imgsPerThread, 8, 16,
    ...>: block (32, 4), grid x the image blocks times the color blocks, y
    the image's pixels (the library's _imgActs)"""
    ipt = int(tparams(targs)[2])
    cases = 32 * ipt
    s = {"tiny": {"I": 130, "NC": 32, "NF": 32, "S": 5, "FS": 3, "M": 3},
         "small": {"I": 100, "NC": 64, "NF": 48, "S": 6, "FS": 3, "M": 4},
         "target": {"I": 256, "NC": 64, "NF": 64, "S": 12, "FS": 3, "M": 10}}
    args = [buf("hidActs", "in", "NF * M * M * I"),
            buf("filters", "in", "M * M * NC * FS * FS * NF"),
            buf("targets", "inout", "NC * S * S * I")]
    return launch("conv_img_acts_manycolor", targs, [32, 4],
                  ["((I + %d) / %d) * (NC / 32)" % (cases - 1, cases), "S * S", "1"], s,
                  args + ints(IA_INTS + ["numImgColors", "numGroups"], {"paddingStart": "0"}) + SCALES,
                  "2.0 * NC * NF * FS * FS * S * S * I")


def ia_spec(kernel, targs, block, cases, colors, sz):
    """img_acts.cu's img_acts_color (colors 0: all NC colors in one block),
    img_acts_mediumcolor (block 16 x 16, 4 x 4 pixels a block) and
    conv_img_acts_manycolor_kepler (a pixel a block): grid x the image
    blocks of `cases` images times the color blocks of `colors`, y the
    pixel regions; filters shared by the modules (conv) or one set a module;
    G groups of NC / G colors and NF / G filters (the library's _imgActs)"""
    t = tparams(targs)
    scale, conv = t[-3], t[-1] == "true"
    region = "S * S" if "manycolor" in kernel else "((S + 3) / 4) * ((S + 3) / 4)"
    imgs = "((I + %d) / %d)" % (cases - 1, cases)
    filters = "%sNC / G * FS * FS * NF" % ("" if conv else "M * M * ")
    args = [buf("hidActs", "in", "NF * M * M * I"), buf("filters", "in", filters),
            buf("targets", out_role(scale), "NC * S * S * I")]
    args += ints(IA_INTS + ([] if kernel == "img_acts_color" else ["numImgColors", "numGroups"]),
                 {"numGroups": "G"})
    return launch(kernel, targs, block,
                  [imgs + (" * (NC / %d)" % colors if colors else ""), region, "1"], sz,
                  args + SCALES, "2.0 * NC / G * NF * FS * FS * M * M * I")


def fa_spec(targs, conv, sz):
    """filter_acts.cu's filterActs_YxX_sparse2 <B_Y, B_X, imgsPerThread,
    filtersPerThread, colorCache, scale, checkImgBounds>: block (B_X, B_Y),
    grid x the image blocks, y the modules times the filter blocks; G groups
    of NC / G colors and NF / G filters; filters shared by the modules (conv,
    a bool: passed as int 1) or one set a module (the library's
    _filterActs)"""
    t = tparams(targs)
    by, bx, ipt, fpt = (int(v) for v in t[:4])
    filters = "%sNC / G * FS * FS * NF" % ("" if conv else "M * M * ")
    args = [buf("images", "in", "NC * S * S * I"), buf("filters", "in", filters),
            buf("targets", out_role(t[5]), "NF * M * M * I")]
    args += ints(["numImages", "numFilters", "imgSizeY", "imgSizeX", "filterSize", "paddingStart",
                  "moduleStride", "numModulesY", "numModulesX", "imgStride", "numImgColors",
                  "numGroups"], {"numGroups": "G"})
    args += SCALES + [{"name": "conv", "role": "scalar", "type": "int", "value": str(int(conv))}]
    return launch("filterActs_YxX_sparse2", targs, [bx, by],
                  ["(I + %d) / %d" % (bx * ipt - 1, bx * ipt), "M * M * NF / %d" % (by * fpt), "1"],
                  sz, args, "2.0 * NC / G * NF * FS * FS * M * M * I")


def norm_spec(kernel, targs, sz):
    """conv_util.cu's kCNorm2 <B_X, imgsPerThread, filtersPerThread,
    checkCaseBounds> and kRNormUndo2 <B_X, imgsPerThread, filtersPerThread,
    add, checkCaseBounds>: block (B_X, 16), a block 4 x 4 pixels of
    B_X * imgsPerThread images and filtersPerThread filters (the library's
    convContrastNorm and convResponseNormUndo): grid x the pixel columns
    times the image blocks, y the pixel rows times the filter blocks; every
    buffer (numFilters, imgPixels, numImages).  kRNormUndo2's denoms are
    the harness's values in [-1, 1], not the positive ones of the library:
    __powf of a negative one is NaN, which the comparison takes bit for bit"""
    t = [int(v) if v.isdigit() else v for v in tparams(targs)]
    bx, ipt, fpt = t[:3]
    n = "NF * S * S * I"
    if kernel == "kCNorm2":
        args = [buf("imgs", "in", n), buf("meanDiffs", "in", n), buf("denoms", "out", n),
                buf("target", "out", n)]
        tail = floats(("addScale", "0.125"), ("powScale", "0.75"), ("minDiv", "1.0"))
    else:
        args = [buf(b, "in", n) for b in ("outGrads", "denoms", "inputs", "acts")]
        args.append(buf("target", out_role(t[3]), n))
        tail = floats(("powScale", "0.75")) + SCALES
    return launch(kernel, targs, [bx, 16],
                  ["((S + 3) / 4) * ((I + %d) / %d)" % (bx * ipt - 1, bx * ipt),
                   "((S + 3) / 4) * (NF / %d)" % fpt, "1"], sz,
                  args + ints(["imgSize", "numFilters", "numImages", "sizeX"]) + tail,
                  "2.0 * NF * S * S * I * SX * SX")


def kernels():
    """(file in the checkout, kernel, spec name, spec)"""
    wa = "cudaconv3/src/weight_acts.cu"
    ia = "cudaconv3/src/img_acts.cu"
    cu = "cudaconv3/src/conv_util.cu"
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
    # _weightActs' 1-color (numFilters % 64) and 3-color (numFilters % 32,
    # images ragged, scaled) picks; sumWidth 2 and 3 leave ragged chunks,
    # the 25 pixels of a 5 x 5 filter a ragged pixel block; timed on 24 x 24
    # modules (a few blocks a chunk: the sizes of sizes() take microseconds)
    for name, targs, bx, by, ppt, fpt, ncol, nf, ni in [
            ("a", "<16, 16, 2, 2, 4, 32, 1, false, false>", 16, 16, 2, 4, 1, 64, 512),
            ("b", "<8, 16, 2, 2, 2, 16, 3, true, true>", 16, 8, 2, 2, 3, 32, 500)]:
        out.append((wa, "conv_weight_acts_c_kepler_sw", "c_kepler_sw_" + name,
                    c_kepler_spec(targs, bx, by, ppt, fpt, ncol, True, nf,
                                  dict(I=ni, M=24, S=26, FS=5, PAD=1))))
    for name, targs in [("a", "<4, 32, 4, 8, 16, false, true, true>"),
                        ("b", "<4, 32, 2, 8, 16, true, true, false>")]:
        out.append((ia, "conv_img_acts_manycolor", "manycolor_" + name, img_spec(targs)))
    # _imgActs' picks: a: numImages % 128, conv, not scaled; b: numImages %
    # 32 != 0 (imgsPerThread 2 or 1, checkCaseBounds), a filter set a
    # module, scaled, and (mediumcolor) 2 groups
    ragged = (37, 70, 200)
    for name, targs, kw in [
            ("a", "<8, 3, false, false, true>", dict(I=128, NC=3, NF=(16, 32, 128), G=1)),
            ("b", "<2, 3, true, true, false>", dict(I=ragged, NC=3, NF=(16, 32, 64), G=1))]:
        out.append((ia, "img_acts_color", "color_" + name,
                    ia_spec("img_acts_color", targs, [16, 16], 16 * int(tparams(targs)[0]), 0,
                            conv_sizes(**kw))))
    for name, targs, kw in [
            ("a", "<8, 4, false, false, true>", dict(I=128, NC=12, NF=(16, 32, 64), G=1)),
            ("b", "<2, 4, true, true, false>", dict(I=ragged, NC=8, NF=(32, 32, 64), G=2))]:
        out.append((ia, "img_acts_mediumcolor", "mediumcolor_" + name,
                    ia_spec("img_acts_mediumcolor", targs, [16, 16], 16 * int(tparams(targs)[0]),
                            4, conv_sizes(**kw))))
    for name, targs, kw in [
            ("a", "<8, 32, 2, 8, 32, 16, false, false, true>", dict(I=(64, 192, 192), NC=64, NF=32, G=1)),
            ("b", "<4, 32, 1, 12, 16, 16, true, true, false>", dict(I=ragged, NC=48, NF=(16, 32, 32), G=1))]:
        by, bx, ipt, cpt = (int(v) for v in tparams(targs)[:4])
        out.append((ia, "conv_img_acts_manycolor_kepler", "manycolor_kepler_" + name,
                    ia_spec("conv_img_acts_manycolor_kepler", targs, [bx, by], bx * ipt, by * cpt,
                            conv_sizes(**kw))))
    # _filterActs' picks: a: numFilterColors % 4 (not 8), numImages % 128,
    # numFilters % 64, conv; b: checkImgBounds (imgsPerThread 1), 8 colors a
    # group of 2, 32 filters a group, a filter set a module, scaled
    for name, targs, conv, kw in [
            ("a", "<4, 32, 4, 16, 4, false, false>", True, dict(I=128, NC=12, NF=(64, 64, 128), G=1)),
            ("b", "<4, 32, 1, 8, 8, true, true>", False, dict(I=ragged, NC=16, NF=64, G=2))]:
        out.append(("cudaconv3/src/filter_acts.cu", "filterActs_YxX_sparse2", "filteracts_" + name,
                    fa_spec(targs, conv, conv_sizes(**kw))))
    # convContrastNorm's and convResponseNormUndo's picks for sizeX >= 6: a:
    # numImages a multiple of the block's images; b: not (checkCaseBounds),
    # the image's side not a multiple of 4
    for kernel, name, targs, kw in [
            ("kCNorm2", "cnorm_a", "<8, 8, 4, false>", dict(I=(64, 128, 128), NF=(8, 16, 64))),
            ("kCNorm2", "cnorm_b", "<8, 8, 4, true>", dict(I=ragged, NF=(8, 16, 64))),
            ("kRNormUndo2", "rnormundo_a", "<16, 8, 4, false, false>", dict(I=128, NF=(16, 16, 64))),
            ("kRNormUndo2", "rnormundo_b", "<16, 2, 4, true, true>", dict(I=ragged, NF=(16, 16, 64)))]:
        out.append((cu, kernel, name, norm_spec(kernel, targs, three(S=(5, 10, 32), SX=(6, 7, 9), **kw))))
    return out


def cut(src, name):
    """The function `name` in src (a kernel template or a __device__
    helper): its head (for a template, the `template <...>` line or lines)
    to the brace that closes its body"""
    return cut_function(src, name, r"__(?:global|device)__[^\n{};(]*")[0]


def prepare(args):
    conv = os.path.abspath(args.convnet)
    for sub in ("cut", "out", "specs"):
        os.makedirs(os.path.join(WORK, sub), exist_ok=True)
    log = open(os.path.join(WORK, "rewrite.log"), "w")
    done = set()
    insts = {}
    for _, kernel, _, spec in kernels():
        insts.setdefault(kernel, []).append(spec["template_args"])
    for f, kernel, name, spec in kernels():
        cutf = os.path.join(WORK, "cut", kernel + ".cu")
        if kernel not in done:
            with open(os.path.join(conv, f)) as fp:
                src = fp.read()
            text = PRELUDE + "".join(MACROS[n] if n in MACROS else cut(src, n)
                                     for n in NEEDS.get(kernel, [])) + cut(src, kernel)
            # the instantiations the runs use, as the library's host code
            # makes them: kpipe then plans with their tile sizes, counts and
            # ptxas's answer, as it does in the library's file
            text += "".join("__attribute__((unused)) static void *const kp_bench_inst_%d = "
                            "(void *)&%s%s;\n" % (i, kernel, t)
                            for i, t in enumerate(insts[kernel]))
            with open(cutf, "w") as fp:
                fp.write(text)
            # the first run's description beside the cut file gives kpipe
            # the block (the library's host code sizes it by template
            # arguments, which kpipe does not evaluate); each kernel's first
            # run has its largest block
            with open(cutf[:-3] + ".launch.json", "w") as fp:
                json.dump(spec, fp, indent=1)
            for v in ["kpipe"] + VARIANTS:
                dst = os.path.join(WORK, "out", "%s.%s.cu" % (kernel, v))
                cmd = [args.kpipe, "rewrite", "--no-verify", cutf, "-o", dst]
                if v != "kpipe":
                    cmd[2:2] = ["--variant", v]
                r = subprocess.run(cmd, capture_output=True, text=True)
                log.write("$ %s\n%s\n" % (" ".join(cmd), r.stderr))
                # kpipe's default may leave the loop alone (no gain
                # predicted, or a register count no launch could take); its
                # version is then the original, which the run times as such
                left = v == "kpipe" and r.returncode == 0 and open(dst).read() == text
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
    jobs = []
    for f, kernel, name, spec in kernels():
        if not selected(args.only, name):
            continue
        variants = []
        for v in ["kpipe"] + VARIANTS:
            variants += ["--variant", "%s=%s" % (v, os.path.join(WORK, "out", "%s.%s.cu" % (kernel, v)))]
        cmd = [sys.executable, os.path.join(ROOT, "bench", "gpu_bench.py"),
               "--spec", os.path.join(WORK, "specs", name + ".launch.json"),
               "--baseline", os.path.join(WORK, "cut", kernel + ".cu")] + variants + [
               "--arch", args.arch, "--jobs", "4"] + (
               [] if args.no_sanitize else ["--sanitize", "--sanitize-size", "tiny"]) + (
               ["--no-time"] if args.no_time else []) + build_flags(args, name) + [
               "--json", os.path.join(out, name + ".json"),
               "--report", os.path.join(out, name + ".md"), "--quiet"]
        jobs.append(((name, kernel), cmd))
    return 1 if run_all(jobs, out, args.parallel, ["run", "kernel"]) else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("prepare")
    a.add_argument("--kpipe", default=os.path.join(ROOT, "build", "kpipe"))
    a.add_argument("--convnet", required=True, help="the cuda-convnet2 checkout")
    b = sub.add_parser("run")
    b.add_argument("--out", default=os.path.join(os.environ.get("OUT", WORK), "results"))
    b.add_argument("--arch", default="sm_90")
    b.add_argument("--only", help="the runs whose name contains this (or one of several, comma-separated)")
    b.add_argument("--no-sanitize", action="store_true", help="no compute-sanitizer runs")
    add_build_args(b)
    b.add_argument("--no-time", action="store_true", help="check and sanitize only")
    b.add_argument("--parallel", type=int, default=1, help="runs at once (default 1)")
    args = p.parse_args()
    if args.cmd == "prepare":
        prepare(args)
        return 0
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
