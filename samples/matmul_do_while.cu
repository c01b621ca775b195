// matmul_do_while.cu - fp32 C = A * B (column-major, as BLAS stores it),
// one 16x16 block of C per block of 16x16 threads, written the way older
// BLAS kernels are: the operand pointers are set up before the loop,
// stepped at the end of each trip, and a do-while runs until the B pointer
// reaches the end of its column, at least once.
//
// K-loop shape: `do { copy; sync; math; A += 16 * lda; B += 16; sync; }
// while (B < Blast);` - the steps sit before the closing barrier, the
// bound is a pointer, and K must be a positive multiple of 16 (as the
// launch's `requires` says; the first trip runs whatever the bound says).
//
// kpipe: the canon pass writes the loop as
// `for (int IT = 0; IT == 0 || (B < Blast); ++IT, A += 16 * lda, B += 16)`,
// IT a fresh counter
// (the steps read no memory, so they may move past the barrier), and the
// for-loop is pipelined.

__global__ void matmul_do_while(const float *__restrict__ A, int lda,
                                const float *__restrict__ B, int ldb,
                                float *__restrict__ C, int ldc, int K)
{
    __shared__ float As[16][16];
    __shared__ float Bs[16][16];
    const int tx = threadIdx.x, ty = threadIdx.y;
    A += blockIdx.x * 16 + tx + ty * lda;
    B += (blockIdx.y * 16 + ty) * ldb + tx;
    C += blockIdx.x * 16 + tx + (blockIdx.y * 16 + ty) * ldc;
    const float *Blast = B + K;
    float sum = 0.0f;
    do {
        As[ty][tx] = A[0];
        Bs[ty][tx] = B[0];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 16; ++k)
            sum += As[k][tx] * Bs[ty][k];
        // on to the next 16 columns of A and rows of B
        A += 16 * lda;
        B += 16;
        __syncthreads();
    } while (B < Blast);
    C[0] = sum;
}
