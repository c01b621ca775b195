#!/usr/bin/env bash
# editor_nvim.sh - the Neovim plugin (editors/nvim) in a real, headless
# Neovim with its built-in LSP client and `kpipe lsp`: diagnostics (a hint
# on the loop, a refusal with its id), then a code action against a buffer
# the user edits after kpipe's answer: the edit resolved before the user's
# change is refused by Neovim (its version is older), the stale action is
# refused by kpipe (ContentModified), and the action taken afterwards
# through vim.lsp.buf.code_action() leaves a buffer equal to `kpipe
# rewrite` of the user's text: the user's edits are kept.  Prints "SKIP:
# ..." and exits 77 without nvim (setup.sh installs Debian's neovim).
# Prints "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
if ! command -v nvim >/dev/null; then
	echo "SKIP: nvim not installed (Debian package neovim; scripts/setup.sh installs it)"
	exit 77
fi
kp_tmpdir nvim

cp "$root/samples/matmul_guarded.cu" "$root/samples/matmul_guarded.launch.json" "$tmp/"
cp "$root/samples/refused_smem_carry.cu" "$tmp/"
cp "$tmp/matmul_guarded.cu" "$tmp/original.cu"

# The test records what it sees in $tmp/report, one "key=value" line each.
cat >"$tmp/test.lua" <<'LUA'
local report = {}
local function say(k, v) table.insert(report, k .. "=" .. tostring(v)) end
local function finish()
  local f = io.open(vim.env.KPIPE_TMP .. "/report", "w")
  f:write(table.concat(report, "\n") .. "\n")
  f:close()
  vim.cmd("qall!")
end
local ok, err = pcall(function()
local kp = require("kpipe")
kp.setup({ cmd = { vim.env.KPIPE_BIN, "lsp" } })
vim.notify = function() end
local dir = vim.env.KPIPE_TMP
local function diags(buf)
  vim.wait(20000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
  return vim.diagnostic.get(buf)
end
vim.cmd("edit " .. dir .. "/refused_smem_carry.cu")
local rbuf = vim.api.nvim_get_current_buf()
say("filetype", vim.bo[rbuf].filetype)
local rd = diags(rbuf)[1] or {}
say("refused_code", rd.code)
say("refused_lnum", rd.lnum)
say("refused_warning", rd.severity == vim.diagnostic.severity.WARN)
vim.cmd("edit " .. dir .. "/matmul_guarded.cu")
local buf = vim.api.nvim_get_current_buf()
local d = diags(buf)[1] or {}
say("hint", d.severity == vim.diagnostic.severity.HINT)
say("hint_lnum", d.lnum)
say("hint_text", d.message)
local client = vim.lsp.get_client_by_id(kp.client_id)
-- the user's first edit, then kpipe's answer for that version
vim.api.nvim_buf_set_lines(buf, 0, 0, false, { "// the user's first edit" })
vim.wait(500)
vim.api.nvim_win_set_cursor(0, { d.lnum + 2, 0 })
local params = vim.lsp.util.make_range_params()
params.context = { diagnostics = {} }
local res = client.request_sync("textDocument/codeAction", params, 20000, buf)
local stale = res and res.result and res.result[1]
say("action", stale and stale.title)
local resolved = client.request_sync("codeAction/resolve", stale, 20000, buf)
local old_edit = resolved and resolved.result and resolved.result.edit
say("resolved", old_edit ~= nil)
-- the user edits again, after kpipe's answer
vim.api.nvim_buf_set_lines(buf, 0, 0, false, { "// the user's second edit" })
vim.wait(500)
local before = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
vim.lsp.util.apply_workspace_edit(old_edit, client.offset_encoding)
say("old_edit_refused", table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n") == before)
local again = client.request_sync("codeAction/resolve", stale, 20000, buf)
say("stale_resolve_error", again and again.err and again.err.code)
-- the action as a user takes it, answered for the current version
vim.ui.select = function(items, _, on_choice) on_choice(items[1], 1) end
vim.api.nvim_win_set_cursor(0, { d.lnum + 3, 0 })
vim.lsp.buf.code_action()
vim.wait(20000, function()
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n"):find("kp_stage") ~= nil
end, 50)
vim.cmd("write! " .. dir .. "/accepted.cu")
end)
if not ok then say("error", err) end
finish()
LUA

(cd "$tmp" && KPIPE_BIN="$kpipe" KPIPE_TMP="$tmp" timeout 120 \
	nvim --headless -u NONE -i NONE -n --cmd "set rtp^=$root/editors/nvim" \
	--cmd "runtime plugin/kpipe.lua" --cmd "filetype on" -c "luafile $tmp/test.lua") >"$tmp/nvim.out" 2>&1
rc=$?
has() { grep -qxF -- "$1" "$tmp/report"; }
check "nvim exited cleanly ($(head -c 300 "$tmp/nvim.out"))" test "$rc" -eq 0
check "the test ran" test -s "$tmp/report"
check "no Lua error ($(grep '^error=' "$tmp/report" 2>/dev/null))" sh -c "! grep -q '^error=' '$tmp/report'"
check "a .cu buffer is cuda" has "filetype=cuda"
check "refused: the id as the code" has "refused_code=kpipe-smem-carried"
check "refused: its line" has "refused_lnum=46"
check "refused: a warning" has "refused_warning=true"
check "a hint on the loop" has "hint=true"
check "the hint's line" has "hint_lnum=27"
check "the hint names the variant" grep -q '^hint_text=this loop can be pipelined: register staging, 2 stages' "$tmp/report"
check "a code action" grep -q "^action=Pipeline this loop: register staging, 2 stages (kpipe's choice)$" "$tmp/report"
check "resolved into an edit" has "resolved=true"
check "Neovim refuses the edit made before the user's second edit" has "old_edit_refused=true"
check "kpipe refuses to resolve the stale action (ContentModified)" has "stale_resolve_error=-32801"
{ printf '%s\n' "// the user's second edit" "// the user's first edit"; cat "$tmp/original.cu"; } >"$tmp/edited.cu"
cp "$tmp/matmul_guarded.launch.json" "$tmp/edited.launch.json"
(cd "$tmp" && "$kpipe" rewrite edited.cu -o expected.cu) 2>/dev/null
check "the action taken afterwards: kpipe rewrite of the user's text" cmp -s "$tmp/accepted.cu" "$tmp/expected.cu"
check "... which keeps both user edits" grep -q "the user's first edit" "$tmp/accepted.cu"
check "the input file was not modified" cmp -s "$tmp/original.cu" "$root/samples/matmul_guarded.cu"

kp_summary
