"""Plain-numpy transcriptions of the second-order (Gaussian) and adaptive first-order online
learners, written to be read and to be trusted by tests, not to be fast.

Every round is a function ``state in → (state out, info)``; inputs are never mutated.  The
Gaussian learners share one shape (Crammer, Dredze & Pereira 2008 and the papers after it): the
mean moves along Σx and the covariance shrinks by a rank-one term along Σx,

    μ ← μ + α·y·Σx,    Σ ← Σ − β·(Σx)(Σx)ᵀ    ⇔    Σ⁻¹ ← Σ⁻¹ + c·xxᵀ,   β = c/(1 + c·v),

so a rule is a map ``(m, v, params) → Step(α, β, c)`` of the margin m = y μ·x and the variance
v = xᵀΣx, and a *layout* (binary full or diagonal; multiclass stacked, per-class, diagonal,
shared) applies it.  A step is taken iff α > 0; a zero row (v = 0) never updates.

Conventions: binary labels are ±1 everywhere (the logistic loss log(1 + e^{−y s}) is McMahan et
al.'s (p − ỹ) gradient with ỹ = (y + 1)/2); binary prediction is +1 on a score > 0 (the
library's convention: a tie goes to the first class, where LIBOL predicts +1); multiclass
prediction and the support class s* = argmax_{k≠y} s_k take the lowest index on ties; multiclass
means are stored class-major, shape (K, d).

Paper equation numbers marked UNCHECKED below were recalled, not read: the papers' PDFs were
not available to the transcription, whose source for the printed closed forms is the LIBOL
manual v0.3.0 (the manual of Hoi, Wang & Zhao, "LIBOL", JMLR 15:495–499, 2014) and the problems
each paper states.  Check the PDF before copying a number into library docstrings.

Rule → paper (where) → what is followed, and where the printed text is not:

CW, variance form
    Dredze, Crammer & Pereira, ICML 2008, §3 (closed form and diagonal algorithm: equation and
    algorithm numbers UNCHECKED).  Closed form from the problem's KKT conditions (stable root).
    Diagonal increment 2αφ·x_j², not the 2αφ·diag(x) the paper is recalled to print (spec D19,
    UNCHECKED).
CW, standard-deviation (exact) form
    Crammer, Dredze & Pereira, NIPS 2008 (equations UNCHECKED); printed closed form = LIBOL
    manual Algorithm 8.  u written without cancellation (see ``std_form_beta``).
AROW
    Crammer, Kulesza & Dredze, NIPS 2009 (update: LIBOL manual Algorithm 10); mistake bound
    Theorem 2, statement UNCHECKED: tested in the form without "− |U|", which simulation
    violates.  The algorithm is its problem's minimiser on updating rounds only (m < 1).
SCW-I, SCW-II
    Wang, Zhao & Hoi, ICML 2012 (equations UNCHECKED); LIBOL manual Algorithm 13 with ℓ^φ as
    the trigger (the manual prints the hinge, D6).  LIBOL's SCW2.m misprint (D1) only as
    ``scw2-libol``.
NAROW
    Orabona & Crammer, NIPS 2010 (equations UNCHECKED): the first author's DOGMA code = LIBOL
    manual Algorithm 11, with the strict test χ > 1/b.  LIBOL's NAROW.m, a different algorithm
    (D7), as ``narow_libol_round``.
NHERD
    Crammer & Lee, NIPS 2010 (equations UNCHECKED); LIBOL manual Algorithm 12 with γ = 1/C.
    The manual's objective C·ℓ² is off by 2 (D18): the update follows (C/2)·ℓ².
multiclass, stacked
    Crammer, Dredze & Kulesza, EMNLP 2009 (MCW; sections UNCHECKED) and the multiclass AROW of
    Machine Learning 91(2), 2013: one max-score constraint on f(x, y) − f(x, s*); k constraints
    (variance form) by Hildreth's method — the paper's own multi-constraint algorithm UNCHECKED.
multiclass, shared Σ
    LIBOL manual §3.2.3, eqs. (1)–(8): the exact solutions of its problem; LIBOL's code (D2
    M_CW/M_SCW1 α, D3 trigger m < φ√v, D4 M_AROW α) only with ``libol_compat=True``.
multiclass, per-class and diagonal
    no paper: block-diagonal and diagonal restrictions (SOL, Jubatus, Hivemall); "project" /
    "drop" / NHERD's "exact" as the spec's §1.2 defines them.
AdaGrad, diagonal
    Duchi, Hazan & Singer, JMLR 2011, Algorithm 1; update numbers (3) RDA, (4) MD and the
    regret bound (Theorem 5) UNCHECKED.  H = δ + √G with the current g; t counts every round.
FTRL-Proximal
    McMahan et al., KDD 2013, Algorithm 1 as printed; multiclass: one (z, n) per (class,
    feature), the softmax or max-score hinge gradient rows.
"""
from functools import partial
from typing import NamedTuple

