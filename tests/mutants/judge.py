#!/usr/bin/env python3
"""tests/mutants/judge.py - the verdicts of tests/mutants/run.sh, in one
process: run.sh runs kpipe on every mutant (side by side) and leaves each
mutant's outputs in RUN/FILE/; this script checks them all, with the
expectations run.sh's header lists (once per mutant a python3 started twice
and a few sed/awk/grep/cmp: about a third of the test's CPU time).

  judge.py MANIFEST MUTANT_DIR RUN_DIR SELECTED [NVCC]

MANIFEST is mutate.py's manifest.json, SELECTED a file of the mutant file
names checked (one a line, MUTANTS_STRIDE's choice), NVCC "1" when each
mutant was also compiled with nvcc (MUTANTS_NVCC).  RUN_DIR/FILE/ holds
a.json a.err a.rc (analyze --format json --kernel K), out.cu r.err r.rc
(rewrite -v --kernel K -o out.cu) and, with NVCC, nvcc.err nvcc.rc.

Prints, per mutant in the manifest's order, the FAIL lines run.sh printed
before (same words), then
  mutants: N generated, N checked, N refused with the expected id, N rewritten
and exits 1 on any failure, as run.sh did."""
import json
import os
import re
import sys


def head(path, n=5):
    """sed 's/^/    /' PATH | head -n N"""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    return ["    " + ln for ln in lines[:n]]


def read(path, default=""):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return default


def read_bytes(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def check_json(path, expected, kernel, lb, le):
    """None when the analyze document refuses the mutated K-loop with the
    expected id, else why not (run.sh's check_json, word for word)."""
    try:
        doc = json.load(open(path))
    except (ValueError, OSError) as e:
        return "analyze printed no JSON: %s" % e
    loops = [lp for f in doc["files"] for k in f["kernels"] if k["name"] == kernel for lp in k["loops"]]
    inside = [lp for lp in loops if lb <= lp["line"] <= le]
    if not inside:
        return "no candidate loop reported in lines %d-%d" % (lb, le)
    kloop = [lp for lp in inside if lp["line"] == lb]
    judged = kloop if kloop else inside
    bad = []
    for lp in judged:
        ids = [r["id"] for r in lp["reasons"]]
        if lp["eligible"] or expected not in ids:
            bad.append("loop at line %d: eligible=%s ids=%s" % (lp["line"], lp["eligible"], ",".join(ids) or "none"))
    for lp in inside:
        if lp["eligible"] and lp not in judged:
            bad.append("nested loop at line %d is eligible" % lp["line"])
    return "; ".join(bad) if bad else None


def others_eligible(path, kernel, lb, le):
    """The kernel's eligible loops outside the mutated K-loop's lines."""
    try:
        doc = json.load(open(path))
    except (ValueError, OSError):
        return 0
    return sum(1 for f in doc["files"] for k in f["kernels"] if k["name"] == kernel
               for lp in k["loops"] if lp["eligible"] and not lb <= lp["line"] <= le)


PIPELINED = re.compile(r"^[^:\n]*:([0-9]*):[0-9]*: note: pipelined with ", re.M)


def judge(e, mdir, w, nvcc):
    """(ok, lines) for one mutant: run.sh's check_one."""
    file, kernel, kind, expected = e["file"], e["kernel"], e["kind"], e["expected"]
    lb, le = int(e["loop_line"]), int(e["loop_end_line"])
    out, ok = [], True
    rc = int(read(os.path.join(w, "a.rc"), "99").strip() or 99)
    if rc != 0:
        out.append("FAIL %s: analyze exited %d (3 = parse error, which is not a refusal)" % (file, rc))
        out += head(os.path.join(w, "a.err"))
        ok = False
    else:
        why = check_json(os.path.join(w, "a.json"), expected, kernel, lb, le)
        if why is not None:
            out.append("FAIL %s (%s): expected %s: %s" % (file, kind, expected, why))
            ok = False
    others = others_eligible(os.path.join(w, "a.json"), kernel, lb, le) if ok else 0
    rc = int(read(os.path.join(w, "r.rc"), "99").strip() or 99)
    err = read(os.path.join(w, "r.err"))
    # a "pipelined with" note at a line of the mutated K-loop
    hit = next((m.group(1) for m in PIPELINED.finditer(err) if m.group(1) and lb <= int(m.group(1)) <= le), None)
    mutant = os.path.join(mdir, file)
    if hit is not None:
        out.append("FAIL %s (%s): REWRITTEN (the loop at line %s was pipelined)" % (file, kind, hit))
        ok = False
    elif rc != 0:
        out.append("FAIL %s (%s): rewrite exited %d, expected 0" % (file, kind, rc))
        out += head(os.path.join(w, "r.err"))
        ok = False
    elif others == 0 and read_bytes(os.path.join(w, "out.cu")) != read_bytes(mutant):
        # changed only when another K-loop of the kernel may be pipelined
        out.append("FAIL %s (%s): REWRITTEN (the output is not the mutant unchanged)" % (file, kind))
        ok = False
    elif "[%s]" % expected not in err:
        out.append("FAIL %s (%s): rewrite did not report [%s] on stderr" % (file, kind, expected))
        ok = False
    if nvcc and read(os.path.join(w, "nvcc.rc"), "1").strip() != "0":
        out.append("FAIL %s (%s): nvcc rejects the mutant" % (file, kind))
        out += head(os.path.join(w, "nvcc.err"))
        ok = False
    return ok, out


def main():
    manifest, mdir, run, selected = sys.argv[1:5]
    nvcc = len(sys.argv) > 5 and sys.argv[5] == "1"
    entries = json.load(open(manifest))
    with open(selected, encoding="utf-8") as f:
        chosen = [ln.strip() for ln in f if ln.strip()]
    by_file = {e["file"]: e for e in entries}
    total = refused = rewritten = failed = 0
    for file in chosen:
        w = os.path.join(run, file)
        if not os.path.exists(os.path.join(w, "r.rc")):
            continue  # never ran: counted below
        total += 1
        ok, lines = judge(by_file[file], mdir, w, nvcc)
        for ln in lines:
            print(ln)
        if ok:
            refused += 1
        else:
            failed += 1
        if any("REWRITTEN" in ln for ln in lines):
            rewritten += 1
    if total != len(chosen):
        print("FAIL: %d mutants listed, %d checked" % (len(chosen), total))
        failed += 1
    print("mutants: %d generated, %d checked, %d refused with the expected id, %d rewritten"
          % (len(entries), total, refused, rewritten))
    sys.stdout.flush()
    sys.exit(1 if total == 0 or failed else 0)


if __name__ == "__main__":
    main()
