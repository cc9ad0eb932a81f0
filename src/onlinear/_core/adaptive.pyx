# cython: language_level=3
"""The compiled online loops of the adaptive first-order learners: diagonal AdaGrad in its
composite mirror-descent form and in its primal-dual (regularized dual averaging, RDA) form
(Duchi, Hazan & Singer, "Adaptive Subgradient Methods for Online Learning and Stochastic
Optimization", JMLR 12:2121–2159, 2011, Algorithm 1 with diagonal matrices) and per-coordinate FTRL-Proximal (McMahan et al., "Ad Click Prediction: a View from
the Trenches", KDD 2013, Algorithm 1), with the multiclass max-score hinge loss or the
multinomial logistic loss.

State (float64, C-contiguous, feature-major: shape (d, K); K = 1 is the binary learner, whose
label index 1 is the class +1):

* AdaGrad: the weights ``W``, the sums of squared subgradients ``G``, and ``last`` (int64,
  (d,)), the number of rounds whose regularisation feature j's weights have had, with
  ``clock`` (int64, (1,)), the rounds seen;
* FTRL: ``Z`` and ``N`` (the paper's z and n per (feature, class)) and ``W``, the weights they
  define, recomputed whenever (z, n) change (they change nothing else, so a round's scores are
  a plain dot product; identical to Algorithm 1's recomputation at prediction time);
* AdaGrad-RDA: the gradient sums ``U`` (u = Σ_τ g_τ), the sums of squared subgradients ``G``
  and ``clock`` (int64, (1,)): t, the rounds seen.  Its weights are closed functions of
  (u, G, t) — w = −η·sign(u)·[|u| − λ1·t]₊/(δ + √G + ηλ2·t), 0 where that scale is 0 — computed
  for a row's non-zeros when it is scored and never stored (every weight moves with t), so a
  CSR round stays O(K·nnz) and an absent feature needs no catch-up; without a regulariser they
  move only where a gradient steps, and a long pass keeps them beside (u, G).

A round: scores s = xᵀW; prediction argmax_k s_k (lowest index on ties; binary: +1 on s > 0, the
library's convention: a zero score predicts the first class, where LIBOL and SOL predict +1);
the loss's subgradient rows g_k = γ_k·x —

* ``"hinge"``: ℓ = max(0, 1 − s_y + s_{s*}), s* = argmax_{k≠y} s_k: γ_y = −1, γ_{s*} = +1 when
  ℓ > 0 (binary: max(0, 1 − ys), γ = −y);
* ``"log"``: ℓ = −log softmax(s)_y: γ_k = p_k − [k = y] with p = softmax(s) computed after
  subtracting max_k s_k (binary: log(1 + e^{−ys}), γ = −y·σ(−ys));

then, per non-zero j and class k (O(K·nnz)):

* AdaGrad: G += g², H = δ + √G (the current g included), and the argmin of
  ηg·w + η(λ1|w| + λ2 w²/2) + ½H(w − w_t)², sign(Hw_t − ηg)·[|Hw_t − ηg| − ηλ1]₊/(H + ηλ2)
  (w_t − ηg/H without regularisation); H = 0 (δ = 0, never touched) takes no step;
* AdaGrad-RDA: u += g, G += g² (t += 1 every round, those with no gradient included);
* FTRL: σ = (√(n + g²) − √n)/α, z += g − σw, n += g², and w = 0 if |z| ≤ λ1, else
  −((β + √n)/α + λ2)⁻¹(z − sign(z)λ1) (exactly 0: an ℓ1 model is truly sparse), computed as
  −α(z − sign(z)λ1)/(β + αλ2 + √n) with σ = (√(n + g²) − √n)·(1/α): one division and one root
  a step (a pass over rows that reach about every feature keeps √n beside n).

The regulariser of AdaGrad acts on every coordinate every round; a feature absent from a row
gets the step with g = 0, a soft-threshold by ηλ1/H and a factor H/(H + ηλ2) (H constant while
g = 0), which compose in closed form: k such steps are |w| → max(0, q^k(|w| + A) − A) with
q = H/(H + ηλ2), A = (ηλ1/H)·q/(1 − q) (|w| − kηλ1/H without λ2, |w|·q^k without λ1).  Each
feature's weights are brought up to date when it appears in a row (O(K) per non-zero) and by
:func:`adagrad_catch_up` for all features (before the weights are read), so a CSR round stays
O(K·nnz).  (A pass over rows that reach about every feature keeps √G beside G when the
state fits in L2, ``ROOTS_IN_CACHE``: the deferred steps read the root their feature's last
step took.)  FTRL needs none: its weights are functions of (z, n) only.

Averaging (``average=True``): given the sums ``avg_acc`` ((d, K)) and ``avg_rounds`` ((1,)),
a pass or round of FTRL or AdaGrad keeps the averaged weights — the mean of W after every
round — by :func:`onlinear._core.row_pass.averaged_round` around the same rounds: their
weights move on a round's non-zeros (FTRL's are functions of the (z, n) a round touches), so a
CSR round stays O(K·nnz).  A regularised AdaGrad's weights also move where a round does not
reach, by the deferred steps above: when a row reaches feature j again after k rounds, the
sums take Σ_{i=1}^k w_i − k·w_0 of the path |w_i| = max(0, q^i(|w_0| + A) − A) (A = λ1/λ2;
|w_0| − i·a without λ2) in closed form (:func:`_deferred_path_sum`, ``row_pass``'s
``deferred``), and :func:`adagrad_catch_up` does the same for every feature, with the jump
R·(w_k − w_0) a round records, before the weights are read.
AdaGrad-RDA's weights are not stored, and with a regulariser every weight moves every round,
so its average is kept otherwise: per feature j, ``avg_sums`` holds Σ_{τ ≤ L_j} w_τ (each class)
and ``avg_last`` the round L_j it reaches.  A round that steps on feature j first brings its sums
through the round before under the (u, G) it had, which stayed put since L_j — the weights
w(u, G, τ) = −η·sign(u)·[|u| − λ1τ]₊/(δ + √G + ηλ2τ) summed over τ = L_j + 1 … r − 1 in closed
form (:func:`_rda_path_sum`: term by term over at most 64 rounds; beyond, an arithmetic series
without λ2, else ((s + λ1D/c)·(ψ(D/c + b + 1) − ψ(D/c + a)) − λ1·n)/c with s = |u|, D = δ + √G,
c = ηλ2, n the rounds, the digamma difference by its asymptotic series) — then adds round r's
own weights after the step: O(K·nnz) a round.  :func:`rda_average` closes every feature's
sums through the rounds seen, t, and divides by t (O(d·K), when the weights are read).

A zero row predicts and is counted but has no gradient.  A score or a ‖x‖² that is not finite
(NaN or infinite values, or values beyond ~1e154) stops the pass with a ValueError naming the
row, before that round changed anything.  The update counted
is a round with a non-zero gradient.  Paper equation numbers are not cited: AdaGrad's update
numbers and its regret theorem were not checked against the paper's text (UNCHECKED).
"""
import numpy as np
from scipy.special import expit, softmax

