"""Mercer kernels for the dual (support-pattern) learners, with scikit-learn's conventions.

=============  ==================================================  ======================
``kernel``     ``K(x, x')``                                        parameters used
=============  ==================================================  ======================
``"linear"``   ``x·x'``                                            —
``"poly"``     ``(γ x·x' + c₀)^d``  (homogeneous when ``c₀ = 0``)  ``gamma, coef0, degree``
``"rbf"``      ``exp(−γ ‖x − x'‖²)``  (Gaussian of width σ:         ``gamma``
               ``γ = 1/(2σ²)``)
callable       ``kernel(A, B)`` returns the matrix ``K(A_i, B_j)``  —
=============  ==================================================  ======================

Crammer & Singer (end of §5.3, Eq. 21) replace every inner product of the additive learners
by K; their experiments (§8, Tables 3–5) use homogeneous polynomial kernels (MNIST, USPS) and a
Gaussian (Letter).

The compiled :func:`onlinear._core.kernel.kernel_row` scores one example against the whole support set in
vectorised sweeps over the support set (no Python runs per support pattern); the Gaussian uses
the cached ``‖x_i‖²`` of the support patterns: ``‖x_i − x‖² = ‖x_i‖² + ‖x‖² − 2 x_i·x``,
clipped at 0 against rounding.  A callable runs in Python, once per round (slow, but
the learner's arithmetic is otherwise the same).

>>> import numpy as np
>>> from onlinear.kernels import gram, resolve
>>> kind, params = resolve("poly", degree=2, gamma=1.0, coef0=1.0)
>>> gram(np.array([[1.0, 2.0]]), np.array([[3.0, 0.5]]), kind, params)
array([[25.]])
"""
from numbers import Integral, Real

import numpy as np

LINEAR = 0
POLY = 1
RBF = 2
CALLABLE = 3

KERNELS = {"linear": LINEAR, "poly": POLY, "rbf": RBF}

# kernel parameters vector: [gamma, coef0, degree]
GAMMA = 0
COEF0 = 1
DEGREE = 2


def resolve(kernel, degree=3, gamma=1.0, coef0=0.0):
    """``(kind, params)`` of a kernel specification, after checking its parameters (a numeric
    ``gamma``; ``"scale"``/``"auto"`` are resolved by the estimator from the data)."""
    if callable(kernel):
        return CALLABLE, np.zeros(3)
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {sorted(KERNELS)} or a callable; got {kernel!r}.")
    if isinstance(degree, bool) or not isinstance(degree, Integral) or degree < 0:
        raise ValueError(f"degree must be a non-negative integer; got {degree!r}.")
    if isinstance(gamma, bool) or not isinstance(gamma, Real) or not np.isfinite(gamma) \
            or gamma <= 0:
        raise ValueError(f"gamma must be a positive finite number; got {gamma!r}.")
    if isinstance(coef0, bool) or not isinstance(coef0, Real) or not np.isfinite(coef0):
        raise ValueError(f"coef0 must be a finite number; got {coef0!r}.")
    return KERNELS[kernel], np.array([float(gamma), float(coef0), float(degree)])


def gram(A, B, kind, params, B_sq=None, kernel=None, chunk=2048):
    """The matrix ``K(A_i, B_j)`` (A dense or CSR, B dense), computed in row chunks of A."""
    import scipy.sparse as sp
    from sklearn.utils.extmath import safe_sparse_dot

    if kind == CALLABLE:
        values = np.asarray(kernel(A, B), dtype=np.float64)
        if values.shape != (A.shape[0], B.shape[0]):  # (numpy would broadcast a wrong one)
            raise ValueError(f"the kernel callable returned an array of shape {values.shape} "
                             f"for {A.shape[0]} and {B.shape[0]} rows: K(A, B) must have shape "
                             "(len(A), len(B)).")
        return values
    out = np.empty((A.shape[0], B.shape[0]))
    if kind == RBF and B_sq is None:
        B_sq = np.einsum("ij,ij->i", B, B)
    for start in range(0, A.shape[0], chunk):
        block = A[start:start + chunk]
        dots = np.asarray(safe_sparse_dot(block, B.T, dense_output=True), dtype=np.float64)
        if kind == LINEAR:
            values = dots
        elif kind == POLY:
            values = (params[GAMMA] * dots + params[COEF0]) ** params[DEGREE]
        else:
            if sp.issparse(block):
                a_sq = np.asarray(block.multiply(block).sum(axis=1), dtype=np.float64).ravel()
            else:
                a_sq = np.einsum("ij,ij->i", block, block, dtype=np.float64)
            distance = np.maximum(a_sq[:, None] + B_sq[None, :] - 2.0 * dots, 0.0)
            values = np.exp(-params[GAMMA] * distance)
        out[start:start + chunk] = values
    return out


def scale_gamma(X):
    """``gamma="scale"``'s value for the rows ``X``: ``1 / (n_features · Var(X))`` (the variance
    of all the entries; 1 when it is 0), scikit-learn's ``SVC`` rule.

    A kernel learner resolves ``"scale"`` from the data of :meth:`fit` (or of ``stream``);
    ``partial_fit`` and ``learn_one`` see a stream a chunk at a time and take a number instead,
    which this computes from a sample of the stream.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_rows, n_features)
        The rows (a sample of the stream's).

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from onlinear.kernels import scale_gamma
    >>> scale_gamma(np.array([[0.0, 2.0], [2.0, 0.0]]))
    0.5
    """
    import scipy.sparse as sp

    if sp.issparse(X):
        mean = X.mean()
        variance = X.multiply(X).mean() - mean * mean
    else:
        X = np.asarray(X, dtype=np.float64)
        variance = X.var()
    return float(1.0 / (X.shape[1] * variance)) if variance > 0 else 1.0


def check_poly_squares(squares, kernel_params):
    """Raise ``ValueError`` unless the polynomial kernel ``(γ‖x‖² + c₀)^p`` of each row with
    itself (``squares``: the rows' ‖x‖²; ``kernel_params``: γ, c₀, p) is 0 or within the range
    every rule can use, ``[2^-2e, 2^2e]`` with e the accepted rows' norm exponent
    (:data:`onlinear._core.rows.ROW_NORM_EXPONENT`): ``|K(x, x')| ≤ √(K(x, x) K(x', x'))`` for
    ``c₀ ≥ 0``, so every kernel value, ``1/K(x, x)`` and the scores stay finite, and no
    ``K(x, x)`` underflows to 0, silently making x a zero row."""
    from ._core.rows import ROW_NORM_EXPONENT

    low, high = 2.0 ** (-2 * ROW_NORM_EXPONENT), 2.0 ** (2 * ROW_NORM_EXPONENT)
    gamma, coef0, degree = kernel_params
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        base = gamma * squares + coef0
        values = np.abs(base) ** degree
        bound = (gamma * squares + abs(coef0)) ** degree
    bad = ~((bound <= high) & ((values >= low) | (base == 0.0)))
    if bad.any():
        row = int(np.argmax(bad))
        raise ValueError(
            f"the polynomial kernel (gamma={gamma:g}, coef0={coef0:g}, degree={degree:g}) "
            f"overflows or underflows the usable float64 range on {int(bad.sum())} row(s) "
            f"(first: row {row}, "
            f"K(x, x) = {values[row]:.3g}; accepted: 0 or between 2^-"
            f"{2 * ROW_NORM_EXPONENT} and 2^{2 * ROW_NORM_EXPONENT}): scale the data or "
            f"lower gamma or degree.")
