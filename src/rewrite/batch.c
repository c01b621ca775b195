/*
 * batch.c - `kpipe rewrite` over directories, several files or a
 * compilation database: the file list (walk, --exclude, sort, --shard),
 * each file's flags and target from the database (-p; with -v, a line per
 * file saying what was kept and dropped), one child process per file (-j
 * at a time; a precompiled header per set of flags and target), the
 * outputs (--out-dir, -i, --diff, --dry-run), and what is printed at the
 * end (the summary, JSON, SARIF, the clang-tidy fixes); the project
 * headers rewritten through the files, each owned by the first file that
 * reaches it.  kp_rw_write(), the outputs of one file, which single-file
 * runs share, is batch_write.c's.
 *
 * It does not parse or rewrite anything itself: each child calls
 * kp_rewrite_buffer() (rewrite.c) and sends its kp_rw_result back as one
 * JSON record through a pipe.  A child that crashes or runs past
 * --timeout becomes an error for its file only.  A closed stdout (SIGPIPE
 * is ignored) stops the batch after cleaning up; a signal says how many
 * files were done (kp_guard_set_note).
 */
#define _GNU_SOURCE
#include "batch.h"
#include "batch_incl.h"
#include "batch_int.h"

#include "batch_print.h"
#include "compdb.h"
#include "fixes.h"
#include "out_tree.h"
#include "progress.h"
#include "safe_write.h"
#include "sarif.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- the database's target and flags ------------------------------- */

int kp_db_targets(const kp_flags *db, kp_targets *t)
{
	int unknown = 0;
	t->n = 0;
	for (int i = 0; i < db->narchs; i++) {
		const char *a = db->archs[i];
		const kp_arch *e = kp_arch_find(!strncmp(a, "lto_", 4) ? a + 4 : a);
		if (!e || kp_targets_add(t, e))
			unknown++;
	}
	return unknown;
}

int kp_db_target(const kp_arch *dflt, const char *dflt_name, int given, const char *file,
		 const kp_flags *db, const kp_arch **arch, const char **name)
{
	*arch = dflt;
	*name = dflt_name;
	if (given || !db->arch)
		return 0;
	const kp_arch *a = kp_arch_find(db->arch);
	kp_targets t;
	if (!a && (kp_db_targets(db, &t), t.n)) /* the oldest kpipe knows */
		a = t.v[0];
	if (!a) {
		fprintf(stderr,
			"kpipe: warning: %s: target %s of compile_commands.json is not in kpipe's "
			"table; analysing for %s\n",
			file, db->arch, dflt->name);
		return 0;
	}
	*arch = a;
	*name = a == kp_arch_find(db->arch) ? db->arch : a->name;
	return 1;
}

void kp_db_print_flags(const kp_arch *dflt, const char *dflt_name, int given, const char *file,
		       const char *db_json, const kp_flags *db)
{
	char *k = kp_flags_join(db->keep, db->nkeep);
	char *d = kp_flags_join(db->dropped, db->ndropped);
	fprintf(stderr, "kpipe: flags for %s from %s: %s; dropped: %s", file, db_json, k, d);
	if (db->narchs) {
		char *a = kp_flags_join(db->archs, db->narchs);
		const char *t = given                                ? dflt_name
				: db->arch && kp_arch_find(db->arch) ? db->arch
								     : dflt->name;
		fprintf(stderr, "; targets: %s (target %s%s)", a, t,
			given ? ", given on the command line" : "");
		free(a);
	}
	fputc('\n', stderr);
	free(k);
	free(d);
}

/* ---- the summary ---------------------------------------------------- */

typedef struct {
	int files, kernels, loops, pipelined, refused, left_alone, remarks, errors;
	int files_pipelined, files_unchanged, files_refused;
	kp_counts by_variant, by_reason;
} totals;

static void add_totals(totals *t, const kp_rw_result *r)
{
	t->files++;
	t->kernels += r->kernels;
	t->loops += r->loops;
	t->pipelined += r->pipelined;
	t->refused += r->refused;
	t->left_alone += r->left_alone;
	t->remarks += kp_batch_hidden_remarks(r);
	if (r->status == KP_EXIT_OK)
		t->files_pipelined++;
	else if (r->status == KP_EXIT_NOTHING && r->refused)
		t->files_refused++;
	else if (r->status == KP_EXIT_NOTHING)
		t->files_unchanged++;
	else
		t->errors++;
	for (int i = 0; i < r->by_variant.n; i++)
		kp_counts_add(&t->by_variant, r->by_variant.v[i].name, r->by_variant.v[i].n);
	for (int i = 0; i < r->by_reason.n; i++)
		kp_counts_add(&t->by_reason, r->by_reason.v[i].name, r->by_reason.v[i].n);
}

static void totals_release(totals *t)
{
	kp_counts_release(&t->by_variant);
	kp_counts_release(&t->by_reason);
}

static int cmp_count(const void *a, const void *b)
{
	const kp_count *x = a, *y = b;
	if (x->n != y->n)
		return y->n - x->n;
	return strcmp(x->name, y->name);
}

static void print_counts(FILE *fp, kp_counts *c)
{
	if (c->n > 1)
		qsort(c->v, (size_t)c->n, sizeof(*c->v), cmp_count);
	for (int i = 0; i < c->n; i++)
		fprintf(fp, "%s%s %d", i ? ", " : " (", c->v[i].name, c->v[i].n);
	if (c->n)
		fputc(')', fp);
}

char *kp_batch_report_json(const kp_rw_result *const *r, int n, double seconds, int jobs)
{
	totals t = {0};
	cJSON *o = cJSON_CreateObject();
	cJSON *fs = cJSON_AddArrayToObject(o, "files");
	for (int i = 0; i < n; i++) {
		cJSON_AddItemToArray(fs, kp_rw_result_to_json(r[i], 0));
		add_totals(&t, r[i]);
	}
	cJSON *s = cJSON_AddObjectToObject(o, "summary");
	cJSON_AddNumberToObject(s, "files", t.files);
	cJSON_AddNumberToObject(s, "files_pipelined", t.files_pipelined);
	cJSON_AddNumberToObject(s, "files_unchanged", t.files_unchanged);
	cJSON_AddNumberToObject(s, "files_refused", t.files_refused);
	cJSON_AddNumberToObject(s, "errors", t.errors);
	cJSON_AddNumberToObject(s, "kernels", t.kernels);
	cJSON_AddNumberToObject(s, "loops", t.loops);
	cJSON_AddNumberToObject(s, "pipelined", t.pipelined);
	cJSON_AddItemToObject(s, "pipelined_by_variant", kp_counts_json(&t.by_variant));
	cJSON_AddNumberToObject(s, "refused", t.refused);
	cJSON_AddItemToObject(s, "refused_by_reason", kp_counts_json(&t.by_reason));
	if (jobs > 0) {
		cJSON_AddNumberToObject(s, "jobs", jobs);
		cJSON_AddNumberToObject(s, "seconds", (double)(long)(seconds * 1000 + 0.5) / 1000);
	}
	totals_release(&t);
	char *txt = cJSON_Print(o);
	cJSON_Delete(o);
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_adds(&sb, txt);
	kp_strbuf_addc(&sb, '\n');
	cJSON_free(txt);
	return kp_strbuf_detach(&sb);
}