from libc.math cimport copysign, exp, expm1, fabs, floor, isfinite, log, log1p, pow, sqrt
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc

from ._sweeps cimport onlinear_simd_init
from .row_pass cimport (Averaging, RowRound, averaged_round, check_pass, check_state,
                       feature_major_scores, play_row_of, reaches_every_feature, run_rows_of,
                       start_averaging, stop_averaging)

cdef extern from "adaptive_simd.h" nogil:
    ctypedef struct adaptive_steps:
        void (*adagrad_plain)(const int64_t *, const double *, Py_ssize_t, double *, double *,
                              const double *, Py_ssize_t, double, double) noexcept nogil
        void (*adagrad_regularised)(const int64_t *, const double *, Py_ssize_t, double *,
                                    double *, double *, const double *, Py_ssize_t, double,
                                    double, double, double) noexcept nogil
        void (*ftrl)(const int64_t *, const double *, Py_ssize_t, double *, double *, double *,
                     double *, const double *, Py_ssize_t, double, double, double,
                     double) noexcept nogil
        void (*adagrad_catch_up_l1)(const int64_t *, Py_ssize_t, double *, const double *,
                                    const double *, int64_t *, int64_t, Py_ssize_t, double,
                                    double, double) noexcept nogil
        void (*adagrad_classes)(const int64_t *, const double *, Py_ssize_t, double *,
                                double *, const double *, const Py_ssize_t *, Py_ssize_t,
                                Py_ssize_t, double, double) noexcept nogil
        void (*ftrl_classes)(const int64_t *, const double *, Py_ssize_t, double *, double *,
                             double *, double *, const double *, const Py_ssize_t *,
                             Py_ssize_t, Py_ssize_t, double, double, double,
                             double) noexcept nogil
        void (*rda_scores)(const int64_t *, const double *, Py_ssize_t, const double *,
                           const double *, Py_ssize_t, double, double, double, double,
                           double *) noexcept nogil
        void (*rda_weights)(const double *, const double *, Py_ssize_t, double, double,
                            double *) noexcept nogil
        void (*rda_step)(const int64_t *, const double *, Py_ssize_t, double *, double *,
                         double *, const double *, const Py_ssize_t *, Py_ssize_t, Py_ssize_t,
                         double, double) noexcept nogil
    adaptive_steps onlinear_adaptive_steps
    void onlinear_adaptive_init()

cdef enum:
    HINGE = 0
    LOG = 1
    ADAGRAD = 0
    FTRL = 1
    RDA = 2

onlinear_simd_init()  # (the scores: simd.h's score_sparse, through row_pass.pxd)
onlinear_adaptive_init()  # (the steps of the losses that move every class: adaptive_simd.h)

#: the losses, by name
LOSSES = {"hinge": HINGE, "log": LOG}
#: the largest state (d·K values) a regularised AdaGrad's pass keeps √G beside: W, G and the
#: roots within an L2 cache (384 KiB).  Its deferred steps read the roots instead of G, so the
#: roots save only the root itself, while their writes add a third array to the step's memory
#: traffic: a news20-like CSR pass (60,000 × 20 state) ran about 1.5× slower with them, a
#: 784 × 10 dense pass 1.2× faster (benchmarks/README.md)
cdef Py_ssize_t ROOTS_IN_CACHE = 16384


cdef struct Model:
    int method
    int loss
    Py_ssize_t d
    Py_ssize_t K
    double eta
    double delta
    double alpha
    double beta
    double l1
    double l2
    double weight   # the round's example weight: its gradient is weight·γ·x
    bint regularised
    double *W       # (RDA: the weights an unregularised pass keeps, else NULL: computed where
                    # they are read)
    double *G       # AdaGrad, RDA: Σg²; FTRL: n
    double *Z       # FTRL: z; RDA: u = Σg
    int64_t *last   # AdaGrad: rounds of regularisation each feature has had
    int64_t *clock  # AdaGrad, RDA: rounds seen
    double *scores
    double *gamma
    double *roots   # in a long pass, FTRL's √n kept beside n, a regularised AdaGrad's √G beside
                    # G (NULL: computed where read)
    double *avg_sums     # RDA with average: Σ_{τ ≤ avg_last[j]} w_τ per (feature, class)
    int64_t *avg_last    # RDA with average: the round feature j's sums reach (NULL: none)


# ----------------------------------------------------------------------------- the round
cdef inline double _prox_rounds(double w, double H, int64_t k, const Model *M) noexcept nogil:
    """w after k AdaGrad steps with g = 0 and a constant H (the module doc's closed form)."""
    cdef double size = fabs(w), a, q, A
    if k <= 0 or H <= 0.0 or w == 0.0:
        return w
    a = M.eta * M.l1 / H
    if M.l2 == 0.0:
        size = size - k * a
    else:
        q = H / (H + M.eta * M.l2)
        if M.l1 == 0.0:
            size = size * pow(q, <double>k)
        else:
            A = a * q / (1.0 - q)
            size = pow(q, <double>k) * (size + A) - A
    if size <= 0.0:
        return 0.0
    return size if w > 0.0 else -size


