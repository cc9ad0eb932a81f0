"""The per-example fast path of the primal learners: ``learn_one`` and ``predict_one`` of a
started model in one compiled call, with the Python work of a call cut to the checks that decide
whether it may take that call.

A per-example call costs a few microseconds, of which the round itself is about half (pa, 784
features, 10 classes).  The rest is Python: reading the model's arrays and flags from the
estimator and deciding on every call what cannot change between calls.  So a started model gets
a *context* (:func:`build`): closures over its label index and one compiled object that holds
the model's arrays and its rule's constants (:class:`~onlinear._core.primal.ExampleRound`),
whose calls take only the row and its label (they check the row's kind, dtype and width in
compiled code and allocate nothing).
The estimator drops the context whenever one of its attributes is set
(``OnlineLinearClassifier.__setattr__``): a refit, a loaded model, grown classes or features, a
change of ``fit_intercept``, ``class_weight`` or ``average``, and a change of the weights'
layout all rebind an attribute, while a round only writes into the arrays the context holds.

A context serves one kind of row, that of the model's layout: dense rows on class-major weights,
CSR rows on feature-major ones (see :meth:`onlinear.models.primal.PrimalModel.in_layout`).  A row the closures
do not take (another kind, dtype or width, a label they do not know, a value that is not finite)
makes them return None, having changed nothing, and the estimator's general path takes the call:
it converts, switches the layout, or names the problem.
"""
import numpy as np
import scipy.sparse as sp

_CSR_TYPES = (sp.csr_matrix, sp.csr_array)


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
        self.arrays = arrays  # the model's arrays the compiled calls write
        self.knows = _unknown  # see _knows_classes


def build(estimator, dense):
    """The context of the started ``estimator`` for dense rows or one-row CSR matrices: a
    primal model's compiled calls (:func:`_build_primal`), or another model's compiled round
    (:func:`_build_held`); None if the calls cannot take the fast path."""
    model = estimator.__dict__.get("model_")
    if model is None:
        return None
    return (_build_primal if hasattr(model, "example_round") else _build_held)(estimator, dense)


def _build_primal(estimator, dense):
    """The context of the started primal ``estimator`` (its ``model_`` a
    :class:`~onlinear.models.primal.PrimalModel`) for dense rows (the weights class-major) or
    CSR rows (feature-major); None if the calls cannot take the fast path (an intercept's
    constant feature, class weights, or ``average`` or ``dtype`` changed since the start: the
    general path raises).  A closure gives the call back to the general path when the
    estimator holds another model or the model another round (an array rebound)."""
    d = estimator.__dict__
    model = d["model_"]
    if (d.get("fit_intercept") or d.get("class_weight") is not None
            or estimator._started_form_changed()
            or model.weights.dtype != estimator._weight_dtype):
        return None
    made = model.example_round(dense)
    calls = made[1]
    task = d["_task"]
    make = _dense_context if dense else _csr_context
    context = make(calls, _current(d, model, calls), task.index.get, list(task.classes),
                   model.weights.shape[0])
    if model.config["average"]:  # an averaging model predicts with its averaged hypothesis
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


def _current(d, model, calls):
    """``(estimator's dict, model, its dict, calls)``: what a closure compares to check that
    the estimator (its ``__dict__`` ``d``) still holds ``model`` and the model still the
    compiled ``calls`` (no array rebound since they were made: a pass that changed the
    weights' layout, a failed call's restore)."""
    return d, model, model.__dict__, model.__dict__["_example"]


def _dense_context(calls, current, index_of, classes, width):
    """Closures over the compiled ``calls`` on class-major weights for 1-D C-contiguous
    float64 or float32 rows (of the model's width: checked in the compiled call)."""
    call = calls.learn_dense
    d, model, held, made = current

    def learn(x, y):
        if d.get("model_") is not model or held.get("_example") is not made:
            return None
        try:
            label = index_of(y)
        except TypeError:  # unhashable: the general path names it
            return None
        if label is None:
            return None
        predicted = call(x, label, True)
        return None if predicted < 0 else classes[predicted]

    def predict(x):
        if d.get("model_") is not model or held.get("_example") is not made:
            return None
        # the learning round's own code, told only to predict: what learn_one would predict
        predicted = call(x, 0, False)
        return None if predicted < 0 else classes[predicted]

    return Context(True, learn, predict, calls.arrays)


def _csr_context(calls, current, index_of, classes, width):
    """Closures over the compiled ``calls`` on feature-major weights for one-row CSR matrices
    with float64 or float32 values and int32 or int64 indices (canonical, within the model's
    width, finite and of an accepted norm: checked in the compiled call,
    :meth:`~onlinear._core.primal.ExampleRound.learn_sparse`)."""
    shape = (1, width)
    call = calls.learn_sparse
    d, model, held, made = current

    def learn(x, y):
        if (type(x) not in _CSR_TYPES or x.shape != shape or d.get("model_") is not model
                or held.get("_example") is not made):
            return None
        try:
            label = index_of(y)
        except TypeError:
            return None
        if label is None:
            return None
        predicted = call(x.indptr, x.indices, x.data, label, True)
        return None if predicted < 0 else classes[predicted]

    def predict(x):
        if (type(x) not in _CSR_TYPES or x.shape != shape or d.get("model_") is not model
                or held.get("_example") is not made):
            return None
        predicted = call(x.indptr, x.indices, x.data, 0, False)
        return None if predicted < 0 else classes[predicted]

    return Context(False, learn, predict, calls.arrays)


def _build_held(estimator, dense):
    """The context of a started estimator that holds its model (``model_``,
    :mod:`onlinear.models`) for dense rows or one-row CSR matrices: the model's compiled round
    (:meth:`~onlinear.models.protocol.Model.row_round`) behind closures; None if the model has
    none or the call cannot take it (an intercept's constant feature, class weights, or
    ``average`` changed since the start: the general path raises).  A closure
    gives the call back to the general path (returns None, nothing changed) when the estimator
    holds another model or the model another round (an array rebound: grown, restored)."""
    d = estimator.__dict__
    model = d.get("model_")
    if (model is None or d.get("fit_intercept") or d.get("class_weight") is not None
            or estimator._started_form_changed()):
        return None
    exponent = estimator._row_exponent
    rounds = model.row_round(exponent)
    if rounds is None:
        return None
    task = d["_task"]
    index_of, classes = task.index.get, list(task.classes)
    call = rounds.dense if dense else rounds.sparse
    shape = None if dense else (1, model.n_inputs())

    def learn(x, y):
        if d.get("model_") is not model or model.__dict__.get("_round", (0, None))[1] \
                is not rounds:
            return None
        try:
            label = index_of(y)
        except TypeError:  # unhashable: the general path names it
            return None
        if label is None:
            return None
        if dense:
            predicted = call(x, label)
        elif type(x) in _CSR_TYPES and x.shape == shape:
            predicted = call(x.indptr, x.indices, x.data, label)
        else:
            return None
        return None if predicted < 0 else classes[predicted]

    context = Context(dense, learn, _general, model.arrays())
    known = d.get("classes_")
    if isinstance(known, np.ndarray) and known.ndim == 1 and known.dtype.kind in "biuU":
        context.knows = _knows_classes(known)
    return context