import numpy as np
from scipy.special import log_softmax, softmax
from scipy.stats import norm


class Step(NamedTuple):
    """Coefficients of one Gaussian update: mean step α, covariance drop β, inverse increment c."""
    alpha: float
    beta: float
    c: float


NO_STEP = Step(0.0, 0.0, 0.0)


def phi_of(eta):
    """φ = Φ⁻¹(η), the confidence parameter of CW and SCW, for η in the open interval (0.5, 1)."""
    if not 0.5 < eta < 1.0:
        raise ValueError(f"eta must lie in (0.5, 1), got {eta}")
    return float(norm.ppf(eta))


def std_form_beta(alpha, v, phi, paired=1):
    """β and c of the standard-deviation constraint after a mean step α (NIPS 2008; LIBOL manual
    Algorithm 8): u = ¼(−αvφ + √(α²v²φ² + 4v))² is the post-update variance v', β = αφ/(√u + αvφ),
    c = αφ/√u.  ``paired=2`` is the shared-Σ problem, whose margin variance is 2v (U = 2v')."""
    if alpha <= 0.0:
        return NO_STEP
    # √U = ½(√(a² + 4pv) − a) with a = αvφ, written without the cancellation that makes the
    # printed form return U = 0 (so c = ∞, σ = 0) once αφ√v ≫ 1: diagonal CW-std reaches that
    # within a hundred updates on rows with one dominant feature.
    a = alpha * v * phi
    sqrt_U = 2.0 * paired * v / (np.sqrt(a * a + 4.0 * paired * v) + a)
    return Step(alpha, alpha * phi / (sqrt_U + a), alpha * phi / sqrt_U)


# ---------------------------------------------------------------------------------------------
# Binary rules (m, v, params) → Step
# ---------------------------------------------------------------------------------------------
def cw_var_step(m, v, phi):
    """CW, variance form (Dredze, Crammer & Pereira, ICML 2008): the KKT point of
    min KL(N(μ,Σ) ‖ N(μ_t,Σ_t)) s.t. y μ·x ≥ φ xᵀΣx.  α is the positive root of
    2φv²α² + v(1 + 2φm)α + (m − φv) = 0, in its cancellation-free form when 1 + 2φm > 0;
    Σ'⁻¹ = Σ⁻¹ + 2αφ xxᵀ."""
    if not (v > 0.0) or m >= phi * v:
        return NO_STEP
    b = 1.0 + 2.0 * phi * m
    root = np.sqrt(b * b - 8.0 * phi * (m - phi * v))
    gamma = 2.0 * (phi * v - m) / (v * (b + root)) if b > 0 else (-b + root) / (4.0 * phi * v)
    alpha = max(0.0, gamma)
    return Step(alpha, 2 * alpha * phi / (1 + 2 * alpha * phi * v), 2 * alpha * phi)


def cw_std_step(m, v, phi):
    """CW, exact standard-deviation form (Crammer, Dredze & Pereira, NIPS 2008; LIBOL manual
    Algorithm 8): min KL s.t. y μ·x ≥ φ √(xᵀΣx).  α = max{0, [−mψ + √(m²φ⁴/4 + vφ²ζ)]/(vζ)},
    ψ = 1 + φ²/2, ζ = 1 + φ²."""
    if not (v > 0.0) or m >= phi * np.sqrt(v):
        return NO_STEP
    psi, zeta = 1 + phi**2 / 2, 1 + phi**2
    alpha = max(0.0, (-m * psi + np.sqrt(m**2 * phi**4 / 4 + v * phi**2 * zeta)) / (v * zeta))
    return std_form_beta(alpha, v, phi)


def scw1_step(m, v, phi, C):
    """SCW-I (Wang, Zhao & Hoi, ICML 2012; LIBOL manual Algorithm 13): min KL + C·ℓ^φ with
    ℓ^φ = max(0, φ√(xᵀΣx) − y μ·x); α = min{C, α_CW-std}."""
    alpha = min(C, cw_std_step(m, v, phi).alpha)
    return std_form_beta(alpha, v, phi)


