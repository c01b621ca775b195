/*
 * recover.c - text-level help for the front end so that clang parses what
 * nvcc parses (recover.h).
 *
 * nvcc accepts launch dimensions written as braced lists
 * (`k<<<grid, {16, 16}>>>`), which clang's parser rejects ("expected
 * expression"), and passes `%laneid`, `%warpid`, `%smid`, `%clock64` ...
 * of an asm string to ptxas as they are, which clang rejects ("invalid %
 * escape").  kp_recover_text writes the text clang parses so that it takes
 * both, byte for byte at the same offsets: `{16, 16}` becomes `(16, 16)`
 * (a comma expression: clang only needs it to parse; kpipe reads the
 * launch's dimensions from the file's own text), `%laneid` becomes
 * ` laneid`.  The file kpipe edits and writes is never this copy.
 *
 * A parse error in host code (a PyTorch extension without libtorch:
 * `x.data_ptr<at::Half>()` with `at` undeclared) is left behind by
 * blanking the top-level declaration it lies in (kp_host_decl_at,
 * kp_blank_range) and parsing again: host_skip.c and parse.c do that,
 * and say so.
 */
#include "recover.h"

#include "util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ lexing */

static int is_id(char c) { return kp_is_ident_char(c); }

/* The end of the string or character literal that starts at i (s[i] is
 * the quote; a raw string R"d( ... )d" when raw is set). */
static size_t literal_end(const char *s, size_t n, size_t i, int raw)
{
	char q = s[i];
	if (raw) {
		size_t d = i + 1;
		while (d < n && s[d] != '(' && d - i < 20)
			d++;
		size_t dl = d - (i + 1);
		for (size_t j = d + 1; j + dl + 1 < n + 1 && j < n; j++)
			if (s[j] == ')' && j + 1 + dl < n && !strncmp(s + j + 1, s + i + 1, dl) &&
			    s[j + 1 + dl] == '"')
				return j + dl + 2;
		return n;
	}
	for (size_t j = i + 1; j < n; j++) {
		if (s[j] == '\\') {
			j++;
			continue;
		}
		if (s[j] == q || s[j] == '\n')
			return j + 1;
	}
	return n;
}

/* Whether s[i] begins a preprocessor directive (a `#` first on its line). */
static int at_directive(const char *s, size_t i)
{
	if (s[i] != '#')
		return 0;
	for (size_t j = i; j > 0; j--) {
		char c = s[j - 1];
		if (c == '\n')
			return 1;
		if (c != ' ' && c != '\t')
			return 0;
	}
	return 1;
}

/* The end of the directive at i (its line, with continuations). */
static size_t directive_end(const char *s, size_t n, size_t i)
{
	for (; i < n && s[i] != '\n'; i++)
		if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\n')
			i++;
	return i;
}

/* Skips blanks and comments from i (and directives when dir is set). */
static size_t skip_space(const char *s, size_t n, size_t i, int dir)
{
	while (i < n) {
		if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\f' ||
		    s[i] == '\v')
			i++;
		else if (s[i] == '/' && i + 1 < n && s[i + 1] == '/')
			for (i += 2; i < n && s[i] != '\n'; i++)
				;
		else if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
			const char *e = i + 2 < n ? strstr(s + i + 2, "*/") : NULL;
			i = e && (size_t)(e - s) < n ? (size_t)(e - s) + 2 : n;
		} else if (dir && at_directive(s, i))
			i = directive_end(s, n, i);
		else
			break;
	}
	return i;
}

/* Whether s[0..n) is a literal's encoding prefix (u8, L, uR ...). */
static int is_prefix(const char *s, size_t n)
{
	static const char *const p[] = {"L", "u", "U", "u8", "R", "LR", "uR", "UR", "u8R", NULL};
	for (int i = 0; p[i]; i++)
		if (strlen(p[i]) == n && !strncmp(s, p[i], n))
			return 1;
	return 0;
}

/* One token step: from a significant byte i to the next one.  Sets *lit
 * when the token is a string literal (then [*lb, *le) its extent). */
