// Value accessors (docs/design.md, "Value accessors"): copies that store
// the result of a function or method whose body is one return statement.
// The inline pass expands them where the loop calls them; the loop is then
// judged as written.  Near misses stay refused, each with its reason.
#define TILE 16

// a free function: expanded, the copies become plain global loads
__device__ float at(const float *p, int ld, int r, int c) { return p[r * ld + c]; }

__global__ void free_accessor(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        As[ty][tx] = at(A, n, row, k0 + tx);
        Bs[ty][tx] = at(B, n, k0 + ty, col);
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

struct View {
    const float *data;
    int ld, ncols;
    __device__ float at(int r, int c) const { return data[r * ld + c]; }
    __device__ int cols() const { return ncols; }
};

// a view handed to the kernel by value: its methods are expanded in the
// condition and the copies, and its pointer is global memory (cp.async)
__global__ void view_param(View a, View b, float *C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < a.cols(); k0 += TILE) {
        As[ty][tx] = a.at(row, k0 + tx);
        Bs[ty][tx] = b.at(k0 + ty, col);
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

// refused: the view points into a shared array that the compute phase
// writes, so the next tile's copy would read it before the write
__global__ void view_into_shared(const float *A, float *C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Ws[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    View w = {&Ws[0][0], TILE, TILE};
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        As[ty][tx] = w.at(ty, tx) + A[(blockIdx.y * TILE + ty) * n + k0 + tx];
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k];
        Ws[ty][tx] = acc;
        __syncthreads();
    }
    C[(blockIdx.y * TILE + ty) * n + blockIdx.x * TILE + tx] = acc;
}

// refused: the same, written out by hand (the pointer member is memory
// kpipe cannot name, and the compute phase writes a shared array)
__global__ void member_into_shared(const float *A, float *C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Ws[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    View w = {&Ws[0][0], TILE, TILE};
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        As[ty][tx] = w.data[ty * w.ld + tx] + A[(blockIdx.y * TILE + ty) * n + k0 + tx];
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k];
        Ws[ty][tx] = acc;
        __syncthreads();
    }
    C[(blockIdx.y * TILE + ty) * n + blockIdx.x * TILE + tx] = acc;
}

// refused: the compute phase moves the view
__global__ void view_moved(View a, const float *B, float *C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        As[ty][tx] = a.at(row, k0 + tx);
        Bs[ty][tx] = B[(k0 + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
        a.data += 1;
        __syncthreads();
    }
    C[row * n + col] = acc;
}

class Hidden {
    const float *data_;
    int ld_;

public:
    __host__ __device__ Hidden(const float *d, int ld) : data_(d), ld_(ld) {}
    __device__ float at(int r, int c) const { return data_[r * ld_ + c]; }
};

// refused: the accessor reads private members, which the kernel cannot name
__global__ void view_private(Hidden a, const float *B, float *C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        As[ty][tx] = a.at(row, k0 + tx);
        Bs[ty][tx] = B[(k0 + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

// refused: the object is an array element, not a variable's name
__global__ void view_element(const View *v, float *C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        As[ty][tx] = v[0].at(row, k0 + tx);
        Bs[ty][tx] = v[1].at(k0 + ty, col);
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

template <typename T>
struct TView {
    const T *data;
    int ld;
    __device__ T operator()(int r, int c) const { return data[r * ld + c]; }
};

// an operator of a class template's specialization: expanded (the
// object's type names no parameter of the kernel)
__global__ void tview_call(TView<float> a, TView<float> b, float *C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        As[ty][tx] = a(row, k0 + tx);
        Bs[ty][tx] = b(k0 + ty, col);
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

struct Span {
    const float *p;
    __device__ const float &operator[](int i) const { return p[i]; }
};

// a subscript operator returning a reference: expanded to what it refers to
__global__ void span_subscript(Span a, Span b, float *C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        As[ty][tx] = a[row * n + k0 + tx];
        Bs[ty][tx] = b[(k0 + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

struct Counting {
    const float *data;
    int *reads;
    __device__ float at(int i) const
    {
        atomicAdd(reads, 1);
        return data[i];
    }
};

// refused: the method does more than return a value
__global__ void view_counting(Counting a, const float *B, float *C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        As[ty][tx] = a.at(row * n + k0 + tx);
        Bs[ty][tx] = B[(k0 + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

struct Limit {
    const int *end;
};

// refused: the loop condition reads through a pointer member into a shared
// array the compute phase writes (the next tile's guard would read it early)
__global__ void cond_into_shared(const float *A, float *C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ int ends[TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    Limit lim = {&ends[0]};
    if (tx == 0 && ty == 0)
        ends[0] = n;
    __syncthreads();
    float acc = 0.0f;
    for (int k0 = 0; k0 < lim.end[0]; k0 += TILE) {
        As[ty][tx] = A[(blockIdx.y * TILE + ty) * n + k0 + tx];
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k];
        if (tx == 0 && ty == 0)
            ends[0] = n - TILE;
        __syncthreads();
    }
    C[(blockIdx.y * TILE + ty) * n + blockIdx.x * TILE + tx] = acc;
}

// a view reached through a pointer: expanded as `v->data[...]`
__global__ void view_pointer(const View *v, float *C, int n)
{
    __shared__ float As[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        As[ty][tx] = v->at(blockIdx.y * TILE + ty, k0 + tx);
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k];
        __syncthreads();
    }
    C[(blockIdx.y * TILE + ty) * n + blockIdx.x * TILE + tx] = acc;
}
