"""The multilabel task: a set of relevant labels per example (label ranking, Amit et al. §3.1)."""
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import column_or_1d

from ..estimators.checks import label_kind
from .labels import Labels, unique_labels

#: the relevance value of the virtual threshold label in the rows the engine reads: on both
#: sides of every pair (below the relevant labels, above the irrelevant ones)
THRESHOLD_LABEL = 2


def is_label_sets(y):
    """Is ``y`` a list of label sets?  Sets, or ragged lists/tuples of labels, are; a
    rectangular nested list of 0/1 is an indicator matrix (scikit-learn's reading)."""
    if not isinstance(y, (list, tuple)) or not y:
        return False
    first = y[0]
    if isinstance(first, (set, frozenset)):
        return True
    if isinstance(first, (str, bytes)) or not hasattr(first, "__iter__"):
        return False
    try:
        array = np.asarray(y)
    except ValueError:  # ragged
        return True
    return not (array.ndim == 2 and np.isin(array, (0, 1)).all())


def check_label_sets(sets, first_row=0):
    """``sets`` (a list of label tuples), or ValueError naming the first row with a label
    that is NaN or None (no label: it equals no class, itself included) or of another kind
    than the others' (numbers and strings do not sort together)."""
    seen = None
    for row, labels in enumerate(sets, start=first_row):
        for label in labels:
            if label is None or (isinstance(label, (float, np.floating)) and label != label):
                raise ValueError(f"the label set of row {row} holds {label!r}, which is no "
                                 "label (a missing label is left out of the set).")
            kind = label_kind(label)
            if seen is None:
                seen = (kind, label)
            elif kind != seen[0]:
                raise ValueError(f"labels must be all numbers or all strings: the label set "
                                 f"of row {row} holds {label!r} ({kind}), another holds "
                                 f"{seen[1]!r} ({seen[0]}).")
    return sets


def read_targets(y, owner="the estimator"):
    """``(form, y)`` of a batch of targets: ``"multiclass"`` with a 1-D array, ``"indicator"``
    with a 2-D 0/1 array, or ``"sets"`` with a list of label tuples."""
    if y is None:
        raise ValueError(f"{owner} requires y to be passed, but the target y is None.")
    if is_label_sets(y):
        return "sets", check_label_sets([tuple(labels) for labels in y])
    if sp.issparse(y):
        y = y.toarray()
    y_array = np.asarray(y)
    if y_array.ndim == 1 and y_array.dtype.kind in "biu":
        return "multiclass", y_array  # (1-D integers: type_of_target's sweeps say nothing more)
    kind = type_of_target(y_array)
    if y_array.ndim == 2 and y_array.shape[1] > 1 or kind == "multilabel-indicator":
        if kind != "multilabel-indicator":
            raise ValueError("a 2-D y must be a 0/1 indicator matrix (one column per label); "
                             f"got {kind} targets.")
        # (type_of_target calls any two-valued integer matrix an indicator: ±1 or 0/2 too, of
        # which the engine would read every non-zero entry as relevant)
        if not np.isin(y_array, (0, 1)).all():
            values = np.unique(y_array)
            raise ValueError(
                "a 2-D y must be a 0/1 indicator matrix (one column per label); got the values "
                f"{values[:4].tolist()}{' …' if values.shape[0] > 4 else ''}"
                + (": map -1 to 0 (irrelevant) first." if -1 in values else "."))
        return "indicator", y_array
    if y_array.ndim == 2 and y_array.shape[1] == 1:
        y_array = column_or_1d(y_array, warn=True)  # multiclass, as in scikit-learn
    return "multiclass", y_array


def read_one(y, sets=False, n_labels=None, indicator=False):
    """``(form, targets of one example)``: a set (or, when the model learns label sets, any
    list, tuple or array of labels) is a label set; a list or tuple is an indicator row if it
    holds only 0 and 1 and has one entry per label (``n_labels``, when known), else a label set
    (as ``fit`` reads a list of them); a 1-D numeric array is an indicator row; a scalar a class
    label.  On a model that learns indicator rows (``indicator``), a list or tuple with one
    entry per label is an indicator row, whatever its values (which are then checked)."""
    form, block = _read_one(y, sets, n_labels, indicator)
    if form == "sets":
        check_label_sets(block)
    return form, block