static size_t next_token(const char *s, size_t n, size_t i, int *lit, size_t *lb, size_t *le)
{
	*lit = 0;
	if (s[i] == '"' || s[i] == '\'') {
		*lit = s[i] == '"';
		*lb = i;
		*le = literal_end(s, n, i, 0);
		return *le;
	}
	if (s[i] >= '0' && s[i] <= '9') { /* a pp-number: 1'000, 1e+5, 0x1p-3f */
		size_t j = i + 1;
		while (j < n && (is_id(s[j]) || s[j] == '.' ||
				 (s[j] == '\'' && j + 1 < n && is_id(s[j + 1])) ||
				 ((s[j] == '+' || s[j] == '-') && strchr("eEpP", s[j - 1]))))
			j++;
		return j;
	}
	if (is_id(s[i])) {
		size_t j = i;
		while (j < n && is_id(s[j]))
			j++;
		/* an encoding prefix or a raw string (not a digit separator) */
		if (j < n && (s[j] == '"' || s[j] == '\'') && is_prefix(s + i, j - i)) {
			int raw = s[j - 1] == 'R';
			*lit = s[j] == '"';
			*lb = j;
			*le = literal_end(s, n, j, raw && s[j] == '"');
			return *le;
		}
		return j;
	}
	return i + 1;
}

static int word_is(const char *s, size_t b, size_t e, const char *w)
{
	return e - b == strlen(w) && !strncmp(s + b, w, e - b);
}

/* ------------------------------------------------- the text clang sees */

/* In the asm statement whose keyword ends at i: each string literal of
 * the template (up to the first ':' or the closing ')') gets its `%name`
 * escapes blanked.  Returns how many were. */
static int asm_strings(const char *s, char *out, size_t n, size_t i)
{
	int changed = 0, lit;
	size_t lb, le;
	i = skip_space(s, n, i, 1);
	while (i < n && is_id(s[i])) { /* volatile, __volatile__, inline, goto */
		size_t j = i;
		while (j < n && is_id(s[j]))
			j++;
		i = skip_space(s, n, j, 1);
	}
	if (i >= n || s[i] != '(')
		return 0;
	int depth = 0;
	for (i++; i < n;) {
		i = skip_space(s, n, i, 1);
		if (i >= n)
			break;
		if (depth == 0 && (s[i] == ':' || s[i] == ')'))
			break;
		if (s[i] == '(')
			depth++;
		else if (s[i] == ')')
			depth--;
		size_t j = next_token(s, n, i, &lit, &lb, &le);
		for (size_t k = lb + 1; lit && k + 1 < le; k++) {
			if (s[k] == '\\') {
				k++;
				continue;
			}
			if (s[k] != '%')
				continue;
			char c = s[k + 1];
			if (c == '%') {
				k++;
				continue;
			}
			if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
				out[k] = ' ';
				changed++;
			}
		}
		i = j;
	}
	return changed;
}

/* The launch configuration after the `<<<` that ends at i: each argument
 * that is a braced list reads as a parenthesised one.  Returns how many. */
static int launch_braces(const char *s, char *out, size_t n, size_t i)
{
	int changed = 0, lit;
	size_t lb, le;
	for (;;) {
		i = skip_space(s, n, i, 1);
		if (i >= n)
			return changed;
		size_t open = i;
		int depth = 0, braced = s[i] == '{';
		size_t close = 0;
		/* the argument: up to a ',' or '>>>' at depth 0 */
		while (i < n) {
			i = skip_space(s, n, i, 1);
			if (i >= n)
				return changed;
			char c = s[i];
			if (depth == 0 && (c == ',' || (c == '>' && !strncmp(s + i, ">>>", 3))))
				break;
			if (c == '(' || c == '[' || c == '{')
				depth++;
			else if (c == ')' || c == ']' || c == '}') {
				if (--depth < 0)
					return changed;
				if (depth == 0 && c == '}' && braced && !close)
					close = i;
				else if (depth == 0)
					braced = 0;
			} else if (depth == 0 && braced && close)
				braced = 0; /* `{...}.x`: something after the list */
			else if (c == ';')
				return changed;
			i = next_token(s, n, i, &lit, &lb, &le);
		}
		if (braced && close) {
			if (close == open + 1) {
				/* `{}`, dim3(): the text kpipe reads says so */
				out[open] = '1';
				out[close] = ' ';
			} else {
				out[open] = '(';
				out[close] = ')';
			}
			changed++;
		}
		if (s[i] == '>')
			return changed;
		i++;
	}
}

