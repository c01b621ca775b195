#!/usr/bin/env python3
"""run_selftest.py - checks that gpu_bench.py catches broken variants (needs a GPU).

Runs gpu_bench.py on samples/matmul_32x32 with the deliberately broken
versions in this folder next to the hand-pipelined references, then checks
that every broken version is reported the way it should be and that the
correct ones pass.  Exit 0 when the bench behaved; prints what went wrong
otherwise.  Extra arguments go to gpu_bench.py (e.g. --build-dir).
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def main():
    out = os.environ.get("OUT") or tempfile.mkdtemp(prefix="kpipe-selftest-")
    res = os.path.join(out, "selftest.json")
    cmd = [sys.executable, os.path.join(REPO, "bench", "gpu_bench.py"),
           "--spec", os.path.join(REPO, "samples", "matmul_32x32.launch.json"),
           "--variant", "hand-cp-async=" + os.path.join(REPO, "bench", "hand", "matmul_32x32.cp-async.cu"),
           "--variant", "hand-register=" + os.path.join(REPO, "bench", "hand", "matmul_32x32.register.cu")]
    for name in ("skip_last", "unwritten", "oob", "race", "clobber"):
        cmd += ["--variant", "%s=%s" % (name.replace("_", "-"), os.path.join(HERE, "matmul_32x32.%s.cu" % name))]
    cmd += ["--ref", "naive=" + os.path.join(REPO, "bench", "ref", "matmul_32x32.naive.cu"),
            "--sanitize", "--reps", "5", "--json", res, "--report", os.path.join(out, "selftest.md")]
    cmd += sys.argv[1:]
    rc = subprocess.call(cmd)
    with open(res) as f:
        data = json.load(f)
    vs = {v["name"]: v for v in data["samples"][0]["versions"]}
    problems = []

    def expect(cond, what):
        if not cond:
            problems.append(what)

    expect(rc == 1, "gpu_bench should exit 1 (broken variants present), got %s" % rc)
    for good in ("baseline", "hand-cp-async", "hand-register", "naive"):
        expect(vs[good]["ok"], "%s should pass" % good)
    for good in ("hand-cp-async", "hand-register"):
        expect(all(c.get("differ") == 0 for c in vs[good]["checks"].values()),
               "%s should be bit-identical" % good)
        expect(vs[good].get("time", {}).get("speedup"), "%s should have a speedup" % good)
    for bad in ("skip-last", "unwritten", "oob", "race", "clobber"):
        expect(not vs[bad]["ok"], "%s should fail" % bad)
    expect(any(c.get("mismatches") for c in vs["skip-last"]["checks"].values()), "skip-last: mismatches")
    expect(any(c.get("unwritten") for c in vs["unwritten"]["checks"].values()), "unwritten: unwritten count")
    expect(vs["oob"]["errors"], "oob: an execution error")
    expect(any(c.get("clobbered_inputs") for c in vs["clobber"]["checks"].values()), "clobber: clobbered input")
    rc_status = vs["race"]["sanitize"].get("racecheck", {}).get("status")
    expect(rc_status in ("fail", "unsupported"), "race: racecheck should fail, got %s" % rc_status)
    for p in problems:
        print("selftest: %s" % p, file=sys.stderr)
    print("selftest: %s" % ("FAILED" if problems else "ok"), file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
