/*
 * test_util.c - the shared helpers (string buffer, arena, file reading,
 * temporary directories, atomic writes, running tools: proc.c) and the
 * CUDA toolkit finder, which must pass
 * whether or not this machine has nvcc; and the small entries of the
 * cache folder (pch.h: the probe's reports, the guard's verdicts).
 */
#include "kp_test.h"

#include "cuda_env.h"
#include "pch.h"
#include "proc.h"
#include "util.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

/* --- strbuf ------------------------------------------------------------- */

Test(strbuf, empty_is_never_null)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	cr_expect_str_eq(kp_strbuf_str(&sb), "");
	char *s = kp_strbuf_detach(&sb);
	cr_expect_str_eq(s, "");
	free(s);
	kp_strbuf_release(&sb);
}

Test(strbuf, add_and_format)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_adds(&sb, "sm_");
	kp_strbuf_addf(&sb, "%d", 90);
	kp_strbuf_addc(&sb, ':');
	kp_strbuf_add(&sb, "abcdef", 3);
	cr_expect_str_eq(kp_strbuf_str(&sb), "sm_90:abc");
	cr_expect_eq(sb.len, 9);
	kp_strbuf_release(&sb);
	cr_expect_null(sb.buf);
	cr_expect_eq(sb.len, 0);
}

Test(strbuf, grows_past_many_chunks)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	for (int i = 0; i < 10000; i++)
		kp_strbuf_addf(&sb, "%04d", i % 10000);
	cr_expect_eq(sb.len, 40000);
	cr_expect_eq(strncmp(sb.buf + 4 * 1234, "1234", 4), 0);
	cr_expect_eq(sb.buf[sb.len], '\0');
	char *s = kp_strbuf_detach(&sb);
	cr_expect_null(sb.buf);
	cr_expect_eq(strlen(s), 40000);
	free(s);
}

Test(strbuf, embedded_nul_is_kept)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_add(&sb, "a\0b", 3);
	cr_expect_eq(sb.len, 3);
	cr_expect_eq(memcmp(sb.buf, "a\0b", 4), 0);
	kp_strbuf_release(&sb);
}

/* --- arena -------------------------------------------------------------- */

Test(arena, zeroed_aligned_and_released)
{
	kp_arena a = {0};
	unsigned char *p = kp_arena_alloc(&a, 100);
	for (int i = 0; i < 100; i++)
		cr_assert_eq(p[i], 0);
	memset(p, 0xff, 100);
	unsigned char *q = kp_arena_alloc(&a, 1);
	cr_expect_eq(((uintptr_t)q) % 16, 0);
	cr_expect_eq(*q, 0);
	cr_expect(q >= p + 100 || q + 1 <= p, "allocations overlap");
	kp_arena_release(&a);
	cr_expect_null(a.head);
}

Test(arena, large_and_many_allocations)
{
	kp_arena a = {0};
	char *big = kp_arena_alloc(&a, 1 << 20); /* larger than one chunk */
	big[(1 << 20) - 1] = 'x';
	char *prev = NULL;
	for (int i = 0; i < 20000; i++) {
		char *s = kp_arena_printf(&a, "n%d", i);
		cr_assert_neq(s, prev);
		prev = s;
	}
	cr_expect_str_eq(prev, "n19999");
	kp_arena_release(&a);
}

Test(arena, strings)
{
	kp_arena a = {0};
	cr_expect_str_eq(kp_arena_strdup(&a, "kernel"), "kernel");
	cr_expect_str_eq(kp_arena_strndup(&a, "kernel", 3), "ker");
	cr_expect_str_eq(kp_arena_printf(&a, "%s_%d", "sm", 80), "sm_80");
	kp_arena_release(&a);
	kp_arena_release(&a); /* twice is harmless */
}

/* --- files -------------------------------------------------------------- */

