"""Labels by position: what every task with named labels shares."""
import numpy as np

#: Integer labels spanning at most this many values are sorted and encoded by counting (one
#: O(n) pass, a table of the span) rather than by ``np.unique`` and binary search (a sort):
#: on 60,000 MNIST-sized labels 0.3 ms against 3 ms, a twentieth of a dense pass of pa.
SMALL_SPAN = 1 << 16

#: The form of targets that are one label per example (a class, or a rank): the name the
#: label-set learner's model files give it (:class:`onlinear.tasks.LabelSets`).
ONE_LABEL = "multiclass"


def _small_span(y):
    """``(lowest, highest)`` label of the 1-D integer array ``y`` if they span at most
    :data:`SMALL_SPAN` values, else None (other dtypes — uint64 too —, empty or wide spans)."""
    if (not isinstance(y, np.ndarray) or y.ndim != 1 or y.size == 0
            or y.dtype.kind not in "iu" or y.dtype == np.uint64):
        return None
    low, high = int(y.min()), int(y.max())
    return (low, high) if high - low < SMALL_SPAN else None


def unique_labels(y):
    """``np.unique(y)``: the sorted distinct labels, by counting for integer labels of a small
    span (:data:`SMALL_SPAN`).

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        The labels.

    Returns
    -------
    ndarray
        The distinct labels, sorted, in ``y``'s dtype.
    """
    span = _small_span(y)
    if span is None:
        return np.unique(y)
    present = np.flatnonzero(np.bincount(y.astype(np.int64) - span[0]))
    return (present + span[0]).astype(y.dtype)


