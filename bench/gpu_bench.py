#!/usr/bin/env python3
"""gpu_bench.py - check and time pipelined variants of a kernel on the GPU.

For one sample (a kernel file plus its launch spec, docs/launch-spec.md) or
for every sample at once (--all), this builds the original kernel and each
variant as its own shared library around a generated launcher, builds a host
harness (bench/harness/bench_main.cu) that loads them all, and then:

  * runs every version at every size of the spec on the same fixed-seed
    inputs, outputs poisoned before each launch, and compares each variant
    with the original element by element (tolerance from the spec; elements
    left poisoned count as failures);
  * times every version at the `target` size (cudaEvent per launch, warm-ups,
    median of --reps launches) and reports the speedup over the original;
  * with --sanitize, runs compute-sanitizer memcheck, racecheck and synccheck
    on one launch of every version at the `small` size;
  * prints a markdown report and writes every figure as JSON (--json).

It never edits sources and never runs kpipe: the variants are whatever files
it is given.  Python 3 standard library only.  Exit status: 0 all passed,
1 something failed (compile, check, sanitizer), 2 usage or spec error.

Examples:
  python3 bench/gpu_bench.py --spec samples/matmul_32x32.launch.json \\
      --baseline samples/matmul_32x32.cu --variant cp-async=out/matmul_32x32.cp-async.cu \\
      --sanitize --json results.json
  python3 bench/gpu_bench.py --all out/ --sanitize --report report.md
  python3 bench/gpu_bench.py --all out/ --compile-only      # no GPU needed
"""

import argparse
import concurrent.futures
import datetime
import glob
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
HARNESS_MAIN = os.path.join(HERE, "harness", "bench_main.cu")

# spec type -> (C type, element size, harness enum, lanes).  The vector
# types float2 and double2 (cuFloatComplex, cuDoubleComplex, MAGMA's
# magmaFloatComplex, magmaDoubleComplex are typedefs of them) are buffers of
# 2 x count scalars to the harness: filled, poisoned and compared lane by lane.
TYPES = {
    "float": ("float", 4, "T_F32", 1),
    "half": ("__half", 2, "T_F16", 1),
    "int8": ("int8_t", 1, "T_I8", 1),
    "int": ("int", 4, "T_I32", 1),
    "double": ("double", 8, "T_F64", 1),
    "float2": ("float2", 4, "T_F32", 2),
    "double2": ("double2", 8, "T_F64", 2),
}
ROLES = {"in": "R_IN", "out": "R_OUT", "inout": "R_INOUT", "scalar": None}
TOOLS = ("memcheck", "racecheck", "synccheck")
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
KERNEL_NAME = re.compile(r"^(::)?[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*$")
# A variant file may override the launch's dynamic shared memory, e.g. when
# its doubled buffers moved to dynamic shared memory:
#   // kpipe-launch: dynamic_smem(gemm) = 2 * 64 * 40 * sizeof(half)
# (kpipe_spec_smem, the spec's own bytes, may appear in it:
#   // kpipe-launch: dynamic_smem(gemm) = 2 * ((kpipe_spec_smem + 15) / 16 * 16))
# kpipe writes one line per kernel it moved (KERNEL is the function's name);
# a line without (KERNEL) is for every kernel of the file.
OVERRIDE = re.compile(
    r"^\s*//\s*kpipe-launch:\s*dynamic_smem\s*(?:\(\s*([A-Za-z_:][A-Za-z0-9_:]*)\s*\))?"
    r"\s*=\s*(.+?)\s*$", re.M)


def override_of(text, kernel):
    """The dynamic_smem override a version file gives kernel (a spec's
    'ns::k' is the file's 'k'), or None: its own line, else the first
    line without a kernel name."""
    short = kernel.rsplit("::", 1)[-1]
    anyk = None
    for m in OVERRIDE.finditer(text):
        if m.group(1) in (kernel, short):
            return m.group(2)
        if m.group(1) is None and anyk is None:
            anyk = m.group(2)
    return anyk


class SpecError(Exception):
    pass


# ---------------------------------------------------------------- spec


def _expr(value, where):
    if isinstance(value, bool):
        raise SpecError("%s: expected an expression, got a boolean" % where)
    if isinstance(value, (int, float)):
        return repr(value)
    if not isinstance(value, str) or not value.strip():
        raise SpecError("%s: expected a C expression string" % where)
    if any(c in value for c in ";{}\n\"'\\#"):
        raise SpecError("%s: '%s' is not a plain C expression" % (where, value))
    return value.strip()


