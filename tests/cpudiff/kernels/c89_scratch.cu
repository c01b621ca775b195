// c89_scratch.cu - fp32 C = A * B written C89 style: every variable of the
// kernel is declared at its top, and one index variable, `idx`, serves the
// load phase (the address of each copy) and the compute phase (the column
// of the inner product) in turn.  Each phase assigns it before reading it
// and nothing reads it after the loop: it is private to each phase of each
// iteration (docs/design.md, "Scratch variables declared before the loop").
#define TILE 16

__global__ void matmul_c89(const float *__restrict__ A, const float *__restrict__ B,
                           float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx, ty, row, col, t, kk, idx;
    float acc, a;

    tx = threadIdx.x;
    ty = threadIdx.y;
    row = blockIdx.y * TILE + ty;
    col = blockIdx.x * TILE + tx;
    acc = 0.0f;
    for (t = 0; t < K / TILE; t++) {
        idx = row * K + t * TILE + tx;
        As[ty][tx] = A[idx];
        idx = (t * TILE + ty) * N + col;
        Bs[ty][tx] = B[idx];
        __syncthreads();
        for (kk = 0; kk < TILE; kk++) {
            idx = (kk + ty) % TILE;
            a = As[ty][idx];
            acc += a * Bs[idx][tx];
        }
        __syncthreads();
    }
    idx = row * N + col;
    C[idx] = acc;
}