class Labels:
    """The labels of a task and their positions (class index, or rank).

    Parameters
    ----------
    classes : array-like of shape (n_labels,)
        The labels, in the task's order.
    """

    # ------------------------------------------------------------------ reading targets
    #: the form of this task's targets (:data:`ONE_LABEL`: one label per example)
    form = ONE_LABEL
    #: whether an example may have several labels (scikit-learn's ``multi_label`` tag)
    multilabel = False

    @classmethod
    def read_targets(cls, y, owner):
        """``(form, y)`` of a batch of targets given to the learner ``owner``: one label per
        example here, left to scikit-learn's checks of labels (``validate_data``)."""
        return ONE_LABEL, y

    @classmethod
    def read_one(cls, y, classes):
        """``(form, target)`` of the first example of a model not started yet (``classes``
        as given to that call, or None): one label here."""
        return ONE_LABEL, y

    @classmethod
    def classes_of(cls, form, y):
        """The labels a batch of targets shows (what ``fit`` starts with): sorted, distinct."""
        return unique_labels(y)

    @classmethod
    def default_classes(cls, form, y):
        """The classes a first call other than ``fit`` may leave out, from its targets ``y``
        (None: they must be given)."""
        return None

    @classmethod
    def check_start(cls, classes, form, owner):
        """Raise ``ValueError`` unless a model of the learner ``owner`` can start on
        ``classes`` for targets of form ``form``: at least two classes here."""
        if classes.shape[0] < 2:
            raise ValueError(f"{owner} needs at least two classes; got {classes.shape[0]} "
                             f"class: {classes.tolist()}.")

    @classmethod
    def form_scalars(cls, form):
        """The fitted scalars a model started on targets of form ``form`` keeps (saved in its
        files): none here, the form being always one label."""
        return {}

    def check_form(self, form):
        """Raise ``ValueError`` if a started model's targets were of another form."""
        if form != self.form:
            raise ValueError(f"the model was started on {self.form} targets; got {form} "
                             "targets.")

    def target_of(self, y):
        """The target of one example as the model's round reads it: the class index here
        (:meth:`index_of`)."""
        return self.index_of(y)

    def predicted(self, index):
        """``learn_one``'s answer from what the model's round returns: the label of the class
        index it predicted."""
        return self.classes[index]

    def n_outputs_for(self, two_class_outputs):
        """The model's outputs for these labels (:meth:`outputs_for`)."""
        return self.outputs_for(self.classes.shape[0], two_class_outputs)

    @classmethod
    def check_classes(cls, classes):
        """Raise ``ValueError`` unless ``classes`` (a loaded model's ``classes_``) are labels
        this task could have started with: here at least two, distinct and sorted (labels are
        encoded by binary search), none of them missing (NaN or None)."""
        from ..estimators.checks import check_class_labels  # (lazy: tasks import first)

        check_class_labels(classes)
        if classes.ndim != 1 or classes.shape[0] < 2 or not np.array_equal(np.unique(classes),
                                                                           classes):
            raise ValueError(f"classes_ must hold at least two distinct labels in sorted order; "
                             f"got {classes.tolist()!r:.200}.")
        if cls.two_classes_only and classes.shape[0] != 2:
            raise ValueError(f"{cls.two_classes_only}; classes_ holds {classes.tolist()}.")

    @classmethod
    def read_classes(cls, classes):
        """The labels ``classes`` given to a first call (or again) as this task orders them:
        sorted and distinct here; ``ValueError`` if one is missing (NaN or None)."""
        from ..estimators.checks import check_class_labels

        check_class_labels(classes)
        return np.unique(classes)

    @classmethod
    def check_growth(cls, given, known):
        """Raise ``ValueError`` unless ``given`` (read by :meth:`read_classes`, not ``known``)
        holds every label of ``known``: classes may only grow."""
        missing = [label for label in known.tolist() if label not in set(given.tolist())]
        if missing:
            raise ValueError(
                f"classes={given.tolist()} differs from the classes the model was started "
                f"with, {known.tolist()}: it lacks {missing} (classes may only grow).")

    #: what a task of two classes only says of its learner (None: any number of classes)
    two_classes_only = None
    #: the name of the block engine's code for the constraints of this task's trials
    #: (:mod:`onlinear._core.blocks`, whose trial gathers them as :meth:`constraints` lists
    #: them; None: the task is no block engine's)
    engine_task = None

    def __init__(self, classes):
        self.classes = np.asarray(classes)
        self.index = {label: i for i, label in enumerate(self.classes.tolist())}
        n = self.classes.shape[0]
        if self.two_classes_only and n != 2:
            raise ValueError(f"Only binary classification is supported: {self.two_classes_only}; "
                             f"got {n} class{'' if n == 1 else 'es'}: {self.classes.tolist()}.")

    def __eq__(self, other):
        # a task is a value: the same kind of task over the same labels (and options)
        if type(other) is not type(self) or not np.array_equal(self.classes, other.classes):
            return False
        options = {key: value for key, value in vars(self).items()
                   if key not in ("classes", "index")}
        return options == {key: value for key, value in vars(other).items()
                           if key not in ("classes", "index")}

    __hash__ = None

    def __repr__(self):
        options = "".join(f", {key}={value!r}" for key, value in vars(self).items()
                          if key not in ("classes", "index"))
        return f"{type(self).__name__}({self.classes.tolist()!r}{options})"

    def encode_small_span(self, y):
        """The positions of the integer labels ``y`` by a table over their span, or None if
        ``y`` is not of a small span of integers (:data:`SMALL_SPAN`), the labels are not
        integers, or ``y`` names a label that is not one of them (the caller's general
        encoding then names it)."""
        span = _small_span(y)
        if span is None or self.classes.dtype.kind not in "iu" or self.classes.dtype == np.uint64:
            return None
        low, high = span
        classes = self.classes.astype(np.int64)
        inside = (classes >= low) & (classes <= high)
        table = np.full(high - low + 1, -1, dtype=np.int64)
        table[classes[inside] - low] = np.flatnonzero(inside)
        index = table[y.astype(np.int64) - low]
        return None if (index < 0).any() else index

    # ------------------------------------------------------------------ the model's outputs
    #: whether more than two labels can be learned (scikit-learn's ``multi_class`` tag)
    multiclass = True

    @classmethod
    def outputs_for(cls, n_labels, two_class_outputs):
        """The outputs of a model of ``n_labels`` labels (an intercept's constant feature
        apart), for a learner whose model of two classes holds ``two_class_outputs`` (1: one
        binary output, positive for the second class; 2: one per class): one per label here."""
        return n_labels

    def coef(self, coefficients, n_features):
        """scikit-learn's ``coef_`` from the model's coefficients ``(n_features [+ 1],
        n_outputs)`` (the constant feature's last, left out): a row per output (a new
        array)."""
        return coefficients[:n_features].T.copy()

    def intercept(self, coefficients, constant):
        """scikit-learn's ``intercept_``: the constant feature's weight of every output when
        the model has one (``constant``), else zeros (a new array, in the coefficients'
        precision)."""
        if constant:
            return np.array(coefficients[-1], copy=True, ndmin=1)
        return np.zeros(np.atleast_2d(coefficients).shape[1], dtype=coefficients.dtype)

    # ------------------------------------------------------------------ scores → predictions
    def decision(self, scores):
        """The estimator's ``decision_function`` from the model's output scores (rows of
        ``scores``): the scores themselves here."""
        return scores

    def predict_scores(self, scores):
        """The estimator's ``predict`` from the model's output scores."""
        raise NotImplementedError

    def predict_row(self, scores):
        """``predict_one`` from one row's output scores (1-D)."""
        return self.predict_scores(np.asarray(scores)[None, :])[0]

    def scoring_targets(self, y):
        """``y`` as ``score`` compares it with ``predict``'s output: as given here."""
        return y

    #: Whether scoring refuses a target that is not one of the labels (the ordinal task: a rank
    #: error needs the true rank); otherwise such a row is scored (a mistake).
    refuses_unknown_labels = False

    def score_sums(self, y, predicted):
        """Running sums of this task's measures over rows whose targets are ``y`` and whose
        predictions (the estimator's ``predict``, in the targets' form) are ``predicted``:
        ``{"examples": n, "correct": k}`` here; :meth:`scores` turns the sums of a whole
        stream into its measures, so that a stream read in chunks is scored as one."""
        y, predicted = np.asarray(y), np.asarray(predicted)
        return {"examples": int(y.shape[0]), "correct": int(np.sum(predicted == y))}

    def scores(self, sums):
        """The measures of the summed :meth:`score_sums`: the accuracy here."""
        return {"accuracy": sums["correct"] / sums["examples"]}

    @staticmethod
    def add_sums(total, sums):
        """``total`` plus ``sums`` (key by key; ``total`` may be empty)."""
        return {key: total.get(key, 0) + value for key, value in sums.items()}

    def index_of(self, label):
        """The position of one label; ``ValueError`` naming it if it is not one of the labels."""
        try:
            index = self.index.get(label)
        except TypeError:  # unhashable, e.g. a 0-d array
            index = self.index.get(np.asarray(label).item()) if np.ndim(label) == 0 else None
        if index is None:
            raise ValueError(f"y={label!r} is not one of classes_ {self.classes.tolist()}.")
        return index
