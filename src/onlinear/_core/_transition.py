"""TEMPORARY (removed when the ellipsoid and kernel engines are compiled ahead of time): numba
copies of the few primal functions the not-yet-ported numba engines call."""
import math

import numpy as np
from numba import njit

from .weights import column_dots


@njit(cache=True, error_model="numpy")
def binary_label(n_outputs, y, r):
    if n_outputs == 1:
        return 1.0 if y == 1 else -1.0
    return 1.0 if r == y else -1.0


@njit(cache=True, error_model="numpy")
def predict_index(scores, state, scale_free):
    m = scores.shape[0]
    if m == 1:
        return 1 if scores[0] > 0.0 else 0
    best = 0
    best_value = -np.inf
    for r in range(m):
        value = scores[r]
        if scale_free:
            norm = math.sqrt(state[0, r] * state[0, r] * state[1, r])
            value = value / norm if norm > 0.0 else 0.0
        if value > best_value:
            best = r
            best_value = value
    return best


@njit(cache=True, error_model="numpy")
def score(idx, vals, W, state, scores):
    q = column_dots(idx, vals, W, scores)
    for r in range(W.shape[1]):
        scores[r] *= state[0, r]
    return q


@njit(cache=True, error_model="numpy")
def weighted_steps(rule, scores, y, q, params, state, tau, factor, order, weight, weight_mode):
    raise NotImplementedError("the kernel engine is being ported")
