"""The compiled online loop of the simultaneous-projection learners (Amit, Shalev-Shwartz &
Singer, "Online Learning of Complex Prediction Problems Using Simultaneous Projections"; section
numbers below are theirs): each trial is a block of binary constraints, scored, counted, and
updated by one dual step λ computed by :mod:`onlinear.rules.simultaneous`.

Three entry-point families, each running trials strictly in ``order``, predicting (computing every
margin) before updating:

* **general blocks** (the paper's single-prototype setting, §2): trial t is rows
  ``block_ptr[t]:block_ptr[t+1]`` of X with labels ±1, optional partition ids (decomposable loss,
  §7: each set gets the scheme with budget C/r_t) and coupling weights c_j (the weighted coupling
  of §10); one weight vector ``w``.  Additive and multiplicative.
* **label sets** (multiclass and multilabel of §3.1 and §9.2 as multi-prototype Kesler blocks —
  our derivation: the multi-prototype setting is the class-dependent map φ(x, r) = e_r ⊗ x):
  ``W`` (n_features, k) feature-major, relevance an (n, k) uint8 indicator (1 relevant,
  0 irrelevant, 2 a calibration label that sits between them, see :func:`_labelset_pairs`); the
  constraints are the pairs (relevant r, irrelevant s), margin ``s_r − s_s``, squared norm
  ``2‖x‖²``, Gram ``‖x‖²([r = r'] + [s = s'] − [r = s'] − [s = r'])`` — all from the k scores and
  ‖x‖², without materialising a virtual row; the update is one coefficient per class.  Additive and
  multiplicative (one simplex over all of W).
* **ordinal** (§3.2): ``w`` and thresholds ``b``; constraint j is ``(x, −e_j)`` with label +1 for
  j < rank, else −1: margin ``y_j(w·x − b_j)``, squared norm ``‖x‖² + 1``, Gram
  ``y_i y_j(‖x‖² + [i = j])``.  Additive only: the reduction's thresholds are unbounded reals,
  which the simplex of the multiplicative form does not hold.

The true model is ``scale[0] * w`` (``scale`` a length-1 array).  The additive form leaves the
scale at 1; the multiplicative form keeps ``w > 0`` unnormalized and ``scale = 1/Σw`` (so ω is on
the simplex), updated from the touched coordinates only and recomputed exactly when the mass has
halved (a running sum keeps the rounding error of the largest value it held).  Dots, row
additions, exponentiated steps and folds are :mod:`.weights`'s; rows are :mod:`.rows`'s.

Decomposed losses (§7, Fig. 5): general blocks take a partition id per row; label-set and ordinal
trials take ``params[P_DECOMPOSE]`` (:func:`make_params`'s ``decompose``): one set, one set per
relevant label (ordinal: per threshold), or singletons — each set with budget C/r_t.

Conventions: a constraint is a *mistake* iff its margin is ≤ 0 (ties are mistakes; the paper
leaves this implicit, its Lemma 3 needs it); zero rows count as mistakes but take no step (our
choice: no step can fix them).  ``counts`` (int64, 5) is incremented:
``[TRIALS, IMPERFECT, CONSTRAINT_MISTAKES, CONSTRAINTS, UPDATES]`` — the trial layout of
:mod:`.counters` (``UPDATES`` here is its ``TRIAL_UPDATES``); ``flags`` (int8, one per trial run,
or empty) receives ``imperfect | updated << 1``.  The multiplicative form supports
SimPerc, ConProj, SimProj, SimOpt and MaxPA (the paper's §8 defines no exact solver for it);
OPTIMAL and SOPOPO with ``kind = MULTIPLICATIVE`` raise.
"""
import numpy as np
from numba import njit

from ..rules.simultaneous import (  # noqa: F401  (re-exported constants)
    ADDITIVE,
    CONPROJ,
    MAX_DISTANCE,
    MAX_HINGE,
    MAXPA,
    MULTIPLICATIVE,
    N_PARAMS,
    OPTIMAL,
    P_C,
    P_DECOMPOSE,
    P_GAMMA,
    P_MAX_ITER,
    P_MAX_RULE,
    P_TOL,
    SCHEMES,
    SIMOPT,
    SIMPERC,
    SIMPROJ,
    SINGLETONS,
    SOPOPO,
    WHOLE,
    make_params,
    mult_alpha_closed_form,
    mult_alpha_numeric,
    mult_set_lambda,
    set_lambda,
    sopopo_steps,
)
from ..solvers.block_dual import (
    KESLER_GRAM,
    ORDINAL_GRAM,
    _sets,
    solve_block_dual,
    solve_structured_dual,
)
from .borrowed import read_only
from .counters import (  # noqa: F401  (re-exported: the trial layout)
    CONSTRAINT_MISTAKES,
    CONSTRAINTS,
    IMPERFECT,
    TRIALS,
)
from ._transition import count_trial
from .counters import N_TRIAL_COUNTS as N_COUNTS  # noqa: F401
from .counters import TRIAL_UPDATES as UPDATES  # noqa: F401
from ._transition import row
from ._transition import (
    SCALE_HIGH,
    SCALE_LOW,
    add_row,
    column_dots,
    dot,
    exp_step,
    fold_positive,
    mass,
)


