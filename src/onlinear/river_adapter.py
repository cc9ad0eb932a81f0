"""Any onlinear learner as a river classifier: dict examples in, one label at a time.

River (https://riverml.xyz) streams examples as dicts ``{feature name: value}`` and labels one at a
time; its models learn with ``learn_one(x, y)`` and predict with ``predict_one(x)``.
:class:`RiverClassifier` puts an onlinear learner behind that protocol, so that it runs in river
pipelines (``preprocessing.StandardScaler() | RiverClassifier("pa")``), in
``evaluate.progressive_val_score`` and wherever river expects a classifier, at the speed of
onlinear's own per-example path.  River is an optional extra (``pip install onlinear[river]``):
``import onlinear`` never imports it, this module does, and without river installed it still
imports but :class:`RiverClassifier` refuses to be built, naming the extra.

Multiclass and binary classification only: a multilabel stream (a dict of labels per example)
is out of scope.
"""
import math
from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone as sklearn_clone
from sklearn.utils import murmurhash3_32

from .estimators.checks import check_row
from .tasks import Ordinal

try:
    from river import base as _river_base
except ImportError:  # river is an optional extra: the module still imports without it
    _river_base = None

#: Widest model fed dense rows; wider ones get 1-row CSR matrices.  Measured on this machine (pa,
#: 3 classes, 30 non-zeros a row, build + learn_one + predict_one): dense 27 µs up to 1,024
#: features, 53 µs at 4,096 and 146 µs at 16,384; CSR 100-170 µs at every width (building the
#: matrix costs ~25 µs), 142 µs at 2^18 where dense takes 5.8 ms.
DENSE_MAX = 8192

#: Hashing-mode cache of feature name → (column, sign) is cleared when it grows beyond this.
HASH_CACHE_SIZE = 1 << 16

_ABSENT = object()


#: the largest int float64 holds (beyond it, float() overflows)
_LARGEST_INT = int(np.finfo(np.float64).max)


def _check_unseen(name, value):
    """Refuse a NaN or infinite value (a float: :func:`_number`) under a name the model does
    not know, as the model refuses one under a name it knows (a NaN is a broken stream,
    whatever its weight)."""
    if not math.isfinite(value):
        raise ValueError(f"x contains NaN or infinity (under {name!r}, a name not seen in "
                         "training).")


def _number(name, value):
    """The float of the value of feature ``name`` that is not a string or None: a real number
    (an int, a float, a bool, a numpy scalar, a ``Decimal``, …).  Any other value is refused
    naming the feature and the value's type — numpy's own errors ("setting an array element
    with a sequence", "float() argument must be …") name neither."""
    if isinstance(value, int):  # (bools too)
        if abs(value) > _LARGEST_INT:
            raise ValueError(f"x[{name!r}] is an int of {len(str(abs(value)))} digits, beyond "
                             "the range of float64.")
        return float(value)
    # (refused before float(), which drops a numpy complex's imaginary part and, in numpy
    # before 2.0, reads an array of one item as that item)
    if not isinstance(value, (complex, np.complexfloating)) and not (
            isinstance(value, np.ndarray) and value.ndim):
        try:
            return float(value)
        except (TypeError, ValueError):
            pass
    raise TypeError(f"x[{name!r}] = {value!r:.60} (type {type(value).__name__}) is not a real "
                    "number: a feature's value must be a number, a string (the one-hot "
                    "feature \"name=value\") or None (missing); give a sequence's items or a "
                    "date's parts as features of their own, one number each.")


def _check_example(x):
    """Refuse an example that is not a dict (river's examples are ``{name: value}``), naming
    what was given: a list or an array has no feature names to learn or predict by."""
    if type(x) is not dict and not isinstance(x, Mapping):
        shape = f" of shape {x.shape}" if isinstance(x, np.ndarray) else ""
        raise TypeError(f"x must be a dict {{feature name: value}}, as river streams "
                        f"examples; got {type(x).__name__}{shape}, whose values have no "
                        "feature names (rows of numbers go to an onlinear estimator itself).")


