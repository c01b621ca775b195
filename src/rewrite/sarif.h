/*
 * sarif.h - the rewrite's diagnostics as a SARIF 2.1.0 log (--format
 * sarif): one run, tool.driver kpipe with one rule per id seen (helpUri
 * KPIPE_DOCS_URL + diagnostics.md#ID), one result per refusal or error
 * with its location (suppressed ones marked inSource), and with `all` the
 * notes and remarks too: a pipelined loop with its fix (byte-offset
 * replacements).
 * No libclang, no printing; the log is returned as a malloc'd string.
 */
#ifndef KPIPE_SARIF_H
#define KPIPE_SARIF_H

#include "rw_result.h"

/* cwd (absolute, may be NULL) becomes the %SRCROOT% base of relative
 * paths; exit_code is recorded in the run's invocation; all (--sarif-all)
 * keeps the notes and remarks. */
char *kp_sarif_log(const kp_rw_result *const *r, int n, const char *cwd, int exit_code, int all);

/* The rule id a diagnostic is reported under: its kpipe id, or
 * "clang-diagnostic-error" / "clang-diagnostic-warning" for the
 * compiler's own, "kpipe-error" for a failure without an id. */
const char *kp_sarif_rule_id(const kp_rw_diag *d);

/* A path as a URI reference: relative paths percent-encoded as they are,
 * absolute ones as file:// URIs.  Caller frees. */
char *kp_sarif_uri(const char *path);

#endif
