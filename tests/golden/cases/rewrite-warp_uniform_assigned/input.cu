// Squared distances between the columns of two matrices, written the way
// older CUDA code declares its loop bounds: as `__shared__` scalars and
// C89 locals, assigned once at the top of the kernel and never again.
// Every thread computes the same value for them, so the K-loop's condition
// is the same in every thread and kpipe's register staging keeps its
// __syncwarp() (which holds the loads above the math).  The second kernel
// assigns its bound a second time under a thread-dependent condition: not
// proven uniform, so no warp barrier.  The third declares every variable
// at its top (C89): the K-loop's init assigns its two counters, and its
// bound goes through min(), a value of uniform arguments.  The fourth
// keeps its bound in a __device__ variable: every block assigns it its own
// value, so no warp barrier.  The fifth assigns its bound once and then
// hands it by reference to a helper that changes it per thread: no barrier.
#define BD 16

__global__ void col_dist(const float *ref, int ref_w, int pitch, const float *qry, int qry_w,
                         int qpitch, int rows, float *out)
{
    __shared__ float sa[BD][BD];
    __shared__ float sb[BD][BD];
    __shared__ int a0;
    __shared__ int a_end;
    int b0, step_a, step_b;
    int tx = threadIdx.x, ty = threadIdx.y;
    float ssd = 0.f;

    a0 = BD * blockIdx.y;
    b0 = BD * blockIdx.x;
    step_a = BD * pitch;
    step_b = BD * qpitch;
    a_end = a0 + (rows - 1) * pitch;
    int ok_a = a0 + tx < ref_w, ok_b = b0 + tx < qry_w, ok_out = a0 + ty < ref_w && ok_b;
    for (int a = a0, b = b0; a <= a_end; a += step_a, b += step_b) {
        sa[ty][tx] = a / pitch + ty < rows && ok_a ? ref[a + pitch * ty + tx] : 0.f;
        sb[ty][tx] = a / pitch + ty < rows && ok_b ? qry[b + qpitch * ty + tx] : 0.f;
        __syncthreads();
        for (int k = 0; k < BD; ++k) {
            float d = sa[k][ty] - sb[k][tx];
            ssd += d * d;
        }
        __syncthreads();
    }
    if (ok_out)
        out[(a0 + ty) * qpitch + b0 + tx] = ssd;
}

__global__ void col_dist_ragged(const float *ref, int pitch, const float *qry, int qpitch,
                                int rows, float *out)
{
    __shared__ float sa[BD][BD];
    __shared__ float sb[BD][BD];
    int a0, a_end;
    int tx = threadIdx.x, ty = threadIdx.y;
    float ssd = 0.f;

    a0 = BD * blockIdx.y;
    a_end = a0 + (rows - 1) * pitch;
    if (tx == 0)
        a_end = a0;
    for (int a = a0; a <= a_end; a += BD * pitch) {
        sa[ty][tx] = ref[a + pitch * ty + tx];
        sb[ty][tx] = qry[a + qpitch * ty + tx];
        __syncthreads();
        for (int k = 0; k < BD; ++k) {
            float d = sa[k][ty] - sb[k][tx];
            ssd += d * d;
        }
        __syncthreads();
    }
    out[(a0 + ty) * qpitch + tx] = ssd;
}

__global__ void col_dist_c89(const float *ref, int pitch, const float *qry, int qpitch, int rows,
                             int cap, float *out)
{
    __shared__ float sa[BD][BD];
    __shared__ float sb[BD][BD];
    int a, b, a0, a_end, tx, ty, k;
    float ssd, d;

    tx = threadIdx.x;
    ty = threadIdx.y;
    ssd = 0.f;
    a0 = BD * blockIdx.y;
    a_end = a0 + (min(rows, cap) - 1) * pitch;
    for (a = a0, b = BD * blockIdx.x; a <= a_end; a += BD * pitch, b += BD * qpitch) {
        sa[ty][tx] = ref[a + pitch * ty + tx];
        sb[ty][tx] = qry[b + qpitch * ty + tx];
        __syncthreads();
        for (k = 0; k < BD; ++k) {
            d = sa[k][ty] - sb[k][tx];
            ssd += d * d;
        }
        __syncthreads();
    }
    out[(a0 + ty) * qpitch + tx] = ssd;
}

__device__ int g_end;

__global__ void col_dist_global_bound(const float *ref, int pitch, const float *qry, int qpitch,
                                      int rows, float *out)
{
    __shared__ float sa[BD][BD];
    __shared__ float sb[BD][BD];
    int tx = threadIdx.x, ty = threadIdx.y;
    int a0 = BD * blockIdx.y;
    float ssd = 0.f;

    g_end = a0 + (rows - 1) * pitch;
    for (int a = a0; a <= g_end; a += BD * pitch) {
        sa[ty][tx] = ref[a + pitch * ty + tx];
        sb[ty][tx] = qry[a + qpitch * ty + tx];
        __syncthreads();
        for (int k = 0; k < BD; ++k) {
            float d = sa[k][ty] - sb[k][tx];
            ssd += d * d;
        }
        __syncthreads();
    }
    out[(a0 + ty) * qpitch + tx] = ssd;
}

__device__ void widen(int &v) { v += threadIdx.x; }

__global__ void col_dist_ref_bound(const float *ref, int pitch, const float *qry, int qpitch,
                                   int rows, float *out)
{
    __shared__ float sa[BD][BD];
    __shared__ float sb[BD][BD];
    int a0, a_end;
    int tx = threadIdx.x, ty = threadIdx.y;
    float ssd = 0.f;

    a0 = BD * blockIdx.y;
    a_end = a0 + (rows - 1) * pitch;
    widen(a_end);
    for (int a = a0; a <= a_end; a += BD * pitch) {
        sa[ty][tx] = ref[a + pitch * ty + tx];
        sb[ty][tx] = qry[a + qpitch * ty + tx];
        __syncthreads();
        for (int k = 0; k < BD; ++k) {
            float d = sa[k][ty] - sb[k][tx];
            ssd += d * d;
        }
        __syncthreads();
    }
    out[(a0 + ty) * qpitch + tx] = ssd;
}
