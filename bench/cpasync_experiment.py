#!/usr/bin/env python3
"""cpasync_experiment.py - a measurement, not a transform (issue 35): from
kpipe's cp.async output, write the same kernel with ONE thing of the
authors' cp.async form changed, as LeetCUDA's hgemm_mma_stage.cu writes it,
so bench/families.sh can time each beside kpipe's own version and the
author's kernel.

    python3 bench/cpasync_experiment.py MODE KPIPE_OUTPUT EXPERIMENT_OUTPUT [KERNEL]

MODE:
  l2      every `__pipeline_memcpy_async(DST, SRC, 16)` becomes inline PTX
          `cp.async.cg.shared.global.L2::128B` (the same .cg copy, plus the
          L2 prefetch hint); the shared address is still converted per copy
          (`__cvta_generic_to_shared`), the asm keeps a "memory" clobber.
  cg      the same inline PTX without the hint (`cp.async.cg.shared.global`):
          what `__pipeline_memcpy_async(.., 16)` already is, spelled as asm;
          a control for `l2`.
  sbase   `l2`, and each copy's shared address computed once before kpipe's
          pipelined block: `&ARR[STAGE]...` is `kp_sa_N + STAGE *
          sizeof(ARR[0])` with `kp_sa_N = __cvta_generic_to_shared(&ARR[0]...)`
          (only where every other index is declared before the block; the
          GPU run checks every output bit for bit).
  sbase-cg  `sbase` without the hint: the hoisted addresses alone.
  peel    bench/peel_experiment.py (2 stages only)
  mbN     `__launch_bounds__(THREADS, N)` on KERNEL: ptxas must fit N
          blocks per SM in registers (not a cp.async change: the
          occupancy the authors' 64-register kernel has)
  A+B     one after the other (l2+peel, sbase+peel, sbase+mb4, ...)
Anything kpipe did not write is an error (exit 1), never a guess.

    python3 bench/cpasync_experiment.py prepare GPU_FAMILIES_DIR [REGEX]

writes, for the cp.async families of bench/families.sh's folder (after its
PREPARE), each experiment of PLAN as one more version VERSION-MODE-x with
the one-line .cu that includes it, and the yardstick
yard-x-author-stages2-3blk.cu (the author's 2-stage mma kernel held to 3
blocks per SM); REGEX: only the FAMILY/NAME that match.
families_table.py leaves names ending in -x (and yardsticks not named
author*) out of "kpipe best" and "author's best"."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peel_experiment  # noqa: E402

HELPER = r'''
// (bench/cpasync_experiment.py, %(mode)s: a measurement, not kpipe's output)
static __device__ __forceinline__ void kp_cp_async16(unsigned kp_dst, const void *kp_src)
{
    asm volatile("cp.async.cg.shared.global%(hint)s [%%0], [%%1], 16;\n" ::"r"(kp_dst), "l"(kp_src) : "memory");
}
'''

COPY = re.compile(r"__pipeline_memcpy_async\(")


def split_args(s, start):
    """the arguments of the call whose '(' is at start-1; (args, end)"""
    depth, args, cur, i = 0, [], start, start
    while i < len(s):
        c = s[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                args.append(s[cur:i].strip())
                return args, i + 1
            depth -= 1
        elif c == "," and depth == 0:
            args.append(s[cur:i].strip())
            cur = i + 1
        i += 1
    raise ValueError("unbalanced call")


def stage_split(dst):
    """&M(ARR[STAGE]REST) or &ARR[STAGE]REST -> (prefix, ARR, STAGE, rest)"""
    m = re.match(r"&\s*(?:(?P<mac>\w+)\()?\s*(?P<arr>\w+)\[", dst)
    if not m:
        raise ValueError("copy destination '%s' is no &ARR[stage]..." % dst)
    i, depth = m.end(), 0
    while True:
        c = dst[i]
        if c == "[":
            depth += 1
        elif c == "]":
            if depth == 0:
                break
            depth -= 1
        i += 1
    return dst[:m.end()], m.group("arr"), dst[m.end():i], dst[i:]


def convert(mode, s):
    if "#include <cuda_pipeline.h>" not in s:
        raise ValueError("no cuda_pipeline.h include (not kpipe's cp.async output)")
    hint = "" if mode in ("cg", "sbase-cg") else ".L2::128B"
    out, pos, bases = [], 0, {}
    for m in COPY.finditer(s):
        line = s[s.rfind("\n", 0, m.start()) + 1:m.start()]
        if m.start() < pos or "//" in line or line.lstrip().startswith("*"):
            continue  # a comment's words
        args, end = split_args(s, m.end())
        if len(args) != 3 or args[2] != "16":
            raise ValueError("a copy of other than 16 bytes: %s" % ", ".join(args))
        dst, src = args[0], args[1]
        if mode.startswith("sbase"):
            pre, arr, stage, rest = stage_split(dst)
            base = pre + "0" + rest
            name = bases.setdefault(base, "kp_sa_%d" % len(bases))
            addr = "%s + (unsigned)(%s) * (unsigned)sizeof(%s[0])" % (name, stage, arr)
        else:
            addr = "(unsigned)__cvta_generic_to_shared(%s)" % dst
        out.append(s[pos:m.start()])
        out.append("kp_cp_async16(%s, %s)" % (addr, src))
        pos = end
    if not out:
        raise ValueError("no __pipeline_memcpy_async")
    out.append(s[pos:])
    s = "".join(out)
    s = s.replace("#include <cuda_pipeline.h>\n",
                  "#include <cuda_pipeline.h>\n" + HELPER % {"mode": mode, "hint": hint}, 1)
    if bases:
        m = re.search(r"\n([ \t]*)// kpipe: cp\.async[^\n]*\n", s)
        if not m:
            raise ValueError("no '// kpipe: cp.async' block to hoist the shared addresses before")
        decl = "".join("%sconst unsigned %s = (unsigned)__cvta_generic_to_shared(%s);\n" % (m.group(1), n, b)
                       for b, n in bases.items())
        s = s[:m.start() + 1] + decl + s[m.start() + 1:]
    return s


def min_blocks(s, kernel, n):
    """`__launch_bounds__(THREADS, n)` on the kernel's declaration: ptxas
    must fit n blocks of THREADS per SM in registers (spilling if need be)"""
    m = re.search(r"__global__\s+void\s+(?:__launch_bounds__\((?P<lb>[^)]*)\)\s+)?%s\s*\(" % re.escape(kernel), s)
    if not m:
        raise ValueError("no declaration of the kernel '%s'" % kernel)
    threads = m.group("lb").split(",")[0].strip() if m.group("lb") else "256"
    new = "__global__ void __launch_bounds__(%s, %d) %s(" % (threads, n, kernel)
    return s[:m.start()] + new + s[m.end():]


def experiment(mode, src, kernel):
    """MODE[+MODE...]: l2, cg, sbase, sbase-cg, peel, mbN in that order"""
    for part in mode.split("+"):
        if part in ("l2", "cg", "sbase", "sbase-cg"):
            src = convert(part, src)
        elif part == "peel":
            src = peel_experiment.peel_cp_async(src)
        elif re.fullmatch(r"mb[1-9]", part):
            src = min_blocks(src, kernel, int(part[2:]))
        else:
            raise ValueError("unknown experiment '%s'" % part)
    return src


# family folder -> (kernel, {kpipe version: experiments})
PLAN = {
    "leetcuda_hgemm_mma2x4_warp4x4": ("hgemm_mma_m16n8k16_mma2x4_warp4x4_kernel", {
        "cp-async": ["cg", "l2", "sbase-cg", "sbase", "peel", "l2+peel", "sbase+peel", "mb4", "l2+mb4",
                     "peel+mb4"],
        "cp-async-s3": ["l2", "sbase", "mb4"],
        "cp-async-s4": ["l2", "sbase-cg", "sbase", "mb4", "sbase+mb4"],
    }),
    "nicolaswilde_v1": ("myHGEMMAlignedV1", {
        "cp-async": ["l2", "sbase", "mb3"],
        "cp-async-s3": ["l2", "sbase"],
        "cp-async-s4": ["l2", "sbase"],
    }),
    "leetcuda_hgemm_wmma_warp2x4": ("hgemm_wmma_m16n16k16_mma4x2_warp2x4_kernel", {
        "cp-async": ["l2", "sbase"],
        "cp-async-s3-pad": ["l2", "sbase", "mb4"],
        "cp-async-s4-pad": ["l2", "sbase", "mb4"],
    }),
}


def limited_yard(work):
    """the author's 2-stage mma kernel held to 3 blocks per SM, as kpipe's
    72-register rewrites are: 40 KB of dynamic shared memory it does not
    use (20,992 + 40,960 B a block: 3 fit in the H100's 228 KB, 4 do not)"""
    d = os.path.join(work, "leetcuda_hgemm_mma2x4_warp4x4")
    s = open(os.path.join(d, "yard-author-stages2.cu")).read()
    k = "kp_mstage::hgemm_mma_m16n8k16_mma2x4_warp4x4_stages_kernel<16, 8, 16, 2, 4, 4, 4, 8, 8, 2, false>"
    if k not in s or "dim3(256), 0, s>>>" not in s:
        raise ValueError("yard-author-stages2.cu is not the launch bench/families.sh writes")
    s = s.replace("{\n    " + k, "{\n    cudaFuncSetAttribute(%s, cudaFuncAttributeMaxDynamicSharedMemorySize, 40960);\n    %s"
                  % (k, k), 1).replace("dim3(256), 0, s>>>", "dim3(256), 40960, s>>>")
    open(os.path.join(d, "yard-x-author-stages2-3blk.cu"), "w").write(s)
    print("leetcuda_hgemm_mma2x4_warp4x4/yard-x-author-stages2-3blk")


def prepare(work, only=None):
    if not only or re.search(only, "leetcuda_hgemm_mma2x4_warp4x4/yard-x-author-stages2-3blk"):
        limited_yard(work)
    for fam, (kernel, versions) in PLAN.items():
        for v, modes in versions.items():
            d = os.path.join(work, fam, v)
            (name,) = os.listdir(d)
            src = open(os.path.join(d, name)).read()
            for mode in modes:
                x = "%s-%s-x" % (v, mode.replace("+", "-"))
                if only and not re.search(only, fam + "/" + x):
                    continue
                out = experiment(mode, src, kernel)
                os.makedirs(os.path.join(work, fam, x), exist_ok=True)
                open(os.path.join(work, fam, x, name), "w").write(out)
                open(os.path.join(work, fam, x + ".cu"), "w").write('#include "%s/%s"\n' % (x, name))
                print("%s/%s" % (fam, x))


def main():
    if len(sys.argv) in (3, 4) and sys.argv[1] == "prepare":
        try:
            prepare(sys.argv[2], sys.argv[3] if len(sys.argv) == 4 else None)
        except ValueError as e:
            sys.exit("cpasync_experiment: %s" % e)
        return
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    src = open(sys.argv[2]).read()
    kernel = sys.argv[4] if len(sys.argv) == 5 else None
    if re.search(r"\bmb[1-9]\b", sys.argv[1]) and not kernel:
        sys.exit("cpasync_experiment: mbN needs the kernel's name (KERNEL)")
    try:
        out = experiment(sys.argv[1], src, kernel)
    except ValueError as e:
        sys.exit("cpasync_experiment: %s: %s" % (sys.argv[2], e))
    open(sys.argv[3], "w").write(out)


if __name__ == "__main__":
    main()
