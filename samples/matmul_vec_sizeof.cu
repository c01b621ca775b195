// matmul_vec_sizeof.cu - C = A * B (row-major) for T = float or __half, M
// and N multiples of 64, K and N multiples of 16 bytes' worth of T (the
// int4 copies are aligned): a 64x64 block tile, K-tiles of 16, 128
// threads of 8x4 outputs each, accumulated in float.  The tiles are copied
// in int4 vectors of sizeof(int4) / sizeof(T) elements, so how many
// vectors each thread copies depends on T:
//   constexpr unsigned VEC{sizeof(int4) / sizeof(T)};   // 4 floats, 8 halves
//   for (unsigned v{0U}; v < (BM * (BK / VEC) + NT - 1U) / NT; ++v)   // 2 or 1
// Each vector goes through a local that is zero unless the vector starts
// inside the matrix, and whose elements past K (A) or N (B) are then
// cleared through a pointer to it (as in matmul_masked_vec.cu).
//
// kpipe: PIPELINE (register staging).  The copy loops' trip counts are
// compile-time constants of each instantiation (kpipe evaluates sizeof(T)
// per instantiation: 2 for float, 1 for __half); the staging registers are
// sized by the count's expression, which C++ evaluates per instantiation.
// Not cp.async: the tiles are filled from registers.
#include <cuda_fp16.h>

template <typename T, unsigned BM, unsigned BN, unsigned BK, unsigned NT>
__global__ void matmul_vec_sizeof(T const *A, T const *B, T *C, unsigned m, unsigned n,
                                  unsigned k)
{
    constexpr unsigned VEC{sizeof(int4) / sizeof(T)};
    static_assert(BK % VEC == 0U && BN % VEC == 0U, "whole vectors per tile row");
    __shared__ T As[BM][BK];
    __shared__ T Bs[BK][BN];

    unsigned const tid = threadIdx.x;
    unsigned const tr = tid / (BN / 4U) * 8U; // this thread's 8x4 outputs
    unsigned const tc = tid % (BN / 4U) * 4U;
    float acc[8][4] = {};

    for (unsigned k0 = 0; k0 < k; k0 += BK) {
#pragma unroll
        for (unsigned v{0U}; v < (BM * (BK / VEC) + NT - 1U) / NT; ++v) {
            unsigned const idx = tid + v * NT;
            unsigned const r = idx / (BK / VEC);
            unsigned const c = idx % (BK / VEC) * VEC;
            unsigned const row = blockIdx.y * BM + r;
            unsigned const col = k0 + c;
            int4 a{0, 0, 0, 0};
            if (row < m && col < k)
                a = *reinterpret_cast<int4 const *>(&A[row * k + col]);
            if (col + VEC > k) {
                unsigned const past = col + VEC > k + VEC ? VEC : col + VEC - k;
                T *const ap{reinterpret_cast<T *>(&a)};
                for (unsigned i = 0; i < past; ++i)
                    ap[VEC - 1U - i] = static_cast<T>(0.f);
            }
            if (r < BM)
                *reinterpret_cast<int4 *>(&As[r][c]) = a;
        }
#pragma unroll
        for (unsigned v{0U}; v < (BK * (BN / VEC) + NT - 1U) / NT; ++v) {
            unsigned const idx = tid + v * NT;
            unsigned const r = idx / (BN / VEC);
            unsigned const c = idx % (BN / VEC) * VEC;
            unsigned const row = k0 + r;
            unsigned const col = blockIdx.x * BN + c;
            int4 b{0, 0, 0, 0};
            if (row < k && col < n)
                b = *reinterpret_cast<int4 const *>(&B[row * n + col]);
            if (col + VEC > n) {
                unsigned const past = col + VEC > n + VEC ? VEC : col + VEC - n;
                T *const bp{reinterpret_cast<T *>(&b)};
                for (unsigned i = 0; i < past; ++i)
                    bp[VEC - 1U - i] = static_cast<T>(0.f);
            }
            if (r < BK)
                *reinterpret_cast<int4 *>(&Bs[r][c]) = b;
        }
        __syncthreads();
#pragma unroll
        for (unsigned kk = 0; kk < BK; ++kk)
#pragma unroll
            for (unsigned i = 0; i < 8U; ++i)
#pragma unroll
                for (unsigned j = 0; j < 4U; ++j)
                    acc[i][j] += static_cast<float>(As[tr + i][kk]) *
                                 static_cast<float>(Bs[kk][tc + j]);
        __syncthreads();
    }
    for (unsigned i = 0; i < 8U; ++i)
        for (unsigned j = 0; j < 4U; ++j)
            C[(blockIdx.y * BM + tr + i) * n + blockIdx.x * BN + tc + j] =
                static_cast<T>(acc[i][j]);
}

template __global__ void matmul_vec_sizeof<float, 64, 64, 16, 128>(float const *, float const *,
                                                                   float *, unsigned, unsigned,
                                                                   unsigned);
template __global__ void matmul_vec_sizeof<__half, 64, 64, 16, 128>(__half const *,
                                                                    __half const *, __half *,
                                                                    unsigned, unsigned,
                                                                    unsigned);