# =============================================================================================
# Shared pieces
# =============================================================================================
@njit(cache=True)
def _check_kind(scheme, kind):
    if kind == MULTIPLICATIVE and (scheme == OPTIMAL or scheme == SOPOPO):
        raise ValueError("the multiplicative form has no exact solver (optimal/sopopo)")


@njit(cache=True)
def _renormalized(w_flat, scale, mass_before, change):
    """Set ``scale = 1/mass`` after a multiplicative step; exact recount once the running mass
    has halved, and a fold of the scale into w when it leaves a safe range.

    The guard compares with the mass before this step, not with an anchor (the largest mass
    since it was last exact, :func:`.weights.must_reanchor`): these models keep no size state
    — the mass is ``1/scale`` and ``scale`` a length-1 array, which the estimators hold (and
    save) as it is."""
    total = mass_before + change
    if not (total > 0.5 * mass_before):
        total = mass(w_flat)
    scale[0] = 1.0 / total
    if not (SCALE_LOW < scale[0] < SCALE_HIGH):
        fold_positive(w_flat, scale[0])
        scale[0] = 1.0 / mass(w_flat)


@njit(cache=True)
def _decomposition(params):
    """The decomposition mode of label-set and ordinal trials (``params`` built by
    :func:`make_params`; a shorter vector from before the option means none)."""
    if params.shape[0] > P_DECOMPOSE:
        return int(params[P_DECOMPOSE])
    return WHOLE


@njit(cache=True)
def _structured_parts(mode, pairs, k, buffer):
    """Set id of each constraint of a label-set (``pairs`` given) or ordinal trial, and the
    number of sets: one set, one per relevant label (pairs are ordered by r), or singletons.
    Written into ``buffer[:k]``."""
    local = buffer[:k]
    if mode == WHOLE or k == 0:
        local[:] = 0
        return local, 1
    if mode == SINGLETONS or pairs.shape[0] == 0:
        for p in range(k):
            local[p] = p
        return local, k
    local[0] = 0
    n_sets = 1
    for p in range(1, k):
        if pairs[p, 0] != pairs[p - 1, 0]:
            n_sets += 1
        local[p] = n_sets - 1
    return local, n_sets


@njit(cache=True)
def _sets_of(parts, lo, hi):
    """Partition ids of rows lo..hi−1 (``parts`` empty → one set) and the number of sets."""
    k = hi - lo
    local = np.zeros(k, np.int64)
    if parts.shape[0] == 0:
        return local, 1
    n_sets = 0
    for j in range(k):
        local[j] = parts[lo + j]
        n_sets = max(n_sets, local[j] + 1)
    return local, n_sets


@njit(cache=True)
def _lambda_by_sets(scheme, kind, loss, alpha, sqnorm, mistake, coupling, local, n_sets, C,
                    max_rule, lam):
    """Run the scheme on each set with budget C/r_t and gather λ (Amit et al. §7: Fig. 5 does
    not state the cap; it is what the per-set dual constraint of Eq. 18 needs)."""
    if n_sets == 1:
        if kind == ADDITIVE:
            set_lambda(scheme, loss, sqnorm, mistake, coupling, C, max_rule, lam)
        else:
            mult_set_lambda(scheme, loss, alpha, mistake, sqnorm, C, max_rule, lam)
        return
    cap = C / n_sets
    set_start, set_members = _sets(local, n_sets)
    for l in range(n_sets):
        members = set_members[set_start[l]:set_start[l + 1]]
        n = members.shape[0]
        if n == 0:
            continue
        sub_lam = np.empty(n)
        if kind == ADDITIVE:
            set_lambda(scheme, loss[members], sqnorm[members], mistake[members],
                       coupling[members], cap, max_rule, sub_lam)
        else:
            mult_set_lambda(scheme, loss[members], alpha[members], mistake[members],
                            sqnorm[members], cap, max_rule, sub_lam)
        for i in range(n):
            lam[members[i]] = sub_lam[i]