char *kp_recover_text(const char *src, size_t len)
{
	char *out = kp_xmalloc(len + 1);
	memcpy(out, src, len);
	out[len] = '\0';
	int changed = 0, lit;
	size_t lb, le;
	for (size_t i = skip_space(src, len, 0, 0); i < len; i = skip_space(src, len, i, 0)) {
		if (at_directive(src, i) && !(i + 1 < len && src[i + 1] == '#')) {
			/* a directive: only a #define's body can hold code */
			size_t e = directive_end(src, len, i);
			size_t d = skip_space(src, e, i + 1, 0);
			if (strncmp(src + d, "define", 6)) {
				i = e;
				continue;
			}
			i = d + 6;
			continue;
		}
		size_t j = next_token(src, len, i, &lit, &lb, &le);
		if (!lit && is_id(src[i]) &&
		    (word_is(src, i, j, "asm") || word_is(src, i, j, "__asm__") ||
		     word_is(src, i, j, "__asm")))
			changed += asm_strings(src, out, len, j);
		else if (src[i] == '<' && !strncmp(src + i, "<<<", 3)) {
			changed += launch_braces(src, out, len, i + 3);
			j = i + 3;
		}
		i = j;
	}
	if (!changed) {
		free(out);
		return NULL;
	}
	return out;
}

/* ------------------------------------------- top-level host declarations */

static const char *const device_words[] = {"__global__",   "__device__",  "__shared__",
					   "__constant__", "__managed__", NULL};

/* Whether the code of [b, e) names one of device_words. */
static int names_device(const char *s, size_t b, size_t e)
{
	int lit;
	size_t lb, le;
	for (size_t i = skip_space(s, e, b, 1); i < e; i = skip_space(s, e, i, 1)) {
		size_t j = next_token(s, e, i, &lit, &lb, &le);
		for (int w = 0; !lit && device_words[w]; w++)
			if (word_is(s, i, j, device_words[w]))
				return 1;
		i = j;
	}
	return 0;
}

/* What the head [b, e) of a declaration (up to its first '{') opens: 'n'
 * a namespace or an extern "C" block, 'f' a function's body, 'd' anything
 * else (a class, an initialiser), whose declaration ends at a ';'.  The
 * function's name into name. */
static char head_kind(const char *s, size_t b, size_t e, char *name, size_t namesz)
{
	int lit;
	size_t lb, le;
	size_t first_b = 0, first_e = 0, second_b = 0, second_e = 0, last_b = 0;
	size_t prev_id_b = 0, prev_id_e = 0;
	int ntok = 0, has_eq = 0, depth = 0;
	size_t name_b = 0, name_e = 0;
	for (size_t i = skip_space(s, e, b, 1); i < e; i = skip_space(s, e, i, 1)) {
		size_t j = next_token(s, e, i, &lit, &lb, &le);
		if (!ntok) {
			first_b = i;
			first_e = j;
		} else if (ntok == 1) {
			second_b = i;
			second_e = j;
		}
		ntok++;
		if (s[i] == '(' && depth == 0 && !name_e && prev_id_e) {
			name_b = prev_id_b;
			name_e = prev_id_e;
		}
		if (s[i] == '(' || s[i] == '[' || s[i] == '<')
			depth++;
		else if ((s[i] == ')' || s[i] == ']' || s[i] == '>') && depth > 0)
			depth--;
		else if (s[i] == '=' && depth == 0)
			has_eq = 1;
		if (is_id(s[i]) && !lit) {
			prev_id_b = i;
			prev_id_e = j;
		} else if (s[i] != ':')
			prev_id_e = 0;
		last_b = i;
		i = j;
	}
	if (ntok && (word_is(s, first_b, first_e, "namespace") ||
		     (word_is(s, first_b, first_e, "inline") &&
		      word_is(s, second_b, second_e, "namespace"))))
		return 'n';
	if (ntok == 2 && word_is(s, first_b, first_e, "extern") && s[last_b] == '"')
		return 'n';
	if (has_eq || !name_e)
		return 'd';
	size_t k = name_e - name_b < namesz ? name_e - name_b : namesz - 1;
	memcpy(name, s + name_b, k);
	name[k] = '\0';
	return 'f';
}

