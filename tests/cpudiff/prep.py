#!/usr/bin/env python3
"""prep.py - turn a CUDA source into C++ that g++ compiles against
runtime/emu/kp_cpu_cuda.h (the CPU checker, docs/cpudiff.md).

    python3 tests/cpudiff/prep.py KERNEL.cu -o OUT.cpp

- `NAME<<<grid, block[, smem[, stream]]>>>(args)` (NAME may be qualified and
  carry template arguments) becomes
  `kp::launch(kp::cfg(grid, block, smem, stream), NAME, args)`;
- `extern __shared__ T name[];` becomes a pointer to the emulator's dynamic
  shared memory;
- each `__shared__ T name[...];` (one declarator, no initializer) gets a
  static kp::ShmReg on the same line, so the emulator can fill it with
  poison at every block start;
- the inline PTX of kpipe's bulk helpers (mbarrier init, arrive,
  arrive.expect_tx, try_wait.parity, the fences, cp.async.bulk) becomes
  calls of the emulator's kp::ptx_* functions;
- constructs the emulator cannot run (warp shuffles and votes, other inline PTX,
  cooperative groups beyond the thread block, textures, ...) are reported: exit status 77 and a line
  `SKIP: ...` on stdout.

Line numbers are kept (#line and padding), so g++ errors and the emulator's
barrier reports point into the original file.  Python standard library only.
"""

import argparse
import re
import sys

SKIP_STATUS = 77

# (regex over the code without comments and string contents, reason)
UNSUPPORTED = [
    (r"\b(__shfl\w*|__ballot\w*|__any_sync|__all_sync|__any|__all|__activemask|"
     r"__match_\w+_sync|__reduce_\w+_sync)\s*\(",
     "the warp-collective operation {0}"),
    # the block-level part (thread_block, this_thread_block(), its sync()
    # and cg::sync(block)) is emulated by include/cooperative_groups.h
    (r"\b(tiled_partition|thread_block_tile|coalesced_threads|coalesced_group|"
     r"this_grid|grid_group|this_multi_grid|multi_grid_group|this_cluster|cluster_group|"
     r"thread_group|labeled_partition|binary_partition|barrier_arrive|barrier_wait|"
     r"invoke_one\w*)\b",
     "cooperative groups ({0})"),
    (r"\basm\b|\b__asm__\b|\b__asm\b", "inline PTX ({0})"),
    (r"\bcuda::(memcpy_async|pipeline\w*|barrier|ptx)\b|\b__pipeline_arrive_on\b|"
     r"\bcuda::std::",
     "libcu++ ({0})"),
    (r"\btex[123]D\w*\s*\(|\btexture\s*<|\bsurf[123]D\w*\s*\(|\bcudaTextureObject_t\b",
     "texture or surface access ({0})"),
    (r"\b__nv_bfloat16\w*|\b__nv_fp8\w*|\bnv_bfloat16\b", "the type {0}"),
    (r"#\s*include\s*[<\"](cuda_bf16\.h|cuda_fp8\.h|cooperative_groups/[^>\"]*|cub/[^>\"]*|"
     r"thrust/[^>\"]*|cuda/[^>\"]*|cuda_awbarrier\w*\.h|sm_\d+_intrinsics\.hpp)[>\"]",
     "the header {0}"),
    (r"\bwmma::(bf16|precision::b1|precision::s4|precision::u4|experimental)\b",
     "the wmma type {0}"),
    (r"\bclock\s*\(\s*\)|\b__globaltimer\b|\b%smid\b", "{0} (timing)"),
]


def blank_comments_and_strings(src):
    """Same length as src, comments and the contents of string and character
    literals replaced by spaces (newlines kept), so positions line up."""
    out = list(src)
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if src[k] != "\n":
                    out[k] = " "
            i = j
        elif c in "\"'":
            # a digit separator (1'000) is not a literal
            if c == "'" and i > 0 and src[i - 1].isdigit() and i + 1 < n and src[i + 1].isdigit():
                i += 1
                continue
            j = i + 1
            while j < n and src[j] != c and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            for k in range(i + 1, min(j, n)):
                out[k] = " "
            i = j + 1
        else:
            i += 1
    return "".join(out)


def unsupported_reasons(code):
    """The constructs of `code` (comments already blanked) the emulator
    cannot run, one reason each, in order of appearance."""
    found = []
    for pattern, reason in UNSUPPORTED:
        m = re.search(pattern, code)
        if m:
            line = code.count("\n", 0, m.start()) + 1
            found.append((m.start(), "line %d: %s" % (line, reason.format(m.group(0).strip()))))
    return [r for _, r in sorted(found)]


def _match_close(code, i, open_c, close_c):
    """Index just past the bracket matching code[i] == open_c."""
    depth = 0
    n = len(code)
    while i < n:
        if code[i] == open_c:
            depth += 1
        elif code[i] == close_c:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError("unbalanced %s" % open_c)