static void print_summary(FILE *fp, const kp_rw_result *const *r, int n, double seconds, int jobs,
			  int dry_run, int verbose)
{
	totals t = {0};
	for (int i = 0; i < n; i++)
		add_totals(&t, r[i]);
	fprintf(fp,
		"kpipe rewrite: %d file%s: %d %s, %d unchanged, %d refused, %d failed; "
		"%d kernel%s, %d loop%s\n",
		t.files, t.files == 1 ? "" : "s", t.files_pipelined,
		dry_run ? "would change" : "rewritten", t.files_unchanged, t.files_refused,
		t.errors, t.kernels, t.kernels == 1 ? "" : "s", t.loops, t.loops == 1 ? "" : "s");
	fprintf(fp, "  %s: %d", dry_run ? "would pipeline" : "pipelined", t.pipelined);
	print_counts(fp, &t.by_variant);
	fprintf(fp, "\n  refused:   %d", t.refused);
	print_counts(fp, &t.by_reason);
	if (t.left_alone)
		fprintf(fp, "\n  of which %d loop%s not K-loops or pipelined already (remarks)",
			t.left_alone, t.left_alone == 1 ? " is" : "s are");
	fprintf(fp, "\n  errors:    %d file%s\n", t.errors, t.errors == 1 ? "" : "s");
	if (t.remarks && !verbose)
		fprintf(fp, "  %d remark%s not shown: -v shows them\n", t.remarks,
			t.remarks == 1 ? "" : "s");
	fprintf(fp,
		"  %.2f s with -j %d (%.1f files/s); ids are explained in docs/diagnostics.md\n",
		seconds, jobs, seconds > 0 ? n / seconds : 0.0);
	totals_release(&t);
}

/* ---- the file list -------------------------------------------------- */

typedef struct {
	char *path;  /* as printed */
	char *abs;   /* realpath */
	char **args; /* flags from compile_commands.json (borrowed) */
	int nargs;
	const kp_arch *arch;   /* the target: --arch, the database's, or the default */
	const char *arch_name; /* borrowed */
	int group;             /* precompiled-header group, -1 none */
	kp_targets targets;    /* every target of the build (rw_opts.h), or none */
} bfile;

typedef struct {
	bfile *v;
	int n;
} bfiles;

static void bfiles_add(bfiles *l, const char *path, const char *abs)
{
	l->v = kp_xrealloc(l->v, sizeof(*l->v) * (size_t)(l->n + 1));
	l->v[l->n] = (bfile){kp_xstrdup(path), kp_xstrdup(abs), NULL, 0, NULL, NULL, -1, {{0}, 0}};
	l->n++;
}

static int has_suffix(const char *p, const char *suf)
{
	size_t n = strlen(p), k = strlen(suf);
	return n >= k && !strcmp(p + n - k, suf);
}

static int is_cuda_name(const char *p)
{
	const char *dot = strrchr(p, '.');
	return dot && (!strcmp(dot, ".cu") || !strcmp(dot, ".cuh"));
}

static int excluded(const kp_batch_opts *o, const char *rel, const char *shown)
{
	const char *base = strrchr(shown, '/');
	base = base ? base + 1 : shown;
	for (int i = 0; i < o->nexcludes; i++)
		if (!fnmatch(o->excludes[i], rel, 0) || !fnmatch(o->excludes[i], shown, 0) ||
		    !fnmatch(o->excludes[i], base, 0))
			return 1;
	return 0;
}

char *kp_batch_join(const char *a, const char *b)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	if (!strcmp(a, "."))
		kp_strbuf_adds(&sb, b);
	else if (a[0] && a[strlen(a) - 1] == '/')
		kp_strbuf_addf(&sb, "%s%s", a, b);
	else
		kp_strbuf_addf(&sb, "%s/%s", a, b);
	return kp_strbuf_detach(&sb);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Recursive walk: .cu/.cuh regular files; hidden directories, symbolic
 * links and the output directory are skipped. */
static void walk(const kp_batch_opts *o, const char *dir, const char *rel, const char *skip_abs,
		 bfiles *out)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	char **names = NULL;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		names = kp_xrealloc(names, sizeof(char *) * (size_t)(n + 1));
		names[n++] = kp_xstrdup(e->d_name);
	}
	closedir(d);
	if (n > 1)
		qsort(names, (size_t)n, sizeof(char *), cmp_str);
	for (int i = 0; i < n; i++) {
		char *p = kp_batch_join(dir, names[i]);
		char *r = rel[0] ? kp_batch_join(rel, names[i]) : kp_xstrdup(names[i]);
		struct stat st;
		if (lstat(p, &st) == 0 && !excluded(o, r, p)) {
			if (S_ISDIR(st.st_mode)) {
				char *a = realpath(p, NULL);
				if (!(a && skip_abs && !strcmp(a, skip_abs)))
					walk(o, p, r, skip_abs, out);
				free(a);
			} else if (S_ISREG(st.st_mode) && is_cuda_name(names[i])) {
				char *a = realpath(p, NULL);
				if (a)
					bfiles_add(out, p, a);
				free(a);
			}
		}
		free(p);
		free(r);
		free(names[i]);
	}
	free(names);
}

/* A path from the compilation database, shown relative to the working
 * directory when it is below it. */
static int cmp_result_path(const void *a, const void *b)
{
	const kp_rw_result *x = *(const kp_rw_result *const *)a,
			   *y = *(const kp_rw_result *const *)b;
	return strcmp(x->path, y->path);
}

static int cmp_bfile(const void *a, const void *b)
{
	return strcmp(((const bfile *)a)->path, ((const bfile *)b)->path);
}

/* The directory under which --out-dir mirrors the files: the deepest
 * directory that holds every input (a directory input itself, a file's
 * directory), or every file of the compilation database.  It depends on
 * the inputs only, not on --exclude or --shard, so shards mirror alike. */
static void widen_root(char **root, const char *dir)
{
	if (!*root) {
		*root = kp_xstrdup(dir);
		return;
	}
	char *r = *root;
	while (strcmp(r, "/")) {
		size_t k = strlen(r);
		if (!strncmp(dir, r, k) && (dir[k] == '/' || !dir[k]))
			break;
		char *s = strrchr(r, '/');
		*(s == r ? s + 1 : s) = '\0';
	}
}

static void widen_root_file(char **root, const char *file)
{
	char *d = kp_xstrdup(file);
	char *s = strrchr(d, '/');
	if (s)
		*(s == d ? s + 1 : s) = '\0';
	widen_root(root, d);
	free(d);
}

/* ---- the children --------------------------------------------------- */