Test(files, read_missing_and_directory, .init = kp_test_tmpdir_make, .fini = kp_test_tmpdir_remove)
{
	char *out = NULL;
	char *missing = kp_test_path("missing.cu");
	cr_expect_eq(kp_read_file(missing, &out, NULL), -ENOENT);
	cr_expect_eq(kp_read_file(kp_test_dir, &out, NULL), -EISDIR);
	cr_expect_null(out);
	free(missing);
}

Test(files, atomic_write_then_read, .init = kp_test_tmpdir_make, .fini = kp_test_tmpdir_remove)
{
	char *path = kp_test_path("out.cu");
	const char data[] = "__global__ void k(void) {}\n";
	cr_assert_eq(kp_write_file_atomic(path, data, strlen(data)), 0);
	char *back = NULL;
	size_t len = 0;
	cr_assert_eq(kp_read_file(path, &back, &len), 0);
	cr_expect_eq(len, strlen(data));
	cr_expect_str_eq(back, data);
	free(back);

	/* a new file gets 0666 less the umask */
	mode_t um = umask(0);
	umask(um);
	struct stat st;
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0666 & ~um);
	free(path);
}

Test(files, atomic_write_keeps_mode, .init = kp_test_tmpdir_make, .fini = kp_test_tmpdir_remove)
{
	char *path = kp_test_path("script.cu");
	cr_assert_eq(kp_write_file_atomic(path, "old\n", 4), 0);
	cr_assert_eq(chmod(path, 0751), 0);
	cr_assert_eq(kp_write_file_atomic(path, "new contents\n", 13), 0);
	struct stat st;
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0751, "mode is %o", (unsigned)(st.st_mode & 07777));
	char *back = NULL;
	cr_assert_eq(kp_read_file(path, &back, NULL), 0);
	cr_expect_str_eq(back, "new contents\n");
	free(back);
	free(path);
}

Test(files, atomic_write_leaves_no_temporaries, .init = kp_test_tmpdir_make,
     .fini = kp_test_tmpdir_remove)
{
	char *path = kp_test_path("a.cu");
	for (int i = 0; i < 5; i++)
		cr_assert_eq(kp_write_file_atomic(path, "x", 1), 0);
	char cmd[160];
	snprintf(cmd, sizeof(cmd), "test \"$(ls -A '%s')\" = a.cu", kp_test_dir);
	cr_expect_eq(system(cmd), 0, "temporary files left in %s", kp_test_dir);
	free(path);
}

Test(files, atomic_write_into_missing_directory_fails, .init = kp_test_tmpdir_make,
     .fini = kp_test_tmpdir_remove)
{
	char *path = kp_test_path("no/such/dir/a.cu");
	cr_expect_lt(kp_write_file_atomic(path, "x", 1), 0);
	free(path);
}

