// bench_main.cu - host program of the GPU bench harness (bench/gpu_bench.py).
//
// It loads every version of one kernel (the original first, then the
// variants) as a shared library built from a generated launcher, runs them on
// the same fixed-seed inputs, compares each variant's outputs with the
// original's element by element, and times them.  What a sample looks like
// (buffers, sizes, tolerance, work) comes from the generated header
// kpipe_bench_spec.h; gpu_bench.py writes it from the launch spec.
//
// It does not decide anything: it prints one JSON object per line on stdout
// (events "device", "attrs", "begin", "baseline", "check", "time", "error")
// and gpu_bench.py turns them into the report.  A launch description that
// names several instantiations of a template kernel makes the header define
// KPIPE_BENCH_NUM_INSTS and kInstNames: each library then exports one
// launcher pair per instantiation (kpipe_bench_launch_I, kpipe_bench_attrs_I),
// every size runs every instantiation in turn, each compared with the
// original's same instantiation, and the events of one instantiation carry
// "inst": its template arguments.  With --copy, the timed size
// also times a plain copy kernel over the bytes one launch moves (event
// "copy"): the yardstick `kpipe validate --profile` measures a memory-bound
// kernel's bandwidth against.  Exit codes: 0 finished,
// 2 usage, 3 a launch left the CUDA context unusable (the last "begin" names
// the culprit; run again without it), 4 setup failed.

#include "kpipe_bench_spec.h"

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#ifndef KPIPE_BENCH_NUM_INSTS
// one instantiation (or no template): kpipe_bench_launch, kpipe_bench_attrs
#define KPIPE_BENCH_NUM_INSTS 1
static const char *const kInstNames[] = {""};
#endif
static const int kNumInsts = KPIPE_BENCH_NUM_INSTS;

typedef int (*launch_fn)(void *const *bufs, const long *sz, cudaStream_t stream);
typedef int (*attrs_fn)(const long *sz, int *out);

struct Version {
    std::string name;
    std::string path;
    launch_fn launch[KPIPE_BENCH_NUM_INSTS] = {};
    attrs_fn attrs[KPIPE_BENCH_NUM_INSTS] = {};
    bool failed[KPIPE_BENCH_NUM_INSTS] = {}; // no further sizes for this instantiation
};

// The instantiation being run, as the member the events of a size carry:
// `,"inst":"<64>"`, or nothing with one instantiation.
static std::string g_inst;

// ---------------------------------------------------------------- output

static std::string jstr(const std::string &s)
{
    std::string o = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            o += '\\';
            o += (char)c;
        } else if (c == '\n') {
            o += "\\n";
        } else if (c < 0x20) {
            char b[8];
            snprintf(b, sizeof b, "\\u%04x", c);
            o += b;
        } else {
            o += (char)c;
        }
    }
    return o + "\"";
}

static std::string jnum(double v, int digits = 9)
{
    if (!std::isfinite(v))
        return "null";
    char b[64];
    snprintf(b, sizeof b, "%.*g", digits, v);
    return b;
}

__attribute__((format(printf, 1, 2))) static void emit(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    fflush(stdout);
}

static void emit_error(const char *version, const char *size, const char *stage,
                       const std::string &msg)
{
    emit("{\"event\":\"error\",\"version\":%s,\"size\":%s%s,\"stage\":%s,\"msg\":%s}",
         jstr(version).c_str(), jstr(size ? size : "").c_str(), g_inst.c_str(), jstr(stage).c_str(),
         jstr(msg).c_str());
}

