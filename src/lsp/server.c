/*
 * server.c - the language server of `kpipe lsp` (server.h): the buffers,
 * the message loop and one handler per method.
 */
#define _GNU_SOURCE
#include "server.h"

#include "jsonrpc.h"
#include "lsp_text.h"
#include "pass.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* How long the input must stay quiet after a change before the changed
 * buffers are analysed. */
#define KP_LSP_DEBOUNCE_MS 500

/* An open buffer and its last analysis. */
typedef struct {
	char *uri, *path;
	char *text;
	size_t len;
	int version;
	kp_lsp_analysis an;
	int analysed, an_version;
	int dirty;  /* changed since its diagnostics were published */
	char **pub; /* the URIs its diagnostics were published to */
	int npub;
} doc;

typedef struct {
	FILE *in, *out;
	kp_lsp_config *cfg;
	doc *docs;
	int ndocs;
	int initialized, shut_down, done;
	int next_id;
	int doc_changes;  /* the client takes documentChanges */
	int annotations;  /* ... and change annotations (a preview before applying) */
	int resolve_edit; /* it resolves a code action's edit lazily */
} server;

static void send(server *s, cJSON *msg)
{
	if (kp_rpc_write(s->out, msg))
		s->done = 1;
	cJSON_Delete(msg);
}

