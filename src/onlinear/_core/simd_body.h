/* The dense sweeps, for one pair of types and one instruction set: included by simd.h once per
 * combination, with XT (the rows' values), WT (the weights), SFX (the functions' suffix) and,
 * around the inclusion, the target of the instruction set.  Their sums are reassociated (the
 * "omp simd" reductions: the compiler may vectorize them, so their rounding follows the vector
 * width) and may contract multiply-adds; nothing else is.  Every sum is in the weights'
 * precision WT, each value of a row converted to WT once, as onlinear's sums always were. */

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define NAME(base) CAT(base, SFX)

/* Scores sigma_r * (W_r . x) of the class-major weights W (column r at W + r*ld) into scores[r],
 * SCORE_BLOCK outputs a sweep; returns ||x||^2 (summed in WT with every block).  The last block
 * starts at m - SCORE_BLOCK, so every output is summed by the same instructions whatever its
 * position (outputs with equal weights score equal bit for bit); fewer outputs than a block are
 * scored one at a time, ||x||^2 summed with each. */
SWEEP_ATTRIBUTES static double NAME(score_dense_)(const XT *x, const WT *W, ptrdiff_t d,
                                                 ptrdiff_t ld, ptrdiff_t m, const double *scale,
                                                 double *scores) {
    WT q = 0;
    if (m < SCORE_BLOCK) {
        for (ptrdiff_t r = 0; r < m; r++) {
            const WT *w = W + r * ld;
            WT s = 0;
            q = 0;
            #pragma omp simd reduction(+:q,s)
            for (ptrdiff_t j = 0; j < d; j++) {
                WT v = (WT)x[j];
                q += v * v;
                s += w[j] * v;
            }
            scores[r] = (double)s * scale[r];
        }
        return (double)q;
    }
#if defined(__GNUC__)
    /* Each sum in two vector accumulators, on alternate vectors of the row: the chains of
     * dependent multiply-adds bound a round, and two accumulators per sum keep twice as many
     * in flight (the scoring sweep of a dense pass of pa over 784 float32 features: 0.039 ->
     * 0.031 s, as fast as LLVM's code for the same loop). */
    enum { LANES = VBYTES / sizeof(WT) };
    typedef WT wvec __attribute__((vector_size(VBYTES)));
    typedef XT xvec __attribute__((vector_size(LANES * sizeof(XT))));
    ptrdiff_t r = 0;
    while (r < m) {
        if (r > m - SCORE_BLOCK) r = m - SCORE_BLOCK;
        const WT *w0 = W + r * ld, *w1 = w0 + ld, *w2 = w1 + ld, *w3 = w2 + ld;
        wvec q_a = {0}, q_b = {0}, a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, b0 = {0}, b1 = {0},
             b2 = {0}, b3 = {0}, w;
        ptrdiff_t j = 0;
        for (; j + 2 * LANES <= d; j += 2 * LANES) {
            xvec xa, xb;
            memcpy(&xa, x + j, sizeof xa);
            memcpy(&xb, x + j + LANES, sizeof xb);
            wvec v = __builtin_convertvector(xa, wvec), u = __builtin_convertvector(xb, wvec);
            q_a += v * v;
            q_b += u * u;
            memcpy(&w, w0 + j, sizeof w); a0 += w * v;
            memcpy(&w, w0 + j + LANES, sizeof w); b0 += w * u;
            memcpy(&w, w1 + j, sizeof w); a1 += w * v;
            memcpy(&w, w1 + j + LANES, sizeof w); b1 += w * u;
            memcpy(&w, w2 + j, sizeof w); a2 += w * v;
            memcpy(&w, w2 + j + LANES, sizeof w); b2 += w * u;
            memcpy(&w, w3 + j, sizeof w); a3 += w * v;
            memcpy(&w, w3 + j + LANES, sizeof w); b3 += w * u;
        }
        wvec qv = q_a + q_b, s0v = a0 + b0, s1v = a1 + b1, s2v = a2 + b2, s3v = a3 + b3;
        WT s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        q = 0;
        for (int k = 0; k < LANES; k++) {
            q += qv[k];
            s0 += s0v[k];
            s1 += s1v[k];
            s2 += s2v[k];
            s3 += s3v[k];
        }
        for (; j < d; j++) {  /* the row's last values, fewer than two vectors */
            WT v = (WT)x[j];
            q += v * v;
            s0 += w0[j] * v;
            s1 += w1[j] * v;
            s2 += w2[j] * v;
            s3 += w3[j] * v;
        }
        scores[r] = (double)s0 * scale[r];
        scores[r + 1] = (double)s1 * scale[r + 1];
        scores[r + 2] = (double)s2 * scale[r + 2];
        scores[r + 3] = (double)s3 * scale[r + 3];
        r += SCORE_BLOCK;
    }
    return (double)q;
#else
    ptrdiff_t r = 0;
    while (r < m) {
        if (r > m - SCORE_BLOCK) r = m - SCORE_BLOCK;
        const WT *w0 = W + r * ld, *w1 = w0 + ld, *w2 = w1 + ld, *w3 = w2 + ld;
        WT s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        q = 0;
        #pragma omp simd reduction(+:q,s0,s1,s2,s3)
        for (ptrdiff_t j = 0; j < d; j++) {
            WT v = (WT)x[j];
            q += v * v;
            s0 += w0[j] * v;
            s1 += w1[j] * v;
            s2 += w2[j] * v;
            s3 += w3[j] * v;
        }
        scores[r] = (double)s0 * scale[r];
        scores[r + 1] = (double)s1 * scale[r + 1];
        scores[r + 2] = (double)s2 * scale[r + 2];
        scores[r + 3] = (double)s3 * scale[r + 3];
        r += SCORE_BLOCK;
    }
    return (double)q;
#endif
}

