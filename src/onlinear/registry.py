"""The single list of algorithm names: the CLI, the experiment harness and the docs look names
up here, never in a list of their own.

>>> import onlinear
>>> "spa2" in onlinear.available()
True
>>> onlinear.make("pa1", C=0.001)
PassiveAggressive(C=0.001, slack='linear')
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field

CRAMMER_SINGER = "Crammer & Singer 2003, Ultraconservative online algorithms for multiclass problems"
MATSUSHIMA = "Matsushima et al. 2010, Exact passive-aggressive algorithm using support class"
LI_LONG = "Li & Long 2002, The relaxed online maximum margin algorithm"
BSHOUTY = "Bshouty & Haddad-Zaknoon 2016, The maximum cosine framework"
YANG_JIN_YE = "Yang, Jin & Ye 2009, Online learning by ellipsoid method"
DREDZE_CRAMMER = ("Dredze, Crammer & Pereira 2008, Confidence-weighted linear classification; "
                  "Crammer, Dredze & Pereira 2008, Exact convex confidence-weighted learning")
CRAMMER_KULESZA = "Crammer, Kulesza & Dredze 2009, Adaptive regularization of weight vectors"
WANG_ZHAO_HOI = "Wang, Zhao & Hoi 2012, Exact soft confidence-weighted learning"
CRAMMER_LEE = "Crammer & Lee 2010, Learning via Gaussian herding"
ORABONA_CRAMMER = "Orabona & Crammer 2010, New adaptive algorithms for online classification"
DUCHI = "Duchi, Hazan & Singer 2011, Adaptive subgradient methods for online learning"
MCMAHAN = "McMahan et al. 2013, Ad click prediction: a view from the trenches"
SOL = ("Wu, Hoi et al. 2017, SOL: a library for scalable online learning algorithms (the library's README, Comparison of Online Learning Algorithms)")
AMIT = ("Amit, Shalev-Shwartz & Singer 2008, Online learning of complex prediction problems using "
        "simultaneous projections")


@dataclass(frozen=True)
class Algorithm:
    """A registered algorithm: an estimator class with some parameters fixed.

    Parameters
    ----------
    name : str
        Registered name (``onlinear.make(name)``).
    class_name : str
        The estimator class's name in :mod:`onlinear.estimators` (its family is imported when
        :attr:`estimator` is first asked for).
    paper : str
        The paper it implements (authors, year, title).
    summary : str
        One line: what the algorithm does.
    fixed : dict, default={}
        Parameters set by the registration (e.g. ``{"scheme": "max"}``), not tunable.
    task : str, default="multiclass"
        The task of ``estimator``.
    one_vs_rest : bool, default=True
        Whether a binary learner runs one-vs-rest on more than two classes.
    kernel : bool, default=False
        A dual (support-pattern) learner, listed by ``available(kernel=True)``.
    task_classes : dict, default={}
        Estimators of the same algorithm for other tasks, ``{task: class name}``
        (``make(name, task=...)``).
    """

    name: str
    class_name: str
    paper: str
    summary: str
    fixed: dict = field(default_factory=dict)
    task: str = "multiclass"
    one_vs_rest: bool = True  # a binary learner that runs one-vs-rest on more classes
    kernel: bool = False  # a dual (support-pattern) learner: listed by available(kernel=True)
    #: estimators of the same algorithm for other tasks, {task: class name}: make(name, task=...)
    task_classes: dict = field(default_factory=dict)

    @property
    def estimator(self):
        """The estimator class."""
        return _estimator_class(self.class_name)

    @property
    def tasks(self):
        """The estimators of the other tasks, ``{task: class}``."""
        return {task: _estimator_class(name) for task, name in self.task_classes.items()}

    def runs(self, cls):
        """Whether ``cls`` is one of this algorithm's estimator classes (its family imported
        only if the class's name is one of them)."""
        names = (self.class_name, *self.task_classes.values())
        return cls.__name__ in names and cls in (self.estimator, *self.tasks.values())

    @property
    def handles_multiclass(self):
        return self.task == "multiclass" or self.one_vs_rest

    @property
    def hyperparameters(self):
        """Tunable parameters and their defaults (the fixed ones excluded)."""
        params = self.estimator().get_params()
        return {k: v for k, v in params.items() if k not in self.fixed}

    def unread(self, params, grid=None):
        """The hyperparameters among ``params`` (and the keys of ``grid``, ``{param:
        [values]}``) that this algorithm takes but its rule does not read with these settings
        in any combination of ``grid`` (its estimator's ``_read_only_with``: ``C`` of the hard
        ``pa``, which has no slack), as ``{param: why}``; ``why`` is the message that refuses
        it, naming the algorithm, the parameter and the remedy.  A value its rule never
        reads would be reported as if it had been tried, and a grid over it would report as
        tuned an algorithm that ignores it: the command line and the harness refuse them.

        >>> describe("pa").unread({"C": 0.1})["C"].split(":")[0]
        "pa does not use C (the slack's weight; the hard constraint has no slack)"
        >>> describe("pa1").unread({"C": 0.1})
        {}
        """
        conditions = self.estimator._read_only_with
        grid = grid or {}
        asked = [key for key in dict.fromkeys([*params, *grid]) if key in conditions]
        if not asked:
            return {}
        settings = {**self.hyperparameters, **self.fixed, **params}
        out = {}
        for key in asked:
            other, readers, what = conditions[key]
            values = list(grid[other]) if other in grid else [settings[other]]
            if any(value in readers for value in values):
                continue
            wanted = " or ".join(f"{other}={value!r}" for value in readers)
            if other in self.fixed:
                names = [n for n, a in REGISTRY.items()
                         if a.class_name == self.class_name and a.fixed.get(other) in readers]
                remedy = f"choose {' or '.join(names)}" if names else "choose another algorithm"
                out[key] = (f"{self.name} does not use {key} ({what}): its rule reads it only "
                            f"with {wanted}, and {self.name} fixes {other}="
                            f"{settings[other]!r}; drop {key}, or {remedy}.")
            else:
                given = "/".join(map(repr, values))
                out[key] = (f"{self.name} does not use {key} ({what}) with {other}={given}: "
                            f"its rule reads it only with {wanted}; drop {key}, or set "
                            f"{wanted}.")
        return out

    def make(self, task=None, **params):
        unknown = set(params) & set(self.fixed)
        if unknown:
            raise ValueError(f"{self.name} fixes {sorted(unknown)}; choose another algorithm name.")
        if task in (None, self.task):
            estimator = self.estimator
        elif task in self.task_classes:
            estimator = _estimator_class(self.task_classes[task])
        else:
            raise ValueError(f"{self.name} has no estimator for task {task!r}; its tasks: "
                             f"{', '.join([self.task, *self.tasks])}.")
        taken = estimator().get_params(deep=False)
        foreign = sorted(set(params) - set(taken))
        if foreign:  # (the class's __init__ would raise a TypeError naming itself)
            what = "" if task in (None, self.task) else f" for task {task!r}"
            raise ValueError(f"{self.name}{what} has no hyperparameter(s) {foreign}; its "
                             f"hyperparameters: {', '.join(sorted(set(taken) - set(self.fixed)))}.")
        model = estimator(**self.fixed, **params)
        model._validate_params()  # a bad value fails here, not at the first fit
        return model


