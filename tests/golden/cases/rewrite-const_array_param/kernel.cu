// A template helper of the compute phase that takes a row of the tile as
// `T const row[N]`: in the template the parameter is an array of
// dependent size, whose const clang keeps on the array type; its elements
// are const all the same, so the call only reads the tile and the loop is
// pipelined. (Its `T out[2]` parameter is written: that is a register
// array of the thread, not the tile.)
template <typename T, int N>
__device__ void read_pair(T const row[N], T out[2], int i)
{
    out[0] = row[i];
    out[1] = row[(i + 1) % N];
}

template <typename T, int BK>
__global__ void rows_const(const T *A, T *C, int K)
{
    __shared__ T As[BK][64];
    T v[2];
    T acc = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int r = 0; r < BK; ++r)
            As[r][threadIdx.x] = A[(k0 + r) * 64 + threadIdx.x];
        __syncthreads();
        for (int r = 0; r < BK; ++r) {
            read_pair<T, 64>(As[r], v, (threadIdx.x + r) % 64);
            acc += v[0] * v[1];
        }
        __syncthreads();
    }
    C[blockIdx.x * 64 + threadIdx.x] = acc;
}

void run(const float *A, float *C, int K)
{
    rows_const<float, 8><<<1, 64>>>(A, C, K);
}
