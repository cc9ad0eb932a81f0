/* The adaptive learners' per-coordinate steps over a row's non-zeros, for one instruction set:
 * included by adaptive_simd.h once per instruction set, with SFX (the functions' suffix) and,
 * around the inclusion, the target.  Vectorized across the K classes of a feature; no sum is
 * reassociated and no multiply-add contracted (the package's -ffp-contract=off), and square
 * roots and divisions are correctly rounded in every width: the same bits on every instruction
 * set, and the same as adaptive.pyx's scalar steps.
 *
 * W, G (AdaGrad: the sums of squared gradients; FTRL: n), Z are feature-major (d, K); gamma
 * holds the round's K gradient coefficients (g_k = gamma_k x_j); FTRL's R, when not NULL,
 * caches sqrt(n) (read before a step, written after it), so that a pass takes one root a step
 * where Algorithm 1 as written takes two; a regularised AdaGrad's R caches sqrt(G) the same way
 * (written by its step, read by the deferred steps of the next round that has the feature). */

#define ADAPTIVE_CAT2(a, b) a##b
#define ADAPTIVE_CAT(a, b) ADAPTIVE_CAT2(a, b)
#define ADAPTIVE_NAME(base) ADAPTIVE_CAT(base, SFX)

/* Whether the row's features' (d, K) values lie farther apart than the caches hold
 * (prefetch.h): its coordinates are then asked for ahead, as simd.h's sparse scores ask for
 * the weights. */
static inline int ADAPTIVE_NAME(far_apart_)(const int64_t *idx, ptrdiff_t nnz, ptrdiff_t K) {
    return nnz > 0 && onlinear_far_apart((double)idx[0], (double)idx[nnz - 1],
                                         (double)K * sizeof(double));
}

/* The loop `rows` (its last argument: whether to ask for values ahead) called as the row needs:
 * a copy of it each way, so that a row that does not ask pays no test a non-zero. */
#define ADAPTIVE_NEAR_OR_FAR(rows, ...)                                                       \
    do {                                                                                      \
        if (ADAPTIVE_NAME(far_apart_)(idx, nnz, K)) rows(__VA_ARGS__, 1);                     \
        else rows(__VA_ARGS__, 0);                                                            \
    } while (0)

#ifndef ADAPTIVE_AHEAD
/* Non-zeros ahead whose values the every-class steps ask for on rows far apart. */
#define ADAPTIVE_AHEAD 4
#endif

/* AdaGrad without a regulariser: w -= eta g / H, H = delta + sqrt(G) (H = 0 only when g = 0). */
static void ADAPTIVE_NAME(adagrad_plain_)(const int64_t *idx, const double *vals, ptrdiff_t nnz,
                                          double *W, double *G, const double *gamma,
                                          ptrdiff_t K, double eta, double delta) {
    for (ptrdiff_t p = 0; p < nnz; p++) {
        double *restrict w = W + idx[p] * K, *restrict s = G + idx[p] * K;
        const double x = vals[p];
        #pragma omp simd
        for (ptrdiff_t k = 0; k < K; k++) {
            const double g = gamma[k] * x;
            const double G2 = s[k] + g * g;
            const double H = delta + sqrt(G2);
            s[k] = G2;
            w[k] = w[k] - eta * g / (H > 0.0 ? H : 1.0);
        }
    }
}

#ifndef ADAPTIVE_CHUNK
/* Non-zeros stepped together by the few-class steps (their new values on the stack). */
#define ADAPTIVE_CHUNK 64
#endif

/* AdaGrad without a regulariser for the n_classes classes listed (those whose gamma is not 0:
 * the hinge loss's two), vectorized across the row's non-zeros: each chunk's new values are
 * computed side by side (gathered reads), then stored. */
