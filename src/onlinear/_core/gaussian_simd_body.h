/* The full-covariance sweeps of the Gaussian learners, for one instruction set: included by
 * gaussian_simd.h once per instruction set, with SFX (the functions' suffix) and, around the
 * inclusion, the target.  Each works on the upper triangle (j >= i) of a d x d row-major
 * symmetric matrix only (half the memory traffic of the whole matrix).  No multiply-add is
 * contracted and every sum runs in the order of a sweep over the whole matrix's rows: the same
 * bits on every instruction set, and as the scalar loops they replace. */

#define GAUSSIAN_CAT2(a, b) a##b
#define GAUSSIAN_CAT(a, b) GAUSSIAN_CAT2(a, b)
#define GAUSSIAN_NAME(base) GAUSSIAN_CAT(base, SFX)

/* u = S x.  u_i sums S_ji x_j over j in increasing order, as a sweep over all of S's rows
 * would (the same bits): the terms j < i come from the rows above (S_ji, a vectorized axpy on
 * their upper part), the rest from row i itself (a dot product in order, not vectorized). */
static void GAUSSIAN_NAME(full_times_)(const double *S,
                                       const double *restrict x,
                                       ptrdiff_t d, double *restrict u) {
    for (ptrdiff_t i = 0; i < d; i++) u[i] = 0.0;
    for (ptrdiff_t i = 0; i < d; i++) {
        const double *restrict row = S + i * d;
        const double xi = x[i];
        double acc = u[i];
        for (ptrdiff_t j = i; j < d; j++) acc += x[j] * row[j];
        u[i] = acc;
        #pragma omp simd
        for (ptrdiff_t j = i + 1; j < d; j++) u[j] += xi * row[j];
    }
}

/* S <- S - g u u^T, and w = S x of the S just written (its entries summed in the order of
 * full_times). */
static void GAUSSIAN_NAME(full_shrink_)(double *S,
                                        const double *restrict u, double g,
                                        const double *restrict x,
                                        ptrdiff_t d, double *restrict w) {
    for (ptrdiff_t i = 0; i < d; i++) w[i] = 0.0;
    for (ptrdiff_t i = 0; i < d; i++) {
        double *restrict row = S + i * d;
        const double ui = u[i], xi = x[i];
        double acc = w[i];
        #pragma omp simd
        for (ptrdiff_t j = i; j < d; j++) row[j] = row[j] - g * (ui * u[j]);
        for (ptrdiff_t j = i; j < d; j++) acc += x[j] * row[j];
        w[i] = acc;
        #pragma omp simd
        for (ptrdiff_t j = i + 1; j < d; j++) w[j] += xi * row[j];
    }
}

/* S <- S - h (w u^T + u w^T). */
static void GAUSSIAN_NAME(full_pair_)(double *S, const double *restrict u,
                                      const double *restrict w, double h,
                                      ptrdiff_t d) {
    for (ptrdiff_t i = 0; i < d; i++) {
        double *restrict row = S + i * d;
        const double ui = u[i], wi = w[i];
        #pragma omp simd
        for (ptrdiff_t j = i; j < d; j++) row[j] -= h * (wi * u[j] + ui * w[j]);
    }
}

#undef GAUSSIAN_NAME
#undef GAUSSIAN_CAT
#undef GAUSSIAN_CAT2
