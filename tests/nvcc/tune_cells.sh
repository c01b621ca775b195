#!/usr/bin/env bash
# tune_cells.sh - `kpipe tune` over a launch description with two
# instantiations (samples/matmul_ktile: "template_args": ["<32>", "<64>"]),
# the whole path without a GPU: the variants are built and validated with
# the real nvcc, the libraries export one launcher pair per instantiation,
# and the harness is a stand-in (a toolkit whose nvcc is the real one but
# "builds" bench_main.cu as a script printing the events a harness would,
# with set speedups per version and instantiation).  Checked: every
# (instantiation, size) cell is named in the table and the JSON, the
# decision is the geometric mean over the cells (register 1.30x on <32>
# and 0.95x on <64> beats cp-async's 1.05x everywhere), and the file
# written is that variant.  Exit 77 (skipped) when nvcc is missing.
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_find_nvcc
kp_tmpdir nvcc-tune-cells
real=$(cd "$(dirname "$(readlink -f "$nvcc")")/.." && pwd)

# the stand-in toolkit: bin/nvcc wraps the real one; everything else links
fake="$tmp/cuda"
mkdir -p "$fake/bin"
for t in "$real"/bin/*; do
	case "$(basename "$t")" in nvcc | compute-sanitizer | ncu) ;; *) ln -s "$t" "$fake/bin/" ;; esac
done
for d in "$real"/*; do [ "$(basename "$d")" = bin ] || ln -s "$d" "$fake/"; done
cat >"$fake/bin/nvcc" <<EOF
#!/usr/bin/env bash
out= inc= main=0 prev=
for a in "\$@"; do
	case "\$prev" in -o) out=\$a ;; -I) inc=\$a ;; esac
	case "\$a" in *bench_main.cu) main=1 ;; esac
	prev=\$a
done
[ \$main = 1 ] || exec "$real/bin/nvcc" "\$@"
printf '#!/bin/sh\nexec python3 %s %s "\$@"\n' "$fake/bin/harness.py" "\$inc/kpipe_bench_spec.h" >"\$out"
chmod +x "\$out"
EOF
chmod +x "$fake/bin/nvcc"
# The stand-in harness: the sizes and instantiations from the generated
# header, every check ok, each timed cell's rounds with the speedups of
# $FAKE_SPEEDUPS ("version|<inst>": factor, default 1) and a drift every
# version shares.
cat >"$fake/bin/harness.py" <<'EOF'
import json, os, re, sys
hdr = open(sys.argv[1]).read()
def names(key):
    m = re.search(key + r"\[\] = \{(.*?)\};", hdr)
    return re.findall(r'"([^"]*)"', m.group(1)) if m else []
all_sizes, insts = names("kSizeNames"), names("kInstNames") or [None]
libs, sizes, times, rounds, a, i = [], all_sizes, [], 1, sys.argv[2:], 0
while i < len(a):
    if a[i] == "--lib":
        libs.append(a[i + 1].split("=")[0])
    elif a[i] == "--sizes":
        sizes = [s for s in a[i + 1].split(",") if s]
    elif a[i] == "--time":
        times = a[i + 1].split(",")
    elif a[i] == "--rounds":
        rounds = int(a[i + 1])
    i += 1 if a[i] in ("--single", "--copy") else 2
speed = json.loads(os.environ.get("FAKE_SPEEDUPS", "{}"))
def ev(**kw):
    print(json.dumps(kw, separators=(",", ":")))
ev(event="device", name="Stand-in GPU", cc="9.0", sms=132, clock_mhz=1980, driver=13000, runtime=13000)
for s in sizes:
    for k, inst in enumerate(insts):
        at = {"size": s} if inst is None else {"size": s, "inst": inst}
        ev(event="baseline", ok=True, elements=64, unwritten=0, nondeterministic=0, **at)
        for v in libs[1:]:
            ev(event="check", version=v, ok=True, elements=64, mismatches=0, unwritten=0, differ=0,
               max_abs=0, max_rel=0, clobbered_inputs=0, first_mismatch=None, **at)
        if s not in times:
            continue
        base = 0.1 * (1 + all_sizes.index(s)) * (1 + 0.2 * k)
        for r in range(rounds):
            for v in libs:
                m = base * (1.005 if r % 2 else 0.995) / speed.get("%s|%s" % (v, inst), 1.0)
                ev(event="time", version=v, round=r, reps=3, warmup=1, median_ms=m, min_ms=m * 0.999,
                   max_ms=m * 1.001, mean_ms=m, work=2e9, work_kind="flops",
                   all_ms=[m * 0.999, m, m * 1.001], **at)
ev(event="done")
EOF
export FAKE_SPEEDUPS='{"register|<32>": 1.30, "register|<64>": 0.95, "cp-async|<32>": 1.05, "cp-async|<64>": 1.05}'
cp "$root/samples/matmul_ktile.cu" "$root/samples/matmul_ktile.launch.json" "$tmp/"

# 1. --sizes small,target, JSON: four cells
"$kpipe" tune "$tmp/matmul_ktile.cu" -o "$tmp/json.cu" --gpu-dir "$tmp/gd1" --cuda-path "$fake" \
	--no-sanitize --sizes small,target --format json >"$tmp/json" 2>"$tmp/e1"
rc=$?
check "json: exit 0 (got $rc: $(tail -3 "$tmp/e1"))" test $rc = 0
check "json: the library exports a launcher pair per instantiation" \
	bash -c "nm -D '$tmp/gd1/original.so' | grep -q ' T kpipe_bench_launch_1\$'"
# one library per version (the original, the variants and their +swz
# builds where --block-swizzle remaps the kernel), never one per
# instantiation: at most one library per version name in the JSON's
# versions (the original's included)
nlib=$(ls "$tmp"/gd1/*.so 2>/dev/null | wc -l)
nver=$(python3 -c "import json,sys; print(len({v['name'] for v in json.load(open(sys.argv[1]))['versions']}))" "$tmp/json" 2>/dev/null || echo 0)
check "json: one library per version, not per instantiation ($nlib libraries, $nver versions)" \
	bash -c "[ $nlib -ge 2 ] && [ $nlib -le $nver ] && ! ls '$tmp/gd1' | grep -q '<'"
python3 - "$tmp/json" <<'PY' && ok || bad "json: cells and decision (above)"
import json, math, sys
d = json.load(open(sys.argv[1]))
assert d["kernel"] == "matmul_ktile", d["kernel"]
assert d["instantiations"] == ["<32>", "<64>"], d.get("instantiations")
assert d["timed_sizes"] == ["small", "target"], d["timed_sizes"]
assert d["chosen"] == "register", (d["chosen"], d["reason"])
assert "geometric mean over 4 cells: 2 instantiations x 2 sizes" in d["reason"], d["reason"]
vs = {v["name"]: v for v in d["versions"]}
want = {"register": [1.30, 0.95, 1.30, 0.95], "cp-async": [1.05] * 4}
for name, sp in want.items():
    cells = vs[name]["sizes"]
    assert [(c["instantiation"], c["size"]) for c in cells] == \
        [("<32>", "small"), ("<64>", "small"), ("<32>", "target"), ("<64>", "target")], cells
    for c, s in zip(cells, sp):
        assert abs(c["speedup"] / s - 1) < 1e-6, (name, c, s)
    g = math.exp(sum(math.log(c["speedup"]) for c in cells) / 4)
    assert abs(g / vs[name]["speedup"] - 1) < 1e-9, (name, g, vs[name]["speedup"])
assert abs(d["speedup"] - math.sqrt(1.30 * 0.95)) < 1e-6, d["speedup"]
assert all("instantiation" in c for c in vs["original"]["sizes"]), vs["original"]
PY
"$kpipe" rewrite --variant register "$tmp/matmul_ktile.cu" -o "$tmp/register.cu" 2>/dev/null
check "json: the register rewrite written" cmp -s "$tmp/json.cu" "$tmp/register.cu"

# 2. the default timed size, text: the cells are the two instantiations;
# cp-async wins now that register is slower on <64> at 'target'
export FAKE_SPEEDUPS='{"register|<32>": 1.10, "register|<64>": 0.80, "cp-async|<32>": 1.02, "cp-async|<64>": 1.04}'
"$kpipe" tune "$tmp/matmul_ktile.cu" -o "$tmp/text.cu" --gpu-dir "$tmp/gd2" --cuda-path "$fake" \
	--no-sanitize --kernel matmul_ktile >"$tmp/text" 2>"$tmp/e2"
rc=$?
check "text: exit 0 (got $rc: $(tail -3 "$tmp/e2"))" test $rc = 0
want() { if grep -qF -- "$2" "$tmp/text"; then ok; else bad "text: missing '$2' ($1)"; fi; }
want head "kernel matmul_ktile, instantiations <32>, <64>, size 'target', 5 rounds)"
want kernel "--kernel matmul_ktile chose the kernel checked statically; the GPU timed every instantiation of matmul_ktile"
want first "median, spread and rate at size 'target' of instantiation <32>; speedup: geometric mean over the 2 (instantiation, size) cells"
want table "  per instantiation and size: median ms (speedup)"
check "text: the instantiations over the size" \
	grep -qE '^ {14} +<32> +<64>$' "$tmp/text"
check "text: a row per version and cell" \
	grep -qE '^  register +[0-9.]+ \(1\.100x\) +[0-9.]+ \(0\.800x\)$' "$tmp/text"
want result "result: cp-async is the fastest: 1.030x"
want basis "geometric mean over 2 instantiations)"
"$kpipe" rewrite --variant cp-async "$tmp/matmul_ktile.cu" -o "$tmp/cp.cu" 2>/dev/null
check "text: the cp-async rewrite written" cmp -s "$tmp/text.cu" "$tmp/cp.cu"

kp_summary tune_cells