def load_spec(path):
    """Reads and validates a launch spec; returns a normalised dict."""
    try:
        with open(path) as f:
            raw = json.load(f)
    except (OSError, ValueError) as e:
        raise SpecError("%s: %s" % (path, e))
    if not isinstance(raw, dict):
        raise SpecError("%s: top level must be an object" % path)
    name = os.path.basename(path)
    name = name[: -len(".launch.json")] if name.endswith(".launch.json") else os.path.splitext(name)[0]
    where = lambda key: "%s: '%s'" % (path, key)

    known = {"kernel", "template_args", "block", "grid", "dynamic_smem", "requires", "sizes",
             "args", "tolerance", "work", "eligible", "refusal", "note", "variants_unavailable"}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise SpecError("%s: unknown field '%s'" % (path, unknown[0]))

    spec = {"name": name, "path": os.path.abspath(path)}
    kernel = raw.get("kernel")
    if not isinstance(kernel, str) or not KERNEL_NAME.match(kernel):
        raise SpecError("%s: expected a kernel name" % where("kernel"))
    spec["kernel"] = kernel
    targs = raw.get("template_args", "")
    targs = "" if targs is None else targs
    is_list = lambda t: isinstance(t, str) and t.strip().startswith("<") and t.strip().endswith(">")
    if isinstance(targs, list):
        # one instantiation per entry: each is run as a sample of its own
        # (per_instantiation), compared with the original's same instantiation
        if not targs:
            raise SpecError("%s: an empty list names no instantiation (\"\" is the form for a "
                            "kernel that is no template)" % where("template_args"))
        for i, t in enumerate(targs):
            if not is_list(t) or any(c in t for c in ";{}\n\"'\\#"):
                raise SpecError("%s[%d]: expected \"<...>\"" % (where("template_args"), i))
            if t.replace(" ", "") in [u.replace(" ", "") for u in targs[:i]]:
                raise SpecError("%s[%d]: %s is given twice" % (where("template_args"), i, t.strip()))
        spec["instantiations"] = [t.strip() for t in targs]
    elif not isinstance(targs, str) or (targs and not is_list(targs)):
        raise SpecError("%s: expected \"\" or \"<...>\", or a list of \"<...>\"" % where("template_args"))
    else:
        spec["instantiations"] = [targs.strip()]
    spec["template_args"] = spec["instantiations"][0]

    for key in ("block", "grid"):
        dims = raw.get(key)
        if not isinstance(dims, list) or not 1 <= len(dims) <= 3:
            raise SpecError("%s: expected a list of 1 to 3 expressions" % where(key))
        dims = [_expr(d, "%s[%d]" % (where(key), i)) for i, d in enumerate(dims)]
        spec[key] = dims + ["1"] * (3 - len(dims))
    spec["dynamic_smem"] = _expr(raw.get("dynamic_smem", "0"), where("dynamic_smem"))
    req = raw.get("requires", [])
    if not isinstance(req, list):
        raise SpecError("%s: expected a list of expressions" % where("requires"))
    spec["requires"] = [_expr(r, where("requires")) for r in req]

    sizes = raw.get("sizes")
    if not isinstance(sizes, dict) or not sizes:
        raise SpecError("%s: expected an object of named sizes" % where("sizes"))
    symbols = None
    for sname, vals in sizes.items():
        if not IDENT.match(sname):
            raise SpecError("%s: bad size name '%s'" % (where("sizes"), sname))
        if not isinstance(vals, dict) or not vals:
            raise SpecError("%s: size '%s' must map symbols to integers" % (where("sizes"), sname))
        for sym, v in vals.items():
            if not IDENT.match(sym) or sym.startswith("kpipe_"):
                raise SpecError("%s: bad size symbol '%s'" % (where("sizes"), sym))
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise SpecError("%s: %s.%s must be a non-negative integer" % (where("sizes"), sname, sym))
        if symbols is None:
            symbols = list(vals)
        elif set(vals) != set(symbols):
            raise SpecError("%s: size '%s' does not define the same symbols (%s)"
                            % (where("sizes"), sname, ", ".join(symbols)))
    for must in ("tiny", "small", "target"):
        if must not in sizes:
            raise SpecError("%s: size '%s' is missing" % (where("sizes"), must))
    spec["symbols"] = symbols
    spec["sizes"] = {s: {k: v[k] for k in symbols} for s, v in sizes.items()}

    args = raw.get("args")
    if not isinstance(args, list) or not args:
        raise SpecError("%s: expected a non-empty list" % where("args"))
    spec["args"] = []
    for i, a in enumerate(args):
        w = "%s[%d]" % (where("args"), i)
        if not isinstance(a, dict):
            raise SpecError("%s: expected an object" % w)
        nm, role, ty = a.get("name"), a.get("role"), a.get("type")
        if not isinstance(nm, str) or not IDENT.match(nm):
            raise SpecError("%s: bad name" % w)
        if role not in ROLES:
            raise SpecError("%s: role must be one of %s" % (w, ", ".join(ROLES)))
        if ty not in TYPES:
            raise SpecError("%s: type must be one of %s" % (w, ", ".join(TYPES)))
        arg = {"name": nm, "role": role, "type": ty}
        if role == "scalar":
            if "value" not in a:
                raise SpecError("%s: a scalar needs 'value'" % w)
            arg["value"] = _expr(a["value"], w + ".value")
        else:
            if "count" not in a:
                raise SpecError("%s: a buffer needs 'count'" % w)
            arg["count"] = _expr(a["count"], w + ".count")
        spec["args"].append(arg)
    if not any(a["role"] in ("out", "inout") for a in spec["args"]):
        raise SpecError("%s: no 'out' or 'inout' buffer to compare" % where("args"))

    tol = raw.get("tolerance", {})
    if not isinstance(tol, dict):
        raise SpecError("%s: expected {\"abs\": x, \"rel\": y}" % where("tolerance"))
    spec["tolerance"] = {}
    for k in ("abs", "rel"):
        v = tol.get(k, 0.0)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
            raise SpecError("%s: '%s' must be a non-negative number" % (where("tolerance"), k))
        spec["tolerance"][k] = float(v)

    work = raw.get("work", {}) or {}
    if not isinstance(work, dict) or len(work) > 1 or (work and next(iter(work)) not in ("flops", "bytes")):
        raise SpecError("%s: expected {\"flops\": expr} or {\"bytes\": expr}" % where("work"))
    spec["work_kind"], spec["work"] = (next(iter(work.items())) if work else ("", "0"))
    spec["work"] = _expr(spec["work"], where("work"))
    elig = raw.get("eligible", True)
    if not isinstance(elig, bool):
        raise SpecError("%s: expected true or false" % where("eligible"))
    spec["eligible"] = elig
    spec["refusal"] = raw.get("refusal", "")
    spec["note"] = raw.get("note", "")
    return spec


def per_instantiation(spec):
    """The spec once per instantiation it names: itself when it names one,
    else copies named NAME@<args> that each launch one of them."""
    insts = spec["instantiations"]
    if len(insts) == 1:
        return [spec]
    return [dict(spec, name="%s@%s" % (spec["name"], t), template_args=t, instantiations=[t])
            for t in insts]


# ---------------------------------------------------------------- code generation


def _sym_decls(spec, indent="    "):
    return "".join("%sconst long %s = kpipe_sz[%d];\n%s(void)%s;\n" % (indent, s, i, indent, s)
                   for i, s in enumerate(spec["symbols"]))


def gen_spec_header(spec):
    bufs = [a for a in spec["args"] if a["role"] != "scalar"]
    out = ["// generated by bench/gpu_bench.py from %s - do not edit" % spec["path"],
           "#pragma once",
           "enum { R_IN, R_OUT, R_INOUT };",
           "enum { T_F32, T_F16, T_I8, T_I32, T_F64 };",
           "struct BenchBuf { const char *name; int role; int type; };",
           "static const BenchBuf kBufs[] = {"]
    for a in bufs:
        out.append("    {\"%s\", %s, %s}," % (a["name"], ROLES[a["role"]], TYPES[a["type"]][2]))
    out.append("    {nullptr, 0, 0}};")
    out.append("static const int kNumBufs = %d;" % len(bufs))
    out.append("static const int kNumSizes = %d;" % len(spec["sizes"]))
    out.append("static const char *const kSizeNames[] = {%s};"
               % ", ".join("\"%s\"" % s for s in spec["sizes"]))
    out.append("static const long kSizeVals[][%d] = {" % len(spec["symbols"]))
    for s, vals in spec["sizes"].items():
        out.append("    {%s}, // %s" % (", ".join("%dL" % vals[k] for k in spec["symbols"]), s))
    out.append("};")
    out.append("static const double kTolAbs = %r;" % spec["tolerance"]["abs"])
    out.append("static const double kTolRel = %r;" % spec["tolerance"]["rel"])
    out.append("static const char *const kWorkKind = \"%s\";" % spec["work_kind"])
    out.append("static long buf_count(int kpipe_i, const long *kpipe_sz)\n{")
    out.append(_sym_decls(spec).rstrip("\n"))
    out.append("    switch (kpipe_i) {")
    for i, a in enumerate(bufs):
        lanes = TYPES[a["type"]][3]
        out.append("    case %d: return (long)(%s)%s;" % (i, a["count"], " * %d" % lanes if lanes > 1 else ""))
    out.append("    }\n    return 0;\n}")
    out.append("static double work_amount(const long *kpipe_sz)\n{")
    out.append(_sym_decls(spec).rstrip("\n"))
    out.append("    return (double)(%s);\n}" % spec["work"])
    out.append("static const char *requires_failed(const long *kpipe_sz)\n{")
    out.append(_sym_decls(spec).rstrip("\n"))
    for r in spec["requires"]:
        out.append("    if (!(%s))\n        return \"%s\";" % (r, r))
    out.append("    return nullptr;\n}")
    return "\n".join(out) + "\n"