Test(files, atomic_write_like_takes_the_mode_of_another_file, .init = kp_test_tmpdir_make,
     .fini = kp_test_tmpdir_remove)
{
	char *orig = kp_test_path("k.cu"), *bak = kp_test_path("k.cu.orig");
	cr_assert_eq(kp_write_file_atomic(orig, "src\n", 4), 0);
	cr_assert_eq(chmod(orig, 0640), 0);
	cr_assert_eq(kp_write_file_atomic_like(bak, "src\n", 4, orig), 0);
	struct stat st;
	cr_assert_eq(stat(bak, &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0640, "mode is %o", (unsigned)(st.st_mode & 07777));
	free(orig);
	free(bak);
}

Test(files, atomic_write_through_a_symlink, .init = kp_test_tmpdir_make,
     .fini = kp_test_tmpdir_remove)
{
	char *target = kp_test_path("real.cu"), *link = kp_test_path("link.cu");
	cr_assert_eq(kp_write_file_atomic(target, "old\n", 4), 0);
	cr_assert_eq(symlink("real.cu", link), 0);
	cr_assert_eq(kp_write_file_atomic(link, "new\n", 4), 0);
	struct stat st;
	cr_assert_eq(lstat(link, &st), 0);
	cr_expect(S_ISLNK(st.st_mode), "the link was replaced by a file");
	char *back = NULL;
	cr_assert_eq(kp_read_file(target, &back, NULL), 0);
	cr_expect_str_eq(back, "new\n");
	free(back);
	free(target);
	free(link);
}

/* A file-size limit makes the write fail with EFBIG (SIGXFSZ is ignored
 * while writing) and leaves the destination and the directory as they were.
 * Criterion runs each test in its own process: the limit stays there. */
Test(files, atomic_write_over_the_size_limit_fails_cleanly, .init = kp_test_tmpdir_make,
     .fini = kp_test_tmpdir_remove)
{
	char *path = kp_test_path("a.cu");
	cr_assert_eq(kp_write_file_atomic(path, "old\n", 4), 0);
	struct rlimit rl = {1024, 1024};
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
	static char big[4096];
	memset(big, 'x', sizeof(big));
	cr_expect_eq(kp_write_file_atomic(path, big, sizeof(big)), -EFBIG);
	char *back = NULL;
	cr_assert_eq(kp_read_file(path, &back, NULL), 0);
	cr_expect_str_eq(back, "old\n");
	free(back);
	char cmd[160];
	snprintf(cmd, sizeof(cmd), "test \"$(ls -A '%s')\" = a.cu", kp_test_dir);
	cr_expect_eq(system(cmd), 0, "temporary files left in %s", kp_test_dir);
	free(path);
}

/* --- run_capture -------------------------------------------------------- */

Test(run_capture, stdout_and_status)
{
	char *argv[] = {"echo", "hello", NULL};
	char *out = NULL;
	cr_expect_eq(kp_run_capture(argv, &out), 0);
	cr_expect_str_eq(out, "hello\n");
	free(out);
}

Test(run_capture, stderr_is_captured_and_status_returned)
{
	char *argv[] = {"sh", "-c", "echo to-err >&2; exit 3", NULL};
	char *out = NULL;
	cr_expect_eq(kp_run_capture(argv, &out), 3);
	cr_expect_str_eq(out, "to-err\n");
	free(out);
}

Test(run_capture, missing_program)
{
	char *argv[] = {"kpipe-no-such-program-xyz", NULL};
	char *out = NULL;
	cr_expect_eq(kp_run_capture(argv, &out), -1);
	free(out);
}

Test(run_capture, large_output)
{
	char *argv[] = {"sh", "-c", "i=0; while [ $i -lt 20000 ]; do echo line$i; i=$((i+1)); done",
			NULL};
	char *out = NULL;
	cr_expect_eq(kp_run_capture(argv, &out), 0);
	cr_assert_not_null(out);
	cr_expect_not_null(strstr(out, "line19999\n"));
	free(out);
}

/* --- proc --------------------------------------------------------------- */

Test(proc, files_status_and_stdin, .init = kp_test_tmpdir_make, .fini = kp_test_tmpdir_remove)
{
	char *out = kp_test_path("out"), *err = kp_test_path("err");
	char *argv[] = {"sh", "-c", "echo o; echo e >&2; cat; exit 5", NULL};
	kp_proc p;
	kp_proc_opts o = {.out_path = out, .err_path = err, .stdin_null = 1};
	cr_assert_eq(kp_proc_run(&p, argv, &o), 0);
	cr_expect_eq(p.status, 5);
	cr_expect_eq(p.signal, 0);
	cr_expect_not(p.timed_out);
	cr_expect_null(p.output);
	char *text = NULL;
	cr_assert_eq(kp_read_file(out, &text, NULL), 0);
	cr_expect_str_eq(text, "o\n");
	free(text);
	cr_assert_eq(kp_read_file(err, &text, NULL), 0);
	cr_expect_str_eq(text, "e\n");
	free(text);
	free(out);
	free(err);
}

Test(proc, a_missing_program_exits_127_and_says_so)
{
	char *argv[] = {"kpipe-no-such-program-xyz", NULL};
	kp_proc p;
	cr_assert_eq(kp_proc_run(&p, argv, NULL), 0);
	cr_expect_eq(p.status, 127);
	cr_assert_not_null(p.output);
	cr_expect(strstr(p.output, "cannot run kpipe-no-such-program-xyz"), "%s", p.output);
	free(p.output);
}

Test(proc, a_signal_is_128_plus_it)
{
	char *argv[] = {"sh", "-c", "kill -TERM $$", NULL};
	kp_proc p;
	cr_assert_eq(kp_proc_run(&p, argv, NULL), 0);
	cr_expect_eq(p.status, 128 + 15);
	cr_expect_eq(p.signal, 15);
	free(p.output);
}

/* The time limit kills the program and what it started (a sleeping child
 * that would keep the pipe open). */
Test(proc, time_limit_kills_the_group)
{
	char *argv[] = {"sh", "-c", "echo started; sleep 30 & sleep 30", NULL};
	kp_proc p;
	kp_proc_opts o = {.timeout_s = 1};
	cr_assert_eq(kp_proc_run(&p, argv, &o), 0);
	cr_expect(p.timed_out);
	cr_expect_eq(p.status, 128 + 9);
	cr_expect_lt(p.seconds, 10);
	cr_expect_str_eq(p.output, "started\n");
	free(p.output);
}

Test(proc, side_by_side)
{
	char *a[] = {"sh", "-c", "sleep 1; echo a", NULL};
	char *b[] = {"sh", "-c", "echo b; exit 2", NULL};
	kp_proc p[2];
	cr_assert_eq(kp_proc_start(&p[0], a, NULL), 0);
	cr_assert_eq(kp_proc_start(&p[1], b, NULL), 0);
	kp_proc_wait(p, 2);
	cr_expect_eq(p[0].status, 0);
	cr_expect_str_eq(p[0].output, "a\n");
	cr_expect_eq(p[1].status, 2);
	cr_expect_str_eq(p[1].output, "b\n");
	cr_expect_lt(p[1].seconds, p[0].seconds);
	free(p[0].output);
	free(p[1].output);
}

Test(proc, find_on_path)
{
	char *sh = kp_find_on_path("sh");
	cr_assert_not_null(sh);
	cr_expect(kp_is_executable(sh));
	free(sh);
	cr_expect_null(kp_find_on_path("kpipe-no-such-program-xyz"));
	cr_expect_not(kp_is_executable("/"));
	cr_expect_not(kp_is_executable(NULL));
}

/* --- temporary directories ---------------------------------------------- */

Test(tempdir, made_under_tmpdir_and_removed_with_its_contents, .init = kp_test_tmpdir_make,
     .fini = kp_test_tmpdir_remove)
{
	setenv("TMPDIR", kp_test_dir, 1);
	cr_expect_str_eq(kp_tempdir_base(), kp_test_dir);
	char *d = kp_tempdir("unit");
	cr_assert_not_null(d);
	char prefix[128];
	snprintf(prefix, sizeof(prefix), "%s/kpipe-unit-", kp_test_dir);
	cr_expect_eq(strncmp(d, prefix, strlen(prefix)), 0, "%s", d);
	char cmd[512];
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p '%s/a/b' && echo x > '%s/a/b/f' && echo y > '%s/g' && "
		 "ln -s '%s' '%s/link'",
		 d, d, d, kp_test_dir, d);
	cr_assert_eq(system(cmd), 0);
	cr_expect_eq(kp_remove_tree(d), 0);
	struct stat st;
	cr_expect_neq(lstat(d, &st), 0, "%s is still there", d);
	/* the link's target, kp_test_dir, is not followed */
	cr_expect_eq(stat(kp_test_dir, &st), 0);
	cr_expect_lt(kp_remove_tree(d), 0);
	free(d);
	setenv("TMPDIR", "", 1);
	cr_expect_str_eq(kp_tempdir_base(), "/tmp");
	unsetenv("TMPDIR");
	cr_expect_str_eq(kp_tempdir_base(), "/tmp");
}

