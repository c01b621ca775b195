#!/usr/bin/env python3
"""lsp_test.py - `kpipe lsp` driven over its protocol (run by tests/cli/lsp.sh):
initialize, diagnostics on open (a hint per pipelinable loop, refusals with
their ids and links, bank conflicts and uncoalesced accesses at the access
and their suppression, a project header's on the header's URI), code actions
resolved into versioned edits that give exactly what `kpipe rewrite` gives,
a stale action refused after didChange and a fresh one computed against the
new text, kpipe.pipelineLoop through workspace/applyEdit, kpipe.preview,
didClose, shutdown and exit.  Prints "ok: ..." / "FAIL: ..." lines and
"N passed, N failed"; exit 1 on any failure.

usage: lsp_test.py KPIPE TMPDIR ROOT"""

import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lsp_client import Client  # noqa: E402

kpipe, tmp, root = sys.argv[1:4]
passed = failed = 0


def check(what, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL: %s %s" % (what, str(detail)[:600]))


def offset(text, pos):
    """Byte offset of an LSP position (UTF-16 columns) in text (str)."""
    lines = text.split("\n")
    off = sum(len(l) + 1 for l in lines[: pos["line"]])
    line = lines[pos["line"]] if pos["line"] < len(lines) else ""
    units = 0
    i = 0
    while i < len(line) and units < pos["character"]:
        units += 2 if ord(line[i]) > 0xFFFF else 1
        i += 1
    return off + i


def apply_edits(text, edits):
    spans = sorted(((offset(text, e["range"]["start"]), offset(text, e["range"]["end"]), e["newText"])
                    for e in edits), reverse=True)
    for a, b, t in spans:
        text = text[:a] + t + text[b:]
    return text


def rewrite(path, text):
    """What `kpipe rewrite - --assume-filename path` makes of text."""
    r = subprocess.run([kpipe, "rewrite", "-", "--assume-filename", path], input=text.encode(),
                       capture_output=True)
    return r.stdout.decode()


def whole(line0=0, line1=10000):
    return {"start": {"line": line0, "character": 0}, "end": {"line": line1, "character": 0}}


for f in ("matmul_32x32", "refused_smem_carry", "matmul_column_read"):
    for ext in (".cu", ".launch.json"):
        if os.path.exists(os.path.join(root, "samples", f + ext)):
            shutil.copy(os.path.join(root, "samples", f + ext), tmp)
shutil.copytree(os.path.join(root, "tests", "fixtures", "headers"), os.path.join(tmp, "h"))
mm = os.path.join(tmp, "matmul_32x32.cu")
mm_uri = "file://" + mm
text = open(mm).read()

hdr = os.path.join(tmp, "h")
c = Client([kpipe, "lsp", "--", "-isystem", hdr + "/proj/vendor", "-I", hdr + "/outside"],
           cwd=tmp)
caps = {"workspace": {"workspaceEdit": {"documentChanges": True}, "applyEdit": True},
        "textDocument": {"codeAction": {"resolveSupport": {"properties": ["edit"]}}}}
r = c.request("codeAction/resolve", {})
check("before initialize: ServerNotInitialized", r.get("error", {}).get("code") == -32002, r)
r = c.request("initialize", {"processId": None, "rootUri": None, "capabilities": caps})
cap = r.get("result", {}).get("capabilities", {})
check("initialize: sync", cap.get("textDocumentSync", {}).get("change") in (1, 2), r)
check("initialize: code actions with resolve", cap.get("codeActionProvider", {}).get("resolveProvider") is True, r)
check("initialize: commands", set(cap.get("executeCommandProvider", {}).get("commands", [])) >= {"kpipe.pipelineLoop", "kpipe.preview"}, r)
c.notify("initialized", {})
import atexit
atexit.register(lambda: print("server stderr:", c.stderr.decode()[-1500:]) if c.p.poll() not in (None, 0) else None)

# diagnostics on open: the hint, from the buffer (not the file on disk)
open(mm, "w").write("garbage that does not compile\n")
t0 = time.time()
c.notify("textDocument/didOpen", {"textDocument": {"uri": mm_uri, "languageId": "cuda", "version": 1, "text": text}})
d = c.wait_for("textDocument/publishDiagnostics", lambda m: m["params"]["uri"] == mm_uri)["params"]
print("first analysis (with the precompiled header): %.2f s" % (time.time() - t0))
hints = [x for x in d["diagnostics"] if x["severity"] == 4]
check("open: one hint", len(hints) == 1, d)
check("open: the buffer was analysed, not the file", not [x for x in d["diagnostics"] if x["severity"] == 1], d)
if hints:
    h = hints[0]
    check("hint: the predicted variant", h["message"].startswith("this loop can be pipelined: register staging, 2 stages"), h)
    check("hint: code", h.get("code") == "kpipe-pipelined", h)
    check("hint: on the loop's line", h["range"]["start"] == {"line": 26, "character": 4}, h)
check("open: versioned", d.get("version") == 1, d)

# a refusal
rs = os.path.join(tmp, "refused_smem_carry.cu")
c.notify("textDocument/didOpen", {"textDocument": {"uri": "file://" + rs, "languageId": "cuda", "version": 3, "text": open(rs).read()}})
d = c.wait_for("textDocument/publishDiagnostics", lambda m: m["params"]["uri"] == "file://" + rs)["params"]
w = [x for x in d["diagnostics"] if x.get("code") == "kpipe-smem-carried"]
check("refusal: its id as the code", len(w) == 1, d)
if w:
    check("refusal: a warning", w[0]["severity"] == 2, w)
    check("refusal: line", w[0]["range"]["start"]["line"] == 46, w)
    check("refusal: link to its entry", w[0]["codeDescription"]["href"].endswith("diagnostics.md#kpipe-smem-carried"), w)
r = c.request("textDocument/codeAction", {"textDocument": {"uri": "file://" + rs}, "range": whole(), "context": {"diagnostics": []}})
check("refusal: no code action", r.get("result") == [], r)
# while typing: a change is analysed once the input has been quiet for a while
c.notify("textDocument/didChange", {"textDocument": {"uri": "file://" + rs, "version": 4},
                                    "contentChanges": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "\n"}]})
