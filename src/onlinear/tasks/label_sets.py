"""Labels or label sets, decided by the first targets: the task of a learner that takes both."""
import numpy as np
from sklearn.utils.validation import check_array

from .labels import ONE_LABEL, Labels
from .multiclass import Multiclass
from .multilabel import Multilabel, classes_of, read_one, read_targets


class LabelSets(Labels):
    """The tasks of a learner whose targets may be one label per example (:class:`Multiclass`)
    or several (:class:`Multilabel`: 0/1 indicator rows or label sets), as its first targets
    show — the simultaneous projections of Amit et al. §3.1 serve both with one engine.

    Not a task itself: the learner's protocol asks it how to read a batch's or one example's
    targets (:meth:`read_targets`, :meth:`read_one`), which classes a first call starts with,
    and :meth:`started` makes the task of a started model.  A multilabel task may start on one
    label (each label is a yes/no question); a multiclass one needs two.

    Examples
    --------
    >>> form, y = LabelSets.read_targets([{"news"}, {"sport", "tech"}], "the learner")
    >>> form, LabelSets.classes_of(form, y).tolist()
    ('sets', ['news', 'sport', 'tech'])
    >>> LabelSets.started(["news", "sport", "tech"], form, calibrated=True, cut=0.0)
    Multilabel(['news', 'sport', 'tech'], form='sets', calibrated=True, cut=0.0)
    >>> LabelSets.started([0, 1, 2], "multiclass", calibrated=True, cut=0.0)
    Multiclass([0, 1, 2])
    """

    multilabel = True

    def __init__(self, classes):
        raise TypeError("LabelSets chooses a task (LabelSets.started); it is not one.")

    @classmethod
    def read_targets(cls, y, owner):
        """``(form, y)``: ``"multiclass"`` labels (1-D, checked by scikit-learn's label checks
        later), ``"indicator"`` rows (a 2-D 0/1 array, checked here) or label ``"sets"``."""
        form, y = read_targets(y, owner)
        if form == "indicator":
            y = check_array(y, dtype=None, input_name="y", ensure_min_samples=0)
        return form, y

    @classmethod
    def read_one(cls, y, classes):
        """The form of one example's targets (:func:`onlinear.tasks.multilabel.read_one`: a
        set, a 0/1 row of one entry per label, or a label), and them as a batch of one."""
        try:  # (classes are checked later, where a bad one is named)
            n_labels = None if classes is None else np.unique(np.asarray(classes)).shape[0]
        except TypeError:  # unorderable, e.g. None among numbers
            n_labels = None
        form, block = read_one(y, n_labels=n_labels)
        return form, (y if form == ONE_LABEL else block)

    @classmethod
    def classes_of(cls, form, y):
        """The labels a batch shows; an indicator matrix's columns."""
        return classes_of(form, y)

    @classmethod
    def default_classes(cls, form, y):
        """An indicator matrix's columns; labels and label sets must be given their classes."""
        return np.arange(y.shape[1]) if form == "indicator" else None

    @classmethod
    def check_start(cls, classes, form, owner):
        """Two classes at least for labels; one label at least for label sets."""
        if form == ONE_LABEL or classes.shape[0] < 1:
            super().check_start(classes, form, owner)

    @classmethod
    def check_classes(cls, classes):
        """Distinct labels in sorted order, none missing; one may do (a multilabel model's:
        the started task, :meth:`started`, checks the rest)."""
        from ..estimators.checks import check_class_labels

        check_class_labels(classes)
        if classes.ndim != 1 or classes.shape[0] < 1 or not np.array_equal(np.unique(classes),
                                                                           classes):
            raise ValueError(f"classes_ must hold distinct labels in sorted order; got "
                             f"{classes.tolist()!r:.200}.")

    @classmethod
    def form_scalars(cls, form):
        """``multilabel_`` (whether the model learns label sets) and ``_label_kind`` (the form
        of its targets), which the learner's model files keep."""
        return {"multilabel_": form != ONE_LABEL, "_label_kind": form}

    @classmethod
    def started(cls, classes, form, calibrated, cut):
        """The task of a model started on targets of form ``form``: :class:`Multiclass`, or
        :class:`Multilabel` with the threshold label when ``calibrated`` and the fixed
        ``cut`` otherwise.  ``ValueError`` for a form that is neither, or too few labels."""
        if form == ONE_LABEL:
            cls.check_start(np.asarray(classes), form, "a multiclass model")
            return Multiclass(classes)
        return Multilabel(classes, form, calibrated, cut)