static void ADAPTIVE_NAME(adagrad_classes_)(const int64_t *idx, const double *vals,
                                            ptrdiff_t nnz, double *W, double *G,
                                            const double *gamma, const ptrdiff_t *classes,
                                            ptrdiff_t n_classes, ptrdiff_t K, double eta,
                                            double delta) {
    double w_new[ADAPTIVE_CHUNK], G_new[ADAPTIVE_CHUNK];
    const int far = ADAPTIVE_NAME(far_apart_)(idx, nnz, K);
    for (ptrdiff_t c = 0; c < n_classes; c++) {
        const ptrdiff_t k = classes[c];
        const double coefficient = gamma[k];
        for (ptrdiff_t p0 = 0; p0 < nnz; p0 += ADAPTIVE_CHUNK) {
            const ptrdiff_t n = nnz - p0 < ADAPTIVE_CHUNK ? nnz - p0 : ADAPTIVE_CHUNK;
            const int64_t *restrict at = idx + p0;
            if (far)
                for (ptrdiff_t q = 0; q < n; q++)
                    onlinear_prefetch(G + at[q] * K + k, sizeof(double));
            #pragma omp simd
            for (ptrdiff_t q = 0; q < n; q++) {
                const ptrdiff_t j = at[q] * K + k;
                const double g = coefficient * vals[p0 + q];
                const double G2 = G[j] + g * g;
                const double H = delta + sqrt(G2);
                G_new[q] = G2;
                w_new[q] = W[j] - eta * g / (H > 0.0 ? H : 1.0);
            }
            for (ptrdiff_t q = 0; q < n; q++) {
                G[at[q] * K + k] = G_new[q];
                W[at[q] * K + k] = w_new[q];
            }
        }
    }
}

/* The regularised AdaGrad step of one weight w with gradient g, root = sqrt(G + g^2): the argmin
 * of eta g w' + eta(l1|w'| + l2 w'^2/2) + H(w' - w)^2/2, H = delta + root (H = 0: no step). */
static inline double ADAPTIVE_NAME(prox_step_)(double w, double g, double root, double eta,
                                               double delta, double l1, double l2) {
    const double H = delta + root;
    const double H_safe = H > 0.0 ? H : 1.0;
    const double shifted = H_safe * w - eta * g;
    const double size = fabs(shifted) - eta * l1;
    const double stepped = size > 0.0 ? copysign(size, shifted) / (H_safe + eta * l2) : 0.0;
    return H > 0.0 ? stepped : w;
}

/* AdaGrad with the regulariser (prox_step); R (when not NULL): sqrt(G) written beside G. */
static inline __attribute__((always_inline)) void ADAPTIVE_NAME(adagrad_regularised_rows_)(
        const int64_t *idx, const double *vals, ptrdiff_t nnz, double *W, double *G, double *R,
        const double *gamma, ptrdiff_t K, double eta, double delta, double l1, double l2,
        const int far) {
    for (ptrdiff_t p = 0; p < nnz; p++) {
        double *restrict w = W + idx[p] * K, *restrict s = G + idx[p] * K;
        const double x = vals[p];
        if (far && p + ADAPTIVE_AHEAD < nnz) {
            const ptrdiff_t ahead = idx[p + ADAPTIVE_AHEAD] * K;
            onlinear_prefetch(W + ahead, K * (ptrdiff_t)sizeof(double));
            onlinear_prefetch(G + ahead, K * (ptrdiff_t)sizeof(double));
            if (R != NULL) onlinear_prefetch(R + ahead, K * (ptrdiff_t)sizeof(double));
        }
        if (R == NULL) {
            #pragma omp simd
            for (ptrdiff_t k = 0; k < K; k++) {
                const double g = gamma[k] * x;
                const double G2 = s[k] + g * g;
                s[k] = G2;
                w[k] = ADAPTIVE_NAME(prox_step_)(w[k], g, sqrt(G2), eta, delta, l1, l2);
            }
        } else {
            double *restrict r = R + idx[p] * K;
            #pragma omp simd
            for (ptrdiff_t k = 0; k < K; k++) {
                const double g = gamma[k] * x;
                const double G2 = s[k] + g * g;
                const double root = sqrt(G2);
                s[k] = G2;
                r[k] = root;
                w[k] = ADAPTIVE_NAME(prox_step_)(w[k], g, root, eta, delta, l1, l2);
            }
        }
    }
}

