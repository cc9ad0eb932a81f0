"""Estimators of the adaptive first-order learners: diagonal AdaGrad and FTRL-Proximal, with
the multiclass hinge loss or the multinomial logistic loss.

Both take per-coordinate steps that shrink as a coordinate's gradients accumulate, so rare
features (a text stream's words) keep large steps — Vowpal Wabbit's default learner is of this
kind.  Multiclass: one weight vector per class and the loss's subgradient rows,

* ``loss="hinge"``: ℓ = max(0, 1 − s_y + s_{s*}) against the highest-scoring wrong class s*
  (gradient −x for y, +x for s*, when ℓ > 0);
* ``loss="log"``: ℓ = −log softmax(s)_y (gradient (p_k − [k = y])·x for every class k), whose
  model gives class probabilities: :meth:`predict_proba` and :meth:`predict_proba_one`.

With two classes one weight vector scores ``classes_[1]`` (the binary losses
max(0, 1 − ys) and log(1 + e^{−ys})).  ``l1`` gives truly sparse weights (exact zeros:
``n_nonzero_`` counts them); a CSR round costs O(K·non-zeros) with or without regularization.

Example weights (``sample_weight``, ``class_weight``) weigh the round's loss: an example of
weight w has the loss w·ℓ, so the gradient w·g (AdaGrad's squares accumulate (w·g)²); the
regularizer is not weighted.  A weight of 0 changes no weight of FTRL and none of an
unregularized AdaGrad (a regularized AdaGrad still takes that round's regularization step, as
on a row whose gradient is 0).  An integer weight k is not k repetitions: a repeated row sees
its own step in its second gradient (the logistic loss) and adds k·g² to the squares where the
weight adds k²·g² — and an unregularized AdaGrad with δ = 0 is invariant to a common scale of
all the gradients, so only the weights' ratios matter to it.  The weighted rounds run as one
compiled pass per run of equal weights (:mod:`onlinear.models.weighted_pass`).
"""
from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils._available_if import available_if
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ..models.adaptive import AdaGradModel, FTRLModel
from ..models.dual_adagrad import DualAdaGradModel
from . import docstrings
from .checks import ROW_DTYPES, canonical_csr
from .held_averaging import AVERAGE_CONSTRAINTS, _AveragedHeld
from .holding import WEIGHTED_CONSTRAINTS, _ModelHolding

__all__ = ["AdaGrad", "FTRLProximal"]

_COMMON = {
    **WEIGHTED_CONSTRAINTS,
    **AVERAGE_CONSTRAINTS,
    "loss": [StrOptions({"hinge", "log"})],
    "l1": [Interval(Real, 0, None, closed="left")],
    "l2": [Interval(Real, 0, None, closed="left")],
}


def _logistic(estimator):
    """Whether the estimator's model gives probabilities (``loss="log"``)."""
    if estimator.loss != "log":
        raise AttributeError(f"{type(estimator).__name__}(loss={estimator.loss!r}) has no "
                             "probabilities: the hinge loss gives scores only. Use "
                             "loss='log', or calibrate the scores with scikit-learn's "
                             "CalibratedClassifierCV.")
    return True


