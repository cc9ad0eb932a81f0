/* onlinear's dense sweeps, compiled for several instruction sets and chosen when the module
 * loads: the package is built for the baseline of its architecture (so it runs on any CPU of
 * it), and the sweeps that carry a dense pass are compiled again for AVX2 with FMA and for
 * AVX-512, of which the fastest the CPU has is used.  ONLINEAR_CPU=generic (in the environment
 * before import) keeps the baseline: the sums of a machine without those units, so that a test
 * run can see another machine's rounding (the CI does).
 *
 * Only these functions reassociate their sums (each "omp simd" reduction: vector lanes summed
 * apart, then together) and contract multiply-adds; the rest of the package is compiled with
 * -ffp-contract=off and no fast-math, so its arithmetic is the same on every machine. */
#ifndef ONLINEAR_SIMD_H
#define ONLINEAR_SIMD_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SCORE_BLOCK 4

#if (defined(__x86_64__) || defined(_M_X64)) && defined(__GNUC__)
#include <immintrin.h>
#endif
#include <limits.h>

#include "prefetch.h"

/* For the dense rows' non-zeros (simd_body.h's nonzeros): entry `mask` lists, in order, the
 * positions of the set bits of an 8-bit mask, then zeros; filled by onlinear_simd_init. */
static int32_t onlinear_compress_lut[256][8];

#if defined(__GNUC__) && !defined(__clang__)
#define SWEEP_ATTRIBUTES __attribute__((optimize("fp-contract=fast")))
#else
#define SWEEP_ATTRIBUTES
#endif
/* the sparse sweep: vectorized across outputs only, its arithmetic IEEE (the package's flags) */
#define SPARSE_ATTRIBUTES

/* ---- baseline */
#define VBYTES 16
#define XT float
#define WT float
#define SFX ff_generic
#include "simd_body.h"
#undef XT
#undef WT
#undef SFX
#define XT double
#define WT double
#define SFX dd_generic
#include "simd_body.h"
#undef XT
#undef WT
#undef SFX
#define XT float
#define WT double
#define SFX fd_generic
#include "simd_body.h"
#undef XT
#undef WT
#undef SFX
#define XT double
#define WT float
#define SFX df_generic
#include "simd_body.h"
#undef XT
#undef WT
#undef SFX

#if (defined(__x86_64__) || defined(_M_X64)) && defined(__GNUC__)
#define ONLINEAR_X86 1
#if defined(__clang__)
#pragma clang attribute push (__attribute__((target("avx2,fma"))), apply_to = function)
#undef VBYTES
#define VBYTES 32
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
#undef VBYTES
#define VBYTES 32
#define XT float
#define WT float
#define SFX ff_avx2
#include "simd_body.h"
#undef XT
#undef WT
#undef SFX
#define XT double
#define WT double
#define SFX dd_avx2
#include "simd_body.h"
#undef XT
#undef WT
#undef SFX
#define XT float
#define WT double
#define SFX fd_avx2
#include "simd_body.h"
#undef XT
#undef WT
#undef SFX
#define XT double
#define WT float
#define SFX df_avx2
#include "simd_body.h"
#undef XT
#undef WT
#undef SFX
#if defined(__clang__)
#pragma clang attribute pop
#pragma clang attribute push (__attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma"))), apply_to = function)
#else
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma")
#endif
#undef VBYTES
#define VBYTES 64
#define XT float
#define WT float
#define SFX ff_avx512
#include "simd_body.h"
#undef XT
#undef WT
#undef SFX
#define XT double
#define WT double
#define SFX dd_avx512
#include "simd_body.h"
#undef XT
#undef WT
#undef SFX
#define XT float
#define WT double
#define SFX fd_avx512
#include "simd_body.h"
#undef XT
#undef WT
#undef SFX
#define XT double
#define WT float
#define SFX df_avx512
#include "simd_body.h"
#undef XT
#undef WT
#undef SFX
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif

