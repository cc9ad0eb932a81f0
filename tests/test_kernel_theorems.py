"""Theorem 3 of Crammer & Singer in feature space: on data separable with margin γ by a
unit-norm M* in the kernel's feature space, every member of the additive family (uniform, max,
prop, Kesler), run in the dual, makes at most 2R²/γ² updates in total and converges, with
R² = max K(x, x) (= 1 for the Gaussian); the aggressive form with β > 0 makes at most
2(R² + β)/γ² (our derivation from the proof of Theorem 3, §4.1).

The comparator is a kernel expansion ``M*_r = Σ_j B_{j,r} φ(c_j)`` over random centres, scaled
so that ``‖M*‖² = Σ_r B_rᵀ G B_r = 1`` (G the centres' Gram matrix); points are labelled by it and
kept only where its margin is at least γ.
"""
import numpy as np
import pytest

import onlinear

GAMMA = 5.0  # of the Gaussian kernel


def _gaussian(A, B):
    return np.exp(-GAMMA * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))


def _separable_in_feature_space(n=400, k=4, n_centres=30, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-1, 1, (n_centres, 2))
    B = rng.standard_normal((n_centres, k))
    B /= np.sqrt(np.einsum("jr,jl,lr->", B, _gaussian(centres, centres), B))  # ‖M*‖ = 1
    X = rng.uniform(-1, 1, (20 * n, 2))
    scores = _gaussian(X, centres) @ B
    top = np.sort(scores, axis=1)
    margins = top[:, -1] - top[:, -2]
    margin = np.quantile(margins, 0.2)
    keep = np.flatnonzero(margins >= margin)[:n]
    return X[keep], np.argmax(scores[keep], axis=1), margins[keep].min()


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("beta", [0.0, 0.05])
@pytest.mark.parametrize("name", ["kernel-perceptron-uniform", "kernel-perceptron-max",
                                  "kernel-perceptron-prop", "kernel-kesler"])
def test_theorem_3_holds_in_feature_space(name, beta, seed):
    X, y, margin = _separable_in_feature_space(seed=seed)
    assert margin > 0
    model = onlinear.make(name, kernel="rbf", gamma=GAMMA, beta=beta)
    classes = np.unique(y)
    for _ in range(200):
        before = model.n_updates_ if hasattr(model, "classes_") else 0
        model.partial_fit(X, y, classes=classes)
        if model.n_updates_ == before:
            break
    else:
        pytest.fail("no epoch without updates: the learner did not converge")
    bound = 2.0 * (1.0 + beta) / margin ** 2  # R² = K(x, x) = 1
    assert 20 < model.n_updates_ <= bound  # measured: 0.01-0.02 of the bound
    assert model.score(X, y) == 1.0


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("beta", [0.1, 1.0])
def test_corollary_10_holds_for_kernel_mira(beta, seed):
    """Aggressive MIRA makes at most 4R⁴/(βγ²) mistakes for 0 < β ≤ R² (Corollary 10, §5.3)."""
    X, y, margin = _separable_in_feature_space(seed=seed)
    model = onlinear.make("kernel-mira", kernel="rbf", gamma=GAMMA, beta=beta)
    for _ in range(50):
        model.partial_fit(X, y, classes=np.unique(y))
    assert 10 < model.n_mistakes_ <= 4.0 / (beta * margin ** 2)  # R = 1
    assert model.score(X, y) == 1.0