static std::string cuda_msg(cudaError_t e)
{
    return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

// ---------------------------------------------------------------- data

static int elem_size(int type)
{
    switch (type) {
    case T_F32: return 4;
    case T_F16: return 2;
    case T_I8: return 1;
    case T_F64: return 8;
    default: return 4;
    }
}

static uint64_t splitmix(uint64_t &s)
{
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// Fixed-seed values, never zero: float and double uniform in [-1, 1]; half
// k/1024 with k in [-1024, 1024] (exact in fp16); int8 and int in [-8, 8].
static void fill_random(void *h, int type, long n, uint64_t seed)
{
    uint64_t s = seed;
    for (long i = 0; i < n; ++i) {
        const uint64_t r = splitmix(s);
        switch (type) {
        case T_F32: {
            float v = (float)((double)(r >> 40) / (double)(1ull << 24)) * 2.0f - 1.0f;
            ((float *)h)[i] = v != 0.0f ? v : 0.5f;
            break;
        }
        case T_F64: {
            double v = (double)(r >> 11) / (double)(1ull << 53) * 2.0 - 1.0;
            ((double *)h)[i] = v != 0.0 ? v : 0.5;
            break;
        }
        case T_F16: {
            int k = (int)(r % 2048) - 1024;
            k += k >= 0;
            ((__half *)h)[i] = __float2half((float)k / 1024.0f);
            break;
        }
        default: {
            int k = (int)(r % 16);
            k = k < 8 ? k - 8 : k - 7;
            if (type == T_I8)
                ((int8_t *)h)[i] = (int8_t)k;
            else
                ((int *)h)[i] = k;
        }
        }
    }
}

// An element's bits (a double's all 64; the other types' widened).
static uint64_t bits_at(const void *h, int type, long i)
{
    switch (type) {
    case T_F64: return ((const uint64_t *)h)[i];
    case T_F16: return ((const uint16_t *)h)[i];
    case T_I8: return ((const uint8_t *)h)[i];
    default: return ((const uint32_t *)h)[i];
    }
}

static double value_at(const void *h, int type, long i)
{
    switch (type) {
    case T_F32: return ((const float *)h)[i];
    case T_F16: return __half2float(((const __half *)h)[i]);
    case T_I8: return ((const int8_t *)h)[i];
    case T_F64: return ((const double *)h)[i];
    default: return ((const int *)h)[i];
    }
}

static uint64_t poison_bits(int type, unsigned char byte)
{
    uint64_t b = byte;
    switch (type) {
    case T_F64: return b * 0x0101010101010101ull;
    case T_F16: return b | b << 8;
    case T_I8: return b;
    default: return b | b << 8 | b << 16 | b << 24;
    }
}

struct Buffers {
    std::vector<long> count;
    std::vector<size_t> bytes;
    std::vector<void *> dev;
    std::vector<std::vector<unsigned char>> init; // inputs (in, inout)
};

static bool check(cudaError_t e, const char *what, const char *size)
{
    if (e == cudaSuccess)
        return true;
    emit_error("harness", size, what, cuda_msg(e));
    return false;
}

// After an error: a second call still failing means the context is gone.
static bool context_is_dead()
{
    cudaGetLastError();
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess)
        e = cudaGetLastError();
    return e != cudaSuccess;
}

// Uploads the inputs, poisons the outputs with `poison`, launches
// instantiation k once and waits.  Returns false (after reporting) when the
// launch failed.
static bool run_once(Version &v, int k, Buffers &b, const long *sz, const char *size,
                     unsigned char poison)
{
    for (int i = 0; i < kNumBufs; ++i) {
        if (kBufs[i].role == R_OUT) {
            if (!check(cudaMemset(b.dev[i], poison, b.bytes[i]), "memset", size))
                return false;
        } else if (b.count[i] > 0) {
            if (!check(cudaMemcpy(b.dev[i], b.init[i].data(), b.bytes[i], cudaMemcpyHostToDevice),
                       "upload", size))
                return false;
        }
    }
    if (!check(cudaDeviceSynchronize(), "sync before launch", size))
        return false;
    emit("{\"event\":\"begin\",\"version\":%s,\"size\":%s%s}", jstr(v.name).c_str(), jstr(size).c_str(),
         g_inst.c_str());
    cudaError_t e = (cudaError_t)v.launch[k](b.dev.data(), sz, 0);
    const char *stage = "launch";
    if (e == cudaSuccess) {
        e = cudaDeviceSynchronize();
        stage = "execution";
    }
    if (e == cudaSuccess) {
        e = cudaGetLastError();
        stage = "execution";
    }
    if (e != cudaSuccess) {
        emit_error(v.name.c_str(), size, stage, cuda_msg(e));
        v.failed[k] = true;
        if (context_is_dead()) {
            emit("{\"event\":\"fatal\",\"version\":%s,\"size\":%s%s,\"msg\":%s}", jstr(v.name).c_str(),
                 jstr(size).c_str(), g_inst.c_str(), jstr(cuda_msg(e)).c_str());
            exit(3);
        }
        return false;
    }
    return true;
}

static bool download(const Buffers &b, std::vector<std::vector<unsigned char>> &out, const char *size)
{
    out.resize(kNumBufs);
    for (int i = 0; i < kNumBufs; ++i) {
        out[i].resize(b.bytes[i]);
        if (b.count[i] > 0 &&
            !check(cudaMemcpy(out[i].data(), b.dev[i], b.bytes[i], cudaMemcpyDeviceToHost), "download",
                   size))
            return false;
    }
    return true;
}

// ---------------------------------------------------------------- copy

// The yardstick for memory-bound kernels: every thread copies 16-byte
// words, grid-stride, from one buffer to another.
__global__ void kpipe_copy_kernel(const float4 *__restrict__ src, float4 *__restrict__ dst, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        dst[i] = src[i];
}

// Bytes one launch moves: the spec's "bytes" work, or without work every
// buffer once (an inout buffer twice: read and written).  0 for "flops".
static double moved_bytes(const long *sz, const std::vector<size_t> &bytes)
{
    if (!strcmp(kWorkKind, "bytes"))
        return work_amount(sz);
    if (kWorkKind[0])
        return 0.0;
    double total = 0.0;
    for (int i = 0; i < kNumBufs; ++i)
        total += (double)bytes[i] * (kBufs[i].role == R_INOUT ? 2 : 1);
    return total;
}

// Times the copy kernel over `moved` bytes (half read, half written) as the
// versions are timed and prints a "copy" event.
static void time_copy(const char *size, double moved, int reps, int warmup)
{
    const size_t n = (size_t)(moved / 2 / sizeof(float4));
    if (n == 0)
        return;
    float4 *src = nullptr, *dst = nullptr;
    if (!check(cudaMalloc(&src, n * sizeof(float4)), "cudaMalloc", size) ||
        !check(cudaMalloc(&dst, n * sizeof(float4)), "cudaMalloc", size)) {
        cudaFree(src);
        return;
    }
    cudaMemset(src, 0, n * sizeof(float4));
    int sms = 1;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const unsigned blocks = (unsigned)std::min<size_t>((n + 255) / 256, (size_t)sms * 32);
    std::vector<cudaEvent_t> ev(2 * reps);
    for (auto &e : ev)
        cudaEventCreate(&e);
    for (int w = 0; w < warmup; ++w)
        kpipe_copy_kernel<<<blocks, 256>>>(src, dst, n);
    for (int r = 0; r < reps; ++r) {
        cudaEventRecord(ev[2 * r], 0);
        kpipe_copy_kernel<<<blocks, 256>>>(src, dst, n);
        cudaEventRecord(ev[2 * r + 1], 0);
    }
    if (check(cudaDeviceSynchronize(), "copy", size)) {
        std::vector<float> ms(reps);
        for (int r = 0; r < reps; ++r)
            cudaEventElapsedTime(&ms[r], ev[2 * r], ev[2 * r + 1]);
        std::sort(ms.begin(), ms.end());
        const double median = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
        emit("{\"event\":\"copy\",\"size\":%s,\"bytes\":%s,\"reps\":%d,\"warmup\":%d,\"median_ms\":%s}",
             jstr(size).c_str(), jnum(2.0 * n * sizeof(float4), 17).c_str(), reps, warmup,
             jnum(median).c_str());
    }
    for (auto &e : ev)
        cudaEventDestroy(e);
    cudaFree(src);
    cudaFree(dst);
}

// ---------------------------------------------------------------- main

static void usage()
{
    fprintf(stderr,
            "usage: harness --lib NAME=PATH [--lib NAME=PATH ...] [--sizes a,b,c] [--time SIZE]\n"
            "               [--reps N] [--warmup N] [--rounds N] [--seed N] [--single] [--copy]\n"
            "               [--drop-slower PCT [--drop-after R]] [--round-ms MS]\n"
            "  the first --lib is the reference (the original kernel); --single launches\n"
            "  the first library once (each instantiation once) at the first size and\n"
            "  compares nothing; --rounds N times the versions N times in turn (one\n"
            "  \"time\" event per version and round); --drop-slower PCT stops timing a\n"
            "  version slower than the reference by more than PCT%% in each of the first\n"
            "  R rounds (default 2) at a size (a \"dropped\" event); --round-ms MS times\n"
            "  fewer launches (at least 5) where --reps of the reference would take\n"
            "  longer than MS at a size;\n"
            "  --copy also times a copy kernel over the bytes one launch moves (\"copy\")\n");
    exit(2);
}

static std::vector<std::string> split(const std::string &s)
{
    std::vector<std::string> out;
    size_t p = 0;
    while (p <= s.size()) {
        size_t q = s.find(',', p);
        if (q == std::string::npos)
            q = s.size();
        if (q > p)
            out.push_back(s.substr(p, q - p));
        p = q + 1;
    }
    return out;
}

static void device_info()
{
    int dev = 0, drv = 0, rt = 0;
    cudaDeviceProp p;
    if (!check(cudaGetDevice(&dev), "cudaGetDevice", "") ||
        !check(cudaGetDeviceProperties(&p, dev), "cudaGetDeviceProperties", ""))
        exit(4);
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    int clock_khz = 0, mem_khz = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev);
    cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev);
    emit("{\"event\":\"device\",\"name\":%s,\"cc\":\"%d.%d\",\"sms\":%d,\"clock_mhz\":%d,"
         "\"mem_clock_mhz\":%d,\"l2_bytes\":%d,\"smem_per_sm\":%zu,\"driver\":%d,\"runtime\":%d}",
         jstr(p.name).c_str(), p.major, p.minor, p.multiProcessorCount, clock_khz / 1000,
         mem_khz / 1000, p.l2CacheSize, p.sharedMemPerMultiprocessor, drv, rt);
}