cdef inline void _catch_up(Model *M, Py_ssize_t j) noexcept nogil:
    cdef Py_ssize_t k, at = j * M.K
    cdef int64_t behind = M.clock[0] - M.last[j]
    cdef int64_t feature = j
    cdef double *W = M.W + at
    cdef const double *G = M.G + at
    if M.l2 == 0.0:  # ℓ1 alone: a soft-threshold by behind·ηλ1/H (adaptive_simd_body.h)
        onlinear_adaptive_steps.adagrad_catch_up_l1(&feature, 1, M.W, M.G, M.roots, M.last,
                                                    M.clock[0], M.K, M.eta, M.delta, M.l1)
        return
    if behind > 0:
        for k in range(M.K):
            W[k] = _prox_rounds(W[k], M.delta + (M.roots[at + k] if M.roots != NULL
                                                 else sqrt(G[k])), behind, M)
    M.last[j] = M.clock[0]


cdef inline double _log1p_exp(double t) noexcept nogil:
    """log(1 + e^t) without overflow."""
    return t + log1p(exp(-t)) if t > 0.0 else log1p(exp(t))


cdef inline bint _gradient(Model *M, Py_ssize_t y, Py_ssize_t *predicted) noexcept nogil:
    """The prediction and the coefficients γ_k of the round's subgradient rows (module doc)
    from the scores; whether any is non-zero."""
    cdef Py_ssize_t K = M.K, k, support
    cdef double z, top, total = 0.0
    for k in range(K):
        M.gamma[k] = 0.0
    if K == 1:
        predicted[0] = 1 if M.scores[0] > 0.0 else 0
        z = 1.0 if y == 1 else -1.0
        if M.loss == HINGE:
            if 1.0 - z * M.scores[0] > 0.0:
                M.gamma[0] = -z
        else:
            M.gamma[0] = -z * exp(-_log1p_exp(z * M.scores[0]))
        return M.gamma[0] != 0.0
    predicted[0] = 0
    for k in range(1, K):
        if M.scores[k] > M.scores[predicted[0]]:
            predicted[0] = k
    if M.loss == HINGE:
        support = 1 if y == 0 else 0
        for k in range(K):
            if k != y and M.scores[k] > M.scores[support]:
                support = k
        if 1.0 - M.scores[y] + M.scores[support] > 0.0:
            M.gamma[y] = -1.0
            M.gamma[support] = 1.0
            return True
        return False
    top = M.scores[predicted[0]]
    for k in range(K):
        M.gamma[k] = exp(M.scores[k] - top)
        total += M.gamma[k]
    for k in range(K):
        M.gamma[k] = M.gamma[k] / total
    M.gamma[y] -= 1.0
    return True


cdef Py_ssize_t _round(void *model, const int64_t *idx, const double *vals, Py_ssize_t nnz,
                       Py_ssize_t y, bint *updated) noexcept nogil:
    cdef Model *M = <Model *>model
    cdef Py_ssize_t K = M.K, k, p, predicted, n_touched
    cdef double q = 0.0
    cdef Py_ssize_t touched[2]
    cdef bint all_classes
    if M.method == RDA:
        return _rda_round(M, idx, vals, nnz, y, updated)
    if M.method == ADAGRAD and M.regularised and M.l2 == 0.0:
        onlinear_adaptive_steps.adagrad_catch_up_l1(idx, nnz, M.W, M.G, M.roots, M.last,
                                                    M.clock[0], K, M.eta, M.delta, M.l1)
    elif M.method == ADAGRAD and M.regularised:
        for p in range(nnz):
            _catch_up(M, idx[p])
    q = feature_major_scores(M.W, K, idx, vals, nnz, M.scores)
    if not isfinite(q):  # (|γ_k| ≤ 1: every g² ≤ x², and ‖x‖² finite keeps G and n finite)
        return -1
    for k in range(K):
        if not isfinite(M.scores[k]):
            return -1
    updated[0] = _gradient(M, y, &predicted) and q > 0.0
    if M.weight != 1.0:  # (an example's weight scales its loss, so its gradient)
        for k in range(K):
            M.gamma[k] = M.gamma[k] * M.weight
        updated[0] = updated[0] and M.weight > 0.0
    # the classes whose gradient may be non-zero: two for the hinge loss (one binary), all for
    # the logistic loss and for a regularised AdaGrad, whose every coordinate of x steps
    n_touched = 0
    if M.loss == HINGE and updated[0]:
        for k in range(K):
            if M.gamma[k] != 0.0:
                touched[n_touched] = k
                n_touched += 1
    all_classes = M.loss == LOG or (M.method == ADAGRAD and M.regularised)
    if M.method == ADAGRAD:
        if all_classes and not M.regularised:
            if updated[0]:
                onlinear_adaptive_steps.adagrad_plain(idx, vals, nnz, M.W, M.G, M.gamma, K,
                                                      M.eta, M.delta)
        elif all_classes:  # (regularised: every round steps)
            onlinear_adaptive_steps.adagrad_regularised(idx, vals, nnz, M.W, M.G, M.roots,
                                                        M.gamma, K, M.eta, M.delta, M.l1, M.l2)
        elif updated[0]:
            onlinear_adaptive_steps.adagrad_classes(idx, vals, nnz, M.W, M.G, M.gamma, touched,
                                                    n_touched, K, M.eta, M.delta)
        if M.regularised:
            for p in range(nnz):
                M.last[idx[p]] = M.clock[0] + 1
        M.clock[0] += 1
    elif updated[0] and all_classes:
        onlinear_adaptive_steps.ftrl(idx, vals, nnz, M.W, M.Z, M.G, M.roots, M.gamma, K,
                                     M.alpha, M.beta, M.l1, M.l2)
    elif updated[0]:
        onlinear_adaptive_steps.ftrl_classes(idx, vals, nnz, M.W, M.Z, M.G, M.roots, M.gamma,
                                             touched, n_touched, K, M.alpha, M.beta, M.l1, M.l2)
    return predicted