def scw2_step(m, v, phi, C):
    """SCW-II (Wang, Zhao & Hoi, ICML 2012; LIBOL manual Algorithm 13): min KL + C·(ℓ^φ)².
    n = v + 1/(2C), γ = φ√(φ²m²v² + 4nv(n + vφ²)),
    α = max{0, [−(2mn + φ²mv) + γ] / (2(n² + nvφ²))}."""
    if not (v > 0.0) or m >= phi * np.sqrt(v):
        return NO_STEP
    n = v + 1 / (2 * C)
    gamma = phi * np.sqrt(phi**2 * m**2 * v**2 + 4 * n * v * (n + v * phi**2))
    alpha = max(0.0, (-(2 * m * n + phi**2 * m * v) + gamma) / (2 * (n**2 + n * v * phi**2)))
    return std_form_beta(alpha, v, phi)


def scw2_libol_step(m, v, phi, C):
    """LIBOL's binary SCW-II as coded (``SCW2.m`` line 46): the radicand reads v·2 for v² and
    φ·2 for φ² (spec D1).  Not the SCW-II optimum; for reproducing LIBOL's numbers only."""
    if not (v > 0.0) or m >= phi * np.sqrt(v):
        return NO_STEP
    n = v + 1 / (2 * C)
    radicand = phi**4 * m**2 * v * 2 + 4 * n * v * phi**2 * (n + v * phi * 2)
    alpha = max(0.0, (-(2 * m * n + phi**2 * m * v) + np.sqrt(radicand))
                / (2 * (n**2 + n * v * phi**2)))
    return std_form_beta(alpha, v, phi)


def arow_step(m, v, r):
    """AROW (Crammer, Kulesza & Dredze, NIPS 2009; LIBOL manual Algorithm 10): the minimiser of
    KL + (1/2r) max(0, 1 − y μ·x)² + (1/2r) xᵀΣx; β = 1/(v + r), α = (1 − m)β, c = 1/r."""
    if not (v > 0.0) or m >= 1.0:
        return NO_STEP
    beta = 1.0 / (v + r)
    return Step((1.0 - m) * beta, beta, 1.0 / r)


def nherd_step(m, v, C):
    """NHERD (Crammer & Lee, NIPS 2010; LIBOL manual Algorithm 12 with γ = 1/C):
    α = (1 − m)/(v + 1/C); Σ' = AΣAᵀ with A = (I + CΣxxᵀ)⁻¹, i.e. c = 2C + C²v."""
    if not (v > 0.0) or m >= 1.0:
        return NO_STEP
    return Step((1.0 - m) / (v + 1.0 / C), (C * C * v + 2 * C) / (1 + C * v) ** 2,
                2 * C + C * C * v)


RULES = {"cw-var": cw_var_step, "cw-std": cw_std_step, "scw1": scw1_step, "scw2": scw2_step,
         "scw2-libol": scw2_libol_step, "arow": arow_step, "nherd": nherd_step}


# ---------------------------------------------------------------------------------------------
# Shared-Σ multiclass rules (LIBOL manual §3.2.3): (m = s_y − s_{s*}, v = xᵀΣx) → Step
# ---------------------------------------------------------------------------------------------
def shared_cw_step(m, v, phi):
    """Exact solution of the shared-Σ CW problem (LIBOL manual §3.2.3): w_y, w_{s*} independent
    with one Σ, so the margin has variance 2v and the constraint is m' ≥ φ√(2v').
    α = max{0, [−m(ψ+1) + √(m²φ⁴/4 + 8vψφ²)]/(4vψ)}."""
    if not (v > 0.0) or m >= phi * np.sqrt(2 * v):
        return NO_STEP
    psi = 1 + phi**2 / 2
    alpha = max(0.0, (-m * (psi + 1) + np.sqrt(m**2 * phi**4 / 4 + 8 * v * psi * phi**2))
                / (4 * v * psi))
    return std_form_beta(alpha, v, phi, paired=2)


def shared_scw1_step(m, v, phi, C):
    """Shared-Σ SCW-I: α = min{C, α_shared-CW} (LIBOL manual §3.2.3, exact solution)."""
    return std_form_beta(min(C, shared_cw_step(m, v, phi).alpha), v, phi, paired=2)


def shared_scw2_step(m, v, phi, C):
    """Shared-Σ SCW-II (LIBOL manual §3.2.3, exact solution; = LIBOL's ``M_SCW2`` formula):
    n = 2v + 1/(2C), α = max{0, [−(2mn + φ²mv) + φ√(φ²m²v² + 8nv(n + vφ²))]/(2(n² + nvφ²))}."""
    if not (v > 0.0) or m >= phi * np.sqrt(2 * v):
        return NO_STEP
    return _shared_scw2_alpha(m, v, phi, C)


def _shared_scw2_alpha(m, v, phi, C):
    n = 2 * v + 1 / (2 * C)
    gamma = phi * np.sqrt(phi**2 * m**2 * v**2 + 8 * n * v * (n + v * phi**2))
    alpha = max(0.0, (-(2 * m * n + phi**2 * m * v) + gamma) / (2 * (n**2 + n * v * phi**2)))
    return std_form_beta(alpha, v, phi, paired=2)


