// kp_cpu_cuda.h - a CPU emulation of the parts of CUDA that tiled kernels
// use, for the differential checker in tests/cpudiff (docs/cpudiff.md).
//
// C++17, g++ only, no CUDA headers.  A block runs its threads as ucontext
// fibers on one OS thread; a fiber runs alone from one __syncthreads() to
// the next, and the scheduler decides in which order the threads of the
// block take their turn between two barriers (forward, reverse or a seeded
// random permutation, re-drawn at every barrier).  Blocks run one after the
// other, so __shared__ is plain `static` storage (filled with 0xFF bytes at
// every block start where prep.py registered it).  cp.async copies
// (__pipeline_memcpy_async) complete either when they are issued or at the
// __pipeline_wait_prior() that covers them: the two ends of what the
// hardware may do.  Warp-collective operations cannot be emulated this way
// and end the run with exit status 77 ("SKIP: ...").
//
// sm_90 mbarriers and bulk copies (the inline PTX of kpipe's bulk
// transforms, which prep.py turns into the kp::ptx_* calls below) are
// emulated too: a thread whose mbarrier wait cannot complete yet gives way
// to the others (so threads also switch there, in the order of the
// schedule), a bulk copy lands when it is issued or when a wait needs it,
// and in a block that initialised an mbarrier __syncwarp() is a barrier of
// the warp's threads (elsewhere threads never interleave between block
// barriers, and it is a no-op).
//
// Errors (a divergent barrier, an out-of-bounds access, a misaligned
// cp.async or bulk copy, an mbarrier misused or waited on forever, a
// timeout) print "ERROR: ..." on stderr and exit with status 3.
#ifndef KP_CPU_CUDA_H
#define KP_CPU_CUDA_H

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

// --- qualifiers ------------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __shared__ static
#define __constant__
#define __managed__
#define __align__(n) __attribute__((aligned(n)))
#define __grid_constant__
#define __CUDACC__ 1
#define __CUDA_ARCH__ 900 // device code paths, as an sm_90 build compiles them
#define CUDART_INF_F HUGE_VALF

// --- vector types ----------------------------------------------------------
#define KP_VEC2(T, N, A)                                                        \
    struct __attribute__((aligned(A))) N { T x, y; };                           \
    static inline N make_##N(T x, T y) { N v; v.x = x; v.y = y; return v; }
#define KP_VEC3(T, N)                                                           \
    struct N { T x, y, z; };                                                    \
    static inline N make_##N(T x, T y, T z) { N v; v.x = x; v.y = y; v.z = z; return v; }
#define KP_VEC4(T, N, A)                                                        \
    struct __attribute__((aligned(A))) N { T x, y, z, w; };                     \
    static inline N make_##N(T x, T y, T z, T w)                                \
    { N v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }
KP_VEC2(float, float2, 8)
KP_VEC3(float, float3)
KP_VEC4(float, float4, 16)
KP_VEC2(int, int2, 8)
KP_VEC3(int, int3)
KP_VEC4(int, int4, 16)
KP_VEC2(unsigned int, uint2, 8)
KP_VEC4(unsigned int, uint4, 16)
KP_VEC2(double, double2, 16)
KP_VEC2(short, short2, 4)
KP_VEC4(short, short4, 8)
KP_VEC2(signed char, char2, 2)
KP_VEC4(signed char, char4, 4)
KP_VEC2(unsigned char, uchar2, 2)
KP_VEC4(unsigned char, uchar4, 4)
KP_VEC2(long long, longlong2, 16)
#undef KP_VEC2
#undef KP_VEC3
#undef KP_VEC4

struct uint3 {
    unsigned int x, y, z;
};
static inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return uint3{x, y, z}; }
struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};

// The scheduler sets these when it switches threads.
inline uint3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
constexpr int warpSize = 32;

// --- scalar helpers --------------------------------------------------------
static inline int min(int a, int b) { return a < b ? a : b; }
static inline int max(int a, int b) { return a > b ? a : b; }
static inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
static inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
static inline long long min(long long a, long long b) { return a < b ? a : b; }
static inline long long max(long long a, long long b) { return a > b ? a : b; }
static inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
static inline unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
static inline long min(long a, long b) { return a < b ? a : b; }
static inline long max(long a, long b) { return a > b ? a : b; }
static inline unsigned long min(unsigned long a, unsigned long b) { return a < b ? a : b; }
static inline unsigned long max(unsigned long a, unsigned long b) { return a > b ? a : b; }
static inline float min(float a, float b) { return fminf(a, b); }
static inline float max(float a, float b) { return fmaxf(a, b); }
static inline double min(double a, double b) { return fmin(a, b); }
static inline double max(double a, double b) { return fmax(a, b); }
static inline float __fdividef(float a, float b) { return a / b; }
// CUDA's fast intrinsics: glibc's math.h declares __expf, __logf, __powf ...
// as its internal names but exports none of them, so a kernel calling one
// did not link.  Macros (a static definition would clash with glibc's
// extern declaration); the CPU gives the exact function, the same in the
// original and the rewrite, which is all the comparison needs.
#define __expf(x) expf(x)
#define __exp10f(x) exp10f(x)
#define __logf(x) logf(x)
#define __log2f(x) log2f(x)
#define __log10f(x) log10f(x)
#define __sinf(x) sinf(x)
#define __cosf(x) cosf(x)
#define __tanf(x) tanf(x)
#define __powf(x, y) powf((x), (y))
#define __sincosf(x, s, c) sincosf((x), (s), (c))
static inline float rsqrtf(float a) { return 1.0f / sqrtf(a); }
static inline float __frcp_rn(float a) { return 1.0f / a; }
static inline float __fsqrt_rn(float a) { return sqrtf(a); }
static inline float __saturatef(float a) { return a < 0.0f ? 0.0f : (a > 1.0f ? 1.0f : a); }
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __int_as_float(int v) { float f; memcpy(&f, &v, 4); return f; }
static inline int __float_as_int(float f) { int v; memcpy(&v, &f, 4); return v; }
static inline float __uint_as_float(unsigned v) { float f; memcpy(&f, &v, 4); return f; }
static inline unsigned __float_as_uint(float f) { unsigned v; memcpy(&v, &f, 4); return v; }
static inline int __float2int_rn(float f) { return (int)nearbyintf(f); }
static inline int __float2int_rz(float f) { return (int)f; }
static inline int __mul24(int a, int b) { return a * b; }
static inline int __popc(unsigned v) { return __builtin_popcount(v); }
static inline int __clz(int v) { return v == 0 ? 32 : __builtin_clz((unsigned)v); }
static inline int __ffs(int v) { return __builtin_ffs(v); }
static inline int __dp4a(int a, int b, int c)
{
    int s = c;
    for (int i = 0; i < 4; ++i)
        s += (int)(signed char)(a >> (8 * i)) * (int)(signed char)(b >> (8 * i));
    return s;
}
static inline unsigned __dp4a(unsigned a, unsigned b, unsigned c)
{
    unsigned s = c;
    for (int i = 0; i < 4; ++i)
        s += ((a >> (8 * i)) & 0xffu) * ((b >> (8 * i)) & 0xffu);
    return s;
}
template <class T> static inline T __ldg(const T *p) { return *p; }
template <class T> static inline T __ldca(const T *p) { return *p; }
template <class T> static inline T __ldcg(const T *p) { return *p; }
template <class T> static inline T __ldcs(const T *p) { return *p; }
template <class T> static inline T __ldlu(const T *p) { return *p; }
template <class T> static inline T __ldcv(const T *p) { return *p; }
template <class T> static inline void __stcg(T *p, T v) { *p = v; }
template <class T> static inline void __stcs(T *p, T v) { *p = v; }
template <class T> static inline void __stwt(T *p, T v) { *p = v; }
static inline void __threadfence() {}
static inline void __threadfence_block() {}
static inline void __threadfence_system() {}
static inline void __nanosleep(unsigned) {}
static inline long long clock64() { static long long c; return ++c; }

