#!/usr/bin/env python3
"""cpudiff.py - CPU differential check of a kpipe rewrite (docs/cpudiff.md).

    python3 tests/cpudiff/cpudiff.py ORIGINAL.cu REWRITTEN.cu [--spec X.launch.json]
            [--size NAME]... [--seeds 1,2,3] [--cache DIR] [--jobs N] [--keep DIR]

Compiles ORIGINAL and REWRITTEN with g++ against the CUDA emulator
runtime/emu/kp_cpu_cuda.h, with a launcher generated from the launch spec (default:
ORIGINAL's sidecar NAME.launch.json), and runs them on the CPU over the
whole grid:

- the original once with the forward schedule and cp.async copies landing at
  the wait: the reference; then under the reverse and a random schedule and
  with copies landing at issue, each of which must give the reference's
  output (a racy original cannot be checked against);
- the rewrite under every schedule (forward, reverse, one random permutation
  per seed) times both cp.async modes (at the wait, at issue), each compared
  element by element with the reference using the spec's tolerance.

Exit status: 0 every run matched; 1 a run of the rewrite differed or failed
(MISMATCH / ERROR); 2 usage, spec or original problem (the original differs
from itself, crashes, ...); 77 cannot check: the kernel uses something the
emulator does not support (printed as `SKIP: reason` on stdout).  A skip is
never a pass.  Python standard library only.
"""

import argparse
import concurrent.futures
import hashlib
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
# the emulator is a product file since issue 31 (kpipe embeds it: src/verify/)
EMU = os.path.join(os.path.dirname(os.path.dirname(HERE)), "runtime", "emu")
sys.path.insert(0, HERE)
import prep  # noqa: E402

SKIP = 77
CXX = os.environ.get("CXX_CPUDIFF", "g++")
# -DKP_EMU_SPLIT: the emulator's runtime (the scheduler, the fibers, the
# launcher's fixed part, marked KP_RT) is compiled once per cache into an
# object each build links (emu_parts), as kpipe's verifier does
# (docs/verify.md, "Cost"): each build compiles the kernel and its
# launcher only.  The code run is the same.  CI time.
CXXFLAGS = ["-std=c++17", "-O1", "-w", "-fno-strict-aliasing", "-pthread", "-DKP_EMU_SPLIT"]
STATIC_LIBS = ["-static-libstdc++", "-static-libgcc"]
TYPES = {  # spec type -> (C type, harness code, struct format)
    "float": ("float", "kph::F32", "f"),
    "half": ("__half", "kph::F16", "e"),
    "int8": ("int8_t", "kph::I8", "b"),
    "int": ("int", "kph::I32", "i"),
    "double": ("double", "kph::F64", "d"),
    # the vector types complex numbers are (cuDoubleComplex is double2): a
    # buffer of 2 x count lanes to the harness, dumped as its lane type
    "float2": ("float2", "kph::F32", "f"),
    "double2": ("double2", "kph::F64", "d"),
}
LANES = {"float2": 2, "double2": 2}
ROLES = {"in": "kph::IN", "out": "kph::OUT", "inout": "kph::INOUT"}
TYPE_BY_CODE = {0: "float", 1: "half", 2: "int8", 3: "int", 4: "double"}
MAX_THREADS = 1 << 16      # default sizes: at most this many threads in the grid
MAX_ELEMS = 1 << 22        # ... and this many buffer elements in all


class Skip(Exception):
    pass


class SetupError(Exception):
    pass


def load_spec(path):
    try:
        with open(path, encoding="utf-8") as f:
            spec = json.load(f)
    except (OSError, ValueError) as e:
        raise SetupError("cannot read the launch spec %s: %s" % (path, e))
    for key in ("kernel", "block", "grid", "sizes", "args"):
        if key not in spec:
            raise SetupError("%s: no '%s'" % (path, key))
    for a in spec["args"]:
        if a.get("type") not in TYPES:
            raise Skip("argument %s has the type %r, which the checker does not support" % (a.get("name"), a.get("type")))
        if a.get("role") not in ("in", "out", "inout", "scalar"):
            raise SetupError("%s: argument %s has the role %r" % (path, a.get("name"), a.get("role")))
    return spec


