// adversarial input: issue 34's transpose-shaped K-loops (a BLAS geam or
// transpose: a padded tile written transposed, C89 scratch indices `r, s`
// declared before the loop and assigned in both phases, copies guarded on
// both dimensions without an else, loops under #pragma unroll).  The guards
// are read through the scratch variables' assignments (analysis/
// scratch_def.c) and the compute's reads must stay inside what they wrote
// (analysis/guard_cover.c).
//  - off_by_one: the compute reads under `s + q <= m`, one column past;
//  - swapped: dimension 0 is read under `r + p < m`, the other dimension's
//    bound;
//  - moved: the load phase moves `r` on after its assignment (`r += TX`),
//    so the guard tests the next subtile;
//  - aliased: the shape of the library's kernels, no __restrict__: the
//    output may be the array the tile loads read (kpipe-memory-order,
//    naming it);
//  - conj_ok (near miss): both inputs go through the tile
//    (`sY[..] = alpha * X[..] + Y[..]`), read back under the same bounds.
// Expected: off_by_one, swapped and moved refused
// (kpipe-partial-tile-write), aliased refused (kpipe-memory-order, 'Y'),
// conj_ok rewritten.
#define TB 32
#define TX 16
#define TY 8

__global__ void off_by_one(int m, int n, float alpha, const float *__restrict__ X, int ldx,
                        const float *__restrict__ Y, int ldy, float *__restrict__ Z, int ldz)
{
    __shared__ float sY[TB][TX + 1];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int bx = blockIdx.x * TB;
    int by = blockIdx.y * TB;
    int r, s;
    X += by + tx + (bx + ty) * ldx;
    Y += bx + tx + (by + ty) * ldy;
    Z += by + tx + (bx + ty) * ldz;
#pragma unroll
    for (int t = 0; t < TB / TX; ++t) {
        r = bx + tx + t * TX;
        s = by + ty;
        if (r < m) {
#pragma unroll
            for (int q = 0; q < TB; q += TY) {
                if (s + q < n) {
                    sY[ty + q][tx] = Y[q * ldy];
                }
            }
        }
        __syncthreads();
        r = by + tx;
        s = bx + ty + t * TX;
#pragma unroll
        for (int p = 0; p < TB; p += TX) {
            if (r + p < n) {
#pragma unroll
                for (int q = 0; q < TX; q += TY) {
                    if (s + q <= m) {
                        Z[p + q * ldz] = alpha * X[p + q * ldx] + sY[tx + p][ty + q];
                    }
                }
            }
        }
        __syncthreads();
        X += TX * ldx;
        Y += TX;
        Z += TX * ldz;
    }
}

__global__ void swapped(int m, int n, float alpha, const float *__restrict__ X, int ldx,
                        const float *__restrict__ Y, int ldy, float *__restrict__ Z, int ldz)
{
    __shared__ float sY[TB][TX + 1];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int bx = blockIdx.x * TB;
    int by = blockIdx.y * TB;
    int r, s;
    X += by + tx + (bx + ty) * ldx;
    Y += bx + tx + (by + ty) * ldy;
    Z += by + tx + (bx + ty) * ldz;
#pragma unroll
    for (int t = 0; t < TB / TX; ++t) {
        r = bx + tx + t * TX;
        s = by + ty;
        if (r < m) {
#pragma unroll
            for (int q = 0; q < TB; q += TY) {
                if (s + q < n) {
                    sY[ty + q][tx] = Y[q * ldy];
                }
            }
        }
        __syncthreads();
        r = by + tx;
        s = bx + ty + t * TX;
#pragma unroll
        for (int p = 0; p < TB; p += TX) {
            if (r + p < m) {
#pragma unroll
                for (int q = 0; q < TX; q += TY) {
                    if (s + q < m) {
                        Z[p + q * ldz] = alpha * X[p + q * ldx] + sY[tx + p][ty + q];
                    }
                }
            }
        }
        __syncthreads();
        X += TX * ldx;
        Y += TX;
        Z += TX * ldz;
    }
}