/* w += step * x over a whole dense row; returns the new sum of squares of w (in WT). */
SWEEP_ATTRIBUTES static double NAME(add_dense_)(const XT *x, WT *w, ptrdiff_t d, double step) {
    WT a = (WT)step, size = 0;
    #pragma omp simd reduction(+:size)
    for (ptrdiff_t j = 0; j < d; j++) {
        WT updated = w[j] + a * (WT)x[j];
        w[j] = updated;
        size += updated * updated;
    }
    return (double)size;
}

/* w += step * x, no sum. */
SWEEP_ATTRIBUTES static void NAME(add_dense_untracked_)(const XT *x, WT *w, ptrdiff_t d,
                                                         double step) {
    WT a = (WT)step;
    #pragma omp simd
    for (ptrdiff_t j = 0; j < d; j++) w[j] += a * (WT)x[j];
}

/* wr += step_r * x and ws += step_s * x in one sweep (x read once for both); the columns' new
 * sums of squares in sizes[0], sizes[1]. */
SWEEP_ATTRIBUTES static void NAME(add_dense_pair_)(const XT *x, WT *restrict wr, double step_r,
                                                    WT *restrict ws, double step_s, ptrdiff_t d,
                                                    double *sizes) {
    WT a = (WT)step_r, b = (WT)step_s, size_r = 0, size_s = 0;
    #pragma omp simd reduction(+:size_r,size_s)
    for (ptrdiff_t j = 0; j < d; j++) {
        WT v = (WT)x[j];
        WT new_r = wr[j] + a * v;
        wr[j] = new_r;
        size_r += new_r * new_r;
        WT new_s = ws[j] + b * v;
        ws[j] = new_s;
        size_s += new_s * new_s;
    }
    sizes[0] = (double)size_r;
    sizes[1] = (double)size_s;
}

SWEEP_ATTRIBUTES static void NAME(add_dense_pair_untracked_)(const XT *x, WT *restrict wr,
                                                              double step_r, WT *restrict ws,
                                                              double step_s, ptrdiff_t d) {
    WT a = (WT)step_r, b = (WT)step_s;
    #pragma omp simd
    for (ptrdiff_t j = 0; j < d; j++) {
        WT v = (WT)x[j];
        wr[j] += a * v;
        ws[j] += b * v;
    }
}


