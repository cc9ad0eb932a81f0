"""scikit-learn's own estimator checks on every estimator the registry uses.

One instance per registered algorithm (``onlinear.make(name)`` for every name, which covers every
estimator class and every ``scheme``/``slack`` the registry fixes), plus two instances that take
the other code paths of ``fit``: several shuffled epochs, and the ``"printed"`` variant.

Checks that cannot apply to a learner are declared with scikit-learn's own mechanism
(``expected_failed_checks``), per check *and* per estimator, with the reason, in strict mode (a
check that starts passing shows up).

Also declared, per learner: the training-accuracy threshold of ``check_classifiers_train``
(> 0.83), missed by learners whose final hypothesis, with one pass and no intercept, is poor on
the check's data (:data:`ACCURACY_LIMITATIONS`).  The tests at the end of this file pin down that
this is the algorithm and not a bug: the weights equal small NumPy references, and a constant
(bias) feature is enough to pass.

Two groups of checks are skipped *by scikit-learn itself* in this environment, not by us: the
pandas checks (pandas is not installed) and the array-API checks (``SCIPY_ARRAY_API`` unset).
"""
import inspect

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.preprocessing import StandardScaler
from sklearn.utils import shuffle
from sklearn.utils.estimator_checks import parametrize_with_checks

import onlinear

ESTIMATORS = [onlinear.make(name) for name in onlinear.available()] + [
    onlinear.make("spa1", n_epochs=3, shuffle=True, random_state=0),
    onlinear.make("pa2", variant="printed", C=0.1),
    # the averaged hypothesis of a learner whose final one misses the accuracy check
    onlinear.make("mc-romma", average=True, n_epochs=2),
    # and the learners that miss it for want of an intercept, with one
    *[onlinear.make(name, fit_intercept=True) for name in
      ("mira", "binary-mira", "pa", "spa", "romma", "aromma", "naromma", "iellip")],
]
# the kernel learners with their defaults (gamma="auto" works on every entry point, which the
# checks start models through), and one with a number for gamma and the protocol's options
ESTIMATORS += [onlinear.make(name) for name in onlinear.available(kernel=True)] + [
    onlinear.make("kernel-mira", gamma=0.5, average=True, n_epochs=2, shuffle=True,
                  random_state=0),
]

#: Checks that cannot apply, by estimator class: {class: {check name: reason}}.
NOT_APPLICABLE = {
    onlinear.Multiplicative: {
        "check_classifiers_train": (
            "Multiplicative keeps strictly positive weights (exponentiated updates, unit l1 "
            "mass), so it can only represent non-negative comparators; the check's multiclass "
            "blobs need signed weights (training accuracy 0.64, 0.74 even with a bias "
            "feature). The documented use for signed data is to feed [x, -x], with which it "
            "reaches 0.91 on the same data (test_multiplicative_needs_signed_features). The "
            "binary problem of the check passes (0.89)."
        ),
    },
}

# Simultaneous projections: make(name) above gives each scheme's multiclass/multilabel classifier;
# here the ordinal and general-block estimators and the multiplicative updates.
ESTIMATORS += [
    onlinear.make("simproj", task="ordinal"),
    onlinear.make("optimal", task="ordinal", n_epochs=2, shuffle=True, random_state=0),
    onlinear.make("simproj", task="blocks"),
    onlinear.make("simopt", task="blocks", update="multiplicative"),
    onlinear.make("simproj", update="multiplicative"),
]
NOT_APPLICABLE[onlinear.SimultaneousProjectionOrdinal] = {
    "check_classifiers_train": (
        "ordinal regression ranks the classes along one direction with thresholds; the check's "
        "three blobs are not ordered along any line in label order (training accuracy 0.54-0.67; "
        "its binary problem passes, 0.97). On ordinal data it is exact "
        "(test_simultaneous_estimators.py::test_ordinal_learns_ordered_ranks)."
    ),
}


def _simultaneous_expected(estimator):
    if isinstance(estimator, onlinear.BlockLearner) and estimator.update == "multiplicative":
        return {"check_classifiers_train": (
            "the multiplicative block learner keeps one weight vector on the probability simplex "
            "(Amit et al. §8), so its scores are averages of the features with positive weights; "
            "the check's blobs need a signed direction (signed problems take features [x, -x])."
        )}
    return {}