typedef struct {
	const kp_batch_opts *o;
	bfiles *files;
	const char *root; /* the inputs' common directory, for --out-dir */
	char **pch;       /* per group: the header, NULL when none */
	char **group_key;
	int *group_size;
	int ngroups;
	int *pch_ids; /* while building: job index -> group */
	const char *tmpdir;
	int no_compdb;
	int reports_only;
	/* project headers with kernels: the real paths already handled, each
	 * by the first file (in order) whose translation unit reached it */
	char **owned;
	int nowned;
	/* per owned header: the owner's result (its write waits for the end
	 * of the batch), and the first later file whose translation unit
	 * rewrote it otherwise (its instantiations: the plan must hold for
	 * all of them), or NULL */
	kp_rw_result **owner_res;
	char **conflict;
	int dropped_headers; /* headers not handled because the batch is sharded */
	/* the parent's state while the children run */
	int stop;        /* stdout was closed (EPIPE): start nothing more */
	char *timed_out; /* per job of the running pool: killed by --timeout */
	int ndone, ntotal;
	kp_progress progress; /* the status line and -v's lines (progress.h) */
} batch;

static void do_file(const batch *b, int i, kp_rw_result *r)
{
	const kp_batch_opts *o = b->o;
	const bfile *f = &b->files->v[i];
	double t0 = kp_now();
	r->path = kp_xstrdup(f->path);
	r->abs_path = kp_xstrdup(f->abs);
	char *src = NULL;
	size_t len = 0;
	int e = kp_read_file(f->path, &src, &len);
	if (e) {
		kp_strbuf sb = KP_STRBUF_INIT;
		kp_strbuf_addf(&sb, "cannot read: %s", strerror(-e));
		kp_rw_diag_add(r, NULL, 0, 0, -1, "error", NULL, kp_strbuf_str(&sb));
		kp_strbuf_release(&sb);
		r->status = KP_EXIT_INPUT;
		return;
	}
	char *out = NULL;
	size_t outlen = 0;
	const char *pch = f->group >= 0 ? b->pch[f->group] : NULL;
	kp_rw_opts fo = o->rw; /* with the file's target */
	fo.arch = f->arch;
	fo.targets = f->targets;
	kp_rw_input in = {.path = f->path,
			  .contents = src,
			  .len = len,
			  .extra_args = (const char *const *)f->args,
			  .nextra = f->nargs,
			  .no_compdb = b->no_compdb,
			  .pch = pch,
			  .headers = 1,
			  .header_root = b->root,
			  .in_batch = 1};
	int rc = kp_rewrite_buffer(&fo, &in, r, &out, &outlen);
	if (rc == KP_EXIT_OK && out && !o->dry_run && !b->reports_only)
		kp_rw_write(&o->out, r, f->path, f->abs, src, len, out, outlen, b->root);
	else if ((rc == KP_EXIT_NOTHING || rc == KP_EXIT_OK) && o->out.out_dir && !o->dry_run &&
		 !b->reports_only) {
		/* --out-dir holds every file: one with nothing pipelined (or
		 * only its headers) as it was */
		kp_rw_output copy = {.out_dir = o->out.out_dir};
		kp_rw_write(&copy, r, f->path, f->abs, src, len, src, len, b->root);
	}
	free(out);
	free(src);
	r->seconds = kp_now() - t0;
}

static void write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		s += w;
		n -= (size_t)w;
	}
}

typedef void (*job_fn)(const batch *b, int i, int fd);
typedef void (*done_fn)(batch *b, int i, const char *data, size_t len, int status, void *ud);

typedef struct {
	pid_t pid;
	int fd, idx;
	kp_strbuf buf;
	double t0;     /* when it started */
	double killed; /* when it was sent SIGTERM, 0 not yet */
} slot;

/* Starts job `next` in slot x; 0, or -1 when no process could be made. */
static int start_job(batch *b, slot *s, int jobs, slot *x, int next, job_fn job)
{
	int p[2];
	if (pipe(p))
		return -1;
	fflush(stdout);
	fflush(stderr);
	/* the child keeps the signal guard: it removes its own temporary file
	 * when the parent passes a signal on */
	pid_t pid = kp_guard_fork();
	if (pid == 0) {
		close(p[0]);
		for (int m = 0; m < jobs; m++)
			if (s[m].fd >= 0)
				close(s[m].fd);
		signal(SIGPIPE, SIG_DFL);
		job(b, next, p[1]);
		close(p[1]);
		_exit(0);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	*x = (slot){pid, p[0], next, KP_STRBUF_INIT, kp_now(), 0};
	return 0;
}

/* --timeout and a closed stdout: SIGTERM to a child past its time (marked
 * in b->timed_out) or to every child once b->stop is set, SIGKILL to one
 * still there 5 s later.  Returns the milliseconds poll() may wait. */
static int police(batch *b, slot *s, int jobs)
{
	int limit = b->o->timeout;
	double t = kp_now(), wait = -1;
	for (int k = 0; k < jobs; k++) {
		slot *x = &s[k];
		if (x->fd < 0)
			continue;
		if (!x->killed && (b->stop || (limit > 0 && t - x->t0 >= limit))) {
			if (!b->stop)
				b->timed_out[x->idx] = 1;
			kill(x->pid, SIGTERM);
			x->killed = t;
		} else if (x->killed && t - x->killed >= 5)
			kill(x->pid, SIGKILL);
		double left = x->killed ? x->killed + 5 - t : limit > 0 ? x->t0 + limit - t : -1;
		if (left >= 0 && (wait < 0 || left < wait))
			wait = left;
	}
	return wait < 0 ? -1 : (int)(wait * 1000) + 10;
}

/* Runs jobs 0..n-1, each in a child process, at most `jobs` at once;
 * done() gets what the child wrote to its pipe and its wait status.  Once
 * b->stop is set nothing more starts and the running children are
 * stopped. */
static void run_pool(batch *b, int n, int jobs, job_fn job, done_fn done, void *ud)
{
	slot *s = kp_xcalloc((size_t)jobs, sizeof(*s));
	for (int k = 0; k < jobs; k++)
		s[k].fd = -1;
	b->timed_out = kp_xcalloc((size_t)n + 1, 1);
	int next = 0, active = 0;
	while ((next < n && !b->stop) || active) {
		for (int k = 0; k < jobs && next < n && !b->stop; k++) {
			if (s[k].fd >= 0)
				continue;
			if (start_job(b, s, jobs, &s[k], next, job))
				done(b, next, "", 0, -1, ud);
			else
				active++;
			next++;
		}
		if (!active)
			continue;
		struct pollfd *pf = kp_xcalloc((size_t)jobs, sizeof(*pf));
		int np = 0;
		int map[1024];
		for (int k = 0; k < jobs; k++)
			if (s[k].fd >= 0) {
				pf[np].fd = s[k].fd;
				pf[np].events = POLLIN;
				map[np++] = k;
			}
		int pr = poll(pf, (nfds_t)np, police(b, s, jobs));
		if (pr < 0 && errno != EINTR) {
			free(pf);
			break;
		}
		for (int q = 0; q < np && pr > 0; q++) {
			if (!pf[q].revents)
				continue;
			slot *x = &s[map[q]];
			char chunk[65536];
			ssize_t got = read(x->fd, chunk, sizeof(chunk));
			if (got > 0) {
				kp_strbuf_add(&x->buf, chunk, (size_t)got);
				continue;
			}
			if (got < 0 && errno == EINTR)
				continue;
			close(x->fd);
			x->fd = -1;
			int st = 0;
			kp_guard_forget_child(x->pid);
			while (waitpid(x->pid, &st, 0) < 0 && errno == EINTR)
				;
			done(b, x->idx, kp_strbuf_str(&x->buf), x->buf.len, st, ud);
			kp_strbuf_release(&x->buf);
			active--;
		}
		free(pf);
		police(b, s, jobs);
	}
	free(b->timed_out);
	b->timed_out = NULL;
	free(s);
}

static void file_job(const batch *b, int i, int fd)
{
	/* test hook (tests/cli/batch.sh): die on this file as a crash would */
	const char *crash = getenv("KPIPE_TEST_CRASH");
	const char *base = strrchr(b->files->v[i].path, '/');
	if (crash && *crash && !strcmp(base ? base + 1 : b->files->v[i].path, crash)) {
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
	}
	/* and hang on this one, as a file that never ends would (--timeout) */
	const char *hang = getenv("KPIPE_TEST_HANG");
	if (hang && *hang && !strcmp(base ? base + 1 : b->files->v[i].path, hang))
		for (;;)
			pause();
	kp_rw_result r = {0};
	do_file(b, i, &r);
	cJSON *j = kp_rw_result_to_json(&r, 1);
	char *txt = cJSON_PrintUnformatted(j);
	write_all(fd, txt, strlen(txt));
	cJSON_free(txt);
	cJSON_Delete(j);
	kp_rw_result_release(&r);
}

typedef struct {
	kp_rw_result *results;
	char *done;
	int print_next;
	int n;
} collect;

static int owned(const batch *b, const char *abs)
{
	for (int i = 0; i < b->nowned; i++)
		if (!strcmp(b->owned[i], abs))
			return 1;
	return 0;
}

/* Who disagrees on a header (x: its result for it, through the file via)
 * and, when it refused the header's loop, its first reason after a line
 * break. */
static char *header_conflict(const kp_rw_result *x, const char *via)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_adds(&sb, via ? via : "another file");
	for (int i = 0; i < x->ndiags; i++) {
		const kp_rw_diag *d = &x->diags[i];
		if (d->id && d->level && !strcmp(d->level, "warning") && !d->suppressed) {
			kp_strbuf_addf(&sb, "\nthere, line %d: %s [%s]; ", d->line, d->message,
				       d->id);
			break;
		}
	}
	return kp_strbuf_detach(&sb);
}