def shared_arow_step(m, v, r):
    """Shared-Σ AROW: minimiser of KL_y + KL_{s*} + (1/2r)ℓ_h² + (1/2r)·2xᵀΣx;
    α = (1 − m)/(2v + r), β = 1/(v + r)."""
    if not (v > 0.0) or m >= 1.0:
        return NO_STEP
    return Step((1.0 - m) / (2 * v + r), 1.0 / (v + r), 1.0 / r)


def libol_shared_cw_step(m, v, phi):
    """LIBOL ``M_CW.m`` lines 45–48 as coded: trigger m < φ√v (D3) and the binary CW-std α with
    v → 2v, ζ → ψ (D2); β from the correct U given that α."""
    if not (v > 0.0) or m >= phi * np.sqrt(v):
        return NO_STEP
    psi = 1 + phi**2 / 2
    alpha = max(0.0, (-m * psi + np.sqrt(m**2 * psi**2 - m**2 * psi + 2 * v * phi**2 * psi))
                / (2 * v * psi))
    return std_form_beta(alpha, v, phi, paired=2)


def libol_shared_scw1_step(m, v, phi, C):
    """LIBOL ``M_SCW1.m``: min{C, the M_CW α}, same trigger (D2, D3)."""
    return std_form_beta(min(C, libol_shared_cw_step(m, v, phi).alpha), v, phi, paired=2)


def libol_shared_scw2_step(m, v, phi, C):
    """LIBOL ``M_SCW2.m``: the exact shared SCW-II α behind the trigger m < φ√v (D3)."""
    if not (v > 0.0) or m >= phi * np.sqrt(v):
        return NO_STEP
    return _shared_scw2_alpha(m, v, phi, C)


def libol_shared_arow_step(m, v, r):
    """LIBOL ``M_AROW.m`` lines 44–45: α = ℓ/(v + r) (D4; exact is ℓ/(2v + r)), β = 1/(v + r)."""
    if not (v > 0.0) or m >= 1.0:
        return NO_STEP
    beta = 1.0 / (v + r)
    return Step((1.0 - m) * beta, beta, 1.0 / r)


SHARED_RULES = {"cw-std": shared_cw_step, "scw1": shared_scw1_step, "scw2": shared_scw2_step,
                "arow": shared_arow_step}
LIBOL_SHARED_RULES = {"cw-std": libol_shared_cw_step, "scw1": libol_shared_scw1_step,
                      "scw2": libol_shared_scw2_step, "arow": libol_shared_arow_step}


# ---------------------------------------------------------------------------------------------
# Layouts
# ---------------------------------------------------------------------------------------------
class Info(NamedTuple):
    prediction: int
    updated: bool
    step: Step


def rank_one_drop(S, x, beta):
    """Σ − β(Σx)(Σx)ᵀ, computed as the congruence AΣAᵀ with A = I − γ(Σx)xᵀ,
    γ = β/(1 + √(1 − βv)) (so that 2γ − γ²v = β; βv < 1 for every rule here).  Equal in exact
    arithmetic; in float64 the plain subtraction loses positive definiteness within three NHERD
    updates at C = 10⁶ on rows with one feature 10³ times the others, the congruence does not."""
    Sx = S @ x
    gamma = beta / (1.0 + np.sqrt(max(0.0, 1.0 - beta * (x @ Sx))))
    A = np.eye(S.shape[0]) - gamma * np.outer(Sx, x)
    out = A @ S @ A.T
    return 0.5 * (out + out.T)


def diagonal_shrink(sig, x, step, diagonal, params):
    """The three diagonal forms: ``project`` keeps the diagonal of Σ⁻¹ + c·xxᵀ, ``drop`` the
    diagonal of Σ − β(Σx)(Σx)ᵀ, ``exact`` (NHERD only) the best diagonal affine map
    a_j = 1/(1 + Cσ_j x_j²).  Coordinates with x_j = 0 are unchanged by all three."""
    x2 = x * x
    if diagonal == "project":
        return 1.0 / (1.0 / sig + step.c * x2)
    if diagonal == "drop":
        return sig - step.beta * sig * sig * x2
    if diagonal == "exact":
        return sig / (1.0 + params["C"] * sig * x2) ** 2
    raise ValueError(f"unknown diagonal form {diagonal!r}")


def binary_prediction(score):
    return 1 if score > 0 else -1  # (the library's convention; LIBOL predicts +1 at 0)