#: Registered names that miss check_classifiers_train's ``accuracy > 0.83`` on the check's own
#: data *as shipped* (one pass, no intercept), with the training accuracy they reach on the
#: binary / multiclass problem of the check; declared as expected failures with that reason.
ACCURACY_LIMITATIONS = {
    # hard-margin steps (no slack): the last big step decides the final model
    "mira": (0.79, 0.853),
    "binary-mira": (0.79, 0.85),
    "pa": (0.79, 0.873),
    "spa": (0.79, 0.853),
    # relaxed maximum margin: a unit-margin constraint on every mistake
    "romma": (0.83, 0.913),
    "aromma": (0.83, 0.913),
    "naromma": (0.83, 0.913),
    "mc-romma": (0.83, 0.65),
    # mistake-driven projection to margin gamma in the current metric (PA-like final step)
    "iellip": (0.775, 0.877),
    # a hard confidence constraint (no slack): each failed row is fitted with probability η
    "cw": (0.94, 0.817),
}


def _registered_name(estimator):
    for name in onlinear.available():
        algorithm = onlinear.describe(name)
        if type(estimator) is algorithm.estimator and all(
                estimator.get_params()[k] == v for k, v in algorithm.fixed.items()):
            return name
    return None


#: Why repeating an example is not giving it weight 2, for every learner that takes weights.
WEIGHTS_ARE_NOT_REPEATS = (
    "an online learner's rounds depend on their order: an example of weight 2 is one round "
    "whose step (or C) is doubled, not two rounds, the second of which would see the first's "
    "update (tests/test_sample_weight.py checks the definition)")


#: Why check_class_weight_classifiers (≥ 87 % of the predictions in the class of weight 1000 on
#: noisy blobs) is not met by one online pass.
CLASS_WEIGHTS_ARE_PER_ROUND = (
    "the check expects the minimizer of a class-weighted empirical risk (scikit-learn's own "
    "PassiveAggressiveClassifier reaches it on the binary problem only with max_iter=1000 and "
    "an intercept: 0.94, and 0.66 on three classes); here a class weight scales the C or the "
    "step of each round of one online pass (0.48-0.56 binary, 0.40-0.80 with three classes), "
    "which tests/test_conventions.py checks against that definition")


def expected_failed_checks(estimator):
    expected = dict(NOT_APPLICABLE.get(type(estimator), {}))
    if "class_weight" in estimator.get_params():
        expected["check_class_weight_classifiers"] = CLASS_WEIGHTS_ARE_PER_ROUND
    if "sample_weight" in inspect.signature(type(estimator).fit).parameters:
        expected["check_sample_weight_equivalence_on_dense_data"] = WEIGHTS_ARE_NOT_REPEATS
        expected["check_sample_weight_equivalence_on_sparse_data"] = WEIGHTS_ARE_NOT_REPEATS
    expected.update(_simultaneous_expected(estimator))
    name = _registered_name(estimator)
    # the averaged hypothesis is not set by the last large step: it passes (the averaged
    # instance above is one of these learners)
    if name in ACCURACY_LIMITATIONS and not estimator.get_params().get("average", False) \
            and not estimator.get_params().get("fit_intercept", False):
        binary, multiclass = ACCURACY_LIMITATIONS[name]
        expected["check_classifiers_train"] = (
            f"{name} has no intercept (as in its paper) and makes one online pass: the check's "
            "blobs are not separable through the origin and the final hypothesis of a hard "
            "margin learner is set by its last large step (training accuracy "
            f"{binary} binary / {multiclass} multiclass, threshold 0.83); with a constant "
            "feature it passes (test_accuracy_limitation_is_the_missing_intercept)."
        )
    return expected


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks,
                         xfail_strict=True)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_every_registered_algorithm_is_checked():
    """Every registered name has a checked instance of its class with its fixed parameters."""
    for name in onlinear.available():
        algorithm = onlinear.describe(name)
        assert any(
            type(e) is algorithm.estimator
            and all(e.get_params()[k] == v for k, v in algorithm.fixed.items())
            for e in ESTIMATORS
        ), name


