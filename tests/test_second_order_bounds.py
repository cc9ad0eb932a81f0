"""The papers' bounds on the estimators themselves (``test_second_order_reference`` checks them
on the numpy transcriptions): AROW's mistake bound (Crammer, Kulesza & Dredze, NIPS 2009,
Theorem 2 — statement UNCHECKED against the paper's text; the form below is the one that holds
in simulation) and the diagonal AdaGrad regret bound (Duchi, Hazan & Singer, JMLR 2011, the
diagonal bound as recalled — UNCHECKED), read from the estimators' rounds through
``learn_one`` and ``coef_``."""
import numpy as np
import pytest

from onlinear import AROW, AdaGrad


@pytest.mark.parametrize("seed", range(6))
def test_arow_estimator_meets_its_mistake_bound(seed):
    """Binary AROW, full Σ, Σ_1 = I: |M| ≤ √(r‖u‖² + uᵀX_A u)·√(log det(I + X_A/r)) +
    Σ_{t∈M∪U} max(0, 1 − y_t u·x_t), X_A the sum of x xᵀ over the rounds with margin < 1."""
    rng = np.random.default_rng(seed)
    d, T = int(rng.integers(3, 15)), 250
    u = rng.normal(size=d)
    u *= 3 / np.linalg.norm(u)
    X = rng.normal(size=(T, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    labels = np.where(X @ u >= 0, 1, -1)
    labels[rng.random(T) < [0.0, 0.05, 0.2][seed % 3]] *= -1
    r = [0.1, 1.0, 10.0][seed % 3]
    model = AROW(r=r, a=1.0, matrix="per-class")
    mistakes, XA, hinge = 0, np.zeros((d, d)), 0.0
    for t, (x, label) in enumerate(zip(X, labels)):
        margin = label * float(model.decision_function(x[None])[0]) if t else 0.0
        model.learn_one(x, int(label > 0), classes=[0, 1])
        if margin < 1:
            mistakes += margin <= 0
            XA += np.outer(x, x)
            hinge += max(0.0, 1 - label * u @ x)
    bound = (np.sqrt(r * u @ u + u @ XA @ u) * np.sqrt(np.linalg.slogdet(np.eye(d) + XA / r)[1])
             + hinge)
    # M, the rounds of margin ≤ 0, holds every wrong prediction (and the zero-score ties)
    assert 0 < model.n_mistakes_ <= mistakes <= bound


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("eta", [0.1, 1.0])
def test_adagrad_estimator_meets_its_regret_bound(seed, eta):
    """Mirror form, δ = 0, no regularizer, multiclass max-score hinge: for comparators W*,
    Σ_t ℓ_t(W_t) − ℓ_t(W*) ≤ (1/2η)·max_t‖W* − W_t‖²_∞·Σ‖g_{1:T}‖ + η·Σ‖g_{1:T}‖."""
    rng = np.random.default_rng(seed)
    K, d, T = 4, int(rng.integers(3, 10)), 300
    W_gen = rng.normal(size=(K, d))
    X = rng.normal(size=(T, d))
    y = np.argmax(X @ W_gen.T + 0.5 * rng.normal(size=(T, K)), axis=1)

    def hinge(W, x, label):
        scores = W @ x
        wrong = np.delete(scores, label)
        return max(0.0, 1 - scores[label] + wrong.max())

    model = AdaGrad(eta=eta, delta=0.0)
    iterates, losses = [], []
    for x, label in zip(X, y):
        W = model.coef_.copy() if iterates else np.zeros((K, d))
        iterates.append(W)
        losses.append(hinge(W, x, label))
        model.learn_one(x, label, classes=np.arange(K))
    grad_norms = np.sqrt(model.model_.squares).sum()  # Σ over coordinates of ‖g_{1:T}‖₂
    for W_star in (W_gen / np.abs(W_gen).max(), iterates[-1], np.zeros((K, d))):
        regret = sum(losses) - sum(hinge(W_star, x, label) for x, label in zip(X, y))
        D_inf = max(np.abs(W_star - W).max() for W in iterates)
        assert regret <= D_inf ** 2 * grad_norms / (2 * eta) + eta * grad_norms
