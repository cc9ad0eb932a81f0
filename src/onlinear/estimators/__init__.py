"""scikit-learn estimators of the linear online learners.

The public classes are those each family module lists in its ``__all__``; :data:`FAMILIES`
names them by family, so that a class's family is imported at the first use of its name (a
command that learns with ``pa1`` imports the passive-aggressive family, not the kernel or the
confidence-weighted ones: ~0.17 s of its start).  A new estimator is exported (and documented
on the API page, ``docs/api/estimators.md``) by its module's ``__all__``, which
:data:`FAMILIES` reads from the module's source (``tests/test_public_names.py`` checks it
against the imported modules).
"""
import ast
import importlib
from pathlib import Path

from .base import OnlineLinearClassifier

#: the family modules, in the order of the API page
_MODULES = ("ultraconservative", "passive_aggressive", "maximum_cosine", "ellipsoid",
            "confidence_weighted", "narow", "adaptive", "kernel", "simultaneous")


def _public_names(module):
    """A family module's ``__all__`` (a literal list), read from its source without importing
    the module: a new class is listed once, in its module."""
    text = (Path(__file__).parent / f"{module}.py").read_text(encoding="utf-8")
    start = text.index("\n__all__ = [") + len("\n__all__ = ")
    return tuple(ast.literal_eval(text[start:text.index("]", start) + 1]))


#: each family module's ``__all__``, in the order of the API page
FAMILIES = {module: _public_names(module) for module in _MODULES}
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
