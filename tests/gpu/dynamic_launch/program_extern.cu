// program_extern.cu - program.cu with its tiles carved out of extern
// shared memory (`float *Bs = smem + BM * BK;`) and launches that pass
// their bytes: kpipe keeps one copy of the region per stage and edits both
// launches to pass the stages times their bytes (raising the opt-in
// attribute above 48 KB).  For tests/gpu/dynamic_launch.sh.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define BM 64
#define BN 64
#define BK 64

__global__ void mm_dyn(const float *__restrict__ A, const float *__restrict__ B,
                       float *__restrict__ C, int N, int K)
{
    extern __shared__ float smem[];
    float *As = smem;
    float *Bs = smem + BM * BK;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j)
                As[(ty + 32 * i) * BK + tx + 32 * j] = A[(size_t)(row0 + ty + 32 * i) * K + k0 + tx + 32 * j];
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j)
                Bs[(ty + 32 * i) * BN + tx + 32 * j] = B[(size_t)(k0 + ty + 32 * i) * N + col0 + tx + 32 * j];
        __syncthreads();
        for (int kk = 0; kk < BK; ++kk)
            for (int i = 0; i < 2; ++i)
                for (int j = 0; j < 2; ++j)
                    acc[i][j] += As[(ty + 32 * i) * BK + kk] * Bs[kk * BN + tx + 32 * j];
        __syncthreads();
    }
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            C[(size_t)(row0 + ty + 32 * i) * N + col0 + tx + 32 * j] = acc[i][j];
}

static int check(int n, int k, cudaStream_t s)
{
    std::vector<float> a((size_t)n * k), b((size_t)k * n), c((size_t)n * n);
    for (size_t i = 0; i < a.size(); ++i)
        a[i] = (float)((i * 7 + 3) % 13) - 6.0f;
    for (size_t i = 0; i < b.size(); ++i)
        b[i] = (float)((i * 5 + 1) % 11) - 5.0f;
    float *da, *db, *dc;
    cudaMalloc(&da, a.size() * sizeof(float));
    cudaMalloc(&db, b.size() * sizeof(float));
    cudaMalloc(&dc, c.size() * sizeof(float));
    cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(dc, 0xff, c.size() * sizeof(float));
    // one launch on the default stream, one with all four arguments; 32 KB
    const size_t bytes = (BM * BK + BK * BN) * sizeof(float);
    mm_dyn<<<dim3(n / BN, n / BM), dim3(32, 32), bytes>>>(da, db, dc, n, k);
    mm_dyn<<<dim3(n / BN, n / BM), dim3(32, 32), bytes, s>>>(da, db, dc, n, k);
    cudaError_t e = cudaStreamSynchronize(s);
    if (e == cudaSuccess)
        e = cudaGetLastError();
    if (e != cudaSuccess) {
        printf("CUDA error: %s\n", cudaGetErrorString(e));
        return 1;
    }
    cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost);
    double worst = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double r = 0;
            for (int q = 0; q < k; ++q)
                r += (double)a[(size_t)i * k + q] * b[(size_t)q * n + j];
            worst = fmax(worst, fabs(r - c[(size_t)i * n + j]));
        }
    printf("n=%d k=%d max_abs_err %g\n", n, k, worst);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    return worst > 1e-3;
}

int main()
{
    cudaStream_t s;
    cudaStreamCreate(&s);
    int bad = check(128, 64, s) | check(128, 320, s) | check(256, 512, s);
    puts(bad ? "MISMATCH" : "OK");
    return bad;
}
