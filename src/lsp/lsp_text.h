/*
 * lsp_text.h - what the language server (server.h) needs to talk about
 * text the protocol's way: file:// URIs and paths, positions (0-based
 * line, UTF-16 code units) and byte offsets, and the edits of
 * textDocument/didChange applied to a buffer.  No JSON, no I/O.
 */
#ifndef KPIPE_LSP_TEXT_H
#define KPIPE_LSP_TEXT_H

#include <stddef.h>

/* The path of a file:// URI (percent escapes decoded, malloc'd), or NULL
 * for another scheme. */
char *kp_lsp_uri_path(const char *uri);
/* The file:// URI of a path (made absolute against the working
 * directory; characters outside [A-Za-z0-9/._~-] percent-escaped). */
char *kp_lsp_path_uri(const char *path);

/* The protocol position of byte offset off (clamped to the text): line
 * from 0, character in UTF-16 code units from the line's start. */
void kp_lsp_position(const char *text, size_t len, size_t off, int *line, int *character);
/* The byte offset of a protocol position: a character past the line's
 * end is the line's end, a line past the text is its end. */
size_t kp_lsp_offset(const char *text, size_t len, int line, int character);

/* Replaces [a, b) of *text (length *len, malloc'd) by repl: the edit of a
 * didChange event with a range.  a and b are clamped, b >= a. */
void kp_lsp_splice(char **text, size_t *len, size_t a, size_t b, const char *repl, size_t rlen);

#endif
