/* The full-covariance sweeps of the Gaussian learners, for one instruction set: included by
 * gaussian_simd.h once per instruction set, with SFX (the functions' suffix) and, around the
 * inclusion, the target.  Each works on the upper triangle (j >= i) of a d x d row-major
 * symmetric matrix only (half the memory traffic of the whole matrix).  No multiply-add is
 * contracted and every sum runs in the order of a sweep over the whole matrix's rows: the same
 * bits on every instruction set, and as the scalar loops they replace. */

#define GAUSSIAN_CAT2(a, b) a##b
#define GAUSSIAN_CAT(a, b) GAUSSIAN_CAT2(a, b)
#define GAUSSIAN_NAME(base) GAUSSIAN_CAT(base, SFX)

#ifndef GAUSSIAN_BLOCK
/* Rows taken together by the product sweeps: their in-order dot products are as many
 * independent chains of additions (one chain alone waits an addition's latency a term). */
#define GAUSSIAN_BLOCK 8
#endif

/* Row i's share of u = S x (i one row of the sweep): u_i is final after it, and the terms of
 * the rows below (j > i) have row i's term added. */
static inline void GAUSSIAN_NAME(times_row_)(const double *S, const double *restrict x,
                                             ptrdiff_t d, ptrdiff_t i, double *restrict u) {
    const double *restrict row = S + i * d;
    const double xi = x[i];
    double acc = u[i];
    for (ptrdiff_t j = i; j < d; j++) acc += x[j] * row[j];
    u[i] = acc;
    #pragma omp simd
    for (ptrdiff_t j = i + 1; j < d; j++) u[j] += xi * row[j];
}

/* times_row for the GAUSSIAN_BLOCK rows from i0, every sum in the same order (the same bits):
 * row i0 + r's u starts with the terms of the block's rows above it (q < r, in order), then its
 * own terms j >= i0 + r in order, the block's chains side by side; the rows below the block
 * then take the block's terms in row order (a vectorized sweep, each lane in order). */
static inline void GAUSSIAN_NAME(times_block_)(const double *S, const double *restrict x,
                                               ptrdiff_t d, ptrdiff_t i0, double *restrict u) {
    double acc[GAUSSIAN_BLOCK];
    const ptrdiff_t end = i0 + GAUSSIAN_BLOCK;
    for (ptrdiff_t r = 0; r < GAUSSIAN_BLOCK; r++) {
        const double *restrict row = S + (i0 + r) * d;
        double a = u[i0 + r];
        for (ptrdiff_t q = 0; q < r; q++) a += x[i0 + q] * S[(i0 + q) * d + i0 + r];
        for (ptrdiff_t j = i0 + r; j < end; j++) a += x[j] * row[j];
        acc[r] = a;
    }
    for (ptrdiff_t j = end; j < d; j++) {
        const double xj = x[j];
        for (ptrdiff_t r = 0; r < GAUSSIAN_BLOCK; r++) acc[r] += xj * S[(i0 + r) * d + j];
    }
    for (ptrdiff_t r = 0; r < GAUSSIAN_BLOCK; r++) u[i0 + r] = acc[r];
    #pragma omp simd
    for (ptrdiff_t j = end; j < d; j++) {
        double t = u[j];
        for (ptrdiff_t r = 0; r < GAUSSIAN_BLOCK; r++) t += x[i0 + r] * S[(i0 + r) * d + j];
        u[j] = t;
    }
}

/* u = S x.  u_i sums S_ji x_j over j in increasing order, as a sweep over all of S's rows
 * would (the same bits): the terms j < i come from the rows above (S_ji, a vectorized axpy on
 * their upper part), the rest from row i itself (a dot product in order), blocks of rows at a
 * time (times_block). */
static void GAUSSIAN_NAME(full_times_)(const double *S,
                                       const double *restrict x,
                                       ptrdiff_t d, double *restrict u) {
    ptrdiff_t i = 0;
    for (ptrdiff_t j = 0; j < d; j++) u[j] = 0.0;
    for (; i + GAUSSIAN_BLOCK <= d; i += GAUSSIAN_BLOCK) GAUSSIAN_NAME(times_block_)(S, x, d, i, u);
    for (; i < d; i++) GAUSSIAN_NAME(times_row_)(S, x, d, i, u);
}

/* S <- S - g u u^T, and w = S x of the S just written (its entries summed in the order of
 * full_times): a block's rows are written, then read as full_times reads them. */
static void GAUSSIAN_NAME(full_shrink_)(double *S,
                                        const double *restrict u, double g,
                                        const double *restrict x,
                                        ptrdiff_t d, double *restrict w) {
    ptrdiff_t i = 0;
    for (ptrdiff_t j = 0; j < d; j++) w[j] = 0.0;
    for (; i < d; ) {
        const ptrdiff_t rows = i + GAUSSIAN_BLOCK <= d ? GAUSSIAN_BLOCK : 1;
        for (ptrdiff_t r = i; r < i + rows; r++) {
            double *restrict row = S + r * d;
            const double ur = u[r];
            #pragma omp simd
            for (ptrdiff_t j = r; j < d; j++) row[j] = row[j] - g * (ur * u[j]);
        }
        if (rows == GAUSSIAN_BLOCK) GAUSSIAN_NAME(times_block_)(S, x, d, i, w);
        else GAUSSIAN_NAME(times_row_)(S, x, d, i, w);
        i += rows;
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
