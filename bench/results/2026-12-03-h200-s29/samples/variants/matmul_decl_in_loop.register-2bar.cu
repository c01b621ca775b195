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
    __shared__ float As[TB][TB];
    __shared__ float Bs[TB][TB];
    // one element of A's row at a time
    float a;
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
        for (; k0 < K; k0 += TB) {
            const bool kp_has_next = (k0 + TB) < K;
            if (kp_has_next) {

                kp_reg0[0] = A[(size_t)row * K + (k0 + TB) + tx];
                kp_reg1[0] = B[(size_t)((k0 + TB) + ty) * N + col];
                __syncwarp(); // kpipe: keeps the loads above the math (ptxas)
            }

            for (int kk = 0; kk < TB; ++kk) {
                a = As[ty][kk];
                acc += a * Bs[kk][tx];
            }
            __syncthreads();
            {

                As[ty][tx] = kp_reg0[0];
                Bs[ty][tx] = kp_reg1[0];
            }
            __syncthreads();
            kp_stage ^= 1;
        }
    }

    if (row < M && col < N)
        C[(size_t)row * N + col] = acc;
}
