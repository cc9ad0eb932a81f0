/* The full-covariance sweeps of the Gaussian engine (src/onlinear/_core/gaussian_simd.h, as
 * the engine calls them) against whole-matrix sweeps that give the same bits, and a bare read
 * of two upper triangles: what a USPS round of a per-class full covariance costs at least
 * (benchmarks/README.md, "What the full-covariance goal leaves room for").
 *
 *   gcc -O3 -fopenmp-simd -ffp-contract=off -fno-math-errno -Isrc/onlinear/_core \
 *       benchmarks/full_covariance_sweeps.c -o /tmp/full_covariance_sweeps -lm
 *   /tmp/full_covariance_sweeps
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gaussian_simd.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define WIDE __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,avx2")))
#else
#define WIDE
#endif

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* u = S x over whole rows: u_j sums S_ij x_i in increasing i, the order of the engine's sweep */
WIDE static void whole_times(const double *S, const double *restrict x, ptrdiff_t d,
                             double *restrict u) {
    for (ptrdiff_t j = 0; j < d; j++) u[j] = 0.0;
    for (ptrdiff_t i = 0; i < d; i++) {
        const double xi = x[i];
        const double *restrict row = S + i * d;
        #pragma omp simd
        for (ptrdiff_t j = 0; j < d; j++) u[j] += xi * row[j];
    }
}

WIDE static void whole_shrink(double *S, const double *restrict u, double g,
                              const double *restrict x, ptrdiff_t d, double *restrict w) {
    for (ptrdiff_t j = 0; j < d; j++) w[j] = 0.0;
    for (ptrdiff_t i = 0; i < d; i++) {
        double *restrict row = S + i * d;
        const double ui = u[i], xi = x[i];
        #pragma omp simd
        for (ptrdiff_t j = 0; j < d; j++) {
            const double s = row[j] - g * (ui * u[j]);
            row[j] = s;
            w[j] += xi * s;
        }
    }
}

WIDE static void whole_pair(double *S, const double *restrict u, const double *restrict w,
                            double h, ptrdiff_t d) {
    for (ptrdiff_t i = 0; i < d; i++) {
        double *restrict row = S + i * d;
        const double ui = u[i], wi = w[i];
        #pragma omp simd
        for (ptrdiff_t j = 0; j < d; j++) row[j] -= h * (wi * u[j] + ui * w[j]);
    }
}

WIDE static double read_triangle(const double *S, ptrdiff_t d) {
    double a[8] = {0};
    for (ptrdiff_t i = 0; i < d; i++) {
        const double *row = S + i * d;
        for (ptrdiff_t j = i & ~7; j < d; j += 8)
            for (int l = 0; l < 8; l++) a[l] += row[j + l];
    }
    return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

int main(void) {
    enum { D = 256, K = 10, ROUNDS = 4000, REPEATS = 5 };
    const size_t size = sizeof(double) * K * D * D;
    double *S = aligned_alloc(64, size), *S2 = aligned_alloc(64, size);
    double x[D], u[D], w[D], u2[D], w2[D], sink = 0.0;
    int *ys = malloc(sizeof(int) * ROUNDS), *rs = malloc(sizeof(int) * ROUNDS);
    onlinear_gaussian_init();
    srand(1);
    for (int i = 0; i < D; i++) x[i] = (rand() % 1000) / 1000.0;
    for (int k = 0; k < K; k++)
        for (int i = 0; i < D; i++)
            for (int j = i; j < D; j++) {
                const double v = i == j ? 1.0 + (rand() % 100) / 100.0
                                        : ((rand() % 1000) - 500) / 1e5;
                S[(size_t)k * D * D + i * D + j] = S[(size_t)k * D * D + j * D + i] = v;
            }
    memcpy(S2, S, size);
    for (int t = 0; t < ROUNDS; t++) {
        ys[t] = rand() % K;
        rs[t] = (ys[t] + 1 + rand() % (K - 1)) % K;
    }
    int differ = 0;
    for (int t = 0; t < 50; t++) { /* the same bits, step by step */
        double *A = S + (size_t)ys[t] * D * D, *B = S2 + (size_t)ys[t] * D * D;
        onlinear_gaussian_sweeps.times(A, x, D, u);
        whole_times(B, x, D, u2);
        onlinear_gaussian_sweeps.shrink(A, u, 1e-3, x, D, w);
        whole_shrink(B, u2, 1e-3, x, D, w2);
        onlinear_gaussian_sweeps.pair(A, u, w, 1e-3, D);
        whole_pair(B, u2, w2, 1e-3, D);
        for (int i = 0; i < D; i++)
            for (int j = i + 1; j < D; j++) A[j * D + i] = A[i * D + j];
        differ += memcmp(u, u2, sizeof u) != 0 || memcmp(w, w2, sizeof w) != 0
                  || memcmp(A, B, sizeof(double) * D * D) != 0;
    }
    printf("steps whose bits differ: %d of 50\n", differ);
    printf("us a call: u = Sx (triangle / whole), shrink with w, pair, two triangles read\n");
    for (int rep = 0; rep < REPEATS; rep++) {
        double t[8];
        t[0] = now();
        for (int r = 0; r < ROUNDS; r++) {
            onlinear_gaussian_sweeps.times(S + (size_t)ys[r] * D * D, x, D, u);
            onlinear_gaussian_sweeps.times(S + (size_t)rs[r] * D * D, x, D, w);
        }
        t[1] = now();
        for (int r = 0; r < ROUNDS; r++) {
            whole_times(S2 + (size_t)ys[r] * D * D, x, D, u2);
            whole_times(S2 + (size_t)rs[r] * D * D, x, D, w2);
        }
        t[2] = now();
        for (int r = 0; r < ROUNDS; r++)
            onlinear_gaussian_sweeps.shrink(S + (size_t)ys[r] * D * D, u, 1e-12, x, D, w);
        t[3] = now();
        for (int r = 0; r < ROUNDS; r++) whole_shrink(S2 + (size_t)ys[r] * D * D, u2, 1e-12, x, D, w2);
        t[4] = now();
        for (int r = 0; r < ROUNDS; r++) onlinear_gaussian_sweeps.pair(S + (size_t)ys[r] * D * D, u, w, 1e-12, D);
        t[5] = now();
        for (int r = 0; r < ROUNDS; r++) whole_pair(S2 + (size_t)ys[r] * D * D, u2, w2, 1e-12, D);
        t[6] = now();
        for (int r = 0; r < ROUNDS; r++)
            sink += read_triangle(S + (size_t)ys[r] * D * D, D)
                    + read_triangle(S + (size_t)rs[r] * D * D, D);
        t[7] = now();
        const double us = 1e6 / ROUNDS;
        printf("u %.2f / %.2f   shrink %.2f / %.2f   pair %.2f / %.2f   read two %.2f\n",
               (t[1] - t[0]) * us / 2, (t[2] - t[1]) * us / 2, (t[3] - t[2]) * us,
               (t[4] - t[3]) * us, (t[5] - t[4]) * us, (t[6] - t[5]) * us, (t[7] - t[6]) * us);
    }
    return sink == 42.0;  /* (keeps the reads) */
}