/* --- the cache's entries (pch.h) ----------------------------------------- */

static int count_files(const char *dir)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "find '%s' -type f | wc -l", dir);
	FILE *p = popen(cmd, "r");
	int n = -1;
	if (p) {
		if (fscanf(p, "%d", &n) != 1)
			n = -1;
		pclose(p);
	}
	return n;
}

/* an entry of dir named name, written by kp_cache_put (suffix "", at most
 * 4), then dated `when` */
static void put_dated(const char *dir, const char *name, time_t when)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	cr_assert_eq(kp_cache_put(path, "", 0, "", 4), 0, "%s", path);
	struct utimbuf t = {when, when};
	cr_assert_eq(utime(path, &t), 0);
}

Test(cache, subdir_put_and_trim, .init = kp_test_tmpdir_make, .fini = kp_test_tmpdir_remove)
{
	setenv("KPIPE_CACHE_DIR", "off", 1);
	cr_expect_null(kp_cache_subdir("guard"));
	char *base = kp_test_path("c");
	setenv("KPIPE_CACHE_DIR", base, 1);
	char *dir = kp_cache_subdir("guard"); /* the cache and the folder made */
	cr_assert_not_null(dir);
	struct stat st;
	cr_expect(stat(dir, &st) == 0 && S_ISDIR(st.st_mode));
	/* names that do not begin with 0: no trim, whatever the count */
	for (int i = 1; i <= 9; i++) {
		char name[32];
		snprintf(name, sizeof(name), "a%015x", i);
		put_dated(dir, name, 1000000 + i);
	}
	put_dated(dir, ".kpipe-tmp-old", 1000000); /* not an entry */
	put_dated(dir, "b.log", 1000000);          /* counted: suffix "" */
	cr_expect_eq(count_files(dir), 11);
	/* a name that begins with 0: past 4 entries (11: the temporary file
	 * is none), those older than the median (a..5) go: b.log, a..1 to
	 * a..4 */
	char path[600];
	snprintf(path, sizeof(path), "%s/0%015x", dir, 7);
	cr_assert_eq(kp_cache_put(path, "", 0, "", 4), 0);
	cr_expect_eq(count_files(dir), 7, "%d files", count_files(dir));
	snprintf(path, sizeof(path), "%s/a%015x", dir, 4);
	cr_expect_neq(stat(path, &st), 0, "%s kept", path);
	snprintf(path, sizeof(path), "%s/a%015x", dir, 5);
	cr_expect_eq(stat(path, &st), 0, "%s removed", path);
	snprintf(path, sizeof(path), "%s/.kpipe-tmp-old", dir);
	cr_expect_eq(stat(path, &st), 0, "the temporary file removed");
	/* with a suffix only those names count: 6 .log files are not past 6;
	 * past 5, those older than the median (c..4) go: c..1 to c..3 */
	for (int i = 1; i <= 5; i++) {
		char name[32];
		snprintf(name, sizeof(name), "c%015x.log", i);
		put_dated(dir, name, 2000000 + i);
	}
	snprintf(path, sizeof(path), "%s/0%015x.log", dir, 8);
	cr_assert_eq(kp_cache_put(path, "x", 1, ".log", 6), 0);
	cr_expect_eq(count_files(dir), 13, "%d files", count_files(dir));
	cr_assert_eq(kp_cache_put(path, "x", 1, ".log", 5), 0);
	cr_expect_eq(count_files(dir), 10, "%d files", count_files(dir));
	snprintf(path, sizeof(path), "%s/c%015x.log", dir, 3);
	cr_expect_neq(stat(path, &st), 0, "%s kept", path);
	free(dir);
	free(base);
	unsetenv("KPIPE_CACHE_DIR");
}

