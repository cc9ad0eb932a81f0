"""Kernel (dual, support-pattern) forms of the learners whose update is additive in x: the
one-vs-rest Perceptron, the additive family, Kesler's construction, MIRA, PA/SPA and MC-ROMMA
(Crammer & Singer, end of §5.3, Eq. 21; Matsushima et al.).

Each class is its primal estimator with a Mercer kernel: the same rule and hyperparameters, run by
:mod:`onlinear._core.kernel`, which stores the support patterns (the examples with a non-zero
step) and their per-class coefficients and scores ``s_r(x) = Σ_i α_{i,r} K(x_i, x)``.  With
``kernel="linear"`` the learner makes the primal learner's predictions (up to rounding: the
inner products are summed in another order).

Kernel parameters follow scikit-learn's :class:`~sklearn.svm.SVC`: ``kernel`` ("linear",
"poly", "rbf" or a callable ``kernel(A, B) → Gram matrix``), ``degree``, ``gamma`` ("scale" =
``1/(n_features·X.var())`` of the data of ``fit`` or ``stream``; refused by ``partial_fit`` and
``learn_one`` on a new model, whose result would depend on how the stream is cut — see
:func:`onlinear.kernels.scale_gamma` —, "auto" = ``1/n_features``, or a positive number) and
``coef0``.  Crammer & Singer's homogeneous polynomial kernel ``(x·x')^d`` is
``kernel="poly", gamma=1.0, coef0=0.0``.  A callable kernel runs in Python once per round
(slow: for checks and experiments; the built-in kernels are compiled).

Support patterns are stored densely (float64, feature-major: one contiguous row of the support
set per feature), also for CSR input: the kernel row of an example against the whole support set
is then one contiguous vectorised sweep per non-zero feature of the example, which is what the
papers' data (MNIST, USPS, Letter: pixels or few features) needs; the memory is
``S × n_features`` floats, so very high-dimensional sparse data (text) is better served by the
primal learners.  Memory grows with the support set only (no Gram matrix is ever formed during
learning).

``average=True`` predicts with the average of the hypotheses after each training round
(Freund & Schapire's averaging; Crammer & Singer mention it but report the final
hypothesis, the default).
"""
import inspect
from numbers import Integral, Real

from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ..kernels import resolve, scale_gamma
from . import docstrings
from .base import OnlineLinearClassifier, _Unweighted
from .holding import _ModelHolding
from .primal import _PrimalLearner
from .rule_facts import _RuleFacts
from ..models.dual import DualModel
from .passive_aggressive import PassiveAggressive, SupportClassPA
from .ultraconservative import (
    MIRA,
    KeslerPerceptron,
    MulticlassROMMA,
    OneVsRestPerceptron,
    UltraconservativePerceptron,
)


_KERNEL_CONSTRAINTS = {
    "kernel": [StrOptions({"linear", "poly", "rbf"}), callable],
    "degree": [Interval(Integral, 0, None, closed="left")],
    "gamma": [StrOptions({"scale", "auto"}), Interval(Real, 0, None, closed="neither")],
    "coef0": [Interval(Real, None, None, closed="neither")],
}


#: the kernel hyperparameters, between the primal class's own and the protocol's
_KERNEL_DEFAULTS = {"kernel": "rbf", "degree": 3, "gamma": "auto", "coef0": 0.0}
#: the kernel forms' own shared parameters, documented once (see ``estimators.docstrings``)
KERNEL_PARAMETERS = {
    "kernel": """\
kernel : {"rbf", "poly", "linear"} or callable, default="rbf"
    The Mercer kernel K: ``exp(−gamma‖x − x'‖²)``, ``(gamma x·x' + coef0)^degree`` or
    ``x·x'``; a callable takes two 2-D arrays and returns their Gram matrix.""",
    "degree": """\
degree : int, default=3
    Degree of the polynomial kernel.""",
    "gamma": """\
gamma : {"auto", "scale"} or float, default="auto"
    Kernel coefficient (rbf, poly).  ``"auto"`` is 1/n_features, known from the first row,
    so every entry point takes it (``learn_one`` and ``partial_fit`` on a stream included).
    ``"scale"`` (scikit-learn SVC's default) is 1/(n_features·Var(X)) of the data of ``fit``
    (or ``stream``): ``partial_fit``, ``learn_one`` and ``learn_many`` starting a model
    refuse it, since a stream's first chunk is not the training set and the model would
    depend on how the stream is cut — for a stream, give the number
    :func:`onlinear.kernels.scale_gamma` computes on a sample.  The value used is
    ``gamma_``.  Resolved from the data, either one is the started width's: such a model
    cannot grow features (:meth:`grow_features`), so a stream whose rows widen needs a
    number, or its width from the start.""",
    "coef0": """\
coef0 : float, default=0.0
    Constant term of the polynomial kernel.""",
    "average": """\
average : bool, default=False
    Predict with the averaged hypothesis (the averaged dual coefficients,
    ``average_dual_coef_``) rather than the final one; the online counts and ``learn_one``'s
    return value stay those of the online hypothesis.  Fixed when the model starts.""",
}

