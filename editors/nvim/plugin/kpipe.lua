-- kpipe.nvim commands; configure with require("kpipe").setup({...}).
if vim.g.loaded_kpipe then
  return
end
vim.g.loaded_kpipe = true
vim.api.nvim_create_user_command("KpipeActions", function()
  require("kpipe").actions()
end, { desc = "kpipe: code actions for the loop under the cursor" })
vim.api.nvim_create_user_command("KpipePreview", function()
  require("kpipe").preview()
end, { desc = "kpipe: the diff of kpipe's choice for the loop under the cursor" })
