/*
 * test_lsp.c - the language server's pieces that need no server: URIs
 * (file:// with escapes, other schemes refused), protocol positions in
 * UTF-16 code units and back over multi-byte text, didChange splices, the
 * JSON-RPC framing (a message written reads back; a header without
 * Content-Length, a short body), and the variant read from a
 * kpipe-pipelined note.
 */
#include "jsonrpc.h"
#include "lsp_analyze.h"
#include "lsp_text.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Test(lsp, uri_path)
{
	char *p = kp_lsp_uri_path("file:///tmp/a%20b/k%C3%A9.cu");
	cr_assert_str_eq(p, "/tmp/a b/k\xc3\xa9.cu");
	free(p);
	p = kp_lsp_uri_path("file://localhost/x.cu");
	cr_assert_str_eq(p, "/x.cu");
	free(p);
	cr_assert_null(kp_lsp_uri_path("untitled:Untitled-1"));
	cr_assert_null(kp_lsp_uri_path("file://otherhost/x.cu"));
	char *u = kp_lsp_path_uri("/tmp/a b/k\xc3\xa9.cu");
	cr_assert_str_eq(u, "file:///tmp/a%20b/k%C3%A9.cu");
	p = kp_lsp_uri_path(u);
	cr_assert_str_eq(p, "/tmp/a b/k\xc3\xa9.cu");
	free(p);
	free(u);
}

Test(lsp, positions_utf16)
{
	/* "é" is 2 bytes, 1 unit; U+1F600 is 4 bytes, 2 units */
	const char *t = "ab\n\xc3\xa9x\xf0\x9f\x98\x80y\nz";
	size_t n = strlen(t);
	int line, ch;
	size_t y = (size_t)(strchr(t, 'y') - t);
	kp_lsp_position(t, n, y, &line, &ch);
	cr_assert_eq(line, 1);
	cr_assert_eq(ch, 4);
	cr_assert_eq(kp_lsp_offset(t, n, 1, 4), y);
	cr_assert_eq(kp_lsp_offset(t, n, 1, 1), 5);      /* after é */
	cr_assert_eq(kp_lsp_offset(t, n, 1, 99), y + 1); /* clamped to the line's end */
	cr_assert_eq(kp_lsp_offset(t, n, 9, 0), n);      /* past the text */
	kp_lsp_position(t, n, n + 5, &line, &ch);
	cr_assert_eq(line, 2);
	cr_assert_eq(ch, 1);
}

Test(lsp, splice)
{
	char *t = kp_xstrdup("hello world");
	size_t n = strlen(t);
	kp_lsp_splice(&t, &n, 6, 11, "there", 5);
	cr_assert_str_eq(t, "hello there");
	kp_lsp_splice(&t, &n, 0, 0, "// ", 3);
	cr_assert_str_eq(t, "// hello there");
	kp_lsp_splice(&t, &n, 9, 3, "", 0); /* end before start: nothing removed */
	cr_assert_str_eq(t, "// hello there");
	cr_assert_eq(n, strlen(t));
	free(t);
}

static FILE *stream(const char *s)
{
	FILE *f = tmpfile();
	fputs(s, f);
	rewind(f);
	return f;
}

Test(lsp, framing)
{
	FILE *f = tmpfile();
	cJSON *m = kp_rpc_request(3, "workspace/applyEdit", cJSON_CreateObject());
	cr_assert_eq(kp_rpc_write(f, m), 0);
	cJSON_Delete(m);
	rewind(f);
	char *body;
	size_t len;
	const char *err;
	cr_assert_eq(kp_rpc_read(f, &body, &len, &err), KP_RPC_OK);
	cJSON *j = cJSON_Parse(body);
	cr_assert_str_eq(cJSON_GetObjectItem(j, "method")->valuestring, "workspace/applyEdit");
	cr_assert_eq(cJSON_GetObjectItem(j, "id")->valueint, 3);
	cJSON_Delete(j);
	free(body);
	cr_assert_eq(kp_rpc_read(f, &body, &len, &err), KP_RPC_EOF);
	fclose(f);

	f = stream("content-length: 2\r\nContent-Type: x\r\n\r\n{}");
	cr_assert_eq(kp_rpc_read(f, &body, &len, &err), KP_RPC_OK);
	cr_assert_eq(len, 2);
	free(body);
	fclose(f);
	f = stream("Content-Type: x\r\n\r\n{}");
	cr_assert_eq(kp_rpc_read(f, &body, &len, &err), KP_RPC_BAD);
	cr_assert(strstr(err, "without Content-Length"));
	fclose(f);
	f = stream("Content-Length: 10\r\n\r\n{}");
	cr_assert_eq(kp_rpc_read(f, &body, &len, &err), KP_RPC_BAD);
	cr_assert(strstr(err, "inside a message body"));
	fclose(f);
}

Test(lsp, note_choice)
{
	kp_lsp_choice c;
	cr_assert(kp_lsp_note_choice("pipelined with cp-async (3 stages): fits", &c));
	cr_assert_str_eq(c.xform->name, "cp-async");
	cr_assert_eq(c.stages, 3);
	cr_assert_not(kp_lsp_note_choice("pipelined with nosuch (2 stages): x", &c));
	cr_assert_not(kp_lsp_note_choice("something else", &c));
}