static void say(server *s, const char *fmt, ...) KP_PRINTF(2, 3);
static void say(server *s, const char *fmt, ...)
{
	if (!s->cfg->verbose)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static const char *str_item(const cJSON *o, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int int_item(const cJSON *o, const char *name, int dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
	return cJSON_IsNumber(v) ? (int)v->valuedouble : dflt;
}

static const cJSON *path_item(const cJSON *o, const char *a, const char *b, const char *c)
{
	const char *names[] = {a, b, c};
	for (int i = 0; i < 3 && o && names[i]; i++)
		o = cJSON_GetObjectItemCaseSensitive(o, names[i]);
	return o;
}

/* ---- buffers ---------------------------------------------------------- */

static doc *find_doc(server *s, const char *uri)
{
	for (int i = 0; uri && i < s->ndocs; i++)
		if (!strcmp(s->docs[i].uri, uri))
			return &s->docs[i];
	return NULL;
}

static void doc_release(doc *d)
{
	free(d->uri);
	free(d->path);
	free(d->text);
	if (d->analysed)
		kp_lsp_analysis_release(&d->an);
	for (int i = 0; i < d->npub; i++)
		free(d->pub[i]);
	free(d->pub);
}

/* Analyses the buffer unless its analysis is of this version; 1 when it
 * ran. */
static int ensure_analysis(server *s, doc *d)
{
	if (d->analysed && d->an_version == d->version)
		return 0;
	if (d->analysed)
		kp_lsp_analysis_release(&d->an);
	double t0 = kp_now();
	kp_lsp_analyze(&s->cfg->env, d->path, d->text, d->len, &d->an);
	d->analysed = 1;
	d->an_version = d->version;
	say(s, "kpipe lsp: analysed %s in %.2f s\n", d->path, kp_now() - t0);
	return 1;
}

/* ---- diagnostics ------------------------------------------------------ */

static cJSON *position(const char *text, size_t len, size_t off)
{
	int line, ch;
	kp_lsp_position(text, len, off, &line, &ch);
	cJSON *p = cJSON_CreateObject();
	cJSON_AddNumberToObject(p, "line", line);
	cJSON_AddNumberToObject(p, "character", ch);
	return p;
}

static cJSON *range(const char *text, size_t len, size_t a, size_t b)
{
	cJSON *r = cJSON_CreateObject();
	cJSON_AddItemToObject(r, "start", position(text, len, a));
	cJSON_AddItemToObject(r, "end", position(text, len, b));
	return r;
}

/* A diagnostic's message: a kpipe-pipelined note becomes the hint "this
 * loop can be pipelined: LABEL, N stages (why)". */
static char *diag_message(const kp_rw_diag *d)
{
	kp_lsp_choice c;
	if (!d->id || strcmp(d->id, "kpipe-pipelined") || !kp_lsp_note_choice(d->message, &c))
		return kp_xstrdup(d->message);
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "this loop can be pipelined: %s, %d stages", c.xform->label, c.stages);
	const char *why = strstr(d->message, "): ");
	if (why)
		kp_strbuf_addf(&sb, " (%s)", why + 3);
	return kp_strbuf_detach(&sb);
}

/* One Diagnostic; text is the file's (NULL when unknown: the column is
 * then taken as a character). */
static cJSON *diag_json(server *s, const kp_rw_diag *d, const char *text, size_t len)
{
	cJSON *j = cJSON_CreateObject();
	size_t a = 0, b = 0;
	if (text && d->line > 0) {
		long o = kp_text_offset(text, len, d->line, d->col > 0 ? d->col : 1);
		if (o < 0)
			o = (long)kp_lsp_offset(text, len, d->line - 1, 0);
		a = (size_t)o;
		const char *nl = memchr(text + a, '\n', len - a);
		b = nl ? (size_t)(nl - text) : len;
		cJSON_AddItemToObject(j, "range", range(text, len, a, b));
	} else {
		cJSON *r = cJSON_AddObjectToObject(j, "range");
		for (int k = 0; k < 2; k++) {
			cJSON *p = cJSON_AddObjectToObject(r, k ? "end" : "start");
			cJSON_AddNumberToObject(p, "line", d->line > 0 ? d->line - 1 : 0);
			cJSON_AddNumberToObject(p, "character", d->col > 0 ? d->col - 1 : 0);
		}
	}
	int sev = !strcmp(d->level, "error")                   ? 1
		  : !strcmp(d->level, "warning")               ? 2
		  : d->id && !strcmp(d->id, "kpipe-pipelined") ? 4
							       : 3;
	cJSON_AddNumberToObject(j, "severity", sev);
	cJSON_AddStringToObject(j, "source", "kpipe");
	if (d->id) {
		cJSON_AddStringToObject(j, "code", d->id);
		kp_strbuf href = KP_STRBUF_INIT;
		kp_strbuf_addf(&href, "%s#%s", s->cfg->docs_url, d->id);
		cJSON *cd = cJSON_AddObjectToObject(j, "codeDescription");
		cJSON_AddStringToObject(cd, "href", kp_strbuf_str(&href));
		kp_strbuf_release(&href);
	}
	char *m = diag_message(d);
	cJSON_AddStringToObject(j, "message", m);
	free(m);
	return j;
}

/* The diagnostics of one URI while they are gathered. */
typedef struct {
	char *uri;
	char *text; /* the file's text, when read from disk (else NULL) */
	size_t len;
	const char *buf; /* the text used for positions, or NULL */
	size_t buflen;
	cJSON *list;
} uri_group;

static uri_group *group_for(server *s, const doc *d, const char *file, uri_group **g, int *n)
{
	char *uri;
	if (!strcmp(file, d->path))
		uri = kp_xstrdup(d->uri);
	else {
		char *abs = kp_rw_abs_path(file);
		uri = kp_lsp_path_uri(abs ? abs : file);
		free(abs);
	}
	for (int i = 0; i < *n; i++)
		if (!strcmp((*g)[i].uri, uri)) {
			free(uri);
			return &(*g)[i];
		}
	*g = kp_xrealloc(*g, sizeof(**g) * (size_t)(*n + 1));
	uri_group *x = &(*g)[(*n)++];
	memset(x, 0, sizeof(*x));
	x->uri = uri;
	x->list = cJSON_CreateArray();
	const doc *open = find_doc(s, uri);
	if (open) {
		x->buf = open->text;
		x->buflen = open->len;
	} else if (!kp_read_file(file, &x->text, &x->len)) {
		x->buf = x->text;
		x->buflen = x->len;
	}
	return x;
}

static void publish_one(server *s, const char *uri, int version, cJSON *list)
{
	cJSON *p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "uri", uri);
	if (version >= 0)
		cJSON_AddNumberToObject(p, "version", version);
	cJSON_AddItemToObject(p, "diagnostics", list);
	send(s, kp_rpc_notification("textDocument/publishDiagnostics", p));
}

/* Publishes the analysis of d: its own diagnostics, and those of every
 * other file they point into (project headers, included files) to that
 * file's URI, unless it is open itself (its own analysis covers it).
 * URIs published last time and not now are cleared. */