#: the kernel forms' fitted attributes besides every learner's
KERNEL_ATTRIBUTES = {
    "support_vectors_": """\
support_vectors_ : ndarray of shape (n_support_patterns, n_features)
    The stored examples (the support patterns).""",
    "dual_coef_": """\
dual_coef_ : ndarray of shape (n_support_patterns, n_outputs)
    The coefficients α of the final hypothesis (one column per class; one column for a
    two-class binary rule).""",
    "n_support_patterns_": """\
n_support_patterns_ : int
    Distinct examples stored (a training row updated in several epochs of ``fit`` counts
    once); ``n_updates_`` counts the cumulative updates, the papers' "number of support
    patterns" (Crammer & Singer, Appendix B).""",
    "gamma_": """\
gamma_ : float
    The gamma used (``"scale"``/``"auto"`` resolved).""",
}


#: What a kernel form takes from its primal class besides its hyperparameters: the rule.
_RULE_FACTS = ("_rule", "_rule_values", "_step_kind", "_two_class_outputs")

#: Protocol parameters of a primal class that its kernel form does not take: ``dtype`` is the
#: precision of primal weights (the kernel forms keep float64 dual coefficients and patterns).
_PRIMAL_ONLY = frozenset({"dtype"})


def _kernel_init(primal):
    """``__init__`` of the kernel form of ``primal``: its hyperparameters, the kernel's, then
    the keyword-only protocol parameters (``n_epochs``, ``shuffle``, ``random_state``)."""
    signature = inspect.signature(primal.__init__)
    head = [p for p in signature.parameters.values() if p.kind is p.POSITIONAL_OR_KEYWORD]
    tail = [p for p in signature.parameters.values() if p.kind is p.KEYWORD_ONLY
            and p.name not in _PRIMAL_ONLY]
    kernel = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default)
              for name, default in _KERNEL_DEFAULTS.items()]
    signature = signature.replace(parameters=head + kernel + tail)

    def __init__(self, *args, **kwargs):
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        for name, value in list(bound.arguments.items())[1:]:
            setattr(self, name, value)

    __init__.__signature__ = signature
    __init__.__qualname__ = f"Kernel{primal.__name__}.__init__"
    return __init__


def _with_rule_parameters(doc, primal):
    """``doc`` with the Parameters entries of ``primal``'s rule hyperparameters (its
    positional parameters), as ``primal`` documents them."""
    names = [p.name for p in inspect.signature(primal.__init__).parameters.values()
             if p.kind is p.POSITIONAL_OR_KEYWORD and p.name != "self"]
    own = docstrings.parameter_entries(primal)
    cls = type("_Doc", (), {"__doc__": doc, "__init__": lambda self: None})
    return docstrings.complete(cls, {name: own[name] for name in names}, {}, order=names)


class _NoPrimalWeights:
    """Hides an inherited ``coef_`` or ``intercept_``: a kernel model has no primal weights
    (``hasattr`` is False, and introspection of fitted properties does not list it; with
    ``fit_intercept`` the constant feature is inside the kernel, not a separate bias)."""

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, instance, owner):
        if instance is None:
            return self
        raise AttributeError(
            f"{owner.__name__} is a kernel model: it has no {self.name}; see support_vectors_ "
            "and dual_coef_.")