static void ADAPTIVE_NAME(adagrad_regularised_)(const int64_t *idx, const double *vals,
                                                ptrdiff_t nnz, double *W, double *G, double *R,
                                                const double *gamma, ptrdiff_t K, double eta,
                                                double delta, double l1, double l2) {
    ADAPTIVE_NEAR_OR_FAR(ADAPTIVE_NAME(adagrad_regularised_rows_), idx, vals, nnz, W, G, R,
                         gamma, K, eta, delta, l1, l2);
}

/* One deferred l1 step of AdaGrad (l2 = 0) over `rounds` rounds: |w| - rounds eta l1 / H,
 * H = delta + root (H = 0: no step), a soft-threshold to 0. */
static inline double ADAPTIVE_NAME(l1_rounds_)(double w, double root, double rounds, double eta,
                                               double delta, double l1) {
    const double H = delta + root;
    const double size = fabs(w) - rounds * (eta * l1 / (H > 0.0 ? H : 1.0));
    return !(H > 0.0) ? w : (size > 0.0 ? copysign(size, w) : 0.0);
}

/* AdaGrad's deferred l1 steps (l2 = 0) of the features idx[0 .. nnz), each behind by clock -
 * last[j] rounds, then up to date (l1_rounds); sqrt(G) read from R when it is not NULL. */
static inline __attribute__((always_inline)) void ADAPTIVE_NAME(adagrad_catch_up_l1_rows_)(
        const int64_t *idx, ptrdiff_t nnz, double *W, const double *G, const double *R,
        int64_t *last, int64_t clock, ptrdiff_t K, double eta, double delta, double l1,
        const int far) {
    for (ptrdiff_t p = 0; p < nnz; p++) {
        double *restrict w = W + idx[p] * K;
        if (far && p + ADAPTIVE_AHEAD < nnz) {
            const ptrdiff_t ahead = idx[p + ADAPTIVE_AHEAD] * K;
            onlinear_prefetch(W + ahead, K * (ptrdiff_t)sizeof(double));
            onlinear_prefetch((R != NULL ? R : G) + ahead, K * (ptrdiff_t)sizeof(double));
            onlinear_prefetch(last + idx[p + ADAPTIVE_AHEAD], sizeof(int64_t));
        }
        const int64_t behind = clock - last[idx[p]];
        const double rounds = (double)behind;
        last[idx[p]] = clock;
        if (behind <= 0) continue;
        if (R == NULL) {
            const double *restrict s = G + idx[p] * K;
            #pragma omp simd
            for (ptrdiff_t k = 0; k < K; k++)
                w[k] = ADAPTIVE_NAME(l1_rounds_)(w[k], sqrt(s[k]), rounds, eta, delta, l1);
        } else {
            const double *restrict r = R + idx[p] * K;
            #pragma omp simd
            for (ptrdiff_t k = 0; k < K; k++)
                w[k] = ADAPTIVE_NAME(l1_rounds_)(w[k], r[k], rounds, eta, delta, l1);
        }
    }
}

static void ADAPTIVE_NAME(adagrad_catch_up_l1_)(const int64_t *idx, ptrdiff_t nnz, double *W,
                                                const double *G, const double *R,
                                                int64_t *last, int64_t clock, ptrdiff_t K,
                                                double eta, double delta, double l1) {
    ADAPTIVE_NEAR_OR_FAR(ADAPTIVE_NAME(adagrad_catch_up_l1_rows_), idx, nnz, W, G, R, last,
                         clock, K, eta, delta, l1);
}

/* FTRL-Proximal: sigma = (sqrt(n + g^2) - sqrt(n))/alpha, z += g - sigma w, n += g^2, and w from
 * (z, n): -(z - sign(z) l1)/((beta + sqrt(n))/alpha + l2), computed as
 * -alpha (z - sign(z) l1)/(beta + alpha l2 + sqrt(n)) and sigma with 1/alpha: one division a
 * step.  R: the cached sqrt(n) (NULL: computed). */
