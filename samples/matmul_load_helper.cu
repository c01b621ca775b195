// matmul_load_helper.cu - fp32 C = A * B (row-major), 16x16 tiles, one
// output per thread, with the global-to-shared copies factored into a
// __device__ helper called from the K-loop, once per tile:
//   for (...) { load_tile(As, ...); load_tile(Bs, ...); __syncthreads();
//               COMPUTE; __syncthreads(); }
// M, N and K must be multiples of 16.
//
// kpipe: PIPELINE.  The "inline" pass replaces each call of load_tile by
// its body (dst, src, ld, r0 and c0 replaced by the call's arguments), the
// copies are then the loop's own, and the loop is pipelined like the
// textbook one; load_tile stays for other callers.

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
