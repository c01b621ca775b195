// kernel.cu - a persistent-block tiled matrix product (written for the
// cpudiff tests): each block walks the 16x16 output tiles
// tile = blockIdx.x, blockIdx.x + gridDim.x, ... and runs a full K-loop for
// each, so the K-loop sits inside an outer loop whose next iteration loads
// the shared tiles again.  C (MxN) = A (MxK) * B (KxN), all row-major,
// M, N, K multiples of 16.
#define TS 16

__global__ void persistent_matmul(const float *__restrict__ A, const float *__restrict__ B,
                                  float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tilesN = N / TS;
    const int numTiles = (M / TS) * tilesN;

    for (int tile = blockIdx.x; tile < numTiles; tile += gridDim.x) {
        const int row = (tile / tilesN) * TS + ty;
        const int col = (tile % tilesN) * TS + tx;
        float acc = 0.0f;
        for (int k0 = 0; k0 < K; k0 += TS) {
            As[ty][tx] = A[(size_t)row * K + k0 + tx];
            Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
            __syncthreads();
            for (int kk = 0; kk < TS; ++kk)
                acc += As[ty][kk] * Bs[kk][tx];
            __syncthreads();
        }
        C[(size_t)row * N + col] = acc;
    }
}
