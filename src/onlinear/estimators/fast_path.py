"""The per-example fast path of the primal learners: ``learn_one`` and ``predict_one`` of a
started model in one compiled call, with the Python work of a call cut to the checks that decide
whether it may take that call.

A per-example call costs a few microseconds, of which the round itself is about half (pa, 784
features, 10 classes).  The rest was Python: reading the model's arrays and flags from the
estimator, deciding on every call what cannot change between calls, and numba's dispatcher
resolving the types of sixteen arguments and unboxing them (about 80 ns an array).  So a
started model gets a *context* (:func:`build`): closures over its arrays, its rule's constants,
its label index and the compiled entry points chosen once (:func:`entry_point`: the
dispatcher's type resolution skipped, the types guaranteed by the closure's own checks), which
take the row, its label, the weights and one table of the round's other arguments (the
model's other arrays by address: :func:`~onlinear._core.primal.model_table`; five arguments to
unbox, 1.3 → 0.4 µs a call; its tail is the call's scratch, so a call allocates nothing).
The estimator drops the context whenever one of its attributes is set
(``OnlineLinearClassifier.__setattr__``): a refit, a loaded model, grown classes or features, a
change of ``fit_intercept``, ``class_weight`` or ``average``, and a change of the weights'
layout all rebind an attribute, while a round only writes into the arrays the context holds.

A context serves one kind of row, that of the model's layout: dense rows on class-major weights,
CSR rows on feature-major ones (see ``OnlineLinearClassifier._class_major``).  A row the closures
do not take (another kind, dtype or width, a label they do not know, a value that is not finite)
makes them return None, having changed nothing, and the estimator's general path takes the call:
it converts, switches the layout, or names the problem.
"""
import numba
import numpy as np
import scipy.sparse as sp

from .._core import primal
from .._core.rows import INT32_MAX

_FLOAT64 = np.dtype(np.float64)
_FLOAT32 = np.dtype(np.float32)
_ROW_DTYPES = (_FLOAT64, _FLOAT32)
_INDEX_DTYPES = (np.dtype(np.int32), np.dtype(np.int64))
_CSR_TYPES = (sp.csr_matrix, sp.csr_array)
_NO_INDEX = np.zeros(0, np.int64)  # (a CSR round reads no dense index)


def entry_point(dispatcher, *args):
    """The compiled entry point of the numba ``dispatcher`` for the types of ``args`` (a value,
    or a numba type; compiled, or loaded from the cache, on first use).  Calling it skips the
    dispatcher's resolution of the argument types (about 40 ns an argument), so the caller
    must pass arguments of these types (dtype, dimensions; a layout the type admits): numba
    does not check them again."""
    return dispatcher.compile(tuple(arg if isinstance(arg, numba.types.Type)
                                    else numba.typeof(arg) for arg in args))


def _any_layout(array):
    """The numba type of 1-D arrays of ``array``'s dtype in any layout (strided too)."""
    return numba.types.Array(numba.from_dtype(array.dtype), 1, "A")


class Context:
    """The fast path of one started model for one kind of row (see the module docstring).

    ``learn(x, label)`` and ``predict(x)`` return the label predicted before the update, or
    None when the general path must take the call (nothing changed); ``knows(classes)``:
    whether a call's ``classes`` are certainly the model's (:func:`_knows_classes`);
    ``kinds``: the types of the rows it takes."""

    __slots__ = ("arrays", "dense", "kinds", "knows", "learn", "predict")

    def __init__(self, dense, learn, predict, arrays):
        self.dense = dense
        self.kinds = (np.ndarray,) if dense else _CSR_TYPES
        self.learn = learn
        self.predict = predict
        self.arrays = arrays  # the arrays the compiled calls read by address, held while used
        self.knows = _unknown  # see _knows_classes


def build(model, dense):
    """The context of the started primal ``model`` for dense rows (its weights class-major) or
    CSR rows (feature-major); None if the model's calls cannot take the fast path (an
    intercept's constant feature, class weights, or ``average`` or ``dtype`` changed since the
    start: the general path raises)."""
    d = model.__dict__
    if (d.get("fit_intercept") or d.get("class_weight") is not None
            or ("_avg_acc" in d) != bool(d.get("average"))
            or d["_weights"].dtype != model._weight_dtype):
        return None
    weights, acc = model._class_major() if dense else model._feature_major()
    avg = model._averaging_arrays()[1]
    rule = (model._rule_id, d["_params"], d["_state"], model._step_kind,
            model._rule_scale_free, d["_counts"])
    task = d["_task"]
    if dense:
        context = _dense_context(weights.T, rule, acc.T, avg, model._exact_norms,
                                 d["_dense_index"], task.index.get, list(task.classes))
    else:
        context = _csr_context(weights, rule, acc, avg, task.index.get, list(task.classes))
    if avg.shape[0] > 0:  # an averaging model predicts with its averaged hypothesis
        context.predict = _general
    known = d.get("classes_")
    # (for these dtypes, equal bytes are equal values)
    if isinstance(known, np.ndarray) and known.ndim == 1 and known.dtype.kind in "biuU":
        context.knows = _knows_classes(known)
    return context