struct Opts {
    std::vector<std::string> sizes, time_sizes;
    int reps = 21, warmup = 3, rounds = 1;
    // --drop-slower PCT: after --drop-after rounds, a version whose median
    // was more than PCT% above the reference's in each of those rounds is
    // timed no more at that size ("dropped" event); 0: never
    double drop_slower = 0;
    int drop_after = 2;
    // --round-ms MS: at a size where --reps launches of the reference would
    // take longer than MS, each version is timed with fewer launches per
    // round (MS / one launch, at least 5, odd): long kernels vary little
    // from launch to launch, and the rounds still pair; 0: always --reps
    double round_ms = 0;
    uint64_t seed = 20261129;
    bool single = false, copy = false;
};

static Opts parse_options(int argc, char **argv, std::vector<Version> &versions)
{
    Opts o;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc)
                usage();
            return argv[++i];
        };
        if (a == "--lib") {
            std::string s = next();
            size_t eq = s.find('=');
            if (eq == std::string::npos)
                usage();
            Version v;
            v.name = s.substr(0, eq);
            v.path = s.substr(eq + 1);
            versions.push_back(v);
        } else if (a == "--sizes") {
            o.sizes = split(next());
        } else if (a == "--time") {
            for (auto &t : split(next()))
                o.time_sizes.push_back(t);
        } else if (a == "--reps") {
            o.reps = atoi(next().c_str());
        } else if (a == "--warmup") {
            o.warmup = atoi(next().c_str());
        } else if (a == "--rounds") {
            o.rounds = atoi(next().c_str());
        } else if (a == "--drop-slower") {
            o.drop_slower = atof(next().c_str());
        } else if (a == "--drop-after") {
            o.drop_after = atoi(next().c_str());
        } else if (a == "--round-ms") {
            o.round_ms = atof(next().c_str());
        } else if (a == "--seed") {
            o.seed = strtoull(next().c_str(), nullptr, 10);
        } else if (a == "--single") {
            o.single = true;
        } else if (a == "--copy") {
            o.copy = true;
        } else {
            usage();
        }
    }
    if (versions.empty() || o.reps < 1 || o.warmup < 0 || o.rounds < 1 || o.drop_slower < 0 ||
        o.drop_after < 1 || o.round_ms < 0)
        usage();
    if (o.sizes.empty())
        for (int s = 0; s < kNumSizes; ++s)
            o.sizes.push_back(kSizeNames[s]);
    return o;
}

