"""The NAROW estimator (Orabona & Crammer, "New Adaptive Algorithms for Online
Classification", NIPS 2010): AROW's second-order step with an adaptive r_t, infinite (no
second-order increment) on examples the model is already confident about.  The model and its
rounds: :mod:`onlinear.models.narow`."""
from numbers import Real

from sklearn.utils._param_validation import Interval, StrOptions

from ..models.narow import NAROWModel
from . import docstrings
from .base import _Unweighted
from .confidence_weighted import GAUSSIAN_PARAMETERS
from .ellipsoid import FULL_MATRIX_MAX_SIZE
from .held_averaging import AVERAGE_CONSTRAINTS, _AveragedHeld
from .holding import HELD_CONSTRAINTS, _ModelHolding

__all__ = ["NAROW"]


class NAROW(_Unweighted, _AveragedHeld, _ModelHolding):
    """NAROW, "Narrow Adaptive Regularization Of Weights" (Orabona & Crammer, NIPS 2010), in the
    form of the LIBOL manual's Algorithm 11 and of the first author's DOGMA toolbox: a
    Perceptron-like sum θ, a matrix A whose increment xxᵀ/r_t has r_t = χ/(bχ − 1) when the
    example's variance χ = xᵀA⁻¹x exceeds 1/b and r_t = ∞ (no increment) otherwise, and the
    weights w = A⁻¹θ; on z·f < 1, f = (w·x)·r_t/(χ + r_t)::

        θ ← θ + z·x,   A⁻¹ ← A⁻¹ − (A⁻¹x)(A⁻¹x)ᵀ/(r_t + χ),   w ← A⁻¹θ

    Binary; on more than two classes one such learner per class, one-vs-rest (z = +1 for the
    class, −1 for the others; not in the paper), predicting argmax_k w_k·x.  LIBOL's
    ``NAROW.m`` is another algorithm (an AROW step with r_t, no update at all while r_t = ∞;
    ``docs/misprints.md``), offered as ``variant="libol"`` for reproducing LIBOL's numbers.
    The rounds take no example weights: the update is a Perceptron step with no loss to weigh.
    The rounds are compiled (:func:`onlinear._core.confidence.narow_pass`).

    Parameters
    ----------
    b : float, default=1.0
        b > 0: A grows only on examples of variance χ > 1/b (larger b: more often).  With
        ``a`` scaled as the input's units require (x → c·x, a → a/c²), χ and so b carry no
        units: the learner is then exactly invariant.
    matrix : {"auto", "per-class", "diagonal"}, default="auto"
        A⁻¹ full per output (O(d²) an update), or its diagonal (O(non-zeros));
        ``"auto"``: full while the model has at most 512 features, diagonal beyond.
    variant : {"dogma", "libol"}, default="dogma"
        Algorithm 11 (the form of the first author's DOGMA code), or LIBOL's ``NAROW.m``
        (full A⁻¹ only; LIBOL reads b from its ``C`` option).

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features), or (1, n_features) for two classes
        The weights w = A⁻¹θ (one row per class; for two classes the single row scores
        ``classes_[1]`` against ``classes_[0]``).

    Examples
    --------
    >>> from onlinear import NAROW
    >>> from onlinear.data import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = NAROW(b=1.0, matrix="diagonal").fit(X[:1000], y[:1000])
    >>> print(f"{model.n_mistakes_} mistakes on 1,000 examples, "
    ...       f"test accuracy {model.score(X_test, y_test):.3f}")
    193 mistakes on 1,000 examples, test accuracy 0.828
    """

    _weights_refusal = "its update is a Perceptron step with no loss to weigh"

    _model_class = NAROWModel
    _parameter_docs = {**docstrings.HELD_PARAMETERS, "a": GAUSSIAN_PARAMETERS["a"]}
    _parameter_constraints = {**HELD_CONSTRAINTS, **AVERAGE_CONSTRAINTS,
                              "b": [Interval(Real, 0, None, closed="neither")],
                              "a": [Interval(Real, 0, None, closed="neither")],
                              "matrix": [StrOptions({"auto", "diagonal", "per-class"})],
                              "variant": [StrOptions({"dogma", "libol"})]}

    def __init__(self, b=1.0, a=1.0, matrix="auto", variant="dogma", *, fit_intercept=False,
                 average=False, n_epochs=1, shuffle=False, random_state=None, warm_start=False,
                 verbose=0):
        self.b = b
        self.a = a
        self.matrix = matrix
        self.variant = variant
        self.fit_intercept = fit_intercept
        self.average = average
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.verbose = verbose

    def _validate_params(self):
        super()._validate_params()
        if self.variant == "libol" and self.matrix == "diagonal":
            raise ValueError("NAROW: variant='libol' is LIBOL's NAROW.m, which keeps a full "
                             "matrix: use matrix='per-class' (or 'auto').")

    def _model_config(self, n_outputs, n_features):
        layout = self.matrix
        if layout == "auto":
            layout = ("per-class" if n_features <= FULL_MATRIX_MAX_SIZE
                      or self.variant == "libol" else "diagonal")
        return {"b": float(self.b), "a": float(self.a), "layout": layout,
                "variant": self.variant, "min_variance": 0.0,
                "average": self._started_average(), "name": type(self).__name__}

    @property
    def covariance_(self):
        """A⁻¹: ``(n_features, n_outputs)`` diagonals or ``(n_outputs, d, d)`` matrices (a
        copy)."""
        return self.model_.covariance.copy()
