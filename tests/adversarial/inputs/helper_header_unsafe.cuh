// helper_header_unsafe.cuh - load helpers of a project header for
// helper_header_unsafe.cu: each would be copied into a kernel where one of
// its names, its arguments or its template arguments means something else
// than in the helper.
#ifndef HELPER_HEADER_UNSAFE_CUH
#define HELPER_HEADER_UNSAFE_CUH

#define HH_T 16
#define HH_SCALE 1.0f

const int hh_rows = HH_T;

// scales the copy by HH_SCALE, which the kernel's file redefines
__device__ void hh_scaled(float (&dst)[HH_T][HH_T], const float *src, int ld, int r0)
{
    dst[threadIdx.y][threadIdx.x] = HH_SCALE * src[(r0 + threadIdx.y) * ld + threadIdx.x];
}

// converts through hh_conv(float); the kernel's file adds hh_conv(int)
__device__ float hh_conv(float x) { return x; }
__device__ void hh_converted(float (&dst)[HH_T][HH_T], const int *src, int ld, int r0)
{
    dst[threadIdx.y][threadIdx.x] = hh_conv(src[(r0 + threadIdx.y) * ld + threadIdx.x]);
}

// a plain copy, for calls that are unsafe themselves
__device__ void hh_copy(float (&dst)[HH_T][HH_T], const float *src, int ld, int r0)
{
    dst[threadIdx.y][threadIdx.x] = src[(r0 + threadIdx.y) * ld + threadIdx.x];
}

// names the header's constant hh_rows, which a kernel declares too
__device__ void hh_rows_copy(float (&dst)[HH_T][HH_T], const float *src, int ld, int r0)
{
    dst[threadIdx.y % hh_rows][threadIdx.x] = src[(r0 + threadIdx.y) * ld + threadIdx.x];
}

// its width is deduced from the tile
template <int W>
__device__ void hh_deduced(float (&dst)[W][W], const float *src, int ld, int r0)
{
    dst[threadIdx.y][threadIdx.x] = src[(r0 + threadIdx.y) * ld + threadIdx.x];
}

// copies one row of the tile through a pointer to its first element
__device__ void hh_row(float *row, const float *src, int ld, int r0)
{
    row[threadIdx.x] = src[(r0 + threadIdx.y) * ld + threadIdx.x];
}

namespace lib {
struct Offset {
    int r, c;
};
// names its namespace's type Offset without qualification
__device__ void hh_offset(float (&dst)[HH_T][HH_T], const float *src, int ld, int r0)
{
    Offset o = {(int)threadIdx.y, (int)threadIdx.x};
    dst[o.r][o.c] = src[(r0 + o.r) * ld + o.c];
}
} // namespace lib

#endif