d = c.wait_for("textDocument/publishDiagnostics", lambda m: m["params"]["uri"] == "file://" + rs)["params"]
w = [x for x in d["diagnostics"] if x.get("code") == "kpipe-smem-carried"]
check("didChange: diagnostics of the new version without a save", d.get("version") == 4 and w and w[0]["range"]["start"]["line"] == 47, d)

# bank conflicts and uncoalesced accesses: warnings at the access; a
# "// kpipe: ignore kpipe-bank-conflict" above it silences that one only
cr = os.path.join(tmp, "matmul_column_read.cu")
cr_uri = "file://" + cr
cr_text = open(cr).read()
c.notify("textDocument/didOpen", {"textDocument": {"uri": cr_uri, "languageId": "cuda", "version": 1, "text": cr_text}})
d = c.wait_for("textDocument/publishDiagnostics", lambda m: m["params"]["uri"] == cr_uri)["params"]
bk = [x for x in d["diagnostics"] if x.get("code") == "kpipe-bank-conflict"]
un = [x for x in d["diagnostics"] if x.get("code") == "kpipe-uncoalesced"]
check("memory: one bank conflict", len(bk) == 1, d)
check("memory: one uncoalesced access", len(un) == 1, d)
if bk:
    check("bank conflict: a warning", bk[0]["severity"] == 2, bk)
    check("bank conflict: at the access As[tx][kk]", bk[0]["range"]["start"] == {"line": 44, "character": 19}, bk)
    check("bank conflict: the degree and the lanes", "32-way bank conflict" in bk[0]["message"] and "lanes 0,1,2," in bk[0]["message"], bk)
    check("bank conflict: link to its entry", bk[0]["codeDescription"]["href"].endswith("diagnostics.md#kpipe-bank-conflict"), bk)
if un:
    check("uncoalesced: a warning at the store to C", un[0]["severity"] == 2 and un[0]["range"]["start"] == {"line": 49, "character": 8}, un)
    check("uncoalesced: the sectors", "32 sectors of 32 bytes per warp request, 4 would do" in un[0]["message"], un)
c.notify("textDocument/didChange", {"textDocument": {"uri": cr_uri, "version": 2},
                                    "contentChanges": [{"range": {"start": {"line": 44, "character": 0}, "end": {"line": 44, "character": 0}},
                                                        "text": "            // kpipe: ignore kpipe-bank-conflict\n"}]})
d = c.wait_for("textDocument/publishDiagnostics", lambda m: m["params"]["uri"] == cr_uri and m["params"].get("version") == 2)["params"]
codes = [x.get("code") for x in d["diagnostics"]]
check("memory: suppressed by // kpipe: ignore, the other kept", "kpipe-bank-conflict" not in codes and "kpipe-uncoalesced" in codes, d)
c.notify("textDocument/didClose", {"textDocument": {"uri": cr_uri}})
c.wait_for("textDocument/publishDiagnostics", lambda m: m["params"]["uri"] == cr_uri and "version" not in m["params"])

