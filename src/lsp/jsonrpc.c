/*
 * jsonrpc.c - JSON-RPC 2.0 framing and messages for the language server
 * (jsonrpc.h).
 */
#define _GNU_SOURCE
#include "jsonrpc.h"

#include "util.h"

#include <cjson/cJSON.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One header line without its CR LF; 0, KP_RPC_EOF before any byte. */
static int read_line(FILE *in, kp_strbuf *line)
{
	int c, any = 0;
	while ((c = fgetc(in)) != EOF) {
		any = 1;
		if (c == '\n')
			break;
		kp_strbuf_addc(line, (char)c);
	}
	if (!any)
		return KP_RPC_EOF;
	if (line->len && line->buf[line->len - 1] == '\r')
		line->buf[--line->len] = 0;
	return c == EOF ? KP_RPC_BAD : KP_RPC_OK;
}

int kp_rpc_read(FILE *in, char **body, size_t *len, const char **err)
{
	*body = NULL;
	*len = 0;
	*err = NULL;
	long long n = -1;
	int first = 1;
	for (;;) {
		kp_strbuf line = KP_STRBUF_INIT;
		int rc = read_line(in, &line);
		if (rc != KP_RPC_OK) {
			kp_strbuf_release(&line);
			if (rc == KP_RPC_EOF && first)
				return KP_RPC_EOF;
			*err = "the stream ended inside a message header";
			return KP_RPC_BAD;
		}
		first = 0;
		if (!line.len) {
			kp_strbuf_release(&line);
			break;
		}
		const char *s = kp_strbuf_str(&line);
		if (!strncasecmp(s, "Content-Length:", 15)) {
			char *end;
			n = strtoll(s + 15, &end, 10);
			while (*end == ' ' || *end == '\t')
				end++;
			if (*end || n < 0 || n > (1LL << 30))
				n = -2;
		}
		kp_strbuf_release(&line);
	}
	if (n < 0) {
		*err = n == -1 ? "a message header without Content-Length"
			       : "a Content-Length that is not a length";
		return KP_RPC_BAD;
	}
	char *b = kp_xmalloc((size_t)n + 1);
	if (fread(b, 1, (size_t)n, in) != (size_t)n) {
		free(b);
		*err = "the stream ended inside a message body";
		return KP_RPC_BAD;
	}
	b[n] = 0;
	*body = b;
	*len = (size_t)n;
	return KP_RPC_OK;
}

int kp_rpc_ready(FILE *in, int ms)
{
	struct pollfd p = {.fd = fileno(in), .events = POLLIN};
	return poll(&p, 1, ms) != 0; /* an error: let the read find out */
}

int kp_rpc_write(FILE *out, const cJSON *msg)
{
	char *s = cJSON_PrintUnformatted(msg);
	if (!s)
		return -1;
	size_t n = strlen(s);
	int bad = fprintf(out, "Content-Length: %zu\r\n\r\n", n) < 0 || fwrite(s, 1, n, out) != n ||
		  fflush(out) != 0;
	free(s);
	return bad ? -1 : 0;
}

static cJSON *message(void)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	return m;
}

cJSON *kp_rpc_response(cJSON *id, cJSON *result)
{
	cJSON *m = message();
	cJSON_AddItemToObject(m, "id", id ? id : cJSON_CreateNull());
	cJSON_AddItemToObject(m, "result", result ? result : cJSON_CreateNull());
	return m;
}

cJSON *kp_rpc_error(cJSON *id, int code, const char *text)
{
	cJSON *m = message();
	cJSON_AddItemToObject(m, "id", id ? id : cJSON_CreateNull());
	cJSON *e = cJSON_AddObjectToObject(m, "error");
	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", text);
	return m;
}

cJSON *kp_rpc_notification(const char *method, cJSON *params)
{
	cJSON *m = message();
	cJSON_AddStringToObject(m, "method", method);
	if (params)
		cJSON_AddItemToObject(m, "params", params);
	return m;
}

cJSON *kp_rpc_request(int id, const char *method, cJSON *params)
{
	cJSON *m = message();
	cJSON_AddNumberToObject(m, "id", id);
	cJSON_AddStringToObject(m, "method", method);
	if (params)
		cJSON_AddItemToObject(m, "params", params);
	return m;
}
