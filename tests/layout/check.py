#!/usr/bin/env python3
"""check.py - the architecture rules of docs/design.md, checked on the tree.

  * every C file lives in a layer folder (src/<layer>/ or transforms/, or
    one folder inside it such as src/analysis/rules/), in
    the order of KPIPE_LAYERS in CMakeLists.txt;
  * a file includes only headers of its own layer or of layers below it
    (the build enforces this too: a layer sees only the include folders
    below it);
  * no include cycle between modules (a module is NAME.c + NAME.h);
  * only the frontend includes clang-c/;
  * transform names appear, quoted, only in transforms/ and in the auto
    rule (src/plan/auto.c), which weighs named transforms by measurements;
  * no function is longer than 150 lines, except the table-driven ones
    listed in ALLOWED_LONG;
  * no call circle between modules (calls.py);
  * the links into bench/results resolve, and no raw output is kept there
    (doc_links.py).

Prints one line per violation and "N checks, N violations"; exit 1 on any.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAX_LINES = 150
ALLOWED_LONG = set()  # (file, function) pairs a reviewer accepted


def layers():
    text = open(os.path.join(ROOT, "CMakeLists.txt")).read()
    m = re.search(r"set\(KPIPE_LAYERS ([a-z ]+)\)", text)
    return m.group(1).split()


def layer_dir(layer):
    return os.path.join(ROOT, "transforms" if layer == "transforms" else os.path.join("src", layer))


def c_files():
    out = []
    for top in ("src", "transforms"):
        for d, _, fs in os.walk(os.path.join(ROOT, top)):
            out += [os.path.join(d, f) for f in fs if f.endswith((".c", ".h"))]
    return sorted(out)


def functions(path):
    """(name, first line, length) of each function defined at file scope."""
    lines = open(path, errors="replace").read().split("\n")
    res, i = [], 0
    while i < len(lines):
        if lines[i] == "{" and i > 0:
            j = i - 1
            while j > 0 and not re.match(r"^[A-Za-z_]", lines[j]):
                j -= 1
            m = re.search(r"([A-Za-z_][A-Za-z_0-9]*)\s*\(", lines[j])
            k = i
            while k < len(lines) and lines[k] != "}":
                k += 1
            if m:
                res.append((m.group(1), j + 1, k - j + 1))
            i = k
        i += 1
    return res


def main():
    order = layers()
    where = {}
    bad = []
    checks = 0
    for f in c_files():
        rel = os.path.relpath(f, ROOT)
        # a layer's folder, or one folder inside it (src/analysis/rules/)
        lay = next((l for l in order if os.path.dirname(f) == layer_dir(l)
                    or os.path.dirname(os.path.dirname(f)) == layer_dir(l)), None)
        checks += 1
        if lay is None:
            bad.append("%s: not in a layer folder (%s)" % (rel, ", ".join(order)))
            continue
        where[os.path.splitext(os.path.basename(f))[0]] = lay
    names = set()
    for f in c_files():
        if os.path.basename(os.path.dirname(f)) == "transforms" or f.startswith(layer_dir("transforms")):
            # a descriptor's name: its first string (positional or .name = "...")
            for body in re.findall(r"const kp_transform kp_transform_\w+ = \{(.*?)\n\};",
                                   open(f).read(), flags=re.S):
                m = re.search(r'"([a-z0-9-]+)"', body)
                if m:
                    names.add(m.group(1))
    graph = {}
    for f in c_files():
        rel = os.path.relpath(f, ROOT)
        mod = os.path.splitext(os.path.basename(f))[0]
        lay = where.get(mod)
        text = open(f, errors="replace").read()
        for inc in re.findall(r'#include "([A-Za-z_0-9]+)\.h"', text):
            checks += 1
            if inc not in where:
                continue  # generated (kpipe_harness_src.h)
            if order.index(where[inc]) > order.index(lay):
                bad.append("%s: includes %s.h of the %s layer, above %s" % (rel, inc, where[inc], lay))
            if inc != mod:
                graph.setdefault(mod, set()).add(inc)
        checks += 1
        if "clang-c/" in text and lay != "frontend":
            bad.append("%s: includes clang-c/ outside the frontend" % rel)
        if lay != "transforms" and rel != os.path.join("src", "plan", "auto.c"):
            code = re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)
            for n in sorted(names):
                checks += 1
                if '"%s"' % n in code:
                    bad.append('%s: names the transform "%s" (only transforms/ may)' % (rel, n))
        if f.endswith(".c"):
            for name, line, n in functions(f):
                checks += 1
                if n > MAX_LINES and (rel, name) not in ALLOWED_LONG:
                    bad.append("%s:%d: %s() is %d lines (at most %d)" % (rel, line, name, n, MAX_LINES))
    # cycles between modules
    state = {}

    def visit(u, stack):
        state[u] = 1
        stack.append(u)
        for v in sorted(graph.get(u, ())):
            if state.get(v) == 1:
                bad.append("include cycle: " + " -> ".join(stack[stack.index(v):] + [v]))
            elif not state.get(v):
                visit(v, stack)
        stack.pop()
        state[u] = 2

    for u in sorted(graph):
        checks += 1
        if not state.get(u):
            visit(u, [])
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import calls
    import doc_links
    checks += 2
    if calls.main():
        bad.append("call circles: see the lines above (tests/layout/calls.py)")
    if doc_links.main():
        bad.append("bench/results: see the lines above (tests/layout/doc_links.py)")
    if not names:
        bad.append("no transform descriptor found in transforms/ (const kp_transform kp_transform_X = {...})")
    for b in bad:
        print(b)
    print("%d checks, %d violations" % (checks, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
