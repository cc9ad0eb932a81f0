/* The adaptive learners' per-coordinate steps over a row (adaptive.pyx: AdaGrad's and
 * FTRL-Proximal's, vectorized across a feature's classes), compiled for several instruction sets
 * and chosen when the module loads, as simd.h does for the primal sweeps (see there): the
 * baseline of the architecture, AVX2 and AVX-512, of which the fastest the CPU has is used;
 * ONLINEAR_CPU=generic (in the environment before import) keeps the baseline.  Their arithmetic
 * is IEEE in the order written on every instruction set (adaptive_simd_body.h). */
#ifndef ONLINEAR_ADAPTIVE_SIMD_H
#define ONLINEAR_ADAPTIVE_SIMD_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- baseline */
#define SFX generic
#include "adaptive_simd_body.h"
#undef SFX

#if (defined(__x86_64__) || defined(_M_X64)) && defined(__GNUC__)
#define ONLINEAR_ADAPTIVE_X86 1
#if defined(__clang__)
#pragma clang attribute push (__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif
#define SFX avx2
#include "adaptive_simd_body.h"
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
#include "adaptive_simd_body.h"
#undef SFX
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif

/* The steps for this CPU, filled by onlinear_adaptive_init. */
typedef struct {
    void (*adagrad_plain)(const int64_t *, const double *, ptrdiff_t, double *, double *,
                          const double *, ptrdiff_t, double, double);
    void (*adagrad_regularised)(const int64_t *, const double *, ptrdiff_t, double *, double *,
                                const double *, ptrdiff_t, double, double, double, double);
    void (*ftrl)(const int64_t *, const double *, ptrdiff_t, double *, double *, double *,
                 double *, const double *, ptrdiff_t, double, double, double, double);
} adaptive_steps;

static adaptive_steps onlinear_adaptive_steps;

#define FILL_ADAPTIVE(ISA)                                                                    \
    onlinear_adaptive_steps.adagrad_plain = adagrad_plain_##ISA;                              \
    onlinear_adaptive_steps.adagrad_regularised = adagrad_regularised_##ISA;                  \
    onlinear_adaptive_steps.ftrl = ftrl_##ISA;

/* Choose the steps for this CPU (once, when the module loads). */
static void onlinear_adaptive_init(void) {
    const char *forced = getenv("ONLINEAR_CPU");
    FILL_ADAPTIVE(generic)
    if (forced != NULL && strcmp(forced, "generic") == 0) return;
#ifdef ONLINEAR_ADAPTIVE_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw")) {
        FILL_ADAPTIVE(avx512)
    } else if (__builtin_cpu_supports("avx2")) {
        FILL_ADAPTIVE(avx2)
    }
#endif
}

#endif
