#!/usr/bin/env python3
"""peel_experiment.py - a measurement, not a transform: from kpipe's
register-staging or 2-stage cp.async output, write the same loop with its
last iteration peeled, as some authors write their hand-pipelined kernels
(LeetCUDA's *_dbuf and *_stages kernels): the main loop runs while a next
tile exists and loads it without a guard, and the last tile is computed
after the loop.
bench/families.sh times it beside kpipe's own versions (issue 35: is the
guard on the next tile's loads what the authors' 2% are?).

    python3 bench/peel_experiment.py REGISTER_OUTPUT PEELED_OUTPUT

The text shapes are those kpipe's transforms write: register staging
(`const bool kp_has_next = ...;`, `if (kp_has_next) { loads }`, compute,
`{ stores }`, `__syncthreads(); kp_stage ^= 1;`) and cp.async with two
stages (`__pipeline_wait_prior(0); __syncthreads(); if (NEXT) { copies }
__pipeline_commit();`, compute, `kp_stage ^= 1;`); anything else is an
error (exit 1), never a guess."""
import re
import sys


def peel(s):
    m = re.search(r"\n(?P<ind>[ \t]*)for \(; (?P<cond>[^;]*); (?P<step>[^)]*)\) \{\n"
                  r"(?P<i2>[ \t]*)const bool kp_has_next = (?P<next>[^;]*);\n", s)
    if not m:
        raise ValueError("no register-staging main loop (kp_has_next) found")
    ind, i2 = m.group("ind"), m.group("i2")
    guard = s.index(i2 + "if (kp_has_next) {\n", m.end())
    loads_end = s.index("\n" + i2 + "}\n", guard)
    loads = s[guard + len(i2 + "if (kp_has_next) {\n"):loads_end]
    tail = i2 + "__syncthreads();\n" + i2 + "kp_stage ^= 1;\n" + ind + "}\n"
    end = s.index(tail, loads_end)
    store = s.rindex("\n" + i2 + "{\n", loads_end, end) + 1
    compute = s[loads_end + len("\n" + i2 + "}\n"):store]
    body = s[m.end():guard]  # comments between the flag and the guard
    new = ("\n%s// (peeled by bench/peel_experiment.py for a measurement)\n"
           "%sfor (; %s; %s) {\n%s%s{\n%s\n%s}\n%s%s%s"
           "%sif (%s) {\n%s%s}\n") % (
        ind, ind, m.group("next"), m.group("step"), body, i2, loads, i2, compute,
        s[store:end], tail, ind, m.group("cond"), compute, ind)
    return s[:m.start()] + new + s[end + len(tail):]


def peel_cp_async(s):
    m = re.search(r"\n(?P<ind>[ \t]*)for \(; (?P<cond>[^;]*); (?P<step>[^)]*)\) \{\n"
                  r"(?P<i2>[ \t]*)__pipeline_wait_prior\(0\);\n(?P=i2)__syncthreads\(\);\n"
                  r"(?P=i2)if \((?P<next>.*)\) \{\n", s)
    if not m:
        raise ValueError("no 2-stage cp.async main loop found")
    ind, i2 = m.group("ind"), m.group("i2")
    loads_end = s.index("\n" + i2 + "}\n" + i2 + "__pipeline_commit();\n", m.end())
    loads = s[m.end():loads_end]
    after = loads_end + len("\n" + i2 + "}\n" + i2 + "__pipeline_commit();\n")
    tail = i2 + "kp_stage ^= 1;\n" + ind + "}\n"
    end = s.index(tail, after)
    compute = s[after:end]
    wait = i2 + "__pipeline_wait_prior(0);\n" + i2 + "__syncthreads();\n"
    new = ("\n%s// (peeled by bench/peel_experiment.py for a measurement)\n"
           "%sfor (; %s; %s) {\n%s%s{\n%s\n%s}\n%s__pipeline_commit();\n%s%s"
           "%sif (%s) {\n%s%s%s}\n") % (
        ind, ind, m.group("next"), m.group("step"), wait, i2, loads, i2, i2, compute, tail,
        ind, m.group("cond"), wait, compute, ind)
    return s[:m.start()] + new + s[end + len(tail):]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src = open(sys.argv[1]).read()
    try:
        out = peel_cp_async(src) if "__pipeline_wait_prior(0);" in src else peel(src)
    except ValueError as e:
        sys.exit("peel_experiment: %s: %s" % (sys.argv[1], e))
    open(sys.argv[2], "w").write(out)


if __name__ == "__main__":
    main()