# ---------------------------------------------------------------- check_classifiers_train's data
def _check_classifiers_train_problems():
    """The binary and the multiclass problem of sklearn's check_classifiers_train, built the
    same way (make_blobs, shuffle, StandardScaler; the binary one drops class 2)."""
    X, y = make_blobs(n_samples=300, random_state=0)
    X, y = shuffle(X, y, random_state=7)
    X = StandardScaler().fit_transform(X)
    return (X[y != 2], y[y != 2]), (X, y)


def _with_bias(X):
    return np.hstack([X, np.ones((X.shape[0], 1))])


@pytest.mark.parametrize("name", list(ACCURACY_LIMITATIONS))
def test_accuracy_limitation_is_the_missing_intercept(name):
    """Training accuracy as shipped is the one listed (≤ 0.83 on at least one problem); the same
    learner given a constant feature — the intercept it lacks — clears 0.83 on both."""
    problems = _check_classifiers_train_problems()
    for (X, y), expected in zip(problems, ACCURACY_LIMITATIONS[name]):
        assert onlinear.make(name).fit(X, y).score(X, y) == pytest.approx(expected, abs=1e-3)
        assert onlinear.make(name).fit(_with_bias(X), y).score(_with_bias(X), y) > 0.83
        # which is what fit_intercept=True gives it
        assert onlinear.make(name, fit_intercept=True).fit(X, y).score(X, y) > 0.83
    assert min(ACCURACY_LIMITATIONS[name]) <= 0.83


def test_accuracy_limitations_are_all_the_failures():
    """Every other registered learner clears the threshold on both problems as shipped."""
    problems = _check_classifiers_train_problems()
    for name in onlinear.available():
        estimator = onlinear.make(name)
        if name in ACCURACY_LIMITATIONS or type(estimator) in NOT_APPLICABLE:
            continue
        for X, y in problems:
            if len(np.unique(y)) > 2 and not estimator.__sklearn_tags__().classifier_tags \
                    .multi_class:
                continue
            assert onlinear.make(name).fit(X, y).score(X, y) > 0.83, name


def _reference_binary_pa(X, z):
    """Binary hard-margin PA: ``w += ℓ/‖x‖² · z x`` with ``ℓ = [1 − z w·x]_+``."""
    w = np.zeros(X.shape[1])
    for x, t in zip(X, z):
        w += max(0.0, 1.0 - t * (w @ x)) / (x @ x) * t * x
    return w


def _reference_romma(X, z):
    """Conservative ROMMA (Li & Long 2002): on a mistake ``z u·a ≤ 0``, ``u ← c u + d a``."""
    u = np.zeros(X.shape[1])
    for a, t in zip(X, z):
        p = u @ a
        if t * p > 0:
            continue
        if not u.any():
            u = t * a / (a @ a)
            continue
        A, U = a @ a, u @ u
        u = ((A * U - t * p) * u + U * (t - p) * a) / (A * U - p * p)
    return u


@pytest.mark.parametrize(("name", "reference"), [
    ("mira", _reference_binary_pa), ("binary-mira", _reference_binary_pa),
    ("pa", _reference_binary_pa), ("spa", _reference_binary_pa),
    ("romma", _reference_romma), ("mc-romma", _reference_romma),
])
def test_accuracy_limitation_is_the_algorithm(name, reference):
    """On the check's binary problem the learner's direction is the textbook algorithm's (with
    two classes PA, SPA and (binary) MIRA reduce to the binary hard-margin step, MIRA's margin
    β only rescaling it; multiclass ROMMA with two classes takes ROMMA's steps here), so the low
    accuracy of the final model is not an implementation bug.  (Aggressive ROMMA and NAROMMA,
    which also update on small margins, end 1e-7 away from ROMMA's direction on this data; their
    own references live in test_reference_rescaling.py.)"""
    (X, y), _ = _check_classifiers_train_problems()
    z = np.where(y == y.max(), 1.0, -1.0)
    w = reference(X, z)
    coef = onlinear.make(name).fit(X, y).coef_.ravel()
    np.testing.assert_allclose(coef / np.linalg.norm(coef), w / np.linalg.norm(w),
                               rtol=0, atol=1e-9)


def test_multiplicative_needs_signed_features():
    _, (X, y) = _check_classifiers_train_problems()
    assert onlinear.make("multiplicative").fit(X, y).score(X, y) < 0.83
    signed = np.hstack([X, -X])
    assert onlinear.make("multiplicative").fit(signed, y).score(signed, y) > 0.83
