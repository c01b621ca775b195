#!/usr/bin/env python3
"""calls.py - no call circle between modules.

A module is NAME.c (with NAME.h), or the files that share an internal
header NAME_int.h, which only files of one layer include (analyze_int.h,
parse_int.h, batch_int.h, gpu_run_int.h): one module split over files.  ALLOWED_CIRCLES lists the circles a reviewer
accepted, each with its reason.  File A calls file B when A names a
kp_ function that B defines (at the start of a line, with a body); a
circle is a set of modules each reaching the others by such calls, as
plan.c and auto.c did (plan.c called kp_plan_auto, auto.c called plan.c's
kp_plan_fits).  check.py runs this with the architecture rules;
`python3 tests/layout/calls.py` runs it alone.

Prints one line per circle and "N modules, N circles"; exit 1 on any.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# a kp_ function's definition: at the start of a line, with a body
DEF = re.compile(r"^[A-Za-z_][^\n;{}()#=]*?\b(kp_\w+)\s*\([^;{]*\)\s*\{", re.M)


# circles a reviewer accepted: the modules, sorted, and why
ALLOWED_CIRCLES = {
    ("analyze_int.h", "copies"):
        "the analysis's core (analyze_int.h) runs copies.c, which uses its constant "
        "evaluator (kp_eval, analyze_eval.c); moving the evaluator out of the core "
        "is #32's next step",
    ("canon", "canon_carve", "canon_fuse"):
        "the canon pass's shapes, one module split over three files that share "
        "canon_shapes.h (canon.c finds the shapes, the other two write two of them)",
}


def sources():
    out = []
    for top in ("src", "transforms"):
        for d, _, fs in os.walk(os.path.join(ROOT, top)):
            out += [os.path.join(d, f) for f in fs if f.endswith((".c", ".h"))]
    return sorted(out)


def code(path):
    t = open(path, errors="replace").read()
    t = re.sub(r"/\*.*?\*/|//[^\n]*", " ", t, flags=re.S)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', t)


def layer(path):
    """src/<layer> or transforms: a layer's folder with its subfolders."""
    parts = os.path.relpath(path, ROOT).split(os.sep)
    return os.path.join(*parts[:2]) if parts[0] == "src" else parts[0]


def layer(path):
    """src/<layer> or transforms: a layer's folder with its subfolders."""
    parts = os.path.relpath(path, ROOT).split(os.sep)
    return os.path.join(*parts[:2]) if parts[0] == "src" else parts[0]


def modules(files):
    """file -> module: the internal header it includes (NAME_int.h, with no
    NAME_int.c, that only files of one layer include), else its stem (with
    its layer: src/base/targets.c is not src/plan/targets.c)."""
    cs = [f for f in files if f.endswith(".c")]
    stems = {os.path.splitext(os.path.basename(f))[0] for f in cs}
    users = {}
    for f in cs:
        for inc in re.findall(r'#include "([A-Za-z_0-9]+\.h)"', open(f, errors="replace").read()):
            users.setdefault(inc, []).append(f)
    own = {f: os.path.splitext(os.path.basename(f))[0] for f in cs}
    mod = dict(own)
    for h, us in sorted(users.items()):
        if (not h.endswith("_int.h") or os.path.splitext(h)[0] in stems or len(us) < 2
                or len({layer(u) for u in us}) != 1):
            continue
        for u in us:
            if mod[u] == own[u]:
                mod[u] = h
    for f in cs:
        if mod[f] == own[f] and sum(1 for g in cs if own[g] == own[f]) > 1:
            mod[f] = os.path.join(layer(f), own[f])
    return mod


def main():
    files = sources()
    mod = modules(files)
    text = {f: code(f) for f in mod}
    defs = {}
    for f, t in text.items():
        for name in DEF.findall(t):
            defs.setdefault(name, f)
    graph = {}
    for f, t in text.items():
        for name in set(re.findall(r"\b(kp_\w+)\s*\(", t)):
            d = defs.get(name)
            if d and mod[d] != mod[f]:
                graph.setdefault(mod[f], set()).add(mod[d])
    # strongly connected components (Tarjan), iteratively
    index, low, onstack, stack, circles = {}, {}, set(), [], []
    counter = [0]

    def strong(v):
        work = [(v, iter(sorted(graph.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        onstack.add(v)
        while work:
            u, it = work[-1]
            nxt = next(it, None)
            if nxt is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[u])
                if low[u] == index[u]:
                    comp = []
                    while True:
                        w = stack.pop()
                        onstack.discard(w)
                        comp.append(w)
                        if w == u:
                            break
                    if len(comp) > 1:
                        circles.append(sorted(comp))
            elif nxt not in index:
                index[nxt] = low[nxt] = counter[0]
                counter[0] += 1
                stack.append(nxt)
                onstack.add(nxt)
                work.append((nxt, iter(sorted(graph.get(nxt, ())))))
            elif nxt in onstack:
                low[u] = min(low[u], index[nxt])

    for v in sorted(set(mod.values())):
        if v not in index:
            strong(v)
    circles = [c for c in circles if tuple(c) not in ALLOWED_CIRCLES]
    for c in circles:
        print("call circle between modules: " + ", ".join(c))
    print("%d modules, %d circles" % (len(set(mod.values())), len(circles)))
    return 1 if circles else 0


if __name__ == "__main__":
    sys.exit(main())
