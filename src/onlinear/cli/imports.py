"""The streaming commands' import of the estimators, without pandas.

The estimators import scikit-learn, and scikit-learn imports pandas whenever it is installed
(``sklearn.utils.fixes``: ``try: import pandas``), which a command reading LIBSVM text never
uses: about 0.5 s of CPU and 60 MiB of memory out of the ~2 s and ~170 MiB that importing
scikit-learn costs (``benchmarks/stream.py`` measures it).  scikit-learn supports running
without pandas, so the streaming commands import it as if pandas were not installed — once,
in a process that has imported neither (a test runner that has is left as it is); pandas can
be imported as usual afterwards (scikit-learn looks it up in ``sys.modules`` when it meets a
DataFrame).
"""
import importlib
import sys

__all__ = ["import_estimators"]

_DEFERRED = ("pandas",)


class _Deferred:
    """A meta-path finder refusing the ``_DEFERRED`` packages (as if not installed)."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.partition(".")[0] in _DEFERRED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


def import_estimators():
    """Import :mod:`onlinear.estimators` (and scikit-learn) without pandas, unless scikit-learn
    or pandas is imported already."""
    if "sklearn" in sys.modules or any(name in sys.modules for name in _DEFERRED):
        importlib.import_module("onlinear.estimators")
        return
    finder = _Deferred()
    sys.meta_path.insert(0, finder)
    try:
        importlib.import_module("onlinear.estimators")
    finally:
        sys.meta_path.remove(finder)
