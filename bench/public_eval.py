#!/usr/bin/env python3
"""bench/public_eval.py - what kpipe does with public CUDA code, as it comes.

For every runner file of the manifest (bench/public_eval.tsv), runs
`kpipe analyze --format json` with no flags but those the manifest gives
(the include directories the project's own build passes), and prints one
row per candidate K-loop: the repository key, the loop's file and line (in
the checkout), the kernel, and the verdict:

  rewritten: VARIANT[, N stages]   the plan kpipe would write (with "(sm_80 and
                                  newer; older targets as written)" where only
                                  the newer targets of a build get it)
  rewritten: ... (helper inlined)  the same after rewrite's inline pass (analyze
                                  shows what it does: the loop's "inline"; ", load
                                  phase canonicalized" when its trial also wrote
                                  the inlined copies in the canon pass's forms)
  rewritten: ... (load phase canonicalized)  the same after rewrite's canon pass
                                  (the loop's "canon")
  left alone by auto: kpipe-no-predicted-gain[ (load phase canonicalized)]
                                  legal, but --variant auto predicts no gain
                                  and writes the loop as it is (--variant NAME
                                  pipelines it); counted apart from "rewritten"
  already pipelined               kpipe-already-pipelined
  loop around K-loops (line N)    no K-loop itself: the one at line N is a row
  refused: ID, ID ...             the refusal ids, in kpipe's order
  file not analysed: ...          kpipe's error for the whole file

No code of the projects is kept in this repository: fetch them yourself
(e.g. `git clone`), unpack each where KEY names it, and pass the folders:

  python3 bench/public_eval.py --kpipe build/kpipe --tree sg=/path/SGEMM_CUDA \\
      --tree ws=... --tree lc=... --tree cs=... --tree fam=... [--md]

--manifest picks another manifest (bench/heldout_eval.tsv: the held-out
projects); in its arguments {tree} is the runner's checkout and {tree:KEY}
the folder of another --tree (an include directory shared by projects).
--md prints a Markdown table (docs/public-eval.md keeps one); --before
TSV (this script's plain output from another kpipe) adds a "before" column,
matched by repository key, file, line and kernel.  A key without a --tree is
skipped with a note.  Standard library only.
"""

import argparse
import concurrent.futures
import glob
import json
import os
import re
import subprocess
import sys


def read_manifest(path):
    rows = []
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        key, runner, args = (line.split("|") + ["", ""])[:3]
        rows.append((key, runner, args.split() if args else []))
    return rows


NO_GAIN = "kpipe-no-predicted-gain"


def left_alone(loop):
    """A loop every check passed, left as written by auto's prediction
    (kpipe-no-predicted-gain), in the plan or after the canon or inline
    pass: legal, not rewritten by default."""
    if (loop.get("plan") or {}).get("refused") == NO_GAIN:
        return "left alone by auto: " + NO_GAIN
    for key, what in (("canon", "load phase canonicalized"), ("inline", "helper inlined")):
        m = (loop.get(key) or {}).get("message", "")
        if not (loop.get(key) or {}).get("pipelined") and m.endswith("[%s]" % NO_GAIN):
            return "left alone by auto: %s (%s)" % (NO_GAIN, what)
    return None


def verdict(loop):
    plan = loop.get("plan") or {}
    if plan.get("variant"):
        st = plan.get("stages", 2)
        below = plan.get("as_written_below")  # the older targets keep the loop
        return "rewritten: %s%s%s" % (plan["variant"], "" if st == 2 else ", %d stages" % st,
                                      " (sm_%d and newer; older targets as written)" % below
                                      if below else "")
    if loop.get("already_pipelined"):
        return "already pipelined"
    left = left_alone(loop)
    if left:
        return left
    if loop.get("encloses_line"):  # a loop around K-loops: its K-loops are rows of their own
        return "loop around K-loops (line %d)" % loop["encloses_line"]
    can = loop.get("canon") or {}
    if can.get("pipelined"):  # rewrite's canon pass (and the inline pass), then the plan
        st = can.get("stages", 2)
        what = "load phase canonicalized"
        if "inline pass" in can.get("message", ""):
            what += ", helper inlined"
        return "rewritten: %s%s (%s)" % (can["variant"], "" if st == 2 else ", %d stages" % st,
                                         what)
    inl = loop.get("inline") or {}
    if inl.get("pipelined"):  # rewrite's inline pass, then the plan
        st = inl.get("stages", 2)
        what = "helper inlined" if "helper" in inl.get("message", "") else "macros expanded"
        if "then, in the inlined code," in inl.get("message", ""):  # the canon pass's shapes too
            what += ", load phase canonicalized"
        return "rewritten: %s%s (%s)" % (inl["variant"], "" if st == 2 else ", %d stages" % st,
                                         what)
    ids = []
    for r in loop.get("reasons", []):
        i = r.get("id")
        if i and i not in ids:
            ids.append(i)
    if plan.get("refused") and plan["refused"] not in ids:
        ids.append(plan["refused"])
    return "refused: " + ", ".join(ids) if ids else "refused"