// dlopen()s every version and finds its launchers (one pair per instantiation).
static void load_versions(std::vector<Version> &versions)
{
    for (auto &v : versions) {
        void *h = dlopen(v.path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            emit_error(v.name.c_str(), "", "dlopen", dlerror());
            exit(4);
        }
        for (int k = 0; k < kNumInsts; ++k) {
            std::string suffix = kNumInsts > 1 ? "_" + std::to_string(k) : "";
            v.launch[k] = (launch_fn)dlsym(h, ("kpipe_bench_launch" + suffix).c_str());
            v.attrs[k] = (attrs_fn)dlsym(h, ("kpipe_bench_attrs" + suffix).c_str());
            if (!v.launch[k] || !v.attrs[k]) {
                emit_error(v.name.c_str(), "", "dlsym",
                           "kpipe_bench_launch" + suffix + "/kpipe_bench_attrs" + suffix +
                               " not exported");
                exit(4);
            }
        }
    }
}

static void emit_attrs(std::vector<Version> &versions, int k, const long *sz, const char *size)
{
    for (auto &v : versions) {
        int a[6] = {0, 0, 0, 0, 0, 0};
        cudaError_t e = (cudaError_t)v.attrs[k](sz, a);
        if (e != cudaSuccess) {
            emit_error(v.name.c_str(), size, "attributes", cuda_msg(e));
            cudaGetLastError();
            continue;
        }
        emit("{\"event\":\"attrs\",\"version\":%s,\"size\":%s%s,\"regs\":%d,\"smem_static\":%d,"
             "\"local_bytes\":%d,\"max_threads\":%d,\"blocks_per_sm\":%d,\"threads\":%d}",
             jstr(v.name).c_str(), jstr(size).c_str(), g_inst.c_str(), a[0], a[1], a[2], a[3], a[4],
             a[5]);
    }
}

