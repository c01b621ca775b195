#!/usr/bin/env python3
"""doc_links.py - the links into bench/results resolve.

The raw outputs of past GPU runs live in an archive
(bench/results/raw-outputs-*.tar.xz, bench/README.md), the summaries stay
in the tree: every relative Markdown link of README.md, docs/*.md and
bench/**/*.md that points into bench/results (a summary, a JSON record, a
log) must name a file or folder that exists, and so must every relative
link of a summary under bench/results and every path these pages spell
from the top of the tree (`bench/results/2026-12-01-h200-tune/`; a
placeholder such as NAME.txt or a * pattern aside).  And no raw output
comes back into bench/results as a file: a rewritten kernel (.cu, .cuh),
a shared object or an executable (they go into the archive, or nowhere:
the commit a report names makes them again).  check.py runs this with the
architecture rules; `python3 tests/layout/doc_links.py` runs it alone.

Prints one line per broken link and "N links and files, N broken"; exit 1 on any.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(ROOT, "bench", "results")
# [text](target) and [label]: target; an anchor or a title after the path is dropped
LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|^\s*\[[^\]]+\]:\s*<?(\S+?)>?\s*$", re.M)


def markdown_files():
    out = [os.path.join(ROOT, "README.md")]
    for top in ("docs", "bench"):
        for d, _, fs in os.walk(os.path.join(ROOT, top)):
            out += [os.path.join(d, f) for f in fs if f.endswith(".md")]
    return sorted(p for p in out if os.path.isfile(p))


def links(path):
    text = open(path, errors="replace").read()
    # links inside code spans and fenced blocks are text, not links
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    for m in LINK.finditer(text):
        t = m.group(1) or m.group(2)
        if re.match(r"[a-z][a-z0-9+.-]*:", t) or t.startswith("#"):
            continue  # a URL, a mail address, an anchor of the same page
        yield t.split("#", 1)[0]


# a path spelled from the top of the tree, in text or a code span
SPELLED = re.compile(r"(?<![A-Za-z0-9_./-])bench/results/[A-Za-z0-9_.*/-]*")


def spelled(path):
    for m in SPELLED.finditer(open(path, errors="replace").read()):
        t = m.group(0).rstrip(".")
        if not re.search(r"[A-Z]{3,}|\*", t):
            yield t


def main():
    bad = []
    n = 0
    for md in markdown_files():
        for t in spelled(md):
            n += 1
            if not os.path.exists(os.path.join(ROOT, t)):
                bad.append("%s: names %s: no such file" % (os.path.relpath(md, ROOT), t))
    for md in markdown_files():
        inside = os.path.commonpath([md, RESULTS]) == RESULTS
        for t in links(md):
            if not t:
                continue
            dest = os.path.normpath(os.path.join(os.path.dirname(md), t))
            if not inside and os.path.commonpath([dest, RESULTS]) != RESULTS:
                continue
            n += 1
            if not os.path.exists(dest):
                bad.append("%s: link to %s: no such file" % (os.path.relpath(md, ROOT), t))
    for d, _, fs in os.walk(RESULTS):
        for f in fs:
            p = os.path.join(d, f)
            n += 1
            with open(p, "rb") as fh:
                elf = fh.read(4) == b"\x7fELF"
            if elf or os.path.splitext(f)[1] in (".cu", ".cuh", ".so", ".o"):
                bad.append("%s: a raw output in the tree (archive it: bench/README.md)" %
                           os.path.relpath(p, ROOT))
    for b in bad:
        print(b)
    print("%d links and files, %d broken" % (n, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