/* --- identifiers -------------------------------------------------------- */

Test(ident, characters_and_words)
{
	cr_expect(kp_is_ident_char('a'));
	cr_expect(kp_is_ident_char('Z'));
	cr_expect(kp_is_ident_char('7'));
	cr_expect(kp_is_ident_char('_'));
	/* the bit trick (c | 32) >= 'a' took these for letters */
	cr_expect_not(kp_is_ident_char('['));
	cr_expect_not(kp_is_ident_char('{'));
	cr_expect_not(kp_is_ident_char('~'));
	cr_expect_not(kp_is_ident_char('\0'));
	cr_expect_not(kp_is_ident_char((char)0xc3));
	cr_expect(kp_is_ident("TILE_32"));
	cr_expect(kp_is_ident("_x"));
	cr_expect_not(kp_is_ident("32x"));
	cr_expect_not(kp_is_ident(""));
	cr_expect_not(kp_is_ident(NULL));
	cr_expect_not(kp_is_ident("a-b"));
	const char *s = "x1const + const_k + (const)";
	cr_expect_not(kp_mentions_ident(s, 0, 16, "const"));
	cr_expect(kp_mentions_ident(s, 0, strlen(s), "const"));
}

/* --- cuda_env ----------------------------------------------------------- */

Test(cuda_env, parse_nvcc_version)
{
	int major = 0, minor = 0;
	const char *v13 = "nvcc: NVIDIA (R) Cuda compiler driver\n"
			  "Cuda compilation tools, release 13.0, V13.0.88\n"
			  "Build cuda_13.0.r13.0/compiler.36424714_0\n";
	cr_expect_eq(kp_cuda_parse_nvcc_version(v13, &major, &minor), 0);
	cr_expect_eq(major, 13);
	cr_expect_eq(minor, 0);
	cr_expect_eq(kp_cuda_parse_nvcc_version("Cuda compilation tools, release 12.4, V12.4.131",
						&major, &minor),
		     0);
	cr_expect_eq(major, 12);
	cr_expect_eq(minor, 4);
	cr_expect_eq(kp_cuda_parse_nvcc_version("no version here", &major, &minor), -EINVAL);
	cr_expect_eq(kp_cuda_parse_nvcc_version("release x.y", &major, &minor), -EINVAL);
	cr_expect_eq(kp_cuda_parse_nvcc_version(NULL, &major, &minor), -EINVAL);
}

