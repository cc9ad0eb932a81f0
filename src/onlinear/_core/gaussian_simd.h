/* The Gaussian engine's full-covariance sweeps (confidence.pyx: u = Σx and the congruence's two
 * steps on a matrix's upper triangle), compiled for several instruction sets and chosen when the
 * module loads, as simd.h does for the primal sweeps (see there): the baseline of the
 * architecture, AVX2 and AVX-512, of which the fastest the CPU has is used;
 * ONLINEAR_CPU=generic (in the environment before import) keeps the baseline.  Their arithmetic
 * is IEEE in an order that does not depend on the instruction set (gaussian_simd_body.h). */
#ifndef ONLINEAR_GAUSSIAN_SIMD_H
#define ONLINEAR_GAUSSIAN_SIMD_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define GAUSSIAN_ATTRIBUTES

/* ---- baseline */
#define SFX generic
#include "gaussian_simd_body.h"
#undef SFX

#if (defined(__x86_64__) || defined(_M_X64)) && defined(__GNUC__)
#define ONLINEAR_GAUSSIAN_X86 1
#if defined(__clang__)
#pragma clang attribute push (__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif
#define SFX avx2
#include "gaussian_simd_body.h"
#undef SFX
#if defined(__clang__)
#pragma clang attribute pop
#pragma clang attribute push (__attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,avx2"))), apply_to = function)
#else
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512dq,avx512bw,avx2")
#endif
#define SFX avx512
#include "gaussian_simd_body.h"
#undef SFX
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif

/* The sweeps for this CPU, filled by onlinear_gaussian_init. */
typedef struct {
    void (*times)(const double *, const double *, ptrdiff_t, double *);
    void (*shrink)(double *, const double *, double, const double *, ptrdiff_t, double *);
    void (*pair)(double *, const double *, const double *, double, ptrdiff_t);
} gaussian_sweeps;

static gaussian_sweeps onlinear_gaussian_sweeps;

#define FILL_GAUSSIAN(ISA)                                                                    \
    onlinear_gaussian_sweeps.times = full_times_##ISA;                                        \
    onlinear_gaussian_sweeps.shrink = full_shrink_##ISA;                                      \
    onlinear_gaussian_sweeps.pair = full_pair_##ISA;

/* Choose the sweeps for this CPU (once, when the module loads). */
static void onlinear_gaussian_init(void) {
    const char *forced = getenv("ONLINEAR_CPU");
    FILL_GAUSSIAN(generic)
    if (forced != NULL && strcmp(forced, "generic") == 0) return;
#ifdef ONLINEAR_GAUSSIAN_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw")) {
        FILL_GAUSSIAN(avx512)
    } else if (__builtin_cpu_supports("avx2")) {
        FILL_GAUSSIAN(avx2)
    }
#endif
}

#endif
