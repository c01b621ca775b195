#!/usr/bin/env python3
"""auto_replay.py - replays `--variant auto` against recorded GPU timings.

No GPU: every speedup here was measured earlier and kept under
bench/results/ (gpu_bench.py's Markdown reports, `kpipe tune --format json`
tables).  For every kernel with recorded per-variant speedups, this script
asks the kpipe built here what auto picks *now* (`kpipe analyze --format
json`, with nvcc for the ptxas probe unless KPIPE_NO_PTXAS=1; `kpipe
rewrite --no-verify` for whether auto pads) and looks that pick up in the
newest record of the kernel:

  kernel | set | record (date, GPU) | auto now (and why) | speedup of that
  pick | best variant | best's speedup | auto / best | verdict

Verdicts: "loss" (auto's pick measured below 1.00x), "miss" (more than 3%
below the best variant), "ok"; "not measured" where the record has no
timing of what auto picks now (say so, never guess).  A kernel left alone
(kpipe-no-predicted-gain or no loop pipelined) counts as 1.000x.

Inputs: samples/NAME.cu (their launch descriptions beside them), the CPU
checker's kernels tests/cpudiff/kernels/NAME.cu, the golden case
rewrite-mma_ldmatrix, and the public kernels of bench/gpu_headers.sh's
table out of checkouts under --pub (SGEMM_CUDA, NVIDIA_SGEMM_PRACTICE,
LeetCUDA, cuda-samples, cuda-tensorcore-hgemm; a kernel whose checkout is
missing is listed as "no input").

  python3 bench/auto_replay.py [--kpipe build/kpipe] [--pub /work/pub]
      [--log gpu-heldout/rewrite.log] [--log gpu-convnet/rewrite.log]
      [--tsv FILE] [--only REGEX]

--log reads the rewrite log of bench/heldout_gpu.py or bench/convnet_gpu.py
`prepare` (their trees are git-ignored; run prepare first): each `$ kpipe
rewrite SRC -o OUT/NAME.kpipe.cu ARGS` line gives the input and compiler
arguments of record NAME (set "heldout"); a cuda-convnet2 run NAME whose
launch description (specs/NAME.launch.json beside the log) names kernel K
takes K's line (set "convnet": the cut file holds every instantiation the
runs make, so ptxas weighs them all, as in the runs recorded).

The Markdown table goes to stdout, with the counts the goal of issue 35
asks for (auto below 1.00x on none; within 3% of the best on >= 90%).
"""
import argparse
import datetime
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "bench", "results")
# what kpipe writes: a transform, its stages and its padding (gpu_bench
# versions named by bench/make_variants.sh, gpu_headers.sh, gpu_pad.sh)
VARIANT = re.compile(r"^(cp-async|register|register-ca|register-2bar)(-s[34])?(-pad|-nopad)?$")
PUB_KEYS = {"sg": "SGEMM_CUDA", "ws": "NVIDIA_SGEMM_PRACTICE", "lc": "LeetCUDA",
            "cs": "cuda-samples", "nw": "cuda-tensorcore-hgemm"}


def md_records(path):
    """gpu_bench.py's Markdown report: one record per `## name` section."""
    txt = open(path, encoding="utf-8", errors="replace").read()
    m = re.search(r"^- date: (\S+)", txt, re.M)
    stamp = m.group(1) if m else dir_date(path)  # two runs of one day: the later
    date = stamp[:10]
    m = re.search(r"^- device: ([^(\n]+)", txt, re.M)
    dev = m.group(1).strip() if m else ""
    out = []
    for sec in re.split(r"\n## ", txt)[1:]:
        name = sec.split("\n", 1)[0].strip()
        if name == "Overview":
            continue
        if name == "kernel":  # gpu_headers.sh: one kernel a report, named by the file
            name = os.path.basename(path)[:-3]
        hdr, sp = None, {}
        for line in sec.split("\n"):
            if line.startswith("| version"):
                hdr = [c.strip() for c in line.strip("|").split("|")]
            elif hdr and line.startswith("| ") and not line.startswith("|---"):
                c = [x.strip() for x in line.strip("|").split("|")]
                d = dict(zip(hdr, c))
                s = d.get("speedup", "")
                if len(c) == len(hdr) and s.endswith("x") and d.get("check", "").startswith("ok"):
                    try:
                        sp[d["version"]] = float(s[:-1])
                    except ValueError:
                        pass
        if sp:
            out.append({"name": name, "date": date, "stamp": stamp, "device": dev, "path": path,
                        "speedup": sp})
    return out