// The buffers of one size, inputs filled; false (reported) when one cannot be made.
static bool alloc_buffers(Buffers &b, const long *sz, const char *size, uint64_t seed)
{
    b.count.resize(kNumBufs);
    b.bytes.resize(kNumBufs);
    b.dev.assign(kNumBufs, nullptr);
    b.init.resize(kNumBufs);
    for (int i = 0; i < kNumBufs; ++i) {
        b.count[i] = buf_count(i, sz);
        if (b.count[i] < 0) {
            emit_error("harness", size, "count", std::string("negative element count for ") + kBufs[i].name);
            return false;
        }
        b.bytes[i] = (size_t)b.count[i] * elem_size(kBufs[i].type);
        if (!check(cudaMalloc(&b.dev[i], std::max<size_t>(b.bytes[i], 256)), "cudaMalloc", size))
            return false;
        if (kBufs[i].role != R_OUT) {
            b.init[i].resize(b.bytes[i]);
            fill_random(b.init[i].data(), kBufs[i].type, b.count[i], seed + 7919u * (uint64_t)(i + 1));
        }
    }
    return true;
}

static void free_buffers(Buffers &b)
{
    for (void *p : b.dev)
        if (p)
            cudaFree(p);
}

// --single: one launch of instantiation k of v, nothing compared.
static void run_single(Version &v, int k, Buffers &b, const long *sz, const char *size)
{
    if (!run_once(v, k, b, sz, size, 0xFF))
        return;
    std::vector<std::vector<unsigned char>> got;
    if (!download(b, got, size))
        return;
    long poisoned = 0;
    for (int i = 0; i < kNumBufs; ++i)
        if (kBufs[i].role == R_OUT)
            for (long e = 0; e < b.count[i]; ++e)
                poisoned += bits_at(got[i].data(), kBufs[i].type, e) == poison_bits(kBufs[i].type, 0xFF);
    emit("{\"event\":\"single\",\"version\":%s,\"size\":%s%s,\"ok\":true,\"poisoned\":%ld}",
         jstr(v.name).c_str(), jstr(size).c_str(), g_inst.c_str(), poisoned);
}

// Reference: the original, run twice with two different poisons.  An
// element holding the poison after both runs was never written; an element
// that differs between the runs is not deterministic.  False when it failed.
static bool run_baseline(Version &base, int k, Buffers &b, const long *sz, const char *size,
                         std::vector<std::vector<unsigned char>> &ref)
{
    std::vector<std::vector<unsigned char>> ref2;
    if (base.failed[k] || !run_once(base, k, b, sz, size, 0xFF) || !download(b, ref, size) ||
        !run_once(base, k, b, sz, size, 0x7F) || !download(b, ref2, size)) {
        emit("{\"event\":\"baseline\",\"size\":%s%s,\"ok\":false}", jstr(size).c_str(), g_inst.c_str());
        return false;
    }
    long unwritten = 0, unstable = 0, elements = 0;
    for (int i = 0; i < kNumBufs; ++i) {
        if (kBufs[i].role == R_IN)
            continue;
        const int t = kBufs[i].type;
        for (long e = 0; e < b.count[i]; ++e) {
            const uint64_t x = bits_at(ref[i].data(), t, e), y = bits_at(ref2[i].data(), t, e);
            ++elements;
            if (x == poison_bits(t, 0xFF) && y == poison_bits(t, 0x7F))
                ++unwritten;
            else if (x != y)
                ++unstable;
        }
    }
    emit("{\"event\":\"baseline\",\"size\":%s%s,\"ok\":%s,\"elements\":%ld,\"unwritten\":%ld,"
         "\"nondeterministic\":%ld}",
         jstr(size).c_str(), g_inst.c_str(), unwritten || unstable ? "false" : "true", elements, unwritten,
         unstable);
    return true;
}

