/* The ellipsoid engine's dense sweep (u = P x over a whole row), compiled for several
 * instruction sets and chosen when the module loads, as simd.h does for the primal sweeps (see
 * there): the baseline of the architecture, AVX2 with FMA and AVX-512, of which the fastest the
 * CPU has is used; ONLINEAR_CPU=generic (in the environment before import) keeps the baseline.
 *
 * Only this function reassociates its sums and contracts multiply-adds; the rest of the engine
 * is compiled with -ffp-contract=off and no fast-math (IEEE arithmetic in the order written). */
#ifndef ONLINEAR_ELLIPSOID_SIMD_H
#define ONLINEAR_ELLIPSOID_SIMD_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define METRIC_BLOCK 4

#if defined(__GNUC__) && !defined(__clang__)
#define METRIC_ATTRIBUTES __attribute__((optimize("fp-contract=fast")))
#else
#define METRIC_ATTRIBUTES
#endif

/* ---- baseline */
#define XT float
#define SFX f_generic
#include "ellipsoid_simd_body.h"
#undef XT
#undef SFX
#define XT double
#define SFX d_generic
#include "ellipsoid_simd_body.h"
#undef XT
#undef SFX

#if (defined(__x86_64__) || defined(_M_X64)) && defined(__GNUC__)
#define ONLINEAR_METRIC_X86 1
#if defined(__clang__)
#pragma clang attribute push (__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
#define XT float
#define SFX f_avx2
#include "ellipsoid_simd_body.h"
#undef XT
#undef SFX
#define XT double
#define SFX d_avx2
#include "ellipsoid_simd_body.h"
#undef XT
#undef SFX
#if defined(__clang__)
#pragma clang attribute pop
#pragma clang attribute push (__attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma"))), apply_to = function)
#else
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma")
#endif
#define XT float
#define SFX f_avx512
#include "ellipsoid_simd_body.h"
#undef XT
#undef SFX
#define XT double
#define SFX d_avx512
#include "ellipsoid_simd_body.h"
#undef XT
#undef SFX
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif

/* The sweep for each type of row, filled by onlinear_metric_init. */
typedef struct {
    void (*times_f)(const double *, const float *, ptrdiff_t, double *);
    void (*times_d)(const double *, const double *, ptrdiff_t, double *);
} metric_sweeps;

static metric_sweeps onlinear_metric_sweeps;

#define FILL_METRIC(ISA)                                                                      \
    onlinear_metric_sweeps.times_f = metric_times_dense_f_##ISA;                              \
    onlinear_metric_sweeps.times_d = metric_times_dense_d_##ISA;

static const char *onlinear_metric_isa_name = "generic";

/* Choose the sweep for this CPU (once, when the module loads). */
static void onlinear_metric_init(void) {
    const char *forced = getenv("ONLINEAR_CPU");
    FILL_METRIC(generic)
    onlinear_metric_isa_name = "generic";
    if (forced != NULL && strcmp(forced, "generic") == 0) return;
#ifdef ONLINEAR_METRIC_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw")) {
        FILL_METRIC(avx512)
        onlinear_metric_isa_name = "avx512";
    } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        FILL_METRIC(avx2)
        onlinear_metric_isa_name = "avx2";
    }
#endif
}

static const char *onlinear_metric_isa(void) { return onlinear_metric_isa_name; }

#endif
