// Golden: auto's rule 0c. A weight-gradient kernel in the style of
// cuda-convnet2: the loop over cases loads one tile (hid), and inside it a
// loop of PIX / PC trips (compile-time) loads a tile of images per step.
// That inner K-loop is left alone by auto (kpipe-no-predicted-gain: its
// pipeline is filled again at every case step); a loop of 16 trips inside
// the same shape, and a short loop that no loop encloses, are planned.
#define BY 8
#define BX 16
#define CASES 16

template <int PIX, int PC>
__global__ void wgrad(const float *images, const float *hid, float *out, int numImages,
                      int npix)
{
    __shared__ float shImg[PC * BY][CASES];
    __shared__ float shHid[BX][CASES + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float prod[PIX] = {0.0f};
    for (int c0 = 0; c0 < numImages; c0 += CASES) {
        if (ty == 0)
            for (int i = 0; i < CASES; i++)
                shHid[tx][i] = c0 + i < numImages ? hid[(c0 + i) * BX + tx] : 0.0f;
        for (int pp = 0; pp < PIX; pp += PC) {
            for (int y = 0; y < PC * BY; y += BY)
                shImg[y + ty][tx] = images[(pp * BY + y + ty) * numImages + c0 + tx];
            __syncthreads();
            for (int i = 0; i < CASES; i++)
                for (int p = 0; p < PC; p++)
                    prod[pp + p] += shImg[ty + p * BY][i] * shHid[tx][i];
            __syncthreads();
        }
    }
    for (int p = 0; p < PIX; p++)
        out[(p * BY + ty) * BX + tx] = prod[p];
}

template __global__ void wgrad<8, 2>(const float *, const float *, float *, int, int);
template __global__ void wgrad<4, 2>(const float *, const float *, float *, int, int);

// the same shape, 16 trips: planned
__global__ void wgrad_long(const float *images, const float *hid, float *out, int numImages)
{
    __shared__ float shImg[BY][CASES];
    __shared__ float shHid[BX][CASES + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int c0 = 0; c0 < numImages; c0 += CASES) {
        if (ty == 0)
            for (int i = 0; i < CASES; i++)
                shHid[tx][i] = hid[(c0 + i) * BX + tx];
        for (int pp = 0; pp < 16; pp++) {
            shImg[ty][tx] = images[(pp * BY + ty) * numImages + c0 + tx];
            __syncthreads();
            for (int i = 0; i < CASES; i++)
                acc += shImg[ty][i] * shHid[tx][i];
            __syncthreads();
        }
    }
    out[ty * BX + tx] = acc;
}

// a short loop that no loop encloses: planned
__global__ void four_tiles(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[16][16];
    __shared__ float Bs[16][16];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < 64; k0 += 16) {
        As[ty][tx] = A[row * 64 + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < 16; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}
