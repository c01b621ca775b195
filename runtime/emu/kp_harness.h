// kp_harness.h - the fixed part of the launchers that tests/cpudiff/cpudiff.py
// generates from a launch spec: buffers with guard pages, deterministic
// inputs, the command line of a run and the dump of the results.
//
// A buffer ends 16-byte aligned right below GUARD_PAGES inaccessible pages
// and starts after as many; the slack between the guards and the data holds
// 0xFF bytes.  Reading past either end therefore either faults (reported as an
// out-of-bounds access, exit 3) or reads poison that shows up in the output.
// `in` buffers are made read-only after they are filled, so a stray write
// faults too.
#ifndef KP_HARNESS_H
#define KP_HARNESS_H

#include "kp_cpu_cuda.h"

namespace kph {

enum Role { IN = 0, OUT = 1, INOUT = 2 };
enum Type { F32 = 0, F16 = 1, I8 = 2, I32 = 3, F64 = 4 };

struct Buf {
    const char *name;
    int role, type;
    size_t count, elsize;
    unsigned char *p, *region;
    size_t region_len, guard;
};
// inaccessible bytes on each side of a buffer: overruns of up to this much
// are attributed to the right buffer
constexpr size_t GUARD_PAGES = 16;
KP_RT_VAR std::vector<Buf> bufs;

struct Opts {
    const char *size = nullptr;
    const char *out = nullptr;
    bool info = false;
};

static inline size_t elsize_of(int type)
{
    return type == F64 ? 8 : type == F32 || type == I32 ? 4 : type == F16 ? 2 : 1;
}

KP_RT void *buffer(const char *name, int role, int type, size_t count)
#ifdef KP_RT_DECL
;
#else
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t es = elsize_of(type);
    const size_t bytes = count * es;
    const size_t body = ((bytes ? bytes : 1) + 15) & ~(size_t)15;
    const size_t pages = (body + page - 1) / page;
    const size_t guard = GUARD_PAGES * page;
    const size_t len = pages * page + 2 * guard;
    unsigned char *r = (unsigned char *)mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED)
        kp::fail("cannot allocate buffer %s (%zu bytes)", name, bytes);
    memset(r + guard, 0xff, pages * page);
    mprotect(r, guard, PROT_NONE);
    mprotect(r + guard + pages * page, guard, PROT_NONE);
    unsigned char *p = r + guard + pages * page - body;
    bufs.push_back(Buf{name, role, type, count, es, p, r, len, guard});
    return p;
}
#endif

static inline uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// Inputs as docs/launch-spec.md has them: never zero; float and double
// uniform in [-1, 1], half k/1024 with |k| <= 1024, int8 and int in [-8, 8].
KP_RT void fill_all()
#ifdef KP_RT_DECL
;
#else
{
    for (size_t b = 0; b < bufs.size(); ++b) {
        Buf &B = bufs[b];
        if (B.role == OUT) {
            memset(B.p, 0xff, B.count * B.elsize);
            continue;
        }
        uint64_t s = mix(0x6b70697065ull + 7919u * b);
        for (size_t i = 0; i < B.count; ++i) {
            s = mix(s);
            if (B.type == F32) {
                float v = (float)((double)(s >> 40) / 8388608.0 - 1.0);
                if (v == 0.0f)
                    v = 0.5f;
                ((float *)B.p)[i] = v;
            } else if (B.type == F64) {
                // 53 random bits: every double of the grid 2^-52 in [-1, 1)
                double v = (double)(s >> 11) / 4503599627370496.0 - 1.0;
                if (v == 0.0)
                    v = 0.5;
                ((double *)B.p)[i] = v;
            } else if (B.type == F16) {
                int k = (int)(s % 2049) - 1024;
                ((__half *)B.p)[i] = __half((float)(k ? k : 1) / 1024.0f);
            } else {
                int k = (int)(s % 16);
                k = k < 8 ? k - 8 : k - 7; // -8..-1, 1..8
                if (B.type == I8)
                    ((int8_t *)B.p)[i] = (int8_t)k;
                else
                    ((int *)B.p)[i] = k;
            }
        }
        if (B.role == IN)
            mprotect(B.region + B.guard, B.region_len - 2 * B.guard, PROT_READ);
    }
}
#endif