def _scalar(a):
    ty = a["type"]
    if ty == "half":
        return "__float2half((float)(%s))" % a["value"]
    if TYPES[ty][3] == 2:  # a complex scalar: the value is its real part
        c = TYPES[ty][0]
        return "make_%s((%s)(%s), 0)" % (c, c[:-1], a["value"])
    return "(%s)(%s)" % (TYPES[ty][0], a["value"])


LAUNCHER = re.compile(r"^\s*//\s*kpipe-launch:\s*launcher\(([\w:]+)\)\s*=\s*(\w+)\s*$", re.M)


def launcher_of(text, kernel):
    """The launcher a rewrite wrote for the kernel (`// kpipe-launch:
    launcher(KERNEL) = NAME`: kpipe's tensor-map form), or None."""
    for m in LAUNCHER.finditer(text):
        if m.group(1) == kernel:
            return m.group(2)
    return None


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def version_text(path):
    """A version's text and that of the files it includes with quotes, one
    level deep (bench/gpu_headers.sh's versions are one #include of the
    rewritten header, whose kpipe-launch lines are what count)."""
    with open(path, errors="replace") as f:
        text = f.read()
    parts = [text]
    for inc in INCLUDE.findall(text):
        p = os.path.join(os.path.dirname(path), inc)
        if os.path.isfile(p):
            with open(p, errors="replace") as f:
                parts.append(f.read())
    return "\n".join(parts)


def gen_launcher(spec, version_path, label, dynamic_smem, launcher=None):
    kfn = spec["kernel"] + spec["template_args"]
    args, b = [], 0
    for a in spec["args"]:
        if a["role"] == "scalar":
            args.append(_scalar(a))
        else:
            args.append("(%s *)kpipe_bufs[%d]" % (TYPES[a["type"]][0], b))
            b += 1
    syms = _sym_decls(spec)
    geom = ("    const dim3 kpipe_grid((unsigned)(%s), (unsigned)(%s), (unsigned)(%s));\n"
            "    const dim3 kpipe_block((unsigned)(%s), (unsigned)(%s), (unsigned)(%s));\n"
            "    const size_t kpipe_spec_smem = (size_t)(%s);\n"
            "    const size_t kpipe_smem = (size_t)(%s);\n"
            "    (void)kpipe_spec_smem;\n"
            % tuple(spec["grid"] + spec["block"] + [spec["dynamic_smem"], dynamic_smem]))
    return """// generated by bench/gpu_bench.py: launcher for %(label)s - do not edit
#include <cstddef>
#include <cstdint>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "%(path)s"

#define KPIPE_BENCH_EXPORT extern "C" __attribute__((visibility("default")))

KPIPE_BENCH_EXPORT int kpipe_bench_launch(void *const *kpipe_bufs, const long *kpipe_sz,
                                          cudaStream_t kpipe_stream)
{
%(syms)s%(geom)s    if (kpipe_smem > 0) { /* static + dynamic over 48 KB needs it too */
        const cudaError_t kpipe_e = cudaFuncSetAttribute(
            %(kfn)s, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kpipe_smem);
        if (kpipe_e != cudaSuccess)
            return (int)kpipe_e;
    }
    %(launch)s
        %(args)s);
    return (int)cudaPeekAtLastError();
}

// regs, static smem, local bytes, max threads, resident blocks per SM, threads
KPIPE_BENCH_EXPORT int kpipe_bench_attrs(const long *kpipe_sz, int *kpipe_out)
{
%(syms)s%(geom)s    (void)kpipe_grid;
    cudaFuncAttributes kpipe_a;
    cudaError_t kpipe_e = cudaFuncGetAttributes(&kpipe_a, %(kfn)s);
    if (kpipe_e != cudaSuccess)
        return (int)kpipe_e;
    if (kpipe_smem > 0) {
        kpipe_e = cudaFuncSetAttribute(%(kfn)s, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       (int)kpipe_smem);
        if (kpipe_e != cudaSuccess)
            return (int)kpipe_e;
    }
    const int kpipe_threads = (int)(kpipe_block.x * kpipe_block.y * kpipe_block.z);
    int kpipe_blocks = 0;
    kpipe_e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&kpipe_blocks, %(kfn)s,
                                                            kpipe_threads, kpipe_smem);
    kpipe_out[0] = kpipe_a.numRegs;
    kpipe_out[1] = (int)kpipe_a.sharedSizeBytes;
    kpipe_out[2] = (int)kpipe_a.localSizeBytes;
    kpipe_out[3] = kpipe_a.maxThreadsPerBlock;
    kpipe_out[4] = kpipe_blocks;
    kpipe_out[5] = kpipe_threads;
    return (int)kpipe_e;
}
""" % {"label": label, "path": os.path.abspath(version_path), "syms": syms, "geom": geom,
       "kfn": kfn, "args": ",\n        ".join(args),
       "launch": ("%s(kpipe_grid, kpipe_block, kpipe_smem, kpipe_stream," % launcher if launcher else
                  "%s<<<kpipe_grid, kpipe_block, kpipe_smem, kpipe_stream>>>(" % kfn)}


# ---------------------------------------------------------------- building

PTXAS_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '([^']+)'")
PTXAS_PROPS = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
PTXAS_USED = re.compile(r"Used (\d+) registers(?:.*?(\d+) bytes smem)?")


def parse_ptxas(text):
    entries, cur = [], None
    for line in text.splitlines():
        m = PTXAS_ENTRY.search(line)
        if m:
            cur = {"function": m.group(1), "arch": m.group(2)}
            entries.append(cur)
            continue
        if cur is None:
            continue
        m = PTXAS_PROPS.search(line)
        if m:
            cur.update(stack=int(m.group(1)), spill_stores=int(m.group(2)), spill_loads=int(m.group(3)))
        m = PTXAS_USED.search(line)
        if m:
            cur["registers"] = int(m.group(1))
            cur["smem"] = int(m.group(2) or 0)
    return entries


def demangle(names):
    tool = shutil.which("c++filt") or shutil.which("cu++filt")
    if not tool or not names:
        return {n: n for n in names}
    try:
        out = subprocess.run([tool], input="\n".join(names), capture_output=True, text=True,
                             timeout=30).stdout.splitlines()
        if len(out) == len(names):
            return dict(zip(names, out))
    except (OSError, subprocess.SubprocessError):
        pass
    return {n: n for n in names}


