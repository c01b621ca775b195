#!/usr/bin/env bash
# batch.sh - `kpipe rewrite` over directories, several files and a
# compilation database: the mirrored --out-dir tree (every file, unchanged ones as they were),
# -i with backups, --diff through git apply, --dry-run, --exclude,
# --shard, -j and the precompiled header giving the same bytes as
# single-file runs, a file that fails to parse (or crashes) not stopping
# the others, the summary, --format json, and the exit codes.
# Inputs: samples/ and tests/fixtures/cu/.  Prints "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_tmpdir batch
same() { cmp -s "$1" "$2"; }
no_crash() { ! grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$1"; }

# A small project: kernels in nested folders, a header, a refused kernel,
# a file with no kernel, a file that does not compile, a non-CUDA file,
# and a hidden folder that must be skipped.
proj="$tmp/proj"
mkdir -p "$proj/src/gemm" "$proj/src/attn" "$proj/third_party/lib" "$proj/.cache"
cp "$root/samples/matmul_32x32.cu" "$root/samples/matmul_32x32.launch.json" "$proj/src/gemm/"
cp "$root/samples/matmul_guarded.cu" "$proj/src/gemm/"
cp "$root/samples/sgemm_128x128x8.cu" "$proj/src/gemm/sgemm.cuh"
cp "$root/samples/attention_kv.cu" "$proj/src/attn/"
cp "$root/samples/refused_smem_carry.cu" "$proj/src/attn/"
cp "$root/tests/fixtures/cu/empty.cu" "$proj/src/empty.cu"
cp "$root/tests/fixtures/cu/syntax_error.cu" "$proj/src/broken.cu"
cp "$root/samples/matmul_ptr_bump.cu" "$proj/third_party/lib/vendored.cu"
cp "$root/samples/matmul_ptr_bump.cu" "$proj/.cache/hidden.cu"
echo 'int main() { return 0; }' >"$proj/src/host.cpp"
cp -r "$proj" "$tmp/pristine"

# single-file references
refs="$tmp/refs"
mkdir -p "$refs"
for f in src/gemm/matmul_32x32.cu src/gemm/matmul_guarded.cu src/gemm/sgemm.cuh src/attn/attention_kv.cu third_party/lib/vendored.cu; do
	mkdir -p "$refs/$(dirname "$f")"
	(cd "$proj" && "$kpipe" rewrite "$f" -o "$refs/$f") 2>/dev/null
done

# --- a directory, --out-dir ------------------------------------------------
(cd "$tmp" && "$kpipe" rewrite proj --out-dir out -j 2) >"$tmp/o" 2>"$tmp/e"
rc=$?
check "dir: exit 3 (one file does not compile)" test $rc -eq 3
check "dir: no crash" no_crash "$tmp/e"
for f in src/gemm/matmul_32x32.cu src/gemm/matmul_guarded.cu src/gemm/sgemm.cuh src/attn/attention_kv.cu third_party/lib/vendored.cu; do
	check "dir: $f mirrored, same as a single-file run" same "$tmp/out/$f" "$refs/$f"
done
# --out-dir holds every file: one with nothing pipelined as it was
check "dir: refused file copied unchanged" same "$tmp/out/src/attn/refused_smem_carry.cu" "$proj/src/attn/refused_smem_carry.cu"
check "dir: file without kernels copied unchanged" same "$tmp/out/src/empty.cu" "$proj/src/empty.cu"
check "dir: broken file not written" test ! -e "$tmp/out/src/broken.cu"
check "dir: hidden folder skipped" test ! -e "$tmp/out/.cache"
check "dir: the 5 rewritten files and the 2 unchanged ones" test "$(find "$tmp/out" -type f | wc -l)" -eq 7
check "dir: stdout empty" test ! -s "$tmp/o"
check "dir: the parse error, with its position" grep -q '^proj/src/broken.cu:5:16: error:' "$tmp/e"
check "dir: the refusal, with its id" grep -q '^proj/src/attn/refused_smem_carry.cu:[0-9]*:[0-9]*: warning: .*\[kpipe-smem-carried\]$' "$tmp/e"
check "dir: summary line" grep -q '^kpipe rewrite: 8 files: 5 rewritten, 1 unchanged, 1 refused, 1 failed; 6 kernels, 6 loops$' "$tmp/e"
check "dir: summary by variant" grep -qE '^  pipelined: 5 \((register|cp-async) [0-9]+' "$tmp/e"
check "dir: summary by reason" grep -q '^  refused:   1 (kpipe-smem-carried 1)$' "$tmp/e"
check "dir: summary errors" grep -q '^  errors:    1 file$' "$tmp/e"
# (matmul_guarded.cu, copied without its launch description and with no
# launch, is rewritten unverified: a warning of its own, left out here)
check "dir: diagnostics in file order" test "$(grep -v ': note: ' "$tmp/e" | grep -v '\[kpipe-unverified\]' | grep -vE '\.cuh?: ([0-9]+ of [0-9]+ loops? pipelined|no K-loop|failed)' | grep -oE '^proj/src/[a-z/_]*\.cu' | uniq | tr '\n' ' ')" = "proj/src/attn/refused_smem_carry.cu proj/src/broken.cu "
# quiet by default: one line per file, in file order, after its warnings
check "dir: one summary line per file" \
	test "$(grep -cE '^proj/[a-z0-9/_]*\.cuh?: ([0-9]+ of [0-9]+ loops? pipelined|no K-loop|failed)' "$tmp/e")" -eq 8
check "dir: the refused file's line" \
	grep -q '^proj/src/attn/refused_smem_carry.cu: 0 of 1 loop pipelined; 1 K-loop refused; 1 warning$' "$tmp/e"
check "dir: the broken file's line" grep -q '^proj/src/broken.cu: failed$' "$tmp/e"
check "dir: the input tree is untouched" diff -r "$proj" "$tmp/pristine"

# --- -j 1, -j 2, --no-pch: the same bytes -----------------------------------
for v in "-j 1" "-j 2 --no-pch" "-j 3"; do
	rm -rf "$tmp/out2"
	# shellcheck disable=SC2086 # $v is several arguments
	(cd "$tmp" && "$kpipe" rewrite proj --out-dir out2 $v) >/dev/null 2>"$tmp/e2"
	check "$v: exit 3" test $? -eq 3
	check "$v: same tree as -j 2" diff -r "$tmp/out" "$tmp/out2"
done

# --- all good: exit 0; nothing to do only: exit 1 ---------------------------
rm -rf "$tmp/out3"
"$kpipe" rewrite "$proj" --out-dir "$tmp/out3" --exclude broken.cu >/dev/null 2>"$tmp/e"
check "exclude the broken file: exit 0" test $? -eq 0
check "exclude: broken file not mentioned" bash -c "! grep -q broken.cu '$tmp/e'"
"$kpipe" rewrite "$proj/src/attn/refused_smem_carry.cu" "$proj/src/empty.cu" --out-dir "$tmp/out4" >/dev/null 2>"$tmp/e"
check "refused and empty only: exit 0" test $? -eq 0
check "refused and empty only: copied unchanged" same "$tmp/out4/attn/refused_smem_carry.cu" "$proj/src/attn/refused_smem_carry.cu"
"$kpipe" rewrite "$proj/src/attn/refused_smem_carry.cu" "$proj/src/empty.cu" --out-dir "$tmp/out4" --Werror >/dev/null 2>"$tmp/e"
check "refused and empty only, --Werror: exit 1 (a warning)" test $? -eq 1
"$kpipe" rewrite "$proj/src/empty.cu" "$proj/src/gemm/matmul_32x32.cu" --out-dir "$tmp/out4" --Werror >/dev/null 2>"$tmp/e"
check "no warning, --Werror: exit 0" test $? -eq 0

# --- --exclude ----------------------------------------------------------------
rm -rf "$tmp/out5"
(cd "$tmp" && "$kpipe" rewrite proj --out-dir out5 --exclude 'third_party/*' --exclude '*.cuh' --exclude broken.cu) >/dev/null 2>"$tmp/e"
check "exclude: exit 0" test $? -eq 0
check "exclude: third_party skipped" test ! -e "$tmp/out5/third_party"
check "exclude: .cuh skipped" test ! -e "$tmp/out5/src/gemm/sgemm.cuh"
check "exclude: the rest written" test -f "$tmp/out5/src/gemm/matmul_32x32.cu"

# --- --shard ------------------------------------------------------------------
for i in 0 1 2; do
	(cd "$tmp" && "$kpipe" rewrite proj --dry-run --shard $i/3) >"$tmp/shard$i" 2>/dev/null
done
cat "$tmp/shard0" "$tmp/shard1" "$tmp/shard2" | sed 's/:.*//' | sort >"$tmp/shards"
(cd "$tmp" && "$kpipe" rewrite proj --dry-run) 2>/dev/null | sed 's/:.*//' | sort >"$tmp/all"
check "shard: the shards cover every file once" same "$tmp/shards" "$tmp/all"
check "shard: 7 files with a result line ($(wc -l <"$tmp/all"))" test "$(wc -l <"$tmp/all")" -eq 7
check "shard 0/3: files 0, 3, 6 of the sorted list" test "$(sed 's/:.*//' "$tmp/shard0" | tr '\n' ' ')" = "proj/src/attn/attention_kv.cu proj/src/empty.cu proj/src/gemm/sgemm.cuh "
(cd "$tmp" && "$kpipe" rewrite proj --dry-run --shard 0/3) >"$tmp/shard0b" 2>/dev/null
check "shard: deterministic" same "$tmp/shard0" "$tmp/shard0b"
"$kpipe" rewrite "$proj" --dry-run --shard 3/3 >/dev/null 2>"$tmp/e"
check "shard 3/3: usage error" test $? -eq 2

# --- --dry-run ----------------------------------------------------------------
(cd "$tmp" && "$kpipe" rewrite proj --dry-run --exclude broken.cu) >"$tmp/o" 2>"$tmp/e"
check "dry-run: exit 1 (something would change)" test $? -eq 1
check "dry-run: per-file lines" grep -qx 'proj/src/gemm/matmul_32x32.cu: would pipeline 1 of 1 loop' "$tmp/o"
check "dry-run: nothing written" diff -r "$proj" "$tmp/pristine"

# --- --diff, applied with git apply -------------------------------------------
(cd "$tmp" && "$kpipe" rewrite proj --diff --exclude broken.cu) >"$tmp/all.diff" 2>/dev/null
check "diff: exit 0" test $? -eq 0
if command -v git >/dev/null; then
	rm -rf "$tmp/g"
	mkdir -p "$tmp/g"
	cp -r "$tmp/pristine" "$tmp/g/proj"
	(cd "$tmp/g" && git apply "$tmp/all.diff") 2>"$tmp/e"
	check "diff: git apply accepts it" test $? -eq 0
	for f in src/gemm/matmul_32x32.cu src/attn/attention_kv.cu third_party/lib/vendored.cu; do
		check "diff: $f after git apply" same "$tmp/g/proj/$f" "$refs/$f"
	done
fi

# --- -i on a directory, with backups -------------------------------------------
rm -rf "$tmp/inplace"
cp -r "$tmp/pristine" "$tmp/inplace"
"$kpipe" rewrite -i --backup-suffix=.orig "$tmp/inplace/src" >/dev/null 2>"$tmp/e"
check "-i dir: exit 3 (broken.cu)" test $? -eq 3
check "-i dir: rewritten in place" same "$tmp/inplace/src/gemm/matmul_32x32.cu" "$refs/src/gemm/matmul_32x32.cu"
check "-i dir: backup kept" same "$tmp/inplace/src/gemm/matmul_32x32.cu.orig" "$root/samples/matmul_32x32.cu"
check "-i dir: refused file untouched" same "$tmp/inplace/src/attn/refused_smem_carry.cu" "$root/samples/refused_smem_carry.cu"
check "-i dir: no backup for the refused file" test ! -e "$tmp/inplace/src/attn/refused_smem_carry.cu.orig"
check "-i dir: broken file untouched" same "$tmp/inplace/src/broken.cu" "$root/tests/fixtures/cu/syntax_error.cu"
check "-i dir: no temporary files" test -z "$(find "$tmp/inplace" -name '.kpipe-tmp-*')"

# --- --format json -------------------------------------------------------------
(cd "$tmp" && "$kpipe" rewrite proj --out-dir outj --format json) >"$tmp/j" 2>"$tmp/e"
check "json: exit 3" test $? -eq 3
if command -v python3 >/dev/null; then
	check "json: the report" python3 - "$tmp/j" <<-'PY'
		import json, sys
		d = json.load(open(sys.argv[1]))
		s = d["summary"]
		assert s["files"] == 8 and s["errors"] == 1 and s["files_pipelined"] == 5, s
		assert s["files_refused"] == 1 and s["files_unchanged"] == 1, s
		assert s["loops"] == 6 and s["pipelined"] == 5 and s["refused"] == 1, s
		assert sum(s["pipelined_by_variant"].values()) == 5, s
		assert s["refused_by_reason"] == {"kpipe-smem-carried": 1}, s
		by = {f["path"]: f for f in d["files"]}
		assert by["proj/src/broken.cu"]["status"] == "error", by["proj/src/broken.cu"]
		assert by["proj/src/broken.cu"]["exit"] == 3
		assert by["proj/src/empty.cu"]["status"] == "unchanged"
		assert by["proj/src/attn/refused_smem_carry.cu"]["status"] == "refused"
		m = by["proj/src/gemm/matmul_32x32.cu"]
		assert m["status"] == "pipelined" and m["output"] == "outj/src/gemm/matmul_32x32.cu", m
		assert [f["path"] for f in d["files"]] == sorted(by), "files not sorted"
		# each loop's verdict, back from the batch's children: the
		# pipelined one with its variant, the refused one with its id
		v = m["verdicts"]
		assert len(v) == 1 and v[0]["kernel"] == "matmul_32x32" and v[0]["eligible"], v
		assert v[0]["pipelined"] and v[0]["variant"] in s["pipelined_by_variant"], v
		assert v[0]["line"] > 0 and v[0]["reasons"] == [], v
		r = by["proj/src/attn/refused_smem_carry.cu"]["verdicts"]
		assert len(r) == 1 and not r[0]["eligible"] and not r[0]["pipelined"], r
		assert r[0]["variant"] is None and "kpipe-smem-carried" in r[0]["reasons"], r
		assert sum(len(f["verdicts"]) for f in d["files"]) == s["loops"], "a verdict per loop"
	PY
fi

# --- a crash in one file never stops the others --------------------------------
# KPIPE_TEST_CRASH names a file the child kills itself on (a test hook).
rm -rf "$tmp/outc"
(cd "$tmp" && KPIPE_TEST_CRASH=matmul_guarded.cu "$kpipe" rewrite proj --out-dir outc --exclude broken.cu) >/dev/null 2>"$tmp/e"
check "crash: exit 3" test $? -eq 3
check "crash: reported for that file" grep -q '^proj/src/gemm/matmul_guarded.cu: error: kpipe crashed on this file (signal 11)' "$tmp/e"
check "crash: the other files are written" same "$tmp/outc/src/gemm/matmul_32x32.cu" "$refs/src/gemm/matmul_32x32.cu"
check "crash: nothing written for it" test ! -e "$tmp/outc/src/gemm/matmul_guarded.cu"

# --- -p BUILD_DIR: the files of compile_commands.json ----------------------------
cdb="$tmp/cdb"
mkdir -p "$cdb/src" "$cdb/build"
cp "$root/tests/fixtures/compdb/needs_define.cu" "$cdb/src/"
cp "$root/samples/matmul_32x32.cu" "$cdb/src/plain.cu"
cat >"$cdb/build/compile_commands.json" <<JSON
[{"directory": "$cdb/build", "file": "../src/needs_define.cu",
  "arguments": ["nvcc", "-DCD_TILE=16", "-c", "../src/needs_define.cu"]},
 {"directory": "$cdb/build", "file": "$cdb/src/plain.cu",
  "arguments": ["nvcc", "-c", "$cdb/src/plain.cu"]},
 {"directory": "$cdb/build", "file": "$cdb/src/host.cpp",
  "arguments": ["g++", "-c", "$cdb/src/host.cpp"]}]
JSON
(cd "$cdb" && "$kpipe" rewrite -p build --out-dir out) >/dev/null 2>"$tmp/e"
check "-p: exit 0" test $? -eq 0
check "-p: the -D of the database reached the parser" grep -q 'As\[2\]\[CD_TILE\]\[CD_TILE\]' "$cdb/out/needs_define.cu"
(cd "$cdb" && "$kpipe" rewrite -p build src/plain.cu) >"$tmp/plain.cu" 2>/dev/null
check "-p: the other file, as a single-file run gives it" same "$cdb/out/plain.cu" "$tmp/plain.cu"
check "-p: two CUDA files, host.cpp left out" grep -q '^kpipe rewrite: 2 files: 2 rewritten' "$tmp/e"
"$kpipe" rewrite -p "$tmp/nowhere" --dry-run >/dev/null 2>"$tmp/e"
check "-p without a database: exit 3" test $? -eq 3
check "-p without a database: says so" grep -q 'compile_commands.json' "$tmp/e"

# --- usage errors ------------------------------------------------------------------
"$kpipe" rewrite "$proj" >"$tmp/o" 2>"$tmp/e"
check "dir without an output: usage error" test $? -eq 2
check "dir without an output: says what to add" grep -q -- '--out-dir' "$tmp/e"
"$kpipe" rewrite "$proj" -o "$tmp/x.cu" >/dev/null 2>&1
check "dir with -o: usage error" test $? -eq 2
"$kpipe" rewrite "$proj" --out-dir "$tmp/x" --diff >/dev/null 2>&1
check "--out-dir with --diff: usage error" test $? -eq 2
"$kpipe" rewrite "$proj" --out-dir "$tmp/x" -j 0 >/dev/null 2>&1
check "-j 0: usage error" test $? -eq 2
"$kpipe" rewrite - "$proj" --out-dir "$tmp/x" </dev/null >/dev/null 2>&1
check "stdin among several inputs: usage error" test $? -eq 2
"$kpipe" rewrite "$tmp/no/such/dir" --out-dir "$tmp/x" >/dev/null 2>"$tmp/e"
check "missing input: exit 3" test $? -eq 3
check "missing input: named" grep -q 'no/such/dir' "$tmp/e"
check "nothing created by the usage errors" test ! -e "$tmp/x"

# a header kernel template rewritten through one .cu and instantiated by
# another with a type the variant does not fit (issue 31): the header is
# left as written (copied unchanged to OUT, which holds every file), with a
# warning; with only the fitting file it is rewritten
inst="$root/tests/fixtures/headers/instances"
KPIPE_NO_PTXAS=1 "$kpipe" rewrite --variant cp-async "$inst" --out-dir "$tmp/inst" 2>"$tmp/inst.err"
check "header instantiations: the header is not rewritten (OUT has it as it was)" \
	cmp -s "$inst/tiles.cuh" "$tmp/inst/tiles.cuh"
check "header instantiations: a warning names the other file" grep -q \
	"tiles.cuh: warning: not rewritten: .*b_double.cu instantiates its kernels otherwise.*\[kpipe-variant-unavailable\]" "$tmp/inst.err"
KPIPE_NO_PTXAS=1 "$kpipe" rewrite --variant cp-async "$inst/a_float.cu" "$inst/tiles.cuh" --out-dir "$tmp/inst1" 2>"$tmp/inst1.err"
check "header instantiations: through the fitting file alone, written" grep -q kp_stage "$tmp/inst1/tiles.cuh"

kp_summary
