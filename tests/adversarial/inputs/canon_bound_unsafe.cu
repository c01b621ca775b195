// canon_bound_unsafe.cu - near misses of the canon pass's shape 7 with
// several copy loops per branch, whose then branch guards one by a bound
// the else branch's loop lacks (cuda-convnet2's `if (loadY < B_Y *
// colorsPerThread)`).  kpipe drops the bound only where a tile pointer
// formed before the loop, `&As[ly][lx]`, makes it hold (C++ defines that
// address only for ly below As's first extent).  Each kernel below breaks
// that, and must stay refused:
//
//   half_bound    the bound is half the extent, `ly < ROWS / 2`: the then
//                 branch fills half the rows, the else branch zeros all
//   other_index   the bound is on lx, not the pointer's row index ly
//   no_pointer    the stores index the tile directly: no address formed
//                 before the loop says anything about ly
//   ok_bound      the shape itself: fused, pipelined
#define T 16
#define BX 16
#define BY 8
#define ROWS 24
#define STEP ((BX * BY) / T)

__global__ void half_bound(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[ROWS][T];
    const int tidx = BX * threadIdx.y + threadIdx.x;
    const int ly = tidx / T, lx = tidx % T;
    float *aLoad = &As[ly][lx];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        if (k0 + lx < K) {
            if (ly < ROWS / 2) {
                for (int y = 0; y < ROWS; y += STEP) {
                    if (ROWS % STEP == 0 || y + ly < ROWS)
                        aLoad[y * T] = A[(ly + y) * K + k0 + lx];
                }
            }
        } else {
            for (int y = 0; y < ROWS; y += STEP) {
                if (ROWS % STEP == 0 || y + ly < ROWS)
                    aLoad[y * T] = 0;
            }
        }
        __syncthreads();
        for (int i = 0; i < T; i++)
            acc += As[threadIdx.y][i] * As[threadIdx.y + BY][i];
        __syncthreads();
    }
    C[tidx] = acc;
}

__global__ void other_index(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[ROWS][T];
    const int tidx = BX * threadIdx.y + threadIdx.x;
    const int ly = tidx / T, lx = tidx % T;
    float *aLoad = &As[ly][lx];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        if (k0 + lx < K) {
            if (lx < ROWS) {
                for (int y = 0; y < ROWS; y += STEP) {
                    if (ROWS % STEP == 0 || y + ly < ROWS)
                        aLoad[y * T] = A[(ly + y) * K + k0 + lx];
                }
            }
        } else {
            for (int y = 0; y < ROWS; y += STEP) {
                if (ROWS % STEP == 0 || y + ly < ROWS)
                    aLoad[y * T] = 0;
            }
        }
        __syncthreads();
        for (int i = 0; i < T; i++)
            acc += As[threadIdx.y][i] * As[threadIdx.y + BY][i];
        __syncthreads();
    }
    C[tidx] = acc;
}

__global__ void no_pointer(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[ROWS][T];
    const int tidx = BX * threadIdx.y + threadIdx.x;
    const int ly = tidx / T, lx = tidx % T;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        if (k0 + lx < K) {
            if (ly < ROWS) {
                for (int y = 0; y < ROWS; y += STEP) {
                    if (ROWS % STEP == 0 || y + ly < ROWS)
                        As[ly + y][lx] = A[(ly + y) * K + k0 + lx];
                }
            }
        } else {
            for (int y = 0; y < ROWS; y += STEP) {
                if (ROWS % STEP == 0 || y + ly < ROWS)
                    As[ly + y][lx] = 0;
            }
        }
        __syncthreads();
        for (int i = 0; i < T; i++)
            acc += As[threadIdx.y][i] * As[threadIdx.y + BY][i];
        __syncthreads();
    }
    C[tidx] = acc;
}

__global__ void ok_bound(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[ROWS][T];
    const int tidx = BX * threadIdx.y + threadIdx.x;
    const int ly = tidx / T, lx = tidx % T;
    float *aLoad = &As[ly][lx];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        if (k0 + lx < K) {
            if (ly < ROWS) {
                for (int y = 0; y < ROWS; y += STEP) {
                    if (ROWS % STEP == 0 || y + ly < ROWS)
                        aLoad[y * T] = A[(ly + y) * K + k0 + lx];
                }
            }
        } else {
            for (int y = 0; y < ROWS; y += STEP) {
                if (ROWS % STEP == 0 || y + ly < ROWS)
                    aLoad[y * T] = 0;
            }
        }
        __syncthreads();
        for (int i = 0; i < T; i++)
            acc += As[threadIdx.y][i] * As[threadIdx.y + BY][i];
        __syncthreads();
    }
    C[tidx] = acc;
}
