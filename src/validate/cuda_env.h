/*
 * cuda_env.h - finding the CUDA toolkit kpipe validates with: nvcc and its
 * version, cuobjdump, nvdisasm and the CUDA include directory.
 *
 * Search order for the toolkit root: the --cuda-path option, $CUDA_HOME,
 * $CUDA_PATH, the directory of the first nvcc on $PATH, /usr/local/cuda.
 * An explicit --cuda-path is authoritative: when it holds no bin/nvcc the
 * search stops there instead of silently using another toolkit.
 * cuobjdump and nvdisasm are looked for in the same places (each root's bin/,
 * then $PATH), then in the NVIDIA pip wheels (site-packages/nvidia/cuNN/bin),
 * which ship them for machines whose toolkit lacks them.
 *
 * Ownership: every string in a kp_cuda_env is heap-owned by it until
 * kp_cuda_env_release(). Nothing here prints.
 */
#ifndef KPIPE_CUDA_ENV_H
#define KPIPE_CUDA_ENV_H

typedef struct {
	char *root;        /* toolkit root ("/usr/local/cuda"), NULL if no nvcc */
	char *nvcc;        /* path to nvcc, NULL if not found */
	char *version;     /* "13.0" from `nvcc --version`, NULL if unknown */
	int version_major; /* 13, or 0 */
	int version_minor; /* 0 */
	char *include_dir; /* directory holding cuda_runtime.h, or NULL */
	char *cuobjdump;   /* path, or NULL */
	char *nvdisasm;    /* path, or NULL */
	char *error;       /* why nvcc was not found, lowercase, no full stop; or NULL */
} kp_cuda_env;

#define KP_CUDA_ENV_INIT {NULL, NULL, NULL, 0, 0, NULL, NULL, NULL, NULL}

/*
 * Fills *out, overwriting it (release an earlier result first). cuda_path_opt
 * is the --cuda-path value or NULL. Returns 0 when nvcc was found (its version is
 * then parsed when `nvcc --version` answers), or -ENOENT when it was not;
 * the other tools are looked for either way and are NULL when absent.
 */
int kp_cuda_env_find(kp_cuda_env *out, const char *cuda_path_opt);
/* The same without the version and the disassemblers (version,
 * cuobjdump and nvdisasm stay NULL), so without running `nvcc --version`
 * and the python3 that looking for them in pip wheels may run: ptxas's
 * probe needs nvcc only, on every rewrite, its reports cached or not. */
int kp_cuda_env_find_nvcc(kp_cuda_env *out, const char *cuda_path_opt);

/* Parses "release 13.0" out of `nvcc --version` output: 0 or -EINVAL. */
int kp_cuda_parse_nvcc_version(const char *text, int *major, int *minor);

void kp_cuda_env_release(kp_cuda_env *env);

#endif
