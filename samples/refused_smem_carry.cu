// refused_smem_carry.cu - fp32 C = A * B with B renormalised as it streams
// in: each tile of B is scaled, as it is loaded, by a per-column factor in
// __shared__ cscale[], and the compute phase halves a column's factor
// whenever that column's sum of squares in the tile just computed passes a
// threshold (how streaming accumulators keep their inputs in range).  16x16
// tiles, one output per thread; M, N, K multiples of 16.
//
// K-loop shape: LOAD (which reads cscale[]); barrier; COMPUTE (which writes
// cscale[] in the first row of threads); barrier.
//
// kpipe: REFUSE (state carried through shared memory into the loads).  The
// next tile's loads read what this iteration's compute writes: pipelined,
// they would run before the write and scale by a stale factor.

#define SC_TILE 16

__global__ void matmul_rescaled(const float *__restrict__ A,
                                const float *__restrict__ B,
                                float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[SC_TILE][SC_TILE];
    __shared__ float Bs[SC_TILE][SC_TILE];
    __shared__ float cscale[SC_TILE];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * SC_TILE + ty;
    const int col = blockIdx.x * SC_TILE + tx;
    float acc = 0.0f;

    if (ty == 0)
        cscale[tx] = 1.0f;
    __syncthreads();

    for (int k0 = 0; k0 < K; k0 += SC_TILE) {
        As[ty][tx] = A[(size_t)row * K + k0 + tx];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col] * cscale[tx];
        __syncthreads();

        for (int kk = 0; kk < SC_TILE; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        if (ty == 0) {
            float s = 0.0f;
            for (int kk = 0; kk < SC_TILE; ++kk)
                s += Bs[kk][tx] * Bs[kk][tx];
            if (s > 64.0f)
                cscale[tx] = 0.5f * cscale[tx];
        }
        __syncthreads();
    }

    if (row < M && col < N)
        C[(size_t)row * N + col] = acc;
}
