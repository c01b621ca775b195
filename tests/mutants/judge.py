#!/usr/bin/env python3
"""tests/mutants/judge.py - the verdicts of tests/mutants/run.sh, in one
process: run.sh runs kpipe on every mutant (side by side) and leaves each
mutant's outputs in RUN/FILE/; this script checks them all, with the
expectations run.sh's header lists (once per mutant a python3 started twice
and a few sed/awk/grep/cmp were about a third of the test's CPU time).

  judge.py MANIFEST MUTANT_DIR RUN_DIR SELECTED [NVCC]

MANIFEST is mutate.py's manifest.json, SELECTED a file of the mutant file
names checked (one a line, MUTANTS_STRIDE's choice), NVCC "1" when each
mutant was also compiled with nvcc (MUTANTS_NVCC).  RUN_DIR/FILE/ holds
r.json r.err r.rc out.cu (rewrite --format json --kernel K -o out.cu: its
report, with each loop's verdict) and, with NVCC, nvcc.err nvcc.rc.

Prints, per mutant in the manifest's order, the FAIL lines run.sh printed
before (same words), then
  mutants: N generated, N checked, N refused with the expected id, N rewritten
and exits 1 on any failure, as run.sh did."""
import json
import os
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


def verdicts(doc, kernel):
    """The report's loop verdicts of `kernel` (rewrite --format json)."""
    return [v for f in doc.get("files", []) for v in f.get("verdicts", []) if v["kernel"] == kernel]


def check_verdicts(doc, expected, kernel, lb, le):
    """None when the report refuses the mutated K-loop with the expected
    id, else why not."""
    inside = [lp for lp in verdicts(doc, kernel) if lb <= lp["line"] <= le]
    if not inside:
        return "no candidate loop reported in lines %d-%d" % (lb, le)
    kloop = [lp for lp in inside if lp["line"] == lb]
    judged = kloop if kloop else inside
    bad = []
    for lp in judged:
        ids = lp["reasons"]
        if lp["eligible"] or expected not in ids:
            bad.append("loop at line %d: eligible=%s ids=%s" % (lp["line"], lp["eligible"], ",".join(ids) or "none"))
    for lp in inside:
        if lp["eligible"] and lp not in judged:
            bad.append("nested loop at line %d is eligible" % lp["line"])
    return "; ".join(bad) if bad else None


def diagnostics(doc):
    return [d for f in doc.get("files", []) for d in f.get("diagnostics", [])]


def judge(e, mdir, w, nvcc):
    """(ok, lines) for one mutant: run.sh's expectations."""
    file, kernel, kind, expected = e["file"], e["kernel"], e["kind"], e["expected"]
    lb, le = int(e["loop_line"]), int(e["loop_end_line"])
    out, ok = [], True
    rc = int(read(os.path.join(w, "r.rc"), "99").strip() or 99)
    try:
        doc = json.loads(read(os.path.join(w, "r.json")))
    except ValueError as ex:
        doc = None
        why = "rewrite printed no JSON report: %s" % ex
    mutant = os.path.join(mdir, file)
    if rc != 0:
        out.append("FAIL %s (%s): rewrite exited %d, expected 0 (3 = parse error, which is not a refusal)"
                   % (file, kind, rc))
        out += head(os.path.join(w, "r.err"))
        return False, out
    if doc is None:
        out.append("FAIL %s (%s): %s" % (file, kind, why))
        return False, out
    why = check_verdicts(doc, expected, kernel, lb, le)
    if why is not None:
        out.append("FAIL %s (%s): expected %s: %s" % (file, kind, expected, why))
        ok = False
    others = sum(1 for lp in verdicts(doc, kernel) if lp["eligible"] and not lb <= lp["line"] <= le) if ok else 0
    diags = diagnostics(doc)
    # a kpipe-pipelined note at a line of the mutated K-loop
    hit = next((d["line"] for d in diags if d.get("id") == "kpipe-pipelined" and lb <= d["line"] <= le), None)
    if hit is not None:
        out.append("FAIL %s (%s): REWRITTEN (the loop at line %s was pipelined)" % (file, kind, hit))
        ok = False
    elif others == 0 and read_bytes(os.path.join(w, "out.cu")) != read_bytes(mutant):
        # changed only when another K-loop of the kernel may be pipelined
        out.append("FAIL %s (%s): REWRITTEN (the output is not the mutant unchanged)" % (file, kind))
        ok = False
    elif not any(d.get("id") == expected for d in diags):
        out.append("FAIL %s (%s): rewrite did not report [%s]" % (file, kind, expected))
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