def tune_record(path):
    """A `kpipe tune --format json` table."""
    try:
        d = json.load(open(path))
    except (ValueError, UnicodeDecodeError):
        return []
    if not isinstance(d, dict) or "versions" not in d:
        return []
    sp = {v["name"]: v["speedup"] for v in d["versions"][1:] if "speedup" in v}
    name = os.path.basename(d.get("file", path))
    name = name[:-3] if name.endswith(".cu") else name
    if not sp:
        return []
    return [{"name": name, "date": dir_date(path), "device": d.get("device", ""),
             "path": path, "speedup": sp}]


def dir_date(path):
    m = re.search(r"(20\d\d-\d\d-\d\d)", path)
    return m.group(1) if m else ""


def records():
    """Every kernel's newest record with at least two of kpipe's variants
    timed (older ones lose: kpipe's rewrites changed since)."""
    best = {}
    for dp, _, fns in os.walk(RESULTS):
        for fn in fns:
            p = os.path.join(dp, fn)
            if fn.endswith(".md"):
                rs = md_records(p)
            elif fn.endswith(".json") and "/tune" in dp:
                rs = tune_record(p)
            else:
                continue
            for r in rs:
                r["speedup"] = {k: v for k, v in r["speedup"].items()
                                if VARIANT.match(k) or k == "auto"}
                nv = sum(1 for k in r["speedup"] if k != "auto")
                if nv < 2:
                    continue
                key = (r.get("stamp", r["date"]), nv)
                if r["name"] not in best or key > best[r["name"]][0]:
                    best[r["name"]] = (key, r)
    return {k: v[1] for k, v in best.items()}


def header_table():
    """bench/gpu_headers.sh's table: name -> (key, header, runner, kernel)."""
    out = {}
    txt = open(os.path.join(ROOT, "bench", "gpu_headers.sh")).read()
    for line in txt.split("\n"):
        c = line.split("|")
        if len(c) == 11 and c[1] in PUB_KEYS:
            out[c[0]] = (c[1], c[2], c[3], c[4])
    return out


def run(cmd, cwd=None):
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    return p.stdout, p.stderr


def log_inputs(logs):
    """name -> (source, compiler arguments, set) from prepare's rewrite logs."""
    out = {}
    for log in logs or []:
        kind = "convnet" if "convnet" in os.path.basename(os.path.dirname(os.path.abspath(log))) \
            else "heldout"
        by_kernel = {}
        for line in open(log, encoding="utf-8", errors="replace"):
            if not line.startswith("$ ") or ".kpipe.cu" not in line:
                continue
            a = shlex.split(line[2:])
            dst = a[a.index("-o") + 1]
            src = [x for x in a[2:a.index("-o")] if x.endswith(".cu")][-1]
            rest = a[a.index("-o") + 2:]
            spec = src[:-3] + ".launch.json"  # heldout: the kernel timed
            if os.path.exists(spec) and "--kernel" not in rest:
                k = json.load(open(spec)).get("kernel")
                rest = (["--kernel", k] if k else []) + rest
            by_kernel[os.path.basename(dst)[: -len(".kpipe.cu")]] = (src, rest, kind)
        out.update(by_kernel)
        specs = os.path.join(os.path.dirname(os.path.abspath(log)), "specs")
        if os.path.isdir(specs):
            for fn in os.listdir(specs):
                if fn.endswith(".launch.json"):
                    k = json.load(open(os.path.join(specs, fn))).get("kernel")
                    if k in by_kernel:
                        out[fn[: -len(".launch.json")]] = by_kernel[k]
    return out