_ALGORITHMS = [
    Algorithm("perceptron", "Perceptron", CRAMMER_SINGER,
              "binary Perceptron (one-vs-rest on more classes)", task="binary"),
    Algorithm("ovr-perceptron", "OneVsRestPerceptron", CRAMMER_SINGER,
              "one Perceptron per class, the experiments' baseline"),
    Algorithm("perceptron-uniform", "UltraconservativePerceptron", CRAMMER_SINGER,
              "additive family, demotion shared equally over the error set",
              fixed={"scheme": "uniform"}),
    Algorithm("perceptron-max", "UltraconservativePerceptron", CRAMMER_SINGER,
              "additive family, demotion of the highest-scoring wrong class",
              fixed={"scheme": "max"}),
    Algorithm("perceptron-prop", "UltraconservativePerceptron", CRAMMER_SINGER,
              "additive family, demotion proportional to the excess score",
              fixed={"scheme": "prop"}),
    Algorithm("kesler", "KeslerPerceptron", CRAMMER_SINGER,
              "Kesler's construction: a Perceptron on the expanded vectors"),
    Algorithm("mira", "MIRA", CRAMMER_SINGER,
              "MIRA: the smallest change that fixes the margin, exact per round"),
    Algorithm("binary-mira", "BinaryMIRA", CRAMMER_SINGER,
              "binary MIRA: clipped normalized-margin step", task="binary"),
    Algorithm("pa", "PassiveAggressive", MATSUSHIMA,
              "multiclass PA, max-loss form", fixed={"slack": "none"}),
    Algorithm("pa1", "PassiveAggressive", MATSUSHIMA,
              "multiclass PA-I (linear slack, step capped at C)", fixed={"slack": "linear"}),
    Algorithm("pa2", "PassiveAggressive", MATSUSHIMA,
              "multiclass PA-II (squared slack)", fixed={"slack": "squared"}),
    Algorithm("spa", "SupportClassPA", MATSUSHIMA,
              "exact support-class PA: all margin constraints at once",
              fixed={"slack": "none"}),
    Algorithm("spa1", "SupportClassPA", MATSUSHIMA,
              "exact support-class PA-I (linear slack)", fixed={"slack": "linear"}),
    Algorithm("spa2", "SupportClassPA", MATSUSHIMA,
              "exact support-class PA-II (squared slack)", fixed={"slack": "squared"}),
    Algorithm("romma", "ROMMA", LI_LONG,
              "ROMMA: relaxed maximum margin step on mistakes", task="binary"),
    Algorithm("aromma", "AggressiveROMMA", LI_LONG,
              "aggressive ROMMA: updates whenever the margin is below 1", task="binary"),
    Algorithm("naromma", "NAROMMA", BSHOUTY,
              "NAROMMA: aggressive ROMMA derived as a maximum-cosine step", task="binary"),
    Algorithm("mcp", "MaximumCosinePerceptron", BSHOUTY,
              "Maximum Cosine Perceptron: parameter-free, non-conservative", task="binary"),
    Algorithm("cmcp", "ConservativeMCP", BSHOUTY,
              "conservative Maximum Cosine Perceptron", task="binary"),
    Algorithm("mc-romma", "MulticlassROMMA", CRAMMER_SINGER,
              "multiclass ROMMA: additive step plus global rescaling"),
    Algorithm("multiplicative", "Multiplicative", CRAMMER_SINGER,
              "multiplicative family: exponentiated updates, l1-normalized positive weights"),
    Algorithm("winnow", "BalancedWinnow", CRAMMER_SINGER,
              "balanced Winnow, the two-class multiplicative learner", task="binary",
              one_vs_rest=False),
    Algorithm("cellip", "CELLIP", YANG_JIN_YE,
              "classical ellipsoid method: Mahalanobis projection and a shrinking ellipsoid"),
    Algorithm("iellip", "IELLIP", YANG_JIN_YE,
              "improved ellipsoid method: a decaying-memory second-order metric"),
]