cdef Py_ssize_t _rda_round(Model *M, const int64_t *idx, const double *vals, Py_ssize_t nnz,
                           Py_ssize_t y, bint *updated) noexcept nogil:
    """AdaGrad-RDA's round (module doc): the scores under the weights of (u, G) at t rounds,
    then u += g, G += g² on the classes whose γ_k is not 0 (the hinge loss's two) and t += 1."""
    cdef Py_ssize_t K = M.K, k, p, predicted, n_touched = 0
    cdef double t = <double>M.clock[0], q = 0.0
    cdef Py_ssize_t touched[2]
    if M.W != NULL:  # (an unregularised pass keeps the weights: the same values)
        q = feature_major_scores(M.W, K, idx, vals, nnz, M.scores)
    else:
        for p in range(nnz):
            q += vals[p] * vals[p]
        onlinear_adaptive_steps.rda_scores(idx, vals, nnz, M.Z, M.G, K, M.eta, M.delta,
                                           M.l1 * t, M.eta * M.l2 * t, M.scores)
    if not isfinite(q):  # (|γ_k| ≤ 1: every g² ≤ x², and ‖x‖² finite keeps u and G finite)
        return -1
    for k in range(K):
        if not isfinite(M.scores[k]):
            return -1
    _gradient(M, y, &predicted)
    updated[0] = False
    for k in range(K):
        if M.weight != 1.0:  # (an example's weight scales its loss, so its gradient)
            M.gamma[k] = M.gamma[k] * M.weight
        updated[0] = updated[0] or M.gamma[k] != 0.0
    updated[0] = updated[0] and nnz > 0
    M.clock[0] += 1
    if not updated[0]:
        return predicted
    if M.loss == HINGE:  # (two classes move, one binary)
        for k in range(K):
            if M.gamma[k] != 0.0:
                touched[n_touched] = k
                n_touched += 1
    if M.avg_sums != NULL:  # the row's features: their sums through the round before, as they were
        _rda_sums_through(M, idx, nnz, M.clock[0] - 1)
    onlinear_adaptive_steps.rda_step(idx, vals, nnz, M.Z, M.G, M.W, M.gamma,
                                     touched if M.loss == HINGE else NULL, n_touched, K, M.eta,
                                     M.delta)
    if M.avg_sums != NULL:  # ... and this round's weights, the step taken
        _rda_sums_through(M, idx, nnz, M.clock[0])
    return predicted


# ------------------------------------------------------------- AdaGrad-RDA's averaged weights
cdef inline double _rda_weight(double u, double G, double t, const Model *M) noexcept nogil:
    """The RDA weight of (u, G) at t rounds (module doc; ``rda_weight_`` of
    adaptive_simd_body.h, the same operations)."""
    cdef double scale = M.delta + sqrt(G) + M.eta * M.l2 * t
    cdef double size = fabs(u) - M.l1 * t
    if not (scale > 0.0) or not (size > 0.0):
        return 0.0
    return -(M.eta * copysign(size, u)) / scale


#: the spans summed term by term (short: exact to the rounding of each weight); a longer span
#: is summed in closed form
cdef double DIRECT_SPAN = 64.0


cdef inline double _harmonic_span(double x, double n) noexcept nogil:
    """Σ_{i=0}^{n−1} 1/(x + i) for x > 0 and a whole n ≥ 0: ψ(x + n) − ψ(x), the first terms
    summed until x ≥ 32, then the asymptotic series ψ(z) = ln z − 1/(2z) − 1/(12z²) +
    1/(120z⁴) − 1/(252z⁶) + O(z⁻⁸) on both ends, its logarithms as log1p(n/x) (the series'
    remainder at z ≥ 32: below 4e-15)."""
    cdef double total = 0.0, i = 0.0, a, b, a2, b2
    if n <= DIRECT_SPAN:
        while i < n:
            total += 1.0 / (x + i)
            i += 1.0
        return total
    while x < 32.0:
        total += 1.0 / x
        x += 1.0
        n -= 1.0
    a, b = 1.0 / x, 1.0 / (x + n)
    a2, b2 = a * a, b * b
    return total + (log1p(n / x) - 0.5 * (b - a) - (b2 - a2) / 12.0
                    + (b2 * b2 - a2 * a2) / 120.0 - (b2 * b2 * b2 - a2 * a2 * a2) / 252.0)


cdef double _rda_path_sum(double u, double G, double first, double last,
                          const Model *M) noexcept nogil:
    """Σ_{τ=first}^{last} w(u, G, τ): the weights a coordinate whose (u, G) stay put takes over
    the rounds first … last (module doc).  With s = |u|, D = δ + √G, c = ηλ2, the terms are
    −η·sign(u)·(s − λ1τ)/(D + cτ) while s − λ1τ > 0, then 0; a span of at most
    :data:`DIRECT_SPAN` is summed term by term, a longer one in closed form: Σ(s − λ1τ)/D
    (λ2 = 0), else ((s + λ1D/c)·Σ 1/(D/c + τ) − λ1·n)/c with the harmonic span of
    :func:`_harmonic_span` (relative error about ε·(s + λ1D/c)·Σ 1/(D/c + τ) over the sum
    itself)."""
    cdef double s = fabs(u), D, c, n, x0, total = 0.0, tau, bound
    if last < first or s == 0.0:
        return 0.0
    if M.l1 > 0.0 and s / M.l1 <= last + 1.0:  # the rounds whose s − λ1τ stays positive
        bound = floor(s / M.l1)
        while bound >= first and not (s - M.l1 * bound > 0.0):
            bound -= 1.0
        while bound + 1.0 <= last and s - M.l1 * (bound + 1.0) > 0.0:
            bound += 1.0
        last = min(last, bound)
        if last < first:
            return 0.0
    n = last - first + 1.0
    if n <= DIRECT_SPAN:
        tau = first
        while tau <= last:
            total += _rda_weight(u, G, tau, M)
            tau += 1.0
        return total
    D = M.delta + sqrt(G)
    c = M.eta * M.l2
    if c * last < 1e-17 * D:  # (ηλ2τ below D's rounding on every round: λ2's term is 0, and
        c = 0.0               # D/c may overflow)
    if c == 0.0:
        if not (D > 0.0):
            return 0.0
        total = n * (s - M.l1 * (0.5 * (first + last))) / D
    else:
        x0 = D / c
        total = ((s + M.l1 * x0) * _harmonic_span(x0 + first, n) - M.l1 * n) / c
    return -M.eta * copysign(total, u)


cdef void _rda_sums_through(Model *M, const int64_t *idx, Py_ssize_t nnz,
                            int64_t round_) noexcept nogil:
    """The averaging sums of the row's features brought through round ``round_`` under
    their (u, G) as they are now."""
    cdef Py_ssize_t p, k, at
    cdef int64_t j
    for p in range(nnz):
        j = idx[p]
        if M.avg_last[j] >= round_:
            continue
        at = j * M.K
        for k in range(M.K):
            M.avg_sums[at + k] += _rda_path_sum(M.Z[at + k], M.G[at + k],
                                                <double>(M.avg_last[j] + 1), <double>round_, M)
        M.avg_last[j] = round_