def input_of(name, pub, tmp, logged=None):
    """(file to give kpipe, its options, set) for a record's name."""
    base = name.split("@")[0]
    if logged and base in logged:
        return logged[base]
    s = os.path.join(ROOT, "samples", base + ".cu")
    if os.path.exists(s):
        return s, [], "sample"
    c = os.path.join(ROOT, "tests", "cpudiff", "kernels", base + ".cu")
    if os.path.exists(c):
        return c, [], "cpudiff"
    # golden cases timed under a name of their own (benchmarks.md)
    golden = {"mma_ldmatrix": "rewrite-mma_ldmatrix", "mm_carve": "rewrite-static_carve_outs"}
    if base in golden:
        return os.path.join(ROOT, "tests", "golden", "cases", golden[base],
                            "kernel.cu"), [], "golden"
    t = header_table().get(base)
    if not t:
        return None, None, "?"
    key, hdr, runner, kernel = t
    src = os.path.join(pub, PUB_KEYS[key])
    if not os.path.isdir(src):
        return None, None, "public"
    d = os.path.join(tmp, base)
    if not os.path.isdir(d):
        if key in ("lc", "cs", "nw"):  # one file, one kernel of it
            os.makedirs(os.path.dirname(os.path.join(d, hdr)), exist_ok=True)
            shutil.copy(os.path.join(src, hdr), os.path.join(d, hdr))
        else:
            shutil.copytree(src, d, ignore=shutil.ignore_patterns(".git"))
    # as bench/gpu_headers.sh rewrote them: LeetCUDA's files with their
    # torch binding (the kernels' instantiations and launches), which nvcc
    # cannot build here, so ptxas is not asked for them (as in the runs
    # recorded)
    args = ["--kernel", kernel] if key != "cs" else []
    return os.path.join(d, runner), args, "public"


def auto_now(kpipe, path, args, tmp):
    """What auto writes for the kernel now: ('cp-async-s3-pad', why), or
    ('original', why) when it leaves every loop alone."""
    kernel = args[args.index("--kernel") + 1] if "--kernel" in args else None
    out, err = run([kpipe, "analyze", "--format", "json", path] + args)
    try:
        d = json.loads(out)
    except ValueError:
        return None, "analyze failed: " + err.strip()[-200:]
    pick, whys = None, []
    for f in d.get("files", []):
        for k in f.get("kernels", []):
            if kernel and k.get("name") != kernel:
                continue
            for lp in k.get("loops", []):
                p = lp.get("plan") or {}
                inl = lp.get("inline") or lp.get("canon") or {}
                v = p.get("variant") or (inl.get("variant") if inl.get("pipelined") else None)
                st = p.get("stages") or inl.get("stages") or 2
                if v and not pick:
                    pick = v + ("-s%d" % st if v.startswith("cp-async") and st > 2 else "")
                    whys.append(p.get("why", ""))
                elif p.get("refused") or p.get("why"):
                    whys.append("%s: %s" % (p.get("refused", ""), p.get("why", "")))
    o = os.path.join(tmp, "out.cu")
    _, err = run([kpipe, "rewrite", "--no-verify", path, "-o", o] + args)
    padded = "kpipe-padded" in err or "kpipe-swizzled" in err
    if not pick:
        # a loop left alone keeps auto's padding: the padded original
        return "original" + ("-pad" if padded else ""), \
            "; ".join(w for w in whys if w) or "no loop pipelined"
    if padded:
        pick += "-pad"
    return pick, "; ".join(w for w in whys if w)


def padded_original(kpipe, path, args, sp, tmp):
    """The record's row that is the padded original auto now writes: an
    'original-pad' row, or a 'V-pad' row whose rewrite is byte for byte
    auto's (gpu_pad.sh kept the file `--variant V --pad` wrote where V
    did not apply: the original, padded).  (name, note) or (None, None)."""
    if "original-pad" in sp:
        return "original-pad", ""
    auto = open(os.path.join(tmp, "out.cu"), "rb").read()
    for k in sorted(sp):
        m = VARIANT.match(k)
        if not m or m.group(3) != "-pad":
            continue
        v = os.path.join(tmp, "pad-probe.cu")
        cmd = [kpipe, "rewrite", "--no-verify", "--variant", m.group(1), "--pad", path, "-o", v]
        if m.group(2):
            cmd[4:4] = ["--stages", m.group(2)[2:]]
        run(cmd + args)
        if os.path.exists(v) and open(v, "rb").read() == auto:
            return k, ("the record's %s row is the padded original: `--variant %s --pad` "
                       "writes auto's file" % (k, k[: -len("-pad")]))
    return None, None


