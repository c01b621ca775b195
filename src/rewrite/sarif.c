/*
 * sarif.c - SARIF 2.1.0 output for `kpipe rewrite --format sarif` and
 * `kpipe analyze --format sarif` (its findings as results, findings.h): the
 * refusals and compiler errors of every file (with --sarif-all also the
 * notes and remarks: the pipelined loops, each with its rewrite as a fix),
 * each with a rule whose helpUri is the absolute URL of its entry in
 * docs/diagnostics.md (KPIPE_DOCS_URL, a build setting); a diagnostic
 * suppressed by a "// kpipe: ignore" comment carries an inSource
 * suppression.  Built with cJSON.
 */
#include "sarif.h"

#include "diag_ids.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

const char *kp_sarif_rule_id(const kp_rw_diag *d)
{
	if (d->id)
		return d->id;
	if (d->line > 0)
		return !strcmp(d->level, "error") ? "clang-diagnostic-error"
						  : "clang-diagnostic-warning";
	return "kpipe-error";
}

char *kp_sarif_uri(const char *path)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	if (path[0] == '/')
		kp_strbuf_adds(&sb, "file://");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		/* RFC 3986 unreserved characters and the path separator stay */
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~/", *p))
			kp_strbuf_addc(&sb, (char)*p);
		else
			kp_strbuf_addf(&sb, "%%%02X", *p);
	}
	return kp_strbuf_detach(&sb);
}

static const char *sarif_level(const char *level)
{
	if (!strcmp(level, "error"))
		return "error";
	if (!strcmp(level, "warning"))
		return "warning";
	return "note";
}

/* Where a rule is documented: its own section, or the section on where
 * diagnostics appear for the compiler's and kpipe's own errors. */
static char *help_uri(const char *rule)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	if (!strncmp(rule, "kpipe-", 6) && strcmp(rule, "kpipe-error"))
		kp_strbuf_addf(&sb, "%sdiagnostics.md#%s", KPIPE_DOCS_URL, rule);
	else
		kp_strbuf_addf(&sb, "%sdiagnostics.md#where-diagnostics-appear", KPIPE_DOCS_URL);
	return kp_strbuf_detach(&sb);
}

static cJSON *text_obj(const char *s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "text", s);
	return o;
}

static cJSON *artifact_location(const char *path)
{
	cJSON *a = cJSON_CreateObject();
	char *uri = kp_sarif_uri(path);
	cJSON_AddStringToObject(a, "uri", uri);
	free(uri);
	if (path[0] != '/')
		cJSON_AddStringToObject(a, "uriBaseId", "%SRCROOT%");
	return a;
}

