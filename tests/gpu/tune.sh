#!/usr/bin/env bash
# tune.sh - `kpipe tune` on a GPU: for two samples, tune must exit 0, print
# its table with the original and every variant, write a file that is
# either the original or exactly one of the variants `rewrite` makes, never
# choose a variant that is slower than the original or failed a check, and
# finish within 60 s (KPIPE_TUNE_LIMIT_S: scripts/valgrind.sh raises it,
# as kpipe runs about 100 times slower under valgrind); with --sizes
# small,target both sizes are timed and the speedup is the geometric mean
# of the two; a variant below 0.9x is timed two rounds only (stopped
# early), never chosen, never sanitized, and the JSON says where the time
# went (phases); a kernel over 100 ms for 21 launches is timed fewer times
# a round;
# with the two instantiations of samples/matmul_ktile every
# (instantiation, size) cell is timed, named in the table and the JSON,
# and the speedup is the geometric mean over the cells.  Prints
# "SKIP: ..." and exits 77 without a GPU.
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
limit="${KPIPE_TUNE_LIMIT_S:-60}"
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
	echo "SKIP: no GPU (nvidia-smi finds none): kpipe tune cannot be measured here"
	exit 77
fi
kp_tmpdir gpu-tune
# a kpipe run through bench/device_env.sh (the GPU machine) is handed the
# builtin headers of the libclang unpacked there
parse=()
[ -z "${KPIPE_RESOURCE_DIR:-}" ] || parse=(-- -resource-dir "$KPIPE_RESOURCE_DIR")
fail=0
for name in matmul_32x32 wmma_fp16_64x64x32; do
	cp "$root/samples/$name.cu" "$root/samples/$name.launch.json" "$tmp/"
	start=$(date +%s)
	"$kpipe" tune "$tmp/$name.cu" -o "$tmp/$name.tuned.cu" --format json "${parse[@]}" >"$tmp/$name.json" 2>"$tmp/$name.err"
	rc=$?
	secs=$(($(date +%s) - start))
	if [ $rc != 0 ]; then
		echo "FAIL: $name: tune exit $rc"
		cat "$tmp/$name.err"
		fail=1
		continue
	fi
	[ "$secs" -le "$limit" ] || { echo "FAIL: $name: tune took $secs s (> $limit)"; fail=1; }
	chosen=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["chosen"])' "$tmp/$name.json")
	if [ "$chosen" = original ]; then
		cmp -s "$tmp/$name.cu" "$tmp/$name.tuned.cu" || { echo "FAIL: $name: original chosen but the file differs"; fail=1; }
	else
		v=${chosen%-s[0-9]}
		n=2
		case "$chosen" in *-s[0-9]) n=${chosen##*-s} ;; esac
		"$kpipe" rewrite --variant "$v" --stages "$n" "$tmp/$name.cu" -o "$tmp/ref.cu" "${parse[@]}"
		cmp -s "$tmp/ref.cu" "$tmp/$name.tuned.cu" || { echo "FAIL: $name: the file is not the $chosen rewrite"; fail=1; }
	fi
	python3 - "$tmp/$name.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
vs = {v["name"]: v for v in d["versions"]}
o = vs["original"]
assert o.get("median_ms"), "original not timed"
for n in ("register", "register-ca", "register-2bar", "cp-async", "cp-async-s3", "cp-async-s4"):
    assert n in vs, "no row for " + n
if d["chosen"] != "original":
    w = vs[d["chosen"]]
    assert w["static_ok"] and w["checked_ok"], "chosen variant did not pass validation"
    assert w["median_ms"] < o["median_ms"] - d["spread_ms"], "chosen variant not faster beyond the spread"
    assert not w.get("dropped"), "a variant the harness stopped timing was chosen"
# where the time went: every phase named, none negative, their sum within
# the whole
ph = d["phases"]
for k in ("rewrite", "static", "gpu_build", "gpu_run", "sanitize"):
    assert k in ph and ph[k] >= 0, ("phase", k, ph)
assert sum(ph.values()) <= d["seconds"] + 0.5, (ph, d["seconds"])
# a variant clearly slower (below 0.9x) was stopped after two rounds, and
# every stopped one was slower than the original
for v in d["versions"]:
    if v.get("dropped"):
        assert v["rounds"] == 2 and v["speedup"] < 0.95, v
    elif v["name"] != "original" and v.get("checked_ok") and v.get("speedup", 1) < 0.9:
        raise AssertionError("a variant at %.3fx was timed every round: %s" % (v["speedup"], v["name"]))
# only what could be chosen is sanitized: the chosen variant was, a
# variant stopped early was not
if d["chosen"] != "original":
    assert vs[d["chosen"]].get("sanitizer_runs", 0) >= 3, ("chosen but not sanitized", vs[d["chosen"]])
for v in d["versions"]:
    if v.get("dropped"):
        assert not v.get("sanitizer_runs"), ("a dropped variant was sanitized", v)
# launches per round: 21, or fewer (at least 5) where 21 launches of the
# original take over 100 ms (--round-ms)
per = o["launches"] / o["rounds"]
if o["median_ms"] * 21 > 150:
    assert 5 <= per < 21, ("a long kernel timed %g times a round" % per, o)
elif o["median_ms"] * 21 < 80:
    assert per == 21, ("a short kernel timed %g times a round" % per, o)
print("%s: chose %s (%s); phases %s; stopped early: %s; %g launches a round" % (sys.argv[1], d["chosen"], d["reason"], ph,
      [v["name"] for v in d["versions"] if v.get("dropped")], per))
PY
done
# --sizes: every named size timed; the speedup is the geometric mean of the
# per-size ones; the instantiation measured is named
"$kpipe" tune "$tmp/matmul_32x32.cu" -o "$tmp/sizes.tuned.cu" --sizes small,target --no-sanitize \
	--format json "${parse[@]}" >"$tmp/sizes.json" 2>"$tmp/sizes.err"
rc=$?
if [ $rc != 0 ]; then
	echo "FAIL: --sizes small,target: tune exit $rc"
	cat "$tmp/sizes.err"
	fail=1
else
	python3 - "$tmp/sizes.json" <<'PY' || fail=1
import json, math, sys
d = json.load(open(sys.argv[1]))
assert d["timed_sizes"] == ["small", "target"], d["timed_sizes"]
assert d["kernel"] == "matmul_32x32", d["kernel"]
n = 0
for v in d["versions"]:
    if v["name"] == "original" or not v.get("checked_ok"):
        continue
    sz = v["sizes"]
    assert [s["size"] for s in sz] == ["small", "target"], sz
    g = math.exp(sum(math.log(s["speedup"]) for s in sz) / len(sz))
    assert abs(g / v["speedup"] - 1) < 1e-9, (v["name"], g, v["speedup"])
    lo, hi = v["interval95"]
    assert lo <= v["speedup"] <= hi, v
    n += 1
assert n > 0, "no variant timed at both sizes"
print("--sizes small,target: %d variants, chose %s (%s)" % (n, d["chosen"], d["reason"]))
PY
fi
# Two instantiations in one launch description (samples/matmul_ktile:
# "template_args": ["<32>", "<64>"]): every (instantiation, size) cell is
# checked and timed, the table and the JSON name each cell, and the speedup
# is the geometric mean over the cells
cp "$root/samples/matmul_ktile.cu" "$root/samples/matmul_ktile.launch.json" "$tmp/"
"$kpipe" tune "$tmp/matmul_ktile.cu" -o "$tmp/ktile.tuned.cu" --sizes small,target \
	--format json "${parse[@]}" >"$tmp/ktile.json" 2>"$tmp/ktile.err"
rc=$?
if [ $rc != 0 ]; then
	echo "FAIL: matmul_ktile: tune exit $rc"
	cat "$tmp/ktile.err"
	fail=1
else
	python3 - "$tmp/ktile.json" <<'PY' || fail=1
import json, math, sys
d = json.load(open(sys.argv[1]))
assert d["kernel"] == "matmul_ktile", d["kernel"]
assert d["instantiations"] == ["<32>", "<64>"], d.get("instantiations")
assert d["timed_sizes"] == ["small", "target"], d["timed_sizes"]
cells = [("<32>", "small"), ("<64>", "small"), ("<32>", "target"), ("<64>", "target")]
n = 0
for v in d["versions"]:
    if v["name"] == "original":
        assert [(c["instantiation"], c["size"]) for c in v["sizes"]] == cells, v["sizes"]
        assert all(c.get("median_ms") for c in v["sizes"]), "original not timed in every cell"
        continue
    if not v.get("checked_ok"):
        continue
    sz = v["sizes"]
    assert [(c["instantiation"], c["size"]) for c in sz] == cells, sz
    g = math.exp(sum(math.log(c["speedup"]) for c in sz) / len(sz))
    assert abs(g / v["speedup"] - 1) < 1e-9, (v["name"], g, v["speedup"])
    lo, hi = v["interval95"]
    assert lo <= v["speedup"] <= hi, v
    n += 1
assert n > 0, "no variant checked and timed in every cell"
if d["chosen"] != "original":
    w = [v for v in d["versions"] if v["name"] == d["chosen"]][0]
    assert w["checked_ok"] and w["interval95"][0] > 1, w
    assert "geometric mean over 4 cells: 2 instantiations x 2 sizes" in d["reason"], d["reason"]
print("matmul_ktile: %d variants over 4 cells, chose %s (%s)" % (n, d["chosen"], d["reason"]))
PY
	chosen=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["chosen"])' "$tmp/ktile.json")
	if [ "$chosen" = original ]; then
		cmp -s "$tmp/matmul_ktile.cu" "$tmp/ktile.tuned.cu" || { echo "FAIL: matmul_ktile: original chosen but the file differs"; fail=1; }
	else
		v=${chosen%-s[0-9]}
		n=2
		case "$chosen" in *-s[0-9]) n=${chosen##*-s} ;; esac
		"$kpipe" rewrite --variant "$v" --stages "$n" "$tmp/matmul_ktile.cu" -o "$tmp/ref.cu" "${parse[@]}"
		cmp -s "$tmp/ref.cu" "$tmp/ktile.tuned.cu" || { echo "FAIL: matmul_ktile: the file is not the $chosen rewrite"; fail=1; }
	fi
fi
# the text table: one column per cell, the instantiation over the size
"$kpipe" tune "$tmp/matmul_ktile.cu" -o "$tmp/ktile2.cu" --no-sanitize "${parse[@]}" >"$tmp/ktile.txt" 2>"$tmp/ktile2.err"
rc=$?
if [ $rc != 0 ]; then
	echo "FAIL: matmul_ktile (text): tune exit $rc"
	cat "$tmp/ktile2.err"
	fail=1
else
	for want in "kernel matmul_ktile, instantiations <32>, <64>, size 'target'" \
		"  per instantiation and size: median ms (speedup)"; do
		grep -qF -- "$want" "$tmp/ktile.txt" || { echo "FAIL: matmul_ktile (text): no '$want'"; fail=1; }
	done
	grep -qE '^ {14} +<32> +<64>$' "$tmp/ktile.txt" || { echo "FAIL: matmul_ktile (text): no instantiation header"; fail=1; }
	grep -qE '^  version +target +target$' "$tmp/ktile.txt" || { echo "FAIL: matmul_ktile (text): no size header"; fail=1; }
	grep -q "^result: .*over 2 instantiations\|^result: no variant passed" "$tmp/ktile.txt" ||
		{ echo "FAIL: matmul_ktile (text): the result is not over the instantiations"; fail=1; }
	sed 's/^/    /' "$tmp/ktile.txt"
fi
[ $fail = 0 ] && echo "tune on the GPU: passed"
exit $fail
