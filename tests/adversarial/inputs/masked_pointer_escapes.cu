// adversarial input: a loaded vector's tail cleared through a pointer that
// starts as the vector's address (`float *vp = reinterpret_cast<float *>(&v)`,
// which kpipe accepts as a store that stays in the thread) but is moved to
// the loaded matrix itself on some tiles (`if (k0 == 0) vp = A + 4;`).
// Expected: refused with kpipe-memory-order: a pointer that is ever
// reassigned may point into memory the tile loads read, and the prefetch of
// the next tile would miss the store.  Without the reassignment the loop is
// register-staged (samples/matmul_masked_vec.cu).
__global__ void masked_pointer_escapes(float *A, float *C, int N)
{
    __shared__ float As[16][64];
    float acc = 0.0f;
    for (int k0 = 0; k0 < N; k0 += 64) {
        {
            int c = k0 + threadIdx.x * 4;
            float4 v{0.f, 0.f, 0.f, 0.f};
            if (c < N)
                v = *reinterpret_cast<const float4 *>(&A[threadIdx.y * N + c]);
            float *vp = reinterpret_cast<float *>(&v);
            if (k0 == 0)
                vp = A + 4;
            if (c + 4 > N)
                for (int i = 0; i < c + 4 - N; ++i)
                    vp[3 - i] = 0.f;
            *reinterpret_cast<float4 *>(&As[threadIdx.y][threadIdx.x * 4]) = v;
        }
        __syncthreads();
        acc += As[threadIdx.y][threadIdx.x];
        __syncthreads();
    }
    C[threadIdx.y * 16 + threadIdx.x] = acc;
}
