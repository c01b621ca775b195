// transpose_bench.cu - times the transpose samples of issue #20 against a
// copy of the same bytes on the GPU (bench/transpose.sh builds and runs it).
//
// Kernels: a tiled copy (32x8 threads, a 32x32 tile each, coalesced reads
// and writes: the yardstick), then samples/transpose_naive.cu,
// transpose_shared.cu (tile[32][32]), transpose_padded.cu (tile[32][33])
// and transpose_wide_tile.cu (a 48 KB tile[128][96] no padding fits),
// included as they are.  Built with -DKP_SWIZZLED and -I DIR, it also
// times kpipe's XOR-swizzled rewrites of transpose_shared (`rewrite
// --pad-only --swizzle`) and transpose_wide_tile (`rewrite --pad-only`),
// DIR/transpose_shared_swizzled.cu and DIR/transpose_wide_tile_swizzled.cu
// with their kernels renamed so (bench/transpose.sh writes them).  The
// 32x32-tile kernels move an N x N matrix, the wide tile ones N x N', N'
// the largest multiple of 96 up to N.  Each is checked element by element
// against a host transpose (the copy against the input), warmed up, then
// timed launch by launch with cudaEvents; the median is reported.
//
// usage: transpose_bench [N] [REPS] [--once NAME]
//   N (default 8192, a multiple of 128): the matrix is N x N floats; REPS
//   (default 51).  --once NAME launches only NAME once (for ncu) and checks it.
// Output: a markdown table on stdout (GB/s counts the bytes read plus the
// bytes written; % of copy compares GB/s); exit 1 when a result is wrong.

#include "../../samples/transpose_naive.cu"
#include "../../samples/transpose_padded.cu"
#include "../../samples/transpose_shared.cu"
#include "../../samples/transpose_wide_tile.cu"
#ifdef KP_SWIZZLED
#include "transpose_shared_swizzled.cu"
#include "transpose_wide_tile_swizzled.cu"
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

__global__ void copy_tiled(const float *__restrict__ in, float *__restrict__ out, int rows,
                           int cols)
{
    const int x = blockIdx.x * 32 + threadIdx.x;
    const int y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        out[(size_t)(y + j) * cols + x] = in[(size_t)(y + j) * cols + x];
}

typedef void (*kernel_fn)(const float *, float *, int, int);

struct Entry {
    const char *name;
    kernel_fn fn;
    bool transposes;
    int tile_rows, tile_cols; /* of the input a block moves */
};

#define CHECK(call)                                                                     \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,               \
                    cudaGetErrorString(e_));                                            \
            exit(2);                                                                    \
        }                                                                               \
    } while (0)

int main(int argc, char **argv)
{
    int n = 8192, reps = 51;
    const char *once = nullptr;
    int pos = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--once") && i + 1 < argc)
            once = argv[++i];
        else if (pos++ == 0)
            n = atoi(argv[i]);
        else
            reps = atoi(argv[i]);
    }
    if (n <= 0 || n % 128 || reps < 1) {
        fprintf(stderr, "usage: transpose_bench [N (multiple of 128)] [REPS] [--once NAME]\n");
        return 2;
    }
    const Entry all[] = {{"copy", copy_tiled, false, 32, 32},
                         {"transpose_naive", transpose_naive, true, 32, 32},
                         {"transpose_shared", transpose_shared, true, 32, 32},
                         {"transpose_padded", transpose_padded, true, 32, 32},
#ifdef KP_SWIZZLED
                         {"transpose_shared_swizzled", transpose_shared_swizzled, true, 32, 32},
#endif
                         {"transpose_wide_tile", transpose_wide_tile, true, 128, 96},
#ifdef KP_SWIZZLED
                         {"transpose_wide_tile_swizzled", transpose_wide_tile_swizzled, true, 128,
                          96},
#endif
    };
    const size_t count = (size_t)n * n, bytes = count * sizeof(float);
    std::vector<float> h_in(count), h_out(count);
    for (size_t i = 0; i < count; ++i)
        h_in[i] = (float)((i * 2654435761u) % 1000003u) / 1000003.0f - 0.5f;
    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, bytes));
    CHECK(cudaMalloc(&d_out, bytes));
    CHECK(cudaMemcpy(d_in, h_in.data(), bytes, cudaMemcpyHostToDevice));
    const dim3 block(32, 8);
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    if (!once)
        printf("%s, %d x %d float (%.0f MiB moved per launch), median of %d launches after 5 "
               "warm-ups\n\n| kernel | median ms | GB/s | %% of copy | correct |\n|---|---:|---:|---:|---|\n",
               prop.name, n, n, 2.0 * bytes / 1048576.0, reps);
    int wrong = 0;
    double copy_gbs = 0;
    std::vector<cudaEvent_t> ev(2 * reps);
    for (auto &e : ev)
        CHECK(cudaEventCreate(&e));
    for (const Entry &k : all) {
        if (once && strcmp(once, k.name))
            continue;
        /* rows x cols of the input, which holds n x n floats */
        const int rows = n - n % k.tile_rows, cols = n - n % k.tile_cols;
        const size_t moved = (size_t)rows * cols * sizeof(float);
        const dim3 grid(cols / k.tile_cols, rows / k.tile_rows);
        CHECK(cudaMemset(d_out, 0xFF, bytes));
        k.fn<<<grid, block>>>(d_in, d_out, rows, cols);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(h_out.data(), d_out, bytes, cudaMemcpyDeviceToHost));
        size_t bad = 0;
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c) {
                const size_t o = k.transposes ? (size_t)c * rows + r : (size_t)r * cols + c;
                bad += memcmp(&h_out[o], &h_in[(size_t)r * cols + c], sizeof(float)) != 0;
            }
        wrong += bad != 0;
        if (once) {
            printf("%s: %s\n", k.name, bad ? "WRONG" : "correct");
            continue;
        }
        for (int w = 0; w < 5; ++w)
            k.fn<<<grid, block>>>(d_in, d_out, rows, cols);
        for (int r = 0; r < reps; ++r) {
            CHECK(cudaEventRecord(ev[2 * r]));
            k.fn<<<grid, block>>>(d_in, d_out, rows, cols);
            CHECK(cudaEventRecord(ev[2 * r + 1]));
        }
        CHECK(cudaDeviceSynchronize());
        std::vector<float> ms(reps);
        for (int r = 0; r < reps; ++r)
            CHECK(cudaEventElapsedTime(&ms[r], ev[2 * r], ev[2 * r + 1]));
        std::sort(ms.begin(), ms.end());
        const double med = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
        const double gbs = 2.0 * moved / (med * 1e6);
        if (!strcmp(k.name, "copy"))
            copy_gbs = gbs;
        printf("| %s", k.name);
        if (rows != n || cols != n)
            printf(" (%d x %d)", rows, cols);
        printf(" | %.4f | %.1f | %.1f | %s |\n", med, gbs,
               copy_gbs > 0 ? 100.0 * gbs / copy_gbs : 0.0, bad ? "NO" : "yes");
        if (bad)
            fprintf(stderr, "%s: %zu of %zu elements wrong\n", k.name, bad,
                    (size_t)rows * cols);
    }
    for (auto &e : ev)
        cudaEventDestroy(e);
    cudaFree(d_in);
    cudaFree(d_out);
    return wrong ? 1 : 0;
}