// Instantiation k of v against the original's (ref), element by element.
static void check_version(Version &v, int k, Buffers &b, const long *sz, const char *size,
                          const std::vector<std::vector<unsigned char>> &ref)
{
    std::vector<std::vector<unsigned char>> got;
    if (v.failed[k] || !run_once(v, k, b, sz, size, 0xFF) || !download(b, got, size))
        return;
    long elements = 0, mismatches = 0, unwritten = 0, differ = 0, clobbered = 0;
    double max_abs = 0.0, max_rel = 0.0;
    std::string first;
    for (int i = 0; i < kNumBufs; ++i) {
        const int t = kBufs[i].type;
        if (kBufs[i].role == R_IN) {
            if (b.count[i] > 0 && memcmp(got[i].data(), b.init[i].data(), b.bytes[i]) != 0)
                ++clobbered;
            continue;
        }
        const uint64_t pz = poison_bits(t, 0xFF);
        for (long e = 0; e < b.count[i]; ++e) {
            ++elements;
            const uint64_t gb = bits_at(got[i].data(), t, e), rb = bits_at(ref[i].data(), t, e);
            if (gb == rb)
                continue;
            ++differ;
            const double g = value_at(got[i].data(), t, e), r = value_at(ref[i].data(), t, e);
            const double d = std::fabs(g - r);
            const bool never_written = gb == pz;
            bool bad = never_written || !(d <= kTolAbs + kTolRel * std::fabs(r));
            if (std::isnan(d) || never_written) {
                max_abs = INFINITY;
                max_rel = INFINITY;
            } else {
                max_abs = std::max(max_abs, d);
                max_rel = std::max(max_rel, r != 0.0 ? d / std::fabs(r) : INFINITY);
            }
            unwritten += never_written;
            if (bad) {
                if (mismatches == 0) {
                    char buf[256];
                    snprintf(buf, sizeof buf,
                             "{\"arg\":%s,\"index\":%ld,\"got\":%s,\"want\":%s,\"unwritten\":%s}",
                             jstr(kBufs[i].name).c_str(), e, jnum(g).c_str(), jnum(r).c_str(),
                             never_written ? "true" : "false");
                    first = buf;
                }
                ++mismatches;
            }
        }
    }
    emit("{\"event\":\"check\",\"version\":%s,\"size\":%s%s,\"ok\":%s,\"elements\":%ld,"
         "\"mismatches\":%ld,\"unwritten\":%ld,\"differ\":%ld,\"max_abs\":%s,\"max_rel\":%s,"
         "\"clobbered_inputs\":%ld,\"first_mismatch\":%s}",
         jstr(v.name).c_str(), jstr(size).c_str(), g_inst.c_str(), mismatches || clobbered ? "false" : "true",
         elements, mismatches, unwritten, differ, jnum(max_abs).c_str(), jnum(max_rel).c_str(), clobbered,
         first.empty() ? "null" : first.c_str());
}

