"""Synthetic data of the papers: Chess-Board, separable multiclass data with a margin, and blocks.

* :func:`make_chessboard` — Crammer & Singer's Chess-Board (§8, Table 1);
* :func:`make_separable` — linearly separable multiclass data with a chosen margin, returning
  the realised margin γ and radius R that the mistake bounds are stated in (Crammer & Singer,
  Theorems 3, 7, 9 and 14; the generator is ours);
* :func:`make_simplex_blocks` — the block generator of the simultaneous-projection experiments
  (Amit, Shalev-Shwartz & Singer §9.1): blocks of {−1, 0, 1} instances labelled by one sparse
  target on the simplex.

Every generator is seeded by ``random_state`` (an int, a ``numpy.random.Generator``, a
``numpy.random.RandomState`` or None) and gives the same data for the same seed.
"""
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np

__all__ = ["make_chessboard", "make_separable", "make_simplex_blocks", "SeparableData",
           "BlockData", "Blocks"]


def _generator(random_state):
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(2**32, dtype=np.uint64))
    return np.random.default_rng(random_state)


def _check_int(name, value, low):
    if not isinstance(value, Integral) or value < low:
        raise ValueError(f"{name} must be an integer ≥ {low}; got {value!r}.")


def _check_real(name, value, low, high, *, closed_low=True):
    if not isinstance(value, Real) or not (
            (low <= value if closed_low else low < value) and value <= high):
        raise ValueError(f"{name} must be a number in {'[' if closed_low else '('}{low}, {high}]; "
                         f"got {value!r}.")


# ---------------------------------------------------------------------------- Chess-Board
def make_chessboard(n_samples=10_000, *, n_cells=8, n_classes=8, random_state=None):
    """Crammer & Singer's Chess-Board: points of the unit square labelled by their square.

    ``x`` is uniform on [0, 1]²; the square is cut into ``n_cells`` × ``n_cells`` equal
    squares indexed ``i = ⌊n_cells·x₁⌋``, ``j = ⌊n_cells·x₂⌋`` (0-based, 1.0 mapped to the
    last square), and every point of square (i, j) gets the label ``((i + j) mod n_classes) + 1``.
    With the defaults (the paper's): 8 balanced classes, each the union of 8 squares along
    wrapped anti-diagonals, noise-free but not linearly separable (a kernel is needed).  The
    paper draws a training and a test set of 10,000 points each, independently: call twice
    with different seeds.

    Parameters
    ----------
    n_samples : int, default=10000
    n_cells : int, default=8
        Squares per side.
    n_classes : int, default=8
    random_state : int, Generator, RandomState or None

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,), labels 1..n_classes

    Examples
    --------
    >>> from onlinear.data import make_chessboard
    >>> X, y = make_chessboard(5, random_state=0)
    >>> X.round(3)
    array([[0.637, 0.27 ],
           [0.041, 0.017],
           [0.813, 0.913],
           [0.607, 0.729],
           [0.544, 0.935]])
    >>> y  # e.g. the first point is in square (5, 2): ((5 + 2) mod 8) + 1 = 8
    array([8, 1, 6, 2, 4])
    """
    _check_int("n_samples", n_samples, 0)
    _check_int("n_cells", n_cells, 1)
    _check_int("n_classes", n_classes, 1)
    X = _generator(random_state).uniform(0.0, 1.0, size=(n_samples, 2))
    cells = np.minimum(np.floor(X * n_cells).astype(np.int64), n_cells - 1)
    return X, (cells.sum(axis=1) % n_classes) + 1


# ------------------------------------------------------------------- separable with margin
class SeparableData(NamedTuple):
    """Output of :func:`make_separable`.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Instances.
    y : ndarray of shape (n_samples,)
        Labels 0..n_classes−1 (row indices of ``M``).
    M : ndarray of shape (n_classes, n_features)
        The separating matrix M*, ‖M*‖_F = 1.
    margin : float
        Realised margin γ = min_t (M*_{y_t}·x_t − max_{r≠y_t} M*_r·x_t), ≥ the requested one.
    radius : float
        Realised radius R = max_t ‖x_t‖.
    """

    X: np.ndarray
    """Instances, shape (n_samples, n_features)."""
    y: np.ndarray
    """Labels 0..n_classes−1 (row indices of ``M``)."""
    M: np.ndarray
    """The separating matrix M*, shape (n_classes, n_features), ‖M*‖_F = 1."""
    margin: float
    """Realised margin γ = min_t (M*_{y_t}·x_t − max_{r≠y_t} M*_r·x_t), ≥ the requested one."""
    radius: float
    """Realised radius R = max_t ‖x_t‖."""