KP_RT void dump(const char *path)
#ifdef KP_RT_DECL
;
#else
{
    FILE *f = fopen(path, "wb");
    if (!f)
        kp::fail("cannot write %s", path);
    fwrite("KPB1", 1, 4, f);
    for (const Buf &B : bufs) {
        const uint32_t nl = (uint32_t)strlen(B.name), t = (uint32_t)B.type, r = (uint32_t)B.role;
        const uint64_t c = B.count;
        fwrite(&nl, 4, 1, f);
        fwrite(B.name, 1, nl, f);
        fwrite(&t, 4, 1, f);
        fwrite(&r, 4, 1, f);
        fwrite(&c, 8, 1, f);
        fwrite(B.p, B.elsize, B.count, f);
    }
    if (fclose(f) != 0)
        kp::fail("cannot write %s", path);
}
#endif

static void on_fault(int sig, siginfo_t *si, void *)
{
    const unsigned char *a = (const unsigned char *)si->si_addr;
    char msg[512];
    int n = snprintf(msg, sizeof msg, "ERROR: %s at address %p", sig == SIGSEGV ? "segmentation fault" : "bus error",
                     (const void *)a);
    for (const Buf &B : bufs) {
        if (a < B.region || a >= B.region + B.region_len)
            continue;
        const unsigned char *end = B.p + B.count * B.elsize;
        if (a >= B.region + B.region_len - B.guard)
            n += snprintf(msg + n, sizeof msg - n, ": out-of-bounds access %td bytes past the end of buffer '%s' (%zu elements)",
                          a - end, B.name, B.count);
        else if (a < B.region + B.guard)
            n += snprintf(msg + n, sizeof msg - n, ": out-of-bounds access %td bytes before the start of buffer '%s'",
                          B.p - a, B.name);
        else
            n += snprintf(msg + n, sizeof msg - n, ": write to the read-only input buffer '%s' (element %td)", B.name,
                          (a - B.p) / (ptrdiff_t)B.elsize);
        break;
    }
    if (kp::rt.cur)
        n += snprintf(msg + n, sizeof msg - n, " [block (%u,%u,%u) thread (%u,%u,%u)]", blockIdx.x, blockIdx.y,
                      blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z);
    n += snprintf(msg + n, sizeof msg - n, "\n");
    if (write(2, msg, (size_t)n) < 0)
        _exit(3);
    _exit(3);
}
static void on_alarm(int)
{
    static const char m[] = "ERROR: timeout: the kernel did not finish (endless loop?)\n";
    if (write(2, m, sizeof m - 1) < 0)
        _exit(3);
    _exit(3);
}

KP_RT void install_handlers(unsigned timeout_s)
#ifdef KP_RT_DECL
;
#else
{
    static char altstack[1 << 16];
    stack_t ss{};
    ss.ss_sp = altstack;
    ss.ss_size = sizeof altstack;
    sigaltstack(&ss, nullptr);
    struct sigaction sa{};
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigaction(SIGSEGV, &sa, nullptr);
    sigaction(SIGBUS, &sa, nullptr);
    signal(SIGALRM, on_alarm);
    alarm(timeout_s);
}
#endif

// usage: HARNESS --size NAME (--info | --sched fwd|rev|rand --seed N --cp wait|issue --out FILE)
KP_RT Opts parse(int argc, char **argv)
#ifdef KP_RT_DECL
;
#else
{
    Opts o;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
        if (!strcmp(a, "--info")) {
            o.info = true;
            continue;
        }
        if (!v)
            kp::fail("option %s needs a value", a);
        ++i;
        if (!strcmp(a, "--size"))
            o.size = v;
        else if (!strcmp(a, "--out"))
            o.out = v;
        else if (!strcmp(a, "--seed"))
            kp::rt.rng = mix(strtoull(v, nullptr, 10));
        else if (!strcmp(a, "--sched"))
            kp::rt.sched = !strcmp(v, "rev") ? kp::SCHED_REVERSE : !strcmp(v, "rand") ? kp::SCHED_RANDOM : kp::SCHED_FORWARD;
        else if (!strcmp(a, "--cp"))
            kp::rt.cpmode = !strcmp(v, "issue") ? kp::CP_AT_ISSUE : kp::CP_AT_WAIT;
        else
            kp::fail("unknown option %s", a);
    }
    if (!o.size || (!o.info && !o.out))
        kp::fail("usage: %s --size NAME (--info | [--sched fwd|rev|rand] [--seed N] [--cp wait|issue] --out FILE)", argv[0]);
    return o;
}
#endif

} // namespace kph

#endif // KP_HARNESS_H
