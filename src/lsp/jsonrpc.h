/*
 * jsonrpc.h - JSON-RPC 2.0 messages over a byte stream with the Language
 * Server Protocol's framing: `Content-Length: N\r\n` (other header
 * fields ignored), an empty line, then N bytes of JSON.  Used by `kpipe
 * lsp` (server.h) on stdin and stdout.  No printing besides the messages.
 */
#ifndef KPIPE_JSONRPC_H
#define KPIPE_JSONRPC_H

#include <stddef.h>
#include <stdio.h>

struct cJSON;

enum { KP_RPC_OK = 0, KP_RPC_EOF = 1, KP_RPC_BAD = -1 };

/* Reads one message's body (malloc'd, NUL-terminated) into *body.
 * Returns KP_RPC_OK, KP_RPC_EOF at the end of the stream before a header,
 * or KP_RPC_BAD when the framing is broken (no Content-Length, a short
 * body): *err then says why (static text). */
int kp_rpc_read(FILE *in, char **body, size_t *len, const char **err);

/* Whether a message (or the end of the stream) arrives on `in` within ms
 * milliseconds: 1 when it has, 0 when not.  Only exact for an unbuffered
 * stream (setvbuf _IONBF), whose bytes all wait in the descriptor. */
int kp_rpc_ready(FILE *in, int ms);

/* Writes msg with its header and flushes.  Returns 0, or -1 when the
 * stream fails. */
int kp_rpc_write(FILE *out, const struct cJSON *msg);

/* The messages of JSON-RPC 2.0, built but not sent (the caller owns
 * them; id and result/params are taken over, NULL id means null). */
struct cJSON *kp_rpc_response(struct cJSON *id, struct cJSON *result);
struct cJSON *kp_rpc_error(struct cJSON *id, int code, const char *message);
struct cJSON *kp_rpc_notification(const char *method, struct cJSON *params);
struct cJSON *kp_rpc_request(int id, const char *method, struct cJSON *params);

/* The error codes of JSON-RPC and of the protocol. */
enum {
	KP_RPC_PARSE_ERROR = -32700,
	KP_RPC_INVALID_REQUEST = -32600,
	KP_RPC_METHOD_NOT_FOUND = -32601,
	KP_RPC_INVALID_PARAMS = -32602,
	KP_RPC_INTERNAL_ERROR = -32603,
	KP_RPC_SERVER_NOT_INITIALIZED = -32002,
	KP_RPC_CONTENT_MODIFIED = -32801,
	KP_RPC_REQUEST_FAILED = -32803,
};

#endif
