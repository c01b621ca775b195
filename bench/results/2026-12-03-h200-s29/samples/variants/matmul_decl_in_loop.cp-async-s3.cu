// matmul_decl_in_loop.cu - fp32 C = A * B (row-major), 16x16 tiles, one
// output per thread; M, N and K multiples of 16.  The K-loop has its first
// barrier at the top of the body and declares what each step uses where
// it is used, as older samples and benchmark suites do:
//
//     for (k0 ...) {
//         __syncthreads();
//         __shared__ float As[TB][TB];   // after the barrier
//         __shared__ float Bs[TB][TB];
//         float a;                        // no initial value; set and read
//         ...copies...                    // by the compute phase
//         __syncthreads();
//         ...compute...
//     }
//
// Pipelined, the copies of the next tile run before this tile's compute,
// so a declaration between the barriers cannot stay where it is.
//
// kpipe: PIPELINE.  The "canon" pass moves the three declarations to just
// before the loop: a __shared__ array is one array for the whole block
// wherever it is declared, and `a` carries nothing from one step to the
// next (the compute phase sets it before reading it).  The loop is then
// the textbook shape.
#include <cuda_pipeline.h>

#define TB 16

__global__ void matmul_decl_in_loop(const float *__restrict__ A, const float *__restrict__ B,
                                    float *__restrict__ C, int M, int N, int K)
{
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TB + ty;
    const int col = blockIdx.x * TB + tx;
    float acc = 0.0f;

    // this step's tiles
    __shared__ float As[3][TB][TB];
    __shared__ float Bs[3][TB][TB];
    // one element of A's row at a time
    float a;
    // kpipe: cp.async, 3 stages: requested with --variant cp-async
    {
        int k0 = 0;
        int kp_stage = 0;
        if (k0 < K) {

            __pipeline_memcpy_async(&As[0][ty][tx], &A[(size_t)row * K + k0 + tx], 4);
            __pipeline_memcpy_async(&Bs[0][ty][tx], &B[(size_t)(k0 + ty) * N + col], 4);
        }
        __pipeline_commit();
        if ((k0 + TB) < K) {

            __pipeline_memcpy_async(&As[1][ty][tx], &A[(size_t)row * K + (k0 + TB) + tx], 4);
            __pipeline_memcpy_async(&Bs[1][ty][tx], &B[(size_t)((k0 + TB) + ty) * N + col], 4);
        }
        __pipeline_commit();
        for (; k0 < K; k0 += TB) {
            __pipeline_wait_prior(1);
            __syncthreads();
            if ((k0 + 2 * (TB)) < K) {

                __pipeline_memcpy_async(&As[(kp_stage + 2) % 3][ty][tx], &A[(size_t)row * K + (k0 + 2 * (TB)) + tx], 4);
                __pipeline_memcpy_async(&Bs[(kp_stage + 2) % 3][ty][tx], &B[(size_t)((k0 + 2 * (TB)) + ty) * N + col], 4);
            }
            __pipeline_commit();

            for (int kk = 0; kk < TB; ++kk) {
                a = As[kp_stage][ty][kk];
                acc += a * Bs[kp_stage][kk][tx];
            }
            kp_stage = kp_stage == 2 ? 0 : kp_stage + 1;
        }
        __pipeline_wait_prior(0);
    }

    if (row < M && col < N)
        C[(size_t)row * N + col] = acc;
}