static void publish(server *s, doc *d)
{
	d->dirty = d->an_version != d->version;
	uri_group *g = NULL;
	int n = 0;
	group_for(s, d, d->path, &g, &n);
	const kp_rw_result *r = &d->an.r;
	for (int h = -1; h < r->nheaders; h++) {
		const kp_rw_result *x = h < 0 ? r : &r->headers[h];
		for (int i = 0; i < x->ndiags; i++) {
			const kp_rw_diag *di = &x->diags[i];
			if (di->suppressed) /* "// kpipe: ignore ID" in the source */
				continue;
			uri_group *u = group_for(s, d, di->file ? di->file : x->path, &g, &n);
			cJSON_AddItemToArray(u->list, diag_json(s, di, u->buf, u->buflen));
		}
	}
	char **pub = kp_xcalloc((size_t)n + 1, sizeof(char *));
	int npub = 0;
	for (int i = 0; i < n; i++) {
		int self = !strcmp(g[i].uri, d->uri);
		if (self || !find_doc(s, g[i].uri)) {
			publish_one(s, g[i].uri, self ? d->an_version : -1, g[i].list);
			if (!self)
				pub[npub++] = kp_xstrdup(g[i].uri);
		} else
			cJSON_Delete(g[i].list);
		free(g[i].uri);
		free(g[i].text);
	}
	for (int i = 0; i < d->npub; i++) {
		int still = 0;
		for (int k = 0; k < npub; k++)
			still |= !strcmp(pub[k], d->pub[i]);
		if (!still && !find_doc(s, d->pub[i]))
			publish_one(s, d->pub[i], -1, cJSON_CreateArray());
		free(d->pub[i]);
	}
	free(d->pub);
	d->pub = pub;
	d->npub = npub;
	free(g);
}

/* ---- code actions ----------------------------------------------------- */

/* What a code action rewrites: the loop at (line, col) of a buffer's
 * version with a choice (xform NULL: kpipe's). */
typedef struct {
	const char *uri;
	int version;
	int line, col;
	kp_lsp_choice choice;
} loop_ref;

static cJSON *ref_json(const doc *d, const kp_lsp_loop *l, const kp_lsp_choice *c)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "uri", d->uri);
	cJSON_AddNumberToObject(j, "version", d->an_version);
	cJSON_AddNumberToObject(j, "line", l->line);
	cJSON_AddNumberToObject(j, "col", l->col);
	cJSON_AddStringToObject(j, "variant", c && c->xform ? c->xform->name : "auto");
	if (c && c->xform)
		cJSON_AddNumberToObject(j, "stages", c->stages);
	return j;
}

/* Reads a loop_ref; NULL, or what is wrong with it. */
static const char *ref_read(const cJSON *j, loop_ref *r)
{
	memset(r, 0, sizeof(*r));
	r->uri = str_item(j, "uri");
	r->version = int_item(j, "version", -1);
	r->line = int_item(j, "line", 0);
	r->col = int_item(j, "col", 0);
	const char *v = str_item(j, "variant");
	if (!r->uri || r->line <= 0)
		return "expected {uri, version, line, col, variant, stages}";
	if (v && strcmp(v, "auto")) {
		r->choice.xform = kp_transform_find(v);
		r->choice.stages = int_item(j, "stages", 2);
		if (!r->choice.xform)
			return "unknown variant";
	}
	return NULL;
}

static const char *choice_title(const kp_lsp_choice *c, const kp_lsp_choice *best, char *buf,
				size_t n)
{
	if (!c && !best->xform)
		snprintf(buf, n, "Pipeline this loop (kpipe's choice)");
	else if (!c)
		snprintf(buf, n, "Pipeline this loop: %s, %d stages (kpipe's choice)",
			 best->xform->label, best->stages);
	else
		snprintf(buf, n, "Pipeline this loop: %s, %d stages (--variant %s)",
			 c->xform->label, c->stages, c->xform->name);
	return buf;
}

/* The WorkspaceEdit of a rewrite of d: its fixes as TextEdits of d's
 * current version (documentChanges when the client takes them, with a
 * change annotation that asks for confirmation when it takes those). */
