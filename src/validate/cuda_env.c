/*
 * cuda_env.c - locates nvcc, cuobjdump, nvdisasm and the CUDA headers, and
 * reads the toolkit version from `nvcc --version`.
 *
 * It only looks (stat, access, glob) and runs `nvcc --version` and, when a
 * disassembler is still missing, one python3 one-liner that names the
 * site-packages directories; it never prints and never installs anything.
 */
#define _POSIX_C_SOURCE 200809L
#include "cuda_env.h"

#include "proc.h"
#include "util.h"

#include <errno.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* "<dir>/<name>" when that is an executable file, else NULL. */
static char *exec_in(const char *dir, const char *name)
{
	if (!dir || !*dir)
		return NULL;
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "%s/%s", dir, name);
	if (kp_is_executable(kp_strbuf_str(&sb)))
		return kp_strbuf_detach(&sb);
	kp_strbuf_release(&sb);
	return NULL;
}

static char *exec_in_bin(const char *root, const char *name)
{
	if (!root || !*root)
		return NULL;
	kp_strbuf dir = KP_STRBUF_INIT;
	kp_strbuf_addf(&dir, "%s/bin", root);
	char *p = exec_in(kp_strbuf_str(&dir), name);
	kp_strbuf_release(&dir);
	return p;
}

/* "/a/b/bin/nvcc" -> "/a/b"; NULL when the path has no such shape. */
static char *root_of_tool(const char *tool)
{
	char *p = kp_xstrdup(tool);
	for (int i = 0; i < 2; i++) {
		char *slash = strrchr(p, '/');
		if (!slash) {
			free(p);
			return NULL;
		}
		*slash = '\0';
	}
	if (!*p) { /* "/bin/nvcc" */
		free(p);
		return kp_xstrdup("/");
	}
	return p;
}

/* The last (highest-sorting) match of a glob pattern, or NULL. */
static char *glob_last(const char *pattern, int want_exec)
{
	glob_t g;
	char *found = NULL;
	if (glob(pattern, 0, NULL, &g) == 0) {
		for (size_t i = g.gl_pathc; i-- > 0 && !found;)
			if (want_exec ? kp_is_executable(g.gl_pathv[i]) : is_file(g.gl_pathv[i]))
				found = kp_xstrdup(g.gl_pathv[i]);
	}
	globfree(&g);
	return found;
}

static char *include_dir_of(const char *root)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "%s/include/cuda_runtime.h", root);
	if (is_file(kp_strbuf_str(&sb))) {
		sb.len -= strlen("/cuda_runtime.h");
		sb.buf[sb.len] = '\0';
		return kp_strbuf_detach(&sb);
	}
	sb.len = 0;
	kp_strbuf_addf(&sb, "%s/targets/*/include/cuda_runtime.h", root);
	char *hdr = glob_last(kp_strbuf_str(&sb), 0);
	kp_strbuf_release(&sb);
	if (hdr)
		*strrchr(hdr, '/') = '\0';
	return hdr;
}

int kp_cuda_parse_nvcc_version(const char *text, int *major, int *minor)
{
	const char *p = text ? strstr(text, "release ") : NULL;
	if (!p)
		return -EINVAL;
	p += strlen("release ");
	char *end;
	long ma = strtol(p, &end, 10);
	if (end == p || *end != '.')
		return -EINVAL;
	p = end + 1;
	long mi = strtol(p, &end, 10);
	if (end == p || ma <= 0 || ma > 1000 || mi < 0 || mi > 1000)
		return -EINVAL;
	*major = (int)ma;
	*minor = (int)mi;
	return 0;
}

static void read_version(kp_cuda_env *env)
{
	char *argv[] = {env->nvcc, "--version", NULL};
	char *out = NULL;
	int major, minor;
	if (kp_run_capture(argv, &out) == 0 &&
	    kp_cuda_parse_nvcc_version(out, &major, &minor) == 0) {
		kp_strbuf sb = KP_STRBUF_INIT;
		kp_strbuf_addf(&sb, "%d.%d", major, minor);
		env->version = kp_strbuf_detach(&sb);
		env->version_major = major;
		env->version_minor = minor;
	}
	free(out);
}

/* The site-packages directories of python3 (purelib, platlib, user site),
 * newline-separated; NULL when python3 is missing. */