def binary_full_round(state, x, y, rule, **params):
    """One binary round with a full covariance: state (μ ∈ R^d, Σ ∈ R^{d×d}), y ∈ {−1, +1}."""
    mu, S = state
    score = mu @ x
    Sx = S @ x
    step = RULES[rule](y * score, x @ Sx, **params)
    info = Info(binary_prediction(score), step.alpha > 0, step)
    if step.alpha <= 0:
        return (mu.copy(), S.copy()), info
    return (mu + step.alpha * y * Sx, rank_one_drop(S, x, step.beta)), info


def binary_diagonal_round(state, x, y, rule, diagonal="project", **params):
    """One binary round with a diagonal covariance σ ∈ R^d (spec's §1.2 diagonal forms): α from
    the full-matrix formula with v = Σ_j σ_j x_j², then the diagonal shrink."""
    mu, sig = state
    score = mu @ x
    step = RULES[rule](y * score, sig @ (x * x), **params)
    info = Info(binary_prediction(score), step.alpha > 0, step)
    if step.alpha <= 0:
        return (mu.copy(), sig.copy()), info
    return (mu + step.alpha * y * sig * x, diagonal_shrink(sig, x, step, diagonal, params)), info


def support_class(scores, y):
    """s* = argmax_{k≠y} s_k, lowest index on ties."""
    others = scores.copy()
    others[y] = -np.inf
    return int(np.argmax(others))


def label_feature_difference(K, x, y, s):
    """Δ = f(x, y) − f(x, s) ∈ R^{K·d}: x in block y, −x in block s (class-major blocks)."""
    d = x.size
    delta = np.zeros(K * d)
    delta[y * d:(y + 1) * d] = x
    delta[s * d:(s + 1) * d] = -x
    return delta


def stacked_round(state, x, y, rule, **params):
    """Multiclass, one Gaussian over the stacked (K·d) vector (MCW, single max-score constraint):
    the binary rule on Δ = f(x, y) − f(x, s*) with label +1.  State (μ (K, d), Σ (Kd, Kd))."""
    mu, S = state
    K = mu.shape[0]
    scores = mu @ x
    s = support_class(scores, y)
    delta = label_feature_difference(K, x, y, s)
    SD = S @ delta
    step = RULES[rule](scores[y] - scores[s], delta @ SD, **params)
    info = Info(int(np.argmax(scores)), step.alpha > 0, step)
    if step.alpha <= 0:
        return (mu.copy(), S.copy()), info
    new_mu = (mu.ravel() + step.alpha * SD).reshape(mu.shape)
    return (new_mu, rank_one_drop(S, delta, step.beta)), info


def per_class_round(state, x, y, rule, diagonal="project", **params):
    """Multiclass with one full d×d covariance per class (spec's ``per-class``): V = v_y + v_{s*};
    μ_y += αΣ_y x, μ_{s*} −= αΣ_{s*} x; each Σ_c shrinks with β (``drop``: the diagonal blocks
    of the stacked update) or with c/(1 + c·v_c) (``project``: Σ_c⁻¹ += c·xxᵀ)."""
    mu, Ss = state
    scores = mu @ x
    s = support_class(scores, y)
    Sx = {k: Ss[k] @ x for k in (y, s)}
    v = {k: x @ Sx[k] for k in (y, s)}
    step = RULES[rule](scores[y] - scores[s], v[y] + v[s], **params)
    info = Info(int(np.argmax(scores)), step.alpha > 0, step)
    mu, Ss = mu.copy(), Ss.copy()
    if step.alpha <= 0:
        return (mu, Ss), info
    for k, sign in ((y, 1.0), (s, -1.0)):
        mu[k] += sign * step.alpha * Sx[k]
        if diagonal == "project":
            beta = step.c / (1.0 + step.c * v[k])
        elif diagonal == "drop":
            beta = step.beta
        else:
            raise ValueError(f"per-class layout has no diagonal form {diagonal!r}")
        Ss[k] = rank_one_drop(Ss[k], x, beta)
    return (mu, Ss), info


def diagonal_round(state, x, y, rule, diagonal="project", **params):
    """Multiclass with one diagonal covariance per class (spec's ``diagonal``, the pseudo-code of
    its §2.5; SOL, Jubatus and Hivemall's layout): V = Σ_j x_j² (σ_{y,j} + σ_{s*,j})."""
    mu, sig = state
    scores = mu @ x
    s = support_class(scores, y)
    step = RULES[rule](scores[y] - scores[s], (sig[y] + sig[s]) @ (x * x), **params)
    info = Info(int(np.argmax(scores)), step.alpha > 0, step)
    mu, sig = mu.copy(), sig.copy()
    if step.alpha <= 0:
        return (mu, sig), info
    for k, sign in ((y, 1.0), (s, -1.0)):
        mu[k] += sign * step.alpha * sig[k] * x
        sig[k] = diagonal_shrink(sig[k], x, step, diagonal, params)
    return (mu, sig), info


