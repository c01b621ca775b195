/*
 * util.h - small shared helpers: checked allocation, a growable string
 * buffer, a per-run arena, whole-file reading, temporary directories and
 * identifier characters.
 *
 * Ownership: a kp_strbuf owns its bytes until kp_strbuf_release() or
 * kp_strbuf_detach(); memory from a kp_arena lives until kp_arena_release().
 * Nothing here prints or exits except kp_xmalloc() on out-of-memory.
 */
#ifndef KPIPE_UTIL_H
#define KPIPE_UTIL_H

#include <stdarg.h>
#include <stddef.h>

#define KP_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define KP_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

void *kp_xmalloc(size_t n);
void *kp_xcalloc(size_t n, size_t size);
void *kp_xrealloc(void *p, size_t n);
char *kp_xstrdup(const char *s);
char *kp_xstrndup(const char *s, size_t n);

typedef struct {
	char *buf;
	size_t len;
	size_t cap;
} kp_strbuf;

#define KP_STRBUF_INIT {NULL, 0, 0}
void kp_strbuf_add(kp_strbuf *sb, const char *s, size_t n);
void kp_strbuf_adds(kp_strbuf *sb, const char *s);
void kp_strbuf_addc(kp_strbuf *sb, char c);
void kp_strbuf_addf(kp_strbuf *sb, const char *fmt, ...) KP_PRINTF(2, 3);
void kp_strbuf_vaddf(kp_strbuf *sb, const char *fmt, va_list ap);
const char *kp_strbuf_str(kp_strbuf *sb); /* never NULL */
char *kp_strbuf_detach(kp_strbuf *sb);    /* caller frees */
void kp_strbuf_release(kp_strbuf *sb);

/* Per-run arena: bump allocation in chunks, freed all at once. */
typedef struct kp_arena_chunk kp_arena_chunk;
typedef struct {
	kp_arena_chunk *head;
} kp_arena;

void *kp_arena_alloc(kp_arena *a, size_t n); /* zeroed */
char *kp_arena_strdup(kp_arena *a, const char *s);
char *kp_arena_strndup(kp_arena *a, const char *s, size_t n);
char *kp_arena_printf(kp_arena *a, const char *fmt, ...) KP_PRINTF(2, 3);
void kp_arena_release(kp_arena *a);

/* C identifiers (ASCII): a character of one; whether s is one (not NULL,
 * not empty, no leading digit); whether identifier `name` occurs as a
 * whole token in s[b, e). */
int kp_is_ident_char(char c);
int kp_is_ident(const char *s);
int kp_mentions_ident(const char *s, size_t b, size_t e, const char *name);

/* FNV-1a, 64 bits, over n bytes, continuing from h (KP_FNV1A64_INIT to
 * start): cache keys. */
#define KP_FNV1A64_INIT 1469598103934665603ULL
unsigned long long kp_fnv1a64(const void *p, size_t n, unsigned long long h);

/* Seconds on the monotonic clock: differences are wall times. */
double kp_now(void);

/* Reads a whole file; returns 0 or -errno. *out is NUL-terminated, caller frees. */
int kp_read_file(const char *path, char **out, size_t *len);
/* abs relative to the working directory when it lies under it, else abs
 * itself (malloc'd): how kpipe prints a path it found itself. */
char *kp_display_path(const char *abs);
/* The real path of the directory holding path (malloc'd); the working
 * directory's when path does not exist (stdin). */
char *kp_dir_of_real_path(const char *path);
/* Reads all of a stream (stdin). Same contract. */
int kp_read_stream(void *fp, char **out, size_t *len);
/* Temporary directories: kp_tempdir() makes $TMPDIR/kpipe-PURPOSE-XXXXXX
 * (/tmp when TMPDIR is unset or empty) and returns its path (caller
 * frees), or NULL with errno set; kp_tempdir_base() is the directory it is
 * made in.  kp_remove_tree() removes a directory and everything in it
 * (symbolic links are removed, not followed); returns 0 or -errno of the
 * first failure. */
char *kp_tempdir(const char *purpose);
const char *kp_tempdir_base(void);
int kp_remove_tree(const char *dir);

/* Writes atomically (safe_write.c): a temporary file in the destination's
 * directory, then rename; a signal, a full disk or a file-size limit leaves
 * the destination as it was.  Keeps the mode (and owner, where allowed) of
 * an existing destination and writes through a symbolic link.  Returns 0
 * or -errno. */
int kp_write_file_atomic(const char *path, const char *data, size_t len);
/* The same, with the mode, owner and group of the file `like` (backups). */
int kp_write_file_atomic_like(const char *path, const char *data, size_t len, const char *like);
/* Creates the missing directories above `path` (mode 0777 less the umask),
 * as `mkdir -p $(dirname path)`.  Returns 0 or -errno. */
int kp_make_parents(const char *path);

/* kpipe's exit statuses, one table for every command (README, man page):
 * every layer that reports an outcome uses them. */
enum {
	KP_EXIT_OK = 0,
	KP_EXIT_NOTHING = 1, /* the check says no: analyze found no candidate loop,
			      * rewrite --dry-run would change a file, rewrite
			      * --Werror printed a warning (docs/kpipe.1) */
	KP_EXIT_USAGE = 2,
	KP_EXIT_INPUT = 3, /* unreadable input or parse error */
	KP_EXIT_VALIDATION = 4,
	KP_EXIT_TOOL = 5, /* a required tool is missing */
	KP_EXIT_INCOMPLETE = 6,
};

/* Whether a and b are equal once blanks and tabs are left out of both
 * ("k<32,32>" and "k<32, 32>"). */
int kp_str_eq_but_space(const char *a, const char *b);

#endif
