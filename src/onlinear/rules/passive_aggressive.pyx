"""Step rules of the multiclass Passive-Aggressive family and of Matsushima et al.'s exact
Support-Class PA ("Exact Passive-Aggressive Algorithm for Multiclass Classification Using Support
Class", SDM 2010).

Notation: ``q = ‖x‖²``, per-class hinge losses ``ℓ_v = [1 − (s_y − s_v)]_+`` for v ≠ y and the
max loss ``L = max_v ℓ_v``.  Every rule updates exactly when L > 0 (non-conservative).

``variant``: ``EXACT`` (default) implements the exact minimisers of the stated problems;
``PRINTED`` reproduces the formulas as printed in the paper's §2 and Table 2 (§3.3), which are
wrong (our derivation from the KKT conditions of the stated problems, checked against a generic QP
solver):
  * PA-I / PA-II: the printed steps equal the exact ones with C replaced by C/2;
  * SPA-I: printed support condition ``A < min{(k+1)C/q − ℓ_k, kℓ_k}`` and step threshold
    ``max{A/n + Cq/n, A/(n+1)}`` (the "+" should be "−"; the condition can give S = ∅ with L > 0,
    in which case the printed algorithm does not update);
  * SPA-II: printed support condition (correct) with the printed step threshold
    ``(q + 1/(2C))·A / ((n+1)q + 1/(2C))`` (``1/(2C)`` where ``n/(2C)`` belongs).

Scale: the margin 1 of (2.1)–(2.2) is fixed, so x → c·x is the same learner with C → C/c² (the
weights scale by 1/c, every τ by 1/c²).  All steps are computed from loss differences and
quotients by q, never from q added to and subtracted from a score.
"""
from libc.stdint cimport int64_t

from ._rule_params cimport PassiveAggressiveParams, SupportClassParams

cdef void pa_steps(const double *scores, Py_ssize_t m, Py_ssize_t y, double q,
                   const double *params, double *state, double *tau, double *factor,
                   int64_t *order) noexcept nogil:
    """Multiclass PA in the max-loss form (Matsushima et al. §2, problems (2.3), PA-I and PA-II;
    Crammer et al. 2006).  The constrained class is the highest-scoring wrong one (the paper's p_i
    whenever the prediction is wrong; with p_i = y the constraint of (2.3) would be infeasible).

    ``r = argmax_{v≠y} s_v`` (lowest index on ties), ``L = [1 − (s_y − s_r)]_+`` and, since
    ‖Φ(x,y) − Φ(x,r)‖² = 2q, the single-constraint problem (2.3) gives
      PA: ``τ = L/(2q)``;  PA-I: ``τ = min{C, L/(2q)}``;  PA-II: ``τ = L/(2q + 1/(2C))``;
    then ``w_y += τx``, ``w_r −= τx``.  ``variant=PRINTED`` uses C/2 in place of C.
    """
    cdef const PassiveAggressiveParams *p = <const PassiveAggressiveParams *>params
    cdef double c = p.C, loss, step
    cdef int kind = <int>p.kind, variant = <int>p.variant
    cdef Py_ssize_t r = -1, v
    for v in range(m):
        tau[v] = 0.0
        if v != y and (r < 0 or scores[v] > scores[r]):
            r = v
    loss = 1.0 - (scores[y] - scores[r])
    if loss <= 0.0:
        return
    if variant == PRINTED:
        c = 0.5 * c
    if kind == PA:
        step = loss / (2.0 * q)
    elif kind == PA_I:
        step = min(c, loss / (2.0 * q))
    else:
        step = loss / (2.0 * q + 1.0 / (2.0 * c))
    tau[y] = step
    tau[r] = -step


cdef inline bint _in_support(int kind, int variant, double prefix_sum, Py_ssize_t k,
                             double loss_k, double q, double c) noexcept nogil:
    """Support-class test for the k-th largest loss, given the sum of the k−1 larger ones.

    SPA (3.11):    ``A < k ℓ_k``;
    SPA-I (exact; our KKT derivation, Table 2's printed condition is wrong):
    ``A < min{k ℓ_k, (k−1) ℓ_k + C q}``;
    SPA-II (Table 2, correct as printed): ``A < ℓ_k (k q + (k−1)/(2C)) / (q + 1/(2C))``.
    """
    cdef double half_inv_c
    if kind == PA:
        return prefix_sum < k * loss_k
    if kind == PA_I:
        if variant == PRINTED:
            return prefix_sum < min((k + 1) * c / q - loss_k, k * loss_k)
        return prefix_sum < min(k * loss_k, (k - 1) * loss_k + c * q)
    # (kq + (k−1)/(2C))/(q + 1/(2C)) written as (k − 1) + q/(q + 1/(2C)): no product that
    # overflows for a large q, no difference that cancels for a small one
    half_inv_c = 0.5 / c
    return prefix_sum < loss_k * ((k - 1) + q / (q + half_inv_c))


cdef inline double _support_threshold(int kind, int variant, double loss_sum, Py_ssize_t n,
                                      double q, double c) noexcept nogil:
    """θ with ``τ_v = [ℓ_v − θ]_+ / q`` on the support set S, |S| = n, A = Σ_S ℓ_u:
    SPA (3.10): ``A/(n+1)``;  SPA-I: ``max{A/(n+1), (A − Cq)/n}``;
    SPA-II: ``(q + 1/(2C)) A / ((n+1) q + n/(2C))``.
    """
    cdef double half_inv_c
    if kind == PA:
        return loss_sum / (n + 1)
    if kind == PA_I:
        if variant == PRINTED:
            return max(loss_sum / n + c * q / n, loss_sum / (n + 1))
        return max(loss_sum / (n + 1), (loss_sum - c * q) / n)
    half_inv_c = 0.5 / c
    if variant == PRINTED:
        return (q + half_inv_c) * loss_sum / ((n + 1) * q + half_inv_c)
    # = A / (n + q/(q + 1/(2C))), the same quotient without the products that overflow
    return loss_sum / (n + q / (q + half_inv_c))