def launch_override(src, kernel):
    """A variant's dynamic shared memory for kernel: its `// kpipe-launch:
    dynamic_smem(KERNEL) = EXPR` line, else the first one without a
    kernel name (for every kernel of the file), else None."""
    short = kernel.rsplit("::", 1)[-1]
    anyk = None
    for m in re.finditer(r"//\s*kpipe-launch:\s*dynamic_smem\s*(?:\(\s*([\w:]+)\s*\))?\s*=\s*(.+)", src):
        if m.group(1) in (kernel, short):
            return m.group(2).strip()
        if m.group(1) is None and anyk is None:
            anyk = m.group(2).strip()
    return anyk


def launcher_of(src, kernel):
    """The launcher a rewrite wrote for the kernel (`// kpipe-launch:
    launcher(KERNEL) = NAME`, the tensor-map form), or None: the harness
    calls it with the launch configuration and the kernel's arguments."""
    for m in re.finditer(r"//\s*kpipe-launch:\s*launcher\(([\w:]+)\)\s*=\s*(\w+)", src):
        if m.group(1) == kernel:
            return m.group(2)
    return None


def harness_source(spec, prepped_path, dyn_smem, launcher=None):
    sizes = list(spec["sizes"].items())
    syms = list(sizes[0][1].keys())
    L = []
    L.append('#include "kp_cpu_cuda.h"')
    L.append('#include "%s"' % prepped_path)
    L.append('#include "kp_harness.h"')
    L.append("static const char *const kp_size_names[] = {%s};" % ", ".join('"%s"' % n for n, _ in sizes))
    L.append("static const long kp_size_vals[][%d] = {%s};" % (
        max(1, len(syms)), ", ".join("{%s}" % ", ".join(str(int(v[s])) for s in syms) if syms else "{0}"
                                     for _, v in sizes)))
    L.append("static int kp_run(int kp_si, const kph::Opts &kp_o)")
    L.append("{")
    for i, s in enumerate(syms):
        L.append("    const long %s = kp_size_vals[kp_si][%d]; (void)%s;" % (s, i, s))
    for r in spec.get("requires", []):
        L.append("    if (!(%s)) { printf(\"requires-failed %%s\\n\", %s); return 0; }" % (r, json.dumps(r)))
    blk = list(spec["block"]) + ["1"] * (3 - len(spec["block"]))
    grd = list(spec["grid"]) + ["1"] * (3 - len(spec["grid"]))
    L.append("    const dim3 kp_grid((unsigned)(%s), (unsigned)(%s), (unsigned)(%s));" % tuple(grd))
    L.append("    const dim3 kp_block((unsigned)(%s), (unsigned)(%s), (unsigned)(%s));" % tuple(blk))
    L.append("    const size_t kpipe_spec_smem = (size_t)(%s); (void)kpipe_spec_smem;" % (spec.get("dynamic_smem", "0") or "0"))
    L.append("    const size_t kp_smem = (size_t)(%s);" % (dyn_smem or spec.get("dynamic_smem", "0") or "0"))
    bufs = [a for a in spec["args"] if a["role"] != "scalar"]
    L.append("    const size_t kp_counts[] = {%s};" % (", ".join(
        "(size_t)(%s)%s" % (a["count"], " * 2" if a["type"] in LANES else "") for a in bufs) or "0"))
    L.append("    if (kp_o.info) {")
    L.append("        size_t e = 0; for (size_t c : kp_counts) e += c;")
    L.append("        printf(\"ok threads=%llu blocks=%llu elems=%zu\\n\", (unsigned long long)kp_grid.x * kp_grid.y * kp_grid.z"
             " * kp_block.x * kp_block.y * kp_block.z, (unsigned long long)kp_grid.x * kp_grid.y * kp_grid.z, e);")
    L.append("        return 0;")
    L.append("    }")
    call = []
    bi = 0
    for a in spec["args"]:
        ctype, code, _ = TYPES[a["type"]]
        if a["role"] == "scalar":
            if a["type"] == "half":
                call.append("__float2half((float)(%s))" % a["value"])
            elif a["type"] in LANES:  # a complex scalar: the value is its real part
                call.append("make_%s((%s)(%s), 0)" % (ctype, ctype[:-1], a["value"]))
            else:
                call.append("(%s)(%s)" % (ctype, a["value"]))
        else:
            var = "kp_buf%d" % bi
            L.append("    %s *%s = (%s *)kph::buffer(\"%s\", %s, %s, kp_counts[%d]);" % (
                ctype, var, ctype, a["name"], ROLES[a["role"]], code, bi))
            call.append(var)
            bi += 1
    L.append("    kph::fill_all();")
    kernel = spec["kernel"] + spec.get("template_args", "")
    if launcher:
        L.append("    %s(kp_grid, kp_block, kp_smem, (cudaStream_t)0%s);" % (
            launcher, "".join(", " + c for c in call)))
    else:
        L.append("    kp::launch(kp::cfg(kp_grid, kp_block, kp_smem), %s%s);" % (
            kernel, "".join(", " + c for c in call)))
    L.append("    kph::dump(kp_o.out);")
    L.append("    return 0;")
    L.append("}")
    L.append("int main(int argc, char **argv)")
    L.append("{")
    L.append("    kph::Opts o = kph::parse(argc, argv);")
    L.append("    kph::install_handlers(120);")
    L.append("    for (size_t i = 0; i < sizeof kp_size_names / sizeof *kp_size_names; ++i)")
    L.append("        if (!strcmp(kp_size_names[i], o.size))")
    L.append("            return kp_run((int)i, o);")
    L.append("    kp::fail(\"no size named %s in the spec\", o.size);")
    L.append("}")
    return "\n".join(L) + "\n"