int kp_host_decl_at(const char *src, size_t len, size_t off, size_t *b, size_t *e, char *name,
		    size_t namesz)
{
	name[0] = '\0';
	int lit;
	size_t lb, le;
	size_t start = skip_space(src, len, 0, 1);
	char kind = 0; /* of the declaration being read: 0 head, 'f', 'd' */
	int depth = 0; /* braces inside the declaration */
	size_t body_open = 0;
	for (size_t i = start; i < len;) {
		size_t j = next_token(src, len, i, &lit, &lb, &le);
		char c = lit ? 0 : src[i];
		size_t end = 0; /* set when the declaration ends at j */
		if (c == '{') {
			if (depth == 0 && !kind) {
				kind = head_kind(src, start, i, name, namesz);
				body_open = i;
				if (kind == 'n') { /* its members are top level */
					kind = 0;
					name[0] = '\0';
					start = skip_space(src, len, j, 1);
					i = start;
					continue;
				}
			}
			depth++;
		} else if (c == '}') {
			if (depth == 0) { /* a namespace closes */
				start = skip_space(src, len, j, 1);
				i = start;
				kind = 0;
				continue;
			}
			if (--depth == 0 && kind == 'f')
				end = j;
		} else if (c == ';' && depth == 0)
			end = j;
		if (end) {
			if (off >= start && off < end) {
				*b = start;
				*e = end;
				if (kind != 'f')
					name[0] = '\0';
				return !names_device(src, start, end);
			}
			start = skip_space(src, len, end, 1);
			i = start;
			kind = 0;
			name[0] = '\0';
			continue;
		}
		i = skip_space(src, len, j, 1);
	}
	(void)body_open;
	if (off >= start && off < len) {
		/* an unfinished declaration at the end of the file */
		*b = start;
		*e = len;
		return !names_device(src, start, len);
	}
	return 0;
}

void kp_blank_range(char *text, size_t len, size_t b, size_t e)
{
	if (e > len)
		e = len;
	for (size_t i = b; i < e; i++) {
		if (at_directive(text, i)) {
			i = directive_end(text, e, i);
			continue;
		}
		if (text[i] != '\n' && text[i] != '\r')
			text[i] = ' ';
	}
}

/* --------------------------------------------------- the toolkit version */

static int version_of(const char *v, int *maj, int *min, int *build)
{
	*build = 0;
	return sscanf(v, "%d.%d.%d", maj, min, build) >= 2 ? 0 : -1;
}

int kp_toolkit_version(const char *root, int *maj, int *min, int *build)
{
	char path[4200];
	char *text = NULL;
	size_t n = 0;
	snprintf(path, sizeof(path), "%s/version.json", root);
	if (!kp_read_file(path, &text, &n)) {
		const char *p = strstr(text, "\"cuda_nvcc\"");
		p = p ? strstr(p, "\"version\"") : NULL;
		p = p ? strchr(p + 9, '"') : NULL;
		int rc = p ? version_of(p + 1, maj, min, build) : -1;
		free(text);
		if (!rc)
			return 0;
	}
	/* a toolkit installed from wheels: dist-info/nvidia_cuda_nvcc-X.Y.Z.dist-info */
	snprintf(path, sizeof(path), "%s/dist-info", root);
	DIR *d = opendir(path);
	if (d) {
		struct dirent *de;
		int rc = -1;
		while (rc && (de = readdir(d)))
			if (!strncmp(de->d_name, "nvidia_cuda_nvcc-", 17))
				rc = version_of(de->d_name + 17, maj, min, build);
		closedir(d);
		if (!rc)
			return 0;
	}
	snprintf(path, sizeof(path), "%s/include/cuda.h", root);
	if (kp_read_file(path, &text, &n))
		return -1;
	const char *p = strstr(text, "#define CUDA_VERSION ");
	int v = p ? atoi(p + 21) : 0;
	free(text);
	if (v < 1000)
		return -1;
	*maj = v / 1000;
	*min = v % 1000 / 10;
	*build = 0;
	return 0;
}
