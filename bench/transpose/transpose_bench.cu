// transpose_bench.cu - times the transpose samples of issue #20 against a
// copy of the same bytes on the GPU (bench/transpose.sh builds and runs it).
//
// Kernels: a tiled copy (32x8 threads, a 32x32 tile each, coalesced reads
// and writes: the yardstick), then samples/transpose_naive.cu,
// transpose_shared.cu (tile[32][32]) and transpose_padded.cu
// (tile[32][33]), included as they are.  Each is checked element by element
// against a host transpose (the copy against the input), warmed up, then
// timed launch by launch with cudaEvents; the median is reported.
//
// usage: transpose_bench [N] [REPS] [--once NAME]
//   N (default 8192): the matrix is N x N floats; REPS (default 51).
//   --once NAME launches only NAME once (for ncu) and checks it.
// Output: a markdown table on stdout (GB/s counts the bytes read plus the
// bytes written); exit 1 when a result is wrong.

#include "../../samples/transpose_naive.cu"
#include "../../samples/transpose_padded.cu"
#include "../../samples/transpose_shared.cu"

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
    if (n <= 0 || n % 32 || reps < 1) {
        fprintf(stderr, "usage: transpose_bench [N (multiple of 32)] [REPS] [--once NAME]\n");
        return 2;
    }
    const Entry all[] = {{"copy", copy_tiled, false},
                         {"transpose_naive", transpose_naive, true},
                         {"transpose_shared", transpose_shared, true},
                         {"transpose_padded", transpose_padded, true}};
    const size_t count = (size_t)n * n, bytes = count * sizeof(float);
    std::vector<float> h_in(count), h_out(count);
    for (size_t i = 0; i < count; ++i)
        h_in[i] = (float)((i * 2654435761u) % 1000003u) / 1000003.0f - 0.5f;
    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, bytes));
    CHECK(cudaMalloc(&d_out, bytes));
    CHECK(cudaMemcpy(d_in, h_in.data(), bytes, cudaMemcpyHostToDevice));
    const dim3 block(32, 8), grid(n / 32, n / 32);
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    if (!once)
        printf("%s, %d x %d float (%.0f MiB moved per launch), median of %d launches after 5 "
               "warm-ups\n\n| kernel | median ms | GB/s | %% of copy | correct |\n|---|---:|---:|---:|---|\n",
               prop.name, n, n, 2.0 * bytes / 1048576.0, reps);
    int wrong = 0;
    double copy_ms = 0;
    std::vector<cudaEvent_t> ev(2 * reps);
    for (auto &e : ev)
        CHECK(cudaEventCreate(&e));
    for (const Entry &k : all) {
        if (once && strcmp(once, k.name))
            continue;
        CHECK(cudaMemset(d_out, 0xFF, bytes));
        k.fn<<<grid, block>>>(d_in, d_out, n, n);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(h_out.data(), d_out, bytes, cudaMemcpyDeviceToHost));
        size_t bad = 0;
        for (int r = 0; r < n; ++r)
            for (int c = 0; c < n; ++c) {
                const float want = k.transposes ? h_in[(size_t)c * n + r] : h_in[(size_t)r * n + c];
                bad += memcmp(&h_out[(size_t)r * n + c], &want, sizeof(float)) != 0;
            }
        wrong += bad != 0;
        if (once) {
            printf("%s: %s\n", k.name, bad ? "WRONG" : "correct");
            continue;
        }
        for (int w = 0; w < 5; ++w)
            k.fn<<<grid, block>>>(d_in, d_out, n, n);
        for (int r = 0; r < reps; ++r) {
            CHECK(cudaEventRecord(ev[2 * r]));
            k.fn<<<grid, block>>>(d_in, d_out, n, n);
            CHECK(cudaEventRecord(ev[2 * r + 1]));
        }
        CHECK(cudaDeviceSynchronize());
        std::vector<float> ms(reps);
        for (int r = 0; r < reps; ++r)
            CHECK(cudaEventElapsedTime(&ms[r], ev[2 * r], ev[2 * r + 1]));
        std::sort(ms.begin(), ms.end());
        const double med = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
        if (!strcmp(k.name, "copy"))
            copy_ms = med;
        printf("| %s | %.4f | %.1f | %.1f | %s |\n", k.name, med, 2.0 * bytes / (med * 1e6),
               copy_ms > 0 ? 100.0 * copy_ms / med : 0.0,
               bad ? "NO" : "yes");
        if (bad)
            fprintf(stderr, "%s: %zu of %zu elements wrong\n", k.name, bad, count);
    }
    for (auto &e : ev)
        cudaEventDestroy(e);
    cudaFree(d_in);
    cudaFree(d_out);
    return wrong ? 1 : 0;
}