static cJSON *workspace_edit(server *s, const doc *d, const kp_rw_result *r, const char *label)
{
	cJSON *we = cJSON_CreateObject();
	cJSON *edits = cJSON_CreateArray();
	for (int i = 0; i < r->nfixes; i++) {
		const kp_rw_fix *f = &r->fixes[i];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddItemToObject(e, "range", range(d->text, d->len, f->off, f->off + f->len));
		cJSON_AddStringToObject(e, "newText", f->text);
		if (s->doc_changes && s->annotations)
			cJSON_AddStringToObject(e, "annotationId", "kpipe");
		cJSON_AddItemToArray(edits, e);
	}
	if (!s->doc_changes) {
		cJSON *ch = cJSON_AddObjectToObject(we, "changes");
		cJSON_AddItemToObject(ch, d->uri, edits);
		return we;
	}
	cJSON *dc = cJSON_AddArrayToObject(we, "documentChanges");
	cJSON *tde = cJSON_CreateObject();
	cJSON *id = cJSON_AddObjectToObject(tde, "textDocument");
	cJSON_AddStringToObject(id, "uri", d->uri);
	cJSON_AddNumberToObject(id, "version", d->version);
	cJSON_AddItemToObject(tde, "edits", edits);
	cJSON_AddItemToArray(dc, tde);
	if (s->annotations) {
		cJSON *ann = cJSON_AddObjectToObject(we, "changeAnnotations");
		cJSON *k = cJSON_AddObjectToObject(ann, "kpipe");
		cJSON_AddStringToObject(k, "label", label);
		cJSON_AddBoolToObject(k, "needsConfirmation", 1);
		cJSON_AddStringToObject(k, "description", "kpipe rewrite of one loop");
	}
	return we;
}

/* The rewrite a loop_ref asks for, against d's current text.  A ref made
 * for an older version is taken only when the loop still starts at the
 * same place in the current one (its analysis says so).  Returns 0 with
 * *r and *out filled, else an error code with *why set (malloc'd). */
static int ref_rewrite(server *s, doc *d, const loop_ref *ref, kp_rw_result *r, char **out,
		       size_t *outlen, char **why)
{
	*why = NULL;
	*out = NULL;
	if (ref->version >= 0 && ref->version != d->version) {
		if (ensure_analysis(s, d))
			publish(s, d);
		int found = 0;
		for (int i = 0; i < d->an.nloops; i++)
			found |= d->an.loops[i].line == ref->line && d->an.loops[i].col == ref->col;
		if (!found) {
			kp_strbuf sb = KP_STRBUF_INIT;
			kp_strbuf_addf(&sb,
				       "the buffer changed since this action was offered (version "
				       "%d, now %d) and no loop starts at line %d any more: ask "
				       "for code actions again",
				       ref->version, d->version, ref->line);
			*why = kp_strbuf_detach(&sb);
			return KP_RPC_CONTENT_MODIFIED;
		}
	}
	if (kp_lsp_rewrite_loop(&s->cfg->env, d->path, d->text, d->len, ref->line, ref->col,
				&ref->choice, r, out, outlen, why) != KP_EXIT_OK)
		return KP_RPC_REQUEST_FAILED;
	return 0;
}

/* codeAction/resolve, and an action the client does not resolve: the
 * action with its edit, computed against the version it was offered for
 * (a stale one is refused: ContentModified). */
static cJSON *resolve_action(server *s, const cJSON *action, int *code, char **why)
{
	loop_ref ref;
	const char *bad = ref_read(cJSON_GetObjectItemCaseSensitive(action, "data"), &ref);
	doc *d = bad ? NULL : find_doc(s, ref.uri);
	*code = 0;
	if (!d || ref.version != d->version) {
		*code = d ? KP_RPC_CONTENT_MODIFIED : KP_RPC_INVALID_PARAMS;
		kp_strbuf sb = KP_STRBUF_INIT;
		if (d)
			kp_strbuf_addf(&sb,
				       "the buffer changed since this action was offered (version "
				       "%d, now %d): ask for code actions again",
				       ref.version, d->version);
		else
			kp_strbuf_addf(&sb, "%s", bad ? bad : "the document is not open");
		*why = kp_strbuf_detach(&sb);
		return NULL;
	}
	kp_rw_result r = {0};
	char *out;
	size_t outlen;
	*code = ref_rewrite(s, d, &ref, &r, &out, &outlen, why);
	cJSON *res = NULL;
	if (!*code) {
		res = cJSON_Duplicate(action, 1);
		cJSON_DeleteItemFromObjectCaseSensitive(res, "edit");
		cJSON_AddItemToObject(res, "edit",
				      workspace_edit(s, d, &r, str_item(action, "title")));
	}
	free(out);
	kp_rw_result_release(&r);
	return res;
}

