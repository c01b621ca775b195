#!/usr/bin/env bash
# validate_gpu_gen.sh - the GPU steps of `kpipe validate` with the real nvcc:
# the harness that kpipe generates from a launch description (its embedded
# bench/harness/bench_main.cu, kpipe_bench_spec.h and one launcher per
# version) must be what bench/gpu_bench.py generates, and must build; so
# must a description with two instantiations (matmul_ktile).  Here,
# without a GPU, steps 3-5 must say SKIPPED with the reason and the exit code
# must be 6; on a machine with a GPU, step 3 must pass instead.
# Needs nvcc (exit 77 without it).
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
if ! command -v nvcc >/dev/null 2>&1 && ! [ -x /usr/local/cuda/bin/nvcc ]; then
	echo "SKIP: nvcc not found"
	exit 77
fi
gpu=0
if kp_have_gpu; then
	gpu=1
fi
kp_tmpdir nvcc-gpu-gen
# want FILE PATTERN: a fixed string in the report
want() { if grep -qF -- "$2" "$1"; then ok; else bad "missing '$2' in $1"; sed 's/^/    /' "$1" | head -40; fi; }

# gpu_bench.py's generators, for comparison (the first line differs: it names the generator).
gen_py() { # SPEC SOURCE LABEL -> header, launcher in $tmp/py/
	python3 - "$root/bench" "$@" <<'EOF'
import os, sys
sys.path.insert(0, sys.argv[1])
import gpu_bench as g
spec_path, src, out = sys.argv[2], sys.argv[3], sys.argv[4]
spec = g.load_spec(spec_path)
spec["path"] = spec_path
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "kpipe_bench_spec.h"), "w") as f:
    f.write(g.gen_spec_header(spec))
text = open(src).read()
m = g.OVERRIDE.search(text)
smem = m.group(2) if m else spec["dynamic_smem"]
with open(os.path.join(out, "launch.cu"), "w") as f:
    f.write(g.gen_launcher(spec, os.path.realpath(src), "x", smem))
EOF
}
same_after_line1() { # A B NAME
	if diff -u <(tail -n +2 "$1") <(tail -n +2 "$2") >"$tmp/diff"; then ok; else
		bad "$3 differs from gpu_bench.py's:"
		head -30 "$tmp/diff"
	fi
}

# One sample per kind of launch: plain floats, template arguments, half inputs.
for name in matmul_32x32 matmul_template wmma_fp16_64x64x32; do
	src="$root/samples/$name.cu"
	spec="$root/samples/$name.launch.json"
	out="$tmp/$name.rewritten.cu"
	if ! "$kpipe" rewrite "$src" -o "$out" 2>"$tmp/err"; then
		# (a kpipe without the clang headers, say): the hand-pipelined version will do
		if [ -f "$root/bench/hand/$name.cp-async.cu" ]; then
			cp "$root/bench/hand/$name.cp-async.cu" "$out"
		else
			bad "$name: rewrite failed: $(head -c 300 "$tmp/err")"
			continue
		fi
	fi
	dir="$tmp/$name.gpu"
	"$kpipe" validate "$src" "$out" --sanitize --sizes small,target --gpu-dir "$dir" \
		>"$tmp/$name.txt" 2>&1
	rc=$?
	want "$tmp/$name.txt" "step 1  resources  PASSED"
	want "$tmp/$name.txt" "launch: $spec, kernel "
	for f in harness original.so rewritten.so; do
		if [ -s "$dir/$f" ]; then ok; else bad "$name: $dir/$f was not built"; fi
	done
	cmp -s "$dir/bench_main.cu" "$root/bench/harness/bench_main.cu" && ok ||
		bad "$name: the embedded harness is not bench/harness/bench_main.cu"
	gen_py "$spec" "$src" "$tmp/py/$name.original"
	gen_py "$spec" "$out" "$tmp/py/$name.rewritten"
	# gpu_bench.py names the spec by its absolute path, kpipe as given: same here.
	same_after_line1 "$tmp/py/$name.original/kpipe_bench_spec.h" "$dir/kpipe_bench_spec.h" \
		"$name: kpipe_bench_spec.h"
	same_after_line1 "$tmp/py/$name.original/launch.cu" "$dir/original.launch.cu" \
		"$name: original.launch.cu"
	same_after_line1 "$tmp/py/$name.rewritten/launch.cu" "$dir/rewritten.launch.cu" \
		"$name: rewritten.launch.cu"
	if [ $gpu = 0 ]; then
		[ $rc = 6 ] && ok || bad "$name: exit $rc, wanted 6 (incomplete) without a GPU"
		want "$tmp/$name.txt" "step 3  gpu-run    SKIPPED: no CUDA device: "
		want "$tmp/$name.txt" "(the harness is built in $dir)"
		want "$tmp/$name.txt" "step 4  benchmark  SKIPPED: no CUDA device (see step 3)"
		want "$tmp/$name.txt" "step 5  sanitizer  SKIPPED: no CUDA device (see step 3)"
		want "$tmp/$name.txt" "result: INCOMPLETE (3 steps skipped)"
		# The harness itself says there is no device, as one JSON line, and exits 4.
		"$dir/harness" --sizes small --lib "original=$dir/original.so" \
			--lib "rewritten=$dir/rewritten.so" >"$tmp/events" 2>&1
		hrc=$?
		[ $hrc = 4 ] && ok || bad "$name: harness exit $hrc, wanted 4 without a GPU"
		want "$tmp/events" '"event":"error","version":"harness","size":"","stage":"cudaGetDevice'
	else
		want "$tmp/$name.txt" "step 3  gpu-run    PASSED"
	fi
