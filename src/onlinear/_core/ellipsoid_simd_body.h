/* The ellipsoid's dense sweep, for one type of row and one instruction set: included by
 * ellipsoid_simd.h once per combination, with XT (the row's values), SFX (the function's suffix)
 * and, around the inclusion, the target of the instruction set.  Its sums are reassociated (the
 * "omp simd" reductions: vector lanes summed apart, then together) and may contract
 * multiply-adds, as numba's fastmath sweep did.  Sums in double (the metric's precision), each
 * value of the row converted to double once. */

#define METRIC_CAT2(a, b) a##b
#define METRIC_CAT(a, b) METRIC_CAT2(a, b)
#define METRIC_NAME(base) METRIC_CAT(base, SFX)

/* u = P x for the d x d row-major metric P and the dense row x of d values, METRIC_BLOCK rows
 * a sweep (x read once for them).  The last block starts at d - METRIC_BLOCK, so every row is
 * summed by the same instructions whatever its position (equal rows give equal entries of u bit
 * for bit); fewer rows than a block are summed one at a time. */
METRIC_ATTRIBUTES static void METRIC_NAME(metric_times_dense_)(const double *P, const XT *x,
                                                               ptrdiff_t d, double *u) {
    if (d < METRIC_BLOCK) {
        for (ptrdiff_t i = 0; i < d; i++) {
            const double *row = P + i * d;
            double s = 0;
            #pragma omp simd reduction(+:s)
            for (ptrdiff_t j = 0; j < d; j++) s += row[j] * (double)x[j];
            u[i] = s;
        }
        return;
    }
    ptrdiff_t i = 0;
    while (i < d) {
        if (i > d - METRIC_BLOCK) i = d - METRIC_BLOCK;
        const double *p0 = P + i * d, *p1 = p0 + d, *p2 = p1 + d, *p3 = p2 + d;
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        #pragma omp simd reduction(+:s0,s1,s2,s3)
        for (ptrdiff_t j = 0; j < d; j++) {
            double v = (double)x[j];
            s0 += p0[j] * v;
            s1 += p1[j] * v;
            s2 += p2[j] * v;
            s3 += p3[j] * v;
        }
        u[i] = s0;
        u[i + 1] = s1;
        u[i + 2] = s2;
        u[i + 3] = s3;
        i += METRIC_BLOCK;
    }
}

#undef METRIC_NAME
#undef METRIC_CAT
#undef METRIC_CAT2