static void add_action(server *s, cJSON *list, const doc *d, const kp_lsp_loop *l,
		       const kp_lsp_choice *c, cJSON *diags)
{
	char title[256];
	cJSON *a = cJSON_CreateObject();
	cJSON_AddStringToObject(a, "title", choice_title(c, &l->best, title, sizeof(title)));
	cJSON_AddStringToObject(a, "kind", "refactor.rewrite");
	if (!c)
		cJSON_AddBoolToObject(a, "isPreferred", 1);
	if (diags)
		cJSON_AddItemToObject(a, "diagnostics", cJSON_Duplicate(diags, 1));
	cJSON_AddItemToObject(a, "data", ref_json(d, l, c));
	if (!s->resolve_edit) {
		int code;
		char *why = NULL;
		cJSON *full = resolve_action(s, a, &code, &why);
		free(why);
		cJSON_Delete(a);
		if (!full)
			return;
		a = full;
	}
	cJSON_AddItemToArray(list, a);
}

/* textDocument/codeAction: for every loop that starts in the range, kpipe's
 * choice first, then each other variant and stage count that applies. */
static cJSON *code_actions(server *s, const cJSON *params, int *code, char **why)
{
	doc *d = find_doc(s, str_item(path_item(params, "textDocument", NULL, NULL), "uri"));
	if (!d) {
		*code = KP_RPC_INVALID_PARAMS;
		*why = kp_xstrdup("the document is not open");
		return NULL;
	}
	if (ensure_analysis(s, d))
		publish(s, d);
	int first = int_item(path_item(params, "range", "start", NULL), "line", 0);
	int last = int_item(path_item(params, "range", "end", NULL), "line", first);
	cJSON *list = cJSON_CreateArray();
	for (int i = 0; i < d->an.nloops; i++) {
		const kp_lsp_loop *l = &d->an.loops[i];
		if (l->line - 1 < first || l->line - 1 > last)
			continue;
		kp_rw_diag hint = {.file = (char *)d->path,
				   .line = l->line,
				   .col = l->col,
				   .off = -1,
				   .level = (char *)"note",
				   .id = (char *)"kpipe-pipelined",
				   .message = (char *)""};
		cJSON *diags = NULL;
		if (l->best.xform) {
			char msg[256];
			snprintf(msg, sizeof(msg), "pipelined with %s (%d stages)",
				 l->best.xform->name, l->best.stages);
			hint.message = msg;
			diags = cJSON_CreateArray();
			cJSON_AddItemToArray(diags, diag_json(s, &hint, d->text, d->len));
			add_action(s, list, d, l, NULL, diags);
		}
		for (int k = 0; k < l->nalts; k++) {
			const kp_lsp_choice *c = &l->alts[k];
			if (c->xform == l->best.xform && c->stages == l->best.stages)
				continue;
			add_action(s, list, d, l, c, NULL);
		}
		cJSON_Delete(diags);
	}
	return list;
}

/* ---- commands --------------------------------------------------------- */

/* The name of a file in a diff's a/ and b/ labels: relative to the
 * working directory (the editor's project) when under it, else its base
 * name. */
