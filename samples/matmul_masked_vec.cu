// matmul_masked_vec.cu - fp32 C = A * B (row-major), M and N multiples of
// 64, K and N multiples of 4 (the float4 copies are aligned): a 64x64
// block tile, K-tiles of 16, 256 threads of 4x4 outputs each.  Each thread
// copies one float4 of A's tile and one of B's through a local vector that
// is zero unless the vector starts inside the matrix, and whose elements
// past K are then cleared through a pointer to it:
//   float4 a{0.f, 0.f, 0.f, 0.f};
//   if (row < m && col < k) a = *reinterpret_cast<float4 const *>(&A[...]);
//   if (col + 4 > k) { float *const ap{reinterpret_cast<float *>(&a)}; ... ap[3 - i] = 0.f; }
//   *reinterpret_cast<float4 *>(&As[r][c]) = a;
//
// kpipe: PIPELINE (register staging).  The pointer points into the thread's
// own vector, so its stores cannot touch memory the tile loads read
// (kpipe-memory-order does not apply); the vector is the staging register.
// The store after the math keeps only the tile stores: the masking, the
// bounds tests and the locals they read stay in the prefetch.
__global__ void matmul_masked_vec(float const *A, float const *B, float *C, unsigned m,
                                  unsigned n, unsigned k)
{
    __shared__ float As[64][16];
    __shared__ float Bs[16][64];

    unsigned const tid = threadIdx.x;
    unsigned const tr = tid / 16u * 4u; // this thread's 4x4 outputs
    unsigned const tc = tid % 16u * 4u;
    float acc[4][4] = {};

    for (unsigned k0 = 0; k0 < k; k0 += 16u) {
        {
            unsigned const r = tid / 4u; // 64 rows of 4 float4
            unsigned const c = tid % 4u * 4u;
            unsigned const row = blockIdx.y * 64u + r;
            unsigned const col = k0 + c;
            float4 a{0.f, 0.f, 0.f, 0.f};
            if (row < m && col < k)
                a = *reinterpret_cast<float4 const *>(&A[row * k + col]);
            if (col + 4u > k) {
                unsigned const past = col + 4u > k + 4u ? 4u : col + 4u - k;
                float *const ap{reinterpret_cast<float *>(&a)};
                for (unsigned i = 0; i < past; ++i)
                    ap[3u - i] = 0.f;
            }
            *reinterpret_cast<float4 *>(&As[r][c]) = a;
        }
        {
            unsigned const r = tid / 16u; // 16 rows of 16 float4
            unsigned const c = tid % 16u * 4u;
            unsigned const row = k0 + r;
            unsigned const col = blockIdx.x * 64u + c;
            float4 b{0.f, 0.f, 0.f, 0.f};
            if (row < k && col < n)
                b = *reinterpret_cast<float4 const *>(&B[row * n + col]);
            *reinterpret_cast<float4 *>(&Bs[r][c]) = b;
        }
        __syncthreads();
#pragma unroll
        for (unsigned kk = 0; kk < 16u; ++kk)
#pragma unroll
            for (unsigned i = 0; i < 4u; ++i)
#pragma unroll
                for (unsigned j = 0; j < 4u; ++j)
                    acc[i][j] += As[tr + i][kk] * Bs[kk][tc + j];
        __syncthreads();
    }
    for (unsigned i = 0; i < 4u; ++i)
        for (unsigned j = 0; j < 4u; ++j)
            C[(blockIdx.y * 64u + tr + i) * n + blockIdx.x * 64u + tc + j] = acc[i][j];
}
