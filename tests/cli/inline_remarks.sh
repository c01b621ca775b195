#!/usr/bin/env bash
# inline_remarks.sh - no silent helper (docs/design.md, "Load helpers and
# tile macros"): every K-loop that `kpipe analyze` refuses with
# kpipe-load-in-helper ends, in `kpipe rewrite`, with the helper inlined
# (note kpipe-inlined at the loop) or a remark kpipe-inline-refused at the
# loop that names the reason; never with neither, never with both.  The
# inputs: the fixture of helpers kpipe cannot inline (a system header's,
# one declared only, a functor, an overload set, a call that is not a
# statement, the barrier at the top of the loop), the adversarial inputs
# of unsafe helpers (the file's own, a project header's, and guarded
# temporaries the inlined code must keep), and the
# samples that call helpers (in the file, in a header, with the barrier at
# the top, a guarded temporary, constants bounding the copy loop).  Each
# input is also checked for the reasons it must give.
# Prints "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_tmpdir inline-remarks
cd "$root" || exit 1

# one_each FILE [ARGS...]: analyze's load-in-helper loops against rewrite's
# diagnostics; prints the rewrite's remarks into $tmp/remarks
one_each() {
	local f="$1"
	shift
	"$kpipe" analyze --format json "$f" -- "$@" >"$tmp/a.json" 2>/dev/null
	"$kpipe" rewrite --dry-run --format json "$f" -- "$@" >"$tmp/r.json" 2>/dev/null
	python3 - "$tmp/a.json" "$tmp/r.json" "$tmp/remarks" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
loops = [l for fl in a["files"] for k in fl["kernels"] for l in k["loops"]
         if "kpipe-load-in-helper" in [x["id"] for x in l["reasons"]]]
diags = [d for fl in r["files"] for d in fl["diagnostics"]]
out, bad = [], 0
for l in loops:
    at = [d for d in diags if d["line"] == l["line"] and d["id"] in ("kpipe-inlined", "kpipe-inline-refused")]
    if len(at) != 1:
        print("line %d: %d inline diagnostics, expected 1" % (l["line"], len(at)))
        bad = 1
    out += ["%d %s %s" % (l["line"], d["id"], d["message"]) for d in at]
if not loops:
    print("no loop refused with kpipe-load-in-helper")
    bad = 1
open(sys.argv[3], "w").write("\n".join(out) + "\n")
sys.exit(bad)
PY
}

# has_remark LINE PATTERN: the remark (or note) at LINE matches PATTERN
has_remark() { grep -qE "^$1 kpipe-inline[a-z-]* .*$2" "$tmp/remarks"; }

fx=tests/fixtures/inline/helper_kinds.cu
check "helper_kinds: one inline diagnostic per loop" one_each "$fx" -isystem tests/fixtures/inline/sys
check "helper_kinds: system header" has_remark 40 "'sys_load' is not inlined: it is defined in a system header \(.*inline_sys_helper.cuh\)"
check "helper_kinds: no definition" has_remark 52 "'ext_load' is not inlined: kpipe sees no definition of it outside system headers"
check "helper_kinds: a functor" has_remark 65 "'load' is not inlined: it is a member of a class"
check "helper_kinds: an overload set" has_remark 78 "'ovl' is not inlined: the call names no single function"
check "helper_kinds: barrier at the top: inlined" has_remark 91 "kpipe inlined the load helper 'plain'"
check "helper_kinds: not a statement of its own" has_remark 103 "'plain' is not inlined: the call is not a statement of its own"

adv=tests/adversarial/inputs
check "helper_unsafe_inline: one inline diagnostic per loop" one_each "$adv/helper_unsafe_inline.cu"
check "helper_unsafe_inline: 10 remarks" test "$(grep -c 'kpipe-inline-refused' "$tmp/remarks")" -eq 10
check "helper_header_unsafe: one inline diagnostic per loop" one_each "$adv/helper_header_unsafe.cu"
check "helper_header_unsafe: 9 remarks" test "$(grep -c 'kpipe-inline-refused' "$tmp/remarks")" -eq 9
check "helper_canon_unsafe: one inline diagnostic per loop" one_each "$adv/helper_canon_unsafe.cu"
check "helper_canon_unsafe: 2 remarks naming the canon pass's reason" test \
	"$(grep -c 'kpipe-inline-refused .*nor is the inlined load phase written in the copy forms' "$tmp/remarks")" -eq 2

for s in matmul_load_helper matmul_header_helper matmul_vec_helpers matmul_staged_loader \
	matmul_vec_loader; do
	check "$s: one inline diagnostic per loop" one_each "samples/$s.cu"
	check "$s: inlined" grep -q "kpipe-inlined" "$tmp/remarks"
done

kp_summary
