#!/usr/bin/env python3
"""calibrate.py - the calibration table of --variant auto and its score.

Reads the tables of a `kpipe tune --format json` run over the samples
(bench/gpu_tune.sh on the GPU machine), asks `kpipe analyze --format json`
what auto picks for each sample here (nvcc is used for the ptxas question
unless KPIPE_NO_PTXAS=1), and writes

  bench/calibration.tsv  one row per sample and variant: what ptxas said
                         (registers, resident warps per SM, static shared
                         memory: original -> variant; spill bytes), the SASS
                         verdict, the measured paired speedup and its 95%
                         interval, whether tune and auto chose it;
  a Markdown table on stdout: per sample auto's choice, tune's choice, both
                         speedups, and whether auto is within 3% of tune.

  python3 bench/calibrate.py --tune-dir bench/results/2026-12-02-h200-tune-all/tune \
      [--kpipe build/kpipe] [--tsv bench/calibration.tsv]
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def auto_choice(kpipe, sample):
    """tune's name for what auto writes: 'register-2bar', 'cp-async-s4', or
    'original' (no loop pipelined), with the reasons."""
    cmd = [kpipe, "analyze", "--format", "json", os.path.join(ROOT, "samples", sample + ".cu")]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    d = json.loads(out)
    names, whys = [], []
    for f in d["files"]:
        for k in f["kernels"]:
            for l in k["loops"]:
                p = l.get("plan") or {}
                inl = l.get("inline") or {}
                v, st = p.get("variant") or inl.get("variant"), p.get("stages") or inl.get("stages", 2)
                if v:
                    names.append(v + ("-s%d" % st if st and st > 2 else ""))
                    whys.append(p.get("why", ""))
                elif p.get("refused"):
                    whys.append("%s: %s" % (p.get("refused"), p.get("message", "")))
    if not names:
        return "original", whys
    return names[0], whys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tune-dir", required=True)
    ap.add_argument("--kpipe", default=os.path.join(ROOT, "build", "kpipe"))
    ap.add_argument("--tsv", default=os.path.join(ROOT, "bench", "calibration.tsv"))
    a = ap.parse_args()
    rows, table = [], []
    within = total = losses = 0
    for fn in sorted(os.listdir(a.tune_dir)):
        if not fn.endswith(".json"):
            continue
        sample = fn[:-5]
        try:
            d = json.load(open(os.path.join(a.tune_dir, fn)))
        except ValueError:
            continue
        speed = {"original": 1.0}
        for v in d["versions"][1:]:
            if "speedup" in v:
                speed[v["name"]] = v["speedup"]
            elif v.get("same_as") in speed:
                speed[v["name"]] = speed[v["same_as"]]
        auto, whys = auto_choice(a.kpipe, sample)
        tune = d["chosen"]
        for v in d["versions"][1:]:
            p = v.get("ptxas") or {}
            reg, warps, smem = p.get("registers", ["", ""]), p.get("warps_per_sm", ["", ""]), p.get("smem", ["", ""])
            iv = v.get("interval95", ["", ""])
            rows.append([sample, v["name"], reg[0], reg[1], warps[0], warps[1], smem[0], smem[1],
                         p.get("spill_bytes", ""), v.get("sass_overlap", ""),
                         "%.4f" % v["speedup"] if "speedup" in v else "",
                         "%.4f" % iv[0] if iv[0] != "" else "", "%.4f" % iv[1] if iv[1] != "" else "",
                         int(v["name"] == tune), int(v["name"] == auto),
                         v.get("skipped", v.get("same_as", ""))[:80]])
        sa, st = speed.get(auto), speed.get(tune, 1.0)
        total += 1
        ok = sa is not None and sa >= st * 0.97
        within += ok
        losses += sa is not None and sa < 1.0
        table.append("| `%s` | %s | %s | %s | %.3fx | %s |" % (
            sample, auto, "%.3fx" % sa if sa is not None else "not timed", tune, st,
            "yes" if ok else "**no**"))
    with open(a.tsv, "w") as f:
        f.write("# kpipe auto calibration: what ptxas said and what the H200 measured, per sample and variant.\n")
        f.write("# made by: python3 bench/calibrate.py --tune-dir %s\n" % os.path.relpath(a.tune_dir, ROOT))
        f.write("# registers/warps_per_sm/smem: original -> variant (ptxas, static shared memory only); "
                "speedup: paired, 5 rounds; lo/hi: bootstrap 95%% interval\n")
        f.write("\t".join(["sample", "variant", "regs_o", "regs_v", "warps_o", "warps_v", "smem_o", "smem_v",
                           "spill_bytes", "sass_overlap", "speedup", "lo", "hi", "tune_chose", "auto_chose",
                           "note"]) + "\n")
        for r in rows:
            f.write("\t".join(str(x) for x in r) + "\n")
    print("| sample | auto | auto speedup | tune | tune speedup | auto within 3% of tune |")
    print("|---|---|---|---|---|---|")
    print("\n".join(table))
    print("\nauto within 3%% of tune on %d of %d samples (%.0f%%); auto below 1.00x on %d" % (
        within, total, 100.0 * within / max(total, 1), losses))
    return 0


if __name__ == "__main__":
    sys.exit(main())