static const char *diff_label(const char *path)
{
	static char cwd[4096];
	if (getcwd(cwd, sizeof(cwd))) {
		size_t n = strlen(cwd);
		if (!strncmp(path, cwd, n) && path[n] == '/')
			return path + n + 1;
	}
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* workspace/executeCommand: kpipe.pipelineLoop sends the edit to the
 * client (workspace/applyEdit) and answers null; kpipe.preview answers
 * {title, diff} without changing anything.  Both take one loop_ref (a code
 * action's data); one made for an older version is recomputed against
 * the current text when its loop has not moved. */
static cJSON *execute_command(server *s, const cJSON *params, int *code, char **why)
{
	const char *cmd = str_item(params, "command");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
	int apply = cmd && !strcmp(cmd, "kpipe.pipelineLoop");
	if (!cmd || (!apply && strcmp(cmd, "kpipe.preview"))) {
		*code = KP_RPC_INVALID_PARAMS;
		*why = kp_xstrdup("unknown command (kpipe.pipelineLoop, kpipe.preview)");
		return NULL;
	}
	loop_ref ref;
	const char *bad = ref_read(cJSON_GetArrayItem(args, 0), &ref);
	doc *d = bad ? NULL : find_doc(s, ref.uri);
	if (!d) {
		*code = KP_RPC_INVALID_PARAMS;
		*why = kp_xstrdup(bad ? bad : "the document is not open");
		return NULL;
	}
	kp_rw_result r = {0};
	char *out = NULL;
	size_t outlen = 0;
	*code = ref_rewrite(s, d, &ref, &r, &out, &outlen, why);
	cJSON *res = NULL;
	char title[256];
	choice_title(ref.choice.xform ? &ref.choice : NULL, &ref.choice, title, sizeof(title));
	if (!*code && apply) {
		cJSON *p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, "label", title);
		cJSON_AddItemToObject(p, "edit", workspace_edit(s, d, &r, title));
		send(s, kp_rpc_request(++s->next_id, "workspace/applyEdit", p));
		res = cJSON_CreateNull();
	} else if (!*code) {
		res = cJSON_CreateObject();
		char *diff = kp_rw_diff(diff_label(d->path), d->text, d->len, out, outlen);
		cJSON_AddStringToObject(res, "title", title);
		cJSON_AddStringToObject(res, "diff", diff);
		cJSON_AddNumberToObject(res, "version", d->version);
		free(diff);
	}
	free(out);
	kp_rw_result_release(&r);
	return res;
}

/* ---- the lifecycle and the buffers' notifications --------------------- */

static cJSON *initialize(server *s, const cJSON *params)
{
	const cJSON *caps = cJSON_GetObjectItemCaseSensitive(params, "capabilities");
	const cJSON *we = path_item(caps, "workspace", "workspaceEdit", NULL);
	s->doc_changes = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(we, "documentChanges"));
	s->annotations = cJSON_GetObjectItemCaseSensitive(we, "changeAnnotationSupport") != NULL;
	const cJSON *props = path_item(caps, "textDocument", "codeAction", "resolveSupport");
	props = cJSON_GetObjectItemCaseSensitive(props, "properties");
	const cJSON *p;
	cJSON_ArrayForEach(p, props)
	{
		if (cJSON_IsString(p) && !strcmp(p->valuestring, "edit"))
			s->resolve_edit = 1;
	}
	s->initialized = 1;
	cJSON *res = cJSON_CreateObject();
	cJSON *c = cJSON_AddObjectToObject(res, "capabilities");
	cJSON *sync = cJSON_AddObjectToObject(c, "textDocumentSync");
	cJSON_AddBoolToObject(sync, "openClose", 1);
	cJSON_AddNumberToObject(sync, "change", 2); /* incremental */
	cJSON_AddObjectToObject(sync, "save");
	cJSON *ca = cJSON_AddObjectToObject(c, "codeActionProvider");
	cJSON *kinds = cJSON_AddArrayToObject(ca, "codeActionKinds");
	cJSON_AddItemToArray(kinds, cJSON_CreateString("refactor.rewrite"));
	cJSON_AddBoolToObject(ca, "resolveProvider", 1);
	cJSON *ec = cJSON_AddObjectToObject(c, "executeCommandProvider");
	cJSON *cmds = cJSON_AddArrayToObject(ec, "commands");
	cJSON_AddItemToArray(cmds, cJSON_CreateString("kpipe.pipelineLoop"));
	cJSON_AddItemToArray(cmds, cJSON_CreateString("kpipe.preview"));
	cJSON *info = cJSON_AddObjectToObject(res, "serverInfo");
	cJSON_AddStringToObject(info, "name", "kpipe");
	cJSON_AddStringToObject(info, "version", KPIPE_VERSION);
	return res;
}

