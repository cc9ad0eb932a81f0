"""Probabilities from the margin learners: they have none of their own (their scores are margins,
not log-odds), and scikit-learn's ``CalibratedClassifierCV`` turns any of them into a
classifier with ``predict_proba`` — every registered learner, binary and multiclass."""
import warnings

import numpy as np
import pytest
from sklearn.calibration import CalibratedClassifierCV
from sklearn.metrics import log_loss

import onlinear

NAMES = onlinear.available(kernel=None)


def _data(k, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(240, 5))
    scores = X[:, :3] + 0.4 * rng.normal(size=(240, 3))
    y = np.argmax(scores, axis=1) if k == 3 else (scores[:, 0] > scores[:, 1]).astype(int)
    return X, y


@pytest.mark.parametrize("name", NAMES)
def test_every_learner_is_calibrated_by_scikit_learn(name):
    for k in ((3, 2) if onlinear.describe(name).handles_multiclass else (2,)):
        X, y = _data(k)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # (a degenerate fold's sigmoid)
            model = CalibratedClassifierCV(onlinear.make(name), cv=3).fit(X, y)
        proba = model.predict_proba(X)
        assert proba.shape == (X.shape[0], k) and np.all(np.isfinite(proba))
        assert np.all(proba >= 0) and np.allclose(proba.sum(axis=1), 1.0)
        np.testing.assert_array_equal(model.classes_, np.arange(k))
        # an uncalibrated predict_proba only where the loss is the logistic one (its model)
        assert hasattr(onlinear.make(name), "predict_proba") == (
            onlinear.make(name).get_params().get("loss") == "log")


def test_calibrated_probabilities_are_informative():
    """On a learnable problem the calibrated PA's held-out log loss is far below the uniform
    guess's (log 3) and its predictions agree with its most probable class."""
    X, y = _data(3, seed=1)
    X_test, y_test = _data(3, seed=2)
    model = CalibratedClassifierCV(onlinear.make("pa1", C=0.1, n_epochs=3), cv=3).fit(X, y)
    proba = model.predict_proba(X_test)
    assert log_loss(y_test, proba, labels=[0, 1, 2]) < 0.6 * np.log(3)
    np.testing.assert_array_equal(model.predict(X_test), np.argmax(proba, axis=1))
