// kernel.cu - a kernel whose own variable is called kp_has_next (written
// for the cpudiff tests): it scales every tile's contribution.  The old
// register-staged rewrite declared its own `kp_has_next` inside the loop,
// which shadowed the user's, so the compute used the wrong value.
#define TS 16

__global__ void named_matmul(const float *__restrict__ A, const float *__restrict__ B,
                             float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[2][TS][TS];
    __shared__ float Bs[2][TS][TS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TS + ty;
    const int col = blockIdx.x * TS + tx;
    const float kp_has_next = 0.5f;
    float acc = 0.0f;
    // kpipe: register staging, 2 buffers: requested with --variant register
    {
        int k0 = 0;
        int kp_stage = 0;
        float kp_reg0[1] = {};
        float kp_reg1[1] = {};
        if (k0 < K) {
            As[0][ty][tx] = A[(size_t)row * K + k0 + tx];
            Bs[0][ty][tx] = B[(size_t)(k0 + ty) * N + col];
        }
        __syncthreads();
        for (; k0 < K; k0 += TS) {
            const bool kp_has_next = (k0 + TS) < K;
            if (kp_has_next) {
                kp_reg0[0] = A[(size_t)row * K + (k0 + TS) + tx];
                kp_reg1[0] = B[(size_t)((k0 + TS) + ty) * N + col];
                __syncwarp();
            }
            for (int kk = 0; kk < TS; ++kk)
                acc += kp_has_next * As[kp_stage][ty][kk] * Bs[kp_stage][kk][tx];
            {
                As[kp_stage ^ 1][ty][tx] = kp_reg0[0];
                Bs[kp_stage ^ 1][ty][tx] = kp_reg1[0];
            }
            __syncthreads();
            kp_stage ^= 1;
        }
    }
    C[(size_t)row * N + col] = acc;
}
