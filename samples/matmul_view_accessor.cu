// matmul_view_accessor.cu - fp32 C = A * B (row-major) read through small
// view objects: each operand is a MatView (a pointer, its extents and its
// leading dimension) whose methods give an extent and a bounds-checked
// element, the way the tensor wrappers of libraries hand a kernel its
// matrices.  16x16 tiles, one output element per thread; any M, N and K.
//
// K-loop shape: `for (int k0 = 0; k0 < a.cols(); k0 += TILE)` whose copies
// store `a.get(row, k0 + tx)`: calls of methods, whose effects kpipe does
// not read, in the loop condition and in both copies.  Each method's body
// is one return statement over public members, so kpipe's inline pass
// expands the calls where the loop makes them (`a.data[...]` under the
// bounds check) and the loop is then an ordinary guarded K-loop
// (docs/design.md, "Value accessors").  The host launcher below must be
// left as is.

#include <cuda_runtime.h>

#define TILE 16

struct MatView {
    const float *data;
    int nrows, ncols, ld;

    __device__ int rows() const { return nrows; }
    __device__ int cols() const { return ncols; }
    // the element at (r, c), or 0 outside the matrix
    __device__ float get(int r, int c) const
    {
        return r < nrows && c < ncols ? data[(size_t)r * ld + c] : 0.0f;
    }
};

__global__ void matmul_view_accessor(const float *A, const float *B, float *C,
                                     int M, int N, int K)
{
    const MatView a = {A, M, K, K};
    const MatView b = {B, K, N, N};
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;

    for (int k0 = 0; k0 < a.cols(); k0 += TILE) {
        As[ty][tx] = a.get(row, k0 + tx);
        Bs[ty][tx] = b.get(k0 + ty, col);
        __syncthreads();

        for (int kk = 0; kk < TILE; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }

    if (row < a.rows() && col < b.cols())
        C[(size_t)row * N + col] = acc;
}

// Host-side launcher, as an application would have it.  Returns the launch
// status; the caller synchronises.
cudaError_t launch_matmul_view_accessor(const float *A, const float *B, float *C,
                                        int M, int N, int K, cudaStream_t stream)
{
    const dim3 block(TILE, TILE);
    const dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    matmul_view_accessor<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
    return cudaGetLastError();
}
