/*
 * batch_write.c - the outputs of one rewritten file, a batch's input or a
 * project header rewritten through one (kp_rw_write, kp_rw_write_header in
 * batch.h): --diff, -i with its backup, --out-dir; a write that fails
 * becomes an error in the file's result.  Single-file runs share it.
 */
#define _GNU_SOURCE
#include "batch.h"
#include "batch_int.h"

#include "safe_write.h"

#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int mkdirs(const char *path)
{
	char *p = kp_xstrdup(path);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			if (mkdir(p, 0777) && errno != EEXIST) {
				free(p);
				return -errno;
			}
			*s = '/';
		}
	int rc = mkdir(p, 0777) && errno != EEXIST ? -errno : 0;
	free(p);
	return rc;
}

static int write_or_diag(kp_rw_result *r, const char *path, const char *data, size_t len)
{
	int e = kp_write_file_atomic(path, data, len);
	if (e) {
		kp_strbuf sb = KP_STRBUF_INIT;
		kp_strbuf_addf(&sb, "cannot write '%s': %s", path, strerror(-e));
		kp_rw_diag_add(r, NULL, 0, 0, -1, "error", NULL, kp_strbuf_str(&sb));
		kp_strbuf_release(&sb);
		r->status = KP_EXIT_INPUT;
	}
	return e;
}

/*
 * The outputs of one rewritten file (a batch's input, or a project header
 * rewritten through one): --diff into r->diff, -i (with the backup) or
 * --out-dir (the file's place under root mirrored there).  `path` is the
 * file as printed, `abs` its real path; src the text it had, out its new
 * text.  A write that fails becomes an error in r.  Returns 0 or -1.
 */
int kp_rw_write(const kp_rw_output *o, kp_rw_result *r, const char *path, const char *abs,
		const char *src, size_t len, const char *out, size_t outlen, const char *root)
{
	if (o->diff) {
		r->diff = kp_rw_diff(path, src, len, out, outlen);
		return 0;
	}
	if (o->in_place) {
		if (o->backup_suffix) {
			kp_strbuf bk = KP_STRBUF_INIT;
			kp_strbuf_addf(&bk, "%s%s", path, o->backup_suffix);
			int e = kp_write_file_atomic_like(kp_strbuf_str(&bk), src, len, path);
			if (e) {
				kp_strbuf sb = KP_STRBUF_INIT;
				kp_strbuf_addf(&sb, "cannot write '%s': %s", kp_strbuf_str(&bk),
					       strerror(-e));
				kp_rw_diag_add(r, NULL, 0, 0, -1, "error", NULL,
					       kp_strbuf_str(&sb));
				kp_strbuf_release(&sb);
				r->status = KP_EXIT_INPUT;
			}
			kp_strbuf_release(&bk);
			if (e)
				return -1;
		}
		if (write_or_diag(r, path, out, outlen))
			return -1;
		r->output = kp_xstrdup(path);
		return 0;
	}
	if (!o->out_dir)
		return 0;
	size_t k = strlen(root);
	int top = !strcmp(root, "/");
	if (!top && (strncmp(abs, root, k) || abs[k] != '/')) {
		kp_strbuf sb = KP_STRBUF_INIT;
		kp_strbuf_addf(&sb,
			       "not written: the file lies outside the inputs' directory '%s', "
			       "which --out-dir mirrors; use -i or --diff",
			       root);
		kp_rw_diag_add(r, NULL, 0, 0, -1, "error", NULL, kp_strbuf_str(&sb));
		kp_strbuf_release(&sb);
		r->status = KP_EXIT_INPUT;
		return -1;
	}
	const char *rel = abs + k + (top ? 0 : 1);
	char *dest = kp_batch_join(o->out_dir, rel);
	char *dd = kp_xstrdup(dest);
	int me = mkdirs(dirname(dd));
	free(dd);
	int rc = 0;
	if (me) {
		kp_strbuf sb = KP_STRBUF_INIT;
		kp_strbuf_addf(&sb, "cannot create the directory of '%s': %s", dest, strerror(-me));
		kp_rw_diag_add(r, NULL, 0, 0, -1, "error", NULL, kp_strbuf_str(&sb));
		kp_strbuf_release(&sb);
		r->status = KP_EXIT_INPUT;
		rc = -1;
	} else if (!write_or_diag(r, dest, out, outlen))
		r->output = kp_xstrdup(dest);
	else
		rc = -1;
	free(dest);
	return rc;
}

int kp_rw_write_header(const kp_rw_output *o, kp_rw_result *x, const char *root)
{
	char *old = NULL;
	size_t oldlen = 0;
	int e = kp_read_file(x->abs_path, &old, &oldlen);
	if (e) {
		kp_strbuf sb = KP_STRBUF_INIT;
		kp_strbuf_addf(&sb, "cannot read: %s", strerror(-e));
		kp_rw_diag_add(x, NULL, 0, 0, -1, "error", NULL, kp_strbuf_str(&sb));
		kp_strbuf_release(&sb);
		x->status = KP_EXIT_INPUT;
		return -1;
	}
	int rc = kp_rw_write(o, x, x->path, x->abs_path, old, oldlen, x->text, x->textlen, root);
	free(old);
	return rc;
}

/* One file, in a child: rewrite, write the output, fill r. */
