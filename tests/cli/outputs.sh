#!/usr/bin/env bash
# outputs.sh - what other tools consume: --export-fixes applied with
# clang-apply-replacements gives the -o output (one file, a CRLF file, a
# directory); --format sarif validates against the official SARIF 2.1.0
# schema (tests/fixtures/sarif/) and its rules point at existing sections
# of docs/diagnostics.md; every id printed is documented there; stdin
# with --assume-filename keeps stdout for data and stderr empty; the JSON
# report; the man page renders; --help groups examples by workflow.
# Tools that are missing are reported as skipped checks ("SKIP: ...").
# Prints "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_tmpdir outputs
same() { cmp -s "$1" "$2"; }
cd "$root" || exit 1

# A Python with jsonschema: the one on PATH, else Debian's.
py=""
for p in python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null && "$p" -c 'import jsonschema' 2>/dev/null; then
		py="$p"
		break
	fi
done
car="$(command -v clang-apply-replacements-19 || command -v clang-apply-replacements || true)"

# --- --export-fixes + clang-apply-replacements == -o ---------------------------
apply_fixes() { # NAME FILE...: fixes for the files, applied in a copy
	local name="$1"
	shift
	local d="$tmp/fx-$name"
	mkdir -p "$d/src" "$d/fixes"
	cp "$@" "$d/src/"
	(cd "$d" && "$kpipe" rewrite src/*.cu --export-fixes fixes/kpipe.yaml -j 2) >"$d/out" 2>"$d/err"
	echo $? >"$d/rc"
}
if [ -n "$car" ]; then
	# one file
	d="$tmp/fx1"
	mkdir -p "$d/fixes"
	cp samples/matmul_guarded.cu "$d/k.cu"
	cp samples/matmul_guarded.launch.json "$d/k.launch.json"
	(cd "$d" && "$kpipe" rewrite k.cu --export-fixes fixes/k.yaml) >"$d/out" 2>"$d/err"
	check "fixes: exit 0" test $? -eq 0
	check "fixes: no code on stdout when only fixes are asked for" test ! -s "$d/out"
	check "fixes: MainSourceFile is the file" grep -qx "MainSourceFile:  \"$d/k.cu\"" "$d/fixes/k.yaml"
	"$kpipe" rewrite samples/matmul_guarded.cu -o "$tmp/guarded.ref.cu" 2>/dev/null
	cp samples/matmul_guarded.cu "$tmp/guarded.before"
	"$car" "$d/fixes" 2>"$d/car.err"
	check "fixes: clang-apply-replacements accepts them" test $? -eq 0
	check "fixes: applied == -o output" same "$d/k.cu" "$tmp/guarded.ref.cu"
	check "fixes: the sample itself untouched" same samples/matmul_guarded.cu "$tmp/guarded.before"

	# a CRLF file, a file with two kernels, a refused one
	mkdir -p "$tmp/crlf"
	sed 's/$/\r/' samples/matmul_32x32.cu >"$tmp/crlf/crlf.cu"
	apply_fixes many "$tmp/crlf/crlf.cu" samples/multi_kernel_macros.cu samples/refused_smem_carry.cu samples/wmma_fp16_64x64x32.cu
	d="$tmp/fx-many"
	check "fixes (dir): exit 0" test "$(cat "$d/rc")" -eq 0
	check "fixes (dir): the refusal is a diagnostic without replacements" \
		grep -q 'DiagnosticName:  "kpipe-smem-carried"' "$d/fixes/kpipe.yaml"
	for f in crlf multi_kernel_macros wmma_fp16_64x64x32; do
		(cd "$d" && "$kpipe" rewrite "src/$f.cu" -o "$d/$f.ref.cu") 2>/dev/null
	done
	cp "$d/src/refused_smem_carry.cu" "$d/refused.before"
	"$car" "$d/fixes" 2>"$d/car.err"
	check "fixes (dir): clang-apply-replacements accepts them" test $? -eq 0
	for f in crlf multi_kernel_macros wmma_fp16_64x64x32; do
		check "fixes (dir): $f applied == -o output" same "$d/src/$f.cu" "$d/$f.ref.cu"
	done
	check "fixes (dir): refused file unchanged" same "$d/src/refused_smem_carry.cu" "$d/refused.before"
else
	echo "SKIP: clang-apply-replacements not installed (package clang-tools-19): fixes not applied"
fi

# --- SARIF ----------------------------------------------------------------------
"$kpipe" rewrite --format sarif --sarif-all samples/matmul_guarded.cu >"$tmp/one.sarif" 2>"$tmp/e"
check "sarif (one file): exit 0" test $? -eq 0
check "sarif (one file): stderr empty" test ! -s "$tmp/e"
"$kpipe" rewrite --format sarif --sarif-all samples tests/fixtures/cu --dry-run >"$tmp/all.sarif" 2>"$tmp/e"
check "sarif (dirs): exit 3 (a fixture does not compile)" test $? -eq 3
# by default refusals only; "// kpipe: ignore ID" above the loop suppresses one
mkdir -p "$tmp/sup"
cp samples/matmul_32x32.cu samples/refused_divergent_barrier.cu "$tmp/sup/"
awk '/for \(int k0/ && !done { print "    // kpipe: ignore kpipe-smem-carried -- a running sum on purpose"; done = 1 } { print }' \
	samples/refused_smem_carry.cu >"$tmp/sup/carry.cu"
"$kpipe" rewrite --format sarif "$tmp/sup" >"$tmp/ref.sarif" 2>"$tmp/e"
check "sarif (refusals): exit 0 (one file rewritten)" test $? -eq 0
"$kpipe" rewrite "$tmp/sup" --dry-run >/dev/null 2>"$tmp/e"
check "text: a suppressed refusal is not printed" test "$(grep -c '\[kpipe-smem-carried' "$tmp/e")" -eq 0
check "text: the others are" grep -q 'kpipe-divergent-barrier' "$tmp/e"
# sarif_valid FILE: FILE is valid against the SARIF 2.1.0 schema
sarif_valid() {
	"$py" - "$1" <<-'PY'
		import json, sys, jsonschema
		schema = json.load(open("tests/fixtures/sarif/sarif-schema-2.1.0.json"))
		log = json.load(open(sys.argv[1]))
		v = jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())
		errors = sorted(v.iter_errors(log), key=lambda e: list(e.path))
		for e in errors[:5]:
		    print("  schema:", list(e.path), e.message[:200])
		sys.exit(1 if errors else 0)
	PY
}
if [ -n "$py" ]; then
	for s in one all ref; do
		check "sarif ($s): valid against the SARIF 2.1.0 schema" sarif_valid "$tmp/$s.sarif"
	done
	check "sarif (dirs): content" "$py" - "$tmp/all.sarif" <<-'PY'
		import json, re, sys
		log = json.load(open(sys.argv[1]))
		run = log["runs"][0]
		rules = run["tool"]["driver"]["rules"]
		results = run["results"]
		ids = {r["ruleId"] for r in results}
		assert "kpipe-smem-carried" in ids and "clang-diagnostic-error" in ids, ids
		assert "kpipe-divergent-barrier" in ids and "kpipe-pipelined" in ids, ids
		for r in results:
		    assert rules[r["ruleIndex"]]["id"] == r["ruleId"], r
		heads = set(re.findall(r"^## (\S+)$", open("docs/diagnostics.md").read(), re.M))
		anchors = {h.lower() for h in heads} | {"where-diagnostics-appear"}
		pending = {"kpipe-pipelined"}   # section to be added to docs/diagnostics.md
		for rule in rules:
		    uri = rule["helpUri"]
		    # absolute: the installed copy (file://) or a published one (https://)
		    assert uri.startswith(("https://", "file:///")) and "diagnostics.md#" in uri, uri
		    a = uri.split("#", 1)[1]
		    if a in pending and a not in anchors:
		        print("  note: docs/diagnostics.md has no section '%s' yet" % a)
		        continue
		    assert a in anchors, "no section for " + uri
		fixed = [r for r in results if r.get("fixes")]
		assert fixed and all(r["ruleId"] == "kpipe-pipelined" for r in fixed)
		rep = fixed[0]["fixes"][0]["artifactChanges"][0]["replacements"][0]
		assert "byteOffset" in rep["deletedRegion"] and "text" in rep["insertedContent"]
		assert run["invocations"][0]["exitCode"] == 3
	PY
	check "sarif (refusals): no notes, the suppressed refusal marked inSource" "$py" - "$tmp/ref.sarif" <<-'PY'
		import json, sys
		results = json.load(open(sys.argv[1]))["runs"][0]["results"]
		assert all(r["level"] in ("warning", "error") for r in results), results
		assert not any(r.get("fixes") for r in results)
		by_id = {r["ruleId"]: r for r in results}
		assert "kpipe-pipelined" not in by_id, by_id.keys()
		assert by_id["kpipe-smem-carried"]["suppressions"] == [{"kind": "inSource"}]
		assert "suppressions" not in by_id["kpipe-divergent-barrier"]
	PY
	check "sarif: fixes reproduce the rewrite" "$py" - "$tmp/one.sarif" "$tmp/guarded.sarif.cu" <<-'PY'
		import json, sys
		log = json.load(open(sys.argv[1]))
		src = open("samples/matmul_guarded.cu", "rb").read()
		reps = []
		for r in log["runs"][0]["results"]:
		    for f in r.get("fixes", []):
		        for c in f["artifactChanges"]:
		            for x in c["replacements"]:
		                d = x["deletedRegion"]
		                reps.append((d["byteOffset"], d["byteLength"], x["insertedContent"]["text"].encode()))
		out, pos = b"", 0
		for off, n, text in sorted(reps):
		    assert off >= pos
		    out += src[pos:off] + text
		    pos = off + n
		open(sys.argv[2], "wb").write(out + src[pos:])
	PY
	"$kpipe" rewrite samples/matmul_guarded.cu >"$tmp/guarded.ref2.cu" 2>/dev/null
	check "sarif: fixes applied == -o output" same "$tmp/guarded.sarif.cu" "$tmp/guarded.ref2.cu"
else
	echo "SKIP: no python3 with jsonschema (package python3-jsonschema): SARIF not validated"
fi

# --- analyze --format sarif: bank conflicts, uncoalesced accesses, refusals -----------
for f in transpose_shared matmul_column_read transpose_padded refused_smem_carry; do
	"$kpipe" analyze --format sarif "samples/$f.cu" >"$tmp/an-$f.sarif" 2>"$tmp/e"
	check "analyze sarif ($f): exit 0, stderr empty" test $? -eq 0 -a ! -s "$tmp/e"
done
# "// kpipe: ignore kpipe-bank-conflict" on the line above the access
awk 'NR == 45 { print "            // kpipe: ignore kpipe-bank-conflict -- measured, it does not matter" } { print }' \
	samples/matmul_column_read.cu >"$tmp/sup/column.cu"
cp samples/matmul_column_read.launch.json "$tmp/sup/column.launch.json"
"$kpipe" analyze --format sarif "$tmp/sup/column.cu" tests/fixtures/cu/syntax_error.cu >"$tmp/an-sup.sarif" 2>"$tmp/e"
check "analyze sarif (a file does not compile): exit 3" test $? -eq 3
if [ -n "$py" ]; then
	for s in transpose_shared matmul_column_read transpose_padded refused_smem_carry sup; do
		check "analyze sarif ($s): valid against the SARIF 2.1.0 schema" sarif_valid "$tmp/an-$s.sarif"
	done
fi
if command -v python3 >/dev/null; then
	check "analyze sarif: the findings, their rules, levels and places" python3 - "$tmp" <<-'PY'
		import json, re, sys
		tmp = sys.argv[1]
		def run(name):
		    log = json.load(open("%s/an-%s.sarif" % (tmp, name)))
		    assert log["version"] == "2.1.0", log
		    run = log["runs"][0]
		    rules = run["tool"]["driver"]["rules"]
		    for r in run["results"]:
		        assert rules[r["ruleIndex"]]["id"] == r["ruleId"], r
		        assert r["ruleId"] == "clang-diagnostic-error" or rules[r["ruleIndex"]]["helpUri"].endswith("diagnostics.md#" + r["ruleId"]), r
		    return run
		def where(r):
		    p = r["locations"][0]["physicalLocation"]
		    return (p["artifactLocation"]["uri"], p["region"]["startLine"], p["region"].get("startColumn"))
		def memory(run):
		    return [r for r in run["results"] if r["ruleId"] in ("kpipe-bank-conflict", "kpipe-uncoalesced")]
		# the transpose through shared memory: the column read, 32-way
		run = run("transpose_shared")
		m = memory(run)
		assert len(m) == 1 and m[0]["ruleId"] == "kpipe-bank-conflict" and m[0]["level"] == "warning", m
		assert where(m[0]) == ("samples/transpose_shared.cu", 33, 43), where(m[0])
		t = m[0]["message"]["text"]
		assert "`tile[threadIdx.x][threadIdx.y + j]`" in t and "32-way bank conflict" in t and "lanes 0,1,2,3," in t, t
		assert run["invocations"][0]["exitCode"] == 0
		# matmul_column_read: As[tx][kk] 32-way, the store to C uncoalesced
		run_c = json.load(open(tmp + "/an-matmul_column_read.sarif"))["runs"][0]
		m = {r["ruleId"]: r for r in memory(run_c)}
		assert set(m) == {"kpipe-bank-conflict", "kpipe-uncoalesced"}, m
		assert where(m["kpipe-bank-conflict"]) == ("samples/matmul_column_read.cu", 45, 20)
		assert "`As[tx][kk]`" in m["kpipe-bank-conflict"]["message"]["text"] and "32-way" in m["kpipe-bank-conflict"]["message"]["text"]
		assert where(m["kpipe-uncoalesced"]) == ("samples/matmul_column_read.cu", 50, 9)
		assert "32 sectors of 32 bytes per warp request, 4 would do" in m["kpipe-uncoalesced"]["message"]["text"]
		assert not any("suppressions" in r for r in run_c["results"])
		# the padded transpose: nothing
		assert memory(json.load(open(tmp + "/an-transpose_padded.sarif"))["runs"][0]) == []
		# a refusal of analyze's own
		ref = json.load(open(tmp + "/an-refused_smem_carry.sarif"))["runs"][0]["results"]
		assert [r["ruleId"] for r in ref if r["ruleId"] == "kpipe-smem-carried"] and all(r["level"] == "warning" for r in ref), ref
		# suppressed in the source: marked inSource, the other finding not; a
		# file that does not compile: its compiler error, exit 3
		sup = json.load(open(tmp + "/an-sup.sarif"))["runs"][0]
		m = {r["ruleId"]: r for r in memory(sup)}
		assert m["kpipe-bank-conflict"]["suppressions"] == [{"kind": "inSource"}], m
		assert "suppressions" not in m["kpipe-uncoalesced"], m
		assert any(r["ruleId"] == "clang-diagnostic-error" and r["level"] == "error" for r in sup["results"]), sup["results"]
		assert sup["invocations"][0]["exitCode"] == 3 and not sup["invocations"][0]["executionSuccessful"]
		assert len(sup["artifacts"]) == 2, sup["artifacts"]
	PY
fi

# --- every printed diagnostic names a documented id ------------------------------
: >"$tmp/diags"
for f in samples/*.cu; do
	"$kpipe" rewrite --dry-run "$f" >/dev/null 2>>"$tmp/diags"
	"$kpipe" rewrite --dry-run --variant cp-async --arch sm_75 "$f" >/dev/null 2>>"$tmp/diags"
done
check "ids: some diagnostics were printed" test -s "$tmp/diags"
undocumented=""
while read -r id; do
	grep -qx "## $id" docs/diagnostics.md || undocumented="$undocumented $id"
done < <(grep -oE '\[kpipe-[a-z0-9-]+\]$' "$tmp/diags" | tr -d '[]' | sort -u)
check "ids: every printed id has a section in docs/diagnostics.md ($undocumented)" test -z "$undocumented"
check "ids: every warning line ends with its id" \
	bash -c "! grep -E ': (warning|remark): ' '$tmp/diags' | grep -vqE '\[kpipe-[a-z0-9-]+\]$'"

# --- stdin for editors: data on stdout, nothing on stderr --------------------------
"$kpipe" rewrite - --assume-filename samples/matmul_32x32.cu <samples/matmul_32x32.cu >"$tmp/o" 2>"$tmp/e"
check "stdin: exit 0" test $? -eq 0
check "stdin: stderr empty" test ! -s "$tmp/e"
"$kpipe" rewrite samples/matmul_32x32.cu >"$tmp/ref.cu" 2>/dev/null
check "stdin: same as the file" same "$tmp/o" "$tmp/ref.cu"
"$kpipe" rewrite - --assume-filename samples/matmul_32x32.cu --diff <samples/matmul_32x32.cu >"$tmp/o" 2>"$tmp/e"
check "stdin --diff: exit 0, stderr empty" test $? -eq 0 -a ! -s "$tmp/e"
check "stdin --diff: a diff" grep -q '^+++ b/samples/matmul_32x32.cu$' "$tmp/o"
"$kpipe" rewrite - --assume-filename samples/matmul_32x32.cu --format sarif <samples/matmul_32x32.cu >"$tmp/o" 2>"$tmp/e"
check "stdin --format sarif: exit 0, stderr empty" test $? -eq 0 -a ! -s "$tmp/e"
check "stdin --format sarif: only the log on stdout" grep -qE '"version":[[:space:]]*"2.1.0"' "$tmp/o"
if command -v python3 >/dev/null; then
	check "stdin --format sarif: stdout is one JSON document" python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/o"
fi
d="$tmp/stdinfx"
mkdir -p "$d"
cp samples/matmul_32x32.cu "$d/k.cu"
(cd "$d" && "$kpipe" rewrite - --assume-filename k.cu --export-fixes fix.yaml <k.cu) >"$tmp/o" 2>"$tmp/e"
check "stdin --export-fixes: exit 0, stderr empty, stdout empty" test $? -eq 0 -a ! -s "$tmp/e" -a ! -s "$tmp/o"
check "stdin --export-fixes: FilePath is the assumed file, absolute" grep -q "FilePath:        \"$d/k.cu\"" "$d/fix.yaml"

# --- --format json (one file) -------------------------------------------------------
"$kpipe" rewrite --format json samples/refused_smem_carry.cu >"$tmp/o" 2>"$tmp/e"
check "json (one file): exit 0 (nothing pipelined is no failure)" test $? -eq 0
if command -v python3 >/dev/null; then
	check "json (one file): report" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = d["files"][0]
assert f["status"] == "refused" and f["refused_by_reason"] == {"kpipe-smem-carried": 1}, f
assert d["summary"]["files"] == 1 and "jobs" not in d["summary"], d["summary"]
' "$tmp/o"
fi

# --- usage -------------------------------------------------------------------------
"$kpipe" rewrite --format sarif --diff samples/matmul_32x32.cu >"$tmp/o" 2>"$tmp/e"
check "--format sarif with --diff: usage error" test $? -eq 2 -a ! -s "$tmp/o"
"$kpipe" analyze --format sarif --sarif-all samples/matmul_32x32.cu >"$tmp/o" 2>"$tmp/e"
check "analyze --sarif-all: usage error (rewrite's only)" test $? -eq 2 -a ! -s "$tmp/o"

# --- --help and the man page -----------------------------------------------------------
"$kpipe" rewrite --help >"$tmp/help"
for g in "one file" "a project" "review and CI" "editors" "check the result"; do
	check "rewrite --help: workflow '$g'" grep -q "^ $g" "$tmp/help"
done
for opt in --out-dir --exclude --shard --export-fixes "--format F" "-j N" --no-comment --sarif-all \
	--backup-suffix --assume-filename; do
	check "--help: $opt" grep -q -- "$opt" "$tmp/help"
	check "man page: $opt" grep -q -- "$(printf '%s' "$opt" | sed 's/-/\\\\-/g; s/ .*//')" docs/kpipe.1
done
if command -v man >/dev/null; then
	MANWIDTH=80 man -l docs/kpipe.1 >"$tmp/man" 2>"$tmp/e"
	check "man -l docs/kpipe.1 renders" test $? -eq 0 -a -s "$tmp/man"
	check "man: no warnings" test ! -s "$tmp/e"
	check "man: EXIT STATUS section" grep -q 'EXIT STATUS' "$tmp/man"
else
	echo "SKIP: man not installed: the man page was not rendered"
fi

# --- the VS Code extension: syntax, manifest, its server command line ------------------
# (a client of `kpipe lsp`: the protocol itself is tests/cli/lsp.sh's)
if command -v node >/dev/null; then
	check "vscode: node --check extension.js" node --check editors/vscode/extension.js
	check "vscode: package.json: a language client with its command" node -e '
const p = JSON.parse(require("fs").readFileSync("editors/vscode/package.json", "utf8"));
const c = p.contributes.commands.map((x) => x.command).sort().join(",");
if (c !== "kpipe.showDiff" || p.main !== "./extension.js" ||
    !p.dependencies["vscode-languageclient"] ||
    p.activationEvents.join() !== "onLanguage:cuda-cpp") process.exit(1);'
	# the server command line, with a stand-in for the vscode module
	mkdir -p "$tmp/node_modules/vscode"
	echo 'module.exports = {};' >"$tmp/node_modules/vscode/index.js"
	check "vscode: runs kpipe.path lsp kpipe.args" env NODE_PATH="$tmp/node_modules" node -e '
const ext = require(process.argv[1]);
const cfg = { get: (k, d) => ({ path: "/opt/kpipe", args: ["--arch", "sm_80"] })[k] ?? d };
const c = ext.serverCommand(cfg);
if (c.command !== "/opt/kpipe" || c.args.join(" ") !== "lsp --arch sm_80") {
  console.log(JSON.stringify(c)); process.exit(1); }' "$root/editors/vscode/extension.js"
else
	echo "SKIP: node not installed: the VS Code extension was not checked"
fi

kp_summary