@njit(cache=True)
def _exact_lambda(G, gain, sqnorm, coupling, local, n_sets, C, params, lam):
    """OPTIMAL: the exact dual solution; zero rows get gain 0 (no budget is spent on a
    constraint no step can satisfy; our choice, the paper does not discuss zero rows)."""
    k = gain.shape[0]
    g = gain.copy()
    for j in range(k):
        if sqnorm[j] <= 0.0:
            g[j] = 0.0
    caps = np.full(n_sets, C / n_sets)
    solve_block_dual(G, g, local, coupling, caps, params[P_TOL], params[P_MAX_ITER], lam)


# =============================================================================================
# 1. General blocks
# =============================================================================================
@njit(cache=True)
def _general_trial(dense, n_features, data, indices, indptr, lo, hi, labels, parts, coupling,
                   w, scale, scheme, kind, params, lam, buffer):
    """One trial on rows lo..hi−1; writes λ into ``lam[:k]``; returns (mistakes, updated)."""
    k = hi - lo
    if k == 0:
        return 0, False
    C = params[P_C]
    gamma = params[P_GAMMA]
    max_rule = int(params[P_MAX_RULE])
    margin = np.empty(k)
    loss = np.empty(k)
    sqnorm = np.empty(k)
    mistake = np.zeros(k, np.bool_)
    n_mistakes = 0
    worst = 0.0
    for j in range(k):
        idx, vals = row(dense, n_features, data, indices, indptr, lo + j)
        raw, size = dot(idx, vals, w)
        if kind != ADDITIVE:  # the multiplicative steps read ‖x‖_∞²
            size = 0.0
            for p in range(idx.shape[0]):
                v = np.float64(vals[p])
                if v != 0.0:
                    size = max(size, v * v)
        margin[j] = labels[lo + j] * scale[0] * raw
        sqnorm[j] = size
        target = 1.0 if kind == ADDITIVE else gamma
        loss[j] = max(0.0, target - margin[j])
        if margin[j] <= 0.0:
            mistake[j] = True
            n_mistakes += 1
        if size > 0.0:
            worst = max(worst, loss[j])
        lam[j] = 0.0
    if worst <= 0.0:
        return n_mistakes, False
    local, n_sets = _sets_of(parts, lo, hi)
    c = np.ones(k)
    if coupling.shape[0] > 0:
        for j in range(k):
            c[j] = coupling[lo + j]
    step = lam[:k]
    if kind == ADDITIVE and (scheme == OPTIMAL or scheme == SOPOPO):
        G = _gram(dense, n_features, data, indices, indptr, lo, hi, labels, buffer)
        gain = np.empty(k)
        for j in range(k):
            gain[j] = 1.0 - margin[j]
        _exact_lambda(G, gain, sqnorm, c, local, n_sets, C, params, step)
    elif kind == ADDITIVE:
        _lambda_by_sets(scheme, kind, loss, loss, sqnorm, mistake, c, local, n_sets, C,
                        max_rule, step)
    else:
        alpha = np.zeros(k)
        if scheme != SIMPERC and scheme != SIMOPT:
            cap = C / n_sets
            for j in range(k):
                if loss[j] > 0.0 and sqnorm[j] > 0.0:
                    idx, vals = row(dense, n_features, data, indices, indptr, lo + j)
                    alpha[j] = _mult_alpha_row(idx, vals, labels[lo + j], w, scale[0], gamma,
                                               cap)
        _lambda_by_sets(scheme, kind, loss, alpha, sqnorm, mistake, c, local, n_sets, C,
                        max_rule, step)
    updated = False
    for j in range(k):
        if step[j] > 0.0:
            updated = True
    if not updated:
        return n_mistakes, False
    if kind == ADDITIVE:
        inv = 1.0 / scale[0]
        for j in range(k):
            if step[j] > 0.0:
                idx, vals = row(dense, n_features, data, indices, indptr, lo + j)
                add_row(idx, vals, w, step[j] * labels[lo + j] * inv)
    else:
        # accumulate τ = Σ_j λ_j y_j x_j on the touched coordinates, then one exp step each
        # (not weights.exp_row: the exponent of a coordinate sums over the block's rows)
        n_touched = 0
        for j in range(k):
            if step[j] > 0.0:
                idx, vals = row(dense, n_features, data, indices, indptr, lo + j)
                n_touched += idx.shape[0]
        touched = np.empty(n_touched, np.int64)
        n_touched = 0
        for j in range(k):
            if step[j] > 0.0:
                idx, vals = row(dense, n_features, data, indices, indptr, lo + j)
                coef = step[j] * labels[lo + j]
                for p in range(idx.shape[0]):
                    v = np.float64(vals[p])
                    if v != 0.0:
                        i = idx[p]
                        if buffer[i] == 0.0:
                            touched[n_touched] = i
                            n_touched += 1
                        buffer[i] += coef * v
                        if buffer[i] == 0.0:
                            buffer[i] = 1e-320  # keep it marked as touched
        mass_before = 1.0 / scale[0]
        change = 0.0
        for p in range(n_touched):
            i = touched[p]
            change += exp_step(w, i, buffer[i])
            buffer[i] = 0.0
        _renormalized(w, scale, mass_before, change)
    return n_mistakes, True