/* A later file's result x for an owned header: whether it rewrote the
 * header as its owner did (the same text, or both nothing); the first
 * that did not is remembered. */
static void header_agrees(batch *b, const kp_rw_result *x, const char *via)
{
	for (int i = 0; i < b->nowned; i++) {
		const kp_rw_result *w = b->owner_res[i];
		if (strcmp(b->owned[i], x->abs_path) || !w || b->conflict[i])
			continue;
		int same = (!w->text && !x->text) ||
			   (w->text && x->text &&
			    kp_same_code(w->text, w->textlen, x->text, x->textlen));
		if (!same)
			b->conflict[i] = header_conflict(x, via);
	}
}

/*
 * The project headers a file's translation unit rewrote (r->headers): the
 * first file in order to reach a header owns it, and its result is kept
 * (printed, written, counted); a later file's result for the same header
 * goes.  A sharded batch keeps none: the shard that owns a header is not
 * known to the others.
 */
static void own_headers(batch *b, kp_rw_result *r)
{
	const kp_batch_opts *o = b->o;
	int k = 0;
	for (int h = 0; h < r->nheaders; h++) {
		kp_rw_result *x = &r->headers[h];
		size_t rl = strlen(b->root);
		const char *rel = !strncmp(x->abs_path, b->root, rl) && x->abs_path[rl] == '/'
					  ? x->abs_path + rl + 1
					  : x->abs_path;
		int seen = owned(b, x->abs_path), drop = seen || o->shard_n;
		int mine = -1;
		if (!seen) {
			b->owned = kp_xrealloc(b->owned, sizeof(char *) * (size_t)(b->nowned + 1));
			b->owner_res = kp_xrealloc(b->owner_res,
						   sizeof(*b->owner_res) * (size_t)(b->nowned + 1));
			b->conflict = kp_xrealloc(b->conflict,
						  sizeof(*b->conflict) * (size_t)(b->nowned + 1));
			b->owner_res[b->nowned] = NULL;
			b->conflict[b->nowned] = NULL;
			mine = b->nowned;
			b->owned[b->nowned++] = kp_xstrdup(x->abs_path);
		} else
			header_agrees(b, x, r->path);
		if (excluded(o, rel, x->path))
			drop = 1;
		else if (o->shard_n && !seen) {
			int input = 0;
			for (int i = 0; i < b->files->n && !input; i++)
				input = !strcmp(b->files->v[i].abs, x->abs_path);
			b->dropped_headers += !input;
		} else if (seen && o->verbose)
			fprintf(stderr, "%s: note: already handled through an earlier file\n",
				x->path);
		if (drop) {
			kp_rw_result_release(x);
			continue;
		}
		r->headers[k] = *x;
		if (mine >= 0)
			b->owner_res[mine] = &r->headers[k];
		k++;
	}
	r->nheaders = k;
}

/* At the end of the batch: each owned header written, unless a later
 * file's translation unit rewrote it otherwise (another instantiation of
 * a kernel template the plan does not fit, or fits with another variant):
 * then it is left as it is, with a warning. */
static void write_headers(batch *b)
{
	const kp_batch_opts *o = b->o;
	for (int i = 0; i < b->nowned; i++) {
		kp_rw_result *x = b->owner_res[i];
		if (!x || !x->text)
			continue;
		if (b->conflict[i]) {
			char *why = strchr(b->conflict[i], '\n');
			if (why)
				*why++ = '\0';
			fprintf(stderr,
				"%s: warning: not rewritten: %s instantiates its kernels otherwise "
				"and the rewrite made through an earlier file does not hold for it "
				"(%s%d loop%s left as written) [kpipe-variant-unavailable]\n",
				x->path, b->conflict[i], why ? why : "", x->pipelined,
				x->pipelined == 1 ? "" : "s");
			free(x->text);
			x->text = NULL;
			x->textlen = 0;
			x->refused += x->pipelined;
			kp_counts_release(&x->by_variant);
			kp_counts_add(&x->by_reason, "kpipe-variant-unavailable", x->pipelined);
			kp_rw_verdicts_undo(x, "kpipe-variant-unavailable");
			x->pipelined = 0;
			x->status = KP_EXIT_NOTHING;
			continue;
		}
		if (!o->dry_run && !b->reports_only)
			kp_rw_write_header(&o->out, x, b->root);
		if (x->diff) /* --diff: after the files' own */
			fputs(x->diff, stdout);
	}
}