def pick_entry(entries, spec):
    """The ptxas entry of the launched kernel (instantiation), if found."""
    if not entries:
        return None
    dem = demangle([e["function"] for e in entries])
    want = (spec["kernel"].lstrip(":") + spec["template_args"]).replace(" ", "")
    for e in entries:
        d = dem[e["function"]].replace(" ", "")
        d = re.sub(r"^void", "", d)
        if d.startswith(want + "(") or (not spec["template_args"] and d == want):
            return e
    for e in entries:
        if spec["kernel"].split("::")[-1] in e["function"]:
            return e
    return None


class Builder:
    def __init__(self, args):
        self.nvcc = args.nvcc
        self.arch = args.arch
        self.reuse = args.reuse_build
        # a rewrite copied out of samples/ still finds the headers its
        # sample includes (tile_loaders.cuh): its own folder first, then this
        self.extra = ["-I", os.path.abspath(args.samples_dir)] + \
            (args.nvcc_flags.split() if args.nvcc_flags else [])
        cuda_root = os.path.dirname(os.path.dirname(os.path.realpath(self.nvcc)))
        self.rpath = []
        for d in ("lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib"):
            p = os.path.join(cuda_root, d)
            if os.path.isdir(p):
                self.rpath += ["-Xlinker", "-rpath," + p]

    def _run(self, cmd, log, out):
        # --reuse-build: an output whose log starts with this very command
        # is kept (a --compile-only run built it, on this machine)
        if self.reuse and os.path.exists(out) and os.path.exists(log):
            with open(log) as f:
                first, _, rest = f.read().partition("\n")
            if first == " ".join(cmd):
                return 0, rest, 0.0
        t0 = time.time()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
            rc, text = p.returncode, p.stdout + p.stderr
        except (OSError, subprocess.TimeoutExpired) as e:
            rc, text = -1, str(e)
        with open(log, "w") as f:
            f.write(" ".join(cmd) + "\n" + text)
        return rc, text, time.time() - t0

    def library(self, launcher, out, log):
        cmd = [self.nvcc, "-O3", "-arch=" + self.arch, "-lineinfo", "-Xptxas", "-v", "-shared",
               "-Xcompiler", "-fPIC,-fvisibility=hidden", "-cudart", "shared"] + self.rpath + \
              self.extra + ["-o", out, launcher]
        return self._run(cmd, log, out)

    def harness(self, build_dir, out, log):
        cmd = [self.nvcc, "-O2", "-std=c++17", "-cudart", "shared", "-I", build_dir] + self.rpath + \
              ["-o", out, HARNESS_MAIN, "-ldl"]
        return self._run(cmd, log, out)


def compile_report(rc, text, secs, spec):
    warnings = [l.strip() for l in text.splitlines()
                if re.search(r"\bwarning\b", l, re.I) and "ptxas info" not in l]
    entries = parse_ptxas(text)
    entry = pick_entry(entries, spec)
    rep = {"ok": rc == 0, "seconds": round(secs, 2), "warnings": warnings[:20]}
    if entry:
        rep["ptxas"] = entry
    if rc != 0:
        errs = [l for l in text.splitlines() if "error" in l.lower()]
        rep["log_tail"] = "\n".join((errs or text.splitlines())[-15:])
    return rep


# ---------------------------------------------------------------- samples


class Version:
    def __init__(self, name, path, kind):
        self.name, self.path, self.kind = name, os.path.abspath(path), kind
        self.lib = None
        self.r = {"name": name, "path": os.path.relpath(self.path, REPO) if self.path.startswith(REPO)
                  else self.path, "kind": kind, "checks": {}, "errors": [], "sanitize": {}}


class Sample:
    def __init__(self, spec, baseline, variants):
        self.spec = spec
        self.versions = [Version("baseline", baseline, "baseline")] + variants
        self.harness = None
        self.r = {"name": spec["name"], "kernel": spec["kernel"] + spec["template_args"],
                  "spec": os.path.relpath(spec["path"], REPO) if spec["path"].startswith(REPO) else spec["path"],
                  "eligible": spec["eligible"], "sizes": spec["sizes"], "errors": [], "notes": []}

    @property
    def baseline(self):
        return self.versions[0]


def discover(args):
    """--all DIR: every sample with its kpipe outputs, hand references and naive references."""
    samples, notes, problems = [], [], []
    specs = sorted(glob.glob(os.path.join(args.samples_dir, "*.launch.json")))
    if not specs:
        raise SpecError("no launch specs in '%s'" % args.samples_dir)
    names = set()
    outdir = args.all
    if not os.path.isdir(outdir):
        notes.append("kpipe output folder '%s' does not exist: original and hand-written versions only"
                     % outdir)
    for sp in specs:
        spec = load_spec(sp)
        name = spec["name"]
        names.add(name)
        base = os.path.join(os.path.dirname(sp), name + ".cu")
        if not os.path.isfile(base):
            raise SpecError("'%s' has no kernel file '%s'" % (sp, base))
        produced = sorted(glob.glob(os.path.join(outdir, glob.escape(name) + ".*.cu")))
        if not spec["eligible"]:
            for p in produced:
                problems.append("'%s' exists although kpipe must refuse '%s' (%s)"
                                % (p, name, spec["refusal"] or "ineligible"))
            if not args.include_ineligible:
                continue
        variants = []
        for p in produced:
            variants.append((os.path.basename(p)[len(name) + 1: -3], p, "variant"))
        if not args.no_hand:
            for p in sorted(glob.glob(os.path.join(args.hand_dir, glob.escape(name) + ".*.cu"))):
                variants.append(("hand-" + os.path.basename(p)[len(name) + 1: -3], p, "hand"))
        if not args.no_ref:
            for p in sorted(glob.glob(os.path.join(args.ref_dir, glob.escape(name) + ".*.cu"))):
                variants.append((os.path.basename(p)[len(name) + 1: -3], p, "ref"))
        for one in per_instantiation(spec):
            samples.append(Sample(one, base, [Version(*v) for v in variants]))
    if os.path.isdir(outdir):
        for p in sorted(glob.glob(os.path.join(outdir, "*.cu"))):
            if os.path.basename(p).split(".")[0] not in names:
                notes.append("'%s' matches no sample" % p)
    return samples, notes, problems