// Atomics: threads never run at the same time, so a plain update is atomic.
template <class T> static inline T atomicAdd(T *p, T v) { T o = *p; *p = o + v; return o; }
template <class T> static inline T atomicSub(T *p, T v) { T o = *p; *p = o - v; return o; }
template <class T> static inline T atomicExch(T *p, T v) { T o = *p; *p = v; return o; }
template <class T> static inline T atomicMin(T *p, T v) { T o = *p; *p = v < o ? v : o; return o; }
template <class T> static inline T atomicMax(T *p, T v) { T o = *p; *p = v > o ? v : o; return o; }
template <class T> static inline T atomicAnd(T *p, T v) { T o = *p; *p = o & v; return o; }
template <class T> static inline T atomicOr(T *p, T v) { T o = *p; *p = o | v; return o; }
template <class T> static inline T atomicXor(T *p, T v) { T o = *p; *p = o ^ v; return o; }
template <class T> static inline T atomicCAS(T *p, T cmp, T v) { T o = *p; if (o == cmp) *p = v; return o; }
static inline unsigned atomicInc(unsigned *p, unsigned lim) { unsigned o = *p; *p = o >= lim ? 0 : o + 1; return o; }

// --- half ------------------------------------------------------------------
namespace kp {
// float -> binary16, round to nearest even (also for subnormals), NaN kept.
static inline unsigned short f2h_bits(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u)
        return (unsigned short)(sign | (ax > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (ax >= 0x477ff000u) // >= 65520 rounds to infinity
        return (unsigned short)(sign | 0x7c00u);
    if (ax < 0x38800000u) { // below 2^-14: a subnormal half (or zero)
        float a;
        memcpy(&a, &ax, 4);
        return (unsigned short)(sign | (uint32_t)nearbyintf(a * 16777216.0f));
    }
    const uint32_t e = (ax >> 23) - 127u + 15u;
    const uint32_t m = ax & 0x7fffffu;
    uint32_t h = (e << 10) | (m >> 13);
    const uint32_t rem = m & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
        ++h;
    return (unsigned short)(sign | h);
}
static inline float h2f_bits(unsigned short h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t e = (h >> 10) & 0x1fu;
    const uint32_t m = h & 0x3ffu;
    float f;
    if (e == 0) {
        f = (float)m * (1.0f / 16777216.0f);
        return sign ? -f : f;
    }
    uint32_t x = e == 31 ? (sign | 0x7f800000u | (m << 13)) : (sign | ((e - 15u + 127u) << 23) | (m << 13));
    memcpy(&f, &x, 4);
    return f;
}
} // namespace kp

struct __half {
    unsigned short __x;
    __half() = default;
    __half(float f) : __x(kp::f2h_bits(f)) {}
    __half(double d) : __x(kp::f2h_bits((float)d)) {}
    __half(int i) : __x(kp::f2h_bits((float)i)) {}
    operator float() const { return kp::h2f_bits(__x); }
};
typedef __half half;
struct __attribute__((aligned(4))) __half2 {
    __half x, y;
};
typedef __half2 half2;
static inline __half kp_mkh(float f) { return __half(f); }
static inline __half operator+(__half a, __half b) { return kp_mkh((float)a + (float)b); }
static inline __half operator-(__half a, __half b) { return kp_mkh((float)a - (float)b); }
static inline __half operator*(__half a, __half b) { return kp_mkh((float)a * (float)b); }
static inline __half operator/(__half a, __half b) { return kp_mkh((float)a / (float)b); }
static inline __half operator-(__half a) { __half r = a; r.__x ^= 0x8000u; return r; }
static inline __half &operator+=(__half &a, __half b) { return a = a + b; }
static inline __half &operator-=(__half &a, __half b) { return a = a - b; }
static inline __half &operator*=(__half &a, __half b) { return a = a * b; }
static inline __half &operator/=(__half &a, __half b) { return a = a / b; }
static inline __half __float2half(float f) { return __half(f); }
static inline __half __float2half_rn(float f) { return __half(f); }
static inline float __half2float(__half h) { return (float)h; }
static inline __half __int2half_rn(int i) { return __half((float)i); }
static inline __half __hadd(__half a, __half b) { return a + b; }
static inline __half __hsub(__half a, __half b) { return a - b; }
static inline __half __hmul(__half a, __half b) { return a * b; }
static inline __half __hdiv(__half a, __half b) { return a / b; }
static inline __half __hneg(__half a) { return -a; }
static inline __half __hfma(__half a, __half b, __half c)
{
    return __half((float)((double)(float)a * (double)(float)b + (double)(float)c));
}
static inline __half __hmax(__half a, __half b) { return (float)a > (float)b ? a : b; }
static inline __half __hmin(__half a, __half b) { return (float)a < (float)b ? a : b; }
static inline bool __heq(__half a, __half b) { return (float)a == (float)b; }
static inline bool __hlt(__half a, __half b) { return (float)a < (float)b; }
static inline bool __hgt(__half a, __half b) { return (float)a > (float)b; }
static inline __half2 __halves2half2(__half a, __half b) { return __half2{a, b}; }
static inline __half2 __float2half2_rn(float f) { return __half2{__half(f), __half(f)}; }
static inline __half2 __floats2half2_rn(float a, float b) { return __half2{__half(a), __half(b)}; }
static inline __half2 __float22half2_rn(float2 v) { return __half2{__half(v.x), __half(v.y)}; }
static inline float2 __half22float2(__half2 h) { return make_float2((float)h.x, (float)h.y); }
static inline __half __low2half(__half2 h) { return h.x; }
static inline __half __high2half(__half2 h) { return h.y; }
static inline float __low2float(__half2 h) { return (float)h.x; }
static inline float __high2float(__half2 h) { return (float)h.y; }
static inline __half2 __hadd2(__half2 a, __half2 b) { return __half2{a.x + b.x, a.y + b.y}; }
static inline __half2 __hmul2(__half2 a, __half2 b) { return __half2{a.x * b.x, a.y * b.y}; }
static inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return __half2{__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)}; }