# code actions: kpipe's choice first, resolved against version 1
t0 = time.time()
r = c.request("textDocument/codeAction", {"textDocument": {"uri": mm_uri}, "range": whole(20, 30), "context": {"diagnostics": []}})
acts = r.get("result") or []
check("codeAction: several variants", len(acts) >= 2, r)
check("codeAction: kpipe's choice first and preferred", acts and acts[0].get("isPreferred") and "register staging, 2 stages" in acts[0]["title"], acts[:1])
check("codeAction: a cp.async action", any("cp.async" in a["title"] for a in acts), [a["title"] for a in acts])
check("codeAction: a 3-stage action", any("3 stages" in a["title"] for a in acts), [a["title"] for a in acts])
r = c.request("textDocument/codeAction", {"textDocument": {"uri": mm_uri}, "range": whole(0, 5), "context": {"diagnostics": []}})
check("codeAction: none outside the loop", r.get("result") == [], r)
stale = acts[0] if acts else {}
r = c.request("codeAction/resolve", stale)
print("resolve: %.2f s" % (time.time() - t0))
edit = r.get("result", {}).get("edit", {})
dc = edit.get("documentChanges", [{}])[0]
check("resolve: documentChanges for the URI", dc.get("textDocument", {}).get("uri") == mm_uri, r)
check("resolve: the version it was computed against", dc.get("textDocument", {}).get("version") == 1, r)
check("resolve: applying it gives kpipe rewrite's text", apply_edits(text, dc.get("edits", [])) == rewrite(mm, text))
cpa = [a for a in acts if "cp.async, 3 stages" in a["title"]]
if cpa:
    r = c.request("codeAction/resolve", cpa[0])
    e3 = r.get("result", {}).get("edit", {}).get("documentChanges", [{}])[0].get("edits", [])
    out3 = subprocess.run([kpipe, "rewrite", "-", "--assume-filename", mm, "--variant", "cp-async", "--stages", "3"],
                          input=text.encode(), capture_output=True).stdout.decode()
    check("resolve: cp.async 3 stages == rewrite --variant cp-async --stages 3", apply_edits(text, e3) == out3)

# two kernels: an action rewrites its own loop only (as --kernel would)
mk = os.path.join(root, "samples", "multi_kernel_macros.cu")
mk_uri = "file://" + os.path.join(tmp, "multi_kernel_macros.cu")
mk_text = open(mk).read()
c.notify("textDocument/didOpen", {"textDocument": {"uri": mk_uri, "languageId": "cuda", "version": 7, "text": mk_text}})
d = c.wait_for("textDocument/publishDiagnostics", lambda m: m["params"]["uri"] == mk_uri)["params"]
check("two kernels: two hints", [x["range"]["start"]["line"] for x in d["diagnostics"] if x["severity"] == 4] == [25, 53], d)
r = c.request("textDocument/codeAction", {"textDocument": {"uri": mk_uri}, "range": whole(53, 53), "context": {"diagnostics": []}})
a2 = (r.get("result") or [{}])[0]
r = c.request("codeAction/resolve", a2)
e2 = r.get("result", {}).get("edit", {}).get("documentChanges", [{}])[0].get("edits", [])
only2 = subprocess.run([kpipe, "rewrite", "-", "--assume-filename", mk_uri[7:], "--kernel", "mk_rowscale"],
                       input=mk_text.encode(), capture_output=True).stdout.decode()
check("two kernels: the second loop's action == rewrite --kernel mk_rowscale",
      e2 and apply_edits(mk_text, e2) == only2)

# the user edits the buffer: the old action is stale
c.notify("textDocument/didChange", {"textDocument": {"uri": mm_uri, "version": 2},
                                    "contentChanges": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "// the user's edit\n"}]})