def build_all(samples, args, build_root):
    builder = Builder(args)
    tasks = []
    for si, s in enumerate(samples):
        d = os.path.join(build_root, "%02d_%s" % (si, re.sub(r"[^A-Za-z0-9_.@-]", "_", s.spec["name"])))
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "kpipe_bench_spec.h"), "w") as f:
            f.write(gen_spec_header(s.spec))
        s.build_dir = d
        tasks.append(("harness", s, None))
        for vi, v in enumerate(s.versions):
            smem = s.spec["dynamic_smem"]
            launcher = None
            try:
                text = version_text(v.path)
                over = override_of(text, s.spec["kernel"])
                launcher = launcher_of(text, s.spec["kernel"])
                if over is not None:
                    smem = _expr(over, "%s: kpipe-launch dynamic_smem" % v.path)
                    v.r["dynamic_smem"] = smem
            except OSError as e:
                v.r["compile"] = {"ok": False, "seconds": 0, "warnings": [], "log_tail": str(e)}
                continue
            except SpecError as e:
                v.r["compile"] = {"ok": False, "seconds": 0, "warnings": [], "log_tail": str(e)}
                continue
            stem = "v%02d_%s" % (vi, re.sub(r"[^A-Za-z0-9_.-]", "_", v.name))
            src = os.path.join(d, stem + ".launch.cu")
            with open(src, "w") as f:
                f.write(gen_launcher(s.spec, v.path, "%s / %s" % (s.spec["name"], v.name), smem, launcher))
            v.stem = stem
            tasks.append(("lib", s, v))

    def work(task):
        kind, s, v = task
        if kind == "harness":
            out = os.path.join(s.build_dir, "harness")
            rc, text, secs = builder.harness(s.build_dir, out, out + ".log")
            return task, rc, text, secs, out
        out = os.path.join(s.build_dir, v.stem + ".so")
        rc, text, secs = builder.library(os.path.join(s.build_dir, v.stem + ".launch.cu"), out,
                                         os.path.join(s.build_dir, v.stem + ".log"))
        return task, rc, text, secs, out

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for (kind, s, v), rc, text, secs, out in pool.map(work, tasks):
            if kind == "harness":
                if rc == 0:
                    s.harness = out
                else:
                    s.r["errors"].append("harness did not build:\n" + "\n".join(text.splitlines()[-15:]))
            else:
                v.r["compile"] = compile_report(rc, text, secs, s.spec)
                if rc == 0:
                    v.lib = out


# ---------------------------------------------------------------- running


def parse_events(text):
    events = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                events.append(json.loads(line))
            except ValueError:
                pass
    return events


def run_harness(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr, False
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        return None, out, err, True


def run_sample(s, args, meta):
    """Checks (and times) every built version of one sample; fills the results."""
    base = s.baseline
    if not s.harness or not base.lib:
        s.r["errors"].append("original kernel did not build" if not base.lib else "no harness")
        return
    sizes = [z for z in s.spec["sizes"] if args.sizes is None or z in args.sizes]
    # the timed size last, so that quick failures show up first
    sizes = [z for z in sizes if z != args.time_size] + [z for z in sizes if z == args.time_size]
    tsize = None if args.no_time or args.time_size not in sizes else args.time_size
    timed = [v for v in s.versions[1:] if v.lib and v.kind not in ("ref", "yard")]
    refs = [v for v in s.versions[1:] if v.lib and v.kind == "ref"]
    yards = [v for v in s.versions[1:] if v.lib and v.kind == "yard"]
    # Pass 1: original + variants at every size, timing at the target size.
    # Pass 2: original + naive references, untimed, the target size left out.
    # Pass 3: original + yardsticks at the timed size alone (an author's
    # kernel need not handle K = 0 or fewer tiles than its stages).
    passes = [(timed, sizes, tsize)]
    if refs:
        passes.append((refs, [z for z in sizes if z != args.time_size] or sizes, None))
    if yards:
        passes.append((yards, [tsize] if tsize else sizes, tsize))
    for group, psizes, ptime in passes:
        active = list(group)
        while True:
            cmd = [s.harness, "--reps", str(args.reps), "--warmup", str(args.warmup),
                   "--sizes", ",".join(psizes), "--lib", "baseline=" + base.lib]
            cmd += sum((["--lib", "%s=%s" % (v.name, v.lib)] for v in active), [])
            if ptime:
                cmd += ["--time", ptime]
            rc, out, err, timed_out = run_harness(cmd, args.run_timeout)
            events = parse_events(out)
            if rc == 0:
                absorb(s, events, meta)
                break
            begins = [e for e in events if e.get("event") == "begin"]
            why = "timed out after %ds" % args.run_timeout if timed_out else \
                "harness exited with %s" % rc
            fatal = [e for e in events if e.get("event") == "fatal"]
            if fatal:
                why = fatal[-1].get("msg", why)
            tail = "\n".join(err.strip().splitlines()[-8:])
            if not begins or rc in (2, 4):
                absorb(s, events, meta)
                s.r["errors"].append("harness failed (%s)%s" % (why, ("\n" + tail) if tail else ""))
                break
            culprit, csize = begins[-1].get("version"), begins[-1].get("size")
            if culprit == "baseline":
                absorb(s, events, meta)
                s.r["errors"].append("original kernel failed at size '%s': %s" % (csize, why))
                break
            v = next(v for v in active if v.name == culprit)
            v.r["errors"].append("size '%s': %s; left out of the rest of the run" % (csize, why))
            v.r["checks"].setdefault(csize, {"ok": False, "error": why})
            active = [x for x in active if x is not v]


def absorb(s, events, meta):
    by = {v.name: v for v in s.versions}
    for e in events:
        ev = e.get("event")
        v = by.get(e.get("version"))
        if ev == "device":
            meta.setdefault("device", {k: e[k] for k in e if k != "event"})
        elif ev == "attrs" and v:
            v.r["attrs"] = {k: e[k] for k in e if k not in ("event", "version")}
        elif ev == "baseline":
            s.r.setdefault("baseline_checks", {})[e["size"]] = {k: e[k] for k in e if k not in ("event", "size")}
            s.baseline.r["checks"][e["size"]] = {"ok": e.get("ok", False),
                                                "unwritten": e.get("unwritten"),
                                                "nondeterministic": e.get("nondeterministic")}
        elif ev == "check" and v:
            v.r["checks"][e["size"]] = {k: e[k] for k in e if k not in ("event", "version", "size")}
        elif ev == "time" and v:
            t = {k: e[k] for k in e if k not in ("event", "version")}
            secs = (t.get("median_ms") or 0) * 1e-3
            if secs > 0 and e.get("work"):
                unit = "gbps" if e.get("work_kind") == "bytes" else "gflops"
                t[unit] = e["work"] / secs / 1e9
            v.r["time"] = t
        elif ev == "error":
            msg = "size '%s', %s: %s" % (e.get("size"), e.get("stage"), e.get("msg"))
            if v:
                v.r["errors"].append(msg)
                if e.get("size"):
                    v.r["checks"].setdefault(e["size"], {"ok": False, "error": e.get("msg")})
            else:
                s.r["errors"].append(msg)
    bt = s.baseline.r.get("time")
    for v in s.versions[1:]:
        t = v.r.get("time")
        if bt and t and t.get("median_ms"):
            t["speedup"] = bt["median_ms"] / t["median_ms"]


SAN_ERR = re.compile(r"ERROR SUMMARY: (\d+) errors?")
SAN_RACE = re.compile(r"RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)")


def sanitize_one(s, v, tool, size, args):
    cmd = [args.sanitizer, "--tool", tool, "--error-exitcode", "86", "--print-limit", "20",
           s.harness, "--single", "--sizes", size, "--lib", "%s=%s" % (v.name, v.lib)]
    t0 = time.time()
    rc, out, err, timed_out = run_harness(cmd, args.sanitize_timeout)
    text = out + err
    res = {"seconds": round(time.time() - t0, 1), "size": size}
    m = SAN_RACE.search(text)
    errors = int(m.group(2)) if m else None
    warnings = int(m.group(3)) if m else 0
    m = SAN_ERR.search(text)
    if m:
        errors = (errors or 0) + int(m.group(1))
    ran = any(e.get("event") == "single" for e in parse_events(out))
    if timed_out:
        res["status"] = "timeout"
    elif "not supported" in text.lower() and not ran:
        res["status"] = "unsupported"
    elif rc == 86 or (errors or 0) > 0:
        res["status"] = "fail"
    elif rc == 0 and ran:
        res["status"] = "pass"
    else:
        res["status"] = "error"
    res["errors"], res["warnings"] = errors or 0, warnings
    if res["status"] != "pass" or warnings:
        keep = [l for l in text.splitlines() if l.startswith("=========") and l.strip("= ")]
        keep = keep or text.splitlines()
        summary = [l for l in keep if "SUMMARY" in l]
        res["excerpt"] = "\n".join(keep[:8] + (["========= ..."] if len(keep) > 8 else []) +
                                   [l for l in summary if l not in keep[:8]])
    return res


def sanitize_all(samples, args):
    if not args.sanitizer:
        for s in samples:
            s.r["notes"].append("compute-sanitizer not found: sanitizer runs skipped")
        return
    tasks = []
    for s in samples:
        if not s.harness:
            continue
        sizes = [z for z in args.sanitize_sizes if z in s.spec["sizes"]] or [next(iter(s.spec["sizes"]))]
        for v in s.versions:
            # references and yardsticks (other people's kernels, cuBLAS) are
            # not ours to sanitize
            if v.lib and v.kind not in ("ref", "yard") and not v.r["errors"]:
                for tool in args.tools:
                    for size in sizes:
                        tasks.append((s, v, tool, size))
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.sanitize_jobs) as pool:
        futs = {pool.submit(sanitize_one, s, v, tool, size, args): (v, tool, size) for s, v, tool, size in tasks}
        for f in concurrent.futures.as_completed(futs):
            v, tool, size = futs[f]
            res = f.result()
            # one cell per tool: the worst of its sizes (a pass needs every size clean)
            prev = v.r["sanitize"].get(tool)
            order = ("pass", "unsupported", "timeout", "error", "fail")
            if prev is None:
                res["sizes"] = {size: res["status"]}
                v.r["sanitize"][tool] = res
            else:
                prev["sizes"][size] = res["status"]
                if order.index(res["status"]) > order.index(prev["status"]):
                    res["sizes"] = prev["sizes"]
                    v.r["sanitize"][tool] = res