// --drop-slower: a version (not the reference, versions[0]) whose median
// was more than o.drop_slower percent above the reference's in every one of
// the rounds so far is timed no more at this size: a "dropped" event with
// the rounds and the geometric mean of the per-round speedups.  kpipe tune
// never chooses it (it only chooses a variant faster beyond the noise).
static void drop_slower_versions(const std::vector<Version> &versions,
                                 const std::vector<std::vector<double>> &med, std::vector<bool> &dropped,
                                 const char *size, const Opts &o)
{
    const std::vector<double> &ref = med[0];
    const double limit = 1.0 + o.drop_slower / 100.0;
    for (size_t vi = 1; vi < versions.size(); ++vi) {
        const std::vector<double> &m = med[vi];
        if (dropped[vi] || m.size() != ref.size() || m.empty())
            continue;
        bool slower = true;
        double logsum = 0.0;
        for (size_t r = 0; r < m.size(); ++r) {
            slower = slower && ref[r] > 0 && m[r] > ref[r] * limit;
            logsum += ref[r] > 0 && m[r] > 0 ? std::log(ref[r] / m[r]) : 0.0;
        }
        if (!slower)
            continue;
        dropped[vi] = true;
        emit("{\"event\":\"dropped\",\"version\":%s,\"size\":%s%s,\"rounds\":%d,\"speedup\":%s,"
             "\"limit_pct\":%s}",
             jstr(versions[vi].name).c_str(), jstr(size).c_str(), g_inst.c_str(), (int)m.size(),
             jnum(std::exp(logsum / (double)m.size())).c_str(), jnum(o.drop_slower).c_str());
    }
}

// Timing: every version that ran cleanly at this size, one after the other,
// each launch between its own pair of events; with --rounds, the whole
// sequence again, so slow drift (clocks, temperature) shows up as
// round-to-round spread instead of favouring a version.
// --round-ms: the launches per round at this size, from one timed launch
// of the first version that ran cleanly here (after its warm-ups).
static int reps_for_size(std::vector<Version> &versions, int k, Buffers &b, const long *sz,
                         const Opts &o)
{
    if (o.round_ms <= 0)
        return o.reps;
    for (Version &v : versions) {
        if (v.failed[k])
            continue;
        cudaEvent_t e0, e1;
        cudaEventCreate(&e0);
        cudaEventCreate(&e1);
        cudaError_t e = cudaSuccess;
        for (int w = 0; w < o.warmup && e == cudaSuccess; ++w)
            e = (cudaError_t)v.launch[k](b.dev.data(), sz, 0);
        cudaEventRecord(e0, 0);
        if (e == cudaSuccess)
            e = (cudaError_t)v.launch[k](b.dev.data(), sz, 0);
        cudaEventRecord(e1, 0);
        float ms = 0;
        if (e == cudaSuccess && cudaEventSynchronize(e1) == cudaSuccess)
            cudaEventElapsedTime(&ms, e0, e1);
        cudaEventDestroy(e0);
        cudaEventDestroy(e1);
        if (ms <= 0 || ms * o.reps <= o.round_ms)
            return o.reps;
        int n = (int)std::ceil(o.round_ms / ms);
        n = std::max(std::min(o.reps, 5), std::min(o.reps, n));
        if (n % 2 == 0 && n < o.reps)
            ++n;
        return n;
    }
    return o.reps;
}

