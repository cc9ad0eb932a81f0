"""onlinear: fast, faithful online learning of linear multiclass classifiers.

The estimators (and the registry that makes them), and the functions that save, load and
stream, are imported on first use, not with the package: they import scikit-learn, numpy and
scipy, whose import costs seconds and a hundred-odd MiB, so that a command that does not need
them yet can choose how they are imported (:mod:`onlinear.cli.imports`).  ``import onlinear``
offers the same names as ever.
"""
import importlib
import importlib.util

from ._version import __version__

_REGISTRY_NAMES = ("available", "describe", "make")
#: the package's own functions, by the module that defines them
_FUNCTIONS = {"load": "persistence", "read_header": "persistence", "save": "persistence",
              "learn_stream": "streaming"}


def __getattr__(name):
    # called for a name the module does not hold yet (an estimator, the registry's functions,
    # __all__): imported now and kept, so that it runs once per name
    if name.startswith("__") and name != "__all__":
        raise AttributeError(f"module 'onlinear' has no attribute {name!r}")
    if name in _FUNCTIONS:
        value = getattr(importlib.import_module(f"onlinear.{_FUNCTIONS[name]}"), name)
    elif name in _REGISTRY_NAMES:
        value = getattr(importlib.import_module("onlinear.registry"), name)
    elif importlib.util.find_spec(f"{__name__}.{name}") is not None:
        # a module of the package (``from onlinear import data`` asks for the attribute
        # before importing the module): itself, without the estimators
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        estimators = importlib.import_module("onlinear.estimators")
        if name == "__all__":
            value = ["available", "describe", "make", "save", "load", "read_header",
                     "learn_stream", *estimators.__all__]
        elif name == "estimators":
            value = estimators
        elif name in estimators.__all__:
            value = getattr(estimators, name)
        else:
            raise AttributeError(f"module 'onlinear' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted({*globals(), *__getattr__("__all__")})