# --------------------------------------------------------------------------- entry points
def adagrad_state(Py_ssize_t n_features, Py_ssize_t n_outputs):
    """``(W, G, last, clock)`` of a new AdaGrad learner (all zero; ``n_outputs`` = 1 binary)."""
    return (np.zeros((n_features, n_outputs)), np.zeros((n_features, n_outputs)),
            np.zeros(n_features, np.int64), np.zeros(1, np.int64))


def ftrl_state(Py_ssize_t n_features, Py_ssize_t n_outputs):
    """``(W, Z, N)`` of a new FTRL-Proximal learner (all zero; ``n_outputs`` = 1 binary)."""
    return tuple(np.zeros((n_features, n_outputs)) for _ in range(3))


def _check_number(name, value, low, strict):
    if not (np.isfinite(value) and (value > low if strict else value >= low)):
        raise ValueError(f"{name} must be {'>' if strict else '≥'} {low} and finite, "
                         f"got {value!r}")


cdef int _fill(Model *M, int method, str loss, W, G, Z, last, clock, double eta, double delta,
               double alpha, double beta, double l1, double l2) except -1:
    """Check the state and the hyperparameters and point ``M`` at the arrays (RDA: no ``W``,
    its sums u as ``Z``)."""
    cdef double[:, ::1] W_v, G_v, Z_v
    cdef int64_t[::1] last_v, clock_v
    if loss not in LOSSES:
        raise ValueError(f"unknown loss {loss!r}; expected one of {sorted(LOSSES)}")
    first, first_name = (Z, "U") if method == RDA else (W, "W")
    if not isinstance(first, np.ndarray) or first.ndim != 2 or first.shape[1] < 1:
        raise ValueError(f"{first_name} must be a float64 array of shape "
                         "(n_features, n_outputs)")
    shape = first.shape
    check_state(first_name, first, shape)
    check_state("N" if method == FTRL else "G", G, shape)
    for name, value in (("l1", l1), ("l2", l2)):
        _check_number(name, value, 0.0, False)
    M.W = M.Z = NULL
    M.last = M.clock = NULL
    if method == FTRL:
        _check_number("alpha", alpha, 0.0, True)
        _check_number("beta", beta, 0.0, False)
        check_state("Z", Z, shape)
    else:
        _check_number("eta", eta, 0.0, True)
        _check_number("delta", delta, 0.0, False)
        check_state("clock", clock, (1,), np.int64)
        clock_v = clock
        M.clock = &clock_v[0]
    if method == ADAGRAD:
        check_state("last", last, (shape[0],), np.int64)
        last_v = last
        M.last = &last_v[0] if shape[0] else NULL
    if method != ADAGRAD:
        Z_v = Z
        M.Z = &Z_v[0, 0] if shape[0] else NULL
    if method != RDA:
        W_v = W
        M.W = &W_v[0, 0] if shape[0] else NULL
    G_v = G
    M.method, M.loss = method, LOSSES[loss]
    M.d, M.K = shape[0], shape[1]
    M.eta, M.delta, M.alpha, M.beta, M.l1, M.l2 = eta, delta, alpha, beta, l1, l2
    M.regularised = l1 > 0.0 or l2 > 0.0
    M.weight = 1.0
    M.roots = NULL
    M.avg_sums = NULL
    M.avg_last = NULL
    M.G = &G_v[0, 0] if shape[0] else NULL
    return 0


cdef int _rda_averaging(Model *M, avg_sums, avg_last) except -1:
    """Point ``M`` (AdaGrad-RDA) at its averaging sums, checked (None: it does not average)."""
    cdef double[:, ::1] sums_v
    cdef int64_t[::1] last_v
    if avg_sums is None and avg_last is None:
        return 0
    check_state("avg_sums", avg_sums, (M.d, M.K))
    check_state("avg_last", avg_last, (M.d,), np.int64)
    last_v = avg_last  # (its rounds within [0, clock]: the model's check, once, not a call's)
    sums_v = avg_sums
    M.avg_sums = &sums_v[0, 0] if M.d else NULL
    M.avg_last = &last_v[0] if M.d else NULL
    return 0


def _weight_of(double weight):
    _check_number("weight", weight, 0.0, False)
    return weight


def _not_finite(where):
    return ValueError(f"{where}: a score is not finite (NaN or infinite values, or a row too "
                      "large: rescale the input)")


cdef inline double _deferred_path_sum(double w, double H, int64_t k, const Model *M) noexcept nogil:
    """Σ_{i=1}^k w_i over the path of k AdaGrad steps with g = 0 and a constant H from w_0 = w
    (:func:`_prox_rounds`' closed form, step by step): |w_i| = |w| − i·a (λ2 = 0),
    |w|·q^i (λ1 = 0), q^i(|w| + A) − A with A = λ1/λ2, each while positive (then 0)."""
    cdef double size = fabs(w), a, r, log_q, total, m
    if k <= 0 or not (H > 0.0) or w == 0.0:
        return k * w
    if M.l2 == 0.0:
        a = M.eta * M.l1 / H
        m = min(<double>k, size / a)  # the steps that leave |w| − i·a > 0
        m = <double>(<int64_t>m)
        if m > 0.0 and size - m * a <= 0.0:
            m -= 1.0
        total = m * size - a * m * (m + 1.0) * 0.5
    else:
        r = M.eta * M.l2 / (H + M.eta * M.l2)  # 1 − q, without the cancellation of 1 − q
        log_q = log1p(-r)
        if M.l1 == 0.0:
            m = <double>k
            total = size
        else:
            total = size + M.l1 / M.l2
            # q^i·total > A while i < log(A/total)/log q
            m = min(<double>k, log(M.l1 / M.l2 / total) / log_q)
            m = <double>(<int64_t>m)
            if m > 0.0 and pow(1.0 - r, m) * total <= M.l1 / M.l2:
                m -= 1.0
        # Σ_{i=1}^m q^i·total = total·q·(1 − q^m)/(1 − q)
        total = total * (1.0 - r) * -expm1(m * log_q) / r
        if M.l1 != 0.0:
            total -= m * M.l1 / M.l2
    return total if w > 0.0 else -total


