"""scikit-learn estimators of the linear online learners.

The public classes are those each family module lists in its ``__all__``; :data:`FAMILIES`
names them by family, so that a class's family is imported at the first use of its name (a
command that learns with ``pa1`` imports the passive-aggressive family, not the kernel or the
confidence-weighted ones: ~0.17 s of its start).  A new estimator is exported (and documented
on the API page, ``docs/api/estimators.md``) by its module's ``__all__`` and its line here
(``tests/test_public_names.py`` checks that the two agree).
"""
import importlib

from .base import OnlineLinearClassifier

#: each family module's ``__all__``, in the order of the API page
FAMILIES = {
    "ultraconservative": ("Perceptron", "OneVsRestPerceptron", "UltraconservativePerceptron",
                          "KeslerPerceptron", "MIRA", "BinaryMIRA", "MulticlassROMMA",
                          "Multiplicative", "BalancedWinnow"),
    "passive_aggressive": ("PassiveAggressive", "SupportClassPA"),
    "maximum_cosine": ("ROMMA", "AggressiveROMMA", "NAROMMA", "MaximumCosinePerceptron",
                       "ConservativeMCP"),
    "ellipsoid": ("CELLIP", "IELLIP"),
    "confidence_weighted": ("ConfidenceWeighted", "AROW", "SoftConfidenceWeighted",
                            "NormalHerd"),
    "narow": ("NAROW",),
    "adaptive": ("AdaGrad", "FTRLProximal"),
    "kernel": ("KernelPerceptron", "KernelUltraconservativePerceptron",
               "KernelKeslerPerceptron", "KernelMIRA", "KernelPassiveAggressive",
               "KernelSupportClassPA", "KernelMulticlassROMMA"),
    "simultaneous": ("SimultaneousProjectionClassifier", "SimultaneousProjectionOrdinal",
                     "BlockLearner"),
}
_FAMILY_OF = {name: family for family, names in FAMILIES.items() for name in names}

__all__ = ["OnlineLinearClassifier", *_FAMILY_OF]


def __getattr__(name):
    # a class (or a family module) not used yet: its family imported now, the name kept
    if name in FAMILIES:
        return importlib.import_module(f"{__name__}.{name}")
    if name not in _FAMILY_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_FAMILY_OF[name]}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted({*globals(), *__all__, *FAMILIES})