# ---------------------------------------------------------------- verdicts and report


def version_ok(s, v, args):
    r = v.r
    if not r.get("compile", {}).get("ok"):
        return False
    if r["errors"]:
        return False
    checks = r["checks"]
    if not checks or not all(c.get("ok") for c in checks.values()):
        return False
    if any(x.get("status") in ("fail", "error", "timeout") for x in r["sanitize"].values()):
        return False
    return True


def fmt_err(v):
    worst_abs = worst_rel = 0.0
    differ = 0
    for c in v.r["checks"].values():
        differ += c.get("differ") or 0
        for k, cur in (("max_abs", "a"), ("max_rel", "r")):
            x = c.get(k)
            if x is None and c.get("differ"):
                x = float("inf")
            if x is not None:
                if cur == "a":
                    worst_abs = max(worst_abs, x)
                else:
                    worst_rel = max(worst_rel, x)
    if v.kind == "baseline" or not v.r["checks"]:
        return "-"
    if any(c.get("error") or c.get("mismatches") is None for c in v.r["checks"].values()):
        return "-"
    if differ == 0:
        return "exact"
    return "abs %.2g, rel %.2g" % (worst_abs, worst_rel)


def fmt_check(v):
    if not v.r.get("compile", {}).get("ok"):
        return "**BUILD FAIL**"
    checks = v.r["checks"]
    if not checks:
        return "not run"
    bad = [z for z, c in checks.items() if not c.get("ok")]
    if not bad:
        return "ok %d/%d" % (len(checks), len(checks))
    parts = []
    for z in bad:
        c = checks[z]
        if c.get("error"):
            parts.append("%s: error" % z)
        elif c.get("mismatches") is not None:
            what = []
            if c["mismatches"]:
                what.append("%d bad" % c["mismatches"])
            if c.get("unwritten"):
                what.append("%d unwritten" % c["unwritten"])
            if c.get("clobbered_inputs"):
                what.append("input written")
            parts.append("%s: %s" % (z, ", ".join(what) or "fail"))
        else:
            parts.append("%s: fail" % z)
    return "**FAIL** " + "; ".join(parts)


def fmt_san(v, tool):
    x = v.r["sanitize"].get(tool)
    if not x:
        return "-"
    st = x["status"]
    if st == "pass":
        return "pass" + (" (%d warn)" % x["warnings"] if x.get("warnings") else "")
    if st == "fail":
        return "**FAIL** (%d)" % x["errors"]
    if st == "unsupported":
        return "n/a"
    return "**%s**" % st.upper()


