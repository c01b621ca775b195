#!/usr/bin/env python3
"""families_table.py - the table of bench/families.sh: for each GEMM family,
the textbook kernel's rate, kpipe's auto and best variant, the authors' best
kernel and cuBLAS, from gpu_bench's JSON reports.

    python3 bench/families_table.py WORK_DIR OUT_DIR > families.md

WORK_DIR is gpu-families/ (each kernel folder names its family in FAMILY),
OUT_DIR holds gpu_bench's NAME.json.  A kpipe version counts only when it
passed every check and sanitizer (gpu_bench's "ok"); an author's kernel or
cuBLAS counts when its output matched the textbook's at the timed size (the
only size yardsticks run at); cuBLAS's rounding differences are listed.
"""
import json
import math
import os
import sys


def tflops(t):
    return t["gflops"] / 1000.0 if t and t.get("gflops") else None


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    work, out = argv[1], argv[2]
    rows, ratios, notes = [], [], []
    for name in sorted(os.listdir(work)):
        fam_file = os.path.join(work, name, "FAMILY")
        rep = os.path.join(out, name + ".json")
        if not os.path.isfile(fam_file):
            continue
        family = open(fam_file).read().strip()
        if not os.path.isfile(rep):
            notes.append("%s: no report (%s)" % (family, rep))
            continue
        sample = json.load(open(rep))["samples"][0]
        vers = sample["versions"]
        base = next(v for v in vers if v["kind"] == "baseline")
        bt = base.get("time") or {}
        if not bt.get("median_ms"):
            notes.append("%s: the textbook kernel was not timed" % family)
            continue
        # NAME-peel, NAME-x: bench/peel_experiment.py's and
        # bench/cpasync_experiment.py's hand-made copies, a measurement
        # beside kpipe's output, never counted as kpipe's
        kp = [v for v in vers if v["kind"] == "variant" and v.get("ok") and (v.get("time") or {}).get("speedup")
              and not v["name"].endswith(("-peel", "-x"))]
        auto = next((v for v in kp if v["name"] == "auto"), None)
        best = max(kp, key=lambda v: v["time"]["speedup"], default=None)
        yards = [v for v in vers if v["kind"] == "yard" and (v.get("time") or {}).get("speedup")]
        for v in vers:
            if v["kind"] == "yard" and not (v.get("time") or {}).get("speedup"):
                notes.append("%s: `%s` was not timed (%s)" % (family, v["name"], "; ".join(v["errors"]) or "no time"))
        # an author's kernel counts where its output is the textbook's;
        # cuBLAS sums in another order: its error is reported, it counts
        authors = [v for v in yards if v["name"].startswith("author")]
        for v in authors:
            if not v["checks"].get("target", {}).get("ok"):
                notes.append("%s: `%s` differs from the textbook's output at 4096 (not counted)" % (family, v["name"]))
        authors = [v for v in authors if v["checks"].get("target", {}).get("ok")]
        author = max(authors, key=lambda v: v["time"]["speedup"], default=None)
        cublas = next((v for v in yards if v["name"] == "cublas"), None)
        if cublas:
            c = cublas["checks"].get("target", {})
            if not c.get("ok"):
                notes.append("%s: cuBLAS's output differs from the textbook's by up to %s absolute, %s relative "
                             "(another summation order)" % (family, c.get("max_abs"), c.get("max_rel")))
        ratio = best["time"]["speedup"] / author["time"]["speedup"] if best and author else None
        if ratio:
            ratios.append(ratio)
        cb = tflops(cublas["time"]) if cublas else None

        def pct(v):
            return "%.0f%%" % (100.0 * tflops(v["time"]) / cb) if v and cb else "-"

        def sp(v):
            return "%.2fx (%s)" % (v["time"]["speedup"], v["name"]) if v else "-"
        rows.append("| %s | %.1f | %s | %s | %s | %s | %s | %s | %s |" % (
            family, tflops(bt), "%.2fx" % auto["time"]["speedup"] if auto else "-", sp(best), sp(author),
            "**%.2f**" % ratio if ratio else "-", "%.1f" % cb if cb else "-", pct(best), pct(auto)))
    print("| family | textbook TFLOP/s | kpipe auto | kpipe best | author's best | kpipe best / author's best "
          "| cuBLAS TFLOP/s | kpipe best, of cuBLAS | auto, of cuBLAS |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(r)
    if ratios:
        print("")
        print("Geometric mean of kpipe best / author's best: **%.2f** over %d families." % (
            math.exp(sum(math.log(r) for r in ratios) / len(ratios)), len(ratios)))
    for n in notes:
        print("- %s" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
