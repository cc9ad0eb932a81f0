"""The streaming commands' imports, light: modules they never use are not imported, or not run.

``onlinear train``, ``predict`` and ``evaluate`` read LIBSVM text into a linear model; the
estimators subclass scikit-learn's base classes, and importing scikit-learn's base imports much
that such a command never calls.  Measured with ``python -X importtime`` and the peak resident
memory (``benchmarks/stream.py``; scikit-learn 1.9, scipy 1.17, numpy 2.4), of the ~2 s of CPU
and ~125 MiB that importing the estimators cost:

* pandas (``sklearn.utils.fixes``: ``try: import pandas``), about 0.5 s and 60 MiB
  (with narwhals' pandas support).  scikit-learn supports running without pandas, so the
  commands import it as if pandas were not installed (:class:`_Refused`); pandas can be
  imported as usual afterwards (scikit-learn looks it up in ``sys.modules`` when it meets a
  DataFrame).  This applies once, in a process that has imported neither scikit-learn nor
  pandas (a test runner that has is left as it is).
* ``scipy.stats`` (imported by ``sklearn.utils.fixes`` for a function the commands never call),
  about 1 s and 35 MiB with what it imports (``scipy.optimize``, ``scipy.interpolate``,
  ``scipy.ndimage``, ``scipy.spatial``…); ``numpy.testing`` and ``numpy.f2py`` (which
  scipy's array-API layer touches when it copies numpy's namespace), about 0.2 s and 8 MiB.
  These are imported lazily (:class:`importlib.util.LazyLoader`, :class:`_Lazy`): the import
  gives the module object at once and runs its code at the first use of one of its names, so
  a command that does use one gets the same module, complete, then.  Only the import is
  deferred: no value, hence no model file or prediction, can differ (tested, bit for bit).

Both apply while the ``light()`` context is open: when the command's module is imported
(:mod:`onlinear.cli.group`) and when it imports the estimators (:func:`import_estimators`).
A module imported lazily stays so after the context closes.  (Python 3.11's lazy modules are
not safe to load from two threads at once: the streaming commands load in the main thread.)
"""
import contextlib
import importlib
import importlib.util
import sys

__all__ = ["import_estimators", "light"]

#: imported as if not installed, in a process that has imported neither it nor scikit-learn
_REFUSED = ("pandas",)
#: imported lazily: the module runs at the first use of one of its names
_LAZY = ("scipy.stats", "numpy.testing", "numpy.f2py")


class _Refused:
    """A meta-path finder refusing the ``_REFUSED`` packages (as if not installed)."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.partition(".")[0] in _REFUSED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


class _Lazy:
    """A meta-path finder giving the ``_LAZY`` modules, as the finders after it find them, to
    :class:`importlib.util.LazyLoader`."""

    def find_spec(self, name, path=None, target=None):
        if name not in _LAZY:
            return None
        for finder in sys.meta_path[sys.meta_path.index(self) + 1:]:
            find = getattr(finder, "find_spec", None)
            spec = None if find is None else find(name, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec  # (a namespace package or an old-style loader: imported as usual)
        spec.loader = importlib.util.LazyLoader(spec.loader)
        return spec


@contextlib.contextmanager
def light():
    """While open, the ``_LAZY`` modules not imported yet are imported lazily, and the
    ``_REFUSED`` ones refused if neither they nor scikit-learn are imported yet."""
    finders = [_Lazy()]
    if not ("sklearn" in sys.modules or any(name in sys.modules for name in _REFUSED)):
        finders.insert(0, _Refused())
    sys.meta_path[:0] = finders
    try:
        yield
    finally:
        for finder in finders:
            sys.meta_path.remove(finder)


def import_estimators():
    """Import :mod:`onlinear.estimators` (and scikit-learn) lightly (see the module doc)."""
    with light():
        importlib.import_module("onlinear.estimators")
