// Tiles carved out of one static __shared__ byte array, as hand-written
// SGEMM tutorials lay them out: kpipe takes each carve-out as a tile at its
// constant byte offset (the offsets distinct, inside the array), repeats
// the array once per stage (its bound becomes `2 * (N)`) and reads stage s
// of a carve-out s arrays further.
#define T 16
__global__ void mm_carve(const float *A, const float *B, float *C, int N, int K)
{
    __shared__ __align__(16) char smem[2 * T * T * 4];
    float *As = reinterpret_cast<float *>(smem);
    float *Bs = (float *)&smem[T * T * 4];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty * T + tx] = A[row * K + k0 + tx];
        Bs[ty * T + tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty * T + kk] * Bs[kk * T + tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

void run(const float *A, const float *B, float *C, int N, int K, cudaStream_t s)
{
    mm_carve<<<dim3(N / T, N / T), dim3(T, T), 0, s>>>(A, B, C, N, K);
}