def _split_top(text):
    """Split on commas outside (), [], {}."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def rewrite_launches(src, code):
    """Replace every `NAME<<<cfg>>>(args)`; code is src with comments and
    strings blanked."""
    out, last = [], 0
    pos = 0
    while True:
        lt = code.find("<<<", pos)
        if lt < 0:
            break
        # kernel name, backwards: optional template arguments, then an
        # identifier that may be qualified
        j = lt - 1
        while j >= 0 and code[j].isspace():
            j -= 1
        if j >= 0 and code[j] == ">":
            depth = 0
            while j >= 0:
                if code[j] == ">":
                    depth += 1
                elif code[j] == "<":
                    depth -= 1
                    if depth == 0:
                        break
                j -= 1
            j -= 1
            while j >= 0 and code[j].isspace():
                j -= 1
        while j >= 0 and (code[j].isalnum() or code[j] in "_:"):
            j -= 1
        start = j + 1
        name = src[start:lt].strip()
        if not name:
            raise ValueError("line %d: a launch without a kernel name" % (code.count("\n", 0, lt) + 1))
        # the configuration, up to >>> at bracket depth 0
        k, depth = lt + 3, 0
        while k < len(code):
            if code[k] in "([{":
                depth += 1
            elif code[k] in ")]}":
                depth -= 1
            elif depth == 0 and code.startswith(">>>", k):
                break
            k += 1
        else:
            raise ValueError("line %d: no >>> after <<<" % (code.count("\n", 0, lt) + 1))
        config = src[lt + 3:k]
        a = k + 3
        while a < len(code) and code[a].isspace():
            a += 1
        if a >= len(code) or code[a] != "(":
            raise ValueError("line %d: no argument list after >>>" % (code.count("\n", 0, lt) + 1))
        end = _match_close(code, a, "(", ")")
        args = src[a + 1:end - 1]
        if len(_split_top(config)) > 4:
            raise ValueError("line %d: launch configuration with more than 4 parts" % (code.count("\n", 0, lt) + 1))
        call = "kp::launch(kp::cfg(%s), %s%s)" % (config.strip(), name, (", " + args.strip()) if args.strip() else "")
        # one line, then as many line breaks as the launch spanned (kept as
        # continuations inside a macro definition)
        span = src[start:end]
        call = " ".join(call.replace("\\\n", " ").split("\n"))
        call += ("\\\n" if "\\\n" in span else "\n") * span.count("\n")
        out.append(src[last:start])
        out.append(call)
        last = end
        pos = end
    out.append(src[last:])
    return "".join(out)


EXTERN_SHARED = re.compile(r"extern\s+__shared__\s+([^;\[\]{}()]*?(?:\([^;()]*\)[^;\[\]{}()]*?)*)\s*\b(\w+)\s*\[\s*\]\s*;")


def rewrite_extern_shared(src):
    def repl(m):
        typ = re.sub(r"__align__\s*\([^)]*\)|alignas\s*\([^)]*\)|__attribute__\s*\(\([^)]*\)\)", " ", m.group(1))
        typ = " ".join(typ.split())
        return "%s *const %s = (%s *)kp::dyn_smem_buf;" % (typ, m.group(2), typ) + "\n" * m.group(0).count("\n")
    return EXTERN_SHARED.sub(repl, src)


SHARED_DECL_NAME = re.compile(r"\b([A-Za-z_]\w*)\s*(\[[^;]*\])?\s*$")


def register_shared(src, code):
    """After each `__shared__ T name[...];` with one declarator and no
    initializer, add (on the same line) a static kp::ShmReg that lets the
    emulator poison the variable at every block start."""
    out, last, n = [], 0, 0
    for m in re.finditer(r"\b__shared__\b", code):
        if re.search(r"\bextern\s+$", code[max(0, m.start() - 40):m.start()]):
            continue
        end = code.find(";", m.end())
        if end < 0:
            break
        decl = re.sub(r"__align__\s*\([^)]*\)|alignas\s*\([^)]*\)", " ", code[m.end():end])
        if any(c in decl for c in "=,{}()"):
            continue
        nm = SHARED_DECL_NAME.search(decl)
        if not nm:
            continue
        name = nm.group(1)
        out.append(src[last:end + 1])
        out.append(" static kp::ShmReg kp_shm_reg_%d(&%s, sizeof %s);" % (n, name, name))
        n += 1
        last = end + 1
    out.append(src[last:])
    return "".join(out)


# kpipe's read of the dynamic shared-memory size (transforms/render.c,
# kp_emit_open), the one inline PTX the emulator knows: the bytes the launch
# passed (kp::dyn_smem_size()).  Kept on one line, so positions line up.
DYN_SMEM_SIZE = re.compile(r'\basm\s*\(\s*"mov\.u32 %0, %%dynamic_smem_size;"\s*:\s*"=r"\s*\(\s*(\w+)\s*\)\s*\)\s*;')


# The inline PTX of kpipe's bulk helpers (transforms/bulk.c) the emulator
# runs: an instruction of the template, and the call that does its work
# ({i0}, {i1}, ...: the input operands, {o0}: the output).
PTX_CALLS = [
    ("mbarrier.init.shared", "kp::ptx_mbar_init({i0}, {i1});"),
    ("mbarrier.arrive.expect_tx.shared", "kp::ptx_mbar_arrive_tx({i0}, {i1});"),
    ("mbarrier.arrive.shared", "kp::ptx_mbar_arrive({i0});"),
    ("mbarrier.try_wait.parity.shared", "{o0} = kp::ptx_mbar_try_wait_parity({i0}, {i1});"),
    ("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes",
     "kp::ptx_bulk_copy({i0}, {i1}, {i2}, {i3});"),
    ("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
     "kp::ptx_tensor_copy_2d({i0}, (const void *)({i1}), {i2}, {i3}, {i4});"),
    ("fence.mbarrier_init.", "(void)0;"),
    ("fence.proxy.async.", "(void)0;"),
]
ASM_START = re.compile(r"\b(?:asm|__asm__|__asm)\s*(?:volatile|__volatile__)?\s*\(")
STRING_LIT = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def _split_colons(text):
    """Split an asm statement's parts on ':' outside brackets and strings
    ('::' is two separators)."""
    parts, depth, cur, i = [], 0, [], 0
    while i < len(text):
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < len(text) and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            cur.append(text[i:j + 1])
            i = j + 1
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == ":" and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        i += 1
    parts.append("".join(cur))
    return parts


def _operands(part):
    """The expressions of `"c"(expr), ...`."""
    out = []
    for op in _split_topc(part):
        m = re.match(r'\s*"[^"]*"\s*\((.*)\)\s*$', op, re.S)
        if m:
            out.append(m.group(1).strip())
    return out


def _split_topc(text):
    return [p for p in _split_top(text) if p.strip()]


def rewrite_ptx(src):
    """Each asm statement whose template holds one of PTX_CALLS' instructions
    becomes that call (on one line, the statement's line breaks kept after
    it); the others stay, for unsupported_reasons() to report."""
    code = blank_comments_and_strings(src)
    out, last = [], 0
    for m in ASM_START.finditer(code):
        if m.start() < last:
            continue
        end = _match_close(code, m.end() - 1, "(", ")")
        semi = end
        while semi < len(code) and code[semi].isspace():
            semi += 1
        if semi >= len(code) or code[semi] != ";":
            continue
        parts = _split_colons(src[m.end():end - 1])
        template = "".join(STRING_LIT.findall(parts[0]))
        call = None
        for insn, fmt in PTX_CALLS:
            if insn in template:
                outs = _operands(parts[1]) if len(parts) > 1 else []
                ins = _operands(parts[2]) if len(parts) > 2 else []
                try:
                    call = fmt.format(**{"o%d" % k: v for k, v in enumerate(outs)},
                                      **{"i%d" % k: v for k, v in enumerate(ins)})
                except (KeyError, IndexError):
                    call = None
                break
        if call is None:
            continue
        span = src[m.start():semi + 1]
        out.append(src[last:m.start()])
        out.append(" ".join(call.split("\n")) + "\n" * span.count("\n"))
        last = semi + 1
    out.append(src[last:])
    return "".join(out)


def prep(src, path):
    """(text, None) or (None, [reasons]) when the kernel cannot be emulated."""
    src = DYN_SMEM_SIZE.sub(lambda m: "%s = kp::dyn_smem_size();" % m.group(1), src)
    src = rewrite_ptx(src)
    code = blank_comments_and_strings(src)
    reasons = unsupported_reasons(code)
    if reasons:
        return None, reasons
    text = rewrite_launches(src, code)
    text = register_shared(text, blank_comments_and_strings(text))
    text = rewrite_extern_shared(text)
    return '#line 1 "%s"\n' % path.replace("\\", "\\\\").replace('"', '\\"') + text, None


def main():
    ap = argparse.ArgumentParser(description="prepare a CUDA file for the CPU checker")
    ap.add_argument("file")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    with open(a.file, encoding="utf-8", errors="replace") as f:
        src = f.read()
    try:
        text, reasons = prep(src, a.file)
    except ValueError as e:
        print("prep.py: %s: %s" % (a.file, e), file=sys.stderr)
        return 2
    if reasons:
        print("SKIP: %s: %s" % (a.file, "; ".join(reasons)))
        return SKIP_STATUS
    with open(a.output, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