class KernelLearner(_RuleFacts, _ModelHolding):
    """Base of the kernel learners: the dual model and its engine; the rule, its parameters and
    the hyperparameters come from the primal class mixed in after this one.  The kernel's
    parameters and fitted attributes are documented once, in :data:`KERNEL_PARAMETERS` and
    :data:`KERNEL_ATTRIBUTES`, and added to each kernel form's docstring."""

    _parameter_constraints = {**OnlineLinearClassifier._parameter_constraints,
                              **_KERNEL_CONSTRAINTS}
    _parameter_docs = {**docstrings.PARAMETERS, **KERNEL_PARAMETERS}
    _attribute_docs = {**docstrings.ATTRIBUTES, **KERNEL_ATTRIBUTES}

    def __init_subclass__(cls, primal=None, **kwargs):
        """A kernel form ``class KernelX(KernelLearner, primal=X)`` gets, from its primal class
        X, its rule and the rule's facts (``_rule``, ``_rule_values``, ``_step_kind``, the
        number of outputs, a property of the rule's state such as ``weight_norm_``), its
        hyperparameters (``__init__``, whose explicit signature scikit-learn's ``get_params``
        reads), their constraints, its Parameters section, and ``fit``'s signature (a rule
        without a weighted form takes no ``sample_weight``): nothing is typed twice.  X's
        model is not inherited: the kernel form holds the dual model."""
        if primal is not None:
            for name in _RULE_FACTS:
                setattr(cls, name, getattr(primal, name))
            cls._read_only_with = primal._read_only_with  # (its hyperparameters: the same)
            for owner in primal.__mro__[:primal.__mro__.index(_PrimalLearner)]:
                for name, value in vars(owner).items():  # its own fitted properties
                    if isinstance(value, property) and name.endswith("_") \
                            and not name.startswith("_") and name not in cls.__dict__:
                        setattr(cls, name, value)
            if issubclass(primal, _Unweighted):
                cls.fit, cls.partial_fit = _Unweighted.fit, _Unweighted.partial_fit
                cls._weights_refusal = primal._weights_refusal
            if "__init__" not in cls.__dict__:
                cls.__init__ = _kernel_init(primal)
                cls._parameter_constraints = {**primal._parameter_constraints,
                                              **_KERNEL_CONSTRAINTS}
                cls.__doc__ = _with_rule_parameters(cls.__doc__ or "", primal)
        super().__init_subclass__(**kwargs)  # (after: it completes the docstring from here)

    # ------------------------------------------------------------------ the model
    _model_class = DualModel

    def _model_config(self, n_outputs, n_features):
        gamma = self.__dict__.get("gamma_")  # (None until resolved from the first data)
        kind, kernel_params = (None, None) if gamma is None else resolve(
            self.kernel, self.degree, gamma, self.coef0)
        return DualModel.configuration(
            self._rule_id, self._rule_params(), name=type(self).__name__, kind=kind,
            kernel_params=kernel_params, kernel=self.kernel if callable(self.kernel) else None,
            state_rows=self._state_rows, weight_mode=self._weight_mode(),
            average=bool(self.average),
            data_gamma=(self.gamma if self.gamma in ("auto", "scale") and not callable(
                self.kernel) and self.kernel in ("rbf", "poly") else None))

    def _validate_params(self):
        super()._validate_params()
        if self.fit_intercept and callable(self.kernel):
            raise ValueError("fit_intercept=True appends a constant feature to every row, which "
                             "a kernel callable would receive as a feature of its own: add the "
                             "bias in the callable instead (e.g. K(x, x') + 1).")

    def _gamma_of(self, gamma, n_features, resolved=None):
        """The number ``gamma`` stands for: itself, ``1/n_features`` for ``"auto"``, and for
        ``"scale"`` the value ``resolved`` from the first data."""
        if gamma == "auto":
            return 1.0 / n_features
        return resolved if gamma == "scale" else gamma

    # the resolved gamma: cleared when a model starts, then resolved from its first data
    _resolved_from_data = ("gamma_",)

    def _resolve_from_data(self, X, method):
        """The kernel, resolved from the first data of the model (before anything is learned):
        ``gamma="auto"`` from the rows' width, ``gamma="scale"`` from the data of ``fit`` or
        ``stream``.  The calls that start a model on a stream (``partial_fit``, ``learn_many``,
        ``learn_one``) refuse ``"scale"``: resolved from a first chunk, it would make the model
        depend on how the stream is cut (a chunked ``partial_fit`` would differ from ``fit``);
        the caller restores the fresh model."""
        if method not in ("fit", "stream") and self._needs_whole_data():
            raise ValueError(
                f'gamma="scale" is 1/(n_features·Var(X)) of the whole training set, which '
                f"{method} does not see: the model would depend on how the stream is cut. Pass "
                "a number, e.g. onlinear.kernels.scale_gamma(X_sample) on a sample of the "
                'stream, or gamma="auto" (1/n_features); fit and stream resolve "scale" '
                "from their data.")
        if self._constant():  # gamma is the data's: not counting the intercept's constant
            X = X[:, :-1]
        gamma = self._gamma_of(self.gamma, X.shape[1],
                               scale_gamma(X) if self.gamma == "scale" else None)
        resolve(self.kernel, self.degree, gamma, self.coef0)  # (refuses a bad kernel first)
        self.gamma_ = float(gamma)
        self._configure()

    def _needs_whole_data(self):
        """Whether the kernel's ``gamma`` is ``"scale"``, a statistic of the whole training set."""
        return (self.gamma == "scale" and not callable(self.kernel)
                and self.kernel in ("rbf", "poly"))

    def set_params(self, **params):
        """Set hyperparameters; on a model already learning, a new kernel (or kernel parameter)
        applies from now on, to the stored expansion too (``gamma="scale"`` keeps the value
        resolved from the first data)."""
        resolved = self.__dict__.get("gamma_")
        if resolved is None or not set(params) & set(_KERNEL_CONSTRAINTS):
            return super().set_params(**params)
        gamma = self._gamma_of(params.get("gamma", self.gamma), self.n_features_in_, resolved)
        self.gamma_ = float(gamma) if isinstance(gamma, Real) else gamma  # (the model's next)
        try:
            return super().set_params(**params)  # (validates, then configures the model)
        except Exception:
            self.gamma_ = resolved
            raise

    # the resolved gamma is None until the kernel is resolved on the first data
    _model_scalars = {**OnlineLinearClassifier._model_scalars, "_n_support": int,
                      "gamma_": (float, type(None))}

    @property
    def _n_support(self):
        """The number of support patterns (a scalar of a saved file): the model's."""
        model = self.__dict__.get("model_")
        if model is None:
            return self.__dict__.get("_loaded_model_scalars", {}).get("n_support", 0)
        return model.n_support

    @_n_support.setter
    def _n_support(self, value):  # (a file's scalar, read before the model's arrays)
        model = self.__dict__.get("model_")
        if model is None:
            self.__dict__.setdefault("_loaded_model_scalars", {})["n_support"] = value
        else:
            model.n_support = value

    # ------------------------------------------------------------------ fitted attributes
    coef_ = _NoPrimalWeights()
    intercept_ = _NoPrimalWeights()

    @property
    def support_vectors_(self):
        check_is_fitted(self)  # (the user's features: not the intercept's constant)
        return self.model_.support[:self.n_features_in_, :self.model_.n_support].T.copy()

    @property
    def dual_coef_(self):
        check_is_fitted(self)
        return self.model_.dual_coefficients(average=False)

    @property
    def average_dual_coef_(self):
        """Coefficients of the averaged hypothesis (see ``average``)."""
        check_is_fitted(self)
        return self.model_.dual_coefficients(average=True)

    @property
    def n_support_patterns_(self):
        check_is_fitted(self)
        return self.model_.n_support

    @property
    def _rule_state(self):
        """The rule's state rows (the engine's lazy scales and sizes, then the rule's own)."""
        return self.model_.state


