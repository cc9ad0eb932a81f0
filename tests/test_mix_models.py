"""``mix_models`` mixes only models that are one model's runs: the mix is a copy of the first
model with the mixed weights, so a model of other hyperparameters (C, variant, an intercept)
or of weights of another dtype would be mixed silently under the first one's."""
import numpy as np
import pytest

import onlinear
from onlinear.distributed import mix_models

RNG = np.random.default_rng(8)
X = RNG.normal(size=(60, 4))
Y = np.arange(60) % 3


@pytest.mark.parametrize("first, second, words", [
    ({"C": 0.1}, {"C": 5.0}, "C=0.1 and 5.0"),
    ({"slack": "linear"}, {"slack": "squared"}, "slack='linear' and 'squared'"),
    ({"fit_intercept": False}, {"fit_intercept": True}, "fit_intercept=False and True"),
])
def test_models_of_other_hyperparameters_are_refused(first, second, words):
    models = [onlinear.PassiveAggressive(**first).fit(X[::2], Y[::2]),
              onlinear.PassiveAggressive(**second).fit(X[1::2], Y[1::2])]
    with pytest.raises(ValueError, match="share their hyperparameters .*" + words):
        mix_models(models)


def test_weights_of_another_dtype_are_refused():
    models = [onlinear.make("pa").fit(X[::2].astype(np.float32), Y[::2]),
              onlinear.make("pa").fit(X[1::2], Y[1::2])]
    assert models[0].coef_.dtype == np.float32 and models[1].coef_.dtype == np.float64
    with pytest.raises(ValueError, match="weights of one dtype: float32 and float64"):
        mix_models(models)


def test_runs_of_one_model_mix_whatever_their_epochs_and_order():
    models = [onlinear.make("pa", n_epochs=2, shuffle=True, random_state=1).fit(X[::2], Y[::2]),
              onlinear.make("pa", n_epochs=1).fit(X[1::2], Y[1::2])]
    mixed = mix_models(models, [0.25, 0.75])
    np.testing.assert_allclose(mixed.coef_, 0.25 * models[0].coef_ + 0.75 * models[1].coef_,
                               rtol=1e-12, atol=1e-15)