def _margins(M, X, y):
    scores = X @ M.T
    rows = np.arange(scores.shape[0])
    true = scores[rows, y].copy()
    scores[rows, y] = -np.inf
    return true - scores.max(axis=1)


def make_separable(n_samples=300, n_features=10, n_classes=5, *, margin=0.03, radius=1.0,
                   random_state=None, max_draws=10_000_000):
    """Linearly separable multiclass data with margin at least ``margin``: the setting of
    Crammer & Singer's Theorems 3, 7, 9 and 14 (the generator itself is ours).

    M* has i.i.d. N(0, 1) entries scaled to ‖M*‖_F = 1.  Instances are ``x = ρu``, with ``u``
    uniform on the unit sphere and ``ρ ~ U[0.3, 1]·radius``, labelled ``y = argmax_r M*_r·x``
    and kept only if their margin ``M*_y·x − max_{r≠y} M*_r·x`` is at least ``margin``
    (rejection sampling).  The bounds of the ultraconservative algorithms are to be checked
    with the *realised* γ and R, which are returned.

    Parameters
    ----------
    n_samples : int, default=300
    n_features : int, default=10
    n_classes : int, default=5
    margin : float, default=0.03
        The requested margin γ₀ > 0 (of the unit-norm M*).  Suggested: 0.01–0.05 for
        ``radius=1``, 2–10 classes and 2–20 features; larger values make acceptance rare.
    radius : float, default=1.0
        R₀: norms of the instances are drawn in [0.3·R₀, R₀].
    random_state : int, Generator, RandomState or None
    max_draws : int, default=10_000_000
        Candidate instances drawn before giving up (``RuntimeError``) when the margin is too
        large for the acceptance rate.

    Returns
    -------
    SeparableData
        ``X, y, M, margin, radius``, with ``margin ≥`` the requested margin and ``y`` in
        0..n_classes−1.

    Examples
    --------
    >>> from onlinear.data import make_separable
    >>> data = make_separable(200, n_features=5, n_classes=3, margin=0.05, random_state=0)
    >>> data.X.shape, sorted(set(data.y.tolist()))
    ((200, 5), [0, 1, 2])
    >>> bool(data.margin >= 0.05), bool(data.radius <= 1.0)
    (True, True)
    """
    _check_int("n_samples", n_samples, 1)
    _check_int("n_features", n_features, 1)
    _check_int("n_classes", n_classes, 2)
    _check_real("margin", margin, 0.0, np.inf, closed_low=False)
    _check_real("radius", radius, 0.0, np.inf, closed_low=False)
    rng = _generator(random_state)
    M = rng.normal(size=(n_classes, n_features))
    M /= np.linalg.norm(M)
    kept_X, kept_y, n_kept, drawn = [], [], 0, 0
    batch = max(1024, min(65536, 4 * n_samples))
    while n_kept < n_samples:
        if drawn >= max_draws:
            raise RuntimeError(
                f"only {n_kept} of {n_samples} instances reached margin {margin} in {drawn} "
                "draws: ask for a smaller margin (or raise max_draws)")
        u = rng.normal(size=(batch, n_features))
        u /= np.linalg.norm(u, axis=1, keepdims=True)
        X = u * rng.uniform(0.3 * radius, radius, size=(batch, 1))
        y = np.argmax(X @ M.T, axis=1)
        keep = _margins(M, X, y) >= margin
        kept_X.append(X[keep])
        kept_y.append(y[keep])
        n_kept += int(keep.sum())
        drawn += batch
    X = np.concatenate(kept_X)[:n_samples]
    y = np.concatenate(kept_y)[:n_samples]
    return SeparableData(X, y, M, float(_margins(M, X, y).min()),
                         float(np.linalg.norm(X, axis=1).max()))


# ------------------------------------------------------------------------ simplex blocks
class Blocks(NamedTuple):
    """Trials of binary constraints in the block engine's general-block format (Amit et al. §2):
    trial ``t`` is the rows ``block_ptr[t]:block_ptr[t + 1]`` of ``X`` with labels ``y`` (±1).

    Parameters
    ----------
    X : sparse matrix (CSR) or ndarray of shape (n_rows, n_features)
        Instances, one per row.
    y : ndarray of shape (n_rows,)
        Labels −1.0 / +1.0 of the rows.
    block_ptr : ndarray of int64, shape (n_trials + 1,)
        Offsets of the trials, from 0 to n_rows.
    """

    X: object
    """Instances, one per row: a CSR matrix or a 2-D array, shape (n_rows, n_features)."""
    y: np.ndarray
    """Labels −1.0 / +1.0 of the rows, shape (n_rows,)."""
    block_ptr: np.ndarray
    """int64 offsets, shape (n_trials + 1,), from 0 to n_rows."""


