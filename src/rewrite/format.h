/*
 * format.h - the code kpipe wrote, in the project's own style: when a
 * .clang-format (or _clang-format) lies in the file's directory or above
 * it, the lines kpipe wrote go through
 * clang-format, as clang-tidy's --format-style=file does for its fixes.
 * The result is one more edit list over the rewritten text, which the
 * driver keeps as the last stage, so that -o, -i, --diff, the fixes and
 * SARIF all carry the formatted code.
 *
 * Ownership: strings returned are the caller's; kp_format_edits() fills
 * an edit list the caller releases.
 */
#ifndef KPIPE_FORMAT_H
#define KPIPE_FORMAT_H

#include <stddef.h>

#include "edit.h"

/* The .clang-format or _clang-format nearest above `path` (its directory
 * first), or NULL. */
char *kp_format_style_file(const char *path);

/* Whether the style file says `DisableFormat: true` (then there is
 * nothing to format, and clang-format is not needed). */
int kp_format_disabled(const char *style_file);

/* clang-format: $KPIPE_CLANG_FORMAT, else clang-format, clang-format-19
 * ... -14 on PATH; NULL when none. */
char *kp_format_tool(void);

/* The replacements clang-format makes, with `style` (a .clang-format path,
 * or a style such as "llvm" or "{IndentWidth: 2}"), to the lines of
 * `text` that are not lines of `orig`.  Returns 0
 * (out may be empty), or -1 with *err (caller frees) when clang-format
 * failed. */
int kp_format_edits(const char *tool, const char *style, const char *orig, size_t origlen,
		    const char *text, size_t len, kp_edits *out, char **err);

#endif