/* The real machine: passes with or without a toolkit, but when nvcc is
 * there its version must have been read. */
Test(cuda_env, this_machine)
{
	kp_cuda_env env = KP_CUDA_ENV_INIT;
	int rc = kp_cuda_env_find(&env, NULL);
	if (rc == 0) {
		cr_assert_not_null(env.nvcc);
		cr_expect_eq(access(env.nvcc, X_OK), 0);
		cr_expect_not_null(env.root);
		cr_assert_not_null(env.version, "nvcc at %s but no version parsed", env.nvcc);
		cr_expect_geq(env.version_major, 9);
		char want[32];
		snprintf(want, sizeof(want), "%d.%d", env.version_major, env.version_minor);
		cr_expect_str_eq(env.version, want);
		cr_expect_null(env.error);
		cr_log_info("nvcc %s (CUDA %s), include %s, cuobjdump %s, nvdisasm %s", env.nvcc,
			    env.version, env.include_dir ? env.include_dir : "-",
			    env.cuobjdump ? env.cuobjdump : "-", env.nvdisasm ? env.nvdisasm : "-");
	} else {
		cr_expect_eq(rc, -ENOENT);
		cr_expect_null(env.nvcc);
		cr_expect_null(env.version);
		cr_expect_not_null(env.error);
		cr_log_info("no nvcc here: %s", env.error);
	}
	if (env.cuobjdump)
		cr_expect_eq(access(env.cuobjdump, X_OK), 0);
	if (env.nvdisasm)
		cr_expect_eq(access(env.nvdisasm, X_OK), 0);
	kp_cuda_env_release(&env);
	cr_expect_null(env.nvcc);
	kp_cuda_env_release(&env);
}

Test(cuda_env, explicit_cuda_path_is_authoritative, .init = kp_test_tmpdir_make,
     .fini = kp_test_tmpdir_remove)
{
	kp_cuda_env env = KP_CUDA_ENV_INIT;
	cr_expect_eq(kp_cuda_env_find(&env, kp_test_dir), -ENOENT);
	cr_expect_null(env.nvcc);
	cr_assert_not_null(env.error);
	cr_expect_not_null(strstr(env.error, kp_test_dir), "error: %s", env.error);
	kp_cuda_env_release(&env);
}

