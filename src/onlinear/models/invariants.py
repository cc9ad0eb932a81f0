"""What a started model must hold to be one the engine could have produced: checked on every
model that comes from outside the process — a file (:func:`onlinear.load`) or a pickle
(``__setstate__``) — before the compiled core sees any of it, so that no file can make the core
read or write outside an array, or learn NaN from a model it never made.

Each estimator family states its invariants in its ``_check_model`` (the primal store's are
:func:`check_primal_store`'s); this module holds the checks they share: an array's presence,
dtype, shape and finiteness (:func:`check_model_array`), a fitted scalar's type, the counters'
order, a lazy scale's range, a tracked size against the one its array gives, and
positive-definiteness.
"""
import numpy as np

from .._core.weights import (SCALE_HIGH, SCALE_HIGH_FLOAT32, SCALE_LOW, SCALE_LOW_FLOAT32)
from ..rules.layout import RAW_MASS, RAW_SQNORM, SCALE, SIZE_ANCHOR

#: Relative error allowed between a tracked size (‖w‖², a mass, a kernel's stored ‖x‖²) and the
#: one computed again from the arrays: the engine keeps them within a few ulps times the steps
#: since the last exact sum (its re-anchoring guard halves that window), far inside this.
SIZE_TOLERANCE = 1e-6


def shape_text(shape, free=None):
    """A declared shape as text, free dimensions given their value when known."""
    free = free or {}
    return "(" + ", ".join(str(free.get(s, s)) if isinstance(s, str) else str(s)
                           for s in shape) + ")"


def check_model_array(name, array, shape, dtype, free):
    """Raise ``ValueError`` unless ``array`` is a numpy array of exactly ``dtype`` and of
    ``shape`` (a string dimension is free, but the same wherever it appears: ``free`` records
    them), finite if floating, non-negative if integer.

    Parameters
    ----------
    name : str
        The attribute's name (for the message).
    array : object
        The value found.
    shape : tuple
        The expected shape (ints, or strings for free dimensions).
    dtype : numpy.dtype
        The expected dtype.
    free : dict
        Values of the free dimensions seen so far (updated).
    """
    if not isinstance(array, np.ndarray):
        raise ValueError(f"array {name} is missing (got {type(array).__name__}).")
    if array.dtype != dtype:
        raise ValueError(f"array {name} has dtype {array.dtype}; expected {dtype}.")
    if len(shape) != array.ndim:
        raise ValueError(f"array {name} has shape {array.shape}; expected {shape_text(shape)}.")
    for size, wanted in zip(array.shape, shape):
        if isinstance(wanted, str):
            wanted = free.setdefault(wanted, size)
        if size != wanted:
            raise ValueError(f"array {name} has shape {array.shape}; expected "
                             f"{shape_text(shape, free)}.")
    if array.dtype.kind == "f" and not np.isfinite(array).all():
        raise ValueError(f"array {name} holds NaN or infinity.")
    if array.dtype.kind in "iu" and (array < 0).any():
        raise ValueError(f"array {name} holds negative counts.")


def check_scalar(name, value, kind):
    """``value`` as the fitted scalar ``name`` of type ``kind`` (a type or a tuple of types),
    or ``ValueError``: an int stays an int (not a bool), a float may be given as an int, a
    count is not negative."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, (bool, np.bool_)) and bool not in kinds:
        raise ValueError(f"scalar {name}={value!r:.80} has the wrong type.")
    if int in kinds and isinstance(value, (int, np.integer)):
        value = int(value)
    elif float in kinds and isinstance(value, (int, float, np.integer, np.floating)):
        value = float(value)
        if not np.isfinite(value):
            raise ValueError(f"scalar {name}={value} is not finite.")
    elif not isinstance(value, kinds):
        raise ValueError(f"scalar {name}={value!r:.80} has the wrong type.")
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        raise ValueError(f"scalar {name}={value} is negative.")
    return value


def check_counters(n_seen, n_mistakes, n_updates):
    """The counters' order: a round is seen before it is a mistake or an update."""
    if n_mistakes > n_seen or n_updates > n_seen:
        raise ValueError(f"the counters are out of order: n_seen_={n_seen}, n_mistakes_="
                         f"{n_mistakes}, n_updates_={n_updates} (a round is seen before it "
                         "counts as a mistake or an update).")


def check_scale_range(name, scales, float32=False):
    """Every lazy scale within the range the engine keeps (it folds one that leaves
    ``(SCALE_LOW, SCALE_HIGH)``, ``2^±24`` for float32 weights)."""
    low, high = (SCALE_LOW_FLOAT32, SCALE_HIGH_FLOAT32) if float32 else (SCALE_LOW, SCALE_HIGH)
    magnitude = np.abs(np.asarray(scales, dtype=np.float64))
    if not np.all((magnitude > low) & (magnitude < high)):
        bad = float(np.asarray(scales).ravel()[np.argmax(~((magnitude > low) &
                                                           (magnitude < high)).ravel())])
        raise ValueError(f"{name}: a lazy scale factor {bad!r} is outside ({low:g}, {high:g}), "
                         "the range the engine keeps it in.")