/* One table of the sweeps per pair of types, filled by onlinear_simd_init. */
#define SWEEP_TABLE(XT_, WT_, P)                                                             \
    typedef struct {                                                                          \
        double (*score_dense)(const XT_ *, const WT_ *, ptrdiff_t, ptrdiff_t, ptrdiff_t,      \
                              const double *, double *);                                      \
        double (*add_dense)(const XT_ *, WT_ *, ptrdiff_t, double);                           \
        void (*add_dense_untracked)(const XT_ *, WT_ *, ptrdiff_t, double);                   \
        void (*add_dense_pair)(const XT_ *, WT_ *, double, WT_ *, double, ptrdiff_t,          \
                               double *);                                                     \
        void (*add_dense_pair_untracked)(const XT_ *, WT_ *, double, WT_ *, double,           \
                                         ptrdiff_t);                                          \
        double (*score_sparse_i32)(const int32_t *, const XT_ *, ptrdiff_t, const WT_ *,      \
                                   ptrdiff_t, ptrdiff_t, double *);                           \
        double (*score_sparse_i64)(const int64_t *, const XT_ *, ptrdiff_t, const WT_ *,      \
                                   ptrdiff_t, ptrdiff_t, double *);                           \
        ptrdiff_t (*nonzeros)(const XT_ *, ptrdiff_t, int64_t *, XT_ *);                      \
        void (*add_outer_i32)(const int32_t *, const XT_ *, ptrdiff_t, WT_ *, ptrdiff_t,      \
                              ptrdiff_t, const double *);                                     \
        void (*add_outer_i64)(const int64_t *, const XT_ *, ptrdiff_t, WT_ *, ptrdiff_t,      \
                              ptrdiff_t, const double *);                                     \
    } sweeps_##P;                                                                             \
    /* the baseline until onlinear_simd_init chooses (a module that never calls it is slow,   \
       not wrong) */                                                                          \
    static sweeps_##P onlinear_sweeps_##P = {                                                 \
        score_dense_##P##_generic, add_dense_##P##_generic, add_dense_untracked_##P##_generic, \
        add_dense_pair_##P##_generic, add_dense_pair_untracked_##P##_generic,                 \
        score_sparse_i32_##P##_generic, score_sparse_i64_##P##_generic,                       \
        nonzeros_##P##_generic, add_outer_i32_##P##_generic, add_outer_i64_##P##_generic};

SWEEP_TABLE(float, float, ff)
SWEEP_TABLE(double, double, dd)
SWEEP_TABLE(float, double, fd)
SWEEP_TABLE(double, float, df)

#define FILL_SWEEPS(P, ISA)                                                                   \
    onlinear_sweeps_##P.score_dense = score_dense_##P##_##ISA;                                \
    onlinear_sweeps_##P.add_dense = add_dense_##P##_##ISA;                                    \
    onlinear_sweeps_##P.add_dense_untracked = add_dense_untracked_##P##_##ISA;                \
    onlinear_sweeps_##P.add_dense_pair = add_dense_pair_##P##_##ISA;                          \
    onlinear_sweeps_##P.add_dense_pair_untracked = add_dense_pair_untracked_##P##_##ISA;      \
    onlinear_sweeps_##P.score_sparse_i32 = score_sparse_i32_##P##_##ISA;                      \
    onlinear_sweeps_##P.score_sparse_i64 = score_sparse_i64_##P##_##ISA;                      \
    onlinear_sweeps_##P.nonzeros = nonzeros_##P##_##ISA;                                      \
    onlinear_sweeps_##P.add_outer_i32 = add_outer_i32_##P##_##ISA;                            \
    onlinear_sweeps_##P.add_outer_i64 = add_outer_i64_##P##_##ISA;
#define FILL_ALL(ISA) FILL_SWEEPS(ff, ISA) FILL_SWEEPS(dd, ISA) FILL_SWEEPS(fd, ISA)            \
    FILL_SWEEPS(df, ISA)

static const char *onlinear_simd_isa_name = "generic";

/* Choose the sweeps for this CPU (once, when a module that uses them loads). */
static void onlinear_simd_init(void) {
    const char *forced = getenv("ONLINEAR_CPU");
    for (int mask = 0; mask < 256; mask++) {
        int k = 0;
        for (int bit = 0; bit < 8; bit++) onlinear_compress_lut[mask][bit] = 0;
        for (int bit = 0; bit < 8; bit++)
            if (mask & (1 << bit)) onlinear_compress_lut[mask][k++] = bit;
    }
    FILL_ALL(generic)
    onlinear_simd_isa_name = "generic";
    if (forced != NULL && strcmp(forced, "generic") == 0) return;
#ifdef ONLINEAR_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw")) {
        FILL_ALL(avx512)
        onlinear_simd_isa_name = "avx512";
    } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        FILL_ALL(avx2)
        onlinear_simd_isa_name = "avx2";
    }
#endif
}

static const char *onlinear_simd_isa(void) { return onlinear_simd_isa_name; }

#endif