# The confidence-weighted (Gaussian) family, a mean and a covariance per class, and the
# adaptive first-order learners, per-coordinate step sizes.
_ALGORITHMS += [
    Algorithm("cw", "ConfidenceWeighted", DREDZE_CRAMMER,
              "confidence-weighted: the smallest KL change that is correct with probability η"),
    Algorithm("arow", "AROW", CRAMMER_KULESZA,
              "AROW: CW with a squared hinge loss and a confidence term, robust to noise"),
    Algorithm("scw1", "SoftConfidenceWeighted", WANG_ZHAO_HOI,
              "soft confidence-weighted SCW-I: CW's constraint as a linear loss",
              fixed={"variant": "I"}),
    Algorithm("scw2", "SoftConfidenceWeighted", WANG_ZHAO_HOI,
              "soft confidence-weighted SCW-II: CW's constraint as a squared loss",
              fixed={"variant": "II"}),
    Algorithm("nherd", "NormalHerd", CRAMMER_LEE,
              "Normal Herd: the whole Gaussian takes the passive-aggressive step"),
    Algorithm("narow", "NAROW", ORABONA_CRAMMER,
              "NAROW: AROW with an adaptive r_t, no second-order step on confident examples",
              task="binary"),
    Algorithm("adagrad", "AdaGrad", DUCHI,
              "diagonal AdaGrad: per-coordinate steps, hinge or logistic loss, l1/l2",
              fixed={"form": "mirror"}),
    Algorithm("adagrad-rda", "AdaGrad", DUCHI,
              "diagonal AdaGrad, primal-dual form: regularized dual averaging of the gradients",
              fixed={"form": "dual"}),
    Algorithm("ftrl", "FTRLProximal", MCMAHAN,
              "FTRL-Proximal: per-coordinate rates, logistic loss, sparse with l1"),
]

