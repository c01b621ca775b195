-- kpipe.nvim commands; configure with require("kpipe").setup({...}).
if vim.g.loaded_kpipe then
  return
end
vim.g.loaded_kpipe = true
vim.api.nvim_create_user_command("KpipePreview", function()
  require("kpipe").preview()
end, { desc = "kpipe: pipeline the buffer's K-loops, show the diff" })
vim.api.nvim_create_user_command("KpipeAccept", function()
  require("kpipe").accept()
end, { desc = "kpipe: replace the buffer with the previewed rewrite" })
vim.api.nvim_create_user_command("KpipeReject", function()
  require("kpipe").reject()
end, { desc = "kpipe: discard the previewed rewrite" })