def expand(arg, tree, trees):
    """{tree} is the runner's checkout; {tree:KEY} another --tree's (e.g. a
    shared include directory); a {tree:KEY} without its --tree is an error."""
    def one(m):
        key = m.group(1)
        if key is None:
            return tree
        if key not in trees:
            sys.exit("public_eval: '%s' needs --tree %s=DIR" % (arg, key))
        return os.path.abspath(trees[key])
    return re.sub(r"\{tree(?::([A-Za-z0-9_-]+))?\}", one, arg)


def analyse(kpipe, tree, runner, args, trees):
    cmd = [kpipe, "analyze", "--format", "json", runner]
    extra = [expand(a, tree, trees) for a in args]
    if extra:
        cmd += ["--"] + extra
    p = subprocess.run(cmd, cwd=tree, capture_output=True, text=True, timeout=600)
    err = [l for l in p.stderr.splitlines() if "error" in l]
    err = err[-1] if err else "exit %d" % p.returncode
    try:
        data = json.loads(p.stdout)
    except ValueError:
        return None, err
    return (data, None) if data.get("files") else (None, err)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kpipe", default="build/kpipe")
    ap.add_argument("--manifest",
                    default=os.path.join(os.path.dirname(__file__), "public_eval.tsv"))
    ap.add_argument("--tree", action="append", default=[], help="KEY=DIR")
    ap.add_argument("--md", action="store_true")
    ap.add_argument("--before", help="TSV output of an earlier run")
    ap.add_argument("-j", "--jobs", type=int, default=1,
                    help="files analysed at once (a runner may be a glob: every match)")
    a = ap.parse_args()
    kpipe = os.path.abspath(a.kpipe)
    trees = dict(t.split("=", 1) for t in a.tree)
    rows = []
    work = []
    for key, runner, args in read_manifest(a.manifest):
        if key not in trees:
            print("# %s: no --tree %s=DIR, skipped" % (runner, key), file=sys.stderr)
            continue
        tree = os.path.abspath(trees[key])
        if any(c in runner for c in "*?["):  # a glob: every translation unit it names
            hits = sorted(os.path.relpath(h, tree)
                          for h in glob.glob(os.path.join(tree, runner), recursive=True))
            work += [(key, tree, h, args) for h in hits]
        else:
            work.append((key, tree, runner, args))
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as ex:
        done = list(ex.map(lambda w: analyse(kpipe, w[1], w[2], w[3], trees), work))
    parsed = {}
    for (key, tree, runner, args), (data, err) in zip(work, done):
        tus = parsed.setdefault(key, [0, 0])
        tus[0] += 1
        if err:
            rows.append((key, runner, "", "", "file not analysed: " + err))
            continue
        tus[1] += 1
        for f in data.get("files", []):
            for k in f.get("kernels", []):
                for l in k.get("loops", []):
                    path = l.get("file") or f.get("file")
                    if os.path.isabs(path):
                        path = os.path.relpath(path, tree)
                    rows.append((key, path, l.get("line"), k.get("name"), verdict(l)))
    for key, (n, ok) in sorted(parsed.items()):  # the front-end issue's figure
        print("# %s: %d of %d files parsed (%.0f%%)" % (key, ok, n, 100.0 * ok / n),
              file=sys.stderr)
    seen = set()
    out = []
    for r in rows:  # a header kernel analysed through two runners: once
        if r[:4] in seen and r[2] != "":
            continue
        seen.add(r[:4])
        out.append(r)
    before = {}
    if a.before:
        for line in open(a.before, encoding="utf-8"):
            f = line.rstrip("\n").split("\t")
            if len(f) == 5 and not line.startswith("#"):
                before[tuple(f[:4])] = f[4]
    if a.md:
        cols = "| repo | file | line | kernel |%s verdict |" % (" before |" if a.before else "")
        print(cols)
        print("|---" * (cols.count("|") - 1) + "|")
        for key, path, line, kern, v in out:
            b = ""
            if a.before:
                b = " %s |" % before.get((key, path, str(line), kern or ""),
                                        before.get((key, path, "", ""), "not listed"))
            print("| %s | `%s` | %s | `%s` |%s %s |" % (key, path, line, kern or "", b, v))
    else:
        for r in out:
            print("\t".join(str(x) for x in r))
    n = sum(1 for r in out if r[4].startswith("rewritten"))
    m = sum(1 for r in out if r[4].startswith("left alone by auto"))
    print("# %d loops, %d rewritten%s" % (len(out), n, ", %d left alone by auto" % m if m else ""),
          file=sys.stderr)


if __name__ == "__main__":
    main()