done

# A description with two instantiations (samples/matmul_ktile.launch.json,
# "template_args": ["<32>", "<64>"]): each version's one library exports a
# launcher pair per instantiation (kpipe_bench_launch_0/_1), each the text
# gpu_bench.py writes for that instantiation alone; the header names them
# for the harness; everything builds.  With a GPU, step 3 checks both.
name=matmul_ktile
src="$root/samples/$name.cu"
spec="$root/samples/$name.launch.json"
out="$tmp/$name.rewritten.cu"
dir="$tmp/$name.gpu"
"$kpipe" rewrite "$src" -o "$out" 2>"$tmp/err" || bad "$name: rewrite failed: $(head -c 300 "$tmp/err")"
"$kpipe" validate "$src" "$out" --sizes small,target --gpu-dir "$dir" >"$tmp/$name.txt" 2>&1
rc=$?
want "$tmp/$name.txt" "launch: $spec, kernel matmul_ktile, instantiations <32>, <64>, tolerance"
for f in harness original.so rewritten.so; do
	if [ -s "$dir/$f" ]; then ok; else bad "$name: $dir/$f was not built"; sed 's/^/    /' "$tmp/$name.txt" | head -30; fi
done
want "$dir/kpipe_bench_spec.h" '#define KPIPE_BENCH_NUM_INSTS 2'
want "$dir/kpipe_bench_spec.h" 'static const char *const kInstNames[] = {"<32>", "<64>"};'
for v in original rewritten; do
	nm -D "$dir/$v.so" 2>/dev/null | awk '$2 == "T" {print $3}' | grep '^kpipe_bench' | sort >"$tmp/syms"
	printf '%s\n' kpipe_bench_attrs_0 kpipe_bench_attrs_1 kpipe_bench_launch_0 kpipe_bench_launch_1 >"$tmp/want_syms"
	if cmp -s "$tmp/syms" "$tmp/want_syms"; then ok; else bad "$name: $v.so exports $(tr '\n' ' ' <"$tmp/syms")"; fi