def report_md(samples, meta, notes, problems, args):
    out = []
    dev = meta.get("device", {})
    out.append("# kpipe GPU bench")
    out.append("")
    out.append("- date: %s" % meta["date"])
    if dev:
        out.append("- device: %s (cc %s, %s SMs, %s MHz), driver %s, runtime %s"
                   % (dev.get("name"), dev.get("cc"), dev.get("sms"), dev.get("clock_mhz"),
                      dev.get("driver"), dev.get("runtime")))
    out.append("- nvcc: %s, `-O3 -arch=%s -lineinfo`" % (meta.get("nvcc", "?"), args.arch))
    out.append("- timing: size `%s`, %d warm-ups, median of %d launches (cudaEvent per launch)"
               % (args.time_size, args.warmup, args.reps))
    out.append("- checks: every element of every output against the original (|a-b| <= abs + rel*|b|); "
               "'exact' = bit-identical at every size")
    if args.sanitize:
        out.append("- sanitizers at size%s `%s`: %s" % ("s" if len(args.sanitize_sizes) > 1 else "",
                                                          "`, `".join(args.sanitize_sizes), ", ".join(args.tools)))
    for n in problems:
        out.append("- **problem**: %s" % n)
    for n in notes:
        out.append("- note: %s" % n)
    out.append("")

    # Overview.
    out.append("## Overview")
    out.append("")
    out.append("| sample | original | best variant | verdict |")
    out.append("|---|---|---|---|")
    for s in samples:
        bt = s.baseline.r.get("time") or {}
        rate = _rate(bt)
        best = None
        for v in s.versions[1:]:
            t = v.r.get("time") or {}
            if t.get("speedup") and v.kind != "yard" and version_ok(s, v, args) and \
                    (best is None or t["speedup"] > best[1]):
                best = (v.name, t["speedup"])
        bad = [v.name for v in s.versions if v.kind != "yard" and not version_ok(s, v, args)]
        verdict = "ok" if not bad and not s.r["errors"] else "**FAIL**: " + ", ".join(bad or ["see below"])
        out.append("| %s | %s | %s | %s |" % (s.spec["name"], ("%.3f ms, %s" % (bt["median_ms"], rate)) if bt.get("median_ms") else "-",
                                          "%s %.3fx" % best if best else "-", verdict))
    out.append("")

    for s in samples:
        tsz = s.spec["sizes"].get(args.time_size, {})
        out.append("## %s" % s.spec["name"])
        out.append("")
        out.append("kernel `%s`, %s%s" % (s.r["kernel"], ("eligible" if s.spec["eligible"] else "refused: " + (s.spec["refusal"] or "ineligible")),
                                          ", timed at " + " ".join("%s=%d" % kv for kv in tsz.items()) if tsz else ""))
        out.append("")
        cols = ["version", "check", "max err", "median ms", "min-max ms", "rate", "speedup", "regs",
                "smem B", "spill B", "blk/SM"]
        if args.sanitize:
            cols += list(args.tools)
        out.append("| " + " | ".join(cols) + " |")
        out.append("|" + "---|" * len(cols))
        for v in s.versions:
            t = v.r.get("time") or {}
            a = v.r.get("attrs") or {}
            px = v.r.get("compile", {}).get("ptxas") or {}
            spill = (px.get("spill_stores", 0) + px.get("spill_loads", 0)) if px else None
            row = [v.name + {"ref": " (ref)", "yard": " (yardstick)"}.get(v.kind, ""), fmt_check(v), fmt_err(v),
                   "%.4f" % t["median_ms"] if t.get("median_ms") else "-",
                   "%.4f-%.4f" % (t["min_ms"], t["max_ms"]) if t.get("median_ms") else "-",
                   _rate(t) or "-",
                   "%.3fx" % t["speedup"] if t.get("speedup") else ("1.000x" if v.kind == "baseline" and t else "-"),
                   str(a.get("regs", px.get("registers", "-"))),
                   str(a.get("smem_static", px.get("smem", "-"))),
                   str(spill) if spill is not None else "-",
                   str(a.get("blocks_per_sm", "-"))]
            if v.kind == "yard":  # its attributes are the textbook kernel's: the harness launches through it
                row[7:11] = ["-"] * 4
            if args.sanitize:
                row += [fmt_san(v, tool) for tool in args.tools]
            out.append("| " + " | ".join(row) + " |")
        out.append("")
        details = []
        for e in s.r["errors"]:
            details.append("- sample: %s" % e.replace("\n", "\n  "))
        for z, c in (s.r.get("baseline_checks") or {}).items():
            if not c.get("ok"):
                details.append("- original at '%s': %s unwritten, %s non-deterministic elements"
                               % (z, c.get("unwritten"), c.get("nondeterministic")))
        for v in s.versions:
            comp = v.r.get("compile", {})
            if comp and not comp.get("ok"):
                details.append("- %s: build failed:\n\n```\n%s\n```" % (v.name, comp.get("log_tail", "")))
            for w in comp.get("warnings", [])[:5]:
                details.append("- %s: compiler warning: `%s`" % (v.name, w))
            for e in v.r["errors"]:
                details.append("- %s: %s" % (v.name, e))
            for z, c in v.r["checks"].items():
                if c.get("first_mismatch"):
                    fm = c["first_mismatch"]
                    details.append("- %s at '%s': %d of %d elements wrong, first %s[%d] = %s, expected %s"
                                   % (v.name, z, c["mismatches"], c["elements"], fm["arg"], fm["index"],
                                      "unwritten" if fm.get("unwritten") else fm["got"], fm["want"]))
                if c.get("clobbered_inputs"):
                    details.append("- %s at '%s': wrote into %d input buffer(s)" % (v.name, z, c["clobbered_inputs"]))
            for tool, x in v.r["sanitize"].items():
                if x["status"] != "pass" or x.get("warnings"):
                    details.append("- %s: %s %s:\n\n```\n%s\n```" % (v.name, tool, x["status"], x.get("excerpt", "")))
        if details:
            out.append("Details:")
            out.append("")
            out.extend(details)
            out.append("")
    return "\n".join(out) + "\n"


def _finite(x):
    """JSON has no inf/nan: such numbers become null."""
    if isinstance(x, float) and (x != x or x in (float("inf"), float("-inf"))):
        return None
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    return x


def _rate(t):
    if t.get("gflops"):
        return "%.0f GFLOP/s" % t["gflops"]
    if t.get("gbps"):
        return "%.0f GB/s" % t["gbps"]
    return ""


# ---------------------------------------------------------------- main


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="examples:" + __doc__.split("Examples:")[1])
    g = p.add_argument_group("what to run")
    g.add_argument("--spec", help="launch spec of one sample (NAME.launch.json)")
    g.add_argument("--baseline", help="the original kernel file (default: the spec's NAME.cu)")
    g.add_argument("--variant", action="append", default=[], metavar="NAME=FILE",
                   help="a version to check and time against the original (repeatable)")
    g.add_argument("--ref", action="append", default=[], metavar="NAME=FILE",
                   help="an independent reference: checked at every size but the timed one, never timed")
    g.add_argument("--yardstick", action="append", default=[], metavar="NAME=FILE",
                   help="another author's kernel or a library call (cuBLAS) to time beside the variants: "
                        "checked and reported, but its failures do not fail the run, it is not sanitized "
                        "and never the best variant")
    g.add_argument("--all", metavar="DIR",
                   help="every eligible sample, with DIR/NAME.VARIANT.cu as variants, plus "
                        "bench/hand/NAME.*.cu (as hand-*) and bench/ref/NAME.*.cu (as references)")
    g.add_argument("--samples-dir", default=os.path.join(REPO, "samples"))
    g.add_argument("--hand-dir", default=os.path.join(HERE, "hand"))
    g.add_argument("--ref-dir", default=os.path.join(HERE, "ref"))
    g.add_argument("--no-hand", action="store_true", help="--all: leave out bench/hand")
    g.add_argument("--no-ref", action="store_true", help="--all: leave out bench/ref")
    g.add_argument("--include-ineligible", action="store_true",
                   help="--all: also run samples whose spec says eligible: false")
    g.add_argument("--sizes", default="all", help="comma-separated size names, or 'all' (default)")
    g = p.add_argument_group("how")
    g.add_argument("--arch", default="sm_90")
    g.add_argument("--nvcc", default=None, help="default: nvcc on PATH, else /usr/local/cuda/bin/nvcc")
    g.add_argument("--nvcc-flags", default="", help="extra flags for every kernel build")
    g.add_argument("--jobs", type=int, default=min(16, os.cpu_count() or 4), help="parallel builds")
    g.add_argument("--build-dir", help="where to build (default: a fresh temporary folder)")
    g.add_argument("--compile-only", action="store_true", help="stop after building (no GPU needed)")
    g.add_argument("--reuse-build", action="store_true",
                   help="with --build-dir: keep what an earlier run built there with the same command")
    g.add_argument("--time-size", default="target")
    g.add_argument("--no-time", action="store_true")
    g.add_argument("--reps", type=int, default=21)
    g.add_argument("--warmup", type=int, default=3)
    g.add_argument("--run-timeout", type=int, default=180, help="seconds for one harness run")
    g.add_argument("--sanitize", action="store_true", help="compute-sanitizer on one launch of each version")
    g.add_argument("--sanitize-size", default="small",
                   help="size(s) for compute-sanitizer, comma-separated (every one must be clean)")
    g.add_argument("--sanitize-tools", default=",".join(TOOLS))
    g.add_argument("--sanitize-jobs", type=int, default=6)
    g.add_argument("--sanitize-timeout", type=int, default=300)
    g = p.add_argument_group("output")
    g.add_argument("--json", help="write every figure here")
    g.add_argument("--report", help="also write the markdown report here")
    g.add_argument("--quiet", action="store_true", help="no markdown on stdout")
    args = p.parse_args(argv)
    if bool(args.spec) == bool(args.all):
        p.error("give either --spec (one sample) or --all DIR")
    if args.all and (args.variant or args.ref or args.yardstick or args.baseline):
        p.error("--variant/--ref/--yardstick/--baseline go with --spec, not --all")
    args.sizes = None if args.sizes == "all" else [z for z in args.sizes.split(",") if z]
    args.tools = [t for t in args.sanitize_tools.split(",") if t]
    args.sanitize_sizes = [z for z in args.sanitize_size.split(",") if z]
    for t in args.tools:
        if t not in TOOLS + ("initcheck",):
            p.error("unknown sanitizer tool '%s'" % t)
    if not args.nvcc:
        args.nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    cuda_bin = os.path.dirname(os.path.realpath(args.nvcc))
    args.sanitizer = shutil.which("compute-sanitizer") or (
        os.path.join(cuda_bin, "compute-sanitizer") if os.path.exists(os.path.join(cuda_bin, "compute-sanitizer")) else None)
    return args