def shared_round(state, x, y, rule, libol_compat=False, **params):
    """Multiclass with one d×d covariance shared by all classes (LIBOL manual §3.2.3):
    μ_y += αΣx, μ_{s*} −= αΣx, Σ −= β(Σx)(Σx)ᵀ, with the exact solution of the manual's problem
    (or LIBOL's code with ``libol_compat=True``)."""
    mu, S = state
    scores = mu @ x
    s = support_class(scores, y)
    Sx = S @ x
    rules = LIBOL_SHARED_RULES if libol_compat else SHARED_RULES
    step = rules[rule](scores[y] - scores[s], x @ Sx, **params)
    info = Info(int(np.argmax(scores)), step.alpha > 0, step)
    mu = mu.copy()
    if step.alpha <= 0:
        return (mu, S.copy()), info
    mu[y] += step.alpha * Sx
    mu[s] -= step.alpha * Sx
    return (mu, rank_one_drop(S, x, step.beta)), info


def top_wrong_classes(scores, y, k):
    """The k highest-scoring wrong classes (``"all"``: every wrong class), lowest index first
    among equal scores."""
    wrong = [c for c in np.argsort(-scores, kind="stable") if c != y]
    return wrong if k == "all" else wrong[:k]


def stacked_cw_var_multi_round(state, x, y, phi, k="all", tol=1e-10, max_sweeps=100):
    """k-constraint CW, variance form, stacked Σ (MCW's multi-constraint problem; its exact
    algorithm in the paper is UNCHECKED): min KL s.t. μ·Δ_j ≥ φ Δ_jᵀΣΔ_j for the top-k wrong
    classes j, solved by Hildreth-style dual coordinate ascent on the KKT form
    μ = μ_0 + Σ_0 Σ_j α_j Δ_j, Σ⁻¹ = Σ_0⁻¹ + 2φ Σ_j α_j Δ_j Δ_jᵀ.  Each coordinate step is the
    larger root of 2φp_jv_jδ² + (p_j + 2φm_jv_j)δ + (m_j − φv_j) = 0 (p_j = Δ_jᵀΣ_0Δ_j)."""
    mu0, S0 = state
    K = mu0.shape[0]
    scores = mu0 @ x
    deltas = [label_feature_difference(K, x, y, j) for j in top_wrong_classes(scores, y, k)]
    P0 = np.linalg.inv(S0)
    alpha = np.zeros(len(deltas))

    def at(alpha):
        mu = mu0.ravel() + S0 @ sum(a * D for a, D in zip(alpha, deltas))
        S = np.linalg.inv(P0 + 2 * phi * sum(a * np.outer(D, D) for a, D in zip(alpha, deltas)))
        return mu, 0.5 * (S + S.T)

    sweeps = 0
    for sweeps in range(1, max_sweeps + 1):
        largest_change = 0.0
        for j, D in enumerate(deltas):
            mu, S = at(alpha)
            m, v, p = mu @ D, D @ S @ D, D @ S0 @ D
            a, b, c = 2 * phi * p * v, p + 2 * phi * m * v, m - phi * v
            root = (-b + np.sqrt(b * b - 4 * a * c)) / (2 * a) if a > 0 else -c / b
            new = max(0.0, alpha[j] + root)
            largest_change = max(largest_change, abs(new - alpha[j]))
            alpha[j] = new
        if largest_change < tol:
            break
    mu, S = at(alpha)
    info = Info(int(np.argmax(scores)), bool(np.any(alpha > 0)), alpha)
    return (mu.reshape(mu0.shape), S), info


# ---------------------------------------------------------------------------------------------
# NAROW (binary)
# ---------------------------------------------------------------------------------------------
def narow_round(state, x, y, b=1.0):
    """NAROW as its first author codes it (Orabona & Crammer, NIPS 2010; DOGMA ``narow_train.m``;
    LIBOL manual Algorithm 11): θ += yx on every margin error, A⁻¹ gains xxᵀ/r_t only when
    χ = xᵀA⁻¹x > 1/b (r_t = χ/(bχ − 1); r_t = ∞ otherwise), w = A⁻¹θ, and the prediction uses
    f = (w·x)·r_t/(χ + r_t) = xᵀ(A + xxᵀ/r_t)⁻¹θ.  State (θ, A⁻¹, w)."""
    theta, Ainv, w = state
    Ax = Ainv @ x
    chi = x @ Ax
    r = chi / (b * chi - 1) if chi > 1.0 / b else np.inf
    f = w @ x if np.isinf(r) else (w @ x) * r / (chi + r)
    info = Info(binary_prediction(f), y * f < 1, Step(float(r), 0.0, 0.0))
    if y * f >= 1:
        return (theta.copy(), Ainv.copy(), w.copy()), info
    theta = theta + y * x
    if np.isfinite(r):
        Ainv = rank_one_drop(Ainv, x, 1.0 / (r + chi))
    return (theta, Ainv.copy(), Ainv @ theta), info