@njit(cache=True)
def _mult_alpha_row(idx, vals, label, w, scale, gamma, cap):
    """The reduced maximiser of Eq. 23 for one row: Appendix C's closed form when every
    non-zero of the row is ±1, the 1-D concave solve otherwise."""
    n = idx.shape[0]
    simple = True
    wplus = 0.0
    wminus = 0.0
    touched = 0.0
    weights = np.empty(n)
    values = np.empty(n)
    for p in range(n):
        z = label * np.float64(vals[p])
        omega = scale * w[idx[p]] if z != 0.0 else 0.0  # zeros belong to the rest
        weights[p] = omega
        values[p] = z
        touched += omega
        if z == 1.0:
            wplus += omega
        elif z == -1.0:
            wminus += omega
        elif z != 0.0:
            simple = False
    if simple:
        return mult_alpha_closed_form(wplus, wminus, gamma, cap)
    return mult_alpha_numeric(weights, values, max(0.0, 1.0 - touched), gamma, cap)


@njit(cache=True)
def _gram(dense, n_features, data, indices, indptr, lo, hi, labels, buffer):
    """``G_ij = y_i y_j x_i·x_j`` of rows lo..hi−1, through a dense scatter of row i."""
    k = hi - lo
    G = np.empty((k, k))
    for i in range(k):
        idx, vals = row(dense, n_features, data, indices, indptr, lo + i)
        for p in range(idx.shape[0]):
            buffer[idx[p]] += np.float64(vals[p])
        for j in range(i, k):
            idx2, vals2 = row(dense, n_features, data, indices, indptr, lo + j)
            g = 0.0
            for p in range(idx2.shape[0]):
                g += buffer[idx2[p]] * np.float64(vals2[p])
            g *= labels[lo + i] * labels[lo + j]
            G[i, j] = g
            G[j, i] = g
        for p in range(idx.shape[0]):
            buffer[idx[p]] = 0.0
    return G


@njit(cache=True)
def _run_blocks(dense, n_features, data, indices, indptr, labels, block_ptr, parts, coupling,
                order, w, scale, scheme, kind, params, counts, flags):
    _check_kind(scheme, kind)
    longest = 0
    for t in range(block_ptr.shape[0] - 1):
        longest = max(longest, block_ptr[t + 1] - block_ptr[t])
    lam = np.empty(longest)
    buffer = np.zeros(n_features)
    for t in range(order.shape[0]):
        b = order[t]
        lo, hi = block_ptr[b], block_ptr[b + 1]
        n_mistakes, updated = _general_trial(dense, n_features, data, indices, indptr, lo, hi,
                                             labels, parts, coupling, w, scale, scheme, kind,
                                             params, lam, buffer)
        count_trial(counts, flags, t, hi - lo, n_mistakes, updated)


@njit(cache=True)
def run_blocks_sparse(data, indices, indptr, labels, block_ptr, parts, coupling, order, w,
                      scale, scheme, kind, params, counts, flags):
    """Online pass over the general blocks ``order`` of a CSR matrix (see the module doc)."""
    _run_blocks(False, w.shape[0], read_only(data), read_only(indices), read_only(indptr), labels,
                block_ptr, parts, coupling, order, w, scale, scheme, kind, params, counts, flags)


@njit(cache=True)
def run_blocks_dense(X, labels, block_ptr, parts, coupling, order, w, scale, scheme, kind,
                     params, counts, flags):
    """Online pass over the general blocks ``order`` of a dense, C-contiguous X."""
    n_features = X.shape[1]
    _run_blocks(True, n_features, read_only(X.reshape(X.size)), np.arange(n_features),
                np.empty(0, np.int64), labels, block_ptr, parts, coupling, order, w, scale,
                scheme, kind, params, counts, flags)


@njit(cache=True)
def step_block_dense(Xb, labels, parts, coupling, w, scale, scheme, kind, params, lam):
    """One general-block trial on the dense rows ``Xb`` (in place); λ is written to ``lam``.
    Returns ``(imperfect, n_mistakes, updated)``.  For tests and diagnostics.

    Examples
    --------
    >>> import numpy as np
    >>> w, scale, lam = np.zeros(2), np.ones(1), np.empty(2)
    >>> X = np.array([[1.0, 0.0], [0.0, 2.0]])
    >>> step_block_dense(X, np.ones(2), np.empty(0, np.int64), np.empty(0), w, scale,
    ...                  SIMPROJ, ADDITIVE, make_params(C=1.0), lam)
    (True, 2, True)
    >>> lam.tolist(), w.tolist()
    ([0.5, 0.125], [0.5, 0.25])
    """
    _check_kind(scheme, kind)
    n_features = Xb.shape[1]
    k = Xb.shape[0]
    n_mistakes, updated = _general_trial(True, n_features, Xb.reshape(Xb.size),
                                         np.arange(n_features), np.empty(0, np.int64), 0, k,
                                         labels, parts, coupling, w, scale, scheme, kind,
                                         params, lam, np.zeros(n_features))
    return n_mistakes > 0, n_mistakes, updated


