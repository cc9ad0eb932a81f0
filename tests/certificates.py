"""Optimality certificates for the per-round convex problems, independent of any solver.

A rule whose step is defined as the solution of a convex problem is checked here by the
Karush–Kuhn–Tucker conditions at the rule's own point, not by a generic solver's success flag
(SLSQP answers "Positive directional derivative for linesearch" or stops a few digits early on
some CPUs and BLAS kernels while sitting at the optimum).  For a convex differentiable objective
f and linear constraints ``A z ≤ b``, ``E z = e``, a feasible z is optimal if and only if there are
multipliers λ ≥ 0 (on the active rows of A) and μ with

    ∇f(z) + Aᵀλ + Eᵀμ = 0,        λ_i (b − A z)_i = 0.

The multipliers are found by non-negative least squares on the active rows, so the stationarity
residual left over is the distance of −∇f(z) from the cone the active constraints span.  From
it follows a bound on the suboptimality: for every feasible x,
``f(z) − f(x) ≤ ‖r‖·‖x − z‖ + Σ λ_i (b − A z)_i`` (convexity plus the multipliers' signs), i.e.
the duality gap of the certificate.  A generic solver is still run beside it by the callers, as
a second opinion that needs no flag: its point, when feasible, must not be better than ours.
"""
from dataclasses import dataclass

import numpy as np
from scipy.optimize import nnls


@dataclass
class Certificate:
    infeasibility: float  # largest relative violation of a constraint
    stationarity: float  # ‖∇f + Aᵀλ + Eᵀμ‖ relative to the size of its terms
    complementarity: float  # Σ λ_i (b − A z)_i relative to the size of the terms
    multipliers: np.ndarray  # λ of every row of A (zero on inactive rows), then μ

    def assert_optimal(self, tol=1e-8, msg=""):
        assert self.infeasibility <= tol, f"{msg}: infeasible by {self.infeasibility:.3g}"
        assert self.stationarity <= tol, f"{msg}: KKT stationarity {self.stationarity:.3g}"
        assert self.complementarity <= tol, f"{msg}: complementarity {self.complementarity:.3g}"


def _rows(matrix, vector, n):
    if matrix is None:
        return np.zeros((0, n)), np.zeros(0)
    return np.atleast_2d(np.asarray(matrix, float)), np.atleast_1d(np.asarray(vector, float))


def kkt_certificate(z, grad, A_ub=None, b_ub=None, A_eq=None, b_eq=None, active_tol=1e-9):
    """The KKT certificate of ``z`` for ``min f s.t. A_ub z ≤ b_ub, A_eq z = b_eq`` with
    ``grad = ∇f(z)``; see the module docstring.  A row is active when its slack is at most
    ``active_tol`` relative to the row's own scale (``|b_i| + ‖A_i‖‖z‖``)."""
    z = np.asarray(z, float)
    grad = np.asarray(grad, float)
    n = z.size
    A, b = _rows(A_ub, b_ub, n)
    E, e = _rows(A_eq, b_eq, n)
    size_z = np.linalg.norm(z)
    row_scale_a = np.abs(b) + np.linalg.norm(A, axis=1) * size_z + np.finfo(float).tiny
    row_scale_e = np.abs(e) + np.linalg.norm(E, axis=1) * size_z + np.finfo(float).tiny
    slack = b - A @ z
    infeasibility = max([0.0, *(-slack / row_scale_a), *(np.abs(E @ z - e) / row_scale_e)])
    active = slack <= active_tol * row_scale_a
    # −∇f = Aₐᵀλ + Eᵀ(μ⁺ − μ⁻), λ, μ± ≥ 0
    basis = np.hstack([A[active].T, E.T, -E.T])
    if basis.shape[1]:
        coefficients, residual = nnls(basis, -grad, maxiter=50 * basis.shape[1] + 100)
    else:
        coefficients, residual = np.zeros(0), np.linalg.norm(grad)
    n_active = int(active.sum())
    lam = np.zeros(A.shape[0])
    lam[active] = coefficients[:n_active]
    mu = coefficients[n_active:n_active + E.shape[0]] - coefficients[n_active + E.shape[0]:]
    terms = np.linalg.norm(grad) + np.abs(basis @ coefficients).sum() if basis.size else \
        np.linalg.norm(grad)
    scale = max(terms, np.finfo(float).tiny)
    complementarity = float(lam @ np.maximum(slack, 0.0)) / max(
        scale * (size_z + 1.0), np.finfo(float).tiny)
    return Certificate(float(infeasibility), float(residual / scale), complementarity,
                       np.concatenate([lam, mu]))
