// kpipe for VS Code: pipes the active editor's text through
// `kpipe rewrite - --assume-filename <path>`, opens VS Code's diff editor
// between the buffer and kpipe's output, and replaces the buffer with the
// output on request ("kpipe: Apply the previewed rewrite").  kpipe's
// diagnostics (refusals with their ids, parse errors) go to the Problems
// panel.  Plain JavaScript, no build step, no dependencies.
'use strict';

const vscode = require('vscode');
const cp = require('child_process');

const SCHEME = 'kpipe';
const outputs = new Map(); // preview URI -> { text, source URI, version }
const changed = new vscode.EventEmitter();
let diagnostics;

// Runs kpipe with the buffer on stdin; resolves { code, stdout, stderr }.
function runKpipe(text, path) {
  const cfg = vscode.workspace.getConfiguration('kpipe');
  const args = ['rewrite', '-', '--assume-filename', path].concat(cfg.get('args', []));
  const cwd = vscode.workspace.workspaceFolders ? vscode.workspace.workspaceFolders[0].uri.fsPath : undefined;
  return new Promise((resolve) => {
    const child = cp.execFile(cfg.get('path', 'kpipe'), args, { cwd, maxBuffer: 64 << 20 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr: stderr || (err && code === -1 ? String(err.message) : '') });
      });
    child.stdin.end(text);
  });
}

// `file:line:col: level: message [id]` lines into Problems entries.
function parseDiagnostics(stderr) {
  const out = [];
  for (const line of stderr.split('\n')) {
    const m = /^(.*?):(\d+):(\d+): (error|warning|remark|note): (.*)$/.exec(line);
    if (!m) continue;
    const pos = new vscode.Position(Number(m[2]) - 1, Math.max(0, Number(m[3]) - 1));
    const sev = { error: vscode.DiagnosticSeverity.Error, warning: vscode.DiagnosticSeverity.Warning,
      remark: vscode.DiagnosticSeverity.Information, note: vscode.DiagnosticSeverity.Hint }[m[4]];
    const d = new vscode.Diagnostic(new vscode.Range(pos, pos), m[5], sev);
    const id = /\[(kpipe-[a-z0-9-]+)\]$/.exec(m[5]);
    d.source = 'kpipe';
    if (id) d.code = id[1];
    out.push(d);
  }
  return out;
}

async function preview() {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    vscode.window.showWarningMessage('kpipe: no active editor');
    return;
  }
  const doc = editor.document;
  const path = doc.isUntitled ? 'buffer.cu' : doc.uri.fsPath;
  const r = await runKpipe(doc.getText(), path);
  diagnostics.set(doc.uri, parseDiagnostics(r.stderr));
  // nothing pipelined: exit 0 with the buffer unchanged on stdout
  if (r.code === 0 && r.stdout === doc.getText()) {
    vscode.window.showInformationMessage('kpipe: nothing to pipeline (see Problems for the reasons)');
    return;
  }
  if (r.code !== 0) {
    vscode.window.showErrorMessage(`kpipe failed (exit ${r.code}): ${r.stderr.split('\n')[0]}`);
    return;
  }
  const uri = vscode.Uri.from({ scheme: SCHEME, path: doc.uri.path + '.kpipe.cu', query: doc.uri.toString() });
  outputs.set(uri.toString(), { text: r.stdout, source: doc.uri, version: doc.version });
  changed.fire(uri);
  await vscode.commands.executeCommand('vscode.diff', doc.uri, uri,
    `${doc.fileName.split(/[\\/]/).pop()} ↔ kpipe (run "kpipe: Apply" to accept)`);
}

async function apply() {
  // the preview of the active editor's document, or the only one there is
  const active = vscode.window.activeTextEditor;
  let entry;
  for (const [key, e] of outputs) {
    if (!entry || (active && (active.document.uri.toString() === e.source.toString() ||
        active.document.uri.toString() === key))) entry = [key, e];
  }
  if (!entry) {
    vscode.window.showWarningMessage('kpipe: run "kpipe: Preview" first');
    return;
  }
  const [key, e] = entry;
  const doc = await vscode.workspace.openTextDocument(e.source);
  if (doc.version !== e.version) {
    vscode.window.showWarningMessage('kpipe: the buffer changed since the preview; preview again');
    return;
  }
  const all = new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length));
  const edit = new vscode.WorkspaceEdit();
  edit.replace(doc.uri, all, e.text);
  if (await vscode.workspace.applyEdit(edit)) {
    outputs.delete(key);
    diagnostics.delete(doc.uri);
    vscode.window.showInformationMessage('kpipe: rewrite applied (undo with Ctrl+Z)');
  }
}

function activate(context) {
  diagnostics = vscode.languages.createDiagnosticCollection('kpipe');
  context.subscriptions.push(
    diagnostics,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, {
      onDidChange: changed.event,
      provideTextDocumentContent: (uri) => (outputs.get(uri.toString()) || { text: '' }).text,
    }),
    vscode.commands.registerCommand('kpipe.preview', preview),
    vscode.commands.registerCommand('kpipe.apply', apply));
}

function deactivate() {}

module.exports = { activate, deactivate, parseDiagnostics };