/* Prints one result: its diagnostics, its diff or its --dry-run line. */
static void print_result(const batch *b, const kp_rw_result *r)
{
	/* quiet by default: warnings and errors, then one line per file
	 * (--dry-run has its own on stdout); the remarks with -v */
	int line = !b->o->verbose && !b->o->dry_run && !strcmp(b->o->format, "text");
	kp_batch_print_file(r, b->o->verbose, line, stderr);
	if (r->diff)
		fputs(r->diff, stdout);
	else if (b->o->dry_run && !strcmp(b->o->format, "text") && r->status != KP_EXIT_INPUT)
		printf(r->status == KP_EXIT_OK ? "%s: would pipeline %d of %d loop%s\n"
					       : "%s: nothing to pipeline\n",
		       r->path, r->pipelined, r->loops, r->loops == 1 ? "" : "s");
}

static void flush_ordered(batch *b, collect *c)
{
	/* once stdout is closed the batch stops silently: the children it
	 * stopped are not failures to report */
	while (!b->stop && c->print_next < c->n && c->done[c->print_next]) {
		kp_rw_result *r = &c->results[c->print_next];
		own_headers(b, r);
		print_result(b, r);
		for (int h = 0; h < r->nheaders; h++)
			print_result(b, &r->headers[h]);
		/* stdout closed (`| head`): SIGPIPE is ignored, the batch stops */
		if (fflush(stdout) == EOF || ferror(stdout))
			b->stop = 1;
		fflush(stderr);
		c->print_next++;
	}
}

/* What an interrupted batch says (kp_guard_set_note): how far it got. */
static void progress_note(batch *b)
{
	char s[160];
	snprintf(s, sizeof(s), ": %d of %d file%s done; nothing partial written\n", b->ndone,
		 b->ntotal, b->ntotal == 1 ? "" : "s");
	kp_guard_set_note(s);
}

static void file_done(batch *b, int i, const char *data, size_t len, int status, void *ud)
{
	collect *c = ud;
	kp_rw_result *r = &c->results[i];
	cJSON *j = len ? cJSON_ParseWithLength(data, len) : NULL;
	if (!j || kp_rw_result_from_json(r, j)) {
		kp_rw_result_release(r);
		const bfile *f = &b->files->v[i];
		r->path = kp_xstrdup(f->path);
		r->abs_path = kp_xstrdup(f->abs);
		kp_strbuf sb = KP_STRBUF_INIT;
		if (b->timed_out && b->timed_out[i])
			kp_strbuf_addf(&sb,
				       "gave up on this file after %d s (--timeout); nothing was "
				       "written for it",
				       b->o->timeout);
		else if (status >= 0 && WIFSIGNALED(status))
			kp_strbuf_addf(&sb,
				       "kpipe crashed on this file (signal %d); other files "
				       "are not affected",
				       WTERMSIG(status));
		else
			kp_strbuf_addf(&sb, "kpipe failed on this file (exit status %d)",
				       status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		kp_rw_diag_add(r, NULL, 0, 0, -1, "error", NULL, kp_strbuf_str(&sb));
		kp_strbuf_release(&sb);
		r->status = KP_EXIT_INPUT;
	}
	cJSON_Delete(j);
	c->done[i] = 1;
	b->ndone++;
	progress_note(b);
	kp_progress_clear(&b->progress);
	flush_ordered(b, c);
	kp_progress_file(&b->progress, r);
}

static void pch_job(const batch *b, int job, int fd)
{
	const kp_batch_opts *o = b->o;
	int g = b->pch_ids[job];
	char main_path[4200], pch_path[4200];
	snprintf(main_path, sizeof(main_path), "%s/pch-%d.cu", b->tmpdir, g);
	snprintf(pch_path, sizeof(pch_path), "%s/pch-%d.pch", b->tmpdir, g);
	/* the group's flags, then the user's: as kp_rewrite_buffer orders them */
	const bfile *f = NULL;
	for (int i = 0; i < b->files->n && !f; i++)
		if (b->files->v[i].group == g)
			f = &b->files->v[i];
	int n = (f ? f->nargs : 0) + o->rw.nargs;
	const char **args = kp_xcalloc((size_t)n + 1, sizeof(char *));
	int k = 0;
	for (int i = 0; f && i < f->nargs; i++)
		args[k++] = f->args[i];
	for (int i = 0; i < o->rw.nargs; i++)
		args[k++] = o->rw.args[i];
	char *err = NULL;
	int rc = kp_parse_build_pch(f ? f->arch->name : o->rw.arch->name, o->rw.cuda_path, args, k,
				    main_path, pch_path, &err);
	free(args);
	write_all(fd, rc ? (err ? err : "failed") : "ok",
		  strlen(rc ? (err ? err : "failed") : "ok"));
	free(err);
}

static void pch_done(batch *b, int job, const char *data, size_t len, int status, void *ud)
{
	(void)ud;
	int g = b->pch_ids[job];
	if (status == 0 && len == 2 && !memcmp(data, "ok", 2)) {
		kp_strbuf sb = KP_STRBUF_INIT;
		kp_strbuf_addf(&sb, "%s/pch-%d.pch", b->tmpdir, g);
		b->pch[g] = kp_strbuf_detach(&sb);
	} else if (b->o->verbose)
		fprintf(stderr, "kpipe rewrite: note: no precompiled header for %d file%s: %.*s\n",
			b->group_size[g], b->group_size[g] == 1 ? "" : "s", (int)len, data);
}

/* ---- the command ---------------------------------------------------- */

static void bfiles_release(bfiles *l)
{
	for (int i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].abs);
	}
	free(l->v);
}

/* The inputs: the database's files (-p without files), the files named,
 * the directories walked; sorted, each once, one shard of them.  *root
 * gets the inputs' common directory, *db the database's entries.
 * Returns KP_EXIT_OK or KP_EXIT_INPUT (after printing why). */