cdef void support_class_steps(const double *scores, Py_ssize_t m, Py_ssize_t y, double q,
                              const double *params, double *state, double *tau,
                              double *factor, int64_t *order) noexcept nogil:
    """SPA / SPA-I / SPA-II: the exact solution of the all-constraints problem (2.2)
    ``min ½ Σ_u ‖w_u − w_u^(i)‖² (+ Cξ or Cξ²)  s.t.  s_y − s_u ≥ 1 (− ξ)  ∀u ≠ y``.

    Theorem 3.1: with the losses sorted decreasingly, the support classes S (τ_u > 0) are the
    longest prefix that passes the support test (:func:`_in_support`); then (3.6), (3.10):
    ``τ_v = [ℓ_v − θ]_+ / q`` for v ∈ S, ``w_y += (Σ_S τ_v) x``, ``w_v −= τ_v x``.
    Only positive losses are sorted: a zero loss never enters S.  ``order``: an int64 scratch
    array of one entry per output (see :func:`support_steps`).
    """
    cdef const SupportClassParams *p = <const SupportClassParams *>params
    support_steps(scores, m, y, q, 1.0, <int>p.kind, p.C, <int>p.variant, tau, order)


#: Up to this many positive losses are sorted by insertion (O(n²) but fast for few); more by a
#: heap sort (O(n log n)).  Both give the same order: decreasing loss, equal losses by index.
cdef Py_ssize_t _INSERTION_SORT_MAX = 32


cdef inline bint _before(const double *losses, int64_t a, int64_t b) noexcept nogil:
    """Whether class a sorts before class b: a larger loss, or an equal one and a lower index."""
    return losses[a] > losses[b] or (losses[a] == losses[b] and a < b)


cdef void _sift_down(const double *losses, int64_t *heap, Py_ssize_t start,
                     Py_ssize_t end) noexcept nogil:
    # a heap whose root sorts last (so that the heap sort leaves the first in front)
    cdef Py_ssize_t root = start, child
    cdef int64_t swap
    while 2 * root + 1 < end:
        child = 2 * root + 1
        if child + 1 < end and _before(losses, heap[child], heap[child + 1]):
            child += 1
        if _before(losses, heap[root], heap[child]):
            swap = heap[root]
            heap[root] = heap[child]
            heap[child] = swap
            root = child
        else:
            return


cdef void _sort_decreasing(const double *losses, Py_ssize_t m, Py_ssize_t n_positive,
                           int64_t *order) noexcept nogil:
    """``order[:n_positive]`` = the indices of the positive ``losses``, largest loss first and
    equal losses by increasing index (tied classes enter the support set together, so the tie
    order never changes a step; a fixed one keeps runs reproducible)."""
    cdef Py_ssize_t n = 0, k, v, end
    cdef double loss
    cdef int64_t swap
    if n_positive > _INSERTION_SORT_MAX:
        for v in range(m):
            if losses[v] > 0.0:
                order[n] = v
                n += 1
        for k in range(n // 2 - 1, -1, -1):
            _sift_down(losses, order, k, n)
        for end in range(n - 1, 0, -1):
            swap = order[0]
            order[0] = order[end]
            order[end] = swap
            _sift_down(losses, order, 0, end)
        return
    for v in range(m):
        loss = losses[v]
        if loss > 0.0:
            k = n
            while k > 0 and losses[order[k - 1]] < loss:
                order[k] = order[k - 1]
                k -= 1
            order[k] = v
            n += 1


cdef void support_steps(const double *scores, Py_ssize_t m, Py_ssize_t y, double q,
                        double margin, int kind, double c, int variant, double *tau,
                        int64_t *order) noexcept nogil:
    """:func:`support_class_steps` with the margin 1 of (2.2) replaced by ``margin``: losses
    ``ℓ_v = [margin − (s_y − s_v)]_+``.  Everything is computed in loss units (differences of
    scores, then quotients by q), never by adding q to a score and subtracting it again, so the
    step is as accurate for ‖x‖² = 1e300 as for ‖x‖² = 1.  Crammer & Singer's MIRA with margin
    β is the SPA-I problem with C = 1 and ``margin = β`` (:func:`~onlinear.rules.
    ultraconservative.mira_steps`).

    The losses are kept in ``tau`` until the steps replace them; ``order`` (int64, one entry per
    output, overwritten) holds their sort order — the engines pass one array for the whole pass,
    so that a round allocates nothing."""
    cdef double *losses = tau
    cdef Py_ssize_t n_positive = 0, n = 0, v, k, j
    cdef double loss, prefix_sum = 0.0, loss_k, theta, total = 0.0, step
    for v in range(m):
        losses[v] = 0.0
        if v != y:
            loss = margin - (scores[y] - scores[v])
            if loss > 0.0:
                losses[v] = loss
                n_positive += 1
    if n_positive == 0:
        return
    _sort_decreasing(losses, m, n_positive, order)
    for k in range(1, n_positive + 1):
        loss_k = losses[order[k - 1]]
        if not _in_support(kind, variant, prefix_sum, k, loss_k, q, c):
            break
        prefix_sum += loss_k
        n = k
    for k in range(n, n_positive):
        tau[order[k]] = 0.0  # a positive loss outside S: no step
    if n == 0:
        return
    theta = _support_threshold(kind, variant, prefix_sum, n, q, c)
    for j in range(n):
        v = order[j]
        step = max(0.0, losses[v] - theta) / q
        tau[v] = -step
        total += step
    tau[y] = total