def file_hash(*parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode() if isinstance(p, str) else p)
        h.update(b"\0")
    return h.hexdigest()[:24]


def emulator_hash():
    parts = []
    for name in ("kp_cpu_cuda.h", "kp_harness.h", "cpudiff.py", "prep.py"):
        with open(os.path.join(EMU if name.startswith("kp_") else HERE, name), "rb") as f:
            parts.append(f.read())
    return file_hash(*parts)


def uses_cp_async(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    # cp.async, or the bulk copies of kpipe's bulk transform (in a string of inline PTX)
    return "__pipeline_memcpy_async" in prep.blank_comments_and_strings(text) or "cp.async.bulk" in text


_emu_lock = threading.Lock()


def emu_parts(cache):
    """The emulator's parts every build shares, made once per cache:
    (a directory holding kp_cpu_cuda.h.gch, a precompiled header g++ uses
    when the launcher includes kp_cpu_cuda.h first, or None; the object of
    the runtime's functions, kp_emu_rt.o; the link options of the C++
    runtime libraries).  Both are built side by side on
    first use.  Raises SetupError when the runtime does not build."""
    with open(os.path.join(EMU, "kp_cpu_cuda.h"), "rb") as f:
        hdr = f.read()
    with open(os.path.join(EMU, "kp_harness.h"), "rb") as f:
        har = f.read()
    d = os.path.join(cache, "pch-" + file_hash(hdr, CXX, " ".join(CXXFLAGS)))
    gch = os.path.join(d, "kp_cpu_cuda.h.gch")
    rd = os.path.join(cache, "rt-" + file_hash(hdr, har, CXX, " ".join(CXXFLAGS)))
    obj = os.path.join(rd, "kp_emu_rt.o")
    with _emu_lock:
        jobs = []
        if not os.path.exists(gch):
            os.makedirs(d, exist_ok=True)
            tmp = "%s.tmp%d" % (gch, os.getpid())
            jobs.append((subprocess.Popen(
                [CXX] + CXXFLAGS + ["-x", "c++-header", os.path.join(EMU, "kp_cpu_cuda.h"), "-o", tmp],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL), tmp, gch))
        if not os.path.exists(obj):
            os.makedirs(rd, exist_ok=True)
            src = os.path.join(rd, "kp_emu_rt.cpp")
            with open(src, "w", encoding="utf-8") as f:
                f.write('#include "kp_cpu_cuda.h"\n#include "kp_harness.h"\n')
            tmp = "%s.tmp%d" % (obj, os.getpid())
            jobs.append((subprocess.Popen(
                [CXX] + CXXFLAGS + ["-DKP_EMU_RUNTIME", "-I", os.path.join(EMU, "include"), "-I", EMU,
                                    "-c", src, "-o", tmp],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True), tmp, obj))
        for p, tmp, final in jobs:
            out, _ = p.communicate()
            if p.returncode == 0:
                os.replace(tmp, final)
            elif final == obj:
                raise SetupError("the emulator's runtime does not build:\n      %s" % (out or "")[:600])
        # libstdc++ and libgcc linked in where the compiler has their
        # static archives: each run of an executable starts some 2.7 ms
        # sooner (no dynamic symbol resolution; about 50,000 runs in a CI
        # run) and links in 30 ms rather than 54.  Asked once per cache.
        mark = os.path.join(rd, "static-libs")
        if not os.path.exists(mark) and not os.path.exists(mark + ".no"):
            main = os.path.join(rd, "probe.cpp")
            with open(main, "w", encoding="utf-8") as f:
                f.write("#include <vector>\nint main() { std::vector<int> v(3); return (int)v.size() - 3; }\n")
            exe = os.path.join(rd, "probe.%d" % os.getpid())
            r = subprocess.run([CXX] + CXXFLAGS + STATIC_LIBS + [main, "-o", exe],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            ok = r.returncode == 0 and subprocess.run([exe]).returncode == 0
            if os.path.exists(exe):
                os.unlink(exe)
            open(mark if ok else mark + ".no", "w").close()
    return (d if os.path.exists(gch) else None), obj, (STATIC_LIBS if os.path.exists(mark) else [])


def local_headers(src, dirs):
    """The texts of the headers src includes with quotes (`#include "x.cuh"`)
    found in dirs, and theirs in turn: part of a build's cache key."""
    texts, seen, todo = [], set(), [src]
    while todo:
        for name in re.findall(r'^\s*#\s*include\s*"([^"]+)"', todo.pop(), re.M):
            for d in dirs:
                path = os.path.join(d, name)
                if os.path.isfile(path) and path not in seen:
                    seen.add(path)
                    with open(path, encoding="utf-8", errors="replace") as f:
                        texts.append(f.read())
                    todo.append(texts[-1])
                    break
    return "".join(texts)


def build(label, src_path, spec, work, cache, inc_dirs=()):
    """Prepare, generate and compile one version; returns the executable.
    inc_dirs: where the kernel's own headers (`#include "x.cuh"`) are found
    (the folders of the original and of the rewrite)."""
    with open(src_path, encoding="utf-8", errors="replace") as f:
        src = f.read()
    try:
        text, reasons = prep.prep(src, os.path.abspath(src_path))
    except ValueError as e:
        raise SetupError("%s: %s" % (src_path, e))
    if reasons:
        raise Skip("%s: %s" % (src_path, "; ".join(reasons)))
    launcher = launcher_of(src, spec["kernel"])
    key = file_hash(emulator_hash(), text, json.dumps(spec, sort_keys=True), launch_override(src, spec["kernel"]) or "",
                    launcher or "", " ".join(CXXFLAGS),
                    local_headers(src, inc_dirs))
    exe = os.path.join(cache, "h-%s.exe" % key)
    if os.path.exists(exe):
        return exe, key
    prepped = os.path.join(work, "%s-%s.cpp" % (label, key))
    with open(prepped, "w", encoding="utf-8") as f:
        f.write(text)
    tu = os.path.join(work, "%s-%s-main.cpp" % (label, key))
    with open(tu, "w", encoding="utf-8") as f:
        f.write(harness_source(spec, prepped, launch_override(src, spec["kernel"]), launcher))
    tmp = "%s.tmp%d-%s" % (exe, os.getpid(), label)
    pch, rt, libs = emu_parts(cache)
    cmd = [CXX] + CXXFLAGS + (["-I", pch] if pch else []) + ["-I", os.path.join(EMU, "include"), "-I", EMU]
    for d in inc_dirs:
        cmd += ["-iquote", d]
    cmd += [tu, rt, "-o", tmp] + libs
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        errs = [ln for ln in r.stdout.splitlines() if "error" in ln][:6]
        return None, "g++ failed on %s:\n      %s" % (src_path, "\n      ".join(errs or r.stdout.splitlines()[:6]))
    os.replace(tmp, exe)  # atomic: a concurrent build of the same key gives the same file
    return exe, key


def read_dump(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"KPB1":
        raise ValueError("bad dump %s" % path)
    i, bufs = 4, []
    while i < len(data):
        (nl,) = struct.unpack_from("<I", data, i)
        i += 4
        name = data[i:i + nl].decode()
        i += nl
        t, r, c = struct.unpack_from("<IIQ", data, i)
        i += 16
        typ = TYPE_BY_CODE[t]
        size = struct.calcsize(TYPES[typ][2])
        raw = data[i:i + c * size]
        i += c * size
        bufs.append((name, typ, r, c, raw))
    return bufs


def compare(ref, got, tol):
    """None when every element matches, else a description."""
    a_tol, r_tol = float(tol.get("abs", 0)), float(tol.get("rel", 0))
    msgs = []
    for (name, typ, _, count, raw_ref), (name2, typ2, _, count2, raw) in zip(ref, got):
        if (name, typ, count) != (name2, typ2, count2):
            return "the buffers differ in shape (%s vs %s)" % (name, name2)
        if raw_ref == raw:
            continue
        fmt = TYPES[typ][2]
        size = struct.calcsize(fmt)
        exp = struct.unpack("<%d%s" % (count, fmt), raw_ref)
        val = struct.unpack("<%d%s" % (count, fmt), raw)
        bad = []
        for k in range(count):
            if raw_ref[k * size:(k + 1) * size] == raw[k * size:(k + 1) * size]:
                continue
            e, v = exp[k], val[k]
            if isinstance(e, float) and (math.isnan(e) or math.isnan(v)):
                bad.append(k)
            elif abs(v - e) > a_tol + r_tol * abs(e):
                bad.append(k)
        if bad:
            first = ", ".join("%s[%d]=%s (expected %s)" % (name, k, _fmt(val[k]), _fmt(exp[k])) for k in bad[:3])
            msgs.append("%s: %d of %d elements differ; first %s" % (name, len(bad), count, first))
    return "; ".join(msgs) if msgs else None


def _fmt(x):
    return ("%.6g" % x) if isinstance(x, float) else str(x)


def run_one(exe, key, size, sched, seed, mode, cache):
    """(status, detail, dump) with status 'ok', 'error' or 'skip'."""
    base = os.path.join(cache, "r-%s-%s-%s-%d-%s" % (key, size, sched, seed, mode))
    if os.path.exists(base + ".json"):
        with open(base + ".json", encoding="utf-8") as f:
            st, detail = json.load(f)
        return st, detail, (read_dump(base + ".bin") if st == "ok" else None)
    fd, out = tempfile.mkstemp(dir=cache, prefix="tmp-", suffix=".bin")
    os.close(fd)
    os.unlink(out)
    cmd = [exe, "--size", size, "--sched", sched, "--seed", str(seed), "--cp", mode, "--out", out]
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
        rc, so, se = r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired:
        rc, so, se = -1, "", "ERROR: timeout (300 s)"
    if rc == 0 and os.path.exists(out):
        os.replace(out, base + ".bin")
        st, detail = "ok", ""
    elif rc == SKIP:
        st, detail = "skip", (so.strip().splitlines() or ["SKIP: unsupported"])[-1]
    else:
        lines = [ln for ln in (se + so).splitlines() if ln.strip()]
        err = [ln for ln in lines if ln.startswith("ERROR")]
        st, detail = "error", (err or lines or ["exit status %d" % rc])[0]
        if rc < 0 and not err:
            detail = "killed by signal %d" % -rc
    if os.path.exists(out):
        os.unlink(out)
    if rc < 0:
        # a timeout or a signal (the machine's load, an OOM kill) is no
        # property of the code: not kept, since the cache outlives the run
        # (KPIPE_CPUDIFF_CACHE, shared by the tests and both build trees)
        return st, detail, None
    with open(out + ".json", "w", encoding="utf-8") as f:
        json.dump([st, detail], f)
    os.replace(out + ".json", base + ".json")
    return st, detail, (read_dump(base + ".bin") if st == "ok" else None)


def info(exe, size):
    r = subprocess.run([exe, "--size", size, "--info"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    if r.returncode != 0:
        raise SetupError("size %s: %s" % (size, (r.stderr or r.stdout).strip()))
    line = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
    if line.startswith("requires-failed"):
        return None, line[len("requires-failed "):]
    d = dict(kv.split("=") for kv in line.split()[1:])
    return {k: int(v) for k, v in d.items()}, None


def main():
    ap = argparse.ArgumentParser(description="CPU differential check of a kpipe rewrite against its original")
    ap.add_argument("original")
    ap.add_argument("rewritten")
    ap.add_argument("--spec", help="launch spec (default: ORIGINAL's NAME.launch.json)")
    ap.add_argument("--size", action="append", help="size(s) of the spec to run (default: every size but 'target' that is cheap)")
    ap.add_argument("--seeds", default="1,2,3", help="seeds of the random schedules (default 1,2,3)")
    ap.add_argument("--modes", default="wait,issue", help="cp.async completion modes (default wait,issue)")
    ap.add_argument("--cache", help="directory for compiled launchers and run results, shared between calls")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--keep", help="keep the generated sources in this directory")
    ap.add_argument("-q", "--quiet", action="store_true", help="only the failing runs and the summary")
    a = ap.parse_args()

    spec_path = a.spec or re.sub(r"\.(cu|cuh|cpp)$", "", a.original) + ".launch.json"
    work = a.keep or tempfile.mkdtemp(prefix="cpudiff.")
    os.makedirs(work, exist_ok=True)
    cache = a.cache or work
    os.makedirs(cache, exist_ok=True)
    try:
        return check_all(a, spec_path, work, cache)
    except Skip as e:
        print("SKIP: %s" % e)
        return SKIP
    except SetupError as e:
        print("ERROR: %s" % e)
        return 2
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


def check_all(a, spec_path, work, cache):
    """Every instantiation the spec names ("template_args" as a list), each
    checked on its own; the worst outcome: a setup problem, a failure, a
    skip, a pass."""
    spec = load_spec(spec_path)
    insts = spec.get("template_args", "") or ""
    if not isinstance(insts, list):
        return check(a, spec, spec_path, work, cache)
    if not insts:
        raise SetupError("%s: 'template_args' is an empty list" % spec_path)
    rcs = []
    for t in insts:
        print("cpudiff: instantiation %s" % t)
        try:
            rcs.append(check(a, dict(spec, template_args=t), spec_path, work, cache, t))
        except Skip as e:
            print("SKIP: %s" % e)
            rcs.append(SKIP)
    for rc in (2, 1, SKIP):
        if rc in rcs:
            return rc
    return 0


def check(a, spec, spec_path, work, cache, inst=None):
    tol = spec.get("tolerance", {})
    print("cpudiff: %s vs %s (spec %s%s)" % (a.original, a.rewritten, spec_path, ", " + inst if inst else ""))
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        dirs = [os.path.dirname(os.path.abspath(p)) for p in (a.original, a.rewritten)]
        f_orig = pool.submit(build, "orig", a.original, spec, work, cache, dirs)
        f_rew = pool.submit(build, "rew", a.rewritten, spec, work, cache, dirs[::-1])
        orig_exe, orig_key = f_orig.result()
        try:
            rew_exe, rew_key = f_rew.result()
        except Skip as e:
            print("SKIP: %s" % e)
            return SKIP
    if orig_exe is None:
        raise Skip("the original does not compile for the CPU emulator: %s" % orig_key)
    if rew_exe is None:
        print("  ERROR: the rewrite does not compile for the CPU emulator: %s" % rew_key)
        print("cpudiff: FAIL: the rewrite does not compile")
        return 1

    sizes = a.size or [n for n in spec["sizes"] if n != "target"]
    chosen = []
    for s in sizes:
        if s not in spec["sizes"]:
            raise SetupError("no size %r in %s" % (s, spec_path))
        d, failed = info(orig_exe, s)
        if d is None:
            if a.size:
                raise SetupError("size %s violates the spec's requirement %s" % (s, failed))
            continue
        if not a.size and (d["threads"] > MAX_THREADS or d["elems"] > MAX_ELEMS):
            continue
        chosen.append((s, d))
    if not chosen:
        raise SetupError("no size of the spec is cheap enough for the CPU (give --size)")

    seeds = [int(x) for x in a.seeds.split(",") if x.strip()]
    modes = [m for m in a.modes.split(",") if m]
    # without cp.async the completion mode changes nothing: one mode is enough
    rew_modes = modes if uses_cp_async(a.rewritten) else modes[:1]
    orig_cp = uses_cp_async(a.original)
    scheds = [("fwd", 0), ("rev", 0)] + [("rand", s) for s in seeds]
    jobs = []  # (who, size, sched, seed, mode)
    for s, _ in chosen:
        jobs.append(("ref", s, "fwd", 0, "wait"))
        jobs.append(("original", s, "rev", 0, "wait"))
        jobs.append(("original", s, "rand", seeds[0] if seeds else 1, "issue" if orig_cp else "wait"))
        if orig_cp:
            jobs.append(("original", s, "fwd", 0, "issue"))
        for sc, seed in scheds:
            for m in rew_modes:
                jobs.append(("rewrite", s, sc, seed, m))
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        futs = [pool.submit(run_one, orig_exe if who != "rewrite" else rew_exe,
                            orig_key if who != "rewrite" else rew_key, s, sc, seed, m, cache)
                for who, s, sc, seed, m in jobs]
        results = [f.result() for f in futs]

    orig_bad = rew_bad = total = 0
    skip_reason = None
    refs = {}
    for (who, s, sc, seed, m), (st, detail, dump) in zip(jobs, results):
        if who == "ref":
            if st == "skip":
                skip_reason = detail
            elif st != "ok":
                print("  size %s: the original fails: %s" % (s, detail))
                orig_bad += 1
            refs[s] = dump
    if skip_reason:
        print(skip_reason if skip_reason.startswith("SKIP") else "SKIP: " + skip_reason)
        return SKIP
    for s, d in chosen:
        if not a.quiet:
            print("  size %s (%s): %d blocks, %d threads" % (
                s, " ".join("%s=%s" % kv for kv in spec["sizes"][s].items()), d["blocks"], d["threads"]))
        for (who, s2, sc, seed, m), (st, detail, dump) in zip(jobs, results):
            if s2 != s or who == "ref":
                continue
            tag = "%-8s %-7s %-5s" % (who, sc + (":%d" % seed if sc == "rand" else ""), m)
            if a.quiet:
                tag = "%-6s %s" % (s, tag)
            if st == "skip":
                print(detail if detail.startswith("SKIP") else "SKIP: " + detail)
                return SKIP
            if refs.get(s) is None:
                continue
            if st != "ok":
                verdict = "ERROR %s" % re.sub(r"^ERROR:\s*", "", detail)
            else:
                diff = compare(refs[s], dump, tol)
                verdict = "PASS" + (" (bit-identical)" if all(x[4] == y[4] for x, y in zip(refs[s], dump)) else "") \
                    if diff is None else "MISMATCH %s" % diff
            ok = verdict.startswith("PASS")
            if who == "original":
                orig_bad += 0 if ok else 1
            else:
                total += 1
                rew_bad += 0 if ok else 1
            if not ok or not a.quiet:
                print("    %s %s" % (tag, verdict))
    if orig_bad:
        print("cpudiff: ERROR: the original is not deterministic under the emulator's schedules, "
              "or fails; the rewrite cannot be checked against it")
        return 2
    if rew_bad:
        print("cpudiff: FAIL: %d of %d runs of the rewrite differ from the original or fail" % (rew_bad, total))
        return 1
    print("cpudiff: PASS: %d runs of the rewrite match the original (%s)" % (total, ", ".join(s for s, _ in chosen)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