static int list_inputs(const kp_batch_opts *o, bfiles *files, char **root, kp_compdb_entry **db,
		       int *ndb, char **db_json)
{
	char *out_abs = o->out.out_dir ? realpath(o->out.out_dir, NULL) : NULL;
	int rc = KP_EXIT_OK;
	if (o->rw.build_dir) {
		char *err = NULL;
		char *rdir = realpath(o->rw.build_dir, NULL);
		kp_strbuf js = KP_STRBUF_INIT;
		kp_strbuf_addf(&js, "%s/compile_commands.json", rdir ? rdir : o->rw.build_dir);
		*db_json = kp_strbuf_detach(&js);
		free(rdir);
		if (kp_compdb_load(o->rw.build_dir, db, ndb, &err)) {
			fprintf(stderr, "kpipe: error: %s\n", err);
			free(err);
			free(out_abs);
			return KP_EXIT_INPUT;
		}
		for (int i = 0; !o->nfiles && i < *ndb; i++) {
			widen_root_file(root, (*db)[i].file);
			char *shown = kp_display_path((*db)[i].file);
			if (!excluded(o, shown, shown))
				bfiles_add(files, shown, (*db)[i].file);
			free(shown);
		}
	}
	for (int i = 0; i < o->nfiles && rc == KP_EXIT_OK; i++) {
		const char *in = o->files[i];
		struct stat st;
		if (stat(in, &st)) {
			fprintf(stderr, "kpipe: error: cannot read '%s': %s\n", in,
				strerror(errno));
			rc = KP_EXIT_INPUT;
			break;
		}
		char *ra = realpath(in, NULL);
		if (ra && S_ISDIR(st.st_mode))
			widen_root(root, ra);
		else if (ra)
			widen_root_file(root, ra);
		if (S_ISDIR(st.st_mode))
			walk(o, in, "", out_abs, files);
		else if (ra && !excluded(o, in, in))
			bfiles_add(files, in, ra);
		free(ra);
	}
	free(out_abs);
	if (files->n > 1)
		qsort(files->v, (size_t)files->n, sizeof(*files->v), cmp_bfile);
	/* the same file named twice counts once; --shard keeps every N-th */
	int m = 0;
	for (int i = 0; i < files->n; i++) {
		int dup = 0;
		for (int k = 0; k < m && !dup; k++)
			dup = !strcmp(files->v[k].abs, files->v[i].abs);
		if (dup) {
			free(files->v[i].path);
			free(files->v[i].abs);
		} else
			files->v[m++] = files->v[i];
	}
	files->n = m;
	m = 0;
	for (int i = 0; i < files->n; i++)
		if (!o->shard_n || i % o->shard_n == o->shard_i)
			files->v[m++] = files->v[i];
		else {
			free(files->v[i].path);
			free(files->v[i].abs);
		}
	files->n = m;
	if (!*root)
		*root = kp_xstrdup("/");
	return rc;
}

/* Each file's flags and target from the database (-v: a line per file),
 * and the precompiled-header groups: files with the same flags and
 * target share one header. */
static void assign_groups(batch *b, const kp_compdb_entry *db, int ndb, const char *db_json)
{
	const kp_batch_opts *o = b->o;
	for (int i = 0; i < b->files->n; i++) {
		bfile *f = &b->files->v[i];
		f->arch = o->rw.arch;
		f->arch_name = o->arch_name;
		f->targets = o->rw.targets;
		for (int k = 0; k < ndb; k++)
			if (!strcmp(db[k].file, f->abs)) {
				f->args = db[k].flags.keep;
				f->nargs = db[k].flags.nkeep;
				if (kp_db_target(o->rw.arch, o->arch_name, o->arch_given, f->path,
						 &db[k].flags, &f->arch, &f->arch_name))
					kp_db_targets(&db[k].flags, &f->targets);
				if (o->verbose)
					kp_db_print_flags(o->rw.arch, o->arch_name, o->arch_given,
							  f->path, db_json, &db[k].flags);
				break;
			}
		kp_strbuf key = KP_STRBUF_INIT;
		kp_strbuf_addf(&key, "%s\n", f->arch->name); /* a header is built for one target */
		for (int k = 0; k < f->nargs; k++) {
			kp_strbuf_adds(&key, f->args[k]);
			kp_strbuf_addc(&key, '\n');
		}
		int g = -1;
		for (int k = 0; k < b->ngroups; k++)
			if (!strcmp(b->group_key[k], kp_strbuf_str(&key)))
				g = k;
		if (g < 0) {
			b->group_key = kp_xrealloc(b->group_key,
						   sizeof(char *) * (size_t)(b->ngroups + 1));
			b->group_size =
				kp_xrealloc(b->group_size, sizeof(int) * (size_t)(b->ngroups + 1));
			b->group_key[b->ngroups] = kp_strbuf_detach(&key);
			b->group_size[b->ngroups] = 0;
			g = b->ngroups++;
		}
		kp_strbuf_release(&key);
		f->group = g;
		b->group_size[g]++;
	}
	b->pch = kp_xcalloc((size_t)b->ngroups + 1, sizeof(char *));
}

/* The precompiled headers of the groups of two files or more (0.35 s to
 * build one, 0.2 s saved per file), in a new temporary directory, built -j
 * at a time.  Returns the directory (remove it after, then free it), or
 * NULL when there is none. */
static char *build_pchs(batch *b, int jobs)
{
	int want_pch = 0;
	for (int g = 0; g < b->ngroups; g++)
		want_pch |= b->group_size[g] >= 2;
	char *tmpl = b->o->no_pch || !want_pch ? NULL : kp_tempdir("batch");
	if (!tmpl)
		return NULL;
	b->tmpdir = tmpl;
	/* an interrupted batch removes them (safe_write.c) */
	for (int g = 0; g < b->ngroups; g++)
		if (b->group_size[g] >= 2) {
			char p[4300];
			snprintf(p, sizeof(p), "%s/pch-%d.cu", tmpl, g);
			kp_guard_add_path(p, 0);
			snprintf(p, sizeof(p), "%s/pch-%d.pch", tmpl, g);
			kp_guard_add_path(p, 0);
		}
	kp_guard_add_path(tmpl, 1);
	int *ids = kp_xcalloc((size_t)b->ngroups + 1, sizeof(int));
	int nids = 0;
	for (int g = 0; g < b->ngroups; g++)
		if (b->group_size[g] >= 2)
			ids[nids++] = g;
	b->pch_ids = ids;
	run_pool(b, nids, jobs, pch_job, pch_done, NULL);
	b->pch_ids = NULL;
	free(ids);
	return tmpl;
}

/* For each .cuh input of late, the index in b->files (the first n1, the
 * .cu files) of the .cu whose text includes it, directly or through other
 * headers of the batch (batch_incl.h), or -1.  Caller frees. */
static int *reached_headers(const batch *b, int n1, const bfiles *late)
{
	int n = n1 + late->n;
	kp_incl_input *in = kp_xcalloc((size_t)n + 1, sizeof(*in));
	for (int i = 0; i < n; i++) {
		const bfile *f = i < n1 ? &b->files->v[i] : &late->v[i - n1];
		in[i] = (kp_incl_input){f->abs, (const char *const *)f->args, f->nargs,
					b->o->rw.args, b->o->rw.nargs};
	}
	int *all = kp_xcalloc((size_t)n + 1, sizeof(int));
	kp_batch_includers(in, n, all);
	int *via = kp_xcalloc((size_t)late->n + 1, sizeof(int));
	for (int i = 0; i < late->n; i++)
		via[i] = all[n1 + i];
	free(all);
	free(in);
	return via;
}

/* The result of a header input that a .cu of the batch includes and whose
 * translation unit found no kernel and no __device__ K-loop in it: it is
 * not analysed on its own (it need not be self-contained); unchanged,
 * copied as it is under --out-dir. */
static void reached_result(const batch *b, const bfile *h, const bfile *cu, kp_rw_result *r)
{
	memset(r, 0, sizeof(*r));
	r->path = kp_xstrdup(h->path);
	r->abs_path = kp_xstrdup(h->abs);
	r->status = KP_EXIT_NOTHING;
	if (b->o->verbose)
		fprintf(stderr,
			"%s: note: not analysed on its own: included by %s, whose translation "
			"unit found no kernel and no __device__ K-loop in it\n",
			h->path, cu->path);
	const kp_batch_opts *o = b->o;
	if (o->out.out_dir && !o->dry_run && !b->reports_only) {
		char *src = NULL;
		size_t len = 0;
		if (!kp_read_file(h->abs, &src, &len)) {
			kp_rw_output copy = {.out_dir = o->out.out_dir};
			kp_rw_write(&copy, r, h->path, h->abs, src, len, src, len, b->root);
		}
		free(src);
	}
}