def _knows_classes(known):
    """A context's ``knows(classes)``: whether ``classes`` (given again on a call, as
    scikit-learn users do on every one) is certainly the model's classes ``known``: a 1-D
    array of the same integer or string dtype and bytes (0.2 µs, against 1.3 µs for the
    model's own check, which takes every other case: a list, another dtype, new classes).
    (A closure: a method of the context took 0.5 µs.)"""
    dtype, data, ndarray = known.dtype, known.tobytes(), np.ndarray

    def knows(classes):
        return (type(classes) is ndarray and classes.ndim == 1
                and (classes.dtype is dtype or classes.dtype == dtype)
                and classes.tobytes() == data)
    return knows


def _general(x):
    """A closure's answer when the general path must take the call."""
    return None


def _unknown(classes):
    """``knows`` of a context whose model's classes are not compared by bytes: the model's
    own check takes every ``classes``."""
    return False


def _dense_context(Wt, rule, acc_t, avg, exact_norms, index, index_of, classes):
    """Closures over the class-major weights ``Wt`` for 1-D C-contiguous float64 or float32
    rows (of the model's width: checked in the compiled call)."""
    rule_id, params, state, kind, free, counts = rule
    # the round's other arguments as one table (five arguments to unbox a call, not sixteen);
    # the context holds the arrays it points to
    table = primal.model_table(rule_id, params, state, kind, free, counts, acc_t, avg,
                               primal.WEIGHT_NONE, exact_norms, index)
    calls = {}  # entry points by row dtype, chosen on first use
    ndarray = np.ndarray

    def entry(x):  # the entry point for the dtype of x, made at its first row
        if x.dtype not in _ROW_DTYPES:
            return None
        call = calls[x.dtype] = entry_point(primal.learn_dense_by_table, x, 0, True, Wt, table)
        return call

    def learn(x, y):
        if type(x) is not ndarray or x.ndim != 1 or not x.flags.c_contiguous:
            return None
        call = calls.get(x.dtype) or entry(x)
        try:
            label = index_of(y)
        except TypeError:  # unhashable: the general path names it
            return None
        if label is None or call is None:
            return None
        predicted = call(x, label, True, Wt, table)
        return None if predicted < 0 else classes[predicted]

    def predict(x):
        if type(x) is not ndarray or x.ndim != 1 or not x.flags.c_contiguous:
            return None
        call = calls.get(x.dtype) or entry(x)
        if call is None:
            return None
        # the learning round's own code, told only to predict: what learn_one would predict
        predicted = call(x, 0, False, Wt, table)
        return None if predicted < 0 else classes[predicted]

    return Context(True, learn, predict, (params, state, counts, acc_t, avg, index))


def _csr_context(W, rule, acc, avg, index_of, classes):
    """Closures over the feature-major weights ``W`` for one-row CSR matrices with float64 or
    float32 values and int32 or int64 indices (canonical, within the model's width, finite
    and of an accepted norm: checked in the compiled call, :func:`~onlinear._core.primal.
    learn_sparse_by_table`)."""
    rule_id, params, state, kind, free, counts = rule
    shape = (1, W.shape[0])
    table = primal.model_table(rule_id, params, state, kind, free, counts, acc, avg,
                               primal.WEIGHT_NONE, False, _NO_INDEX)  # (as _dense_context)
    learners, predictors = {}, {}  # entry points by (values, indices, indptr) dtypes

    def learn(x, y):
        if type(x) not in _CSR_TYPES or x.shape != shape:
            return None
        data, indices, indptr = x.data, x.indices, x.indptr
        if data.ndim != 1 or indices.ndim != 1 or indptr.ndim != 1:  # (a tampered matrix)
            return None
        key = (data.dtype, indices.dtype, indptr.dtype)
        call = learners.get(key)
        try:
            label = index_of(y)
        except TypeError:
            return None
        if label is None:
            return None
        if call is None:
            if not _csr_arrays_taken(data, indices, indptr, W.shape[0]):
                return None
            call = learners[key] = entry_point(
                primal.learn_sparse_by_table, *map(_any_layout, (indptr, indices, data)), label,
                W, table)
        predicted = call(indptr, indices, data, label, W, table)
        return None if predicted < 0 else classes[predicted]

    def predict(x):
        if type(x) not in _CSR_TYPES or x.shape != shape:
            return None
        data, indices, indptr = x.data, x.indices, x.indptr
        if data.ndim != 1 or indices.ndim != 1 or indptr.ndim != 1:
            return None
        key = (data.dtype, indices.dtype, indptr.dtype)
        call = predictors.get(key)
        if call is None:
            if not _csr_arrays_taken(data, indices, indptr, W.shape[0]):
                return None
            call = predictors[key] = entry_point(primal.predict_sparse_by_table,
                                                 *map(_any_layout, (indptr, indices, data)), W,
                                                 table)
        predicted = call(indptr, indices, data, W, table)
        return None if predicted < 0 else classes[predicted]

    return Context(False, learn, predict, (params, state, counts, acc, avg))


def _csr_arrays_taken(data, indices, indptr, n_features):
    """Whether a CSR row's arrays are of the dtypes the compiled calls are made for: values
    float64 or float32, indices and pointers int32 or int64 (int64 indices are narrowed to
    int32 in the call, as a pass's are: :func:`~onlinear._core.rows.csr_arrays`; so only for a
    model narrower than 2^31 features).  Checked once per combination of
    dtypes, whose entry point is then reused (their dimensions are checked on every call: an
    entry point reads the array it is given as the type it was made for), and the entry point
    takes them in any layout (a matrix built on a strided array keeps it)."""
    return (data.dtype in _ROW_DTYPES and indices.dtype in _INDEX_DTYPES
            and indptr.dtype in _INDEX_DTYPES and n_features <= INT32_MAX)
