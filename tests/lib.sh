# tests/lib.sh - what the shell tests share (sourced, not run):
#
#   . "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
#
#   root, kpipe        the checkout ($KPIPE_SOURCE_DIR, else the one holding
#                      this file) and the kpipe binary ($KPIPE, else
#                      build/kpipe), made absolute
#   kp_tmpdir NAME     sets tmp to a fresh $TMPDIR/kpipe-NAME.XXXXXX (/tmp
#                      without TMPDIR), removed on exit (read-only parts too)
#   check WHAT CMD...  CMD must succeed: one pass, or one failure and
#                      "FAIL: WHAT"
#   ok, bad MSG...     one pass; one failure and "FAIL: MSG"
#   kp_summary [NAME]  prints "[NAME: ]N passed, N failed"; succeeds when
#                      nothing failed (make it the script's last command)
#   kp_find_nvcc       sets nvcc ($NVCC, else nvcc on PATH, else
#                      /usr/local/cuda/bin/nvcc), or prints "SKIP: nvcc not
#                      found" and exits 77; kp_nvcc_cached ARGS... runs it
#                      through the tests' nvcc cache (tests/nvcc_cached.sh)
#   kp_have_gpu        whether nvidia-smi lists a GPU
#   kp_gen_kernels N   prints a file of N small tiled matmul kernels (mm0,
#                      mm1, ...), each with one pipelinable K-loop
#
# The counters are pass and fail.  Scripts keep their own `set` options.
# shellcheck shell=bash
# shellcheck disable=SC2034 # root, kpipe, tmp and nvcc are for the scripts

# CTest runs every test with KPIPE_NO_PTXAS=1 (tests/CMakeLists.txt); a
# test run by hand gets the same, so its verdicts are CTest's (with nvcc
# here kpipe would ask ptxas and refuse loops for register limits the
# expected outputs leave out).  The tests about ptxas unset it themselves.
export KPIPE_NO_PTXAS="${KPIPE_NO_PTXAS-1}"
root="${KPIPE_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
kpipe="${KPIPE:-$root/build/kpipe}"
case "$kpipe" in /*) ;; *) kpipe="$PWD/$kpipe" ;; esac
pass=0
fail=0

kp_tmpdir() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/kpipe-$1.XXXXXX") || exit 1
	trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
}

check() {
	local what="$1"
	shift
	if "$@"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $what"
	fi
}

ok() { pass=$((pass + 1)); }

bad() {
	fail=$((fail + 1))
	echo "FAIL: $*"
}

kp_summary() {
	echo "${1:+$1: }$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}

kp_find_nvcc() {
	nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
	if [ ! -x "$nvcc" ]; then
		echo "SKIP: nvcc not found"
		exit 77
	fi
}

# kp_nvcc_cached ARGS...: "$nvcc" ARGS..., through tests/nvcc_cached.sh
# (results by content hash) when KPIPE_NVCC_CACHE names its folder (ctest
# sets it: the sanitizer build's rewrites are the plain build's, and a rerun
# compiles only what changed).
kp_nvcc_cached() {
	if [ -n "${KPIPE_NVCC_CACHE:-}" ]; then
		NVCC_REAL="$nvcc" bash "$root/tests/nvcc_cached.sh" "$@"
	else
		"$nvcc" "$@"
	fi
}

# kp_nvcc_both FILE: compiles FILE for sm_80 and sm_90 in one nvcc run (one
# host compile: CI time) into $tmp; its stderr stays in $tmp/nv.  Returns
# nvcc's status.  kp_nvcc_warnings: that run's warnings, without the file
# and line, sorted (to compare a rewrite's with its original's).
# kp_nvcc_arches="80" (set for the call) builds for sm_80 only: for a
# rewrite that `kpipe validate` then compiles for sm_90 and holds to no
# new warnings (its step 1), so that sm_90 is not compiled twice (CI time).
kp_nvcc_both() {
	local a gencode=()
	for a in ${kp_nvcc_arches:-80 90}; do
		gencode+=(-gencode "arch=compute_$a,code=sm_$a")
	done
	kp_nvcc_cached "${gencode[@]}" -c -o "$tmp/kp_both.o" "$1" 2>"$tmp/nv"
}
kp_nvcc_warnings() {
	grep -i warning "$tmp/nv" | sed 's/^[^:]*([0-9]*): //' | sort
}

# kp_nvcc_check WHAT SRC OUT: OUT (a rewrite of SRC) builds for sm_80 and
# sm_90 (kp_nvcc_arches) with no warning SRC does not have: one ok, or a
# bad line naming WHAT.  SRC's warnings are built once while the same SRC
# comes again.
kp_nvcc_check() {
	local what="$1" src="$2" out="$3" arches="${kp_nvcc_arches:-80 90}"
	if [ "${kp_warn_src:-}" != "$arches $src" ]; then
		kp_nvcc_both "$src"
		kp_warn_text=$(kp_nvcc_warnings)
		kp_warn_src="$arches $src"
	fi
	if ! kp_nvcc_both "$out"; then
		bad "$what: nvcc (sm_${arches// /, sm_}) failed: $(head -c 400 "$tmp/nv")"
	elif [ "$(kp_nvcc_warnings)" != "$kp_warn_text" ]; then
		bad "$what: new nvcc warnings: $(kp_nvcc_warnings | head -3)"
	else
		ok
	fi
}

kp_have_gpu() {
	command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'
}

kp_gen_kernels() {
	echo '#include <cuda_runtime.h>'
	for ((i = 0; i < $1; i++)); do
		cat <<K
__global__ void mm$i(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int N, int K)
{
    __shared__ float As[16][16];
    __shared__ float Bs[16][16];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < 16; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}
K
	done
}
