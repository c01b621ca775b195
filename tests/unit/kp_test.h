/*
 * kp_test.h - what the unit tests share (header only): a fresh temporary
 * directory per test ($TMPDIR/kpipe-test-XXXXXX, made and removed by the
 * Criterion .init/.fini hooks kp_test_tmpdir_make and kp_test_tmpdir_remove),
 * paths in it, writing files and executable scripts (stand-in tools),
 * reading files and the repository's fixtures with an assertion, and
 * whether a tool is installed.  Nothing here uses the code under test
 * except kp_strbuf and kp_read_file (util.c, tested in test_util.c).
 *
 * Criterion runs each test in a process of its own, so the one directory
 * (kp_test_dir) is per test.  Strings returned are the caller's to free.
 * Include it before any system header (it needs _GNU_SOURCE: mkdtemp).
 */
#ifndef KPIPE_KP_TEST_H
#define KPIPE_KP_TEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

#ifndef KPIPE_SOURCE_DIR
#define KPIPE_SOURCE_DIR "."
#endif
/* tests/fixtures/, from the checkout CMake builds */
#define KP_TEST_FIXTURES KPIPE_SOURCE_DIR "/tests/fixtures/"

/* The test's temporary directory; NULL until kp_test_tmpdir_make(). */
static char *kp_test_dir;

static inline void kp_test_tmpdir_make(void)
{
	const char *tmp = getenv("TMPDIR");
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "%s/kpipe-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	kp_test_dir = kp_strbuf_detach(&sb);
	cr_assert_not_null(mkdtemp(kp_test_dir), "cannot create %s", kp_test_dir);
}

static inline void kp_test_tmpdir_remove(void)
{
	if (!kp_test_dir)
		return;
	kp_strbuf cmd = KP_STRBUF_INIT;
	kp_strbuf_addf(&cmd, "rm -rf '%s'", kp_test_dir);
	cr_expect_eq(system(kp_strbuf_str(&cmd)), 0, "cannot remove %s", kp_test_dir);
	kp_strbuf_release(&cmd);
	free(kp_test_dir);
	kp_test_dir = NULL;
}

/* "<kp_test_dir>/name". */
static inline char *kp_test_path(const char *name)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "%s/%s", kp_test_dir, name);
	return kp_strbuf_detach(&sb);
}

static inline void kp_test_write(const char *path, const char *data, size_t len)
{
	FILE *fp = fopen(path, "wb");
	cr_assert_not_null(fp, "cannot create %s", path);
	cr_assert_eq(fwrite(data, 1, len, fp), len, "cannot write %s", path);
	cr_assert_eq(fclose(fp), 0, "cannot write %s", path);
}

/* An executable file (a stand-in for a tool). */
static inline void kp_test_write_script(const char *path, const char *body)
{
	kp_test_write(path, body, strlen(body));
	cr_assert_eq(chmod(path, 0755), 0, "cannot chmod %s", path);
}

/* The whole file (len may be NULL). */
static inline char *kp_test_read(const char *path, size_t *len)
{
	char *s = NULL;
	cr_assert_eq(kp_read_file(path, &s, len), 0, "cannot read %s", path);
	return s;
}

/* A fixture: tests/fixtures/<sub>/<name>. */
static inline char *kp_test_fixture(const char *sub, const char *name)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "%s%s/%s", KP_TEST_FIXTURES, sub, name);
	char *text = kp_test_read(kp_strbuf_str(&sb), NULL);
	kp_strbuf_release(&sb);
	return text;
}

/* Whether `name` is a command the shell finds. */
static inline int kp_test_have_tool(const char *name)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "command -v '%s' >/dev/null 2>&1", name);
	return system(cmd) == 0;
}

#endif