/* Runs every file into c (sized for all of them): the .cu files first,
 * then the .cuh inputs that no .cu file's translation unit reached (one
 * that was is handled there, with its instantiations).  Returns the
 * number of results. */
static int run_files(batch *b, int jobs, collect *c)
{
	bfiles *files = b->files, late = {0};
	int n1 = 0;
	for (int i = 0; i < files->n; i++)
		if (!has_suffix(files->v[i].path, ".cuh"))
			files->v[n1++] = files->v[i];
		else {
			late.v = kp_xrealloc(late.v, sizeof(*late.v) * (size_t)(late.n + 1));
			late.v[late.n++] = files->v[i];
		}
	for (int i = 0; i < late.n; i++)
		files->v[n1 + i] = late.v[i];
	c->n = n1;
	c->results = kp_xcalloc((size_t)files->n + 1, sizeof(*c->results));
	c->done = kp_xcalloc((size_t)files->n + 1, 1);
	kp_progress_start(&b->progress, stderr, files->n, b->o->verbose, b->o->dry_run);
	run_pool(b, n1, jobs, file_job, file_done, c);
	int n2 = 0, n3 = 0, *via = reached_headers(b, n1, &late);
	kp_rw_result *reached = kp_xcalloc((size_t)late.n + 1, sizeof(*reached));
	for (int i = 0; i < late.n; i++) {
		/* reached through a .cu that parsed, and no kernel of its own
		 * (one with kernels that no .cu owns runs on its own, as before) */
		int skip = via[i] >= 0 && c->results[via[i]].status != KP_EXIT_INPUT &&
			   !kp_file_mentions(late.v[i].abs, "__global__");
		if (b->o->shard_n || (!owned(b, late.v[i].abs) && !skip))
			late.v[n2++] = late.v[i];
		else if (!owned(b, late.v[i].abs))
			reached_result(b, &late.v[i], &files->v[via[i]], &reached[n3++]);
	}
	free(via);
	b->progress.total -= late.n - n2;
	late.n = n2;
	collect c2 = {c->results + n1, c->done + n1, 0, n2};
	b->files = &late;
	run_pool(b, n2, jobs, file_job, file_done, &c2);
	b->files = files;
	kp_progress_clear(&b->progress);
	free(late.v);
	write_headers(b);
	/* the reached headers' results after the others (report sorts them) */
	for (int i = 0; i < n3; i++)
		c->results[n1 + n2 + i] = reached[i];
	free(reached);
	if (b->dropped_headers)
		fprintf(stderr,
			"kpipe rewrite: note: %d project header%s with kernels reached through these "
			"files %s not rewritten: a sharded batch (--shard) does not know which shard "
			"owns a header; run without --shard\n",
			b->dropped_headers, b->dropped_headers == 1 ? "" : "s",
			b->dropped_headers == 1 ? "is" : "are");
	return n1 + n2 + n3;
}

/* --out-dir: the rest of the tree (out_tree.h), once every rewritten
 * file and header is written: the headers the inputs include and the
 * inputs nothing wrote.  A sharded batch copies no .cu/.cuh (their
 * shards write them).  Returns 0, or -1 when a copy failed (printed). */
static int fill_out_dir(const batch *b, const collect *c, int nres)
{
	const kp_batch_opts *o = b->o;
	if (!o->out.out_dir || o->dry_run || b->reports_only)
		return 0;
	const bfiles *fl = b->files;
	kp_tree_src *srcs = kp_xcalloc((size_t)fl->n + 1, sizeof(*srcs));
	const char **written = NULL;
	int nw = 0;
	for (int i = 0; i < nres; i++)
		for (int h = -1; h < c->results[i].nheaders; h++) {
			const kp_rw_result *r = h < 0 ? &c->results[i] : &c->results[i].headers[h];
			if (r->output && r->abs_path) {
				written = kp_xrealloc(written, sizeof(char *) * (size_t)(nw + 1));
				written[nw++] = r->abs_path;
			}
		}
	for (int i = 0; i < fl->n; i++) {
		srcs[i] = (kp_tree_src){fl->v[i].abs, (const char *const *)fl->v[i].args,
					fl->v[i].nargs, 0};
		for (int k = 0; k < nres; k++)
			if (c->results[k].abs_path && !strcmp(c->results[k].abs_path, fl->v[i].abs))
				srcs[i].failed = c->results[k].status == KP_EXIT_INPUT;
	}
	kp_out_tree t = {.out_dir = o->out.out_dir,
			 .root = b->root,
			 .srcs = srcs,
			 .nsrcs = fl->n,
			 .args = o->rw.args,
			 .nargs = o->rw.nargs,
			 .written = written,
			 .nwritten = nw,
			 .excludes = o->excludes,
			 .nexcludes = o->nexcludes,
			 .cuda_sources_too = !o->shard_n};
	char *err = NULL;
	int rc = kp_out_tree_fill(&t, &err);
	if (err)
		fputs(err, stderr);
	free(err);
	free(written);
	free(srcs);
	return rc < 0 ? -1 : 0;
}

/* The exit code, the report on stdout (--format), the summary on stderr
 * and --export-fixes, over the results and the headers they own, in path
 * order. */
static int report(const kp_batch_opts *o, const collect *c, int nres, double secs, int jobs,
		  const char *cwd)
{
	int nall = nres;
	for (int i = 0; i < nres; i++)
		nall += c->results[i].nheaders;
	const kp_rw_result **rp = kp_xcalloc((size_t)nall + 1, sizeof(*rp));
	int any_ok = 0, any_err = 0, any_warn = 0, nrp = 0, rc;
	for (int i = 0; i < nres; i++) {
		rp[nrp++] = &c->results[i];
		for (int h = 0; h < c->results[i].nheaders; h++)
			rp[nrp++] = &c->results[i].headers[h];
	}
	qsort(rp, (size_t)nrp, sizeof(*rp), cmp_result_path);
	for (int i = 0; i < nrp; i++) {
		any_ok |= rp[i]->status == KP_EXIT_OK;
		any_err |= rp[i]->status == KP_EXIT_INPUT;
		for (int d = 0; d < rp[i]->ndiags; d++)
			any_warn |= !strcmp(rp[i]->diags[d].level, "warning");
	}
	/* as for one file: 0 however many files were pipelined; 1 when
	 * --dry-run would change one, or --Werror saw a warning */
	if (any_err)
		rc = KP_EXIT_INPUT;
	else if ((o->dry_run && any_ok) || (o->werror && any_warn))
		rc = KP_EXIT_NOTHING;
	else
		rc = KP_EXIT_OK;
	if (!strcmp(o->format, "json")) {
		char *j = kp_batch_report_json(rp, nrp, secs, jobs);
		fputs(j, stdout);
		free(j);
	} else if (!strcmp(o->format, "sarif")) {
		char *s = kp_sarif_log(rp, nrp, cwd, rc, o->sarif_all);
		fputs(s, stdout);
		free(s);
	}
	print_summary(stderr, rp, nrp, secs, jobs, o->dry_run, o->verbose);
	if (o->export_fixes) {
		char *y = kp_fixes_yaml(rp, nrp, "", cwd);
		int e = kp_write_file_atomic(o->export_fixes, y, strlen(y));
		free(y);
		if (e) {
			fprintf(stderr, "kpipe: error: cannot write '%s': %s\n", o->export_fixes,
				strerror(-e));
			rc = KP_EXIT_INPUT;
		}
	}
	free(rp);
	return rc;
}