def narow_libol_round(state, x, y, b=1.0):
    """LIBOL's ``NAROW.m`` (lines 41–53, spec D7): an AROW step with r_t in place of r, and no
    update at all when χ ≤ 1/b.  State (μ, Σ)."""
    mu, S = state
    Sx = S @ x
    v = x @ Sx
    score = mu @ x
    r = v / (b * v - 1) if v > 1.0 / b else np.inf
    loss = max(0.0, 1 - y * score)
    if loss <= 0 or np.isinf(r):
        return (mu.copy(), S.copy()), Info(binary_prediction(score), False, NO_STEP)
    beta = 1 / (v + r)
    step = Step(loss * beta, beta, 1 / r)
    return (mu + step.alpha * y * Sx, rank_one_drop(S, x, beta)), Info(
        binary_prediction(score), True, step)


# ---------------------------------------------------------------------------------------------
# AdaGrad (diagonal) and FTRL-Proximal; W has one row per class (one row for binary)
# ---------------------------------------------------------------------------------------------
def loss_and_gradient(W, x, y, loss):
    """Round loss and its (sub)gradient rows (spec's loss table): ``hinge`` max-score multiclass
    max(0, 1 − s_y + s_{s*}) (rows y: −x, s*: +x); ``log`` multinomial −log softmax(s)_y
    (rows (p_c − 1[c = y])x); with one row, y ∈ {−1, +1}: max(0, 1 − ys) and log(1 + e^{−ys})."""
    s = W @ x
    G = np.zeros_like(W)
    if W.shape[0] == 1:
        if loss == "hinge":
            value = max(0.0, 1 - y * s[0])
            if value > 0:
                G[0] = -y * x
            return value, G
        value = np.logaddexp(0.0, -y * s[0])
        G[0] = -y * x * np.exp(-np.logaddexp(0.0, y * s[0]))  # −y x σ(−ys)
        return value, G
    if loss == "hinge":
        j = support_class(s, y)
        value = max(0.0, 1 - s[y] + s[j])
        if value > 0:
            G[y], G[j] = -x, x
        return value, G
    logp = log_softmax(s)
    p = np.exp(logp)
    p[y] -= 1.0
    return -logp[y], np.outer(p, x)


def predict(W, x):
    s = W @ x
    return binary_prediction(s[0]) if W.shape[0] == 1 else int(np.argmax(s))


def predict_proba(W, x):
    """softmax(W x) (binary: [σ(−s), σ(s)] for classes −1, +1): the family's probability."""
    s = W @ x
    return softmax(np.array([0.0, s[0]]) if W.shape[0] == 1 else s)


class AdaGradState(NamedTuple):
    W: np.ndarray       # weights
    G: np.ndarray       # sums of squared gradients
    g_sum: np.ndarray   # sums of gradients (RDA)
    t: int              # rounds seen (RDA averages over every one of them)


def adagrad_init(K, d):
    return AdaGradState(np.zeros((K, d)), np.zeros((K, d)), np.zeros((K, d)), 0)


def soft_threshold(value, threshold):
    return np.sign(value) * np.maximum(np.abs(value) - threshold, 0.0)


def adagrad_mirror_weights(W, g, H, eta, l1, l2):
    """Composite mirror descent (Duchi, Hazan & Singer, Algorithm 1 with update (4), UNCHECKED
    number): argmin_w ηg·w + ηl1|w| + ηl2/2 w² + ½H(w − w_t)², per coordinate
    sign(Hw_t − ηg)[|Hw_t − ηg| − ηl1]₊/(H + ηl2).  H = 0 (never touched, δ = 0) means no step."""
    H_safe = np.where(H > 0, H, 1.0)
    new = soft_threshold(H_safe * W - eta * g, eta * l1) / (H_safe + eta * l2)
    return np.where(H > 0, new, W)


def adagrad_dual_weights(g_sum, t, H, eta, l1, l2):
    """Primal-dual / RDA (Duchi, Hazan & Singer, Algorithm 1 with update (3), UNCHECKED number):
    argmin_w ηḡ·w + ηl1|w| + ηl2/2 w² + (1/2t)Hw², ḡ = g_sum/t, per coordinate
    sign(−ḡ)·ηt[|ḡ| − l1]₊/(H + ηl2t)."""
    H_plus = H + eta * l2 * t
    H_safe = np.where(H_plus > 0, H_plus, 1.0)
    return np.where(H_plus > 0, -eta * t * soft_threshold(g_sum / t, l1) / H_safe, 0.0)