static inline __attribute__((always_inline)) void ADAPTIVE_NAME(ftrl_rows_)(
        const int64_t *idx, const double *vals, ptrdiff_t nnz, double *W, double *Z, double *N,
        double *R, const double *gamma, ptrdiff_t K, double alpha, double beta, double l1,
        double l2, const int far) {
    const double inverse = 1.0 / alpha, base = beta + alpha * l2;
    for (ptrdiff_t p = 0; p < nnz; p++) {
        double *restrict w = W + idx[p] * K, *restrict zs = Z + idx[p] * K;
        double *restrict ns = N + idx[p] * K;
        double *restrict r = R == NULL ? NULL : R + idx[p] * K;
        const double x = vals[p];
        if (far && p + ADAPTIVE_AHEAD < nnz) {
            const ptrdiff_t ahead = idx[p + ADAPTIVE_AHEAD] * K;
            onlinear_prefetch(W + ahead, K * (ptrdiff_t)sizeof(double));
            onlinear_prefetch(Z + ahead, K * (ptrdiff_t)sizeof(double));
            onlinear_prefetch(N + ahead, K * (ptrdiff_t)sizeof(double));
            if (R != NULL) onlinear_prefetch(R + ahead, K * (ptrdiff_t)sizeof(double));
        }
        if (r == NULL) {
            #pragma omp simd
            for (ptrdiff_t k = 0; k < K; k++) {
                const double g = gamma[k] * x;
                const double root_old = sqrt(ns[k]);
                const double n = ns[k] + g * g;
                const double root = sqrt(n);
                const double z = zs[k] + (g - (root - root_old) * inverse * w[k]);
                const double t = fabs(z) - l1;
                zs[k] = z;
                ns[k] = n;
                w[k] = t > 0.0 && n > 0.0 ? -copysign(t, z) * alpha / (base + root) : 0.0;
            }
        } else {
            #pragma omp simd
            for (ptrdiff_t k = 0; k < K; k++) {
                const double g = gamma[k] * x;
                const double n = ns[k] + g * g;
                const double root = sqrt(n);
                const double z = zs[k] + (g - (root - r[k]) * inverse * w[k]);
                const double t = fabs(z) - l1;
                zs[k] = z;
                ns[k] = n;
                r[k] = root;
                w[k] = t > 0.0 && n > 0.0 ? -copysign(t, z) * alpha / (base + root) : 0.0;
            }
        }
    }
}

static void ADAPTIVE_NAME(ftrl_)(const int64_t *idx, const double *vals, ptrdiff_t nnz,
                                 double *W, double *Z, double *N, double *R, const double *gamma,
                                 ptrdiff_t K, double alpha, double beta, double l1, double l2) {
    ADAPTIVE_NEAR_OR_FAR(ADAPTIVE_NAME(ftrl_rows_), idx, vals, nnz, W, Z, N, R, gamma, K,
                         alpha, beta, l1, l2);
}

/* ftrl for the n_classes classes listed (the hinge loss's), vectorized across the row's
 * non-zeros as adagrad_classes is. */
