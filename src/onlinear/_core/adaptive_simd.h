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

#include "isa_choice.h"
#include "prefetch.h"

#define ISA_BODY "adaptive_simd_body.h"
#include "isa_each.h"
#undef ISA_BODY

/* The steps for this CPU, filled by onlinear_adaptive_init. */
typedef struct {
    void (*adagrad_plain)(const int64_t *, const double *, ptrdiff_t, double *, double *,
                          const double *, ptrdiff_t, double, double);
    void (*adagrad_regularised)(const int64_t *, const double *, ptrdiff_t, double *, double *,
                                double *, const double *, ptrdiff_t, double, double, double,
                                double);
    void (*ftrl)(const int64_t *, const double *, ptrdiff_t, double *, double *, double *,
                 double *, const double *, ptrdiff_t, double, double, double, double);
    void (*adagrad_catch_up_l1)(const int64_t *, ptrdiff_t, double *, const double *,
                                const double *, int64_t *, int64_t, ptrdiff_t, double, double,
                                double);
    void (*adagrad_classes)(const int64_t *, const double *, ptrdiff_t, double *, double *,
                            const double *, const ptrdiff_t *, ptrdiff_t, ptrdiff_t, double,
                            double);
    void (*ftrl_classes)(const int64_t *, const double *, ptrdiff_t, double *, double *,
                         double *, double *, const double *, const ptrdiff_t *, ptrdiff_t,
                         ptrdiff_t, double, double, double, double);
    void (*rda_scores)(const int64_t *, const double *, ptrdiff_t, const double *,
                       const double *, ptrdiff_t, double, double, double, double, double *);
    void (*rda_weights)(const double *, const double *, ptrdiff_t, double, double, double *);
    void (*rda_step)(const int64_t *, const double *, ptrdiff_t, double *, double *, double *,
                     const double *, const ptrdiff_t *, ptrdiff_t, ptrdiff_t, double, double);
} adaptive_steps;

static adaptive_steps onlinear_adaptive_steps;

#define FILL_ADAPTIVE(ISA)                                                                    \
    onlinear_adaptive_steps.adagrad_plain = adagrad_plain_##ISA;                              \
    onlinear_adaptive_steps.adagrad_regularised = adagrad_regularised_##ISA;                  \
    onlinear_adaptive_steps.ftrl = ftrl_##ISA;                                                \
    onlinear_adaptive_steps.adagrad_catch_up_l1 = adagrad_catch_up_l1_##ISA;                  \
    onlinear_adaptive_steps.adagrad_classes = adagrad_classes_##ISA;                          \
    onlinear_adaptive_steps.ftrl_classes = ftrl_classes_##ISA;                                \
    onlinear_adaptive_steps.rda_scores = rda_scores_##ISA;                                    \
    onlinear_adaptive_steps.rda_weights = rda_weights_##ISA;                                  \
    onlinear_adaptive_steps.rda_step = rda_step_##ISA;

/* Choose the steps for this CPU (once, when the module loads). */
static void onlinear_adaptive_init(void) {
    switch (onlinear_isa()) {
#ifdef ONLINEAR_ISA_X86
    case 2: FILL_ADAPTIVE(avx512) break;
    case 1: FILL_ADAPTIVE(avx2) break;
#endif
    default: FILL_ADAPTIVE(generic)
    }
}

#endif