cdef void _deferred_average(void *model, const int64_t *idx, Py_ssize_t nnz,
                            double *acc) noexcept nogil:
    """The averaging sums' share of the deferred steps of the features ``idx`` (the module
    doc; ``row_pass``'s ``deferred``): Σ_i w_i − k·w_0 off each weight's sum; W, ``last``
    unchanged (the round's catch-up follows)."""
    cdef Model *M = <Model *>model
    cdef Py_ssize_t p, c, at
    cdef int64_t k
    cdef double w
    for p in range(nnz):
        k = M.clock[0] - M.last[idx[p]]
        if k <= 0:
            continue
        for c in range(M.K):
            at = idx[p] * M.K + c
            w = M.W[at]
            if w != 0.0:
                acc[at] -= _deferred_path_sum(w, M.delta + sqrt(M.G[at]), k, M) - k * w


cdef int _start_averaging(Averaging *A, Model *M, avg_acc, avg_rounds) except -1:
    """Point ``A`` at the rounds of ``M`` (AdaGrad or FTRL: AdaGrad-RDA keeps its own sums,
    :func:`_rda_averaging`) and the averaging sums."""
    if M.method == RDA:
        raise ValueError("AdaGrad-RDA averages by its own sums (avg_sums, avg_last)")
    start_averaging(A, _round, M, M.W, M.d, M.K, False, avg_acc, avg_rounds)
    if M.method == ADAGRAD and M.regularised:
        A.deferred = _deferred_average
    return 0


cdef tuple _pass(Model *M, X, const int64_t[::1] y, const int64_t[::1] order, predictions,
                 avg_acc=None, avg_rounds=None):
    cdef Averaging A
    check_pass(X, y, order, predictions, M.d, M.K)
    A.before = NULL
    scratch = np.empty(2 * M.K)
    cdef double[::1] scratch_v = scratch
    cdef double[:, ::1] roots_v, kept_v
    M.scores = &scratch_v[0]
    M.gamma = M.scores + M.K
    long_pass = reaches_every_feature(X, order, M.d)
    if long_pass and ((M.method == FTRL and M.loss == LOG)
                      or (M.method == ADAGRAD and M.regularised
                          and M.d * M.K <= ROOTS_IN_CACHE)):
        # a pass that steps about every feature: √n kept beside n saves FTRL a root a step,
        # √G beside G a regularised AdaGrad the root of its deferred steps (the same bits: it
        # is the root, rounded as the step rounds it; every step writes it as it writes G)
        roots = np.sqrt(np.asarray(<double[:M.d, :M.K]>M.G))
        roots_v = roots
        M.roots = &roots_v[0, 0]
    if M.method == RDA and not M.regularised and long_pass:
        # a pass that reaches about every feature, unregularised: the RDA weights move only
        # where a gradient steps, so the pass keeps them (computed as the rounds would: the
        # same bits) and a round's scores are a plain dot product
        kept = np.empty((M.d, M.K))
        kept_v = kept
        onlinear_adaptive_steps.rda_weights(M.Z, M.G, M.d * M.K, M.eta, M.delta,
                                            &kept_v[0, 0])
        M.W = &kept_v[0, 0]
    try:
        if avg_acc is not None:  # (checked before any round)
            _start_averaging(&A, M, avg_acc, avg_rounds)
        mistakes, updates, failed = run_rows_of(_round, M, &A, X, y, order, predictions)
    finally:
        M.roots = NULL
        if M.method == RDA:
            M.W = NULL
        stop_averaging(&A)
    if failed >= 0:
        raise _not_finite(f"row {order[failed]} (position {failed} of the pass); the rounds "
                          "before it were taken")
    return mistakes, updates


cdef tuple _row(Model *M, indices, values, Py_ssize_t y, avg_acc=None, avg_rounds=None):
    cdef bint updated
    cdef Averaging A
    cdef Py_ssize_t predicted
    A.before = NULL
    if avg_acc is not None:
        _start_averaging(&A, M, avg_acc, avg_rounds)
    cdef double *buffer = <double *>malloc(2 * M.K * sizeof(double))
    if buffer == NULL:
        stop_averaging(&A)
        raise MemoryError()
    M.scores = buffer
    M.gamma = buffer + M.K
    try:
        predicted = play_row_of(_round, M, &A, indices, values, y, M.d, M.K, &updated)
    finally:
        free(buffer)
        stop_averaging(&A)
    if predicted < 0:
        raise _not_finite("the row")
    return predicted, bool(updated)


def adagrad_pass(X, const int64_t[::1] y, const int64_t[::1] order, W, G, last, clock,
                 predictions=None, *, str loss="hinge", double eta=0.1, double delta=1e-8,
                 double l1=0.0, double l2=0.0, double weight=1.0, avg_acc=None,
                 avg_rounds=None):
    """One online pass of diagonal AdaGrad (composite mirror descent) over the rows
    ``X[order]``.

    Parameters
    ----------
    X : ndarray or scipy.sparse CSR matrix, shape (n_rows, d)
        float32 or float64; dense C-contiguous or canonical CSR (no duplicate indices).
    y : int64 array, shape (n_rows,)
        Label indices 0 … K − 1 (binary learner, K = 1: 0 is −1, 1 is +1).
    order : int64 array
        The rows to play, in order.
    W, G, last, clock : arrays
        The state (module doc; :func:`adagrad_state`), updated in place.  With ``l1`` or ``l2``
        the weights of features absent from the latest rows are behind: call
        :func:`adagrad_catch_up` before reading ``W``.
    predictions : int64 array of len(order), optional
        Receives each round's predicted label index, before its update.
    loss : {"hinge", "log"}
    eta : float, default=0.1
        The base step η > 0.
    delta : float, default=1e-8
        δ ≥ 0 in H = δ + √G.
    l1, l2 : float, default=0
        The regulariser λ1‖w‖₁ + (λ2/2)‖w‖², applied every round.
    weight : float, default=1
        Every row's example weight w ≥ 0: the round's loss is w·ℓ, its subgradient w·g (the
        regulariser's rounds are not weighted).
    avg_acc, avg_rounds : float64 arrays of shapes (d, K) and (1,), optional
        The averaging sums of the weights (module doc; without ``l1`` and ``l2``), updated in
        place; None: not averaging.

    Returns
    -------
    (n_mistakes, n_updates) : tuple of int
        Wrong predictions, and rounds with a non-zero gradient.
    """
    cdef Model M
    _fill(&M, ADAGRAD, loss, W, G, None, last, clock, eta, delta, 0.0, 0.0, l1, l2)
    M.weight = _weight_of(weight)
    return _pass(&M, X, y, order, predictions, avg_acc, avg_rounds)