text2 = "// the user's edit\n" + text
r = c.request("codeAction/resolve", stale)
check("stale resolve: ContentModified", r.get("error", {}).get("code") == -32801, r)
r = c.request("workspace/executeCommand", {"command": "kpipe.pipelineLoop", "arguments": [stale.get("data")]})
check("stale command whose loop moved: ContentModified", r.get("error", {}).get("code") == -32801, r)
r = c.request("textDocument/codeAction", {"textDocument": {"uri": mm_uri}, "range": whole(27, 27), "context": {"diagnostics": []}})
fresh = (r.get("result") or [{}])[0]
check("fresh action: version 2", fresh.get("data", {}).get("version") == 2, fresh)
r = c.request("codeAction/resolve", fresh)
dc = r.get("result", {}).get("edit", {}).get("documentChanges", [{}])[0]
check("fresh resolve: version 2", dc.get("textDocument", {}).get("version") == 2, r)
new2 = apply_edits(text2, dc.get("edits", []))
check("fresh resolve: keeps the user's edit", new2.startswith("// the user's edit\n"), new2[:100])
check("fresh resolve: == kpipe rewrite of the new text", new2 == rewrite(mm, text2))

# the command: the edit comes as workspace/applyEdit
r = c.request("workspace/executeCommand", {"command": "kpipe.pipelineLoop", "arguments": [fresh.get("data")]})
check("pipelineLoop: answered", "error" not in r, r)
ae = c.wait_for("workspace/applyEdit")
c.send({"jsonrpc": "2.0", "id": ae["id"], "result": {"applied": True}})
dc = ae["params"]["edit"]["documentChanges"][0]
check("applyEdit: version 2", dc["textDocument"]["version"] == 2, ae)
check("applyEdit: the same text", apply_edits(text2, dc["edits"]) == new2)
r = c.request("workspace/executeCommand", {"command": "kpipe.preview", "arguments": [fresh.get("data")]})
diff = r.get("result", {}).get("diff", "")
check("preview: a unified diff, labelled relative to the server's directory", "+++ b/matmul_32x32.cu\n" in diff and "\n+" in diff and "kp_stage" in diff, r)
r = c.request("workspace/executeCommand", {"command": "kpipe.nothing", "arguments": []})
check("unknown command: InvalidParams", r.get("error", {}).get("code") == -32602, r)

# a project header's diagnostics go to the header's URI
runner = os.path.join(hdr, "proj", "src", "runner.cu")
tiled_uri = "file://" + os.path.join(hdr, "proj", "src", "kernels", "tiled.cuh")
c.notify("textDocument/didOpen", {"textDocument": {"uri": "file://" + runner, "languageId": "cuda", "version": 1, "text": open(runner).read()}})
d = c.wait_for("textDocument/publishDiagnostics", lambda m: m["params"]["uri"] == "file://" + runner)["params"]
check("headers: nothing of theirs on the .cu", not [x for x in d["diagnostics"] if x.get("code") == "kpipe-pipelined"], d)
h = c.wait_for("textDocument/publishDiagnostics", lambda m: m["params"]["uri"] == tiled_uri)["params"]
check("headers: the header's hint on its URI, at its line",
      [x["range"]["start"]["line"] for x in h["diagnostics"] if x.get("code") == "kpipe-pipelined"] == [14], h)
c.notify("textDocument/didClose", {"textDocument": {"uri": "file://" + runner}})
h = c.wait_for("textDocument/publishDiagnostics", lambda m: m["params"]["uri"] == tiled_uri)["params"]
check("didClose: the header's diagnostics cleared", h["diagnostics"] == [], h)

# save re-analyses; close clears
c.notify("textDocument/didSave", {"textDocument": {"uri": mm_uri}})
d = c.wait_for("textDocument/publishDiagnostics", lambda m: m["params"]["uri"] == mm_uri)["params"]
check("didSave: diagnostics of version 2", d.get("version") == 2 and d["diagnostics"] and d["diagnostics"][0]["range"]["start"]["line"] == 27, d)
c.notify("textDocument/didClose", {"textDocument": {"uri": mm_uri}})
d = c.wait_for("textDocument/publishDiagnostics", lambda m: m["params"]["uri"] == mm_uri and "version" not in m["params"])["params"]
check("didClose: cleared", d["diagnostics"] == [], d)

# a broken message gets an error, not a crash
c.p.stdin.write(b"Content-Length: 5\r\n\r\n{nope")
c.p.stdin.flush()
m = c._next(30)
while "method" in m:  # diagnostics still on their way
    m = c._next(30)
check("not JSON: a parse error", m.get("error", {}).get("code") == -32700, m)
r = c.request("shutdown")
check("shutdown: null", "result" in r and r["result"] is None, r)
r = c.request("textDocument/codeAction", {})
check("after shutdown: InvalidRequest", r.get("error", {}).get("code") == -32600, r)
c.notify("exit")
rc = c.close()
check("exit after shutdown: status 0", rc == 0, (rc, c.stderr[-500:]))

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