def adagrad_round(state, x, y, loss="hinge", form="mirror", eta=0.1, delta=1e-8, l1=0.0, l2=0.0):
    """Diagonal AdaGrad (Duchi, Hazan & Singer, JMLR 2011, Algorithm 1): G += g², H = δ + √G (the
    current gradient included), then the MD or RDA closed form.  The regulariser acts on every
    coordinate every round (no lazy catch-up here)."""
    value, g = loss_and_gradient(state.W, x, y, loss)
    G = state.G + g * g
    g_sum = state.g_sum + g
    t = state.t + 1
    H = delta + np.sqrt(G)
    if form == "mirror":
        W = adagrad_mirror_weights(state.W, g, H, eta, l1, l2)
    elif form == "dual":
        W = adagrad_dual_weights(g_sum, t, H, eta, l1, l2)
    else:
        raise ValueError(f"unknown form {form!r}")
    return AdaGradState(W, G, g_sum, t), Info(predict(state.W, x), bool(np.any(g)), value)


class FTRLState(NamedTuple):
    z: np.ndarray
    n: np.ndarray


def ftrl_init(K, d):
    return FTRLState(np.zeros((K, d)), np.zeros((K, d)))


def ftrl_weights(state, alpha, beta, l1, l2):
    """McMahan et al., KDD 2013, Algorithm 1: w_i = 0 if |z_i| ≤ λ1, else
    −((β + √n_i)/α + λ2)⁻¹ (z_i − sign(z_i)λ1); n_i = 0 (so z_i = 0) gives 0 without dividing."""
    z, n = state
    scale = (beta + np.sqrt(n)) / alpha + l2
    live = (np.abs(z) > l1) & (n > 0)
    return np.where(live, -(z - np.sign(z) * l1) / np.where(live, scale, 1.0), 0.0)


def ftrl_round(state, x, y, loss="log", alpha=0.5, beta=1.0, l1=0.0, l2=0.0):
    """Per-coordinate FTRL-Proximal (McMahan et al., KDD 2013, Algorithm 1), one (z, n) per
    (class, feature): w from (z, n), predict, g, σ = (√(n + g²) − √n)/α, z += g − σw, n += g²."""
    W = ftrl_weights(state, alpha, beta, l1, l2)
    value, g = loss_and_gradient(W, x, y, loss)
    sigma = (np.sqrt(state.n + g * g) - np.sqrt(state.n)) / alpha
    new = FTRLState(state.z + g - sigma * W, state.n + g * g)
    return new, Info(predict(W, x), bool(np.any(g)), value)


# ---------------------------------------------------------------------------------------------
# Initial states and the stream helper
# ---------------------------------------------------------------------------------------------
def initial_state(layout, d, K=2, a=1.0):
    """μ = 0 and Σ = a·I in the layout's shape (``binary-full``, ``binary-diagonal``,
    ``stacked``, ``per-class``, ``diagonal``, ``shared``; ``narow``: θ = 0, A⁻¹ = aI, w = 0)."""
    if layout == "binary-full":
        return np.zeros(d), a * np.eye(d)
    if layout == "binary-diagonal":
        return np.zeros(d), np.full(d, a)
    if layout == "stacked":
        return np.zeros((K, d)), a * np.eye(K * d)
    if layout == "per-class":
        return np.zeros((K, d)), np.stack([a * np.eye(d)] * K)
    if layout == "diagonal":
        return np.zeros((K, d)), np.full((K, d), a)
    if layout == "shared":
        return np.zeros((K, d)), a * np.eye(d)
    if layout == "narow":
        return np.zeros(d), a * np.eye(d), np.zeros(d)
    raise ValueError(f"unknown layout {layout!r}")


ROUNDS = {"binary-full": binary_full_round, "binary-diagonal": binary_diagonal_round,
          "stacked": stacked_round, "per-class": per_class_round, "diagonal": diagonal_round,
          "shared": shared_round, "narow": narow_round, "narow-libol": narow_libol_round,
          "adagrad": adagrad_round, "ftrl": ftrl_round}


def run(stream, round_fn, state, **params):
    """Feed ``(x, y)`` pairs through ``round_fn(state, x, y, **params)`` (a function of
    :data:`ROUNDS`, or its name); returns the final state, the pre-update predictions and the
    list of every round's Info."""
    if isinstance(round_fn, str):
        round_fn = ROUNDS[round_fn]
    step = partial(round_fn, **params)
    infos = []
    for x, y in stream:
        state, info = step(state, np.asarray(x, float), y)
        infos.append(info)
    return state, np.array([i.prediction for i in infos]), infos