static void ADAPTIVE_NAME(ftrl_classes_)(const int64_t *idx, const double *vals, ptrdiff_t nnz,
                                         double *W, double *Z, double *N, double *R,
                                         const double *gamma, const ptrdiff_t *classes,
                                         ptrdiff_t n_classes, ptrdiff_t K, double alpha,
                                         double beta, double l1, double l2) {
    const double inverse = 1.0 / alpha, base = beta + alpha * l2;
    double w_new[ADAPTIVE_CHUNK], z_new[ADAPTIVE_CHUNK], n_new[ADAPTIVE_CHUNK];
    double r_new[ADAPTIVE_CHUNK], r_old[ADAPTIVE_CHUNK];
    const int far = ADAPTIVE_NAME(far_apart_)(idx, nnz, K);
    for (ptrdiff_t c = 0; c < n_classes; c++) {
        const ptrdiff_t k = classes[c];
        const double coefficient = gamma[k];
        for (ptrdiff_t p0 = 0; p0 < nnz; p0 += ADAPTIVE_CHUNK) {
            const ptrdiff_t m = nnz - p0 < ADAPTIVE_CHUNK ? nnz - p0 : ADAPTIVE_CHUNK;
            const int64_t *restrict at = idx + p0;
            if (far)
                for (ptrdiff_t q = 0; q < m; q++) {
                    onlinear_prefetch(N + at[q] * K + k, sizeof(double));
                    onlinear_prefetch(Z + at[q] * K + k, sizeof(double));
                }
            if (R == NULL) {
                #pragma omp simd
                for (ptrdiff_t q = 0; q < m; q++) r_old[q] = sqrt(N[at[q] * K + k]);
            } else {
                for (ptrdiff_t q = 0; q < m; q++) r_old[q] = R[at[q] * K + k];
            }
            #pragma omp simd
            for (ptrdiff_t q = 0; q < m; q++) {
                const ptrdiff_t j = at[q] * K + k;
                const double g = coefficient * vals[p0 + q];
                const double root_old = r_old[q];
                const double n = N[j] + g * g;
                const double root = sqrt(n);
                const double z = Z[j] + (g - (root - root_old) * inverse * W[j]);
                const double t = fabs(z) - l1;
                z_new[q] = z;
                n_new[q] = n;
                r_new[q] = root;
                w_new[q] = t > 0.0 && n > 0.0 ? -copysign(t, z) * alpha / (base + root) : 0.0;
            }
            for (ptrdiff_t q = 0; q < m; q++) {
                const ptrdiff_t j = at[q] * K + k;
                Z[j] = z_new[q];
                N[j] = n_new[q];
                W[j] = w_new[q];
                if (R != NULL) R[j] = r_new[q];
            }
        }
    }
}

/* AdaGrad's primal-dual (RDA) form: the weight that a coordinate's gradient sum u and squared
 * gradient sum G define at t rounds, w = -eta sign(u) [|u| - l1 t]_+ / (delta + sqrt(G) +
 * eta l2 t) (0 where that scale is 0: no gradient yet and delta = 0); l1t and l2t are l1 t and
 * (eta l2) t. */
static inline double ADAPTIVE_NAME(rda_weight_)(double u, double G, double eta, double delta,
                                                double l1t, double l2t) {
    const double scale = delta + sqrt(G) + l2t;
    const double size = fabs(u) - l1t;
    const double shrunk = size > 0.0 ? copysign(size, u) : 0.0;
    return scale > 0.0 ? -(eta * shrunk) / (scale > 0.0 ? scale : 1.0) : 0.0;
}

/* The scores of a row under the RDA weights at t rounds, computed where they are read (every
 * weight moves with t under a regulariser); each score sums over the row's non-zeros in its
 * order, as score_sparse does over stored weights (the same bits). */
static inline __attribute__((always_inline)) void ADAPTIVE_NAME(rda_scores_rows_)(
        const int64_t *idx, const double *vals, ptrdiff_t nnz, const double *U,
        const double *G, ptrdiff_t K, double eta, double delta, double l1t, double l2t,
        double *scores, const int far) {
    for (ptrdiff_t k = 0; k < K; k++) scores[k] = 0.0;
    for (ptrdiff_t p = 0; p < nnz; p++) {
        const double *restrict u = U + idx[p] * K, *restrict s = G + idx[p] * K;
        double *restrict out = scores;
        const double x = vals[p];
        if (far && p + ADAPTIVE_AHEAD < nnz) {
            onlinear_prefetch(U + idx[p + ADAPTIVE_AHEAD] * K, K * (ptrdiff_t)sizeof(double));
            onlinear_prefetch(G + idx[p + ADAPTIVE_AHEAD] * K, K * (ptrdiff_t)sizeof(double));
        }
        #pragma omp simd
        for (ptrdiff_t k = 0; k < K; k++)
            out[k] = out[k] + x * ADAPTIVE_NAME(rda_weight_)(u[k], s[k], eta, delta, l1t, l2t);
    }
}