done
python3 - "$root/bench" "$spec" "$src" "$dir/original.launch.cu" <<'EOF2' && ok || bad "$name: the launcher pairs differ from gpu_bench.py's (above)"
import os, re, sys
sys.path.insert(0, sys.argv[1])
import gpu_bench as g
spec = g.load_spec(sys.argv[2])
ours = open(sys.argv[4]).read()
for k, one in enumerate(g.per_instantiation(spec)):
    py = g.gen_launcher(one, os.path.realpath(sys.argv[3]), "x", one["dynamic_smem"])
    body = py[py.index("KPIPE_BENCH_EXPORT int kpipe_bench_launch("):]
    body = re.sub(r"kpipe_bench_(launch|attrs)\(", r"kpipe_bench_\1_%d(" % k, body)
    body = body.replace("\n" + " " * 42 + "cudaStream_t", "\n" + " " * 44 + "cudaStream_t")
    head = "// instantiation %d: matmul_ktile%s\n" % (k, one["template_args"])
    assert head + body in ours, "instantiation %d: %s" % (k, one["template_args"])
    assert one["name"] == "matmul_ktile@" + one["template_args"], one["name"]
EOF2
if [ $gpu = 0 ]; then
	[ $rc = 6 ] && ok || bad "$name: exit $rc, wanted 6 (incomplete) without a GPU"
	want "$tmp/$name.txt" "step 3  gpu-run    SKIPPED: no CUDA device: "
else
	want "$tmp/$name.txt" "step 3  gpu-run    PASSED"
	want "$tmp/$name.txt" "at 2 sizes (small, target) for each of <32>, <64>"
	want "$tmp/$name.txt" "    <64>          target   "
fi

# Without --gpu-dir and without a device nothing is built: the run is quick
# and the reason is the driver's.
src="$root/samples/matmul_32x32.cu"
fx="$root/tests/fixtures/sass"
"$kpipe" validate "$src" "$root/bench/hand/matmul_32x32.cp-async.cu" --format json --no-sanitize >"$tmp/json" 2>&1
rc=$?
if [ $gpu = 0 ]; then
	[ $rc = 6 ] && ok || bad "json: exit $rc, wanted 6"
	python3 - "$tmp/json" <<'EOF' && ok || bad "json report: $(head -c 600 "$tmp/json")"
import json, sys
d = json.load(open(sys.argv[1]))
st = {s["name"]: s for s in d["steps"]}
assert st["gpu-run"]["status"] == "SKIPPED" and st["gpu-run"]["reason"].startswith("no CUDA device"), st
assert st["sanitizer"]["counted"] is False, st          # --no-sanitize given
assert d["gpu"]["spec"].endswith("samples/matmul_32x32.launch.json"), d["gpu"]
assert [z["name"] for z in d["gpu"]["sizes"]][-1] == "target", d["gpu"]  # the timed size last
assert d["exit_code"] == 6
EOF
fi

# Launch-description problems are input errors (exit 3); a missing default
# one only skips the GPU steps; --sizes names sizes of the description.
printf '{"kernel": "matmul_32x32", "bogus": 1}\n' >"$tmp/bad.launch.json"
"$kpipe" validate "$src" "$src" --spec "$tmp/bad.launch.json" >"$tmp/o" 2>&1
rc=$?
[ $rc = 3 ] && ok || bad "bad spec: exit $rc, wanted 3"
want "$tmp/o" "bad.launch.json: unknown field 'bogus'"
"$kpipe" validate "$src" "$src" --sizes small,huge >"$tmp/o" 2>&1
rc=$?
[ $rc = 2 ] && ok || bad "--sizes huge: exit $rc, wanted 2"
want "$tmp/o" "--sizes: unknown size 'huge'"
cp "$fx/naive.cu" "$tmp/nospec.cu"
"$kpipe" validate "$tmp/nospec.cu" "$fx/cp_async.cu" >"$tmp/o" 2>&1
rc=$?
[ $rc = 6 ] && ok || bad "no spec: exit $rc, wanted 6"
want "$tmp/o" "step 3  gpu-run    SKIPPED: no launch description: $tmp/nospec.launch.json not found"
want "$tmp/o" "step 5  sanitizer  SKIPPED: no launch description (see step 3)"
# step 5 is part of every GPU proof unless --no-sanitize says otherwise
"$kpipe" validate "$tmp/nospec.cu" "$fx/cp_async.cu" --no-sanitize >"$tmp/o" 2>&1
want "$tmp/o" "step 5  sanitizer  SKIPPED: not requested (--no-sanitize)"

kp_summary