def _check_label(y):
    """Refuse a NaN label (a missing label is not a class: NaN equals no label, itself
    included, so it could never be learned or predicted), whatever the stream's labels."""
    if isinstance(y, (float, complex, np.number)) and y != y:
        raise ValueError(f"label {y!r} is NaN, not a valid label (a missing label is not a "
                         "class): drop the example or give it its label.")


def _label_kind(label):
    """The kind of a label a stream's labels must share: numbers (booleans among them) or
    strings.  Labels are kept sorted (the model encodes them by binary search), and a str sorts
    against no number: a stream that mixes them is refused, not stringified."""
    if isinstance(label, (str, np.str_)):
        return "str"
    if isinstance(label, (int, float, np.number, np.bool_)):
        return "number"
    return type(label).__name__


def _check_label_kinds(labels, new):
    """Raise ``TypeError`` if the label ``new`` is not of the kind of the known ``labels``."""
    kinds = {_label_kind(label) for label in labels}
    kind = _label_kind(new)
    if kind not in ("str", "number"):
        raise TypeError(f"label {new!r} is a {type(new).__name__}; labels must be numbers or "
                        "strings.")
    if kinds - {kind}:
        known = sorted(labels, key=repr)
        raise TypeError(f"label {new!r} ({type(new).__name__}) cannot join the stream's labels "
                        f"{known!r:.200}: a stream's labels must be all numbers or all "
                        "strings (map them to one kind first).")


def _is_ordinal(estimator):
    """Whether the learner's labels are ranks (the ordinal task): their order is the one
    declared, which sorting would not give (``"high" < "low" < "mid"``), and fixed."""
    task = getattr(estimator, "_task_class", None)
    return isinstance(task, type) and issubclass(task, Ordinal)


def _listed(labels):
    """A sequence of labels as a list (of Python scalars, from a numpy array)."""
    return labels.tolist() if isinstance(labels, np.ndarray) else list(labels)


def _same_order(first, second):
    """Whether two label sequences hold equal labels in the same order."""
    first, second = _listed(first), _listed(second)
    return len(first) == len(second) and all(a == b for a, b in zip(first, second))


def hashed_column(name, n_features):
    """``(column, sign)`` of a feature name under scikit-learn's ``FeatureHasher`` with
    ``alternate_sign=True``: the signed 32-bit MurmurHash3 (seed 0) of the UTF-8 name, its
    absolute value modulo ``n_features``, the sign of the hash.

    Parameters
    ----------
    name : str
        The feature name (``"name=value"`` for a string-valued feature, as FeatureHasher does).
    n_features : int
        Number of columns.

    Returns
    -------
    tuple of (int, float)

    Examples
    --------
    >>> hashed_column("dog", 2 ** 10), hashed_column("cat", 2 ** 10)
    ((549, -1.0), (807, 1.0))
    """
    h = murmurhash3_32(name, seed=0, positive=False)
    if h == -2147483648:  # FeatureHasher's reading of abs(-2^31) % n_features
        return (2147483647 - (n_features - 1)) % n_features, -1.0
    return abs(h) % n_features, (1.0 if h >= 0 else -1.0)


def _not_a_rank(y, ranks):
    """The error for a label that is not one of an ordinal model's ranks."""
    return ValueError(f"label {y!r} is not one of the ranks {ranks!r:.200} (lowest first) of "
                      "the ordinal learner, which are fixed: declare every rank, in order, with "
                      "RiverClassifier(classes=[...]).")


