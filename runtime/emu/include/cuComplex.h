// cuComplex.h - stand-in for the CUDA header of that name when tests/cpudiff
// compiles a kernel for the CPU: the complex types are the vector types
// float2 and double2 (real part in x, imaginary in y), with the header's
// constructors and arithmetic.  The emulator runs the original and the
// rewrite with the same definitions, so only their consistency matters;
// each follows the order of operations the CUDA header documents.
#pragma once
#include "../kp_cpu_cuda.h"

#include <math.h>

typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

static inline cuFloatComplex make_cuFloatComplex(float r, float i) { return make_float2(r, i); }
static inline cuComplex make_cuComplex(float r, float i) { return make_float2(r, i); }
static inline cuDoubleComplex make_cuDoubleComplex(double r, double i)
{
    return make_double2(r, i);
}

static inline float cuCrealf(cuFloatComplex z) { return z.x; }
static inline float cuCimagf(cuFloatComplex z) { return z.y; }
static inline double cuCreal(cuDoubleComplex z) { return z.x; }
static inline double cuCimag(cuDoubleComplex z) { return z.y; }

static inline cuFloatComplex cuConjf(cuFloatComplex z) { return make_float2(z.x, -z.y); }
static inline cuDoubleComplex cuConj(cuDoubleComplex z) { return make_double2(z.x, -z.y); }

static inline cuFloatComplex cuCaddf(cuFloatComplex a, cuFloatComplex b)
{
    return make_float2(a.x + b.x, a.y + b.y);
}
static inline cuDoubleComplex cuCadd(cuDoubleComplex a, cuDoubleComplex b)
{
    return make_double2(a.x + b.x, a.y + b.y);
}
static inline cuFloatComplex cuCsubf(cuFloatComplex a, cuFloatComplex b)
{
    return make_float2(a.x - b.x, a.y - b.y);
}
static inline cuDoubleComplex cuCsub(cuDoubleComplex a, cuDoubleComplex b)
{
    return make_double2(a.x - b.x, a.y - b.y);
}
static inline cuFloatComplex cuCmulf(cuFloatComplex a, cuFloatComplex b)
{
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
static inline cuDoubleComplex cuCmul(cuDoubleComplex a, cuDoubleComplex b)
{
    return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// a * b + d: the real part (a.x b.x + d.x) - a.y b.y, the imaginary part
// (a.x b.y + d.y) + a.y b.x
static inline cuFloatComplex cuCfmaf(cuFloatComplex a, cuFloatComplex b, cuFloatComplex d)
{
    float re = a.x * b.x + d.x, im = a.x * b.y + d.y;
    return make_float2(-(a.y * b.y) + re, a.y * b.x + im);
}
static inline cuDoubleComplex cuCfma(cuDoubleComplex a, cuDoubleComplex b, cuDoubleComplex d)
{
    double re = a.x * b.x + d.x, im = a.x * b.y + d.y;
    return make_double2(-(a.y * b.y) + re, a.y * b.x + im);
}

static inline float cuCabsf(cuFloatComplex z) { return hypotf(z.x, z.y); }
static inline double cuCabs(cuDoubleComplex z) { return hypot(z.x, z.y); }