def lookup(sp, pick):
    """The recorded speedup of auto's pick: the variant's own row, a padded
    pick in a record without padded rows as the unpadded one ('-pad'
    dropped, said in the note)."""
    if pick == "original":
        return 1.0, ""
    if pick == "original-pad":
        return None, ""  # main() looks for the padded original's row
    if pick in sp:
        return sp[pick], ""
    if pick.endswith("-pad") and not any(k.endswith("-pad") for k in sp):
        b = pick[: -len("-pad")]
        if b in sp:
            return sp[b], "record has no padded rows; unpadded %s" % b
    if pick + "-nopad" in sp:
        return sp[pick + "-nopad"], ""
    if "auto" in sp:
        return None, "the record's auto row, %.3fx, is the kpipe of that run" % sp["auto"]
    return None, ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kpipe", default=os.path.join(ROOT, "build", "kpipe"))
    ap.add_argument("--pub", default="/work/pub")
    ap.add_argument("--log", action="append")
    ap.add_argument("--tsv")
    ap.add_argument("--only")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="kp-replay-")
    rows = []
    logged = log_inputs(a.log)
    try:
        for name, r in sorted(records().items()):
            if a.only and not re.search(a.only, name):
                continue
            path, args, kind = input_of(name, a.pub, tmp, logged)
            sp = r["speedup"]
            cand = {k: v for k, v in sp.items() if k != "auto"}
            bname = max(cand, key=cand.get)
            if not path:
                rows.append([name, kind, r, "no input", "", None, bname, cand[bname], "", "no input"])
                continue
            pick, why = auto_now(a.kpipe, path, args, tmp)
            why = why.replace(tmp, "$TMP")  # the copies' folder, not kept
            got, note = lookup(sp, pick) if pick else (None, "analyze failed")
            if pick == "original-pad":
                row, note = padded_original(a.kpipe, path, args, sp, tmp)
                got = sp[row] if row else None
            best = max(cand[bname], 1.0)
            if got is None:
                verdict = "not measured"
            elif got < 1.0:
                verdict = "loss"
            elif got < 0.97 * best:
                verdict = "miss"
            else:
                verdict = "ok"
            rows.append([name, kind, r, pick, why, got, bname, cand[bname], note, verdict])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report(rows, a.tsv)


def report(rows, tsv):
    print("| kernel | set | record | auto now | its speedup | best variant | auto / best | verdict |")
    print("|---|---|---|---|---|---|---|---|")
    n = loss = miss = 0
    for name, kind, r, pick, why, got, bname, bsp, note, verdict in rows:
        rec = "%s %s" % (r["date"], "H100" if "H100" in r["device"] else "H200" if "H200" in r["device"] else r["device"])
        gs = "%.3fx" % got if got is not None else "-"
        ratio = "%.2f" % (got / max(bsp, 1.0)) if got is not None else "-"
        v = "**%s**" % verdict if verdict in ("loss", "miss") else verdict
        if note:
            v += " (%s)" % note
        print("| %s | %s | %s | %s | %s | %s %.3fx | %s | %s |" % (name, kind, rec, pick, gs, bname, bsp, ratio, v))
        if got is not None:
            n += 1
            loss += verdict == "loss"
            miss += verdict in ("loss", "miss")
    print()
    print("| set | kernels | auto's pick measured | below 1.00x | within 3% of the best |")
    print("|---|---|---|---|---|")
    for kind in ["sample", "public", "golden", "cpudiff", "heldout", "convnet", "all"]:
        rs = [r for r in rows if kind in ("all", r[1])]
        m = [r for r in rs if r[5] is not None]
        ok = sum(1 for r in m if r[9] == "ok")
        print("| %s | %d | %d | %d | %d (%.0f%%) |" % (
            kind, len(rs), len(m), sum(1 for r in m if r[9] == "loss"), ok,
            100.0 * ok / max(len(m), 1)))
    print()
    print("%d kernels with auto's pick measured: %d below 1.00x, %d within 3%% of the best "
          "variant (%.0f%%)" % (n, loss, n - miss, 100.0 * (n - miss) / max(n, 1)))
    if tsv:
        with open(tsv, "w") as f:
            f.write("# made by bench/auto_replay.py on %s: a replay of recorded GPU timings, "
                    "not a measurement\n" % datetime.date.today())
            f.write("kernel\tset\trecord\tdevice\tauto\twhy\tauto_speedup\tbest\tbest_speedup\tverdict\n")
            for name, kind, r, pick, why, got, bname, bsp, note, verdict in rows:
                f.write("\t".join(str(x) for x in [
                    name, kind, os.path.relpath(r["path"], ROOT), r["device"], pick,
                    why.replace("\t", " "), "" if got is None else "%.4f" % got, bname,
                    "%.4f" % bsp, verdict + (" (%s)" % note if note else "")]) + "\n")


if __name__ == "__main__":
    sys.exit(main())