class RiverClassifier(_river_base.Classifier if _river_base is not None else object):
    """An onlinear learner as a river classifier (dicts in, one example at a time).

    **Features.**  A dict's names become columns in one of two ways:

    * ``n_features=None`` (default), a **growing vocabulary**: every new name seen while learning
      gets the next column and the model widens (``grow_features``: new zero weights, so the
      model is the one that had the column from the start).  Names unseen in training are
      ignored by ``predict_one`` (their weight would be zero), but a NaN or an infinity under
      one is refused as under a known name.  The learners whose weights are
      normalized over the features (multiplicative family, ellipsoid methods) cannot widen: a new
      name after their start raises ``ValueError`` — give them ``n_features``.
    * ``n_features=2**k``, the **hashing trick** with scikit-learn's ``FeatureHasher`` semantics
      (``alternate_sign=True``): column ``|h| mod n_features`` and sign of ``h``, the signed
      MurmurHash3 of the name; colliding names add up.  The width is fixed, memory bounded.

    In both modes a string value ``v`` of name ``f`` becomes the feature ``"f=v"`` of value 1
    (FeatureHasher's reading, a one-hot encoding); a value of None is a missing feature (0);
    any other value must be a real number (an int, a float, a bool, a numpy scalar): a list,
    an array, a complex number or a date raises ``TypeError`` naming the feature.  A name seen
    with the value 0 joins the vocabulary all the same (a learner that cannot widen then starts
    with every name of the first examples, e.g. those a ``StandardScaler`` maps to 0 at first).
    A feature name that is not a string is hashed as ``str(name)``: names of one string are one
    hashed feature (``1`` and ``"1"``), names of two are two (``1``, ``1.0`` and ``True``,
    though equal in Python).  The vocabulary keeps the names as dict keys, so names equal in
    Python are one feature there (``1``, ``1.0`` and ``True``; ``"1"`` is another) — a
    stream that mixes such names reads differently in the two modes: name features by strings.
    Rows are dense while the model is at most :data:`DENSE_MAX` features wide, 1-row CSR
    matrices beyond (the model then grows by doubling, not one reallocation per new name).

    **Labels.**  An onlinear model starts with at least two classes.  Until a second label has
    been seen the adapter keeps the examples (all of one label) and predicts that label, or None
    before any learning (as river's classifiers do); an example is kept only if the model will
    accept it (finite values, a norm in its range: else ``learn_one`` refuses it at once), so
    the kept examples always start the model (a NaN label is refused: not a class).  When the
    second label arrives the model starts with both and learns the kept examples again, in
    order, then the new one: the adapter then holds exactly the onlinear model that learned the
    whole stream with the two classes declared from the start.  A later new label joins as a
    zero prototype (``add_classes``: the past is not replayed), except in learners that cannot
    grow classes, which raise ``ValueError`` at that example — give them ``classes``, which also
    starts the model at the first example with no examples kept:

    * learners whose model of two classes is their binary learner (one weight vector or one
      Gaussian scoring the second class): ``perceptron``, ``binary-mira``, the
      confidence-weighted ``cw``, ``arow``, ``scw1``, ``scw2``, ``nherd``, ``narow`` and the
      adaptive ``adagrad``, ``adagrad-rda``, ``ftrl``.  Started on the stream's first two
      labels, they refuse the third; declared with three labels or more they start in their
      multiclass form, which adds later labels as the others do.  (There is no multiclass form
      of two classes for the adapter to start them in.)
    * learners that add no class at all: the ROMMA-type records (``romma``, ``aromma``,
      ``naromma``, ``mc-romma``), the maximum-cosine ``mcp`` and ``cmcp``, the multiplicative
      (``multiplicative``, ``winnow``) and ellipsoid (``cellip``, ``iellip``) learners.

    An ordinal learner (``onlinear.make("simproj", task="ordinal")``) learns ranks in a fixed
    order that a stream does not show and sorting would not give: the adapter takes the
    learner's own ``classes``, else its ``classes``, as the rank order, lowest first and never
    sorted (the two, if both given, must agree in order), starts the model with every rank at
    the first example and refuses a label that is not one; with no order it refuses to be
    built.

    **Probabilities.**  The learners with a logistic loss (``AdaGrad`` and ``FTRLProximal``
    with ``loss="log"``, the default of ``"ftrl"``) have a probability model, and
    ``predict_proba_one`` returns its probabilities (their ``predict_proba``: river's
    ``LogLoss`` means what it says on them).  The margin classifiers have none in their papers:
    for them ``predict_proba_one`` returns the softmax of the class scores (for one score
    vector of two classes, the sigmoid of the score) — a monotone transformation of the scores
    that sums to 1 and whose argmax is ``predict_one``'s label, a ranking score for metrics such
    as ROC AUC, not a calibrated probability (log-loss figures of it mean little; calibrate the
    estimator with scikit-learn's ``CalibratedClassifierCV`` on a sample for probabilities).

    Parameters
    ----------
    model : str or onlinear estimator, default="pa"
        A registered algorithm name (``onlinear.available()``), or an unfitted onlinear
        estimator (e.g. ``onlinear.make("pa1", C=0.1)``) used as a template: the adapter
        learns with a scikit-learn clone of it, so the template stays unfitted and river's
        ``clone`` gives a fresh adapter.  An unknown name or a bad parameter value raises
        here, when the adapter is built (the library's own error).
    n_features : int or None, default=None
        None: a growing vocabulary of feature names; an integer: that many hashed columns.
    classes : sequence or None, default=None
        Labels known in advance (more may follow): the model starts with them at the first
        example.  Needed for learners that cannot add classes to a started model (see
        **Labels**); for an ordinal learner, its ranks in order, lowest first.

    Attributes
    ----------
    estimator_ : onlinear estimator or None
        The learning model once started (None before).
    vocabulary_ : dict
        Feature name → column (vocabulary mode; empty when hashing).

    Examples
    --------
    >>> from river import datasets, evaluate, metrics, preprocessing
    >>> from onlinear.river_adapter import RiverClassifier
    >>> model = preprocessing.StandardScaler() | RiverClassifier("pa1")
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    Accuracy: 83.67%
    >>> model["RiverClassifier"].estimator_.classes_
    array([False,  True])
    """

    def __init__(self, model="pa", n_features=None, classes=None):
        if _river_base is None:
            raise ImportError("RiverClassifier needs river: pip install 'onlinear[river]' "
                              "(or pip install river).")
        if n_features is not None and (isinstance(n_features, bool)
                                       or not isinstance(n_features, (int, np.integer))
                                       or n_features < 1):
            raise ValueError(f"n_features must be None (a growing vocabulary) or a positive "
                             f"integer (hashed columns); got {n_features!r}.")
        if not isinstance(model, str) and not hasattr(model, "learn_one"):
            raise TypeError(f"model must be an algorithm name or an onlinear estimator; got "
                            f"{model!r}.")
        self.model = model
        self.n_features = n_features
        self.classes = classes
        self._exponent = self._check_model()  # (a bad name or parameter fails here)
        self.estimator_ = None
        self.vocabulary_ = {}
        self._hashed = {}
        self._labels = {}  # every label learned → itself: numpy labels map back to Python ones
        self._kept = []  # (columns, values, label) of the examples before the model starts
        self._in_order = []  # [0, 1, ..., width - 1]: a row holding every column in order

    @property
    def _multiclass(self):
        return True

    @classmethod
    def _unit_test_params(cls):
        yield {"model": "pa"}
        yield {"model": "pa1", "n_features": 2 ** 10}

    # ------------------------------------------------------------------ dict → columns
    def _columns(self, x, learning):
        """``(columns, values)`` of a dict; while learning, new names join the vocabulary
        (the names added are returned third, to be dropped again if the learning fails).  A
        value that is not a number, a string or None is refused naming its feature, the
        vocabulary as it was."""
        if self.n_features is None:  # the common case first: known names, numbers only
            try:
                columns = [self.vocabulary_[name] for name in x]
                values = np.array(list(x.values()))
            except (KeyError, ValueError):  # (ValueError: a sequence among the values)
                pass
            else:
                if values.dtype.kind in "fiub" and values.ndim == 1:  # (not lists of numbers)
                    return columns, values, ()
        added = []
        try:
            return self._read(x, learning, added)
        except Exception:
            for name in added:  # (names of the example before the bad value)
                del self.vocabulary_[name]
            raise

    def _read(self, x, learning, added):
        """:meth:`_columns` name by name (the names joining the vocabulary appended to
        ``added``)."""
        columns, values = [], []
        hashing = self.n_features is not None
        table = self._hashed if hashing else self.vocabulary_
        for name, value in x.items():
            if value is None:
                value = 0.0  # missing: the name still joins the vocabulary
            elif isinstance(value, str):
                name, value = f"{name}={value}", 1.0
            elif not isinstance(value, float):  # (numpy's float64 is a float)
                value = _number(name, value)
            if hashing:
                if not isinstance(name, str):
                    if name != name:  # (NaN: equal to no name, as in a vocabulary)
                        raise ValueError(f"a feature name is {name!r}, which equals no name, "
                                         "itself included: name the feature.")
                    # hashed as str(name), and cached under it too: 1, 1.0 and True are one
                    # dict key but "1", "1.0" and "True" to the hash, so a cache keyed by the
                    # name gave 1.0 the column of 1 until the cache was next cleared
                    name = str(name)
                key = table.get(name)
                if key is None:
                    if len(table) >= HASH_CACHE_SIZE:
                        table.clear()
                    key = table[name] = hashed_column(name, self.n_features)
                columns.append(key[0])
                values.append(key[1] * value)
                continue
            key = table.get(name, _ABSENT)
            if key is _ABSENT:
                if name != name:  # (NaN: equal to no name, so a new feature at every example)
                    raise ValueError(f"a feature name is {name!r}, which equals no name, itself "
                                     "included: name the feature.")
                if learning:
                    key = table[name] = len(table)
                    added.append(name)
                else:  # unseen in training: zero weight, so not read, but not a bad value
                    _check_unseen(name, value)
                    continue
            columns.append(key)
            values.append(value)
        return columns, values, added

    def _row(self, columns, values, width):
        """The example as the model reads it: a dense row, or a 1-row CSR matrix when wide
        (colliding hashed columns summed in both)."""
        values = np.asarray(values, dtype=np.float64)
        if width <= DENSE_MAX:
            if len(columns) == width:
                if len(self._in_order) != width:
                    self._in_order = list(range(width))
                if columns == self._in_order:
                    return values  # every name, in vocabulary order (a fixed schema)
            return np.bincount(np.asarray(columns, dtype=np.intp), weights=values,
                               minlength=width) if columns else np.zeros(width)
        row = sp.csr_matrix((values, np.asarray(columns, dtype=np.int32),
                             np.array([0, len(columns)], dtype=np.int32)), shape=(1, width))
        row.sum_duplicates()
        row.eliminate_zeros()
        return row

    def _width(self):
        if self.n_features is not None:
            return int(self.n_features)
        return max(1, len(self.vocabulary_))

    # ------------------------------------------------------------------ learning
    def _fresh_estimator(self):
        if isinstance(self.model, str):
            from .registry import make
            return make(self.model)  # (make validates the parameters)
        return sklearn_clone(self.model)

    def _check_model(self):
        """Build the estimator once, not started, so that an unknown algorithm name or a bad
        parameter value fails when the adapter is built (the library's own error), not when a
        second label arrives, and an ordinal learner without a rank order too; sets
        ``_ranks`` (:meth:`_rank_order`) and returns the exponent of the row norms its model
        will accept (:func:`onlinear.estimators.checks.check_row`: narrower for float32
        weights)."""
        estimator = self._fresh_estimator()
        if not isinstance(self.model, str):
            validate = getattr(estimator, "_validate_params", None)
            if validate is not None:
                validate()
        self._ranks = self._rank_order(estimator)
        return getattr(estimator, "_row_exponent", None)  # (None: check_row's default)

    def _rank_order(self, estimator):
        """The ranks of an ordinal learner, lowest first — its own ``classes``, else the
        adapter's ``classes`` as given: never sorted, since the order is what an ordinal
        model learns — or None for any other learner (its labels are sorted).

        Raises ``ValueError`` for an ordinal learner with no order (a stream shows labels, not
        their order), with two orders that differ, or with an order that does not list at
        least two labels once each."""
        if not _is_ordinal(estimator):
            return None
        own, given = getattr(estimator, "classes", None), self.classes
        learner = type(estimator).__name__
        if own is None and given is None:
            raise ValueError(f"{learner} is an ordinal learner: its labels are ranks, whose "
                             "order a stream does not show (and sorting would not give); "
                             "declare them lowest first, RiverClassifier(model, "
                             "classes=['low', 'mid', 'high']).")
        if own is not None and given is not None and not _same_order(own, given):
            raise ValueError(f"RiverClassifier(classes={_listed(given)!r:.200}) differs from "
                             f"the rank order of the learner, classes={_listed(own)!r:.200}: "
                             "give one of them, or the same labels in the same order.")
        ranks = _listed(own if own is not None else given)
        if len(ranks) < 2 or len(set(ranks)) != len(ranks):
            raise ValueError(f"an ordinal learner's classes are its ranks, lowest first, at "
                             f"least two, each once; got {ranks!r:.200}.")
        return ranks

    def _check_kept(self, columns, values):
        """Refuse a row to keep (the model not started) that the model would refuse when it
        starts and learns it again: a value that is NaN or infinite, or a norm out of the
        model's range, as :func:`~onlinear.estimators.checks.check_row` checks it on the row
        the model will read (colliding columns summed, zeros left out)."""
        vals = np.asarray(values, dtype=np.float64)  # (as _row reads them)
        if len(set(columns)) != len(columns):  # colliding hashed columns add up in the row
            _, where = np.unique(np.asarray(columns, dtype=np.intp), return_inverse=True)
            vals = np.bincount(where, weights=vals)
        if "_exponent" not in self.__dict__:  # (an adapter pickled before _exponent existed)
            self._exponent = self._check_model()
        exponent = {} if self._exponent is None else {"exponent": self._exponent}
        check_row(np.ascontiguousarray(vals, dtype=np.float64), **exponent)

    def learn_one(self, x, y):
        """Learn from the dict ``x`` with label ``y`` (returns None, as river's classifiers).

        Parameters
        ----------
        x : dict
            Feature name → value.
        y : hashable
            The label.

        Raises
        ------
        TypeError
            If ``x`` is not a dict (a list or an array has no feature names), or ``y`` is, or
            a value is not a number, a string or None (a list, an array, a complex number, a
            date: the error names the feature).
        ValueError
            If the model refuses the example (a NaN, a norm out of range, a new label or name
            it cannot grow to), or the label is NaN or, for an ordinal learner, not one of its
            ranks; an example kept before the model starts is checked as the model will check
            it.  Either way the adapter is left as it was: its model (not widened by the
            example's new names), vocabulary, labels and kept examples.
        """
        _check_example(x)
        if isinstance(y, dict):
            raise TypeError("RiverClassifier learns one label per example; multilabel streams "
                            "(a dict of labels) are not supported.")
        _check_label(y)
        columns, values, added = self._columns(x, learning=True)
        try:
            if self.estimator_ is None:
                self._learn_before_start(columns, values, y)
            else:
                self._learn_started(columns, values, y)
        except Exception:
            for name in added:  # the adapter stays as it was, as the model does
                del self.vocabulary_[name]
            raise

    def _learn_before_start(self, columns, values, y):
        if "_ranks" not in self.__dict__:  # (an adapter pickled before _ranks existed)
            self._exponent = self._check_model()
        ranks = self._ranks
        declared = ranks if ranks is not None else self.classes
        known = set(self._labels) | (set(declared) if declared is not None else set())
        _check_label_kinds(known, y)
        labels = known | {y}
        if ranks is not None and y not in known:
            raise _not_a_rank(y, ranks)
        if declared is None and len(labels) < 2:
            self._check_kept(columns, values)  # kept rows always start the model later
            self._kept.append((columns, values, y))
            self._labels[y] = y
            return
        estimator = self._fresh_estimator()
        width = self._width()
        if ranks is None:
            classes = np.array(sorted(labels))
        elif getattr(estimator, "classes", None) is not None:
            classes = None  # (the learner starts on its own order, the same: _rank_order)
        else:
            classes = np.array(ranks)  # the rank order as declared, not sorted
        kept = self._kept + [(columns, values, y)]
        first = True
        for cols, vals, label in kept:
            row = self._row(cols, vals, width)
            if first:
                estimator.learn_one(row, label, classes=classes)
                first = False
            else:
                estimator.learn_one(row, label)
        self.estimator_ = estimator
        self._kept = []
        self._labels.update((label, label) for label in labels)

    def _learn_started(self, columns, values, y):
        estimator = self.estimator_
        # a new label that cannot be one is refused before the model is touched
        if y not in self._labels:
            _check_label_kinds(self._labels, y)
            if _is_ordinal(estimator):  # (it started with every rank: y is none of them)
                raise _not_a_rank(y, estimator.classes_.tolist())
        width = self._width()
        if width > estimator.n_features_in_:
            # new names widen the model before it sees (and may refuse) the example: a failed
            # example leaves it as narrow as it was (grow_features rebinds, the model's own
            # restore of its attributes undoes it; learn_one changes nothing when it raises)
            with estimator._unchanged_on_error():
                self._grow(width)
                self._learn_row(columns, values, y)
            return
        self._learn_row(columns, values, y)

    def _learn_row(self, columns, values, y):
        estimator = self.estimator_
        new_label = y not in self._labels  # (its kind checked by _learn_started)
        row = self._row(columns, values, estimator.n_features_in_)
        if new_label:
            try:
                estimator.learn_one(row, y, classes=np.array([*estimator.classes_, y]))
            except ValueError as error:
                # (the learners whose two-class model is their binary one — CW, AROW, AdaGrad,
                # … — grow from three classes, not from the two the stream started them on)
                held = [self._labels[label] for label in estimator.classes_]
                raise ValueError(f"{error} (new label {y!r} in the stream, the model holding "
                                 f"{held!r:.200}: declare every label up front, "
                                 "RiverClassifier(model, classes=[...]), to start the model "
                                 "with all of them)") from error
            self._labels[y] = y
        else:
            estimator.learn_one(row, y)

    def _grow(self, width):
        estimator = self.estimator_
        if width > DENSE_MAX:  # wide: double, not one reallocation per new name
            width = max(width, 2 * estimator.n_features_in_)
        try:
            estimator.grow_features(width)
        except ValueError as error:
            raise ValueError(f"{error} (new feature names in the stream: give "
                             "RiverClassifier(n_features=2**k) to hash the names into a fixed "
                             "number of columns)") from error

    # ------------------------------------------------------------------ prediction
    def _started_row(self, x):
        columns, values, _ = self._columns(x, learning=False)  # (x checked by the caller)
        return self._row(columns, values, self.estimator_.n_features_in_)

    def predict_one(self, x, **kwargs):
        """The predicted label of the dict ``x``: None before any learning, the one label seen
        before the model starts.

        Parameters
        ----------
        x : dict
            Feature name → value.
        **kwargs
            Ignored (river's signature).
        """
        _check_example(x)
        if self.estimator_ is None:
            return next(iter(self._labels), None)
        return self._labels[self.estimator_.predict_one(self._started_row(x))]

    def predict_proba_one(self, x, **kwargs):
        """The probabilities of a logistic learner, else the softmax of the class scores of the
        dict ``x`` (a monotone score summing to 1, not a calibrated probability: see the class
        doc); ``{}`` before any learning, ``{label: 1.0}`` with one label.

        Parameters
        ----------
        x : dict
            Feature name → value.
        **kwargs
            Ignored (river's signature).
        """
        _check_example(x)
        if self.estimator_ is None:
            return {label: 1.0 for label in self._labels}
        estimator = self.estimator_
        row = self._started_row(x)
        if hasattr(estimator, "predict_proba"):  # (a logistic loss: its model's probabilities)
            proba = estimator.predict_proba(row if sp.issparse(row) else row[None])[0]
            return {self._labels[label]: float(p) for label, p in zip(estimator.classes_, proba)}
        scores = np.asarray(estimator.decision_function(row if sp.issparse(row) else row[None]),
                            dtype=np.float64).reshape(-1)
        if scores.shape[0] == 1:  # one score for two classes: positive means classes_[1]
            scores = np.array([0.0, scores[0]])
        scores = np.exp(scores - scores.max())
        scores /= scores.sum()
        return {self._labels[label]: float(p) for label, p in zip(estimator.classes_, scores)}