class _AdaptiveClassifier(_AveragedHeld, _ModelHolding):
    """Shared: the binary learner, the configuration, probabilities and sparsity."""

    _parameter_docs = docstrings.HELD_PARAMETERS
    def _model_config(self, n_outputs, n_features):
        return {**{name: getattr(self, name) for name in self._model_class._options},
                "average": self._started_average(), "name": type(self).__name__}

    @available_if(_logistic)
    def predict_proba(self, X):
        """Class probabilities, shape (n_samples, n_classes), in the order of ``classes_``:
        the softmax of the class scores (two classes: σ(s) for ``classes_[1]``) — the model
        the logistic loss fits.  Only with ``loss="log"``."""
        check_is_fitted(self)
        X = canonical_csr(validate_data(self, X, accept_sparse="csr", dtype=ROW_DTYPES,
                                        reset=False))
        self._check_intercept()
        return self.model_.probabilities(self._with_constant(X))

    @available_if(_logistic)
    def predict_proba_one(self, x):
        """``{label: probability}`` of one example ``x`` (river's convention).  Only with
        ``loss="log"``."""
        row = x if sp.issparse(x) else np.asarray(x, dtype=np.float64).reshape(1, -1)
        probabilities = self.predict_proba(row)[0]
        return dict(zip(self.classes_.tolist(), probabilities.tolist()))

    @available_if(_logistic)
    def predict_log_proba(self, X):
        """The logarithm of :meth:`predict_proba`.  Only with ``loss="log"``."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    @property
    def n_nonzero_(self):
        """The number of non-zero weights (``l1`` makes weights exactly zero)."""
        check_is_fitted(self)
        return int(np.count_nonzero(self.model_.coefficients()))


class AdaGrad(_AdaptiveClassifier):
    """Diagonal AdaGrad (Duchi, Hazan & Singer, "Adaptive Subgradient Methods for Online
    Learning and Stochastic Optimization", JMLR 12, 2011, Algorithm 1 with diagonal matrices),
    in its composite mirror-descent form (``form="mirror"``, the default) or its primal-dual
    (regularized dual averaging) form (``form="dual"``).

    Per coordinate j and class k, with g the round's subgradient::

        G ← G + g²,   H = δ + √G,
        w ← argmin_w  η·g·w + η(λ1|w| + λ2·w²/2) + ½H(w − w_t)²
          = sign(H·w_t − ηg)·[|H·w_t − ηg| − ηλ1]₊ / (H + ηλ2)

    (the current g included in G).  ``form="dual"`` instead minimises the average gradient's
    term with the proximal term around 0 (:mod:`onlinear.models.dual_adagrad`)::

        w = −η·sign(u)·[|u| − λ1·t]₊ / (H + ηλ2·t),   u = the sum of the t rounds' gradients

    (compiled rounds, as the mirror form's).  The regularizer acts on every coordinate every
    round; in the mirror form the steps of a feature absent from the rows are taken in closed
    form when it appears again (or when the weights are read), in the dual form the weights
    are functions of (u, G, t): either way a CSR round stays O(K·non-zeros).  The paper's update and
    theorem numbers are not quoted here: they were not checked against its text.

    Parameters
    ----------
    loss : {"hinge", "log"}, default="hinge"
        The multiclass max-score hinge loss, or the multinomial logistic loss (which gives
        :meth:`predict_proba`).
    eta : float, default=0.1
        The base step η > 0.  It carries the units of the weights' scale (x → c·x: the
        hinge loss's steps are invariant, the log loss's are not).
    delta : float, default=1e-8
        δ ≥ 0 in H = δ + √G (SOL uses 10, river √(G + ε)).
    l1 : float, default=0.0
        λ1 ≥ 0: exact zeros in the weights (truly sparse).
    l2 : float, default=0.0
        λ2 ≥ 0.
    form : {"mirror", "dual"}, default="mirror"
        Composite mirror descent (SOL's ``ada-fobos``) or regularized dual averaging (SOL's
        ``ada-rda``); fixed once the model started (``fit`` restarts it with a new value).
    average : bool, default=False
        Predict with the averaged weights — the mean of W after every round since the model
        started, rounds without a gradient included (the primal learners' ``average``) —
        rather than the final ones: ``coef_``, ``intercept_``, ``predict``,
        ``decision_function``, ``predict_proba`` and ``predict_one`` use them, while the
        accumulated squares, the online counts and ``learn_one``'s return value stay the
        online ones.  O(K·non-zeros) per round (the regularizer's deferred steps of a feature
        absent from the rows enter the average in closed form when a row reaches it; with
        ``form="dual"``, whose weights all move every round under a regularizer, each
        feature's share of the sums is closed in closed form when a row reaches it and when
        the weights are read, O(n_features × n_classes)).  Fixed when the model starts
        (``fit`` restarts it).

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features), or (1, n_features) for two classes
        The weights (one row per class; for two classes the single row scores
        ``classes_[1]`` against ``classes_[0]``).
    n_nonzero_ : int
        The number of non-zero weights.

    Examples
    --------
    >>> from onlinear import AdaGrad
    >>> from onlinear.data import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = AdaGrad(loss="log", eta=0.5).fit(X[:1000], y[:1000])
    >>> print(f"{model.n_mistakes_} mistakes on 1,000 examples, "
    ...       f"test accuracy {model.score(X_test, y_test):.3f}")
    191 mistakes on 1,000 examples, test accuracy 0.820
    """

    _parameter_constraints = {**_COMMON, "eta": [Interval(Real, 0, None, closed="neither")],
                              "delta": [Interval(Real, 0, None, closed="left")],
                              "form": [StrOptions({"mirror", "dual"})]}

    def __init__(self, loss="hinge", eta=0.1, delta=1e-8, l1=0.0, l2=0.0, form="mirror", *,
                 fit_intercept=False, average=False, n_epochs=1, shuffle=False,
                 random_state=None, class_weight=None, warm_start=False, verbose=0):
        self.loss = loss
        self.form = form
        self.eta = eta
        self.delta = delta
        self.l1 = l1
        self.l2 = l2
        self.fit_intercept = fit_intercept
        self.average = average
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.verbose = verbose

    # (the model class is the form's: both forms' dense passes check each row themselves)
    _pass_checks_dense_rows = (AdaGradModel.refuses_dense_rows
                               and DualAdaGradModel.refuses_dense_rows)

    @property
    def _model_class(self):
        return DualAdaGradModel if self.form == "dual" else AdaGradModel

    def _configure(self):
        model = self.__dict__.get("model_")
        if model is not None and type(model) is not self._model_class:
            raise ValueError(f"AdaGrad: form={self.form!r} was set after the model started in "
                             "the other form: fit restarts the model with the new value.")
        super()._configure()


class FTRLProximal(_AdaptiveClassifier):
    """Per-coordinate FTRL-Proximal with ℓ1 and ℓ2 regularization (McMahan et al., "Ad Click
    Prediction: a View from the Trenches", KDD 2013, Algorithm 1), made multiclass with one
    (z, n) per class and feature.

    Per coordinate j and class k, with g the round's gradient::

        σ = (√(n + g²) − √n)/α,   z ← z + g − σ·w,   n ← n + g²,
        w = 0 if |z| ≤ λ1, else −(z − sign(z)·λ1) / ((β + √n)/α + λ2)

    so ℓ1 gives exact zeros (a truly sparse model) and a CSR round costs O(K·non-zeros).

    Parameters
    ----------
    loss : {"log", "hinge"}, default="log"
        The multinomial logistic loss (Algorithm 1's, which gives :meth:`predict_proba`), or
        the multiclass max-score hinge loss.
    alpha : float, default=0.5
        α > 0 of the per-coordinate rate α/(β + √n).
    beta : float, default=1.0
        β ≥ 0 of that rate (1 in the paper's experiments).
    l1 : float, default=0.0
        λ1 ≥ 0: weights with |z| ≤ λ1 are exactly zero.
    l2 : float, default=0.0
        λ2 ≥ 0.

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features), or (1, n_features) for two classes
        The weights (one row per class; for two classes the single row scores
        ``classes_[1]`` against ``classes_[0]``).
    n_nonzero_ : int
        The number of non-zero weights.

    Examples
    --------
    >>> from onlinear import FTRLProximal
    >>> from onlinear.data import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = FTRLProximal(alpha=0.5, l1=1.0).fit(X[:1000], y[:1000])
    >>> print(f"test accuracy {model.score(X_test, y_test):.3f}, "
    ...       f"{model.n_nonzero_} non-zero weights of {model.coef_.size}")
    test accuracy 0.829, 2142 non-zero weights of 2560
    """

    _model_class = FTRLModel
    _parameter_constraints = {**_COMMON, "alpha": [Interval(Real, 0, None, closed="neither")],
                              "beta": [Interval(Real, 0, None, closed="left")]}

    def __init__(self, loss="log", alpha=0.5, beta=1.0, l1=0.0, l2=0.0, *, fit_intercept=False,
                 average=False, n_epochs=1, shuffle=False, random_state=None, class_weight=None,
                 warm_start=False, verbose=0):
        self.loss = loss
        self.alpha = alpha
        self.beta = beta
        self.l1 = l1
        self.l2 = l2
        self.fit_intercept = fit_intercept
        self.average = average
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.verbose = verbose