class BlockData(NamedTuple):
    """Output of :func:`make_simplex_blocks`.

    Parameters
    ----------
    X : ndarray of shape (n_trials, block_size, n_features)
        Instances in {−1, 0, 1}: one block per trial.
    y : ndarray of shape (n_trials, block_size)
        Observed labels ±1 (after the label noise).
    y_clean : ndarray of shape (n_trials, block_size)
        Labels sign(ω·x) before the noise.
    omega : ndarray of shape (n_features,)
        The target ω on the probability simplex.
    margin : float
        γ_gen: every instance has |ω·x| ≥ γ_gen (ω/γ_gen separates with margin 1).
    noisy : ndarray of bool, shape (n_trials,)
        Which trials were chosen for contamination.
    """

    X: np.ndarray
    """Instances in {−1, 0, 1}, shape (n_trials, block_size, n_features): one block per trial."""
    y: np.ndarray
    """Observed labels ±1 (after the label noise), shape (n_trials, block_size)."""
    y_clean: np.ndarray
    """Labels sign(ω·x) before the noise."""
    omega: np.ndarray
    """The target ω on the probability simplex, shape (n_features,)."""
    margin: float
    """γ_gen: every instance has |ω·x| ≥ γ_gen (ω/γ_gen separates with margin 1)."""
    noisy: np.ndarray
    """Which trials were chosen for contamination, shape (n_trials,)."""

    def blocks(self, *, sparse=True, clean=False):
        """The trials in the block engine's general-block format, ready for
        :class:`onlinear.BlockLearner`: rows stacked trial after trial.

        Parameters
        ----------
        sparse : bool, default=True
            ``X`` as a CSR matrix (the instances are about half zeros), else a 2-D array.
        clean : bool, default=False
            Labels before the noise (``y_clean``) instead of the observed ones.

        Returns
        -------
        Blocks
            ``X`` of shape (n_trials·block_size, n_features), ``y`` of ±1.0,
            ``block_ptr = [0, k, 2k, …]``.

        Examples
        --------
        >>> from onlinear.data import make_simplex_blocks
        >>> data = make_simplex_blocks(3, block_size=2, n_features=10, n_relevant=4,
        ...                            n_margin_samples=1000, random_state=0)
        >>> blocks = data.blocks()
        >>> blocks.X.shape, blocks.y.shape, blocks.block_ptr.tolist()
        ((6, 10), (6,), [0, 2, 4, 6])
        """
        n_trials, block_size, n_features = self.X.shape
        X = self.X.reshape(n_trials * block_size, n_features)
        if sparse:
            import scipy.sparse as sp
            X = sp.csr_matrix(X)
        y = (self.y_clean if clean else self.y).reshape(-1).astype(np.float64)
        return Blocks(X, y, np.arange(n_trials + 1, dtype=np.int64) * block_size)


def _ternary(rng, shape, p_zero):
    """Entries 0 with probability ``p_zero``, else ±1 with equal probability."""
    u = rng.random(shape)
    plus = p_zero + (1.0 - p_zero) / 2.0
    return np.where(u < p_zero, 0, np.where(u < plus, 1, -1)).astype(np.int8)