def _read_one(y, sets, n_labels, indicator):
    """:func:`read_one`'s reading, its label sets not checked yet."""
    if isinstance(y, (set, frozenset)) or (sets and isinstance(y, (list, tuple, np.ndarray))):
        return "sets", [tuple(np.asarray(list(y)).tolist()) if isinstance(y, np.ndarray)
                        else tuple(y)]
    if isinstance(y, (list, tuple)) and not (indicator and len(y) == n_labels):
        zeros_and_ones = all(not isinstance(v, (str, bytes)) and v in (0, 1) for v in y)
        if not y or not zeros_and_ones or (n_labels is not None and len(y) != n_labels):
            return "sets", [tuple(y)]
    if isinstance(y, np.ndarray) and y.ndim == 1 and y.dtype.kind not in "biuf":
        return "sets", [tuple(y.tolist())]
    if np.ndim(y) == 1:
        row = np.asarray(y)
        if row.dtype.kind not in "biuf" or not set(row.tolist()) <= {0, 1}:
            raise ValueError(f"an indicator row y must hold only 0 and 1 (one column per "
                             f"label); got {row.tolist()!r}. Pass a set for a label set.")
        return "indicator", row[None, :]
    if np.ndim(y) != 0:
        raise ValueError(f"y must be one label, one indicator row or one label set; got shape "
                         f"{np.shape(y)}.")
    return "multiclass", np.array([y])


def classes_of(form, y):
    """The labels a batch of targets of form ``form`` shows (what ``fit`` learns)."""
    if form == "multiclass":
        return unique_labels(y)
    if form == "indicator":
        return np.arange(y.shape[1])
    return np.array(sorted({label for labels in y for label in labels}))