def adagrad_row(indices, values, Py_ssize_t y, W, G, last, clock, *, str loss="hinge",
                double eta=0.1, double delta=1e-8, double l1=0.0, double l2=0.0,
                double weight=1.0, avg_acc=None, avg_rounds=None):
    """One AdaGrad round (``learn_one``) on the row with non-zeros ``values`` at the columns
    ``indices`` (no repeated index), label index ``y``; the other arguments as
    :func:`adagrad_pass`.  Returns ``(prediction, updated)``."""
    cdef Model M
    _fill(&M, ADAGRAD, loss, W, G, None, last, clock, eta, delta, 0.0, 0.0, l1, l2)
    M.weight = _weight_of(weight)
    return _row(&M, indices, values, y, avg_acc, avg_rounds)


def adagrad_catch_up(W, G, last, clock, *, double eta=0.1, double delta=1e-8, double l1=0.0,
                     double l2=0.0, avg_acc=None, avg_rounds=None):
    """Bring every feature's weights up to the rounds seen (the regularisation steps deferred
    while it was absent from the rows): ``W`` is then the weights of Algorithm 1 at
    ``clock[0]`` rounds, and the averaging sums ``avg_acc``, ``avg_rounds`` (if given) have
    the deferred steps' share and the catch-up's change (module doc).  O(K·d); a no-op
    without ``l1`` and ``l2``."""
    cdef Model M
    cdef Py_ssize_t j, c, at
    cdef int64_t feature
    cdef double R = 0.0
    cdef double[:, ::1] acc_v
    cdef double[::1] before
    _fill(&M, ADAGRAD, "hinge", W, G, None, last, clock, eta, delta, 0.0, 0.0, l1, l2)
    if avg_acc is not None:
        check_state("avg_acc", avg_acc, (M.d, M.K))
        check_state("avg_rounds", avg_rounds, (1,))
        acc_v = avg_acc
        R = avg_rounds[0]
        before = np.empty(M.K)
    if not M.regularised:
        return
    with nogil:
        for j in range(M.d):
            if avg_acc is None:
                _catch_up(&M, j)
                continue
            feature = j
            _deferred_average(&M, &feature, 1, &acc_v[0, 0])
            for c in range(M.K):
                before[c] = M.W[j * M.K + c]
            _catch_up(&M, j)
            for c in range(M.K):  # (the jump the sums would record in a round, R·Δ)
                at = j * M.K + c
                acc_v[j, c] += R * (M.W[at] - before[c])


def ftrl_pass(X, const int64_t[::1] y, const int64_t[::1] order, W, Z, N, predictions=None, *,
              str loss="log", double alpha=0.5, double beta=1.0, double l1=0.0, double l2=0.0,
              double weight=1.0, avg_acc=None, avg_rounds=None):
    """One online pass of per-coordinate FTRL-Proximal over the rows ``X[order]``.

    Parameters
    ----------
    X, y, order, predictions
        As :func:`adagrad_pass`.
    W, Z, N : float64 arrays, shape (d, K)
        The state (module doc; :func:`ftrl_state`), updated in place; ``W`` is always current.
    loss : {"log", "hinge"}
    alpha, beta : float, default=0.5, 1.0
        The per-coordinate rate α/(β + √n): α > 0, β ≥ 0.
    l1, l2 : float, default=0
        The total ℓ1 and ℓ2 penalties λ1, λ2 ≥ 0.
    weight : float, default=1
        Every row's example weight w ≥ 0 (its gradient is w·g; w = 0 changes nothing).
    avg_acc, avg_rounds : float64 arrays of shapes (d, K) and (1,), optional
        The averaging sums of the weights (module doc), updated in place; None: not
        averaging.

    Returns
    -------
    (n_mistakes, n_updates) : tuple of int
    """
    cdef Model M
    _fill(&M, FTRL, loss, W, N, Z, None, None, 0.0, 0.0, alpha, beta, l1, l2)
    M.weight = _weight_of(weight)
    return _pass(&M, X, y, order, predictions, avg_acc, avg_rounds)


def ftrl_row(indices, values, Py_ssize_t y, W, Z, N, *, str loss="log", double alpha=0.5,
             double beta=1.0, double l1=0.0, double l2=0.0, double weight=1.0, avg_acc=None,
             avg_rounds=None):
    """One FTRL-Proximal round (``learn_one``); arguments as :func:`adagrad_row` and
    :func:`ftrl_pass`.  Returns ``(prediction, updated)``."""
    cdef Model M
    _fill(&M, FTRL, loss, W, N, Z, None, None, 0.0, 0.0, alpha, beta, l1, l2)
    M.weight = _weight_of(weight)
    return _row(&M, indices, values, y, avg_acc, avg_rounds)


def rda_pass(X, const int64_t[::1] y, const int64_t[::1] order, U, G, clock, predictions=None,
             *, str loss="hinge", double eta=0.1, double delta=1e-8, double l1=0.0,
             double l2=0.0, double weight=1.0, avg_sums=None, avg_last=None):
    """One online pass of diagonal AdaGrad in its primal-dual (RDA) form over the rows
    ``X[order]``.

    Parameters
    ----------
    X, y, order, predictions
        As :func:`adagrad_pass`.
    U, G : float64 arrays, shape (d, K)
        The sums of the subgradients and of their squares, updated in place.
    clock : int64 array, shape (1,)
        The rounds seen, t.
    loss, eta, delta, weight
        As :func:`adagrad_pass`.
    l1, l2 : float, default=0
        λ1 and λ2 of the regularizer λ1‖w‖₁ + (λ2/2)‖w‖² in each round's argmin (module doc).
    avg_sums, avg_last : arrays, optional
        With ``average``: float64 (d, K) and int64 (d,), the sums of the weights after every
        round through round ``avg_last[j]`` for feature j (:func:`rda_average`), kept by the
        rounds.

    Returns
    -------
    (n_mistakes, n_updates) : tuple of int
    """
    cdef Model M
    _fill(&M, RDA, loss, None, G, U, None, clock, eta, delta, 0.0, 0.0, l1, l2)
    M.weight = _weight_of(weight)
    _rda_averaging(&M, avg_sums, avg_last)
    return _pass(&M, X, y, order, predictions)