# =============================================================================================
# 2. Label sets (multiclass / multilabel, Kesler)
# =============================================================================================
@njit(cache=True)
def _labelset_pairs(relevant, buffer):
    """The constraints of a label-set trial as class pairs (r, s), r ≠ s, with
    ``relevant[r] ∈ {1, 2}`` and ``relevant[s] ∈ {0, 2}``: 1 = relevant, 0 = irrelevant, 2 = the
    calibration (threshold) label, ranked below every relevant label and above every irrelevant
    one.  Ordered by r, then s; without a 2 these are the pairs of Y × Ȳ in row-major order.
    Written into ``buffer`` (at least (n_rel·n_irr, 2)); returns the view and n_rel."""
    n_classes = relevant.shape[0]
    n_rel = 0
    n_irr = 0
    n_both = 0
    for c in range(n_classes):
        if relevant[c] >= 1:
            n_rel += 1
        if relevant[c] != 1:
            n_irr += 1
        if relevant[c] == 2:
            n_both += 1
    pairs = buffer[:n_rel * n_irr - n_both]
    p = 0
    for r in range(n_classes):
        if relevant[r] >= 1:
            for s in range(n_classes):
                if relevant[s] != 1 and s != r:
                    pairs[p, 0] = r
                    pairs[p, 1] = s
                    p += 1
    return pairs, n_rel