// KP_EMU_SPLIT (kpipe's verifier, docs/verify.md): the runtime's functions
// marked KP_RT are compiled once into an object (where KP_EMU_RUNTIME is
// defined too) and only declared to each kernel's translation unit.
// The runtime's variables of library types (vectors: their members would
// be instantiated in every kernel's build) are KP_RT_VAR: defined in that
// object, declared extern to the kernels.  The scheduler's helpers that
// only the runtime calls are not seen by the kernels' builds at all
// (#ifndef KP_RT_DECL).
#if defined(KP_EMU_SPLIT) && !defined(KP_EMU_RUNTIME)
#define KP_RT_DECL 1
#define KP_RT
#define KP_RT_VAR extern
#elif defined(KP_EMU_SPLIT)
#define KP_RT __attribute__((noinline))
#define KP_RT_VAR
#else
#define KP_RT static inline
#define KP_RT_VAR inline
#endif
// --- the runtime -----------------------------------------------------------
namespace kp {

[[noreturn]] KP_RT void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
[[noreturn]] KP_RT void fail(const char *fmt, ...)
#ifdef KP_RT_DECL
;
#else
{
    va_list ap;
    va_start(ap, fmt);
    fputs("ERROR: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    fflush(stdout);
    _exit(3);
}
#endif
[[noreturn]] static inline void unsupported(const char *what)
{
    printf("SKIP: %s is unsupported by the CPU checker (threads switch only at __syncthreads)\n", what);
    fflush(stdout);
    _exit(77);
}

enum Sched { SCHED_FORWARD, SCHED_REVERSE, SCHED_RANDOM };
enum CpMode { CP_AT_WAIT, CP_AT_ISSUE };

struct Copy {
    void *dst;
    const void *src;
    size_t n, zfill;
};
// thread states
enum { T_RUN, T_BARRIER, T_DONE, T_MBAR, T_WARP, T_YIELD };
struct Thread {
    ucontext_t ctx; // the fiber's context (ucontext switches)
    void *sp;       // or its saved stack pointer (kp_emu_fiber_swap)
    void *stack;
    // T_RUN, T_BARRIER (__syncthreads), T_DONE, T_MBAR (an mbarrier wait),
    // T_WARP (__syncwarp), T_YIELD (its arrival completed a phase: the
    // threads that can go on now run first)
    int state;
    const char *bar_file;
    int bar_line;
    uint3 tid;
    unsigned lin;              // linear index in the block
    unsigned wait_bar, parity; // T_MBAR: the mbarrier (shared address) and the parity waited for
    unsigned warp_mask;        // T_WARP: the lanes that meet
    std::vector<Copy> open;                  // issued, not committed
    std::vector<std::vector<Copy>> groups;   // committed, oldest first
};

struct Runtime {
    Sched sched = SCHED_FORWARD;
    CpMode cpmode = CP_AT_WAIT;
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    std::vector<Thread> threads;
    Thread *cur = nullptr;
    ucontext_t sched_ctx;
    void *sched_sp = nullptr;
    void (*body)(void *) = nullptr; // the launch's kernel with its arguments (launch())
    void *body_arg = nullptr;
    size_t stack_size = 512 * 1024;
    int bar_acc = 0, bar_result = 0;
    long barriers = 0;
    bool mbar_used = false;  // the block initialised an mbarrier: __syncwarp() is a barrier
    bool phase_done = false; // an mbarrier phase completed since the thread last gave way
};
// Shared memory is undefined when a block starts: every __shared__
// variable prep.py could register is filled with 0xFF bytes (NaN, -1) when
// it is first reached and at the start of every later block, so a read of
// something the block did not write shows up instead of seeing the previous
// block's values.
struct ShmArea {
    void *p;
    size_t n;
};
KP_RT_VAR std::vector<ShmArea> shm_areas;
KP_RT void shm_register(void *p, size_t n)
#ifdef KP_RT_DECL
;
#else
{
    shm_areas.push_back(ShmArea{p, n});
    memset(p, 0xff, n);
}
#endif
struct ShmReg {
    ShmReg(void *p, size_t n) { shm_register(p, n); }
};
// dynamic shared memory (extern __shared__ arrays point here; prep.py)
alignas(256) inline unsigned char dyn_smem_buf[256 * 1024];
inline size_t dyn_smem_bytes; // what the running launch passed (%dynamic_smem_size)
static inline unsigned dyn_smem_size() { return (unsigned)dyn_smem_bytes; }
KP_RT_VAR Runtime rt;

static inline uint64_t next_rand()
{
    // splitmix64
    uint64_t z = (rt.rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// An mbarrier (PTX ISA "mbarrier"): the arrivals a phase expects and has
// still to see, the phase number, the transaction count (bytes expected,
// minus the bytes landed), and the bulk copies that complete it but have
// not landed yet (CP_AT_WAIT).
struct Mbar {
    unsigned expected = 0, pending = 0, phase = 0;
    long long tx = 0;
    std::vector<Copy> copies;
};
KP_RT_VAR std::vector<std::pair<unsigned, Mbar>> mbars; // by shared address; cleared at block start

// Shared addresses (the 32-bit operands of the mbarrier and bulk-copy PTX):
// offsets from the dynamic shared-memory buffer, which the static shared
// variables lie next to (one executable image: well within 2 GiB).
static inline unsigned shared_addr(const void *p) { return (unsigned)((uintptr_t)p - (uintptr_t)dyn_smem_buf); }

// What the kernels' code calls (the intrinsics below and __syncthreads());
// the rest of the scheduler is the runtime's own.
KP_RT void barrier(const char *file, int line, int pred);
#ifndef KP_RT_DECL
static inline void do_copy(const Copy &c)
{
    const size_t nread = c.n - c.zfill;
    if (nread)
        memcpy(c.dst, c.src, nread);
    if (c.zfill)
        memset((unsigned char *)c.dst + nread, 0, c.zfill);
}
// The copies of one group land in reverse order of issue: the hardware
// orders none of them, so a rewrite whose copies into the same bytes rely on
// program order (a later copy overwriting an earlier one) differs here.
static inline void land_reversed(const std::vector<Copy> &g)
{
    for (size_t i = g.size(); i-- > 0;)
        do_copy(g[i]);
}
static inline void complete_groups(Thread &t, size_t keep)
{
    while (t.groups.size() > keep) {
        land_reversed(t.groups.front());
        t.groups.erase(t.groups.begin());
    }
}

static inline void check_stack(const Thread &t);
static inline void fiber_main()
{
    rt.body(rt.body_arg);
    Thread &t = *rt.cur;
    // copies still in flight when a thread ends land eventually
    land_reversed(t.open);
    t.open.clear();
    complete_groups(t, 0);
    check_stack(t);
    t.state = T_DONE;
    // returning resumes uc_link, the scheduler
}

// Fiber switches.  swapcontext saves and restores the signal mask, a system
// call (rt_sigprocmask) each way, which was most of a launcher run's time
// (docs/verify.md, "Cost").  On x86-64 kp_emu_fiber_swap saves the
// callee-saved registers and the x87 and SSE control words on the stack it
// leaves and restores them from the one it enters: what a call has to
// keep, and the same for every fiber (nothing changes the signal mask).
// ucontext as before elsewhere, under a sanitizer (which tracks stacks
// through swapcontext), with a shadow stack (CET) on, or with
// KP_EMU_UCONTEXT=1 in the environment.
#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#if defined(__has_feature)
#if !__has_feature(address_sanitizer) && !__has_feature(thread_sanitizer) && !__has_feature(memory_sanitizer)
#define KP_FAST_FIBERS 1
#endif
#else
#define KP_FAST_FIBERS 1
#endif
#endif
#ifdef KP_FAST_FIBERS
// kp_emu_fiber_swap(save, to): pushes the callee-saved registers and the
// control words, stores the stack pointer in *save, takes `to` as the stack
// pointer and pops the same from it; its `ret` resumes the other fiber (or
// a new one's entry).  A local symbol: each object that includes this
// header has its own copy.
asm(".text\n"
    ".p2align 4\n"
    ".type kp_emu_fiber_swap, @function\n"
    "kp_emu_fiber_swap:\n"
    "    pushq %rbp\n"
    "    pushq %rbx\n"
    "    pushq %r12\n"
    "    pushq %r13\n"
    "    pushq %r14\n"
    "    pushq %r15\n"
    "    subq $16, %rsp\n"
    "    stmxcsr 8(%rsp)\n"
    "    fnstcw (%rsp)\n"
    "    movq %rsp, (%rdi)\n"
    "    movq %rsi, %rsp\n"
    "    fldcw (%rsp)\n"
    "    ldmxcsr 8(%rsp)\n"
    "    addq $16, %rsp\n"
    "    popq %r15\n"
    "    popq %r14\n"
    "    popq %r13\n"
    "    popq %r12\n"
    "    popq %rbx\n"
    "    popq %rbp\n"
    "    ret\n"
    ".size kp_emu_fiber_swap, .-kp_emu_fiber_swap\n");
extern "C" void kp_emu_fiber_swap(void **save, void *to);
#endif

// Whether this process switches with kp_emu_fiber_swap (decided once).
static inline bool fast_fibers()
{
#ifdef KP_FAST_FIBERS
    static const int fast = [] {
        const char *e = getenv("KP_EMU_UCONTEXT");
        if (e && *e && strcmp(e, "0") != 0)
            return 0;
        // ARCH_SHSTK_STATUS (Linux 6.6): a shadow stack would refuse the
        // switch's `ret` to another fiber; older kernels refuse the call
        unsigned long features = 0;
        if (syscall(SYS_arch_prctl, 0x5005, &features) == 0 && (features & 1))
            return 0;
        return 1;
    }();
    return fast;
#else
    return false;
#endif
}

static inline void switch_to_scheduler()
{
    check_stack(*rt.cur);
#ifdef KP_FAST_FIBERS
    if (fast_fibers()) {
        kp_emu_fiber_swap(&rt.cur->sp, rt.sched_sp);
        return;
    }
#endif
    swapcontext(&rt.cur->ctx, &rt.sched_ctx);
}

#ifdef KP_FAST_FIBERS
// A new fiber's first switch returns here, on its own stack.
[[noreturn]] static inline void fiber_entry()
{
    fiber_main();
    kp_emu_fiber_swap(&rt.cur->sp, rt.sched_sp); // to the scheduler, for good
    __builtin_unreachable();
}
// The stack pointer of a fiber that has not run: what kp_emu_fiber_swap
// pops (control words, six registers) and fiber_entry as the address its
// `ret` goes to, with the stack aligned as at a function's entry.
static inline void *fiber_start(void *stack, size_t size)
{
    uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
    void **sp = (void **)top;
    *--sp = nullptr;                    // fiber_entry's return address: none
    *--sp = (void *)&fiber_entry;       // where the `ret` goes
    for (int i = 0; i < 6; ++i)
        *--sp = nullptr;                // rbp rbx r12-r15
    sp -= 2;
    uint32_t mxcsr;
    uint16_t fcw;
    asm volatile("stmxcsr %0" : "=m"(mxcsr));
    asm volatile("fnstcw %0" : "=m"(fcw));
    memcpy((char *)sp, &fcw, sizeof fcw);
    memcpy((char *)sp + 8, &mxcsr, sizeof mxcsr);
    return sp;
}
#endif

KP_RT void barrier(const char *file, int line, int pred)
{
    Thread &t = *rt.cur;
    t.state = T_BARRIER;
    t.bar_file = file;
    t.bar_line = line;
    rt.bar_acc += pred ? 1 : 0;
    switch_to_scheduler();
}

// Fiber stacks come 1,024 at a time from one mapping, next to each other
// above one inaccessible page: a mapping and a guard page per stack made
// the kernel's bookkeeping of 2,048 mappings most of a short run's time
// (docs/verify.md, "Cost").  A stack that overflows runs into the one
// below it, so the KP_STACK_CANARY bytes right below each stack (the top
// of the one below, which its fiber leaves free, or a page of their own
// under the lowest) hold a pattern that every switch from the fiber
// checks (check_stack): the overflow fails the run before another thread
// runs.  A fiber uses stack_size - KP_STACK_CANARY bytes (fiber_stack_size).
constexpr size_t KP_STACK_CANARY = 64;
constexpr uint64_t KP_CANARY_WORD = 0x6b70697065737461ull; // "kpipesta"
static inline size_t fiber_stack_size() { return rt.stack_size - KP_STACK_CANARY; }
static inline void *alloc_stack(size_t size)
{
    static unsigned char *pool = nullptr;
    static size_t left = 0;
    if (!left) {
        const size_t page = (size_t)sysconf(_SC_PAGESIZE), n = 1024;
        void *p = mmap(nullptr, n * size + 2 * page, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED)
            fail("cannot allocate fiber stacks");
        mprotect(p, page, PROT_NONE); // below the lowest stack's canary
        pool = (unsigned char *)p + 2 * page;
        left = n;
    }
    unsigned char *st = pool;
    pool += size;
    --left;
    for (size_t i = 0; i < KP_STACK_CANARY / sizeof(uint64_t); ++i)
        memcpy(st - KP_STACK_CANARY + i * sizeof(uint64_t), &KP_CANARY_WORD, sizeof(uint64_t));
    return st;
}
static inline void check_stack(const Thread &t)
{
    const unsigned char *c = (const unsigned char *)t.stack - KP_STACK_CANARY;
    for (size_t i = 0; i < KP_STACK_CANARY / sizeof(uint64_t); ++i) {
        uint64_t w;
        memcpy(&w, c + i * sizeof(uint64_t), sizeof w);
        if (w != KP_CANARY_WORD)
            fail("stack overflow: in block (%u,%u,%u) thread (%u,%u,%u) used more than the emulator's %zu KB "
                 "of stack",
                 blockIdx.x, blockIdx.y, blockIdx.z, t.tid.x, t.tid.y, t.tid.z, rt.stack_size / 1024);
    }
}

// Checks that n bytes at shared address a lie in a __shared__ variable.
static inline unsigned char *shared_ptr(unsigned a, size_t n, const char *what)
{
    unsigned char *p = dyn_smem_buf + (int32_t)a;
    bool in = p >= dyn_smem_buf && p + n <= dyn_smem_buf + sizeof dyn_smem_buf;
    for (const ShmArea &s : shm_areas)
        in = in || (p >= (unsigned char *)s.p && p + n <= (unsigned char *)s.p + s.n);
    if (!in)
        fail("%s: %zu bytes at shared address %#x are not in a __shared__ variable", what, n, a);
    return p;
}
static inline Mbar *find_mbar(unsigned a)
{
    for (auto &m : mbars)
        if (m.first == a)
            return &m.second;
    return nullptr;
}
// A phase completes when every arrival came and every expected byte landed.
static inline void mbar_complete(Mbar &m)
{
    if (m.pending == 0 && m.tx == 0) {
        ++m.phase;
        m.pending = m.expected;
        rt.phase_done = true;
    }
}
static inline void mbar_land(Mbar &m)
{
    for (const Copy &c : m.copies) {
        do_copy(c);
        m.tx -= (long long)c.n;
    }
    m.copies.clear();
    mbar_complete(m);
}
// A waiting thread may go on: its phase completed, or it can complete by
// landing the copies still in flight (every arrival came).
static inline bool mbar_ready(unsigned a, unsigned parity)
{
    const Mbar *m = find_mbar(a);
    return !m || (m->phase & 1) != parity || (m->pending == 0 && !m->copies.empty());
}

// Thread i, waiting at an mbarrier or a __syncwarp(), may go on.
static inline bool resumable(unsigned i, unsigned nthreads)
{
    const Thread &t = rt.threads[i];
    if (t.state == T_MBAR)
        return mbar_ready(t.wait_bar, t.parity);
    if (t.state != T_WARP)
        return false;
    const unsigned w = i / 32 * 32;
    for (unsigned l = 0; l < 32 && w + l < nthreads; ++l)
        if (t.warp_mask >> l & 1 && rt.threads[w + l].state != T_WARP)
            return false;
    return true;
}

static inline void shuffle(std::vector<unsigned> &order)
{
    if (rt.sched == SCHED_REVERSE)
        std::reverse(order.begin(), order.end());
    else if (rt.sched == SCHED_RANDOM)
        for (size_t i = order.size(); i > 1; --i)
            std::swap(order[i - 1], order[next_rand() % i]);
}

// No thread can go on, some wait at an mbarrier or a __syncwarp(): a deadlock.
[[noreturn]] static inline void stuck(const Thread &t)
{
    if (t.state == T_WARP)
        fail("deadlock: in block (%u,%u,%u) thread (%u,%u,%u) waits at __syncwarp(0x%x) for lanes that never come",
             blockIdx.x, blockIdx.y, blockIdx.z, t.tid.x, t.tid.y, t.tid.z, t.warp_mask);
    const Mbar *m = find_mbar(t.wait_bar);
    fail("deadlock: in block (%u,%u,%u) thread (%u,%u,%u) waits for the phase of parity %u of the mbarrier at "
         "shared address %#x, which never completes (phase %u, %u of %u arrivals pending, %lld bytes expected)",
         blockIdx.x, blockIdx.y, blockIdx.z, t.tid.x, t.tid.y, t.tid.z, t.parity, t.wait_bar, m ? m->phase : 0,
         m ? m->pending : 0, m ? m->expected : 0, m ? m->tx : 0);
}

#endif // !KP_RT_DECL

KP_RT void run_block(unsigned nthreads)
#ifdef KP_RT_DECL
;
#else
{
    for (const ShmArea &a : shm_areas)
        memset(a.p, 0xff, a.n);
    mbars.clear();
    rt.mbar_used = false;
    if (rt.threads.size() < nthreads)
        rt.threads.resize(nthreads);
    for (unsigned i = 0; i < nthreads; ++i) {
        Thread &t = rt.threads[i];
        if (!t.stack)
            t.stack = alloc_stack(rt.stack_size);
        t.state = T_RUN;
        t.open.clear();
        t.groups.clear();
        t.lin = i;
        t.tid = uint3{i % blockDim.x, (i / blockDim.x) % blockDim.y, i / (blockDim.x * blockDim.y)};
#ifdef KP_FAST_FIBERS
        if (fast_fibers()) {
            t.sp = fiber_start(t.stack, fiber_stack_size());
            continue;
        }
#endif
        getcontext(&t.ctx);
        t.ctx.uc_stack.ss_sp = t.stack;
        t.ctx.uc_stack.ss_size = fiber_stack_size();
        t.ctx.uc_link = &rt.sched_ctx;
        makecontext(&t.ctx, fiber_main, 0);
    }
    std::vector<unsigned> order(nthreads);
    for (unsigned i = 0; i < nthreads; ++i)
        order[i] = i;
    for (;;) {
        shuffle(order);
        rt.bar_acc = 0;
        // run until every thread is at the barrier or done; those that
        // stopped at an mbarrier or a __syncwarp() go on, in the schedule's
        // order, as soon as they can: at once when a thread's arrival
        // completed a phase (ahead of the threads that did not run yet, the
        // most hostile legal order), else after the others ran
        for (;;) {
            // a queued thread is T_RUN: resumable() passes it over
            for (unsigned i : order)
                rt.threads[i].state = T_RUN;
            std::vector<unsigned> q(order.rbegin(), order.rend()); // the next to run is last
            while (!q.empty()) {
                const unsigned i = q.back();
                q.pop_back();
                Thread &t = rt.threads[i];
                rt.cur = &t;
                threadIdx = t.tid;
#ifdef KP_FAST_FIBERS
                if (fast_fibers())
                    kp_emu_fiber_swap(&rt.sched_sp, t.sp);
                else
#endif
                    swapcontext(&rt.sched_ctx, &t.ctx);
                if (t.state != T_YIELD)
                    continue;
                std::vector<unsigned> now;
                for (unsigned k = 0; k < nthreads; ++k)
                    if (resumable(k, nthreads))
                        now.push_back(k);
                shuffle(now);
                for (unsigned k : now)
                    rt.threads[k].state = T_RUN;
                t.state = T_RUN;
                q.push_back(i);
                q.insert(q.end(), now.rbegin(), now.rend());
            }
            order.clear();
            for (unsigned i = 0; i < nthreads; ++i)
                if (resumable(i, nthreads))
                    order.push_back(i);
            if (order.empty())
                break;
            shuffle(order);
        }
        rt.cur = nullptr;
        std::vector<unsigned> waiting;
        long done = 0;
        for (unsigned i = 0; i < nthreads; ++i) {
            const int st = rt.threads[i].state;
            if (st == T_MBAR || st == T_WARP)
                stuck(rt.threads[i]);
            if (st == T_BARRIER)
                waiting.push_back(i);
            else
                ++done;
        }
        if (waiting.empty()) {
            for (const auto &m : mbars)
                if (!m.second.copies.empty())
                    fail("in block (%u,%u,%u) %zu bulk copies into shared memory were never waited for (the block "
                         "ended with them in flight)",
                         blockIdx.x, blockIdx.y, blockIdx.z, m.second.copies.size());
            return;
        }
        const Thread &w = rt.threads[waiting[0]];
        if (done) {
            for (unsigned i = 0; i < nthreads; ++i)
                if (rt.threads[i].state == T_DONE) {
                    const Thread &d = rt.threads[i];
                    fail("divergent barrier: in block (%u,%u,%u) thread (%u,%u,%u) returned while %zu threads wait "
                         "at __syncthreads() (%s:%d)",
                         blockIdx.x, blockIdx.y, blockIdx.z, d.tid.x, d.tid.y, d.tid.z, waiting.size(), w.bar_file,
                         w.bar_line);
                }
        }
        for (unsigned i : waiting) {
            const Thread &t = rt.threads[i];
            if (t.bar_line != w.bar_line || strcmp(t.bar_file, w.bar_file) != 0)
                fail("divergent barrier: in block (%u,%u,%u) thread (%u,%u,%u) waits at %s:%d, thread (%u,%u,%u) "
                     "at %s:%d",
                     blockIdx.x, blockIdx.y, blockIdx.z, w.tid.x, w.tid.y, w.tid.z, w.bar_file, w.bar_line, t.tid.x,
                     t.tid.y, t.tid.z, t.bar_file, t.bar_line);
        }
        rt.bar_result = rt.bar_acc;
        ++rt.barriers;
        order = waiting;
    }
}
#endif

struct LaunchCfg {
    dim3 grid, block;
    size_t smem;
};
static inline LaunchCfg cfg(dim3 g, dim3 b, size_t smem = 0, const void * = nullptr) { return LaunchCfg{g, b, smem}; }

// A launch argument converted to the parameter's type; pointers are cast as
// a launch through void ** would pass them (int8_t * to const char *, ...).
template <class P, class A> static inline P arg_cast(A &&a)
{
    if constexpr (std::is_pointer<P>::value && std::is_pointer<std::decay_t<A>>::value)
        return (P)(a);
    else
        return static_cast<P>(std::forward<A>(a));
}

template <class... P, class... A> static inline void launch(LaunchCfg c, void (*kernel)(P...), A &&...args)
{
    static_assert(sizeof...(P) == sizeof...(A), "a kernel launch must pass every parameter");
    std::tuple<std::decay_t<P>...> params(arg_cast<std::decay_t<P>>(std::forward<A>(args))...);
    const unsigned nthreads = c.block.x * c.block.y * c.block.z;
    if (nthreads == 0 || nthreads > 1024)
        fail("invalid block (%u,%u,%u)", c.block.x, c.block.y, c.block.z);
    if (c.smem > sizeof dyn_smem_buf)
        fail("dynamic shared memory of %zu bytes is more than the emulator's %zu", c.smem, sizeof dyn_smem_buf);
    memset(dyn_smem_buf, 0xff, sizeof dyn_smem_buf);
    dyn_smem_bytes = c.smem;
    struct Call {
        void (*kernel)(P...);
        std::tuple<std::decay_t<P>...> *params;
    } call{kernel, &params};
    rt.body = [](void *a) {
        Call *k = (Call *)a;
        std::apply(k->kernel, *k->params);
    };
    rt.body_arg = &call;
    gridDim = c.grid;
    blockDim = c.block;
    for (unsigned z = 0; z < c.grid.z; ++z)
        for (unsigned y = 0; y < c.grid.y; ++y)
            for (unsigned x = 0; x < c.grid.x; ++x) {
                blockIdx = uint3{x, y, z};
                run_block(nthreads);
            }
    rt.body = nullptr;
    rt.body_arg = nullptr;
}

} // namespace kp

#define __syncthreads() kp::barrier(__FILE__, __LINE__, 0)
#define __syncthreads_count(p) (kp::barrier(__FILE__, __LINE__, (p)), kp::rt.bar_result)
#define __syncthreads_or(p) (kp::barrier(__FILE__, __LINE__, (p)), kp::rt.bar_result != 0)
#define __syncthreads_and(p) (kp::barrier(__FILE__, __LINE__, !(p)), kp::rt.bar_result == 0)

// --- cp.async (cuda_pipeline.h primitives) ---------------------------------
KP_RT void __pipeline_memcpy_async(void *dst, const void *src, size_t size_and_align, size_t zfill = 0);
KP_RT void __pipeline_commit();
KP_RT void __pipeline_wait_prior(size_t prior);
// --- sm_90 mbarriers and bulk copies ----------------------------------------
// prep.py turns the inline PTX of kpipe's bulk helpers into these calls;
// addresses are shared addresses (__cvta_generic_to_shared).
static inline size_t __cvta_generic_to_shared(const void *p) { return kp::shared_addr(p); }
namespace kp {
KP_RT void ptx_mbar_init(unsigned a, unsigned count);
KP_RT void ptx_mbar_arrive(unsigned a);
KP_RT void ptx_mbar_arrive_tx(unsigned a, unsigned bytes);
KP_RT unsigned ptx_mbar_try_wait_parity(unsigned a, unsigned parity);
KP_RT void ptx_bulk_copy(unsigned dst, const void *src, unsigned bytes, unsigned bar);
} // namespace kp
// in a block that uses mbarriers a barrier of the lanes in mask (threads
// interleave there); elsewhere threads never interleave between block
// barriers and it is a no-op
KP_RT void __syncwarp(unsigned mask = 0xffffffffu);

// Their definitions: in the runtime's object (KP_EMU_SPLIT).
#ifndef KP_RT_DECL
KP_RT void __pipeline_memcpy_async(void *dst, const void *src, size_t size_and_align, size_t zfill)
{
    if (size_and_align != 4 && size_and_align != 8 && size_and_align != 16)
        kp::fail("__pipeline_memcpy_async: size %zu is not 4, 8 or 16", size_and_align);
    if (zfill > size_and_align)
        kp::fail("__pipeline_memcpy_async: zfill %zu > size %zu", zfill, size_and_align);
    if ((uintptr_t)dst % size_and_align || (uintptr_t)src % size_and_align)
        kp::fail("__pipeline_memcpy_async: misaligned %zu-byte copy (dst %p, src %p)", size_and_align, dst, src);
    const kp::Copy c{dst, src, size_and_align, zfill};
    if (kp::rt.cpmode == kp::CP_AT_ISSUE)
        kp::do_copy(c);
    else
        kp::rt.cur->open.push_back(c);
}
KP_RT void __pipeline_commit()
{
    kp::Thread &t = *kp::rt.cur;
    t.groups.push_back(std::move(t.open));
    t.open.clear();
}
KP_RT void __pipeline_wait_prior(size_t prior) { kp::complete_groups(*kp::rt.cur, prior); }

namespace kp {
static inline Mbar &mbar_at(unsigned a, const char *what)
{
    shared_ptr(a, 8, what);
    if (a % 8)
        fail("%s: the mbarrier at shared address %#x is not 8-byte aligned", what, a);
    Mbar *m = find_mbar(a);
    if (!m)
        fail("%s: the mbarrier at shared address %#x was not initialised in this block", what, a);
    return *m;
}
KP_RT void ptx_mbar_init(unsigned a, unsigned count)
{
    shared_ptr(a, 8, "mbarrier.init");
    if (count == 0 || count >= (1u << 20))
        fail("mbarrier.init: count %u out of range", count);
    Mbar *m = find_mbar(a);
    if (m && !m->copies.empty())
        fail("mbarrier.init: the mbarrier at shared address %#x has bulk copies in flight", a);
    for (const Thread &t : rt.threads)
        if (&t != rt.cur && t.state == T_MBAR && t.wait_bar == a)
            fail("mbarrier.init: thread (%u,%u,%u) waits on the mbarrier at shared address %#x", t.tid.x, t.tid.y,
                 t.tid.z, a);
    if (!m) {
        mbars.emplace_back(a, Mbar{});
        m = &mbars.back().second;
    }
    *m = Mbar{};
    m->expected = m->pending = count;
    rt.mbar_used = true;
}
// After an arrival or a landed copy: a phase that completed lets its
// waiters run before anything else.
static inline void give_way_if_done()
{
    if (!rt.phase_done)
        return;
    rt.phase_done = false;
    rt.cur->state = T_YIELD;
    switch_to_scheduler();
}
static inline void mbar_arrive(Mbar &m, unsigned a, const char *what)
{
    if (m.pending == 0)
        fail("%s: arrival on the mbarrier at shared address %#x, whose phase expects none", what, a);
    --m.pending;
    mbar_complete(m);
    give_way_if_done();
}
KP_RT void ptx_mbar_arrive(unsigned a) { mbar_arrive(mbar_at(a, "mbarrier.arrive"), a, "mbarrier.arrive"); }
KP_RT void ptx_mbar_arrive_tx(unsigned a, unsigned bytes)
{
    Mbar &m = mbar_at(a, "mbarrier.arrive.expect_tx");
    m.tx += bytes;
    mbar_arrive(m, a, "mbarrier.arrive.expect_tx");
}
// try_wait.parity: 1 once the phase of that parity (the current one or the
// one before) completed; until then the thread gives way to the others.
KP_RT unsigned ptx_mbar_try_wait_parity(unsigned a, unsigned parity)
{
    for (;;) {
        Mbar &m = mbar_at(a, "mbarrier.try_wait.parity");
        if ((m.phase & 1) != (parity & 1))
            return 1;
        if (m.pending == 0 && !m.copies.empty()) {
            mbar_land(m); // the latest the copies can land
            rt.phase_done = false;
            continue;
        }
        Thread &t = *rt.cur;
        t.state = T_MBAR;
        t.wait_bar = a;
        t.parity = parity & 1;
        switch_to_scheduler();
    }
}
KP_RT void ptx_bulk_copy(unsigned dst, const void *src, unsigned bytes, unsigned bar)
{
    unsigned char *d = shared_ptr(dst, bytes, "cp.async.bulk");
    if (bytes == 0 || bytes % 16 || dst % 16 || (uintptr_t)d % 16 || (uintptr_t)src % 16)
        fail("cp.async.bulk: %u bytes from %p to shared address %#x: not 16-byte aligned multiples of 16 bytes", bytes,
             src, dst);
    Mbar &m = mbar_at(bar, "cp.async.bulk");
    const Copy c{d, src, bytes, 0};
    if (rt.cpmode == CP_AT_ISSUE) {
        do_copy(c);
        m.tx -= bytes;
        mbar_complete(m);
        give_way_if_done();
    } else
        m.copies.push_back(c);
}
} // namespace kp
KP_RT void __syncwarp(unsigned mask)
{
    if (!kp::rt.mbar_used)
        return;
    kp::Thread &t = *kp::rt.cur;
    if (!(mask >> (t.lin % 32) & 1))
        kp::fail("__syncwarp(0x%x) by lane %u, which the mask leaves out", mask, t.lin % 32);
    t.state = kp::T_WARP;
    t.warp_mask = mask;
    kp::switch_to_scheduler();
}

#endif // !KP_RT_DECL

// --- warp-collective operations: cannot be emulated -----------------------
#define KP_UNSUPPORTED(name)                                                                                           \
    template <class... A> static inline int name(A &&...) { kp::unsupported(#name); }
KP_UNSUPPORTED(__shfl_sync)
KP_UNSUPPORTED(__shfl_up_sync)
KP_UNSUPPORTED(__shfl_down_sync)
KP_UNSUPPORTED(__shfl_xor_sync)
KP_UNSUPPORTED(__ballot_sync)
KP_UNSUPPORTED(__any_sync)
KP_UNSUPPORTED(__all_sync)
KP_UNSUPPORTED(__activemask)
KP_UNSUPPORTED(__match_any_sync)
KP_UNSUPPORTED(__match_all_sync)
KP_UNSUPPORTED(__reduce_add_sync)
KP_UNSUPPORTED(__reduce_min_sync)
KP_UNSUPPORTED(__reduce_max_sync)
#undef KP_UNSUPPORTED

// --- nvcuda::wmma, per thread ----------------------------------------------
// Every thread's fragment holds the whole tile, and every thread loads,
// multiplies and stores all of it: the threads of a warp compute identical
// values, so the result is the warp's as long as threads switch only at
// block barriers.
namespace nvcuda {
namespace wmma {
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
namespace precision {
struct tf32 {};
} // namespace precision
enum layout_t { mem_row_major, mem_col_major };
template <class T> struct storage { typedef T type; };
template <> struct storage<precision::tf32> { typedef float type; };
template <class Use, int M, int N, int K> struct shape;
template <int M, int N, int K> struct shape<matrix_a, M, N, K> { enum { rows = M, cols = K }; };
template <int M, int N, int K> struct shape<matrix_b, M, N, K> { enum { rows = K, cols = N }; };
template <int M, int N, int K> struct shape<accumulator, M, N, K> { enum { rows = M, cols = N }; };

template <class Use, int M, int N, int K, class T, class Layout = void> struct fragment {
    typedef typename storage<T>::type element_type;
    enum { R = shape<Use, M, N, K>::rows, C = shape<Use, M, N, K>::cols, num_elements = R * C };
    element_type x[R * C]; // x[r * C + c]
};

template <class Use, int M, int N, int K, class T, class L, class V>
static inline void fill_fragment(fragment<Use, M, N, K, T, L> &f, const V &v)
{
    for (int i = 0; i < f.num_elements; ++i)
        f.x[i] = (typename storage<T>::type)v;
}
template <class Use, int M, int N, int K, class T, class L, class P>
static inline void load_matrix_sync(fragment<Use, M, N, K, T, L> &f, const P *p, unsigned ldm)
{
    typedef fragment<Use, M, N, K, T, L> F;
    static_assert(!std::is_same<L, void>::value, "an accumulator load needs a layout");
    const bool col = std::is_same<L, col_major>::value;
    for (int r = 0; r < F::R; ++r)
        for (int c = 0; c < F::C; ++c)
            f.x[r * F::C + c] = (typename F::element_type)(col ? p[(size_t)c * ldm + r] : p[(size_t)r * ldm + c]);
}
template <int M, int N, int K, class T, class P>
static inline void load_matrix_sync(fragment<accumulator, M, N, K, T> &f, const P *p, unsigned ldm, layout_t l)
{
    typedef fragment<accumulator, M, N, K, T> F;
    for (int r = 0; r < F::R; ++r)
        for (int c = 0; c < F::C; ++c)
            f.x[r * F::C + c] = (T)(l == mem_col_major ? p[(size_t)c * ldm + r] : p[(size_t)r * ldm + c]);
}
template <int M, int N, int K, class T, class P>
static inline void store_matrix_sync(P *p, const fragment<accumulator, M, N, K, T> &f, unsigned ldm, layout_t l)
{
    typedef fragment<accumulator, M, N, K, T> F;
    for (int r = 0; r < F::R; ++r)
        for (int c = 0; c < F::C; ++c)
            (l == mem_col_major ? p[(size_t)c * ldm + r] : p[(size_t)r * ldm + c]) = (P)f.x[r * F::C + c];
}
template <int M, int N, int K, class TA, class LA, class TB, class LB, class TC, class TD>
static inline void mma_sync(fragment<accumulator, M, N, K, TD> &d, const fragment<matrix_a, M, N, K, TA, LA> &a,
                            const fragment<matrix_b, M, N, K, TB, LB> &b, const fragment<accumulator, M, N, K, TC> &c)
{
    typedef typename std::conditional<std::is_integral<TD>::value, long long, float>::type Acc;
    TD out[M * N];
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            Acc s = (Acc)(float)c.x[i * N + j];
            if (std::is_integral<TD>::value)
                s = (Acc)c.x[i * N + j];
            for (int k = 0; k < K; ++k)
                s += (Acc)a.x[i * K + k] * (Acc)b.x[k * N + j];
            out[i * N + j] = (TD)s;
        }
    memcpy(d.x, out, sizeof out);
}
} // namespace wmma
} // namespace nvcuda

// --- host runtime stubs ----------------------------------------------------
typedef int cudaError_t;
enum {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorLaunchFailure = 719
};
typedef void *cudaStream_t;
typedef void *cudaEvent_t;
enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice, cudaMemcpyDefault };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize, cudaFuncAttributePreferredSharedMemoryCarveout };
static inline cudaError_t cudaGetLastError() { return cudaSuccess; }
static inline cudaError_t cudaPeekAtLastError() { return cudaSuccess; }
static inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
static inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
static inline const char *cudaGetErrorString(cudaError_t) { return "cuda error (CPU emulation)"; }
template <class F> static inline cudaError_t cudaFuncSetAttribute(F, cudaFuncAttribute, int) { return cudaSuccess; }
template <class T> static inline cudaError_t cudaMalloc(T **p, size_t n) { *p = (T *)malloc(n); return *p ? cudaSuccess : cudaErrorMemoryAllocation; }
static inline cudaError_t cudaFree(void *p) { free(p); return cudaSuccess; }
static inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind) { memmove(d, s, n); return cudaSuccess; }
static inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind, cudaStream_t = 0) { memmove(d, s, n); return cudaSuccess; }
static inline cudaError_t cudaMemset(void *d, int v, size_t n) { memset(d, v, n); return cudaSuccess; }
// the timing and setup calls of a program's own host code, which the
// emulator compiles but never runs (the launcher calls the kernel)
static inline cudaError_t cudaEventCreate(cudaEvent_t *e) { *e = nullptr; return cudaSuccess; }
static inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned) { *e = nullptr; return cudaSuccess; }
static inline cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t = 0) { return cudaSuccess; }
static inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
static inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t, cudaEvent_t) { *ms = 0.0f; return cudaSuccess; }
static inline cudaError_t cudaEventDestroy(cudaEvent_t) { return cudaSuccess; }
static inline cudaError_t cudaStreamCreate(cudaStream_t *s) { *s = nullptr; return cudaSuccess; }
static inline cudaError_t cudaStreamDestroy(cudaStream_t) { return cudaSuccess; }
static inline cudaError_t cudaSetDevice(int) { return cudaSuccess; }
static inline cudaError_t cudaGetDevice(int *d) { *d = 0; return cudaSuccess; }
static inline cudaError_t cudaDeviceReset() { return cudaSuccess; }
template <class T> static inline cudaError_t cudaMallocHost(T **p, size_t n) { *p = (T *)malloc(n); return *p ? cudaSuccess : cudaErrorMemoryAllocation; }
static inline cudaError_t cudaFreeHost(void *p) { free(p); return cudaSuccess; }
// occupancy questions a launcher asks (learn-cuda's matmul.cu sizes its
// grid with cudaOccupancyMaxPotentialBlockSize): answered with the figures
// of an sm_90 device; the emulator never runs that host code
template <class F> static inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int *min_grid, int *block, F, size_t = 0, int = 0)
{ *min_grid = 132; *block = 256; return cudaSuccess; }
template <class F> static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, F, int, size_t)
{ *n = 1; return cudaSuccess; }
template <class T> static inline cudaError_t cudaMemcpyToSymbol(T &sym, const void *s, size_t n, size_t off = 0, cudaMemcpyKind = cudaMemcpyHostToDevice)
{ memcpy((char *)&sym + off, s, n); return cudaSuccess; }

