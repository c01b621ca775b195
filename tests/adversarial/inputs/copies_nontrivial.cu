// adversarial input: tiles of class types that are not trivially copyable:
// a user-provided copy assignment that is not idempotent (register staging
// would apply it twice, cp.async would bypass it), the same operator in a
// base class, and a tile of a template type parameter instantiated with
// such a type.
// Expected: every loop of k_counted, k_derived and k_tmpl<Counted> refused
// (kpipe-copy-not-trivial); the near misses k_plain (a struct with a
// defaulted copy) and k_tmpl<float> are rewritten.
#include <cuda_runtime.h>

struct Counted {
    float v;
    __device__ Counted &operator=(const Counted &o)
    {
        v = o.v + 1.0f;
        return *this;
    }
};

struct Derived : Counted {
    float w;
};

struct Plain {
    float v;
    Plain &operator=(const Plain &) = default;
};

__global__ void k_counted(const Counted *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ Counted As[16][16];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        As[ty][tx] = A[(size_t)ty * K + k0 + tx];
        __syncthreads();
        for (int kk = 0; kk < 16; ++kk)
            acc += As[ty][kk].v;
        __syncthreads();
    }
    C[ty * 16 + tx] = acc;
}

__global__ void k_derived(const Derived *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ Derived As[16][16];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        As[ty][tx] = A[(size_t)ty * K + k0 + tx];
        __syncthreads();
        for (int kk = 0; kk < 16; ++kk)
            acc += As[ty][kk].w;
        __syncthreads();
    }
    C[ty * 16 + tx] = acc;
}

// near miss: a defaulted copy
__global__ void k_plain(const Plain *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ Plain As[16][16];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        As[ty][tx] = A[(size_t)ty * K + k0 + tx];
        __syncthreads();
        for (int kk = 0; kk < 16; ++kk)
            acc += As[ty][kk].v;
        __syncthreads();
    }
    C[ty * 16 + tx] = acc;
}

template <typename T>
__global__ void k_tmpl(const T *__restrict__ A, T *__restrict__ C, int K)
{
    __shared__ T As[16][16];
    const int tx = threadIdx.x, ty = threadIdx.y;
    T acc = A[0];
    for (int k0 = 0; k0 < K; k0 += 16) {
        As[ty][tx] = A[(size_t)ty * K + k0 + tx];
        __syncthreads();
        acc = As[ty][(tx + 1) % 16];
        __syncthreads();
    }
    C[ty * 16 + tx] = acc;
}

void run(const Counted *a, Counted *c, const float *af, float *cf, int K)
{
    k_tmpl<Counted><<<1, dim3(16, 16)>>>(a, c, K);
    k_tmpl<float><<<1, dim3(16, 16)>>>(af, cf, K);
}
