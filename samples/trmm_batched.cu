// trmm_batched.cu - batched triangular product C_b = tril(L_b) * B_b, fp32,
// for b = 0 .. batch-1.  L is [batch][M][M], B and C are [batch][M][N], all
// row-major; the elements of L above the diagonal are never used (they may
// hold anything).  16x16 shared tiles, one output per thread (16x16 thread
// blocks).
//
// Loop nest: blocks stride over the batches (`for (b = blockIdx.z; ...;
// b += gridDim.z)`) and, within a batch, over the 16-row blocks of C
// (`for (rb = blockIdx.y; ...; rb += gridDim.y)`); the K-loop of row block
// rb only walks the column blocks 0 .. rb of L, so its trip count, rb + 1,
// depends on the enclosing loop's counter.  The copy of L is guarded: an
// element above the diagonal is stored as zero.  M and N must be multiples
// of 16.
//
// kpipe: the K-loop is eligible.  Its prologue runs again for every row
// block and batch, and the trip count is tested afresh each time; the
// cp.async form ends with a barrier so that the next row block's prologue
// cannot overwrite a tile another thread still reads (docs/design.md,
// "What follows the loop").  The enclosing loops hold no barrier of their
// own, so they are not candidates.

#define TT 16

__global__ void __launch_bounds__(TT * TT)
trmm_batched(const float *__restrict__ L, const float *__restrict__ B,
             float *__restrict__ C, int batch, int M, int N)
{
    __shared__ float Ls[TT][TT];
    __shared__ float Bs[TT][TT];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int col = blockIdx.x * TT + tx;
    const int rowBlocks = M / TT;

    for (int b = blockIdx.z; b < batch; b += gridDim.z) {
        const float *Lb = L + (size_t)b * M * M;
        const float *Bb = B + (size_t)b * M * N;
        float *Cb = C + (size_t)b * M * N;

        for (int rb = blockIdx.y; rb < rowBlocks; rb += gridDim.y) {
            const int row = rb * TT + ty;
            float acc = 0.0f;

            // row block rb needs the column blocks 0 .. rb of L only
            for (int k0 = 0; k0 <= rb * TT; k0 += TT) {
                Ls[ty][tx] =
                    k0 + tx <= row ? Lb[(size_t)row * M + k0 + tx] : 0.0f;
                Bs[ty][tx] = Bb[(size_t)(k0 + ty) * N + col];
                __syncthreads();

#pragma unroll
                for (int kk = 0; kk < TT; ++kk)
                    acc += Ls[ty][kk] * Bs[kk][tx];
                __syncthreads();
            }

            Cb[(size_t)row * N + col] = acc;
        }
    }
}