class KernelPerceptron(KernelLearner, primal=OneVsRestPerceptron):
    """Kernel one-vs-rest Perceptron, the baseline ("Perceptron") of Crammer & Singer's
    experiments: output r updates iff ``z_r s_r ≤ β`` (see :class:`OneVsRestPerceptron`).

    Examples
    --------
    >>> from onlinear import KernelPerceptron
    >>> from onlinear.data import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = KernelPerceptron(kernel="poly", degree=3, gamma=1.0).fit(X[:500], y[:500])
    >>> print(f"{model.n_mistakes_} mistakes on 500 examples, "
    ...       f"test accuracy {model.score(X_test, y_test):.3f}")
    110 mistakes on 500 examples, test accuracy 0.823
    """



class KernelUltraconservativePerceptron(KernelLearner, primal=UltraconservativePerceptron):
    """Kernel form of the additive family (uniform / max / prop, see
    :class:`UltraconservativePerceptron`).

    Examples
    --------
    >>> from onlinear import KernelUltraconservativePerceptron
    >>> from onlinear.data import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = KernelUltraconservativePerceptron(kernel="poly", gamma=1.0).fit(X[:500], y[:500])
    >>> print(f"{model.n_mistakes_} mistakes on 500 examples, "
    ...       f"test accuracy {model.score(X_test, y_test):.3f}")
    111 mistakes on 500 examples, test accuracy 0.801
    """



