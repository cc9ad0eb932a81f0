"""End-to-end smoke tests: every registered algorithm learns USPS far above chance."""
import numpy as np
import pytest

import onlinear
from onlinear.data import load_usps


@pytest.fixture(scope="module")
def usps():
    return load_usps()


def test_shipped_usps_has_the_documented_shape(usps):
    X, y, X_test, y_test = usps
    assert X.shape == (7291, 256) and X_test.shape == (2007, 256)
    assert set(np.unique(y)) == set(range(1, 11)) == set(np.unique(y_test))


@pytest.mark.parametrize("name", onlinear.available("multiclass"))
def test_every_algorithm_learns_usps_in_one_pass(usps, name):
    X, y, X_test, y_test = usps
    model = onlinear.make(name).fit(X, y)
    assert model.score(X_test, y_test) > 0.8
    assert model.n_seen_ == X.shape[0]
    assert 0 < model.n_mistakes_ < 0.2 * X.shape[0]
    assert model.n_updates_ >= 1


def test_python_dash_m_onlinear_is_the_command_line():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "onlinear", "list", "--task", "multiclass"],
                          capture_output=True, text=True, timeout=120, check=True)
    for name in onlinear.available("multiclass"):
        assert f"\n{name} " in done.stdout