char *kp_sarif_log(const kp_rw_result *const *r, int n, const char *cwd, int exit_code, int all)
{
	cJSON *log = cJSON_CreateObject();
	cJSON_AddStringToObject(
		log, "$schema",
		"https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json");
	cJSON_AddStringToObject(log, "version", "2.1.0");
	cJSON *runs = cJSON_AddArrayToObject(log, "runs");
	cJSON *run = cJSON_CreateObject();
	cJSON_AddItemToArray(runs, run);
	cJSON *tool = cJSON_AddObjectToObject(run, "tool");
	cJSON *driver = cJSON_AddObjectToObject(tool, "driver");
	cJSON_AddStringToObject(driver, "name", "kpipe");
	cJSON_AddStringToObject(driver, "version", KPIPE_VERSION);
	cJSON_AddStringToObject(driver, "semanticVersion", KPIPE_VERSION);
	cJSON *rules = cJSON_AddArrayToObject(driver, "rules");
	if (cwd) {
		cJSON *bases = cJSON_AddObjectToObject(run, "originalUriBaseIds");
		cJSON *root = cJSON_AddObjectToObject(bases, "%SRCROOT%");
		kp_strbuf sb = KP_STRBUF_INIT;
		char *u = kp_sarif_uri(cwd);
		kp_strbuf_adds(&sb, u);
		if (!sb.len || sb.buf[sb.len - 1] != '/')
			kp_strbuf_addc(&sb, '/');
		cJSON_AddStringToObject(root, "uri", kp_strbuf_str(&sb));
		kp_strbuf_release(&sb);
		free(u);
	}
	cJSON *invs = cJSON_AddArrayToObject(run, "invocations");
	cJSON *inv = cJSON_CreateObject();
	cJSON_AddItemToArray(invs, inv);
	cJSON_AddBoolToObject(inv, "executionSuccessful", exit_code == 0 || exit_code == 1);
	cJSON_AddNumberToObject(inv, "exitCode", exit_code);
	cJSON *results = cJSON_AddArrayToObject(run, "results");

	const char **rule_ids = NULL;
	int nrules = 0;
	for (int i = 0; i < n; i++) {
		const kp_rw_result *x = r[i];
		for (int d = 0; d < x->ndiags; d++) {
			const kp_rw_diag *g = &x->diags[d];
			/* a note or remark (a pipelined loop, a loop left alone on
			 * purpose) is no finding: only with --sarif-all */
			if (!all && strcmp(g->level, "error") && strcmp(g->level, "warning"))
				continue;
			const char *rid = kp_sarif_rule_id(g);
			int ri = -1;
			for (int k = 0; k < nrules; k++)
				if (!strcmp(rule_ids[k], rid))
					ri = k;
			if (ri < 0) {
				rule_ids = kp_xrealloc(rule_ids,
						       sizeof(*rule_ids) * (size_t)(nrules + 1));
				rule_ids[nrules] = rid;
				ri = nrules++;
				cJSON *rule = cJSON_CreateObject();
				cJSON_AddStringToObject(rule, "id", rid);
				char *h = help_uri(rid);
				cJSON_AddStringToObject(rule, "helpUri", h);
				free(h);
				const kp_diag_id *reg = kp_diag_id_find(rid);
				if (reg)
					cJSON_AddItemToObject(rule, "shortDescription",
							      text_obj(reg->summary));
				cJSON_AddItemToArray(rules, rule);
			}
			cJSON *res = cJSON_CreateObject();
			cJSON_AddItemToArray(results, res);
			cJSON_AddStringToObject(res, "ruleId", rid);
			cJSON_AddNumberToObject(res, "ruleIndex", ri);
			cJSON_AddStringToObject(res, "level", sarif_level(g->level));
			cJSON_AddItemToObject(res, "message", text_obj(g->message));
			if (g->suppressed) {
				cJSON *sup = cJSON_CreateObject();
				cJSON_AddStringToObject(sup, "kind", "inSource");
				cJSON_AddItemToArray(cJSON_AddArrayToObject(res, "suppressions"),
						     sup);
			}
			cJSON *locs = cJSON_AddArrayToObject(res, "locations");
			cJSON *loc = cJSON_CreateObject();
			cJSON_AddItemToArray(locs, loc);
			cJSON *phys = cJSON_AddObjectToObject(loc, "physicalLocation");
			cJSON_AddItemToObject(phys, "artifactLocation",
					      artifact_location(g->file ? g->file : x->path));
			if (g->line > 0) {
				cJSON *reg = cJSON_AddObjectToObject(phys, "region");
				cJSON_AddNumberToObject(reg, "startLine", g->line);
				if (g->col > 0)
					cJSON_AddNumberToObject(reg, "startColumn", g->col);
			}
			int nfix = 0;
			for (int k = 0; k < x->nfixes; k++)
				nfix += x->fixes[k].diag == d;
			if (!nfix)
				continue;
			cJSON *fixes = cJSON_AddArrayToObject(res, "fixes");
			cJSON *fix = cJSON_CreateObject();
			cJSON_AddItemToArray(fixes, fix);
			cJSON_AddItemToObject(fix, "description", text_obj("pipeline this loop"));
			cJSON *changes = cJSON_AddArrayToObject(fix, "artifactChanges");
			cJSON *ch = cJSON_CreateObject();
			cJSON_AddItemToArray(changes, ch);
			cJSON_AddItemToObject(ch, "artifactLocation", artifact_location(x->path));
			cJSON *reps = cJSON_AddArrayToObject(ch, "replacements");
			for (int k = 0; k < x->nfixes; k++) {
				const kp_rw_fix *fx = &x->fixes[k];
				if (fx->diag != d)
					continue;
				cJSON *rep = cJSON_CreateObject();
				cJSON_AddItemToArray(reps, rep);
				cJSON *del = cJSON_AddObjectToObject(rep, "deletedRegion");
				cJSON_AddNumberToObject(del, "byteOffset", fx->off);
				cJSON_AddNumberToObject(del, "byteLength", fx->len);
				cJSON_AddItemToObject(rep, "insertedContent", text_obj(fx->text));
			}
		}
	}
	free(rule_ids);
	cJSON *arts = cJSON_AddArrayToObject(run, "artifacts");
	for (int i = 0; i < n; i++) {
		cJSON *a = cJSON_CreateObject();
		cJSON_AddItemToObject(a, "location", artifact_location(r[i]->path));
		cJSON_AddStringToObject(a, "sourceLanguage", "cuda");
		cJSON_AddItemToArray(arts, a);
	}
	char *s = cJSON_Print(log);
	cJSON_Delete(log);
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_adds(&sb, s);
	kp_strbuf_addc(&sb, '\n');
	cJSON_free(s);
	return kp_strbuf_detach(&sb);
}