/* A fake toolkit: $CUDA_HOME wins over $PATH and /usr/local/cuda, the
 * version comes from its nvcc, headers from targets/x86_64-linux/include. */
Test(cuda_env, fake_toolkit_from_cuda_home, .init = kp_test_tmpdir_make,
     .fini = kp_test_tmpdir_remove)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/bin' '%s/targets/x86_64-linux/include'",
		 kp_test_dir, kp_test_dir);
	cr_assert_eq(system(cmd), 0);
	char *nvcc = kp_test_path("bin/nvcc");
	char *objdump = kp_test_path("bin/cuobjdump");
	char *hdr = kp_test_path("targets/x86_64-linux/include/cuda_runtime.h");
	kp_test_write_script(nvcc,
			     "#!/bin/sh\necho 'Cuda compilation tools, release 12.4, V12.4.131'\n");
	kp_test_write_script(objdump, "#!/bin/sh\nexit 0\n");
	kp_test_write_script(hdr, "/* fake */\n");

	cr_assert_eq(setenv("CUDA_HOME", kp_test_dir, 1), 0);
	unsetenv("CUDA_PATH");
	kp_cuda_env env = KP_CUDA_ENV_INIT;
	cr_assert_eq(kp_cuda_env_find(&env, NULL), 0);
	cr_expect_str_eq(env.nvcc, nvcc);
	cr_expect_str_eq(env.root, kp_test_dir);
	cr_expect_str_eq(env.version, "12.4");
	cr_expect_eq(env.version_major, 12);
	cr_expect_eq(env.version_minor, 4);
	cr_expect_str_eq(env.cuobjdump, objdump);
	char *inc = kp_test_path("targets/x86_64-linux/include");
	cr_expect_str_eq(env.include_dir, inc);
	kp_cuda_env_release(&env);

	/* the same root given as --cuda-path */
	unsetenv("CUDA_HOME");
	cr_assert_eq(kp_cuda_env_find(&env, kp_test_dir), 0);
	cr_expect_str_eq(env.nvcc, nvcc);
	cr_expect_str_eq(env.version, "12.4");
	kp_cuda_env_release(&env);
	free(inc);
	free(nvcc);
	free(objdump);
	free(hdr);
}

/* nvcc found on $PATH: the root is the directory above its bin/. */
Test(cuda_env, nvcc_on_path, .init = kp_test_tmpdir_make, .fini = kp_test_tmpdir_remove)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/tk/bin' '%s/tk/include'", kp_test_dir,
		 kp_test_dir);
	cr_assert_eq(system(cmd), 0);
	char *nvcc = kp_test_path("tk/bin/nvcc");
	char *hdr = kp_test_path("tk/include/cuda_runtime.h");
	kp_test_write_script(nvcc,
			     "#!/bin/sh\necho 'Cuda compilation tools, release 11.8, V11.8.89'\n");
	kp_test_write_script(hdr, "/* fake */\n");
	char *bin = kp_test_path("tk/bin");
	kp_strbuf path = KP_STRBUF_INIT;
	kp_strbuf_addf(&path, "%s:/usr/bin:/bin", bin);
	unsetenv("CUDA_HOME");
	unsetenv("CUDA_PATH");
	cr_assert_eq(setenv("PATH", kp_strbuf_str(&path), 1), 0);

	kp_cuda_env env = KP_CUDA_ENV_INIT;
	cr_assert_eq(kp_cuda_env_find(&env, NULL), 0);
	cr_expect_str_eq(env.nvcc, nvcc);
	char *root = kp_test_path("tk");
	char *inc = kp_test_path("tk/include");
	cr_expect_str_eq(env.root, root);
	cr_expect_str_eq(env.include_dir, inc);
	cr_expect_str_eq(env.version, "11.8");
	kp_cuda_env_release(&env);
	kp_strbuf_release(&path);
	free(root);
	free(inc);
	free(bin);
	free(nvcc);
	free(hdr);
}
