"""Mixing models: the convex combination of fitted additive primal models, and its weights.

Iterative parameter mixing (McDonald, Hall & Mann 2010, §3, Figure 3) averages the weight
vectors that the shards' learners reached in one epoch.  It goes through the public model
interface: an estimator's learned state is its ``model_`` (:mod:`onlinear.models`), and a
primal model mixes itself (:meth:`onlinear.models.primal.PrimalModel.mixed`: the true weights
averaged, written back at scale 1 with their sizes recomputed exactly, so the engine continues
from the mix as from any model).

Which learners can be mixed — the *additive primal* ones, whose whole model is the weight matrix
(and counters): ``perceptron``, ``ovr-perceptron``, the additive family, ``kesler``, ``mira``,
``binary-mira``, ``pa``/``pa1``/``pa2``, ``spa``/``spa1``/``spa2``.  The others are refused by
:func:`check_mixable`, each for the reason its model gives (``mixing_refusal``):

* kernel learners: the model is a support set, not a vector (the mix of dual models is the union
  of the support sets with scaled coefficients — sound, but the support set then grows with
  every epoch and every shard; not implemented);
* the ellipsoid methods: the model carries a metric, whose average is not the metric of any run;
* the Gaussian (confidence-weighted) and adaptive learners: their covariances and per-feature
  step sizes are not averaged by any rule with a bound;
* the multiplicative family: weights normalized per output, updated in the exponent — an
  arithmetic average leaves the family (a renormalized geometric mean would be the natural rule;
  no bound is known to us for it, so it is not implemented);
* ROMMA, aggressive ROMMA, NAROMMA, the Maximum Cosine Perceptrons and multiclass ROMMA: their
  rule keeps a certificate of the run in the state (a bound ρ or ℓ on ``1/‖w‖`` over the
  examples seen), which the average of several runs does not inherit;
* the simultaneous-projection estimators: another model layout, not mixed yet;
* any learner with ``average=True``: its averaging sums belong to its own run.

>>> import numpy as np
>>> import onlinear
>>> from onlinear.distributed import mix_models
>>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5]])
>>> y = np.array([0, 1, 1, 0])
>>> a = onlinear.make("perceptron").fit(X[:2], y[:2])
>>> b = onlinear.make("perceptron").fit(X[2:], y[2:])
>>> a.coef_, b.coef_
(array([[-1.,  1.]]), array([[1., 1.]]))
>>> mixed = mix_models([a, b])
>>> mixed.coef_, mixed.n_seen_
(array([[0., 1.]]), 4)
"""
import copy

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone

from ..models.primal import PrimalModel

MIXING = ("uniform", "updates", "mistakes")


def check_mixable(model):
    """Raise unless ``model`` is an additive primal onlinear learner, whose models can be mixed.

    Parameters
    ----------
    model : OnlineLinearClassifier
        An estimator, started (fitted) or not (then a clone is started from one zero row,
        learning nothing, and its model decides).

    Raises
    ------
    TypeError
        If ``model`` is not an onlinear estimator, or its learned state cannot be averaged
        (kernel, ellipsoid, confidence-weighted, adaptive, multiplicative, rescaling rules
        with a certificate, simultaneous projections): the message says why.
    """
    from ..estimators.base import OnlineLinearClassifier

    name = type(model).__name__
    if not isinstance(model, OnlineLinearClassifier):
        raise TypeError(f"parameter mixing needs an onlinear estimator; got {name}.")
    if not hasattr(model, "classes_"):  # its model, started from one zero row, learning nothing
        model = clone(model)
        if "class_weight" in model.get_params():  # (its keys name the data's classes, not 0, 1)
            model.set_params(class_weight=None)
        model.stream(sp.csr_matrix((1, 1)), np.zeros(1, dtype=np.int64), classes=[0, 1])
    held = getattr(model, "model_", None)
    if held is None:
        raise TypeError(f"{name} holds no model object (model_), so it cannot be mixed.")
    if held.mixing_refusal:
        raise TypeError(f"{name} cannot be mixed: {held.mixing_refusal}.")
    if not isinstance(held, PrimalModel):
        raise TypeError(f"{name}'s model is not a primal model: it cannot be mixed.")


