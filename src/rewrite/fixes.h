/*
 * fixes.h - the rewrite as replacements other tools apply: the edit list
 * turned into non-overlapping, non-touching replacements (kp_fixes_merge),
 * or several passes' edit lists into the replacements of their composition
 * (kp_fixes_compose), and clang-tidy's --export-fixes YAML (MainSourceFile,
 * Diagnostics with DiagnosticName, DiagnosticMessage {Message, FilePath,
 * FileOffset, Replacements [{FilePath, Offset, Length, ReplacementText}]},
 * Level), which clang-apply-replacements reads.  No libclang, no printing.
 *
 * Ownership: kp_fixes_merge() and kp_fixes_compose() return a malloc'd
 * array whose texts the caller frees (kp_fixes_free); kp_fixes_yaml()
 * returns a malloc'd string.
 */
#ifndef KPIPE_FIXES_H
#define KPIPE_FIXES_H

#include "edit.h"
#include "rw_result.h"

/* Sorts the edits as kp_edits_apply() applies them and merges every run
 * of edits that touch (one starts where the previous ends, insertions at
 * one offset included) into one replacement, so that no two replacements
 * share an offset: clang-apply-replacements reports those as conflicts.
 * owner[i] is the diagnostic of edit i (or NULL: all -1).  Applying the
 * result gives exactly what kp_edits_apply() gives.  Returns -1 when two
 * edits overlap. */
int kp_fixes_merge(const kp_edits *e, const int *owner, kp_rw_fix **out, int *n);

/* The replacements that turn a source into `out` when `out` was made by
 * applying stages[0] to it, stages[1] to that result, and so on (inlen[k]
 * the length of stage k's input, inlen[0] the source's): one replacement
 * per region of the source that some stage changed, none two touching,
 * each owned by `owner`.  Applying them to the source gives exactly
 * `out`.  Returns -1 when a stage's edits overlap. */
int kp_fixes_compose(const kp_edits *const *stages, const size_t *inlen, int nstages,
		     const char *out, size_t outlen, int owner, kp_rw_fix **fixes, int *n);

/* The YAML document for the results: one Diagnostic per diagnostic that
 * has an id (refusals, and kpipe-pipelined with its replacements).
 * FilePath is the result's abs_path (or path).  main_file names
 * MainSourceFile ("" for several files); build_dir goes to BuildDirectory. */
char *kp_fixes_yaml(const kp_rw_result *const *r, int n, const char *main_file,
		    const char *build_dir);

/* A YAML double-quoted scalar of s (appended to sb, quotes included). */
void kp_yaml_quote(kp_strbuf *sb, const char *s);

#endif