static void did_open(server *s, const cJSON *params)
{
	const cJSON *td = cJSON_GetObjectItemCaseSensitive(params, "textDocument");
	const char *uri = str_item(td, "uri"), *text = str_item(td, "text");
	char *path = uri ? kp_lsp_uri_path(uri) : NULL;
	if (!path || !text) {
		fprintf(stderr, "kpipe lsp: didOpen of %s ignored: %s\n", uri ? uri : "(no uri)",
			path ? "no text" : "not a file:// URI");
		free(path);
		return;
	}
	doc *d = find_doc(s, uri);
	if (d)
		doc_release(d);
	else {
		s->docs = kp_xrealloc(s->docs, sizeof(*s->docs) * (size_t)(s->ndocs + 1));
		d = &s->docs[s->ndocs++];
	}
	memset(d, 0, sizeof(*d));
	d->uri = kp_xstrdup(uri);
	d->path = path;
	d->text = kp_xstrdup(text);
	d->len = strlen(text);
	d->version = int_item(td, "version", 0);
	ensure_analysis(s, d);
	publish(s, d);
}

static void did_change(server *s, const cJSON *params)
{
	const cJSON *td = cJSON_GetObjectItemCaseSensitive(params, "textDocument");
	doc *d = find_doc(s, str_item(td, "uri"));
	if (!d)
		return;
	const cJSON *ch;
	cJSON_ArrayForEach(ch, cJSON_GetObjectItemCaseSensitive(params, "contentChanges"))
	{
		const char *text = str_item(ch, "text");
		const cJSON *r = cJSON_GetObjectItemCaseSensitive(ch, "range");
		if (!text)
			continue;
		size_t a = 0, b = d->len;
		if (r) {
			const cJSON *st = cJSON_GetObjectItemCaseSensitive(r, "start");
			const cJSON *en = cJSON_GetObjectItemCaseSensitive(r, "end");
			a = kp_lsp_offset(d->text, d->len, int_item(st, "line", 0),
					  int_item(st, "character", 0));
			b = kp_lsp_offset(d->text, d->len, int_item(en, "line", 0),
					  int_item(en, "character", 0));
		}
		kp_lsp_splice(&d->text, &d->len, a, b, text, strlen(text));
	}
	d->version = int_item(td, "version", d->version + 1);
	d->dirty = 1;
}

static void did_save(server *s, const cJSON *params)
{
	doc *d = find_doc(s, str_item(path_item(params, "textDocument", NULL, NULL), "uri"));
	if (!d)
		return;
	const char *text = str_item(params, "text");
	if (text && (strlen(text) != d->len || memcmp(text, d->text, d->len))) {
		free(d->text);
		d->text = kp_xstrdup(text);
		d->len = strlen(text);
		d->version++;
	}
	ensure_analysis(s, d);
	publish(s, d);
}

static void did_close(server *s, const cJSON *params)
{
	doc *d = find_doc(s, str_item(path_item(params, "textDocument", NULL, NULL), "uri"));
	if (!d)
		return;
	char *uri = kp_xstrdup(d->uri);
	char **pub = d->pub;
	int npub = d->npub;
	d->pub = NULL;
	d->npub = 0;
	doc_release(d);
	*d = s->docs[--s->ndocs];
	publish_one(s, uri, -1, cJSON_CreateArray());
	for (int i = 0; i < npub; i++) {
		if (!find_doc(s, pub[i]))
			publish_one(s, pub[i], -1, cJSON_CreateArray());
		free(pub[i]);
	}
	free(pub);
	free(uri);
}

/* ---- the message loop ------------------------------------------------- */

/* A request's answer: its result, or an error (code, why). */
static cJSON *request(server *s, const char *method, const cJSON *params, int *code, char **why)
{
	*code = 0;
	*why = NULL;
	if (!strcmp(method, "initialize")) {
		if (s->initialized) {
			*code = KP_RPC_INVALID_REQUEST;
			*why = kp_xstrdup("initialize was already called");
			return NULL;
		}
		return initialize(s, params);
	}
	if (!s->initialized) {
		*code = KP_RPC_SERVER_NOT_INITIALIZED;
		*why = kp_xstrdup("the server is not initialized");
		return NULL;
	}
	if (s->shut_down) {
		*code = KP_RPC_INVALID_REQUEST;
		*why = kp_xstrdup("the server is shut down");
		return NULL;
	}
	if (!strcmp(method, "shutdown")) {
		s->shut_down = 1;
		return cJSON_CreateNull();
	}
	if (!strcmp(method, "textDocument/codeAction"))
		return code_actions(s, params, code, why);
	if (!strcmp(method, "codeAction/resolve"))
		return resolve_action(s, params, code, why);
	if (!strcmp(method, "workspace/executeCommand"))
		return execute_command(s, params, code, why);
	*code = KP_RPC_METHOD_NOT_FOUND;
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "kpipe lsp does not handle '%s'", method);
	*why = kp_strbuf_detach(&sb);
	return NULL;
}