def mixing_weights(mixing, models):
    """The mixing coefficients μ_i (non-negative, summing to 1) of ``models``.

    Parameters
    ----------
    mixing : {"uniform", "updates", "mistakes"}
        ``"uniform"``: μ_i = 1/S.  ``"updates"``: μ_i = k_i / Σ_j k_j with k_i the updates of
        model i since it was sent (its counters are zeroed before each epoch) — McDonald et al.'s
        error-weighted mixing, for a mistake-driven Perceptron its mistakes.  ``"mistakes"``:
        the same with the prediction mistakes.  When no model updated (or made a mistake), the
        weights are uniform.
    models : list of OnlineLinearClassifier
        The shards' models, their counters counting the last epoch only.

    Returns
    -------
    weights : ndarray of shape (len(models),)

    Raises
    ------
    ValueError
        If ``mixing`` is unknown or ``models`` is empty.
    """
    if mixing not in MIXING:
        raise ValueError(f"mixing must be one of {', '.join(map(repr, MIXING))}; got "
                         f"{mixing!r}.")
    n = len(models)
    if n == 0:  # (1/0 otherwise: no coefficients sum to 1)
        raise ValueError("no model to weigh: give the shards' models, at least one.")
    if mixing != "uniform":
        counts = np.array([m.n_updates_ if mixing == "updates" else m.n_mistakes_
                           for m in models], dtype=np.float64)
        if counts.sum() > 0:
            return counts / counts.sum()
    return np.full(n, 1.0 / n)


#: the hyperparameters that say how a model was run, not what it is: models that differ only
#: in them mix (the mix keeps the first model's)
_RUN_ONLY = frozenset({"n_epochs", "shuffle", "random_state", "verbose", "warm_start"})


def _same(a, b):
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # (arrays, objects without a truth value)
        return a is b


def _check_same_configuration(first, model):
    """Raise ValueError unless ``model`` has ``first``'s hyperparameters (but how it was run)
    and weights of its dtype: the mix is a copy of ``first`` with the mixed weights, so it
    would keep ``first``'s C, variant or dtype for weights learned under others."""
    ours, theirs = first.get_params(deep=False), model.get_params(deep=False)
    differing = sorted(name for name in ours.keys() | theirs.keys()
                       if name not in _RUN_ONLY and not _same(ours.get(name), theirs.get(name)))
    if differing:
        shown = ", ".join(f"{name}={ours.get(name)!r} and {theirs.get(name)!r}"
                          for name in differing)
        raise ValueError(f"the models to mix must share their hyperparameters (the mix is a "
                         f"copy of the first one): {shown}.")
    if model.coef_.dtype != first.coef_.dtype:
        raise ValueError(f"the models to mix must have weights of one dtype: {first.coef_.dtype}"
                         f" and {model.coef_.dtype} (dtype='auto' follows each model's data: "
                         "give the models data of one dtype, or set dtype).")


def mix_models(models, weights=None):
    """A new fitted model whose true weights are ``Σ_i weights[i] · w_i``.

    One model is returned as an exact copy (mixing with weight 1 is the identity, and the copy
    keeps its state bit for bit).  Otherwise the result is a copy of the first model with the
    mixed weights at scale 1, their squared norms and masses recomputed exactly, and the
    counters summed (the mix has seen every round of every model).

    Parameters
    ----------
    models : list of OnlineLinearClassifier
        Fitted additive primal models (:func:`check_mixable`) of the same class, classes,
        number of features, hyperparameters (but ``n_epochs``, ``shuffle``, ``random_state``,
        ``verbose`` and ``warm_start``) and weights' dtype.
    weights : array-like of shape (len(models),), default=None
        Non-negative mixing coefficients summing to 1; None for uniform ones.

    Returns
    -------
    model : OnlineLinearClassifier
        The mixed model, a new estimator.

    Raises
    ------
    TypeError, ValueError
        If a model cannot be mixed or the models do not fit together, or the weights are not
        a convex combination.
    """
    models = list(models)
    if not models:
        raise ValueError("no model to mix.")
    first = models[0]
    for model in models:
        check_mixable(model)
        if not hasattr(model, "classes_"):
            raise ValueError("mix_models needs fitted models.")
        if type(model) is not type(first) or not np.array_equal(model.classes_, first.classes_) \
                or model.coef_.shape != first.coef_.shape:
            raise ValueError("the models to mix must be of one class, with the same classes and "
                             "number of features.")
        _check_same_configuration(first, model)
    weights = np.full(len(models), 1.0 / len(models)) if weights is None else \
        np.asarray(weights, dtype=np.float64)
    if weights.shape != (len(models),) or np.any(weights < 0) or \
            not np.isclose(weights.sum(), 1.0):
        raise ValueError(f"weights must be {len(models)} non-negative numbers summing to 1; "
                         f"got {weights.tolist()}.")
    if len(models) == 1:
        return copy.deepcopy(first)
    out = copy.deepcopy(first)
    out.model_ = first.model_.mixed([model.model_ for model in models], weights)
    return out