/* Raw scores W_r . x of a row of non-zeros against feature-major weights (feature j's outputs
 * contiguous at W + idx*ld) into out[0..m), and ||x||^2: every out[r] summed over the row's
 * non-zeros in order, each product rounded alone (no reassociation, no contraction: the
 * vector lanes are the outputs), so the result is the same bit for bit whatever the instruction
 * set.  Values equal to 0 are skipped.
 *
 * The sums stay in registers over the whole row (summed in out[] itself, each non-zero waited
 * on the store of the one before: a dense pass of simproj spent half its scoring there): the
 * outputs go in groups of up to four vectors, the last vector of the last group starting at
 * m - LANES (it sums again some outputs of the vector before it, by the same operations: the
 * same bits), and fewer outputs than a vector in scalars.  A group of
 * outputs reads the row again (more than 4 * LANES outputs: 16 on AVX2, 32 on AVX-512). */
/* (the scalar cases an instruction set can reach: fewer outputs than its vector) */
#if VBYTES >= 32
#define SCALARS_AVX2(F, M) case M: return F(idx, vals, nnz, W, ld, M, out);
#else
#define SCALARS_AVX2(F, M)
#endif
#if VBYTES >= 64
#define SCALARS_AVX512(F, M) case M: return F(idx, vals, nnz, W, ld, M, out);
#else
#define SCALARS_AVX512(F, M)
#endif
#ifndef SPARSE_AHEAD
#define SPARSE_AHEAD 8
#endif
#define SPARSE_SCORE(IT, ISFX)                                                                \
static inline __attribute__((always_inline)) double NAME(CAT(sparse_group_, ISFX))(           \
        const IT *idx, const XT *vals, ptrdiff_t nnz, const WT *W, ptrdiff_t ld,              \
        const ptrdiff_t *off, const int nv, double *out) {                                    \
    enum { LANES = VBYTES / sizeof(double) };                                                 \
    typedef double dvec __attribute__((vector_size(VBYTES)));                                 \
    typedef WT wvec __attribute__((vector_size(LANES * sizeof(WT))));                         \
    dvec a[4] = {{0}};                                                                        \
    double q = 0.0;                                                                           \
    /* (the weights of the non-zeros SPARSE_AHEAD on asked for, where the row's features     \
     * reach farther apart than a cache holds: each read would be a miss the sum waits on) */ \
    const int far = nnz > 0 && onlinear_far_apart((double)idx[0], (double)idx[nnz - 1],       \
                                                  (double)ld * (double)sizeof(WT));           \
    for (ptrdiff_t p = 0; p < nnz; p++) {                                                     \
        double v = (double)vals[p];                                                           \
        if (far && p + SPARSE_AHEAD < nnz)                                                    \
            onlinear_prefetch(W + (ptrdiff_t)idx[p + SPARSE_AHEAD] * ld + off[0],             \
                              nv * LANES * (ptrdiff_t)sizeof(WT));                            \
        if (v != 0.0) {                                                                       \
            const WT *w = W + (ptrdiff_t)idx[p] * ld;                                         \
            q += v * v;                                                                       \
            for (int k = 0; k < nv; k++) {                                                    \
                wvec wk;                                                                      \
                memcpy(&wk, w + off[k], sizeof wk);                                           \
                a[k] += __builtin_convertvector(wk, dvec) * v;                                \
            }                                                                                 \
        }                                                                                     \
    }                                                                                         \
    for (int k = 0; k < nv; k++) memcpy(out + off[k], &a[k], sizeof a[k]);                    \
    return q;                                                                                 \
}                                                                                             \
static inline __attribute__((always_inline)) double NAME(CAT(sparse_scalars_, ISFX))(         \
        const IT *idx, const XT *vals, ptrdiff_t nnz, const WT *W, ptrdiff_t ld,              \
        const int m, double *out) {                                                           \
    double s[7] = {0.0}, q = 0.0;                                                             \
    for (ptrdiff_t p = 0; p < nnz; p++) {                                                     \
        double v = (double)vals[p];                                                           \
        if (v != 0.0) {                                                                       \
            const WT *w = W + (ptrdiff_t)idx[p] * ld;                                         \
            q += v * v;                                                                       \
            for (int r = 0; r < m; r++) s[r] += (double)w[r] * v;                             \
        }                                                                                     \
    }                                                                                         \
    for (int r = 0; r < m; r++) out[r] = s[r];                                                \
    return q;                                                                                 \
}                                                                                             \
SPARSE_ATTRIBUTES static double NAME(CAT(score_sparse_, ISFX))(                               \
        const IT *idx, const XT *vals, ptrdiff_t nnz, const WT *W, ptrdiff_t ld, ptrdiff_t m, \
        double *out) {                                                                        \
    enum { LANES = VBYTES / sizeof(double) };                                                 \
    double q = 0.0;                                                                           \
    if (m >= LANES) {                                                                         \
        for (ptrdiff_t g = 0; g < m; g += 4 * LANES) {                                        \
            ptrdiff_t off[4];                                                                 \
            int nv = 0;                                                                       \
            for (; nv < 4 && g + nv * LANES < m; nv++)                                        \
                off[nv] = g + nv * LANES < m - LANES ? g + nv * LANES : m - LANES;            \
            double group_q;                                                                   \
            switch (nv) {                                                                     \
            case 1: group_q = NAME(CAT(sparse_group_, ISFX))(idx, vals, nnz, W, ld, off, 1, out); break; \
            case 2: group_q = NAME(CAT(sparse_group_, ISFX))(idx, vals, nnz, W, ld, off, 2, out); break; \
            case 3: group_q = NAME(CAT(sparse_group_, ISFX))(idx, vals, nnz, W, ld, off, 3, out); break; \
            default: group_q = NAME(CAT(sparse_group_, ISFX))(idx, vals, nnz, W, ld, off, 4, out); \
            }                                                                                 \
            if (g == 0) q = group_q;                                                          \
        }                                                                                     \
        return q;                                                                             \
    }                                                                                         \
    switch (m) { /* (fewer outputs than a vector: the cases of this instruction set only) */  \
    case 0: return NAME(CAT(sparse_scalars_, ISFX))(idx, vals, nnz, W, ld, 0, out);           \
    case 1: return NAME(CAT(sparse_scalars_, ISFX))(idx, vals, nnz, W, ld, 1, out);           \
    SCALARS_AVX2(NAME(CAT(sparse_scalars_, ISFX)), 2)                                         \
    SCALARS_AVX2(NAME(CAT(sparse_scalars_, ISFX)), 3)                                         \
    SCALARS_AVX512(NAME(CAT(sparse_scalars_, ISFX)), 4)                                       \
    SCALARS_AVX512(NAME(CAT(sparse_scalars_, ISFX)), 5)                                       \
    SCALARS_AVX512(NAME(CAT(sparse_scalars_, ISFX)), 6)                                       \
    SCALARS_AVX512(NAME(CAT(sparse_scalars_, ISFX)), 7)                                       \
    }                                                                                         \
    return 0.0; /* (not reached: m < LANES) */                                                \
}
SPARSE_SCORE(int32_t, i32_)
SPARSE_SCORE(int64_t, i64_)
#undef SPARSE_SCORE
#undef SCALARS_AVX2
#undef SCALARS_AVX512