static void ADAPTIVE_NAME(rda_scores_)(const int64_t *idx, const double *vals, ptrdiff_t nnz,
                                       const double *U, const double *G, ptrdiff_t K,
                                       double eta, double delta, double l1t, double l2t,
                                       double *scores) {
    ADAPTIVE_NEAR_OR_FAR(ADAPTIVE_NAME(rda_scores_rows_), idx, vals, nnz, U, G, K, eta, delta,
                         l1t, l2t, scores);
}

/* The RDA weights of n consecutive coordinates without a regulariser (they then move only with
 * their own u and G, so a pass may keep them). */
static void ADAPTIVE_NAME(rda_weights_)(const double *U, const double *G, ptrdiff_t n,
                                        double eta, double delta, double *W) {
    #pragma omp simd
    for (ptrdiff_t i = 0; i < n; i++)
        W[i] = ADAPTIVE_NAME(rda_weight_)(U[i], G[i], eta, delta, 0.0, 0.0);
}

/* An RDA round's step: u += g, G += g^2 (g_k = gamma_k x_j) on the row's non-zeros, for the
 * n_classes classes listed (classes NULL: every class), and W (when not NULL, the weights kept
 * by an unregularised pass) recomputed there. */
static inline __attribute__((always_inline)) void ADAPTIVE_NAME(rda_step_rows_)(
        const int64_t *idx, const double *vals, ptrdiff_t nnz, double *U, double *G, double *W,
        const double *gamma, const ptrdiff_t *classes, ptrdiff_t n_classes, ptrdiff_t K,
        double eta, double delta, const int far) {
    if (classes == NULL) {
        for (ptrdiff_t p = 0; p < nnz; p++) {
            double *restrict u = U + idx[p] * K, *restrict s = G + idx[p] * K;
            const double x = vals[p];
            if (far && p + ADAPTIVE_AHEAD < nnz) {
                const ptrdiff_t ahead = idx[p + ADAPTIVE_AHEAD] * K;
                onlinear_prefetch(U + ahead, K * (ptrdiff_t)sizeof(double));
                onlinear_prefetch(G + ahead, K * (ptrdiff_t)sizeof(double));
                if (W != NULL) onlinear_prefetch(W + ahead, K * (ptrdiff_t)sizeof(double));
            }
            #pragma omp simd
            for (ptrdiff_t k = 0; k < K; k++) {
                const double g = x * gamma[k];
                u[k] = u[k] + g;
                s[k] = s[k] + g * g;
            }
            if (W != NULL) ADAPTIVE_NAME(rda_weights_)(u, s, K, eta, delta, W + idx[p] * K);
        }
        return;
    }
    for (ptrdiff_t c = 0; c < n_classes; c++) {
        const ptrdiff_t k = classes[c];
        const double coefficient = gamma[k];
        for (ptrdiff_t p = 0; p < nnz; p++) {
            const ptrdiff_t j = idx[p] * K + k;
            const double g = vals[p] * coefficient;
            if (far && p + ADAPTIVE_AHEAD < nnz) {
                const ptrdiff_t ahead = idx[p + ADAPTIVE_AHEAD] * K + k;
                onlinear_prefetch(U + ahead, sizeof(double));
                onlinear_prefetch(G + ahead, sizeof(double));
                if (W != NULL) onlinear_prefetch(W + ahead, sizeof(double));
            }
            U[j] = U[j] + g;
            G[j] = G[j] + g * g;
            if (W != NULL) W[j] = ADAPTIVE_NAME(rda_weight_)(U[j], G[j], eta, delta, 0.0, 0.0);
        }
    }
}

static void ADAPTIVE_NAME(rda_step_)(const int64_t *idx, const double *vals, ptrdiff_t nnz,
                                     double *U, double *G, double *W, const double *gamma,
                                     const ptrdiff_t *classes, ptrdiff_t n_classes, ptrdiff_t K,
                                     double eta, double delta) {
    ADAPTIVE_NEAR_OR_FAR(ADAPTIVE_NAME(rda_step_rows_), idx, vals, nnz, U, G, W, gamma,
                         classes, n_classes, K, eta, delta);
}

#undef ADAPTIVE_NEAR_OR_FAR
#undef ADAPTIVE_NAME
#undef ADAPTIVE_CAT
#undef ADAPTIVE_CAT2
