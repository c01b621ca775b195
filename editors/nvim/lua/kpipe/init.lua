-- kpipe.nvim - pipe the current buffer through `kpipe rewrite`, preview the
-- change as a diff (split or floating window), accept or reject it, and put
-- kpipe's diagnostics (refusals with their ids, parse errors) in the
-- quickfix list.  Works with Neovim 0.7 and newer; needs nothing but kpipe.
--
--   require("kpipe").setup({ cmd = "kpipe", args = { "--arch", "sm_80" }, float = false })
--   :KpipePreview   run kpipe on the buffer, show the diff
--   :KpipeAccept    replace the buffer with kpipe's output (also `a` in the preview)
--   :KpipeReject    close the preview, keep the buffer (also `r` or `q`)
local M = {}

M.config = {
  cmd = "kpipe", -- the kpipe executable
  args = {}, -- extra arguments, e.g. { "--variant", "cp-async" }
  float = false, -- floating window instead of a split
  timeout_ms = 60000,
}

-- The pending change: { src = bufnr, lines = {...}, preview = bufnr, win = winid }
M.pending = nil

function M.setup(opts)
  M.config = vim.tbl_extend("force", M.config, opts or {})
end

-- Runs cmd (a list) with `input` on stdin; returns code, stdout, stderr.
local function run(cmd, input)
  local out, err = {}, {}
  local function collect(dst)
    return function(_, data)
      if data then
        for _, l in ipairs(data) do
          table.insert(dst, l)
        end
      end
    end
  end
  local ok, job = pcall(vim.fn.jobstart, cmd, {
    stdout_buffered = true,
    stderr_buffered = true,
    on_stdout = collect(out),
    on_stderr = collect(err),
  })
  if not ok or job <= 0 then
    return -1, "", "cannot run " .. cmd[1]
  end
  vim.fn.chansend(job, input)
  vim.fn.chanclose(job, "stdin")
  local code = vim.fn.jobwait({ job }, M.config.timeout_ms)[1]
  if code == -1 then
    vim.fn.jobstop(job)
    return -1, "", "kpipe timed out"
  end
  -- jobstart splits on newlines: the last element is what followed the last one
  return code, table.concat(out, "\n"), table.concat(err, "\n")
end

local function buffer_text(buf)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local text = table.concat(lines, "\n")
  if vim.bo[buf].eol or vim.bo[buf].fixeol then
    text = text .. "\n"
  end
  return text
end

local function split_lines(text)
  local lines = vim.split(text, "\n", { plain = true })
  if lines[#lines] == "" then
    table.remove(lines)
  end
  return lines
end

-- `file:line:col: level: message [id]` lines into quickfix items.
function M.parse_diagnostics(stderr)
  local items = {}
  for _, l in ipairs(vim.split(stderr, "\n", { plain = true })) do
    local f, ln, col, level, msg = l:match("^(.-):(%d+):(%d+): (%a+): (.*)$")
    if f then
      local t = ({ error = "E", warning = "W", remark = "I", note = "N" })[level] or "W"
      table.insert(items, { filename = f, lnum = tonumber(ln), col = tonumber(col), type = t, text = msg })
    elseif l:match("^.-: error: ") then
      table.insert(items, { text = l, type = "E" })
    end
  end
  return items
end

local function close_preview()
  local p = M.pending
  M.pending = nil
  if p and p.win and vim.api.nvim_win_is_valid(p.win) then
    vim.api.nvim_win_close(p.win, true)
  end
  if p and p.preview and vim.api.nvim_buf_is_valid(p.preview) then
    vim.api.nvim_buf_delete(p.preview, { force = true })
  end
end

local function unified_diff(path, old, new)
  local hunks = vim.diff(old, new, { result_type = "unified", ctxlen = 3 })
  local rel = vim.fn.fnamemodify(path, ":.")
  return "--- a/" .. rel .. "\n+++ b/" .. rel .. "\n" .. hunks
end

-- Runs kpipe on buffer `buf` (default: the current one) and shows the diff.
-- Returns true when a preview was opened.
function M.preview(buf)
  buf = buf or vim.api.nvim_get_current_buf()
  close_preview()
  local path = vim.api.nvim_buf_get_name(buf)
  if path == "" then
    path = "buffer.cu"
  end
  local cmd = { M.config.cmd, "rewrite", "-", "--assume-filename", path }
  vim.list_extend(cmd, M.config.args)
  local old = buffer_text(buf)
  local code, out, err = run(cmd, old)
  local items = M.parse_diagnostics(err)
  vim.fn.setqflist({}, " ", { title = "kpipe", items = items })
  -- nothing pipelined is exit 0 with the buffer unchanged on stdout
  local nothing = code == 0 and out == old
  if code ~= 0 or nothing then
    local why = nothing and "kpipe: nothing to pipeline"
      or (code == -1 and err or ("kpipe failed (exit " .. code .. ")"))
    if #items > 0 then
      why = why .. "; see the quickfix list (:copen)"
    end
    vim.notify(why, nothing and vim.log.levels.INFO or vim.log.levels.ERROR)
    return false
  end
  local new = out
  local pbuf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(pbuf, 0, -1, false, split_lines(unified_diff(path, old, new)))
  vim.bo[pbuf].filetype = "diff"
  vim.bo[pbuf].modifiable = false
  vim.bo[pbuf].bufhidden = "wipe"
  pcall(vim.api.nvim_buf_set_name, pbuf, "kpipe://" .. path .. ".diff")
  local win
  if M.config.float then
    local w = math.floor(vim.o.columns * 0.8)
    local h = math.floor(vim.o.lines * 0.8)
    win = vim.api.nvim_open_win(pbuf, true, {
      relative = "editor",
      width = w,
      height = h,
      row = math.floor((vim.o.lines - h) / 2),
      col = math.floor((vim.o.columns - w) / 2),
      border = "rounded",
      style = "minimal",
    })
  else
    vim.cmd("botright split")
    win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(win, pbuf)
  end
  M.pending = { src = buf, lines = split_lines(new), preview = pbuf, win = win }
  local o = { buffer = pbuf, nowait = true, silent = true }
  vim.keymap.set("n", "a", M.accept, o)
  vim.keymap.set("n", "r", M.reject, o)
  vim.keymap.set("n", "q", M.reject, o)
  vim.notify("kpipe: a = accept, r = reject", vim.log.levels.INFO)
  return true
end

-- Replaces the source buffer with kpipe's output.
function M.accept()
  local p = M.pending
  if not p then
    vim.notify("kpipe: nothing to accept", vim.log.levels.WARN)
    return false
  end
  close_preview()
  if vim.api.nvim_buf_is_valid(p.src) then
    vim.api.nvim_buf_set_lines(p.src, 0, -1, false, p.lines)
  end
  return true
end

-- Closes the preview; the buffer stays as it is.
function M.reject()
  close_preview()
  return true
end

return M
