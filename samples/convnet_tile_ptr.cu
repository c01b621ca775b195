// convnet_tile_ptr.cu - a K-loop written the way cuda-convnet2 writes its
// image/weight-gradient kernels (our own kernel, not theirs): every copy
// stores through a pointer into its tile taken once before the loop
// (`float *actLoad = &sActs[loadY][loadX];`), and the copy of a block of
// cases that may run past numCases is an if/else of two copy loops, the
// else storing zeros.  kpipe's canon pass writes each pointer as its
// initialiser and fuses the two copy loops into one loop of guarded
// copies, then pipelines the loop (docs/design.md, "The canon pass",
// shapes 6 and 7).
//
// out[o][c] = sum_k wts[k][o] * acts[k][c]: a block computes BY outputs
// (threadIdx.y) for BX * PER cases (threadIdx.x + i * BX).
#include <cuda_runtime.h>

#define BX 16
#define BY 8
#define KT 16

template <int PER, bool checkBounds>
__global__ void convnet_tile_ptr(const float *acts, const float *wts, float *out, int numCases,
                                 int numK, int numOut)
{
    __shared__ float sActs[KT][BX * PER];
    __shared__ float sW[KT][BY + 1];

    const int tid = threadIdx.y * BX + threadIdx.x;
    const int loadY = tid / (BX * PER), loadX = tid % (BX * PER);
    const int wY = tid / BY, wX = tid % BY;
    const int caseBase = blockIdx.x * BX * PER;
    const int outBase = blockIdx.y * BY;

    acts += caseBase + loadX;
    float *actLoad = &sActs[loadY][loadX];
    float *wLoad = &sW[wY][wX];

    float prod[PER];
#pragma unroll
    for (int i = 0; i < PER; i++)
        prod[i] = 0;

    for (int k0 = 0; k0 < numK; k0 += KT) {
        // rows loadY, loadY + R, ... of the activations: R rows per pass
#pragma unroll
        for (int j = 0; j < KT; j += (BX * BY) / (BX * PER)) {
            if (!checkBounds || caseBase + loadX < numCases) {
#pragma unroll
                for (int c = 0; c < 1; c++) { // one column per thread
                    actLoad[j * BX * PER + c] = acts[(k0 + loadY + j) * numCases + c];
                }
            } else {
#pragma unroll
                for (int c = 0; c < 1; c++) {
                    actLoad[j * BX * PER + c] = 0;
                }
            }
        }
        if (wY < KT) {
            wLoad[0] = wts[(k0 + wY) * numOut + outBase + wX];
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < KT; kk++) {
#pragma unroll
            for (int i = 0; i < PER; i++)
                prod[i] += sW[kk][threadIdx.y] * sActs[kk][threadIdx.x + i * BX];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < PER; i++) {
        const int c = caseBase + threadIdx.x + i * BX;
        if (c < numCases)
            out[(outBase + threadIdx.y) * numCases + c] = prod[i];
    }
}

cudaError_t launch_convnet_tile_ptr(const float *acts, const float *wts, float *out, int numCases,
                                    int numK, int numOut, bool wide, cudaStream_t stream)
{
    const dim3 block(BX, BY);
    const int per = wide ? 4 : 2;
    const dim3 grid((numCases + BX * per - 1) / (BX * per), numOut / BY);
    if (wide)
        convnet_tile_ptr<4, true><<<grid, block, 0, stream>>>(acts, wts, out, numCases, numK,
                                                              numOut);
    else if (numCases % (BX * per) == 0)
        convnet_tile_ptr<2, false><<<grid, block, 0, stream>>>(acts, wts, out, numCases, numK,
                                                               numOut);
    else
        convnet_tile_ptr<2, true><<<grid, block, 0, stream>>>(acts, wts, out, numCases, numK,
                                                              numOut);
    return cudaGetLastError();
}
