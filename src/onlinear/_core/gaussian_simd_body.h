/* The full-covariance sweeps of the Gaussian learners, for one instruction set: included by
 * gaussian_simd.h once per instruction set, with SFX (the functions' suffix) and, around the
 * inclusion, the target.  Each works on the upper triangle (j >= i) of a d x d row-major
 * symmetric matrix only (half the memory traffic of the whole matrix); its sums are
 * reassociated (the "omp simd" reductions) and may contract multiply-adds. */

#define GAUSSIAN_CAT2(a, b) a##b
#define GAUSSIAN_CAT(a, b) GAUSSIAN_CAT2(a, b)
#define GAUSSIAN_NAME(base) GAUSSIAN_CAT(base, SFX)

/* u = S x.  Row i gives u_i its part on and right of the diagonal (a sum) and u_j, j > i, the
 * mirrored part S_ij x_i. */
GAUSSIAN_ATTRIBUTES static void GAUSSIAN_NAME(full_times_)(const double *S, const double *x,
                                                           ptrdiff_t d, double *u) {
    for (ptrdiff_t i = 0; i < d; i++) u[i] = 0.0;
    for (ptrdiff_t i = 0; i < d; i++) {
        const double *row = S + i * d;
        const double xi = x[i];
        double acc = row[i] * xi;
        #pragma omp simd reduction(+:acc)
        for (ptrdiff_t j = i + 1; j < d; j++) {
            acc += row[j] * x[j];
            u[j] += row[j] * xi;
        }
        u[i] += acc;
    }
}

/* S <- S - g u u^T, and w = S x of the S just written, in one sweep. */
GAUSSIAN_ATTRIBUTES static void GAUSSIAN_NAME(full_shrink_)(double *S, const double *u, double g,
                                                            const double *x, ptrdiff_t d,
                                                            double *w) {
    for (ptrdiff_t i = 0; i < d; i++) w[i] = 0.0;
    for (ptrdiff_t i = 0; i < d; i++) {
        double *row = S + i * d;
        const double ui = u[i], xi = x[i];
        const double sii = row[i] - g * (ui * ui);
        double acc = sii * xi;
        row[i] = sii;
        #pragma omp simd reduction(+:acc)
        for (ptrdiff_t j = i + 1; j < d; j++) {
            const double s = row[j] - g * (ui * u[j]);
            row[j] = s;
            acc += s * x[j];
            w[j] += s * xi;
        }
        w[i] += acc;
    }
}

/* S <- S - h (w u^T + u w^T). */
GAUSSIAN_ATTRIBUTES static void GAUSSIAN_NAME(full_pair_)(double *S, const double *u,
                                                          const double *w, double h,
                                                          ptrdiff_t d) {
    for (ptrdiff_t i = 0; i < d; i++) {
        double *row = S + i * d;
        const double ui = u[i], wi = w[i];
        #pragma omp simd
        for (ptrdiff_t j = i; j < d; j++) row[j] -= h * (wi * u[j] + ui * w[j]);
    }
}

#undef GAUSSIAN_NAME
#undef GAUSSIAN_CAT
#undef GAUSSIAN_CAT2
