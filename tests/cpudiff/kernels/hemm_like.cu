// hemm_like.cu - fp32 C = A * B in three parts, in the style of a BLAS
// library's symmetric multiply (kpipe's own kernel): a K-loop over the
// whole tiles of part 1 whose copies sit in copy loops (each thread copies
// a 2 x 2 share of a 16 x 16 tile with an 8 x 8 block); part 2, one tile
// refilled under `if (part2 > 0)` through the same copy loops, then
// changed in place (its upper triangle mirrored from the lower one) and
// computed; part 3, a second K-loop over the same tiles that loads A
// transposed, and a last block refilled transposed after it.  The first
// K-loop is pipelined: the code after it sees the tiles as the loop left
// them (docs/design.md, "A tile read after the loop").  The second is
// pipelined too, over the same buffers: its transposed copies write, with
// the 8 x 8 block of the launch description, the elements the first
// loop's and the refill's copies and the mirror write (docs/design.md, "A
// second K-loop over the same tiles").
#define DIM 8
#define BLK 16

__global__ void hemm_like(const float *__restrict__ A, const float *__restrict__ B,
                          float *__restrict__ C, int M, int N, int K, int part1)
{
    __shared__ float sA[BLK][BLK + 1]; // sA[k][m]
    __shared__ float sB[BLK][BLK + 1]; // sB[n][k]
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int bm = blockIdx.x * BLK, bn = blockIdx.y * BLK;
    float rC[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};
    const int part2 = K - part1 < BLK ? K - part1 : BLK;
    const int part3 = K - part1 - part2;
    int kk;

    for (kk = 0; kk < part1; kk += BLK) {
        for (int n = 0; n < BLK; n += DIM)
            for (int m = 0; m < BLK; m += DIM)
                sA[n + ty][m + tx] = A[(bm + m + tx) * K + kk + n + ty];
        for (int n = 0; n < BLK; n += DIM)
            for (int m = 0; m < BLK; m += DIM)
                sB[n + ty][m + tx] = B[(kk + m + tx) * N + bn + n + ty];
        __syncthreads();
        for (int k = 0; k < BLK; k++)
            for (int n = 0; n < 2; n++)
                for (int m = 0; m < 2; m++)
                    rC[n][m] += sA[k][m * DIM + tx] * sB[n * DIM + ty][k];
        __syncthreads();
    }

    if (part2 > 0) {
        for (int n = 0; n < BLK; n += DIM)
            for (int m = 0; m < BLK; m += DIM)
                sA[n + ty][m + tx] =
                    part1 + n + ty < K ? A[(bm + m + tx) * K + part1 + n + ty] : 0.0f;
        __syncthreads();
        for (int n = 0; n < BLK; n += DIM)
            for (int m = 0; m < BLK; m += DIM)
                sB[n + ty][m + tx] =
                    part1 + m + tx < K ? B[(part1 + m + tx) * N + bn + n + ty] : 0.0f;
        for (int n = 0; n < BLK; n += DIM)
            if (ty > tx)
                sA[n + tx][n + ty] = sA[n + ty][n + tx];
        __syncthreads();
        for (int k = 0; k < part2; k++)
            for (int n = 0; n < 2; n++)
                for (int m = 0; m < 2; m++)
                    rC[n][m] += sA[k][m * DIM + tx] * sB[n * DIM + ty][k];
        __syncthreads();
    }

    const int base3 = part1 + part2;
    for (kk = 0; kk < part3 - BLK; kk += BLK) {
        for (int n = 0; n < BLK; n += DIM)
            for (int m = 0; m < BLK; m += DIM)
                sA[m + tx][n + ty] = A[(bm + n + ty) * K + base3 + kk + m + tx];
        for (int n = 0; n < BLK; n += DIM)
            for (int m = 0; m < BLK; m += DIM)
                sB[n + ty][m + tx] = B[(base3 + kk + m + tx) * N + bn + n + ty];
        __syncthreads();
        for (int k = 0; k < BLK; k++)
            for (int n = 0; n < 2; n++)
                for (int m = 0; m < 2; m++)
                    rC[n][m] += sA[k][m * DIM + tx] * sB[n * DIM + ty][k];
        __syncthreads();
    }

    const int kt = base3 + kk;
    const int rem = part3 - kk;
    for (int n = 0; n < BLK; n += DIM)
        for (int m = 0; m < BLK; m += DIM)
            sA[m + tx][n + ty] = kt + m + tx < K ? A[(bm + n + ty) * K + kt + m + tx] : 0.0f;
    for (int n = 0; n < BLK; n += DIM)
        for (int m = 0; m < BLK; m += DIM)
            sB[n + ty][m + tx] = kt + m + tx < K ? B[(kt + m + tx) * N + bn + n + ty] : 0.0f;
    __syncthreads();
    for (int k = 0; k < rem; k++)
        for (int n = 0; n < 2; n++)
            for (int m = 0; m < 2; m++)
                rC[n][m] += sA[k][m * DIM + tx] * sB[n * DIM + ty][k];

    for (int n = 0; n < 2; n++)
        for (int m = 0; m < 2; m++)
            C[(bm + m * DIM + tx) * N + bn + n * DIM + ty] = rC[n][m];
}