def main(argv=None):
    args = parse_args(argv if argv is not None else sys.argv[1:])
    t_start = time.time()
    try:
        if args.all:
            samples, notes, problems = discover(args)
        else:
            spec = load_spec(args.spec)
            base = args.baseline or os.path.join(os.path.dirname(args.spec), spec["name"] + ".cu")
            vers = []
            for kind, items in (("variant", args.variant), ("ref", args.ref), ("yard", args.yardstick)):
                for item in items:
                    if "=" not in item:
                        raise SpecError("'%s': expected NAME=FILE" % item)
                    nm, path = item.split("=", 1)
                    if not IDENT.match(nm.replace("-", "_")) or nm == "baseline":
                        raise SpecError("'%s': bad version name" % nm)
                    vers.append((nm, path, kind))
            for path in [base] + [v[1] for v in vers]:
                if not os.path.isfile(path):
                    raise SpecError("'%s': no such file" % path)
            samples = [Sample(one, base, [Version(*v) for v in vers]) for one in per_instantiation(spec)]
            notes, problems = [], []
    except SpecError as e:
        print("gpu_bench: %s" % e, file=sys.stderr)
        return 2
    if not os.path.exists(args.nvcc):
        print("gpu_bench: nvcc not found ('%s')" % args.nvcc, file=sys.stderr)
        return 2

    build_root = args.build_dir or tempfile.mkdtemp(prefix="kpipe-bench-")
    os.makedirs(build_root, exist_ok=True)
    meta = {"date": datetime.datetime.now().isoformat(timespec="seconds"), "host": platform.node(),
            "arch": args.arch, "build_dir": build_root}
    try:
        meta["nvcc"] = subprocess.run([args.nvcc, "--version"], capture_output=True,
                                      text=True).stdout.strip().splitlines()[-1]
    except (OSError, IndexError):
        meta["nvcc"] = "?"

    print("gpu_bench: building %d sample(s), %d version(s) in %s"
          % (len(samples), sum(len(s.versions) for s in samples), build_root), file=sys.stderr)
    build_all(samples, args, build_root)
    meta["build_seconds"] = round(time.time() - t_start, 1)
    print("gpu_bench: built in %.0fs" % meta["build_seconds"], file=sys.stderr)

    if not args.compile_only:
        for s in samples:
            t0 = time.time()
            run_sample(s, args, meta)
            print("gpu_bench: ran %s in %.1fs" % (s.spec["name"], time.time() - t0), file=sys.stderr)
        if args.sanitize:
            t0 = time.time()
            sanitize_all(samples, args)
            print("gpu_bench: sanitizers took %.0fs" % (time.time() - t0), file=sys.stderr)
    meta["seconds"] = round(time.time() - t_start, 1)

    failed = bool(problems)
    for s in samples:
        if s.r["errors"]:
            failed = True
        for v in s.versions:
            if args.compile_only:
                ok = v.r.get("compile", {}).get("ok", False) and s.harness is not None
            else:
                ok = version_ok(s, v, args)
            v.r["ok"] = ok
            # a yardstick's check is reported, never a failure of the run
            failed |= not ok and v.kind != "yard"
        s.r["versions"] = [v.r for v in s.versions]

    if args.compile_only:
        lines = ["| sample | version | build | regs | spill B | warnings |", "|---|---|---|---|---|---|"]
        for s in samples:
            for v in s.versions:
                c = v.r.get("compile", {})
                px = c.get("ptxas") or {}
                lines.append("| %s | %s | %s | %s | %s | %d |" % (
                    s.spec["name"], v.name, "ok" if c.get("ok") else "**FAIL**",
                    px.get("registers", "-"), px.get("spill_stores", 0) + px.get("spill_loads", 0) if px else "-",
                    len(c.get("warnings", []))))
            if not s.harness:
                lines.append("| %s | (harness) | **FAIL** | | | |" % s.spec["name"])
        md = "# kpipe GPU bench: build only\n\n" + "\n".join(lines) + "\n"
        for s in samples:
            for v in s.versions:
                c = v.r.get("compile", {})
                if not c.get("ok"):
                    md += "\n%s / %s:\n```\n%s\n```\n" % (s.spec["name"], v.name, c.get("log_tail", ""))
            for e in s.r["errors"]:
                md += "\n%s: %s\n" % (s.spec["name"], e)
    else:
        md = report_md(samples, meta, notes, problems, args)
    if not args.quiet:
        sys.stdout.write(md)
    if args.report:
        with open(args.report, "w") as f:
            f.write(md)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(_finite({"meta": meta, "problems": problems, "notes": notes, "samples": [s.r for s in samples]}), f,
                      indent=1, allow_nan=False, default=str)
    print("gpu_bench: %s in %.0fs" % ("FAILED" if failed else "all passed", meta["seconds"]), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