// --- tensor maps (the tensor-map form of kpipe's bulk transform) -----------
// cuTensorMapEncodeTiled, reached through cudaGetDriverEntryPointByVersion
// as the rewrite's host code does, checks the driver's conditions for a
// rank-2 map without interleave or swizzle and records it; the inline PTX
// cp.async.bulk.tensor.2d (prep.py) copies the box through it, the
// elements outside the tensor zero, completing the mbarrier's bytes.
typedef unsigned long long cuuint64_t;
typedef unsigned int cuuint32_t;
typedef int CUresult;
enum { CUDA_SUCCESS = 0, CUDA_ERROR_INVALID_VALUE = 1 };
typedef struct CUtensorMap_st {
    alignas(64) cuuint64_t opaque[16];
} CUtensorMap;
typedef enum CUtensorMapDataType_enum {
    CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0,
    CU_TENSOR_MAP_DATA_TYPE_UINT16,
    CU_TENSOR_MAP_DATA_TYPE_UINT32,
    CU_TENSOR_MAP_DATA_TYPE_INT32,
    CU_TENSOR_MAP_DATA_TYPE_UINT64,
    CU_TENSOR_MAP_DATA_TYPE_INT64,
    CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
    CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
    CU_TENSOR_MAP_DATA_TYPE_FLOAT64
} CUtensorMapDataType;
typedef enum { CU_TENSOR_MAP_INTERLEAVE_NONE = 0 } CUtensorMapInterleave;
typedef enum { CU_TENSOR_MAP_SWIZZLE_NONE = 0 } CUtensorMapSwizzle;
typedef enum { CU_TENSOR_MAP_L2_PROMOTION_NONE = 0, CU_TENSOR_MAP_L2_PROMOTION_L2_64B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B } CUtensorMapL2promotion;
typedef enum { CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0 } CUtensorMapFloatOOBfill;
enum cudaDriverEntryPointQueryResult { cudaDriverEntryPointSuccess = 0, cudaDriverEntryPointSymbolNotFound = 1 };
enum { cudaEnableDefault = 0 };
namespace kp {
enum { TM_MAGIC = 0x6b70746du };
static inline CUresult encode_tiled(CUtensorMap *m, CUtensorMapDataType t, cuuint32_t rank, void *base,
                                    const cuuint64_t *dim, const cuuint64_t *stride, const cuuint32_t *box,
                                    const cuuint32_t *estride, CUtensorMapInterleave il, CUtensorMapSwizzle sw,
                                    CUtensorMapL2promotion, CUtensorMapFloatOOBfill)
{
    static const unsigned size[] = {1, 2, 4, 4, 8, 8, 2, 4, 8};
    if ((uintptr_t)m % 64 || (unsigned)t > 8 || rank != 2 || (uintptr_t)base % 16 || il || sw)
        return CUDA_ERROR_INVALID_VALUE;
    const unsigned e = size[t];
    if (!dim[0] || !dim[1] || dim[0] > (1ull << 32) || dim[1] > (1ull << 32) || stride[0] % 16 ||
        stride[0] >= (1ull << 40) || stride[0] < dim[0] * e || !box[0] || !box[1] || box[0] > 256 ||
        box[1] > 256 || box[0] * e % 16 || estride[0] != 1 || estride[1] != 1)
        return CUDA_ERROR_INVALID_VALUE;
    memset(m, 0, sizeof *m);
    const cuuint64_t v[] = {TM_MAGIC, (cuuint64_t)(uintptr_t)base, dim[0], dim[1], stride[0], box[0], box[1], e};
    memcpy(m->opaque, v, sizeof v);
    return CUDA_SUCCESS;
}
KP_RT void ptx_tensor_copy_2d(unsigned dst, const void *map, int x, int y, unsigned bar)
#ifdef KP_RT_DECL
;
#else
{
    const cuuint64_t *v = ((const CUtensorMap *)map)->opaque;
    if (v[0] != TM_MAGIC)
        fail("cp.async.bulk.tensor: the tensor map at %p was not made by cuTensorMapEncodeTiled", map);
    const unsigned char *base = (const unsigned char *)(uintptr_t)v[1];
    const cuuint64_t d0 = v[2], d1 = v[3], st = v[4], b0 = v[5], b1 = v[6], e = v[7];
    unsigned char *d = shared_ptr(dst, (size_t)(b0 * b1 * e), "cp.async.bulk.tensor");
    if (dst % 128)
        fail("cp.async.bulk.tensor: shared address %#x is not 128-byte aligned", dst);
    // the driver encodes a dimension of 2^32 (its documented limit), but on
    // the H200 a copy through such a map raised an illegal instruction
    if (d0 >= (1ull << 32) || d1 >= (1ull << 32))
        fail("cp.async.bulk.tensor: the tensor map has a dimension of 2^32 (%llu x %llu), which the H200 "
             "rejects when it copies",
             (unsigned long long)d0, (unsigned long long)d1);
    Mbar &m = mbar_at(bar, "cp.async.bulk.tensor");
    std::vector<Copy> rows;
    for (cuuint64_t r = 0; r < b1; ++r) {
        const long long gy = (long long)y + (long long)r;
        for (cuuint64_t c = 0; c < b0; ++c) {
            const long long gx = (long long)x + (long long)c;
            unsigned char *to = d + (r * b0 + c) * e;
            const bool in = gx >= 0 && gy >= 0 && (cuuint64_t)gx < d0 && (cuuint64_t)gy < d1;
            rows.push_back(Copy{to, in ? base + (cuuint64_t)gy * st + (cuuint64_t)gx * e : nullptr, (size_t)e,
                                in ? 0 : (size_t)e});
        }
    }
    if (rt.cpmode == CP_AT_ISSUE) {
        for (const Copy &c : rows) {
            do_copy(c);
            m.tx -= (long long)c.n;
        }
        mbar_complete(m);
        give_way_if_done();
    } else
        m.copies.insert(m.copies.end(), rows.begin(), rows.end());
}
#endif
} // namespace kp
static inline cudaError_t cudaGetDriverEntryPointByVersion(const char *sym, void **fn, unsigned, unsigned long long,
                                                           cudaDriverEntryPointQueryResult *q = nullptr)
{
    const bool known = !strcmp(sym, "cuTensorMapEncodeTiled");
    *fn = known ? (void *)&kp::encode_tiled : nullptr;
    if (q)
        *q = known ? cudaDriverEntryPointSuccess : cudaDriverEntryPointSymbolNotFound;
    return known ? cudaSuccess : cudaErrorInvalidValue;
}

#endif // KP_CPU_CUDA_H
