"""onlinear: fast, faithful online learning of linear multiclass classifiers."""
from . import estimators
from .estimators import *  # noqa: F403  (the one list of public classes: estimators.__all__)
from .persistence import load, read_header, save
from .streaming import learn_stream
from .registry import available, describe, make
from ._version import __version__

__all__ = ["available", "describe", "make", "save", "load", "read_header", "learn_stream",
           *estimators.__all__]
