#!/usr/bin/env python3
"""peel_experiment.py - a measurement, not a transform: from kpipe's
register-staging output (two buffers), write the same loop with its last
iteration peeled, as some authors write their hand-pipelined kernels
(LeetCUDA's *_dbuf kernels): the main loop runs while a next tile exists
and loads it without a guard, and the last tile is computed after the loop.
bench/families.sh times it beside kpipe's own versions (issue 35: is the
guard on the next tile's loads what the authors' 2% are?).

    python3 bench/peel_experiment.py REGISTER_OUTPUT PEELED_OUTPUT

The text shapes are those kpipe's register transform writes
(`const bool kp_has_next = ...;`, `if (kp_has_next) { loads }`, compute,
`{ stores }`, `__syncthreads(); kp_stage ^= 1;`); anything else is an
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


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src = open(sys.argv[1]).read()
    try:
        out = peel(src)
    except ValueError as e:
        sys.exit("peel_experiment: %s: %s" % (sys.argv[1], e))
    open(sys.argv[2], "w").write(out)


if __name__ == "__main__":
    main()