# Simultaneous projections: one name per scheme; make(name) learns multiclass and multilabel
# problems, make(name, task="ordinal") ordinal ones, make(name, task="blocks") the paper's
# general blocks of binary constraints.
_SIMULTANEOUS_TASKS = {"multilabel": "SimultaneousProjectionClassifier",
                       "ordinal": "SimultaneousProjectionOrdinal", "blocks": "BlockLearner"}
_ALGORITHMS += [
    Algorithm(name, "SimultaneousProjectionClassifier", AMIT, summary, fixed={"scheme": name},
              task_classes=_SIMULTANEOUS_TASKS)
    for name, summary in [
        ("simperc", "simultaneous Perceptron: step C shared equally by the violated constraints"),
        ("conproj", "conservative simultaneous projections: PA-I steps averaged over mistakes"),
        ("simproj", "simultaneous projections: PA-I steps averaged over margin violators"),
        ("simopt", "simultaneous projections with jointly optimised weights (water-filling)"),
        ("maxpa", "MaxPA: a PA-I step on the most violated constraint only"),
        ("optimal", "the exact projection of every round (a dedicated block QP solver)"),
        ("sopopo", "Sopopo: the exact multi-prototype projection in closed form"),
    ]
]

# Kernel (dual, support-pattern) forms of the learners additive in x: "kernel-" + the primal name.
_KERNEL = " with a Mercer kernel (dual form: support patterns)"
_ALGORITHMS += [
    Algorithm("kernel-ovr-perceptron", "KernelPerceptron", CRAMMER_SINGER,
              "one-vs-rest Perceptron" + _KERNEL, kernel=True),
    *(Algorithm(f"kernel-perceptron-{scheme}", "KernelUltraconservativePerceptron",
                CRAMMER_SINGER, f"additive family ({scheme})" + _KERNEL,
                fixed={"scheme": scheme}, kernel=True) for scheme in ("uniform", "max", "prop")),
    Algorithm("kernel-kesler", "KernelKeslerPerceptron", CRAMMER_SINGER,
              "Kesler's construction" + _KERNEL, kernel=True),
    Algorithm("kernel-mira", "KernelMIRA", CRAMMER_SINGER, "MIRA" + _KERNEL, kernel=True),
    *(Algorithm(f"kernel-{name}", "KernelPassiveAggressive", MATSUSHIMA,
                f"multiclass {label}" + _KERNEL, fixed={"slack": slack}, kernel=True)
      for name, label, slack in (("pa", "PA", "none"), ("pa1", "PA-I", "linear"),
                                 ("pa2", "PA-II", "squared"))),
    *(Algorithm(f"kernel-{name}", "KernelSupportClassPA", MATSUSHIMA,
                f"exact support-class {label}" + _KERNEL, fixed={"slack": slack}, kernel=True)
      for name, label, slack in (("spa", "SPA", "none"), ("spa1", "SPA-I", "linear"),
                                 ("spa2", "SPA-II", "squared"))),
    Algorithm("kernel-mc-romma", "KernelMulticlassROMMA", CRAMMER_SINGER,
              "multiclass ROMMA" + _KERNEL, kernel=True),
]

