"""The single list of algorithm names: the CLI, the experiment harness and the docs look names
up here, never in a list of their own.

>>> import onlinear
>>> "spa2" in onlinear.available()
True
>>> onlinear.make("pa1", C=0.001)
PassiveAggressive(C=0.001, slack='linear')
"""
from dataclasses import dataclass, field

from .estimators import (
    MIRA,
    BinaryMIRA,
    KeslerPerceptron,
    OneVsRestPerceptron,
    PassiveAggressive,
    Perceptron,
    SupportClassPA,
    UltraconservativePerceptron,
)

CRAMMER_SINGER = "Crammer & Singer 2003, Ultraconservative online algorithms for multiclass problems"
MATSUSHIMA = "Matsushima et al. 2010, Exact passive-aggressive algorithm using support class"


@dataclass(frozen=True)
class Algorithm:
    """A registered algorithm: an estimator class with some parameters fixed."""

    name: str
    estimator: type
    paper: str
    summary: str
    fixed: dict = field(default_factory=dict)
    task: str = "multiclass"

    @property
    def hyperparameters(self):
        """Tunable parameters and their defaults (the fixed ones excluded)."""
        params = self.estimator().get_params()
        return {k: v for k, v in params.items() if k not in self.fixed}

    def make(self, **params):
        unknown = set(params) & set(self.fixed)
        if unknown:
            raise ValueError(f"{self.name} fixes {sorted(unknown)}; choose another algorithm name.")
        return self.estimator(**self.fixed, **params)


_ALGORITHMS = [
    Algorithm("perceptron", Perceptron, CRAMMER_SINGER,
              "binary Perceptron (one-vs-rest on more classes)", task="binary"),
    Algorithm("ovr-perceptron", OneVsRestPerceptron, CRAMMER_SINGER,
              "one Perceptron per class, the experiments' baseline"),
    Algorithm("perceptron-uniform", UltraconservativePerceptron, CRAMMER_SINGER,
              "additive family, demotion shared equally over the error set",
              fixed={"scheme": "uniform"}),
    Algorithm("perceptron-max", UltraconservativePerceptron, CRAMMER_SINGER,
              "additive family, demotion of the highest-scoring wrong class",
              fixed={"scheme": "max"}),
    Algorithm("perceptron-prop", UltraconservativePerceptron, CRAMMER_SINGER,
              "additive family, demotion proportional to the excess score",
              fixed={"scheme": "prop"}),
    Algorithm("kesler", KeslerPerceptron, CRAMMER_SINGER,
              "Kesler's construction: a Perceptron on the expanded vectors"),
    Algorithm("mira", MIRA, CRAMMER_SINGER,
              "MIRA: the smallest change that fixes the margin, exact per round"),
    Algorithm("binary-mira", BinaryMIRA, CRAMMER_SINGER,
              "binary MIRA: clipped normalized-margin step", task="binary"),
    Algorithm("pa", PassiveAggressive, MATSUSHIMA,
              "multiclass PA, max-loss form", fixed={"slack": "none"}),
    Algorithm("pa1", PassiveAggressive, MATSUSHIMA,
              "multiclass PA-I (linear slack, step capped at C)", fixed={"slack": "linear"}),
    Algorithm("pa2", PassiveAggressive, MATSUSHIMA,
              "multiclass PA-II (squared slack)", fixed={"slack": "squared"}),
    Algorithm("spa", SupportClassPA, MATSUSHIMA,
              "exact support-class PA: all margin constraints at once",
              fixed={"slack": "none"}),
    Algorithm("spa1", SupportClassPA, MATSUSHIMA,
              "exact support-class PA-I (linear slack)", fixed={"slack": "linear"}),
    Algorithm("spa2", SupportClassPA, MATSUSHIMA,
              "exact support-class PA-II (squared slack)", fixed={"slack": "squared"}),
]

REGISTRY = {algorithm.name: algorithm for algorithm in _ALGORITHMS}


def available(task=None):
    """Names of the registered algorithms (optionally only those of one ``task``)."""
    return [name for name, a in REGISTRY.items() if task is None or a.task == task]


def describe(name):
    """The :class:`Algorithm` record of ``name``."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown algorithm {name!r}; available: {', '.join(REGISTRY)}") from None


def make(name, **params):
    """A fresh estimator for the registered algorithm ``name`` with ``params`` set."""
    return describe(name).make(**params)
