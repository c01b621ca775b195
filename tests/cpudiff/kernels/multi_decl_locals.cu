// multi_decl_locals.cu - fp32 C = A * B (row-major), 16x16 tiles, one output
// per thread, whose load phase declares two locals in one statement: `int
// gi = ..., si = ...;`, gi the global index the fetch reads, si the shared
// index the store writes (issue 33, "no new compiler warnings").
//
// kpipe: eligible.  Register staging copies the load phase into the fetch
// (which reads gi) and into the store (which writes si): each copy keeps
// only the declarator it uses (`int gi = ...;`, `int si = ...;`), so nvcc
// says nothing about a variable "declared but never referenced".

#define TS 16

__global__ void multi_decl_locals(const float *__restrict__ A, const float *__restrict__ B,
                                  float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[TS * TS];
    __shared__ float Bs[TS][TS];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TS + ty;
    const int col = blockIdx.x * TS + tx;
    float acc = 0.0f;

    for (int k0 = 0; k0 < K; k0 += TS) {
        int gi = row * K + k0 + tx, si = ty * TS + tx;
        As[si] = A[gi];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < TS; ++kk)
            acc += As[ty * TS + kk] * Bs[kk][tx];
        __syncthreads();
    }

    if (row < M && col < N)
        C[row * N + col] = acc;
}