/* W[idx[p], r] += tau[r] * vals[p] for every non-zero of the row and every output r < m, on
 * feature-major weights (feature j's outputs contiguous at W + idx*ld): each value rounded
 * alone, as the scalar loop would (no contraction), the outputs in vector lanes, the last
 * ones (fewer than a vector) in half a vector and one at a time.  Values equal to 0 are
 * skipped. */
/* w[r .. r + lanes of DV) += tau[...] * v, in DV's lanes (WV: the weights' vector of as many) */
#define OUTER_STEP(DV, WV) {                                                                  \
    DV t;                                                                                     \
    WV wr;                                                                                    \
    memcpy(&t, tau + r, sizeof t);                                                            \
    memcpy(&wr, w + r, sizeof wr);                                                            \
    wr = __builtin_convertvector(__builtin_convertvector(wr, DV) + t * v, WV);                \
    memcpy(w + r, &wr, sizeof wr);                                                            \
}
#define SPARSE_OUTER(IT, ISFX)                                                                \
SPARSE_ATTRIBUTES static void NAME(CAT(add_outer_, ISFX))(                                    \
        const IT *idx, const XT *vals, ptrdiff_t nnz, WT *W, ptrdiff_t ld, ptrdiff_t m,       \
        const double *tau) {                                                                  \
    enum { LANES = VBYTES / sizeof(double) };                                                 \
    typedef double dvec __attribute__((vector_size(VBYTES)));                                 \
    typedef WT wvec __attribute__((vector_size(LANES * sizeof(WT))));                         \
    ptrdiff_t full = m - m % LANES;                                                           \
    for (ptrdiff_t p = 0; p < nnz; p++) {                                                     \
        double v = (double)vals[p];                                                           \
        if (v != 0.0) {                                                                       \
            WT *w = W + (ptrdiff_t)idx[p] * ld;                                               \
            ptrdiff_t r = 0;                                                                  \
            for (; r < full; r += LANES) OUTER_STEP(dvec, wvec)                               \
            if (LANES >= 4 && m - r >= LANES / 2) { /* (half a vector: AVX2's last two) */    \
                typedef double hvec __attribute__((vector_size(VBYTES / 2)));                 \
                typedef WT hwvec __attribute__((vector_size(LANES / 2 * sizeof(WT))));        \
                OUTER_STEP(hvec, hwvec)                                                       \
                r += LANES / 2;                                                               \
            }                                                                                 \
            for (; r < m; r++) w[r] = (WT)((double)w[r] + tau[r] * v);                        \
        }                                                                                     \
    }                                                                                         \
}
SPARSE_OUTER(int32_t, i32_)
SPARSE_OUTER(int64_t, i64_)
#undef SPARSE_OUTER
#undef OUTER_STEP