@njit(cache=True)
def _labelset_trial(idx, vals, relevant, W, scale, scheme, kind, params, scores, tau, pos, neg,
                    work, mistake_buffer, pair_buffer, part_buffer):
    """One multiclass/multilabel trial; returns (n_constraints, mistakes, updated).  The per-pair
    arrays are views of buffers allocated once per pass (``work`` rows: margin, loss, λ, squared
    norm, ones), which keeps the pass free of allocations for the additive schemes."""
    n_classes = W.shape[1]
    C = params[P_C]
    gamma = params[P_GAMMA]
    max_rule = int(params[P_MAX_RULE])
    for c in range(n_classes):
        tau[c] = 0.0
        pos[c] = 0.0
        neg[c] = 0.0
    q = column_dots(idx, vals, W, scores)
    qinf = 0.0
    simple = True
    if kind == MULTIPLICATIVE:
        for p in range(idx.shape[0]):
            v = np.float64(vals[p])
            if v != 0.0:
                i = idx[p]
                qinf = max(qinf, v * v)
                if v != 1.0 and v != -1.0:
                    simple = False
                # class masses on x's +1 / −1 coordinates, for Appendix C's closed form
                for c in range(n_classes):
                    if v == 1.0:
                        pos[c] += W[i, c]
                    elif v == -1.0:
                        neg[c] += W[i, c]
    for c in range(n_classes):
        scores[c] *= scale[0]
        pos[c] *= scale[0]
        neg[c] *= scale[0]
    pairs, n_rel = _labelset_pairs(relevant, pair_buffer)
    k = pairs.shape[0]
    if k == 0:
        return 0, 0, False
    margin = work[0, :k]
    loss = work[1, :k]
    mistake = mistake_buffer[:k]
    n_mistakes = 0
    worst = 0.0
    target = 1.0 if kind == ADDITIVE else gamma
    for p in range(k):
        margin[p] = scores[pairs[p, 0]] - scores[pairs[p, 1]]
        loss[p] = max(0.0, target - margin[p])
        mistake[p] = margin[p] <= 0.0
        if mistake[p]:
            n_mistakes += 1
        worst = max(worst, loss[p])
    if q == 0.0 or worst <= 0.0 or C == 0.0:  # (C = 0: a weight of 0, predict only)
        return k, n_mistakes, False
    lam = work[2, :k]
    lam[:] = 0.0
    local, n_sets = _structured_parts(_decomposition(params), pairs, k, part_buffer)
    if (kind == ADDITIVE and scheme == SOPOPO and n_rel == 1 and k == n_classes - 1
            and n_sets == 1):
        # single-label multiclass: Sopopo's closed form (pairs (y, s) in the order of s)
        qloss = np.empty(k)
        for p in range(k):
            qloss[p] = 1.0 - margin[p]
        sopopo_steps(qloss, q, C, lam)
    elif kind == ADDITIVE and (scheme == OPTIMAL or scheme == SOPOPO):
        gain = np.empty(k)
        for p in range(k):
            gain[p] = 1.0 - margin[p]
        # (np.int64: not a literal, see solvers.block_dual.solve_block_dual)
        solve_structured_dual(np.empty((0, 0)), np.int64(KESLER_GRAM), pairs, q, np.empty(0),
                              gain, local, np.ones(k), np.full(n_sets, C / n_sets),
                              params[P_TOL], params[P_MAX_ITER], lam)
    elif kind == ADDITIVE:
        sqnorm = work[3, :k]
        sqnorm[:] = 2.0 * q
        _lambda_by_sets(scheme, kind, loss, loss, sqnorm, mistake, work[4, :k], local, n_sets,
                        C, max_rule, lam)
    else:
        alpha = np.zeros(k)
        if scheme != SIMPERC and scheme != SIMOPT:
            for p in range(k):
                if loss[p] > 0.0:
                    alpha[p] = _mult_alpha_pair(idx, vals, W, scale[0], pairs[p, 0],
                                                pairs[p, 1], simple, pos, neg, gamma,
                                                C / n_sets)
        # ‖(e_r − e_s) ⊗ x‖_∞² = ‖x‖_∞²
        _lambda_by_sets(scheme, kind, loss, alpha, np.full(k, qinf), mistake, np.ones(k), local,
                        n_sets, C, max_rule, lam)
    updated = False
    for p in range(k):
        if lam[p] > 0.0:
            updated = True
            tau[pairs[p, 0]] += lam[p]
            tau[pairs[p, 1]] -= lam[p]
    if not updated:
        return k, n_mistakes, False
    if kind == ADDITIVE:
        inv = 1.0 / scale[0]
        n_active = 0
        for c in range(n_classes):
            tau[c] *= inv
            if tau[c] != 0.0:
                pos[n_active] = c  # pos is free in the additive form: the classes that move
                n_active += 1
        # one sweep over x for all the moving classes (not one weights.add_row per class: W is
        # feature-major, the classes of a feature are contiguous); a vectorized sweep over
        # every class beats scattered updates of the moving ones
        # from about an eighth of them on (measured on Reuters' 119 columns: 8 ≈ 16 < 4 < 2)
        dense_update = 8 * n_active > n_classes
        for p in range(idx.shape[0]):
            v = np.float64(vals[p])
            if v != 0.0:
                i = idx[p]
                if dense_update:
                    # every class, branch-free (adding 0 changes nothing): the loop vectorizes
                    for c in range(n_classes):
                        W[i, c] += tau[c] * v
                else:
                    for a in range(n_active):
                        c = int(pos[a])
                        W[i, c] += tau[c] * v
    else:
        # one simplex over all of W: one exp step per touched entry, in one sweep over x
        mass_before = 1.0 / scale[0]
        change = 0.0
        for p in range(idx.shape[0]):
            v = np.float64(vals[p])
            if v != 0.0:
                i = idx[p]
                for c in range(n_classes):
                    if tau[c] != 0.0:
                        change += exp_step(W[i], c, tau[c] * v)
        _renormalized(W.reshape(W.size), scale, mass_before, change)
    return k, n_mistakes, True


@njit(cache=True)
def _mult_alpha_pair(idx, vals, W, scale, r, s, simple, pos, neg, gamma, cap):
    """Reduced maximiser for the pair instance (e_r − e_s) ⊗ x: closed form from the class masses
    on x's +1 / −1 coordinates (W⁺ = P_r + N_s, W⁻ = P_s + N_r) when x ∈ {0, ±1}^n."""
    if simple:
        return mult_alpha_closed_form(pos[r] + neg[s], pos[s] + neg[r], gamma, cap)
    n = idx.shape[0]
    weights = np.empty(2 * n)
    values = np.empty(2 * n)
    touched = 0.0
    for p in range(n):
        v = np.float64(vals[p])
        i = idx[p]
        keep = 1.0 if v != 0.0 else 0.0  # coordinates with x_i = 0 belong to the rest
        weights[2 * p] = keep * scale * W[i, r]
        values[2 * p] = v
        weights[2 * p + 1] = keep * scale * W[i, s]
        values[2 * p + 1] = -v
        touched += weights[2 * p] + weights[2 * p + 1]
    return mult_alpha_numeric(weights, values, max(0.0, 1.0 - touched), gamma, cap)