/* Is `p` the directory `dir` or below it? */
static int inside(const char *p, const char *dir)
{
	size_t k = strlen(dir);
	return !strcmp(dir, "/") || (!strncmp(p, dir, k) && (p[k] == '/' || !p[k]));
}

/*
 * --out-dir among the inputs, before anything is written: inside a
 * directory input (the rewritten files would land among the inputs, and
 * the next run would take them as inputs), or the inputs' common
 * directory itself, which --out-dir mirrors (each file would overwrite its
 * input: `rewrite f.cu --out-dir .`).  Paths are compared resolved
 * (realpath of the part that exists).  Returns KP_EXIT_USAGE after saying
 * why, else 0.
 */
static int check_out_dir(const kp_batch_opts *o, const char *root)
{
	if (!o->out.out_dir)
		return 0;
	char *out = kp_rw_resolve_path(o->out.out_dir);
	int rc = 0;
	for (int i = 0; i < o->nfiles && !rc; i++) {
		struct stat st;
		if (stat(o->files[i], &st) || !S_ISDIR(st.st_mode))
			continue;
		char *d = realpath(o->files[i], NULL);
		if (d && inside(out, d)) {
			fprintf(stderr,
				"kpipe rewrite: error: --out-dir '%s' %s the input directory '%s': "
				"the rewritten files would land among the inputs; choose a "
				"directory outside it (nothing was written)\n",
				o->out.out_dir, strcmp(out, d) ? "lies inside" : "is", o->files[i]);
			rc = KP_EXIT_USAGE;
		}
		free(d);
	}
	if (!rc && !strcmp(out, root)) {
		fprintf(stderr,
			"kpipe rewrite: error: --out-dir '%s' is the inputs' own directory '%s', "
			"which it mirrors: each rewritten file would overwrite its input; use -i "
			"to rewrite in place, or another directory (nothing was written)\n",
			o->out.out_dir, root);
		rc = KP_EXIT_USAGE;
	}
	free(out);
	return rc;
}

static void batch_release(batch *b)
{
	for (int i = 0; i < b->nowned; i++) {
		free(b->owned[i]);
		free(b->conflict[i]);
	}
	free(b->owned);
	free(b->owner_res);
	free(b->conflict);
	for (int g = 0; g < b->ngroups; g++) {
		free(b->group_key[g]);
		free(b->pch[g]);
	}
	free(b->group_key);
	free(b->group_size);
	free(b->pch);
}

int kp_batch_run(const kp_batch_opts *o)
{
	int reports = strcmp(o->format, "text") || o->export_fixes;
	if (!o->out.out_dir && !o->out.in_place && !o->out.diff && !o->dry_run && !reports) {
		fprintf(stderr,
			"kpipe: error: several files or a directory need --out-dir DIR, "
			"-i, --diff or --dry-run (or --format json/sarif, --export-fixes)\n");
		return KP_EXIT_USAGE;
	}
	if (o->out.diff && strcmp(o->format, "text")) {
		fprintf(stderr, "kpipe: error: --format %s and --diff both write to stdout\n",
			o->format);
		return KP_EXIT_USAGE;
	}
	double t0 = kp_now();
	char *cwd = getcwd(NULL, 0);
	bfiles files = {0};
	kp_compdb_entry *db = NULL;
	char *db_json = NULL, *root = NULL;
	int ndb = 0;
	int rc = list_inputs(o, &files, &root, &db, &ndb, &db_json);
	if (rc == KP_EXIT_OK)
		rc = check_out_dir(o, root);
	if (rc == KP_EXIT_OK) {
		batch b = {0};
		b.o = o;
		b.files = &files;
		b.root = root;
		b.no_compdb = o->rw.build_dir != NULL;
		b.reports_only = reports && !o->out.out_dir && !o->out.in_place && !o->out.diff &&
				 !o->dry_run;
		assign_groups(&b, db, ndb, db_json);
		int jobs = o->jobs;
		if (jobs <= 0) {
			long nc = sysconf(_SC_NPROCESSORS_ONLN);
			jobs = nc > 0 ? (int)nc : 1;
		}
		if (jobs > 1000)
			jobs = 1000;
		/* a closed stdout stops the batch (flush_ordered) instead of
		 * killing it before it removes its temporary files */
		struct sigaction ign = {0}, old_pipe;
		ign.sa_handler = SIG_IGN;
		sigemptyset(&ign.sa_mask);
		sigaction(SIGPIPE, &ign, &old_pipe);
		b.ntotal = files.n;
		progress_note(&b);
		char *tmpdir = build_pchs(&b, jobs);
		collect c = {0};
		int nres = run_files(&b, jobs, &c);
		kp_guard_set_note(NULL);
		if (b.stop)
			rc = 128 + SIGPIPE; /* as if SIGPIPE had ended it, after cleaning up */
		else {
			int frc = fill_out_dir(&b, &c, nres);
			rc = report(o, &c, nres, kp_now() - t0, jobs, cwd);
			if (frc && rc != KP_EXIT_USAGE)
				rc = KP_EXIT_INPUT;
		}
		sigaction(SIGPIPE, &old_pipe, NULL);
		for (int i = 0; i < nres; i++)
			kp_rw_result_release(&c.results[i]);
		free(c.results);
		free(c.done);
		batch_release(&b);
		if (tmpdir) {
			kp_remove_tree(tmpdir);
			kp_guard_clear_paths();
			free(tmpdir);
		}
	}
	free(root);
	bfiles_release(&files);
	kp_compdb_release(db, ndb);
	free(db_json);
	free(cwd);
	return rc;
}

int kp_batch_list(const kp_batch_opts *o, char ***paths, int *n, char **root_out)
{
	bfiles files = {0};
	kp_compdb_entry *db = NULL;
	char *db_json = NULL, *root = NULL;
	int ndb = 0;
	int rc = list_inputs(o, &files, &root, &db, &ndb, &db_json);
	*paths = kp_xcalloc((size_t)files.n + 1, sizeof(char *));
	*n = 0;
	for (int i = 0; rc == KP_EXIT_OK && i < files.n; i++)
		(*paths)[(*n)++] = kp_xstrdup(files.v[i].path);
	*root_out = root;
	bfiles_release(&files);
	kp_compdb_release(db, ndb);
	free(db_json);
	return rc;
}
