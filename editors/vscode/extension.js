// kpipe for VS Code: a thin client of `kpipe lsp` (vscode-languageclient).
// Everything - diagnostics on the right file (a project header's on the
// header), the code actions of each loop, their versioned edits shown in
// VS Code's refactor preview before they apply - comes from the server
// (docs/editors.md).  One command of its own: "kpipe: Show the diff of the
// loop under the cursor" (the server's kpipe.preview) in a diff document.
'use strict';

const vscode = require('vscode');

let client;

// The server's command line from the settings: kpipe.path lsp kpipe.args...
function serverCommand(cfg) {
  return { command: cfg.get('path', 'kpipe'), args: ['lsp'].concat(cfg.get('args', [])) };
}

async function showPreview() {
  const ed = vscode.window.activeTextEditor;
  if (!ed || !client) return;
  const uri = ed.document.uri.toString();
  const line = ed.selection.active.line;
  const actions = await client.sendRequest('textDocument/codeAction', {
    textDocument: { uri },
    range: { start: { line, character: 0 }, end: { line, character: 0 } },
    context: { diagnostics: [] },
  });
  if (!actions || !actions.length) {
    vscode.window.showInformationMessage('kpipe: no loop to pipeline on this line');
    return;
  }
  const p = await client.sendRequest('workspace/executeCommand', {
    command: 'kpipe.preview',
    arguments: [actions[0].data],
  });
  const doc = await vscode.workspace.openTextDocument({ content: p.diff, language: 'diff' });
  await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
}

function activate(context) {
  const { LanguageClient } = require('vscode-languageclient/node');
  const cfg = vscode.workspace.getConfiguration('kpipe');
  const cmd = serverCommand(cfg);
  client = new LanguageClient('kpipe', 'kpipe', { run: cmd, debug: cmd }, {
    documentSelector: [{ scheme: 'file', language: 'cuda-cpp' }],
  });
  context.subscriptions.push(vscode.commands.registerCommand('kpipe.showDiff', showPreview));
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate, serverCommand };
