/* The Gaussian engine's full-covariance sweeps (confidence.pyx: u = Σx and the congruence's two
 * steps on a matrix's upper triangle) and its diagonal layout's step of two classes, compiled
 * for several instruction sets and chosen when the module loads, as simd.h does for the primal
 * sweeps (see there): the baseline of the architecture, AVX2 and AVX-512, of which the fastest
 * the CPU has is used;
 * ONLINEAR_CPU=generic (in the environment before import) keeps the baseline.  Their arithmetic
 * is IEEE in an order that does not depend on the instruction set (gaussian_simd_body.h). */
#ifndef ONLINEAR_GAUSSIAN_SIMD_H
#define ONLINEAR_GAUSSIAN_SIMD_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "isa_choice.h"

#define ISA_BODY "gaussian_simd_body.h"
#include "isa_each.h"
#undef ISA_BODY

/* The sweeps for this CPU, filled by onlinear_gaussian_init. */
typedef struct {
    void (*times)(const double *, const double *, ptrdiff_t, double *);
    void (*shrink)(double *, const double *, double, const double *, ptrdiff_t, double *);
    void (*pair)(double *, const double *, const double *, double, ptrdiff_t);
    void (*diagonal_pair)(const int64_t *, const double *, ptrdiff_t, double *, double *,
                          ptrdiff_t, ptrdiff_t, ptrdiff_t, double, double, double, int64_t *);
} gaussian_sweeps;

static gaussian_sweeps onlinear_gaussian_sweeps;

#define FILL_GAUSSIAN(ISA)                                                                    \
    onlinear_gaussian_sweeps.times = full_times_##ISA;                                        \
    onlinear_gaussian_sweeps.shrink = full_shrink_##ISA;                                      \
    onlinear_gaussian_sweeps.pair = full_pair_##ISA;                                          \
    onlinear_gaussian_sweeps.diagonal_pair = diagonal_pair_##ISA;

/* Choose the sweeps for this CPU (once, when the module loads). */
static void onlinear_gaussian_init(void) {
    switch (onlinear_isa()) {
#ifdef ONLINEAR_ISA_X86
    case 2: FILL_GAUSSIAN(avx512) break;
    case 1: FILL_GAUSSIAN(avx2) break;
#endif
    default: FILL_GAUSSIAN(generic)
    }
}

#endif
