#!/usr/bin/env python3
"""cpasync_experiment.py - a measurement, not a transform (issue 35): from
kpipe's cp.async output, write the same kernel with ONE thing of the
authors' cp.async form changed, as LeetCUDA's hgemm_mma_stage.cu writes it,
so bench/families.sh can time each beside kpipe's own version and the
author's kernel.

    python3 bench/cpasync_experiment.py MODE KPIPE_OUTPUT EXPERIMENT_OUTPUT

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
Anything kpipe did not write is an error (exit 1), never a guess.

    python3 bench/cpasync_experiment.py prepare GPU_FAMILIES_DIR

writes, for the cp.async families of bench/families.sh's folder (after its
PREPARE), each experiment as one more version VERSION-MODE-x (and, for the
2-stage form, -peel-x: bench/peel_experiment.py on top), with the one-line
.cu that includes it; families_table.py leaves names ending in -x out of
"kpipe best"."""
import os
import re
import sys

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
        if m.start() < pos:
            continue
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


# family folder -> {kpipe version: experiment modes}; "+peel": also peeled
PLAN = {
    "leetcuda_hgemm_mma2x4_warp4x4": {
        "cp-async": ["cg", "l2", "sbase-cg", "sbase", "l2+peel", "sbase+peel", "+peel"],
        "cp-async-s3": ["l2", "sbase"],
        "cp-async-s4": ["l2", "sbase-cg", "sbase"],
    },
    "nicolaswilde_v1": {v: ["l2", "sbase"] for v in ("cp-async", "cp-async-s3", "cp-async-s4")},
    "leetcuda_hgemm_wmma_warp2x4": {v: ["l2", "sbase"] for v in ("cp-async", "cp-async-s3-pad", "cp-async-s4-pad")},
}


def prepare(work):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import peel_experiment
    for fam, versions in PLAN.items():
        for v, modes in versions.items():
            d = os.path.join(work, fam, v)
            (name,) = os.listdir(d)
            src = open(os.path.join(d, name)).read()
            for mode in modes:
                m, peel = mode.split("+")[0], mode.endswith("+peel")
                out = convert(m, src) if m else src
                if peel:
                    out = peel_experiment.peel_cp_async(out)
                x = "%s%s%s-x" % (v, "-" + m if m else "", "-peel" if peel else "")
                os.makedirs(os.path.join(work, fam, x), exist_ok=True)
                open(os.path.join(work, fam, x, name), "w").write(out)
                open(os.path.join(work, fam, x + ".cu"), "w").write('#include "%s/%s"\n' % (x, name))
                print("%s/%s" % (fam, x))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "prepare":
        try:
            prepare(sys.argv[2])
        except ValueError as e:
            sys.exit("cpasync_experiment: %s" % e)
        return
    if len(sys.argv) != 4 or sys.argv[1] not in ("l2", "cg", "sbase", "sbase-cg"):
        sys.exit(__doc__)
    src = open(sys.argv[2]).read()
    try:
        out = convert(sys.argv[1], src)
    except ValueError as e:
        sys.exit("cpasync_experiment: %s: %s" % (sys.argv[2], e))
    open(sys.argv[3], "w").write(out)


if __name__ == "__main__":
    main()
