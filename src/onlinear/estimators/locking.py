"""The estimators' lock: learning calls serialized, a prediction never sees a half-updated model
(the contract is in :class:`onlinear.estimators.base.OnlineLinearClassifier`'s docstring)."""
import _thread
import functools

_LOCKED_METHODS = ("fit", "partial_fit", "learn_one", "learn_many", "learn_block", "predict", "predict_one",
                   "decision_function", "predict_label_sets", "predict_proba", "score",
                   "set_params", "grow_features")


class _ModelLock(_thread.RLock):
    """An estimator's re-entrant lock.  It is not state: a deep copy of the attribute dict
    (``copy.deepcopy(vars(model))``, as tests take snapshots) keeps this very lock, and a pickled
    lock is a fresh one (the estimator itself drops it when pickled or copied)."""

    __slots__ = ()

    def __deepcopy__(self, memo):
        return self

    def __copy__(self):
        return self

    def __reduce__(self):
        return (type(self), ())


def _locked(method):
    """``method`` run while holding the estimator's re-entrant lock."""
    @functools.wraps(method)
    def locked(self, *args, **kwargs):
        lock = self.__dict__.get("_lock") or self._model_lock()
        lock.acquire()
        try:
            return method(self, *args, **kwargs)
        finally:
            lock.release()
    locked.__wrapped_by_lock__ = True
    return locked


def _locked_property(prop):
    fget = prop.fget

    @functools.wraps(fget)
    def locked(self):
        with self._model_lock():
            return fget(self)
    return property(locked, prop.fset, prop.fdel, prop.__doc__)


def _lock_methods(cls, inherited=False):
    """Wrap ``cls``'s learning and reading methods and its public properties in the lock:
    those it defines itself (or, ``inherited``, those it has at all)."""
    for name in _LOCKED_METHODS:
        method = getattr(cls, name, None) if inherited else cls.__dict__.get(name)
        if callable(method) and not getattr(method, "__wrapped_by_lock__", False):
            setattr(cls, name, _locked(method))
    for name, value in list(cls.__dict__.items()):
        if isinstance(value, property) and name.endswith("_") and not name.startswith("_"):
            setattr(cls, name, _locked_property(value))