def make_simplex_blocks(n_trials=1000, block_size=5, n_features=500, n_relevant=50, *,
                        p_zero=0.5, margin_quantile=0.75, noise=0.0, flip=0.4,
                        n_margin_samples=100_000, random_state=None, dtype=np.float64):
    """Blocks of binary problems labelled by one sparse simplex target (Amit, Shalev-Shwartz &
    Singer §9.1).

    * Target ω: ``n_relevant`` features chosen at random get i.i.d. U[0, 1] weights, the rest
      0, normalised to l1 norm 1 (ω is on the simplex, as the multiplicative updates need).
    * Instances: each entry 0 with probability ``p_zero``, otherwise ±1 with equal
      probability (the paper does not give p; 0.5 is our choice).
    * Margin: γ_gen is the ``margin_quantile`` quantile of |ω·x| under this process, estimated
      from ``n_margin_samples`` draws; instances with |ω·x| < γ_gen are rejected and drawn
      again, so ``margin_quantile=0.75`` means 75% of the raw instances fall inside the
      margin.  Labels are sign(ω·x).
    * Blocks: the ``block_size`` instances of a trial are independent draws.
    * Label noise: each trial is chosen for contamination with probability ``noise``, and in a
      chosen trial each label is flipped independently with probability ``flip``.

    Parameters
    ----------
    n_trials : int, default=1000
    block_size : int, default=5
        Instances per trial (k).  The paper: 1 to 50 (block-size experiment), 5 and 20.
    n_features : int, default=500
    n_relevant : int, default=50
        Non-zero entries of ω (the paper: 10%–50% of ``n_features``).
    p_zero : float, default=0.5
    margin_quantile : float, default=0.75
    noise : float, default=0.0
        The paper: 0, 0.05, 0.1, 0.15, 0.2.
    flip : float, default=0.4
    n_margin_samples : int, default=100000
    random_state : int, Generator, RandomState or None
    dtype : numpy dtype, default=float64
        Type of ``X``.

    Returns
    -------
    BlockData
        ``X, y, y_clean, omega, margin, noisy``; ``.blocks()`` gives the trials in the block
        engine's format (rows, ±1 labels, block offsets).

    Examples
    --------
    >>> import numpy as np
    >>> from onlinear.data import make_simplex_blocks
    >>> data = make_simplex_blocks(100, block_size=4, n_features=40, n_relevant=8,
    ...                            n_margin_samples=10_000, random_state=0)
    >>> data.X.shape, data.y.shape
    ((100, 4, 40), (100, 4))
    >>> bool(np.isclose(data.omega.sum(), 1.0)), int((data.omega > 0).sum())
    (True, 8)
    >>> bool(np.all(np.abs(data.X @ data.omega) >= data.margin))
    True
    """
    _check_int("n_trials", n_trials, 0)
    _check_int("block_size", block_size, 1)
    _check_int("n_features", n_features, 1)
    _check_int("n_relevant", n_relevant, 1)
    if n_relevant > n_features:
        raise ValueError(f"n_relevant={n_relevant} exceeds n_features={n_features}.")
    _check_real("p_zero", p_zero, 0.0, 1.0)
    if p_zero == 1.0:
        raise ValueError("p_zero=1 gives only zero instances, which no margin separates.")
    _check_real("margin_quantile", margin_quantile, 0.0, 1.0)
    if margin_quantile == 1.0:
        raise ValueError("margin_quantile must be below 1 (no instance would be accepted).")
    _check_real("noise", noise, 0.0, 1.0)
    _check_real("flip", flip, 0.0, 1.0)
    _check_int("n_margin_samples", n_margin_samples, 1)
    rng = _generator(random_state)

    relevant = np.sort(rng.choice(n_features, size=n_relevant, replace=False))
    weights = rng.uniform(0.0, 1.0, size=n_relevant)
    weights /= weights.sum()
    omega = np.zeros(n_features)
    omega[relevant] = weights

    # Only the relevant entries decide |ω·x|, and entries are independent: draw those first
    # and the others for the accepted instances only (same distribution, far fewer draws).
    batch = 8192
    sample = np.concatenate([
        np.abs(_ternary(rng, (min(batch, n_margin_samples - start), n_relevant), p_zero) @ weights)
        for start in range(0, n_margin_samples, batch)])
    margin = float(np.quantile(sample, margin_quantile))
    if margin <= 0.0:
        raise ValueError(
            f"the {margin_quantile} quantile of |ω·x| is 0 (too many zero entries); lower "
            "p_zero or margin_quantile, or raise n_relevant")

    n_instances = n_trials * block_size
    accepted, n_accepted = [], 0
    while n_accepted < n_instances:
        part = _ternary(rng, (batch, n_relevant), p_zero)
        part = part[np.abs(part @ weights) >= margin]
        accepted.append(part)
        n_accepted += part.shape[0]
    X = np.zeros((n_instances, n_features), dtype=dtype)
    X[:, relevant] = np.concatenate(accepted)[:n_instances]
    others = np.setdiff1d(np.arange(n_features), relevant)
    X[:, others] = _ternary(rng, (n_instances, others.size), p_zero)
    scores = X @ omega
    y_clean = np.where(scores > 0, 1, -1).astype(np.int64)
    # Instances exactly at the quantile (|ω·x| takes few values) must stay outside the margin
    # however the dot product is rounded.
    margin = min(margin, float(np.abs(scores).min())) if n_instances else margin

    noisy = rng.random(n_trials) < noise
    flips = noisy[:, None] & (rng.random((n_trials, block_size)) < flip)
    y_clean = y_clean.reshape(n_trials, block_size)
    y = np.where(flips, -y_clean, y_clean)
    return BlockData(X.reshape(n_trials, block_size, n_features), y, y_clean, omega, margin, noisy)
