// adversarial input: a kernel template instantiated with a 100-deep Box<Box<...>>
// type and a recursive Depth<16> constant.  Expected: rewritten.
#include <cuda_runtime.h>

template <typename T> struct Box { T v; };
template <typename T> struct Unbox { typedef T type; };
template <typename T> struct Unbox<Box<T> > { typedef typename Unbox<T>::type type; };
template <int N> struct Depth { static constexpr int value = Depth<N - 1>::value + 1; };
template <> struct Depth<0> { static constexpr int value = 0; };

typedef Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<Box<float>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>> Deep;

template <typename Tag, int BK>
__global__ void nested_mm(const typename Unbox<Tag>::type *__restrict__ A,
                          const typename Unbox<Tag>::type *__restrict__ B,
                          typename Unbox<Tag>::type *__restrict__ C, int N, int K)
{
    typedef typename Unbox<Tag>::type T;
    __shared__ T As[BK][BK];
    __shared__ T Bs[BK][BK];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * BK + ty, col = blockIdx.x * BK + tx;
    T acc = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
        As[ty][tx] = A[(size_t)row * K + k0 + tx];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < BK; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[(size_t)row * N + col] = acc;
}

template __global__ void nested_mm<Deep, Depth<16>::value>(const float *, const float *, float *, int, int);