__global__ void moved(int m, int n, float alpha, const float *__restrict__ X, int ldx,
                        const float *__restrict__ Y, int ldy, float *__restrict__ Z, int ldz)
{
    __shared__ float sY[TB][TX + 1];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int bx = blockIdx.x * TB;
    int by = blockIdx.y * TB;
    int r, s;
    X += by + tx + (bx + ty) * ldx;
    Y += bx + tx + (by + ty) * ldy;
    Z += by + tx + (bx + ty) * ldz;
#pragma unroll
    for (int t = 0; t < TB / TX; ++t) {
        r = bx + tx + t * TX;
        s = by + ty;
        r += TX;
        if (r < m) {
#pragma unroll
            for (int q = 0; q < TB; q += TY) {
                if (s + q < n) {
                    sY[ty + q][tx] = Y[q * ldy];
                }
            }
        }
        __syncthreads();
        r = by + tx;
        s = bx + ty + t * TX;
#pragma unroll
        for (int p = 0; p < TB; p += TX) {
            if (r + p < n) {
#pragma unroll
                for (int q = 0; q < TX; q += TY) {
                    if (s + q < m) {
                        Z[p + q * ldz] = alpha * X[p + q * ldx] + sY[tx + p][ty + q];
                    }
                }
            }
        }
        __syncthreads();
        X += TX * ldx;
        Y += TX;
        Z += TX * ldz;
    }
}

__global__ void aliased(int m, int n, float alpha, const float *X, int ldx,
                        const float *Y, int ldy, float *Z, int ldz)
{
    __shared__ float sY[TB][TX + 1];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int bx = blockIdx.x * TB;
    int by = blockIdx.y * TB;
    int r, s;
    X += by + tx + (bx + ty) * ldx;
    Y += bx + tx + (by + ty) * ldy;
    Z += by + tx + (bx + ty) * ldz;
#pragma unroll
    for (int t = 0; t < TB / TX; ++t) {
        r = bx + tx + t * TX;
        s = by + ty;
        if (r < m) {
#pragma unroll
            for (int q = 0; q < TB; q += TY) {
                if (s + q < n) {
                    sY[ty + q][tx] = Y[q * ldy];
                }
            }
        }
        __syncthreads();
        r = by + tx;
        s = bx + ty + t * TX;
#pragma unroll
        for (int p = 0; p < TB; p += TX) {
            if (r + p < n) {
#pragma unroll
                for (int q = 0; q < TX; q += TY) {
                    if (s + q < m) {
                        Z[p + q * ldz] = alpha * X[p + q * ldx] + sY[tx + p][ty + q];
                    }
                }
            }
        }
        __syncthreads();
        X += TX * ldx;
        Y += TX;
        Z += TX * ldz;
    }
}

__global__ void conj_ok(int m, int n, float alpha, const float *__restrict__ X, int ldx,
                        const float *__restrict__ Y, int ldy, float *__restrict__ Z, int ldz)
{
    __shared__ float sY[TB][TX + 1];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int bx = blockIdx.x * TB;
    int by = blockIdx.y * TB;
    int r, s;
    X += bx + tx + (by + ty) * ldx;
    Y += bx + tx + (by + ty) * ldy;
    Z += by + tx + (bx + ty) * ldz;
#pragma unroll
    for (int t = 0; t < TB / TX; ++t) {
        r = bx + tx + t * TX;
        s = by + ty;
        if (r < m) {
#pragma unroll
            for (int q = 0; q < TB; q += TY) {
                if (s + q < n) {
                    sY[ty + q][tx] = alpha * X[q * ldx] + Y[q * ldy];
                }
            }
        }
        __syncthreads();
        r = by + tx;
        s = bx + ty + t * TX;
#pragma unroll
        for (int p = 0; p < TB; p += TX) {
            if (r + p < n) {
#pragma unroll
                for (int q = 0; q < TX; q += TY) {
                    if (s + q < m) {
                        Z[p + q * ldz] = sY[tx + p][ty + q];
                    }
                }
            }
        }
        __syncthreads();
        X += TX;
        Y += TX;
        Z += TX * ldz;
    }
}
