// matmul_compute_helper.cu - fp32 C = A * B (row-major), 32x32 tiles, one
// output per thread, with the math over the tiles factored into __device__
// helpers that take them as references and pointers to const, as tutorial
// and library kernels do:
//   for (...) { As[..] = A[..]; Bs[..] = B[..]; __syncthreads();
//               acc += tile_dot(As, Bs, ty, tx); __syncthreads(); }
// M, N and K must be multiples of 32.
//
// kpipe: eligible.  A helper whose parameter is a pointer or reference to
// const only reads the tile, so the rewrite passes it the current stage at
// the call site (`tile_dot(As[stage], Bs[stage], ty, tx)`) and leaves
// the helper alone.  A helper with a non-const parameter may write the tile
// and is refused (kpipe-compute-writes-tile).

#define CH_TILE 32

// The dot product of row r of a and column c of b.
__device__ __forceinline__ float tile_dot(const float (&a)[CH_TILE][CH_TILE],
                                          const float (&b)[CH_TILE][CH_TILE],
                                          int r, int c)
{
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < CH_TILE; ++k)
        s += a[r][k] * b[k][c];
    return s;
}

__global__ void matmul_compute_helper(const float *__restrict__ A,
                                      const float *__restrict__ B,
                                      float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[CH_TILE][CH_TILE];
    __shared__ float Bs[CH_TILE][CH_TILE];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * CH_TILE + ty;
    const int col = blockIdx.x * CH_TILE + tx;
    float acc = 0.0f;

    // kpipe: register staging, 1 buffer, 2 barriers: requested with --variant register-2bar
    {
        int k0 = 0;
        int kp_stage = 0;
        float kp_reg0[1] = {}; // kpipe: one-element arrays, not scalars: fewer registers (docs/design.md)
        float kp_reg1[1] = {};
        if (k0 < K) {
            As[ty][tx] = A[(size_t)row * K + k0 + tx];
            Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        }
        __syncthreads();
        for (; k0 < K; k0 += CH_TILE) {
            const bool kp_has_next = (k0 + CH_TILE) < K;
            if (kp_has_next) {
                kp_reg0[0] = A[(size_t)row * K + (k0 + CH_TILE) + tx];
                kp_reg1[0] = B[(size_t)((k0 + CH_TILE) + ty) * N + col];
                __syncwarp(); // kpipe: keeps the loads above the math (ptxas)
            }
            acc += tile_dot(As, Bs, ty, tx);
            __syncthreads();
            {
                As[ty][tx] = kp_reg0[0];
                Bs[ty][tx] = kp_reg1[0];
            }
            __syncthreads();
            kp_stage ^= 1;
        }
    }
    C[(size_t)row * N + col] = acc;
}