static void time_versions(std::vector<Version> &versions, int k, Buffers &b, const long *sz,
                          const char *size, const Opts &o)
{
    const int reps = reps_for_size(versions, k, b, sz, o), warmup = o.warmup;
    const double work = work_amount(sz);
    std::vector<cudaEvent_t> ev(2 * reps);
    for (auto &e : ev)
        check(cudaEventCreate(&e), "cudaEventCreate", size);
    // round medians of each version at this size, for --drop-slower
    std::vector<std::vector<double>> med(versions.size());
    std::vector<bool> dropped(versions.size(), false);
    for (int round = 0; round < o.rounds; ++round) {
        if (o.drop_slower > 0 && round == o.drop_after)
            drop_slower_versions(versions, med, dropped, size, o);
        for (size_t vi = 0; vi < versions.size(); ++vi) {
            Version &v = versions[vi];
            if (v.failed[k] || dropped[vi])
                continue;
            emit("{\"event\":\"begin\",\"version\":%s,\"size\":%s%s,\"timing\":true}", jstr(v.name).c_str(),
                 jstr(size).c_str(), g_inst.c_str());
            cudaError_t e = cudaSuccess;
            for (int w = 0; w < warmup && e == cudaSuccess; ++w)
                e = (cudaError_t)v.launch[k](b.dev.data(), sz, 0);
            for (int r = 0; r < reps && e == cudaSuccess; ++r) {
                cudaEventRecord(ev[2 * r], 0);
                e = (cudaError_t)v.launch[k](b.dev.data(), sz, 0);
                cudaEventRecord(ev[2 * r + 1], 0);
            }
            if (e == cudaSuccess)
                e = cudaDeviceSynchronize();
            if (e != cudaSuccess) {
                emit_error(v.name.c_str(), size, "timing", cuda_msg(e));
                v.failed[k] = true;
                if (context_is_dead())
                    exit(3);
                continue;
            }
            std::vector<float> ms(reps);
            for (int r = 0; r < reps; ++r)
                cudaEventElapsedTime(&ms[r], ev[2 * r], ev[2 * r + 1]);
            std::vector<float> sorted = ms;
            std::sort(sorted.begin(), sorted.end());
            const double median = reps % 2 ? sorted[reps / 2] : 0.5 * (sorted[reps / 2 - 1] + sorted[reps / 2]);
            double mean = 0.0;
            std::string all = "[";
            for (int r = 0; r < reps; ++r) {
                mean += ms[r];
                all += (r ? "," : "") + jnum(ms[r]);
            }
            mean /= reps;
            all += "]";
            med[vi].push_back(median);
            emit("{\"event\":\"time\",\"version\":%s,\"size\":%s%s,\"round\":%d,\"reps\":%d,\"warmup\":%d,"
                 "\"median_ms\":%s,\"min_ms\":%s,\"max_ms\":%s,\"mean_ms\":%s,\"work\":%s,"
                 "\"work_kind\":%s,\"all_ms\":%s}",
                 jstr(v.name).c_str(), jstr(size).c_str(), g_inst.c_str(), round, reps, warmup,
                 jnum(median).c_str(), jnum(sorted.front()).c_str(), jnum(sorted.back()).c_str(),
                 jnum(mean).c_str(), jnum(work, 17).c_str(), jstr(kWorkKind).c_str(), all.c_str());
        }
    }
    for (auto &e : ev)
        cudaEventDestroy(e);
}

static std::string inst_member(int k)
{
    return kNumInsts > 1 ? ",\"inst\":" + jstr(kInstNames[k]) : "";
}

int main(int argc, char **argv)
{
    std::vector<Version> versions;
    const Opts o = parse_options(argc, argv, versions);
    load_versions(versions);
    device_info();

    for (size_t si = 0; si < o.sizes.size(); ++si) {
        const char *size = o.sizes[si].c_str();
        g_inst.clear();
        int sidx = -1;
        for (int s = 0; s < kNumSizes; ++s)
            if (o.sizes[si] == kSizeNames[s])
                sidx = s;
        if (sidx < 0) {
            emit_error("harness", size, "sizes", "no such size in the launch spec");
            continue;
        }
        const long *sz = kSizeVals[sidx];
        if (const char *why = requires_failed(sz)) {
            emit_error("harness", size, "requires", std::string("size violates `") + why + "`");
            continue;
        }
        const bool timed = std::find(o.time_sizes.begin(), o.time_sizes.end(), o.sizes[si]) != o.time_sizes.end();
        if (si == 0 || (!o.time_sizes.empty() && o.sizes[si] == o.time_sizes[0]))
            for (int k = 0; k < kNumInsts; ++k) {
                g_inst = inst_member(k);
                emit_attrs(versions, k, sz, size);
            }
        g_inst.clear();
        Buffers b;
        if (!alloc_buffers(b, sz, size, o.seed)) {
            free_buffers(b);
            continue;
        }
        // Every instantiation in turn on the same buffers (run_once uploads
        // the inputs and poisons the outputs before each launch).
        bool any_timed = false;
        for (int k = 0; k < kNumInsts; ++k) {
            g_inst = inst_member(k);
            if (o.single) {
                run_single(versions[0], k, b, sz, size);
                continue;
            }
            std::vector<std::vector<unsigned char>> ref;
            if (!run_baseline(versions[0], k, b, sz, size, ref))
                continue;
            for (size_t vi = 1; vi < versions.size(); ++vi)
                check_version(versions[vi], k, b, sz, size, ref);
            if (timed)
                time_versions(versions, k, b, sz, size, o);
            any_timed |= timed;
        }
        g_inst.clear();
        if (any_timed && o.copy)
            time_copy(size, moved_bytes(sz, b.bytes), o.reps, o.warmup);
        free_buffers(b);
        if (o.single)
            break; // one launch (per instantiation), one size
    }
    emit("{\"event\":\"done\"}");
    return 0;
}
