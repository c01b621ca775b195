// Copy loops whose first row is the thread's (`for (int r = threadIdx.y;
// r < BM; r += 8)`): no compile-time trip count, but no thread makes more
// trips than one starting at row 0 (BM / 8). Register staging sizes its
// registers by that count; each thread fills and empties the slots of its
// own trips, under the same loop header.
#define BM 32
#define BK 16
__global__ void rows_by_thread(const float *A, const float *B, float *C, int N, int K)
{
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][16];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * 16;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int r = threadIdx.y; r < BM; r += 8)
            As[r][tx] = A[(row0 + r) * K + k0 + tx];
        for (int r = threadIdx.y; r < BK; r += 8)
            Bs[r][tx] = B[(k0 + r) * N + col0 + tx];
        __syncthreads();
        for (int i = 0; i < 4; ++i)
            for (int kk = 0; kk < BK; ++kk)
                acc[i] += As[ty + 8 * i][kk] * Bs[kk][tx];
        __syncthreads();
    }
    for (int i = 0; i < 4; ++i)
        C[(row0 + ty + 8 * i) * N + col0 + tx] = acc[i];
}

void run(const float *A, const float *B, float *C, int M, int N, int K)
{
    rows_by_thread<<<dim3(N / 16, M / BM), dim3(16, 8)>>>(A, B, C, N, K);
}
