"""Synthetic data on which the theorems' assumptions hold by construction (tests only).

Our generators for Crammer & Singer's Theorems 3–4 and 7–10 (G1, G2) and for Matsushima et al.'s
Theorems 4.1–4.2, plus the measured quantities the bounds are stated in (realized margin γ,
radius R, the slack norm D of Theorem 4, the hinge losses of a comparator U).  Every function takes
a ``numpy.random.Generator`` so that tests are seeded.

Conventions: labels are class indices 0..k−1, ``M`` (or ``U``) has shape (k, n) and scores are
``X @ M.T``.  "Margin" of a matrix on (x, y) is ``M_y·x − max_{r≠y} M_r·x``.
"""
import numpy as np


# ----------------------------------------------------------------------------- measurements
def margins(M, X, y):
    """Per-example margin ``M_y·x − max_{r≠y} M_r·x`` of the (k, n) matrix ``M``."""
    scores = np.asarray(X) @ np.asarray(M).T
    idx = np.arange(scores.shape[0])
    true = scores[idx, y].copy()
    scores[idx, y] = -np.inf
    return true - scores.max(axis=1)


def radius(X):
    """``R = max_t ‖x^t‖``."""
    return float(np.sqrt((np.asarray(X) ** 2).sum(axis=1).max()))


def slack_norm(M, X, y, gamma):
    """Theorem 4's ``D = sqrt(Σ_t d_t²)``, ``d_t = max{0, γ − margin_t}`` over the given stream."""
    d = np.maximum(0.0, gamma - margins(M, X, y))
    return float(np.sqrt((d ** 2).sum()))


def max_hinge_losses(W, X, y):
    """Multiclass (max) hinge loss ``max_{v≠y} [1 − (w_y·x − w_v·x)]_+`` of ``W`` per example."""
    return np.maximum(0.0, 1.0 - margins(W, X, y))


def _unit_rows(rng, n_rows, n_features):
    u = rng.normal(size=(n_rows, n_features))
    return u / np.linalg.norm(u, axis=1, keepdims=True)


# ------------------------------------------------------------ Crammer & Singer 2003, §4.1, §5.3
def g1(rng, n_classes, n_features, n_samples=300, gamma0=0.03, r0=1.0, max_draws=2_000_000):
    """G1: separable multiclass data with margin.

    ``M*`` has i.i.d. N(0, 1) entries scaled to ‖M*‖_F = 1; ``x = ρu`` with ``u`` uniform on
    the sphere and ``ρ ~ U[0.3, 1]·r0``; ``y = argmax_r M*_r·x``; an example is kept only if its
    margin is ≥ ``gamma0`` (rejection sampling).

    Returns ``X, y, M_star, gamma, R`` with the *realized* ``γ = min_t margin_t ≥ gamma0`` and
    ``R = max_t ‖x^t‖``.
    """
    M = rng.normal(size=(n_classes, n_features))
    M /= np.linalg.norm(M)
    kept_X, kept_y, n_kept, drawn = [], [], 0, 0
    while n_kept < n_samples:
        if drawn > max_draws:
            raise RuntimeError("G1 acceptance rate too low; lower gamma0")
        batch = 4096
        X = _unit_rows(rng, batch, n_features) * (rng.uniform(0.3, 1.0, size=(batch, 1)) * r0)
        y = np.argmax(X @ M.T, axis=1)
        keep = margins(M, X, y) >= gamma0
        kept_X.append(X[keep])
        kept_y.append(y[keep])
        n_kept += int(keep.sum())
        drawn += batch
    X = np.concatenate(kept_X)[:n_samples]
    y = np.concatenate(kept_y)[:n_samples]
    gamma = float(margins(M, X, y).min())
    assert gamma >= gamma0 > 0
    return X, y, M, gamma, radius(X)


def g2(rng, n_classes, n_features, n_samples=300, noise=0.05):
    """G2: non-separable multiclass data (Theorem 4).

    As G1 without rejection: ``x`` uniform on the unit sphere, ``y = argmax_r M*_r·x`` with
    ‖M*‖_F = 1, then ``y`` is replaced by a uniformly random label with probability ``noise``.
    Returns ``X, y, M_star, R``; ``γ`` is chosen by the caller and ``D`` is measured with
    :func:`slack_norm` over the stream actually fed (all epochs concatenated).
    """
    M = rng.normal(size=(n_classes, n_features))
    M /= np.linalg.norm(M)
    X = _unit_rows(rng, n_samples, n_features)
    y = np.argmax(X @ M.T, axis=1)
    flip = rng.random(n_samples) < noise
    y[flip] = rng.integers(0, n_classes, size=int(flip.sum()))
    return X, y, M, radius(X)


def binary_separable(rng, n_features, n_samples=300, gamma0=0.05):
    """Two-class separable data for Novikoff's bound: unit ``w*``, ``x`` uniform in the shell
    ρ ∈ [0.3, 1], labels ``y = 1[w*·x > 0]`` (classes 0/1), kept if ``|w*·x| ≥ gamma0``.
    Returns ``X, y, w_star, gamma, R`` with the realized γ = min_t |w*·x^t|."""
    w = rng.normal(size=n_features)
    w /= np.linalg.norm(w)
    kept = []
    n_kept = 0
    while n_kept < n_samples:
        X = _unit_rows(rng, 4096, n_features) * rng.uniform(0.3, 1.0, size=(4096, 1))
        X = X[np.abs(X @ w) >= gamma0]
        kept.append(X)
        n_kept += X.shape[0]
    X = np.concatenate(kept)[:n_samples]
    y = (X @ w > 0).astype(np.int64)
    gamma = float(np.abs(X @ w).min())
    return X, y, w, gamma, radius(X)


# --------------------------------------------------------------- Matsushima et al. 2010, §4
def margin_one_separable(rng, n_classes, n_features, n_samples=300, reject_quantile=0.25):
    """For Matsushima et al. Theorem 4.1: ``U0`` Gaussian, ``x ~ N(0, I)``,
    ``y = argmax U0 x``; examples whose top-2 score gap is below the ``reject_quantile`` quantile of
    a pool are rejected; then ``U = U0/m`` with ``m`` the realized minimum margin, so every margin
    of U is ≥ 1 (every loss ℓ(U) = 0).  Returns ``X, y, U, R``."""
    U0 = rng.normal(size=(n_classes, n_features))
    pool = rng.normal(size=(4 * n_samples, n_features))
    y_pool = np.argmax(pool @ U0.T, axis=1)
    gap = margins(U0, pool, y_pool)
    keep = gap > np.quantile(gap, reject_quantile)
    X, y = pool[keep][:n_samples], y_pool[keep][:n_samples]
    assert X.shape[0] == n_samples
    U = U0 / margins(U0, X, y).min()
    assert margins(U, X, y).min() >= 1.0 - 1e-12
    return X, y, U, radius(X)


def noisy_fixed_norm(rng, n_classes, n_features, n_samples=300, noise=0.2, norm=1.0):
    """For Matsushima et al. Theorem 4.2: every ‖x‖ = ``norm`` exactly, ``y = argmax U0 x``
    for a Gaussian ``U0``, then with probability ``noise`` a uniformly random label.  Returns
    ``X, y, U0``."""
    U0 = rng.normal(size=(n_classes, n_features))
    X = _unit_rows(rng, n_samples, n_features) * norm
    y = np.argmax(X @ U0.T, axis=1)
    flip = rng.random(n_samples) < noise
    y[flip] = rng.integers(0, n_classes, size=int(flip.sum()))
    return X, y, U0