@njit(cache=True)
def _pair_bound(relevant):
    """An upper bound on the pairs of a label-set trial: (labels that can be relevant) ×
    (labels that can be irrelevant), the calibration label counted on both sides."""
    n_rel = 0
    n_irr = 0
    for c in range(relevant.shape[0]):
        if relevant[c] >= 1:
            n_rel += 1
        if relevant[c] != 1:
            n_irr += 1
    return n_rel * n_irr


@njit(cache=True)
def _labelset_buffers(most):
    """The per-pair buffers of :func:`_labelset_trial` for trials of at most ``most`` pairs:
    ``work`` (rows margin, loss, λ, squared norm, ones) and the mistake, pair and part rows."""
    work = np.empty((5, most))
    work[4, :] = 1.0
    return (work, np.empty(most, np.bool_), np.empty((most, 2), np.int64),
            np.empty(most, np.int64))


@njit(cache=True)
def _run_labelsets(dense, n_features, data, indices, indptr, Y, order, W, scale, scheme, kind,
                   params, counts, flags, weights):
    _check_kind(scheme, kind)
    m = W.shape[1]
    scores, tau, pos, neg = np.empty(m), np.empty(m), np.empty(m), np.empty(m)
    most = 1  # the largest number of pairs of a trial, so that the buffers always suffice
    for t in range(order.shape[0]):
        most = max(most, _pair_bound(Y[order[t]]))
    work, mistake_buffer, pair_buffer, part_buffer = _labelset_buffers(most)
    C = params[P_C]
    for t in range(order.shape[0]):
        i = order[t]
        idx, vals = row(dense, n_features, data, indices, indptr, i)
        if weights.shape[0] > 0:  # an example's weight scales its trial's budget C
            params[P_C] = C * weights[i]
        k, n_mistakes, updated = _labelset_trial(idx, vals, Y[i], W, scale, scheme, kind, params,
                                                 scores, tau, pos, neg, work, mistake_buffer,
                                                 pair_buffer, part_buffer)
        count_trial(counts, flags, t, k, n_mistakes, updated)
    params[P_C] = C


@njit(cache=True)
def run_labelsets_sparse(data, indices, indptr, Y, order, W, scale, scheme, kind, params,
                         counts, flags, weights):
    """Online pass over the CSR rows ``order`` with relevance indicator Y (n, k) uint8;
    ``weights`` (empty: none) scale each example's budget C."""
    _run_labelsets(False, W.shape[0], read_only(data), read_only(indices), read_only(indptr), Y,
                   order, W, scale, scheme, kind, params, counts, flags, weights)


@njit(cache=True)
def indicator_relevance(y, calibrated, out):
    """The relevance row of one indicator row ``y`` (any numeric dtype) into ``out`` (uint8,
    width ``y.shape[0]`` + ``calibrated``): True, or False as soon as a value is not 0 or 1
    (then the caller reports it; nothing else was touched)."""
    k = y.shape[0]
    for j in range(k):
        v = y[j]
        if v != 0 and v != 1:
            return False
        out[j] = 1 if v == 1 else 0
    if calibrated:
        out[k] = 2  # the threshold label (tasks.multilabel.THRESHOLD_LABEL)
    return True


@njit(cache=True)
def indicator_prediction(scores, calibrated, cut):
    """The predicted indicator row from one example's scores: label r where its score (minus
    the threshold label's, when calibrated) exceeds ``cut`` (tasks.Multilabel.predict)."""
    k = scores.shape[0] - 1 if calibrated else scores.shape[0]
    out = np.zeros(k, np.int64)
    for r in range(k):
        relative = scores[r] - scores[k] if calibrated else scores[r]
        if relative > cut:
            out[r] = 1
    return out


@njit(cache=True)
def learn_one_labelset(idx, vals, relevant, W, scale, scheme, kind, params, counts, scores):
    """The streaming step on one row (column indices ``idx``, values ``vals``, relevance row
    ``relevant``): ``scores`` receives the class scores before the update (the prediction);
    returns the index of the top score (the first one on a tie: the multiclass prediction)."""
    _check_kind(scheme, kind)
    m = W.shape[1]
    tau, pos, neg = np.empty(m), np.empty(m), np.empty(m)
    work, mistake_buffer, pair_buffer, part_buffer = _labelset_buffers(
        max(1, _pair_bound(relevant)))
    k, n_mistakes, updated = _labelset_trial(
        idx, vals, relevant, W, scale, scheme, kind, params, scores, tau, pos, neg, work,
        mistake_buffer, pair_buffer, part_buffer)
    count_trial(counts, np.empty(0, np.int8), 0, k, n_mistakes, updated)
    return np.argmax(scores)


