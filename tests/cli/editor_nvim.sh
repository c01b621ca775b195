#!/usr/bin/env bash
# editor_nvim.sh - the Neovim plugin (editors/nvim) in a real, headless
# Neovim: open a sample, :KpipePreview shows a highlighted diff (split, and
# floating), accepting replaces the buffer with exactly what
# `kpipe rewrite -o` writes, rejecting leaves it alone, and a refused
# kernel fills the quickfix list with its diagnostic id and opens no
# preview.  Prints "SKIP: ..." and exits 77 without nvim (setup.sh
# installs Debian's neovim).  Prints "N passed, N failed".
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
(cd "$tmp" && "$kpipe" rewrite matmul_guarded.cu -o expected.cu) 2>/dev/null

# The test drives the plugin through its commands and records what it sees
# in $tmp/report, one "key=value" line each.
cat >"$tmp/test.lua" <<'LUA'
local report = {}
local function say(k, v) table.insert(report, k .. "=" .. tostring(v)) end
local kp = require("kpipe")
kp.setup({ cmd = vim.env.KPIPE_BIN, float = vim.env.KPIPE_FLOAT == "1" })
vim.notify = function() end
local dir = vim.env.KPIPE_TMP
-- preview, then accept
vim.cmd("edit " .. dir .. "/matmul_guarded.cu")
local src = vim.api.nvim_get_current_buf()
vim.cmd("KpipePreview")
local p = kp.pending
say("preview", p ~= nil)
if p then
  local lines = vim.api.nvim_buf_get_lines(p.preview, 0, -1, false)
  say("preview_ft", vim.bo[p.preview].filetype)
  say("preview_header", lines[2])
  say("preview_has_plus", #vim.tbl_filter(function(l) return l:match("^%+.*kp_stage") end, lines) > 0)
  say("preview_current", vim.api.nvim_get_current_buf() == p.preview)
  say("preview_float", vim.api.nvim_win_get_config(p.win).relative ~= "")
  say("source_unchanged", table.concat(vim.api.nvim_buf_get_lines(src, 0, -1, false), "\n"):find("kp_stage") == nil)
  vim.api.nvim_feedkeys("a", "x", false)  -- the preview's accept key
end
say("pending_after_accept", kp.pending ~= nil)
vim.api.nvim_set_current_buf(src)
vim.cmd("write! " .. dir .. "/accepted.cu")
-- preview, then reject
vim.cmd("edit! " .. dir .. "/original.cu")
local orig = vim.api.nvim_get_current_buf()
say("preview2", kp.preview(orig))
vim.cmd("KpipeReject")
say("pending_after_reject", kp.pending ~= nil)
vim.api.nvim_set_current_buf(orig)
say("rejected_modified", vim.bo[orig].modified)
-- a refused kernel: quickfix, no preview
vim.cmd("edit " .. dir .. "/refused_smem_carry.cu")
say("preview3", kp.preview())
local qf = vim.fn.getqflist()
say("qf_count", #qf)
if qf[1] then
  say("qf_text", qf[1].text)
  say("qf_lnum", qf[1].lnum)
  say("qf_type", qf[1].type)
end
local f = io.open(dir .. "/report", "w")
f:write(table.concat(report, "\n") .. "\n")
f:close()
vim.cmd("qall!")
LUA

run_nvim() { # FLOAT
	rm -f "$tmp/report" "$tmp/accepted.cu"
	(cd "$tmp" && KPIPE_BIN="$kpipe" KPIPE_TMP="$tmp" KPIPE_FLOAT="$1" timeout 120 \
		nvim --headless -u NONE -i NONE -n --cmd "set rtp^=$root/editors/nvim" \
		--cmd "runtime plugin/kpipe.lua" -c "luafile $tmp/test.lua") >"$tmp/nvim.out" 2>&1
	echo $? >"$tmp/nvim.rc"
}
has() { grep -qxF -- "$1" "$tmp/report"; }

for float in 0 1; do
	run_nvim "$float"
	w="split"
	[ "$float" = 1 ] && w="float"
	check "$w: nvim exited cleanly ($(head -c 300 "$tmp/nvim.out"))" test "$(cat "$tmp/nvim.rc")" -eq 0
	check "$w: the test ran" test -s "$tmp/report"
	[ -s "$tmp/report" ] || continue
	check "$w: a preview opened" has "preview=true"
	check "$w: the preview is a diff (highlighted as such)" has "preview_ft=diff"
	check "$w: diff header" has "preview_header=+++ b/matmul_guarded.cu"
	check "$w: added lines shown" has "preview_has_plus=true"
	check "$w: the preview has the focus" has "preview_current=true"
	check "$w: window kind" has "preview_float=$([ "$float" = 1 ] && echo true || echo false)"
	check "$w: the buffer waits for accept" has "source_unchanged=true"
	check "$w: accepted" has "pending_after_accept=false"
	check "$w: accepted buffer == kpipe rewrite -o" cmp -s "$tmp/accepted.cu" "$tmp/expected.cu"
	check "$w: second preview" has "preview2=true"
	check "$w: rejected" has "pending_after_reject=false"
	check "$w: rejected buffer unmodified" has "rejected_modified=false"
	check "$w: refused: no preview" has "preview3=false"
	check "$w: refused: one quickfix entry" has "qf_count=1"
	check "$w: refused: quickfix text ends with the id" grep -qE '^qf_text=.*\[kpipe-smem-carried\]$' "$tmp/report"
	check "$w: refused: quickfix line" has "qf_lnum=45"
	check "$w: refused: a warning" has "qf_type=W"
done
check "the input file was not modified" cmp -s "$tmp/original.cu" "$root/samples/matmul_guarded.cu"

kp_summary
