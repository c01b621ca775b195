-- kpipe.nvim - runs `kpipe lsp` for CUDA buffers with Neovim's built-in LSP
-- client (Neovim 0.7 or newer; nothing else needed).  kpipe's diagnostics
-- (refusals with their ids, a hint on each loop that can be pipelined) go
-- to vim.diagnostic; the code actions (vim.lsp.buf.code_action()) pipeline
-- the loop under the cursor with each variant that applies, as edits of the
-- buffer's version they were computed for: Neovim refuses one the buffer
-- has moved past, and kpipe refuses to resolve a stale one, so an edit made
-- after kpipe answered is never lost.
--
--   require("kpipe").setup({ cmd = { "kpipe", "lsp" }, args = { "--arch", "sm_80" } })
--   :KpipeActions   the code actions for the loop under the cursor
--   :KpipePreview   the diff of kpipe's choice for that loop, in a split
local M = {}

M.config = {
  cmd = { "kpipe", "lsp" }, -- the server
  args = {}, -- appended: { "--arch", "sm_80", "--", "-I", "include" }
  filetypes = { "cuda" },
}

function M.setup(opts)
  M.config = vim.tbl_extend("force", M.config, opts or {})
  vim.api.nvim_create_autocmd("FileType", {
    pattern = M.config.filetypes,
    callback = function(a)
      M.attach(a.buf)
    end,
  })
end

-- Attaches buffer `buf` (default: the current one) to the kpipe server,
-- starting it on first use; returns the client id.
function M.attach(buf)
  buf = buf or vim.api.nvim_get_current_buf()
  if not (M.client_id and vim.lsp.get_client_by_id(M.client_id)) then
    local cmd = vim.list_extend(vim.deepcopy(M.config.cmd), M.config.args)
    -- Neovim applies versioned documentChanges (and refuses those its buffer
    -- has moved past) but does not say so before 0.8: say it, so that
    -- kpipe's edits carry the version they were computed for
    local caps = vim.lsp.protocol.make_client_capabilities()
    caps.workspace.workspaceEdit.documentChanges = true
    M.client_id = vim.lsp.start_client({
      name = "kpipe",
      cmd = cmd,
      root_dir = vim.fn.getcwd(),
      capabilities = caps,
    })
  end
  vim.lsp.buf_attach_client(buf, M.client_id)
  return M.client_id
end

-- The code actions for the loop under the cursor.
function M.actions()
  vim.lsp.buf.code_action()
end

-- Shows the diff of kpipe's choice for the loop under the cursor (the
-- server's kpipe.preview command) in a scratch split; changes nothing.
function M.preview()
  local client = M.client_id and vim.lsp.get_client_by_id(M.client_id)
  if not client then
    return vim.notify("kpipe: not attached", vim.log.levels.ERROR)
  end
  local params = vim.lsp.util.make_range_params()
  params.context = { diagnostics = {} }
  local res = client.request_sync("textDocument/codeAction", params, 10000, 0)
  local action = res and res.result and res.result[1]
  if not action then
    return vim.notify("kpipe: no loop to pipeline here", vim.log.levels.INFO)
  end
  local p = client.request_sync("workspace/executeCommand", {
    command = "kpipe.preview",
    arguments = { action.data },
  }, 10000, 0)
  if not (p and p.result) then
    return vim.notify("kpipe: " .. ((p and p.err and p.err.message) or "no preview"), vim.log.levels.ERROR)
  end
  vim.cmd("new")
  local lines = vim.split(p.result.diff, "\n", { plain = true })
  vim.api.nvim_buf_set_lines(0, 0, -1, false, lines)
  vim.bo.filetype = "diff"
  vim.bo.buftype = "nofile"
  vim.bo.bufhidden = "wipe"
  vim.bo.modifiable = false
  return true
end

return M
