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

#ifndef GAUSSIAN_CHUNK
/* Non-zeros stepped side by side by diagonal_pair (their values on the stack). */
#define GAUSSIAN_CHUNK 64
#endif

/* The diagonal "project" step of two classes k and o on a row's non-zeros (feature-major
 * (d, K) mu and sigma): mu_k += a sigma_k x and mu_o -= a sigma_o x with the sigmas before the
 * step, and sigma_k, sigma_o <- sigma/(1 + c sigma x^2), both from one division,
 * 1/(growth_k growth_o); a sigma below `floor` is raised to it and counted in `repaired`.
 * Each coordinate's arithmetic is that of the scalar loop this replaced, in its order (the
 * same bits, on every instruction set); the non-zeros go GAUSSIAN_CHUNK at a time, their values gathered first, stepped side
 * by side (the division is most of a step, and in a vector it costs a fraction of as many
 * scalar ones), then stored (a row's non-zeros are distinct features, and k != o). */
static void GAUSSIAN_NAME(diagonal_pair_)(const int64_t *idx, const double *vals, ptrdiff_t nnz,
                                          double *mu, double *sigma, ptrdiff_t K, ptrdiff_t k,
                                          ptrdiff_t o, double a, double c, double floor,
                                          int64_t *repaired) {
    double sk[GAUSSIAN_CHUNK], so[GAUSSIAN_CHUNK], dk[GAUSSIAN_CHUNK], dn[GAUSSIAN_CHUNK];
    double nk[GAUSSIAN_CHUNK], no[GAUSSIAN_CHUNK];
    int64_t count = 0;
    for (ptrdiff_t p0 = 0; p0 < nnz; p0 += GAUSSIAN_CHUNK) {
        const ptrdiff_t n = nnz - p0 < GAUSSIAN_CHUNK ? nnz - p0 : GAUSSIAN_CHUNK;
        const int64_t *restrict at = idx + p0;
        const double *restrict xs = vals + p0;
        for (ptrdiff_t q = 0; q < n; q++) {
            sk[q] = sigma[at[q] * K + k];
            so[q] = sigma[at[q] * K + o];
        }
        #pragma omp simd reduction(+:count)
        for (ptrdiff_t q = 0; q < n; q++) {
            const double x = xs[q], x2 = x * x, sig_k = sk[q], sig_o = so[q];
            dk[q] = a * (sig_k * x);
            dn[q] = -a * (sig_o * x);
            const double grow_k = 1.0 + c * sig_k * x2;
            const double grow_o = 1.0 + c * sig_o * x2;
            const double inverse = 1.0 / (grow_k * grow_o);
            const double new_k = sig_k * grow_o * inverse, new_o = sig_o * grow_k * inverse;
            count += (new_k < floor) + (new_o < floor);
            nk[q] = new_k < floor ? floor : new_k;
            no[q] = new_o < floor ? floor : new_o;
        }
        for (ptrdiff_t q = 0; q < n; q++) {
            const ptrdiff_t j = at[q] * K;
            mu[j + k] += dk[q];
            mu[j + o] += dn[q];
            sigma[j + k] = nk[q];
            sigma[j + o] = no[q];
        }
    }
    *repaired += count;
}

#undef GAUSSIAN_NAME
#undef GAUSSIAN_CAT
#undef GAUSSIAN_CAT2