class Multilabel(Labels):
    """A set of relevant labels per example, given as label sets or 0/1 indicator rows.

    Constraints of an example with relevant set Y (Amit et al., §3.1, Kesler's form): ``s_r −
    s_s ≥ 1`` for every relevant r and irrelevant s.  With the calibrated threshold (a virtual
    label ranked below every relevant label and above every irrelevant one, Fürnkranz et al.'s
    calibrated label ranking) the pairs (r, threshold) and (threshold, s) are added and a label
    is predicted when its score beats the threshold label's; otherwise when it exceeds a fixed
    cut.

    Parameters
    ----------
    classes : array-like of shape (n_labels,)
        The labels, sorted; for indicator rows, the column indices.
    form : {"indicator", "sets"}
        How targets are given (and predictions returned: indicator rows, or label tuples).
    calibrated : bool
        Whether the model holds the threshold label (one more output after the labels).
    cut : float, default=0.0
        The cut of :meth:`predict_scores` and :meth:`predict_row` on the (relative) label
        scores: the estimator's fixed ``threshold``, 0 with the calibrated one.

    Examples
    --------
    >>> task = Multilabel(["news", "sport", "tech"], "sets", calibrated=True)
    >>> task.encode([("sport",), ("news", "tech")]).tolist()
    [[0, 1, 0, 2], [1, 0, 1, 2]]
    >>> task.constraints([1, 0, 1, 2])
    [(0, 1), (0, 3), (2, 1), (2, 3), (3, 1)]
    >>> task.predict([[0.5, -1.0, 2.0, 1.0]])
    [('tech',)]
    """

    name = "multilabel"
    multilabel = True
    engine_task = "TASK_LABEL_SETS"

    def __init__(self, classes, form, calibrated, cut=0.0):
        if form not in ("indicator", "sets"):
            raise ValueError(f"a multilabel task's targets are 'indicator' rows or label 'sets'; "
                             f"got {form!r}.")
        super().__init__(classes)
        self.form = form
        self.calibrated = bool(calibrated)
        self.cut = float(cut)

    @property
    def n_outputs(self):
        """Scores the model keeps: one per label, and the threshold label's when calibrated."""
        return self.classes.shape[0] + self.calibrated

    def encode(self, y):
        """The relevance rows the engine reads (uint8, one per example): 1 relevant,
        0 irrelevant, and the threshold label's column of 2s when calibrated.  Raises before
        anything changes on a label outside the classes or a wrong number of columns."""
        k = self.classes.shape[0]
        if self.form == "sets":
            unknown = sorted({label for labels in y for label in labels
                              if label not in self.index}, key=str)
            if unknown:
                raise ValueError(f"y contains labels that are not in classes_ "
                                 f"{self.classes.tolist()}: {unknown}")
            from sklearn.preprocessing import MultiLabelBinarizer  # (label sets only)

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                y = MultiLabelBinarizer(classes=self.classes.tolist()).fit_transform(y)
        y = np.asarray(y)
        if y.ndim != 2 or y.shape[1] != k:
            raise ValueError(f"y must have {k} label columns (classes_); got shape {y.shape}.")
        relevance = np.zeros((y.shape[0], self.n_outputs), dtype=np.uint8)
        relevance[:, :k] = y != 0
        if self.calibrated:
            relevance[:, k] = THRESHOLD_LABEL
        return relevance

    def n_outputs_for(self, two_class_outputs):
        """:attr:`n_outputs` (one per label even for two labels: each is a yes/no question)."""
        return self.n_outputs

    def target_of(self, y):
        """The relevance row of one example's targets (:func:`read_one`: a label set, or a 0/1
        indicator row), as the model's round reads it; ``ValueError`` if they are of another
        form than the model's, or name a label outside the classes."""
        form, block = read_one(y, sets=self.form == "sets", n_labels=self.classes.shape[0],
                               indicator=self.form == "indicator")
        self.check_form(form)
        if form == "indicator" and block.shape[1] == self.classes.shape[0]:
            return self.encode_indicator_row(block[0])  # (0/1 checked by read_one)
        if form == "sets":  # (by the label index: a binarizer per call costs 100× more)
            try:
                columns = [self.index[label] for label in block[0]]
            except (KeyError, TypeError):
                return self.encode(block)[0]  # (which names the unknown label)
            relevance = np.zeros(self.classes.shape[0], dtype=np.uint8)
            relevance[columns] = 1
            return self.encode_indicator_row(relevance)
        return self.encode(block)[0]

    def predicted(self, scores):
        """``learn_one``'s answer from the scores the model's round saw: :meth:`predict_row`."""
        return self.predict_one(scores, self.cut)

    def coef(self, coefficients, n_features):
        """A row of weights per label (the threshold label's apart: ``threshold_coef_``)."""
        return coefficients[:n_features].T[:self.classes.shape[0]].copy()

    def intercept(self, coefficients, constant):
        """The bias of every row of :meth:`coef`."""
        return super().intercept(coefficients, constant)[:self.classes.shape[0]]

    def encode_indicator_row(self, row):
        """:meth:`encode` of one checked 0/1 indicator row of the right width, without the
        batch's array work (the per-example path)."""
        relevance = np.zeros(self.n_outputs, dtype=np.uint8)
        relevance[:row.shape[0]] = row
        if self.calibrated:
            relevance[-1] = THRESHOLD_LABEL
        return relevance

    @staticmethod
    def constraints(relevance):
        """The pairs (r, s) of the constraints ``s_r − s_s ≥ 1`` of one relevance row, in the
        engine's order (by r, then s)."""
        relevance = list(relevance)
        return [(r, s) for r, a in enumerate(relevance) if a >= 1
                for s, b in enumerate(relevance) if b != 1 and s != r]

    def label_scores(self, scores):
        """Each label's score, relative to the threshold label's when calibrated."""
        scores = np.asarray(scores)
        if self.calibrated:
            return scores[:, :-1] - scores[:, -1:]
        return scores

    def predict_indicator(self, scores, cut=0.0):
        """Indicator rows of the labels whose (relative) score exceeds ``cut``."""
        return (self.label_scores(scores) > cut).astype(np.int64)

    def as_label_sets(self, indicator):
        """Label tuples of indicator rows."""
        return [tuple(self.classes[row.astype(bool)].tolist()) for row in indicator]

    def predict_one(self, scores, cut=0.0):
        """:meth:`predict` of one example's scores (1-D), without the batch's array work."""
        scores = np.asarray(scores)
        if self.calibrated:
            scores = scores[:-1] - scores[-1]
        above = scores > cut
        if self.form == "sets":
            return tuple(self.classes[above].tolist())
        return above.astype(np.int64)

    def decision(self, scores):
        """Each label's score, relative to the threshold label's when calibrated (positive
        with the calibrated threshold: predicted)."""
        return self.label_scores(scores)

    def predict_scores(self, scores):
        """The indicator rows of the labels whose score beats :attr:`cut` (the estimator's
        ``predict``, whatever the targets' form; ``predict_label_sets`` gives the sets)."""
        return self.predict_indicator(scores, self.cut)

    def predict_row(self, scores):
        """:meth:`predict_one` at :attr:`cut`: in the targets' form."""
        return self.predict_one(scores, self.cut)

    def scoring_targets(self, y):
        """Label sets as the indicator rows ``predict`` returns (indicator rows as given)."""
        if is_label_sets(y):
            return self.encode(y)[:, :self.classes.shape[0]]
        return y

    def score_sums(self, y, predicted):
        """The number of examples and of wrong labels (relevant ones missed and irrelevant ones
        predicted, summed over the examples), from targets and predictions in the same form:
        label sets (a label outside the classes is a wrong label), or 0/1 indicator rows."""
        if not (isinstance(y, np.ndarray) and y.ndim == 2):  # label sets
            wrong = sum(len(set(truth) ^ set(guess)) for truth, guess in zip(y, predicted))
            return {"examples": len(y), "wrong_labels": wrong}
        y, predicted = np.asarray(y), np.asarray(predicted)
        wrong = int(np.sum((y != 0) != (predicted != 0)))
        return {"examples": int(y.shape[0]), "wrong_labels": wrong}

    def scores(self, sums):
        """The Hamming loss: the fraction of (example, label) pairs predicted wrong."""
        return {"hamming_loss": sums["wrong_labels"] / (sums["examples"] * self.classes.shape[0])}

    def predict(self, scores, cut=0.0):
        """Predictions in the targets' form: indicator rows, or label tuples."""
        indicator = self.predict_indicator(scores, cut)
        return self.as_label_sets(indicator) if self.form == "sets" else indicator