def check_size(name, stored, exact, anchor=0.0, tolerance=SIZE_TOLERANCE):
    """A tracked size against the one the arrays give: within ``tolerance`` (by default
    :data:`SIZE_TOLERANCE`) of the larger of the two and of the running sum's anchor (its
    error is relative to that)."""
    stored, exact = np.asarray(stored, np.float64), np.asarray(exact, np.float64)
    if not np.isfinite(exact).all():
        raise ValueError(f"{name}: the size the arrays give overflows (values too large for "
                         "the engine).")
    reference = np.maximum(np.maximum(np.abs(stored), np.abs(exact)), np.abs(anchor))
    wrong = np.abs(stored - exact) > tolerance * reference
    if wrong.any():
        at = int(np.argmax(wrong))
        raise ValueError(f"{name}: the stored size {float(stored.ravel()[at])!r} disagrees "
                         f"with the arrays' {float(exact.ravel()[at])!r}.")


def check_primal_store(weights, state, multiplicative, updates=0):
    """The primal store's invariants (:mod:`onlinear.rules.layout`): every output's scale
    within the engine's range; its true weights' squared norm finite; the size the engine
    tracks — ``RAW_SQNORM = Σ_j W[j, r]²`` (additive) or ``RAW_MASS = Σ_j W[j, r]``
    (multiplicative) — equal to the weights' own within rounding; a multiplicative model's
    weights positive.

    Parameters
    ----------
    weights : ndarray of shape (n_features, n_outputs)
        The raw weights ``W``.
    state : ndarray of shape (n_state_rows, n_outputs)
        The engine's and the rule's state.
    multiplicative : bool
        Whether the weights are a multiplicative learner's (positive, normalized).
    updates : int, default=0
        The rounds that changed the weights.  float32 weights round every value a step
        writes (a relative ε32 = 2^-23 at most), while the size is tracked from the steps in
        float64: each step can part the two by ε32 of the anchor, so a float32 model's
        tolerance grows by that much per update (a float64 model's is the sums' rounding).
    """
    scales = state[SCALE]
    check_scale_range("_state", scales, weights.dtype == np.float32)
    tolerance = SIZE_TOLERANCE + (updates * float(np.finfo(np.float32).eps)
                                  if weights.dtype == np.float32 else 0.0)
    # (summed in float64 without a float64 copy of the weights: a load or an unpickling
    # would hold them twice)
    with np.errstate(over="ignore", invalid="ignore"):
        sqnorm = np.einsum("jr,jr->r", weights, weights, dtype=np.float64)
        if not np.isfinite(sqnorm * scales * scales).all():
            raise ValueError("_weights: a weight vector's norm overflows (weights too large "
                             "for the engine).")
    if multiplicative:
        if not (np.all(weights > 0.0) and np.all(scales > 0.0)):
            raise ValueError("_weights: a multiplicative model's weights must be positive.")
        check_size("_state (the weights' mass)", state[RAW_MASS],
                   weights.sum(axis=0, dtype=np.float64), state[SIZE_ANCHOR], tolerance)
    else:
        check_size("_state (the weights' squared norm)", state[RAW_SQNORM], sqnorm,
                   state[SIZE_ANCHOR], tolerance)


#: the smallest eigenvalue a positive definite matrix of the engines may show, as a share of
#: its largest: what rounding leaves of a direction the steps have shrunk to nothing
SEMIDEFINITE_TO_ROUNDING = 1e-9


def check_positive_definite(name, matrices):
    """Each ``(d, d)`` matrix of ``matrices`` (a stack) symmetric to rounding and positive
    definite to rounding: its largest eigenvalue positive, its smallest at least
    −:data:`SEMIDEFINITE_TO_ROUNDING` times it.  A Cholesky factorization is too strict: the
    engines' matrices are positive definite in exact arithmetic, but a direction their steps
    shrink to nothing (an IELLIP outside Theorem 4's c + b < 1, a NAROW or Gaussian step on a
    row far larger than the rest) keeps an eigenvalue at rounding's scale, of either sign,
    which the engine itself goes on with (and a file of it must load).  Returns the largest
    eigenvalue of each matrix."""
    largest = []
    for k, matrix in enumerate(matrices):
        asymmetry = np.abs(matrix - matrix.T).max(initial=0.0)
        if asymmetry > 1e-9 * np.abs(matrix).max(initial=0.0):
            raise ValueError(f"{name}: block {k} is not symmetric.")
        if matrix.size == 0:
            largest.append(0.0)
            continue
        eigenvalues = np.linalg.eigvalsh(matrix)
        largest.append(float(eigenvalues[-1]))
        if not (eigenvalues[-1] > 0.0
                and eigenvalues[0] >= -SEMIDEFINITE_TO_ROUNDING * eigenvalues[-1]):
            raise ValueError(f"{name}: block {k} is not positive definite: eigenvalues from "
                             f"{eigenvalues[0]:.3g} to {eigenvalues[-1]:.3g} (the engine's are "
                             "positive, or zero to rounding).")
    return largest
