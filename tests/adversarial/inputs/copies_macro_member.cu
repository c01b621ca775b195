// adversarial input: tile accessor macros whose parameter is followed by a
// member (`#define A_AT(p, k) As[p.r][k]`, `p->c`): kpipe expands such
// macros so that it can pipeline the loop, and must substitute `p` there
// like the preprocessor does (an unfixed kpipe left `p.r` as written, so
// the rewrite read row p.r of another `p` in scope, or did not compile).
// Expected: both loops rewritten; the expanded accesses read `pos.r` and
// `pp->c`; cpudiff (copies_macro_member.launch.json) finds the rewrite of
// k_member equal to the original.
#include <cuda_runtime.h>
#define T 16
#define A_AT(p, k) As[p.r][k]
#define B_AT(p, k) Bs[k][p->c]
struct Pos {
    int r, c;
};
__global__ void k_member(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    Pos pos, p; // `p` (row 0) is not the macro's argument
    pos.r = ty;
    pos.c = tx;
    p.r = 0;
    p.c = 0;
    float acc = (float)p.c;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[ty * K + k0 + tx];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += A_AT(pos, kk) * (float)(kk + 1);
        __syncthreads();
    }
    C[ty * T + tx] = acc;
}
__global__ void k_arrow(const float *__restrict__ B, float *__restrict__ C, int K)
{
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    Pos pos;
    pos.r = ty;
    pos.c = tx;
    const Pos *pp = &pos;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        Bs[ty][tx] = B[ty * K + k0 + tx];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += B_AT(pp, kk);
        __syncthreads();
    }
    C[ty * T + tx] = acc;
}
