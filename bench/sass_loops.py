#!/usr/bin/env python3
"""sass_loops.py - the loops of a kernel's machine code, counted: for every
backward branch of `cuobjdump -sass` (or `nvdisasm`) output, the
instructions between its target and the branch, by kind (tensor-core math,
ldmatrix, LDGSTS = cp.async, barriers and waits, special-register and
constant loads, local memory, the rest).  How issue 35's comparison of
kpipe's cp.async loops with the authors' was made (docs/benchmarks.md).

    cuobjdump -sass KERNEL.cubin > KERNEL.sass
    python3 bench/sass_loops.py KERNEL.sass [FUNCTION_SUBSTRING]

Prints one line per loop: function, address range, instruction count and
the counts by kind; LDGSTS lines also name their form (.BYPASS is .cg,
.LTC128B the L2::128B prefetch)."""
import collections
import re
import sys

INS = re.compile(r"\s+/\*([0-9a-f]{4,})\*/\s+([^;]*);")
FUNC = re.compile(r"\s*Function : (\S+)")
KINDS = (("HMMA", "math"), ("IMMA", "math"), ("HGMMA", "math"), ("FFMA", "ffma"), ("LDSM", "ldmatrix"),
         ("LDGSTS", "cp.async"), ("BAR", "barrier"), ("DEPBAR", "wait"), ("LDGDEPBAR", "commit"),
         ("S2R", "sreg/const"), ("S2UR", "sreg/const"), ("LDC", "sreg/const"), ("LDL", "local"),
         ("STL", "local"), ("LDS", "lds"), ("STS", "sts"), ("LDG", "ldg"), ("BRA", "branch"),
         ("NOP", "nop"))


def kind(text):
    op = text.split()[1] if text.startswith("@") else text.split()[0]
    if text.startswith("@!PT "):
        return "nop"  # a never-executed placeholder (@!PT LDS RZ, [RZ])
    for prefix, k in KINDS:
        if op == prefix or op.startswith(prefix + "."):
            return k
    return "other"


def functions(lines):
    name, ins = None, []
    for line in lines:
        m = FUNC.match(line)
        if m:
            if name:
                yield name, ins
            name, ins = m.group(1), []
            continue
        m = INS.match(line)
        if m and name:
            ins.append((int(m.group(1), 16), m.group(2).strip()))
    if name:
        yield name, ins


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    want = sys.argv[2] if len(sys.argv) == 3 else ""
    for name, ins in functions(open(sys.argv[1])):
        if want not in name:
            continue
        for addr, text in ins:
            m = re.search(r"\bBRA (?:`\(\.L_x_\d+\) )?(0x[0-9a-f]+)", text)
            if not m or int(m.group(1), 16) >= addr:
                continue
            lo = int(m.group(1), 16)
            body = [t for a, t in ins if lo <= a <= addr]
            c = collections.Counter(kind(t) for t in body)
            forms = sorted({t.split()[1 if t.startswith("@") else 0] for t in body if kind(t) == "cp.async"})
            print("%s %#x-%#x: %d instructions; %s%s" % (
                name, lo, addr, len(body), ", ".join("%s %d" % kv for kv in sorted(c.items())),
                ("; " + " ".join(forms)) if forms else ""))


if __name__ == "__main__":
    main()