static char *python_site_dirs(void)
{
	char *argv[] = {"python3", "-c",
			"import site, sysconfig\n"
			"p = sysconfig.get_paths()\n"
			"print(p.get('purelib', ''))\n"
			"print(p.get('platlib', ''))\n"
			"print(site.getusersitepackages() if site.ENABLE_USER_SITE else '')\n",
			NULL};
	char *out = NULL;
	if (kp_run_capture(argv, &out) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* nvidia/cuNN/bin/<name> (CUDA 13 wheels) or nvidia/cuda_<x>/bin/<name>
 * (CUDA 12 wheels) under any of the site directories. */
static char *find_in_wheels(const char *sites, const char *name)
{
	static const char *const layouts[] = {"nvidia/cu[0-9]*/bin", "nvidia/cuda_*/bin"};
	if (!sites)
		return NULL;
	char *copy = kp_xstrdup(sites);
	char *found = NULL;
	char *save = NULL;
	for (char *d = strtok_r(copy, "\n", &save); d && !found; d = strtok_r(NULL, "\n", &save)) {
		for (size_t i = 0; i < KP_ARRAY_LEN(layouts) && !found; i++) {
			kp_strbuf pat = KP_STRBUF_INIT;
			kp_strbuf_addf(&pat, "%s/%s/%s", d, layouts[i], name);
			found = glob_last(kp_strbuf_str(&pat), 1);
			kp_strbuf_release(&pat);
		}
	}
	free(copy);
	return found;
}

/* One tool, in the documented order; *sites caches python's answer. */
static char *find_tool(const char *name, const char *cuda_path_opt, const char *root, char **sites,
		       int *asked_python)
{
	const char *roots[] = {cuda_path_opt, root, getenv("CUDA_HOME"), getenv("CUDA_PATH")};
	char *p = NULL;
	for (size_t i = 0; i < KP_ARRAY_LEN(roots) && !p; i++)
		p = exec_in_bin(roots[i], name);
	if (!p)
		p = kp_find_on_path(name);
	if (!p)
		p = exec_in_bin("/usr/local/cuda", name);
	if (!p) {
		if (!*asked_python) {
			*sites = python_site_dirs();
			*asked_python = 1;
		}
		p = find_in_wheels(*sites, name);
	}
	return p;
}

static void set_error(kp_cuda_env *env, const char *fmt, const char *arg)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, fmt, arg);
	env->error = kp_strbuf_detach(&sb);
}

/* nvcc (and with `tools` its version and the disassemblers, which run
 * nvcc --version and may ask python3). */
static int env_find(kp_cuda_env *out, const char *cuda_path_opt, int tools)
{
	kp_cuda_env env = KP_CUDA_ENV_INIT;
	if (cuda_path_opt && !*cuda_path_opt)
		cuda_path_opt = NULL;

	if (cuda_path_opt) {
		env.nvcc = exec_in_bin(cuda_path_opt, "nvcc");
		if (env.nvcc)
			env.root = kp_xstrdup(cuda_path_opt);
		else
			set_error(&env, "no bin/nvcc under --cuda-path '%s'", cuda_path_opt);
	} else {
		const char *roots[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH")};
		for (size_t i = 0; i < KP_ARRAY_LEN(roots) && !env.nvcc; i++) {
			env.nvcc = exec_in_bin(roots[i], "nvcc");
			if (env.nvcc)
				env.root = kp_xstrdup(roots[i]);
		}
		if (!env.nvcc) {
			env.nvcc = kp_find_on_path("nvcc");
			if (env.nvcc)
				env.root = root_of_tool(env.nvcc);
		}
		if (!env.nvcc) {
			env.nvcc = exec_in_bin("/usr/local/cuda", "nvcc");
			if (env.nvcc)
				env.root = kp_xstrdup("/usr/local/cuda");
		}
		if (!env.nvcc)
			set_error(
				&env, "%s",
				"nvcc not found (looked in $CUDA_HOME, $CUDA_PATH, $PATH, /usr/local/cuda)");
	}

	if (env.nvcc) {
		if (tools)
			read_version(&env);
		if (env.root)
			env.include_dir = include_dir_of(env.root);
	}

	char *sites = NULL;
	int asked_python = 0;
	if (tools) {
		env.cuobjdump =
			find_tool("cuobjdump", cuda_path_opt, env.root, &sites, &asked_python);
		env.nvdisasm =
			find_tool("nvdisasm", cuda_path_opt, env.root, &sites, &asked_python);
	}
	free(sites);

	*out = env;
	return env.nvcc ? 0 : -ENOENT;
}

int kp_cuda_env_find(kp_cuda_env *out, const char *cuda_path_opt)
{
	return env_find(out, cuda_path_opt, 1);
}

int kp_cuda_env_find_nvcc(kp_cuda_env *out, const char *cuda_path_opt)
{
	return env_find(out, cuda_path_opt, 0);
}

void kp_cuda_env_release(kp_cuda_env *env)
{
	free(env->root);
	free(env->nvcc);
	free(env->version);
	free(env->include_dir);
	free(env->cuobjdump);
	free(env->nvdisasm);
	free(env->error);
	*env = (kp_cuda_env)KP_CUDA_ENV_INIT;
}