REGISTRY = {algorithm.name: algorithm for algorithm in _ALGORITHMS}


def _estimator_class(name):
    """The class ``name`` of :mod:`onlinear.estimators` (its family imported on first use)."""
    return getattr(importlib.import_module("onlinear.estimators"), name)


def available(task: str | None = None, kernel: bool | None = False) -> list[str]:
    """Names of the registered algorithms.

    Parameters
    ----------
    task : str, optional
        Every algorithm by default; ``"multiclass"`` keeps those that can learn multiclass data (binary learners do so
        one-vs-rest), ``"binary"`` the binary ones; ``"multilabel"``, ``"ordinal"`` and
        ``"blocks"`` those with an estimator for that task (``make(name, task=...)``).
    kernel : bool or None, default=False
        ``False`` lists the primal learners, ``True`` the kernel (dual) learners ``kernel-*``
        — whose cost grows with the support set, so they are named explicitly rather than run
        by default on a large comparison —, ``None`` both.

    Returns
    -------
    list of str
        The names, in the registry's order.

    Examples
    --------
    >>> available("ordinal")
    ['simperc', 'conproj', 'simproj', 'simopt', 'maxpa', 'optimal', 'sopopo']
    """
    if task not in (None, "multiclass", "binary", "multilabel", "ordinal", "blocks"):
        raise ValueError(f"unknown task {task!r}; use 'multiclass', 'binary', 'multilabel', "
                         "'ordinal' or 'blocks'.")
    if kernel not in (None, True, False):
        raise ValueError(f"kernel must be True, False or None; got {kernel!r}.")
    return [name for name, a in REGISTRY.items()
            if (kernel is None or a.kernel == kernel)
            and (task is None or a.task == task or task in a.task_classes
                 or (task == "multiclass" and a.handles_multiclass))]


def describe(name: str) -> Algorithm:
    """The :class:`Algorithm` record of ``name``.

    Parameters
    ----------
    name : str
        A registered name (:func:`available`).

    Returns
    -------
    Algorithm
        Its estimator class, fixed parameters, paper and summary.

    Raises
    ------
    ValueError
        An unknown name (the message lists the known ones).

    Examples
    --------
    >>> describe("pa2").fixed, describe("pa2").paper.split(",")[0]
    ({'slack': 'squared'}, 'Matsushima et al. 2010')
    """
    if not isinstance(name, str):
        raise TypeError(f"an algorithm is named by a string (available()); got {name!r:.80} "
                        f"({type(name).__name__}).")
    try:
        return REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown algorithm {name!r}; available: {', '.join(REGISTRY)}") from None


def algorithm_of(model) -> str | None:
    """The registered name of the algorithm ``model`` runs (its class and fixed parameters),
    or None if no registration matches (e.g. a class built by hand with other settings)."""
    params = model.get_params(deep=False)
    for name, algorithm in REGISTRY.items():
        if algorithm.runs(type(model)) and all(params.get(key) == value
                                               for key, value in algorithm.fixed.items()):
            return name
    return None


def make(name: str, task: str | None = None, **params):
    """A fresh estimator for the registered algorithm ``name``.

    Parameters
    ----------
    name : str
        A registered name (:func:`available`).
    task : str, optional
        The estimator of another task where the algorithm has one (e.g.
        ``make("simproj", task="ordinal")``).
    **params
        Hyperparameters; the ones the name fixes (``slack`` of ``pa1``) are refused.

    Returns
    -------
    OnlineLinearClassifier
        An unfitted estimator, its parameters already validated.

    Raises
    ------
    ValueError
        An unknown name or task, a fixed or unknown parameter, or a bad value.
    """
    return describe(name).make(task=task, **params)