/* The non-zeros of a dense row (NaN included: != 0) gathered into idx[0..k), vals[0..k),
 * in order; returns k.  idx and vals need room for n + 8 values (a block is stored whole, and
 * the next one overwrites what lies past its non-zeros).  With AVX-512, sixteen floats or eight
 * doubles a block: a comparison's mask compresses them (below); with AVX2, eight floats or four
 * doubles a block: a comparison, its mask, and a permutation from a table
 * (onlinear_compress_lut); else one value a step, branch-free. */
static ptrdiff_t NAME(nonzeros_)(const XT *x, ptrdiff_t n, int64_t *idx, XT *vals) {
    ptrdiff_t k = 0, j = 0;
#if VBYTES >= 64
    /* AVX-512: the non-zeros' mask compresses the values and their positions in registers,
     * written by plain stores (a compress straight to memory is microcoded, and slow, on some
     * CPUs: AMD's Zen 4); each store may write past the last non-zero, within the n + 8
     * values' room: k <= j and j + 16 <= n */
    if (sizeof(XT) == 4) {
        const __m512 zero = _mm512_setzero_ps();
        const __m512i low = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
        const __m512i high = _mm512_set_epi64(15, 14, 13, 12, 11, 10, 9, 8);
        for (; j + 16 <= n; j += 16) {
            const __m512 v = _mm512_loadu_ps((const float *)(x + j));
            const __mmask16 mask = _mm512_cmp_ps_mask(v, zero, _CMP_NEQ_UQ);
            const __mmask8 first = (__mmask8)mask, second = (__mmask8)(mask >> 8);
            const __m512i at = _mm512_set1_epi64((long long)j);
            _mm512_storeu_ps((float *)(vals + k), _mm512_maskz_compress_ps(mask, v));
            _mm512_storeu_si512((void *)(idx + k),
                                _mm512_maskz_compress_epi64(first, _mm512_add_epi64(low, at)));
            k += __builtin_popcount(first);
            _mm512_storeu_si512((void *)(idx + k),
                                _mm512_maskz_compress_epi64(second, _mm512_add_epi64(high, at)));
            k += __builtin_popcount(second);
        }
    } else {
        const __m512d zero = _mm512_setzero_pd();
        const __m512i low = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
        for (; j + 8 <= n; j += 8) {
            const __m512d v = _mm512_loadu_pd((const double *)(x + j));
            const __mmask8 mask = _mm512_cmp_pd_mask(v, zero, _CMP_NEQ_UQ);
            _mm512_storeu_pd((double *)(vals + k), _mm512_maskz_compress_pd(mask, v));
            _mm512_storeu_si512((void *)(idx + k), _mm512_maskz_compress_epi64(
                mask, _mm512_add_epi64(low, _mm512_set1_epi64((long long)j))));
            k += __builtin_popcount(mask);
        }
    }
#elif VBYTES >= 32
    if (n <= INT32_MAX - 8) {
        if (sizeof(XT) == 4) {
            const __m256 zero = _mm256_setzero_ps();
            for (; j + 8 <= n; j += 8) {
                __m256 v = _mm256_loadu_ps((const float *)(x + j));
                int mask = _mm256_movemask_ps(_mm256_cmp_ps(v, zero, _CMP_NEQ_UQ));
                __m256i perm = _mm256_loadu_si256((const __m256i *)onlinear_compress_lut[mask]);
                _mm256_storeu_ps((float *)(vals + k), _mm256_permutevar8x32_ps(v, perm));
                __m256i at = _mm256_add_epi32(perm, _mm256_set1_epi32((int)j));
                _mm256_storeu_si256((__m256i *)(idx + k),
                                    _mm256_cvtepi32_epi64(_mm256_castsi256_si128(at)));
                _mm256_storeu_si256((__m256i *)(idx + k + 4),
                                    _mm256_cvtepi32_epi64(_mm256_extracti128_si256(at, 1)));
                k += __builtin_popcount(mask);
            }
        } else {
            const __m256d zero = _mm256_setzero_pd();
            for (; j + 4 <= n; j += 4) {
                __m256d v = _mm256_loadu_pd((const double *)(x + j));
                int mask = _mm256_movemask_pd(_mm256_cmp_pd(v, zero, _CMP_NEQ_UQ));
                /* the doubles' permutation: lane i of the mask's table entry is the i-th
                 * non-zero's position p; as pairs of floats, 2p and 2p + 1 */
                __m128i pos = _mm_loadu_si128((const __m128i *)onlinear_compress_lut[mask]);
                __m256i pairs = _mm256_cvtepu32_epi64(pos);
                pairs = _mm256_or_si256(_mm256_slli_epi64(pairs, 1),
                                        _mm256_slli_epi64(_mm256_add_epi64(
                                            _mm256_slli_epi64(pairs, 1), _mm256_set1_epi64x(1)), 32));
                _mm256_storeu_pd((double *)(vals + k), _mm256_castps_pd(
                    _mm256_permutevar8x32_ps(_mm256_castpd_ps(v), pairs)));
                _mm256_storeu_si256((__m256i *)(idx + k),
                                    _mm256_cvtepi32_epi64(_mm_add_epi32(pos, _mm_set1_epi32((int)j))));
                k += __builtin_popcount(mask);
            }
        }
    }
#endif
    for (; j < n; j++) {
        idx[k] = j;
        vals[k] = x[j];
        k += x[j] != 0;
    }
    return k;
}

#undef NAME
#undef CAT
#undef CAT2