@njit(cache=True)
def run_labelsets_dense(X, Y, order, W, scale, scheme, kind, params, counts, flags, weights):
    """Online pass over the dense rows ``X[order]`` with relevance indicator Y (n, k) uint8;
    ``weights`` as in :func:`run_labelsets_sparse`."""
    n_features = X.shape[1]
    _run_labelsets(True, n_features, read_only(X.reshape(X.size)), np.arange(n_features),
                   np.empty(0, np.int64), Y, order, W, scale, scheme, kind, params, counts, flags,
                   weights)


# =============================================================================================
# 3. Ordinal regression
# =============================================================================================
@njit(cache=True)
def _ordinal_trial(idx, vals, rank, w, b, scheme, params):
    """One ordinal trial; returns (n_constraints, mistakes, updated)."""
    k = b.shape[0]
    if k == 0:
        return 0, 0, False
    C = params[P_C]
    max_rule = int(params[P_MAX_RULE])
    score, q = dot(idx, vals, w)
    y = np.empty(k)
    margin = np.empty(k)
    loss = np.empty(k)
    mistake = np.zeros(k, np.bool_)
    n_mistakes = 0
    worst = 0.0
    for j in range(k):
        y[j] = 1.0 if j < rank else -1.0
        margin[j] = y[j] * (score - b[j])
        loss[j] = max(0.0, 1.0 - margin[j])
        if margin[j] <= 0.0:
            mistake[j] = True
            n_mistakes += 1
        worst = max(worst, loss[j])
    if worst <= 0.0:
        return k, n_mistakes, False
    lam = np.zeros(k)
    # each threshold is its own binary problem: "per label" means singletons here
    local, n_sets = _structured_parts(_decomposition(params), np.empty((0, 2), np.int64), k,
                                      np.empty(k, np.int64))
    if scheme == OPTIMAL or scheme == SOPOPO:
        gain = np.empty(k)
        for j in range(k):
            gain[j] = 1.0 - margin[j]
        # (np.int64: not a literal, see solvers.block_dual.solve_block_dual)
        solve_structured_dual(np.empty((0, 0)), np.int64(ORDINAL_GRAM),
                              np.empty((0, 2), np.int64), q, y, gain, local, np.ones(k),
                              np.full(n_sets, C / n_sets), params[P_TOL], params[P_MAX_ITER],
                              lam)
    else:
        _lambda_by_sets(scheme, ADDITIVE, loss, loss, np.full(k, q + 1.0), mistake, np.ones(k),
                        local, n_sets, C, max_rule, lam)
    coef = 0.0
    updated = False
    for j in range(k):
        if lam[j] > 0.0:
            updated = True
            coef += lam[j] * y[j]
            b[j] -= lam[j] * y[j]
    if coef != 0.0:
        add_row(idx, vals, w, coef)
    return k, n_mistakes, updated


@njit(cache=True)
def _run_ordinal(dense, n_features, data, indices, indptr, ranks, order, w, b, scheme, params,
                 counts, flags, weights):
    C = params[P_C]
    for t in range(order.shape[0]):
        i = order[t]
        idx, vals = row(dense, n_features, data, indices, indptr, i)
        if weights.shape[0] > 0:  # an example's weight scales its trial's budget C
            params[P_C] = C * weights[i]
        k, n_mistakes, updated = _ordinal_trial(idx, vals, ranks[i], w, b, scheme, params)
        count_trial(counts, flags, t, k, n_mistakes, updated)
    params[P_C] = C


@njit(cache=True)
def run_ordinal_sparse(data, indices, indptr, ranks, order, w, b, scheme, params, counts, flags,
                       weights):
    """Online ordinal pass over the CSR rows ``order`` (ranks 0..k−1, ``b`` has k−1 entries);
    ``weights`` (empty: none) scale each example's budget C."""
    _run_ordinal(False, w.shape[0], read_only(data), read_only(indices), read_only(indptr), ranks,
                 order, w, b, scheme, params, counts, flags, weights)


@njit(cache=True)
def learn_one_ordinal(idx, vals, rank, w, b, scheme, params, counts):
    """The streaming step on one row: returns the score ``w·x`` before the update (the
    prediction is the first threshold not below it)."""
    f = dot(idx, vals, w)[0]
    k, n_mistakes, updated = _ordinal_trial(idx, vals, rank, w, b, scheme, params)
    count_trial(counts, np.empty(0, np.int8), 0, k, n_mistakes, updated)
    return f


@njit(cache=True)
def run_ordinal_dense(X, ranks, order, w, b, scheme, params, counts, flags, weights):
    """Online ordinal pass over the dense rows ``X[order]``; ``weights`` as in
    :func:`run_ordinal_sparse`."""
    n_features = X.shape[1]
    _run_ordinal(True, n_features, read_only(X.reshape(X.size)), np.arange(n_features),
                 np.empty(0, np.int64), ranks, order, w, b, scheme, params, counts, flags,
                 weights)
