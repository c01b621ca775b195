// refused_load_in_helper.cu - fp32 C = A * B (row-major), 16x16 tiles, one
// output per thread, with the global-to-shared copies factored into a
// __device__ helper called from the K-loop:
//   for (...) { load_tile(As, ...); load_tile(Bs, ...); __syncthreads();
//               COMPUTE; __syncthreads(); }
// M, N and K must be multiples of 16.
//
// kpipe: REFUSE for now (loads in a called function).  Seeing what the
// helper writes needs inter-procedural analysis (or inlining), which kpipe
// does not do yet; the loop is otherwise a textbook candidate.

#define LH_TILE 16

// Copies the LH_TILE x LH_TILE block whose top-left element is
// src[r0 * ld + c0] into dst, one element per thread.
__device__ __forceinline__ void load_tile(float (&dst)[LH_TILE][LH_TILE],
                                          const float *__restrict__ src,
                                          int ld, int r0, int c0)
{
    dst[threadIdx.y][threadIdx.x] =
        src[(size_t)(r0 + threadIdx.y) * ld + c0 + threadIdx.x];
}

__global__ void matmul_load_helper(const float *__restrict__ A,
                                   const float *__restrict__ B,
                                   float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[LH_TILE][LH_TILE];
    __shared__ float Bs[LH_TILE][LH_TILE];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int bm = blockIdx.y * LH_TILE;
    const int bn = blockIdx.x * LH_TILE;
    float acc = 0.0f;

    for (int k0 = 0; k0 < K; k0 += LH_TILE) {
        load_tile(As, A, K, bm, k0);
        load_tile(Bs, B, N, k0, bn);
        __syncthreads();

#pragma unroll
        for (int kk = 0; kk < LH_TILE; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }

    if (bm + ty < M && bn + tx < N)
        C[(size_t)(bm + ty) * N + bn + tx] = acc;
}