def rda_row(indices, values, Py_ssize_t y, U, G, clock, *, str loss="hinge", double eta=0.1,
            double delta=1e-8, double l1=0.0, double l2=0.0, double weight=1.0,
            avg_sums=None, avg_last=None):
    """One AdaGrad-RDA round (``learn_one``); arguments as :func:`adagrad_row` and
    :func:`rda_pass`.  Returns ``(prediction, updated)``."""
    cdef Model M
    _fill(&M, RDA, loss, None, G, U, None, clock, eta, delta, 0.0, 0.0, l1, l2)
    M.weight = _weight_of(weight)
    _rda_averaging(&M, avg_sums, avg_last)
    return _row(&M, indices, values, y)


def rda_average(U, G, clock, avg_sums, avg_last, *, double eta=0.1, double delta=1e-8,
                double l1=0.0, double l2=0.0):
    """AdaGrad-RDA's averaged weights after t = ``clock[0]`` rounds, (1/t)·Σ_{τ=1}^t w_τ (zero
    before any round), a new (d, K) array: each feature's sums ``avg_sums`` (through round
    ``avg_last[j]``) and, in closed form, the weights its (u, G) gave over the rounds since
    (:func:`_rda_path_sum`).  Nothing is written."""
    cdef Model M
    _fill(&M, RDA, "hinge", None, G, U, None, clock, eta, delta, 0.0, 0.0, l1, l2)
    _rda_averaging(&M, avg_sums, avg_last)
    out = np.zeros((M.d, M.K))
    cdef double[:, ::1] out_v = out
    cdef Py_ssize_t j, k
    cdef int64_t t = M.clock[0]
    if t == 0 or M.d == 0:
        return out
    with nogil:
        for j in range(M.d):
            for k in range(M.K):
                out_v[j, k] = (M.avg_sums[j * M.K + k] + _rda_path_sum(
                    M.Z[j * M.K + k], M.G[j * M.K + k], <double>(M.avg_last[j] + 1),
                    <double>t, &M)) / <double>t
    return out


def rda_path_sum(double u, double G, double first, double last, *, double eta=0.1,
                 double delta=1e-8, double l1=0.0, double l2=0.0):
    """Σ_{τ=first}^{last} of the RDA weight of (u, G) at τ rounds (:func:`_rda_path_sum`), for
    tests."""
    cdef Model M
    M.eta, M.delta, M.l1, M.l2 = eta, delta, l1, l2
    return _rda_path_sum(u, G, first, last, &M)


def predict_proba(W, X):
    """Class probabilities of the logistic learners: softmax(XW) row by row (computed after
    subtracting each row's largest score), or for one output [σ(−s), σ(s)], the probabilities
    of the classes −1 and +1.  ``X`` dense or sparse, shape (n, d); ``W`` shape (d, K)."""
    scores = np.asarray(X @ W, dtype=np.float64)
    if not np.all(np.isfinite(scores)):
        raise ValueError("a score is not finite (NaN or infinite values, or rows too large)")
    if W.shape[1] == 1:
        return np.hstack([expit(-scores), expit(scores)])
    return softmax(scores, axis=1)


cdef class AdaptiveRound(RowRound):
    """``learn_one``'s round of AdaGrad or FTRL-Proximal in one compiled call
    (:class:`RowRound`): the state and options of :func:`adagrad_row` (``method="adagrad"``,
    ``state = (W, G, last, clock)``), :func:`rda_row` (``"rda"``, ``state = (U, G, clock)``) or
    :func:`ftrl_row` (``"ftrl"``, ``state = (W, Z, N)``),
    checked once; ``counts`` (seen, mistakes, updates) kept here; ``exponent``: the accepted
    row norms ``[2^-e, 2^e]``; ``avg_acc``, ``avg_rounds``: the averaging sums, or None."""

    cdef Model M
    cdef Averaging A  # (with the averaging sums: the rounds are A's, on M)
    cdef double *buffer

    def __init__(self, str method, tuple state, int64_t[::1] counts, *, str loss,
                 double eta=0.1, double delta=1e-8, double alpha=0.5, double beta=1.0,
                 double l1=0.0, double l2=0.0, int exponent=505, avg_acc=None,
                 avg_rounds=None):
        if method == "adagrad":
            W, G, last, clock = state
            _fill(&self.M, ADAGRAD, loss, W, G, None, last, clock, eta, delta, 0.0, 0.0, l1,
                  l2)
        elif method == "ftrl":
            W, Z, N = state
            _fill(&self.M, FTRL, loss, W, N, Z, None, None, 0.0, 0.0, alpha, beta, l1, l2)
        elif method == "rda":
            U, G, clock = state[:3]
            _fill(&self.M, RDA, loss, None, G, U, None, clock, eta, delta, 0.0, 0.0, l1, l2)
            if len(state) == 5:  # (with average: the sums and the rounds they reach)
                _rda_averaging(&self.M, state[3], state[4])
        else:
            raise ValueError(f"unknown method {method!r}; expected 'adagrad', 'ftrl' or 'rda'")
        self.buffer = <double *>malloc(2 * self.M.K * sizeof(double))
        if self.buffer == NULL:
            raise MemoryError()
        self.M.scores = self.buffer
        self.M.gamma = self.buffer + self.M.K
        self.play = _round
        self.model = &self.M
        if avg_acc is not None:
            _start_averaging(&self.A, &self.M, avg_acc, avg_rounds)
            self.play = averaged_round
            self.model = &self.A
        self.start(self.M.d, self.M.K, exponent, counts, (*state, avg_acc, avg_rounds))

    def __dealloc__(self):
        free(self.buffer)
        stop_averaging(&self.A)