class KernelKeslerPerceptron(KernelLearner, primal=KeslerPerceptron):
    """Kernel form of Kesler's construction (see :class:`KeslerPerceptron`).

    Examples
    --------
    >>> from onlinear import KernelKeslerPerceptron
    >>> from onlinear.data import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = KernelKeslerPerceptron(kernel="poly", gamma=1.0).fit(X[:500], y[:500])
    >>> print(f"{model.n_mistakes_} mistakes on 500 examples, "
    ...       f"test accuracy {model.score(X_test, y_test):.3f}")
    121 mistakes on 500 examples, test accuracy 0.821
    """



class KernelMIRA(KernelLearner, primal=MIRA):
    """Kernel MIRA (Crammer & Singer §5: ``A = K(x, x)``, ``B_r = Σ_i τ_r^i K(x_i, x)``); the
    per-round problem and its exact solution are those of :class:`MIRA`.

    Examples
    --------
    >>> from onlinear import KernelMIRA
    >>> from onlinear.data import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = KernelMIRA(kernel="poly", degree=3, gamma=1.0).fit(X[:500], y[:500])
    >>> print(f"{model.n_mistakes_} mistakes on 500 examples, "
    ...       f"test accuracy {model.score(X_test, y_test):.3f}")
    77 mistakes on 500 examples, test accuracy 0.871
    """



class KernelPassiveAggressive(KernelLearner, primal=PassiveAggressive):
    """Kernel multiclass PA / PA-I / PA-II (max-loss form, see :class:`PassiveAggressive`).

    Examples
    --------
    >>> from onlinear import KernelPassiveAggressive
    >>> from onlinear.data import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = KernelPassiveAggressive(kernel="poly", gamma=1.0).fit(X[:500], y[:500])
    >>> print(f"{model.n_mistakes_} mistakes on 500 examples, "
    ...       f"test accuracy {model.score(X_test, y_test):.3f}")
    81 mistakes on 500 examples, test accuracy 0.865
    """



class KernelSupportClassPA(KernelLearner, primal=SupportClassPA):
    """Kernel exact Support-Class PA / SPA-I / SPA-II (see :class:`SupportClassPA`).

    Examples
    --------
    >>> from onlinear import KernelSupportClassPA
    >>> from onlinear.data import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = KernelSupportClassPA(kernel="poly", gamma=1.0).fit(X[:500], y[:500])
    >>> print(f"{model.n_mistakes_} mistakes on 500 examples, "
    ...       f"test accuracy {model.score(X_test, y_test):.3f}")
    77 mistakes on 500 examples, test accuracy 0.871
    """



class KernelMulticlassROMMA(KernelLearner, primal=MulticlassROMMA):
    """Kernel multiclass ROMMA (Crammer & Singer, end of §5.3: "keep a global scale factor … and
    the scalar
    N"): the rescaling is the engine's lazy per-output scale on the dual coefficients, and
    ‖M‖² is kept in the dual (see :mod:`onlinear._core.kernel`).  As for
    :class:`MulticlassROMMA`, the model is kept at unit norm; ``weight_norm_`` is ‖M‖.

    Examples
    --------
    >>> from onlinear import KernelMulticlassROMMA
    >>> from onlinear.data import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> model = KernelMulticlassROMMA(kernel="poly", gamma=1.0).fit(X[:500], y[:500])
    >>> print(f"{model.n_mistakes_} mistakes on 500 examples, "
    ...       f"test accuracy {model.score(X_test, y_test):.3f}")
    117 mistakes on 500 examples, test accuracy 0.774
    """



__all__ = ["KernelPerceptron", "KernelUltraconservativePerceptron",
           "KernelKeslerPerceptron", "KernelMIRA", "KernelPassiveAggressive",
           "KernelSupportClassPA", "KernelMulticlassROMMA"]