static void notification(server *s, const char *method, const cJSON *params)
{
	if (!strcmp(method, "exit")) {
		s->done = 1;
		return;
	}
	if (!s->initialized || s->shut_down)
		return;
	if (!strcmp(method, "textDocument/didOpen"))
		did_open(s, params);
	else if (!strcmp(method, "textDocument/didChange"))
		did_change(s, params);
	else if (!strcmp(method, "textDocument/didSave"))
		did_save(s, params);
	else if (!strcmp(method, "textDocument/didClose"))
		did_close(s, params);
}

/* One message: a request (answered), a notification, or the answer to a
 * request of ours (workspace/applyEdit: logged when refused). */
static void handle(server *s, const cJSON *msg)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	const char *method = str_item(msg, "method");
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	if (!method) {
		const cJSON *res = cJSON_GetObjectItemCaseSensitive(msg, "result");
		const cJSON *err = cJSON_GetObjectItemCaseSensitive(msg, "error");
		if (err || (res && cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(res, "applied"))))
			fprintf(stderr, "kpipe lsp: the client refused request %d: %s\n",
				int_item(msg, "id", -1),
				err ? (str_item(err, "message") ? str_item(err, "message")
								: "error")
				    : (str_item(res, "failureReason")
					       ? str_item(res, "failureReason")
					       : "not applied"));
		if (!id)
			send(s, kp_rpc_error(NULL, KP_RPC_INVALID_REQUEST,
					     "a message without a method"));
		return;
	}
	say(s, "kpipe lsp: %s\n", method);
	if (!id) {
		notification(s, method, params);
		return;
	}
	int code;
	char *why;
	double t0 = kp_now();
	cJSON *res = request(s, method, params, &code, &why);
	say(s, "kpipe lsp: %s answered in %.2f s\n", method, kp_now() - t0);
	cJSON *idc = cJSON_Duplicate(id, 1);
	if (code)
		send(s, kp_rpc_error(idc, code, why ? why : "failed"));
	else
		send(s, kp_rpc_response(idc, res));
	if (code)
		cJSON_Delete(res);
	free(why);
}

/* Diagnostics while typing: the buffers changed since their last
 * publication are analysed once no message has come for
 * KP_LSP_DEBOUNCE_MS. */
static void publish_changed(server *s)
{
	int any = 0;
	for (int i = 0; i < s->ndocs; i++)
		any |= s->docs[i].dirty;
	if (!any || s->shut_down || kp_rpc_ready(s->in, KP_LSP_DEBOUNCE_MS))
		return;
	for (int i = 0; i < s->ndocs; i++)
		if (s->docs[i].dirty) {
			ensure_analysis(s, &s->docs[i]);
			publish(s, &s->docs[i]);
		}
}

int kp_lsp_serve(FILE *in, FILE *out, kp_lsp_config *cfg)
{
	server s = {.in = in, .out = out, .cfg = cfg};
	/* unbuffered: kp_rpc_ready() sees every byte that waits */
	setvbuf(in, NULL, _IONBF, 0);
	while (!s.done) {
		publish_changed(&s);
		char *body;
		size_t len;
		const char *err;
		int rc = kp_rpc_read(in, &body, &len, &err);
		if (rc == KP_RPC_EOF)
			break;
		if (rc == KP_RPC_BAD) {
			fprintf(stderr, "kpipe lsp: error: %s; stopping\n", err);
			break;
		}
		cJSON *msg = cJSON_ParseWithLength(body, len);
		free(body);
		if (!cJSON_IsObject(msg))
			send(&s,
			     kp_rpc_error(NULL, msg ? KP_RPC_INVALID_REQUEST : KP_RPC_PARSE_ERROR,
					  msg ? "a message that is not an object"
					      : "a message that is not JSON"));
		else
			handle(&s, msg);
		cJSON_Delete(msg);
	}
	for (int i = 0; i < s.ndocs; i++)
		doc_release(&s.docs[i]);
	free(s.docs);
	kp_lsp_env_release(&cfg->env);
	return s.shut_down && s.done ? 0 : 1;
}
