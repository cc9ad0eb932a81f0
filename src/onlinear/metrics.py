"""The evaluation measures of the simultaneous-projection paper (Amit, Shalev-Shwartz & Singer,
§2 problem setting, §3 derived problems, §9 experiments), per task.

Every trial is a block of binary constraints; a constraint with signed margin ``m ≤ 0`` is a
mistake (ties count: the paper leaves the convention implicit, and the mistake bounds — its
Lemma 3 — need it) and a trial with at
least one mistaken constraint is *imperfect*.  The measures:

* :func:`block_mistakes` — general blocks (rows of a CSR matrix grouped by ``block_ptr``):
  imperfect trials and mistaken constraints, from the per-row scores ``X w``;
* :func:`pairwise_mistakes` — multiclass and multilabel (label ranking): the constraints are
  the pairs (relevant r, irrelevant s), mistaken when ``score_r ≤ score_s``;
* :func:`ordinal_mistakes` — ordinal regression: the k − 1 threshold constraints of each
  example (Amit et al. §3.2);
* :func:`ranking_loss`, :func:`hamming_loss` — scikit-learn's ``label_ranking_loss`` and
  ``hamming_loss`` (ties in the ranking count as misordered pairs, as above);
* :func:`ordinal_absolute_error` — mean absolute difference of ranks.

The counts come back as :class:`OnlineMistakes` (trials, imperfect trials, constraints, mistaken
constraints).  Online (progressive-validation) counts of a learner — each example scored
*before* it is learned — are its ``n_imperfect_`` / ``n_constraint_mistakes_`` attributes;
these functions compute the same counts for a fixed model's scores.
"""
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn import metrics as _sk
from sklearn.utils.validation import check_array, check_consistent_length

from .estimators.checks import label_kind

__all__ = ["OnlineMistakes", "block_mistakes", "pairwise_mistakes", "ordinal_mistakes",
           "ranking_loss", "hamming_loss", "ordinal_absolute_error", "ordinal_ranks"]


class OnlineMistakes(NamedTuple):
    """Mistake counts of a run of trials, block-level and per-constraint (Amit et al. §2: a
    trial is imperfect when any of its constraints is mistaken; §9 reports such counts).

    Parameters
    ----------
    n_trials : int
        Trials (blocks, examples).
    n_imperfect : int
        Trials with at least one mistaken constraint (signed margin ≤ 0): the paper's loss, the
        left-hand side of its mistake bounds (Theorem 2, Corollaries 4–5).
    n_constraints : int
        Binary constraints in all trials.
    n_constraint_mistakes : int
        Constraints with signed margin ≤ 0.
    """

    n_trials: int
    """Trials (blocks, examples)."""
    n_imperfect: int
    """Trials with at least one mistaken constraint: the paper's loss, its mistake bounds'
    left-hand side."""
    n_constraints: int
    """Binary constraints in all trials."""
    n_constraint_mistakes: int
    """Constraints with signed margin ≤ 0."""

    @property
    def imperfect_rate(self):
        """Fraction of imperfect trials (0 for no trials)."""
        return self.n_imperfect / self.n_trials if self.n_trials else 0.0

    @property
    def constraint_mistake_rate(self):
        """Fraction of mistaken constraints (0 for no constraints)."""
        return self.n_constraint_mistakes / self.n_constraints if self.n_constraints else 0.0


def _finite_1d(name, values, dtype=np.float64):
    values = check_array(values, ensure_2d=False, dtype=dtype, input_name=name,
                         ensure_min_samples=0)
    if values.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional; got shape {values.shape}.")
    return values


def _indicator(name, Y):
    """A dense 0/1 matrix from an indicator (dense or sparse) — the multilabel convention."""
    if sp.issparse(Y):
        Y = Y.toarray()
    Y = check_array(Y, dtype=None, input_name=name)
    if not np.isin(Y, (0, 1)).all():
        raise ValueError(f"{name} must be a binary indicator matrix (0/1 entries).")
    return Y.astype(bool)


def block_mistakes(y, scores, block_ptr):
    """Imperfect trials and mistaken constraints of general blocks (Amit et al. §2).

    Trial ``t`` is made of the rows ``block_ptr[t]:block_ptr[t + 1]`` (the engine's general-block
    format); row ``j`` has label ``y[j] ∈ {−1, +1}`` and score ``scores[j] = x_j·w``.  The row is
    a mistake iff ``y[j]·scores[j] ≤ 0``; the trial is imperfect iff one of its rows is.  Empty
    trials are counted as trials, never as imperfect.

    Parameters
    ----------
    y : array-like of shape (n_rows,), entries −1 or +1
    scores : array-like of shape (n_rows,)
    block_ptr : array-like of int, shape (n_trials + 1,)
        Non-decreasing, from 0 to ``n_rows``.

    Returns
    -------
    OnlineMistakes

    Examples
    --------
    >>> from onlinear.metrics import block_mistakes
    >>> counts = block_mistakes([1, -1, 1, 1], [0.5, 0.2, 0.0, 2.0], block_ptr=[0, 2, 4])
    >>> counts  # row 1 (score 0.2, label −1) and row 2 (score 0: a tie) are mistakes
    OnlineMistakes(n_trials=2, n_imperfect=2, n_constraints=4, n_constraint_mistakes=2)
    >>> counts.imperfect_rate
    1.0
    """
    y = _finite_1d("y", y)
    scores = _finite_1d("scores", scores)
    check_consistent_length(y, scores)
    if not np.isin(y, (-1.0, 1.0)).all():
        raise ValueError("y must contain only −1 and +1 (one label per constraint row).")
    block_ptr = np.asarray(block_ptr)
    if block_ptr.ndim != 1 or block_ptr.shape[0] < 1 or not np.issubdtype(block_ptr.dtype,
                                                                          np.integer):
        raise ValueError("block_ptr must be a one-dimensional integer array of n_trials + 1 "
                         "offsets.")
    if block_ptr[0] != 0 or block_ptr[-1] != y.shape[0] or np.any(np.diff(block_ptr) < 0):
        raise ValueError(f"block_ptr must rise from 0 to the number of rows ({y.shape[0]}); got "
                         f"{block_ptr[0]} … {block_ptr[-1]}" + (
                             " and a decreasing step" if np.any(np.diff(block_ptr) < 0) else ""))
    wrong = (y * scores <= 0.0).astype(np.int64)
    n_trials = block_ptr.shape[0] - 1
    cumulative = np.concatenate([[0], np.cumsum(wrong)])
    per_trial = cumulative[block_ptr[1:]] - cumulative[block_ptr[:-1]]
    return OnlineMistakes(n_trials, int(np.count_nonzero(per_trial)), int(y.shape[0]),
                          int(wrong.sum()))


def pairwise_mistakes(Y, scores):
    """Imperfect rankings and misordered (relevant, irrelevant) pairs (Amit et al. §3.1; the
    multiclass case of §9.2 is one relevant label).

    Multilabel and multiclass trials are blocks of one constraint per pair (r relevant,
    s irrelevant), ``score_r − score_s > 0``; a pair is a mistake when ``score_r ≤ score_s``
    (ties count).  A multiclass example is a row of ``Y`` with a single 1: it is imperfect
    exactly when its class is not the unique highest score.  An example with no relevant or no
    irrelevant label has no constraint.

    Parameters
    ----------
    Y : {array-like, sparse matrix} of shape (n_samples, n_labels)
        Relevance indicator (1 = relevant), scikit-learn's multilabel convention.
    scores : array-like of shape (n_samples, n_labels)

    Returns
    -------
    OnlineMistakes
        ``n_constraints`` = Σ |Y|·|Ȳ| over the examples.

    Examples
    --------
    >>> from onlinear.metrics import pairwise_mistakes
    >>> Y = [[1, 0, 1], [0, 1, 0]]
    >>> scores = [[0.9, 0.5, 0.4], [0.2, 0.2, 0.1]]   # pair (2, 1) misordered; a tie in row 1
    >>> pairwise_mistakes(Y, scores)
    OnlineMistakes(n_trials=2, n_imperfect=2, n_constraints=4, n_constraint_mistakes=2)
    """
    Y = _indicator("Y", Y)
    scores = check_array(scores, dtype=np.float64, input_name="scores")
    if scores.shape != Y.shape:
        raise ValueError(f"scores has shape {scores.shape} but Y has shape {Y.shape}.")
    # A pair (r, s) is misordered iff s_s ≥ s_r: for each relevant r, count the irrelevant
    # labels scoring at least as high (sorting the irrelevant scores of the row once).
    wrong = np.zeros(Y.shape[0], dtype=np.int64)
    for i in range(Y.shape[0]):
        irrelevant = np.sort(scores[i, ~Y[i]])
        if irrelevant.size and Y[i].any():
            wrong[i] = (irrelevant.size
                        - np.searchsorted(irrelevant, scores[i, Y[i]], side="left")).sum()
    n_relevant = Y.sum(axis=1)
    pairs = int((n_relevant * (Y.shape[1] - n_relevant)).sum())
    return OnlineMistakes(Y.shape[0], int(np.count_nonzero(wrong)), pairs, int(wrong.sum()))


def ordinal_mistakes(ranks, scores, thresholds):
    """Imperfect examples and mistaken threshold constraints of ordinal regression (Amit et al.
    §3.2).

    Example ``i`` of rank ``y`` (0-based, of ``k`` ranks) is a block of ``k − 1`` constraints
    on ``f = scores[i]`` (the score ``w·x``): ``f − b_j > 0`` for the thresholds below its rank
    (``j < y``) and ``f − b_j < 0`` for the others; a constraint is a mistake when its signed
    margin is ≤ 0.  With ordered thresholds, imperfect ⇔ the predicted rank is wrong (up to
    ties at a threshold, counted as mistakes here).

    Parameters
    ----------
    ranks : array-like of int, shape (n_samples,), in 0..k−1
    scores : array-like of shape (n_samples,)
    thresholds : array-like of shape (k − 1,)

    Returns
    -------
    OnlineMistakes

    Examples
    --------
    >>> from onlinear.metrics import ordinal_mistakes
    >>> ordinal_mistakes([0, 2, 1], [-1.0, 0.5, 2.0], thresholds=[0.0, 1.0])
    OnlineMistakes(n_trials=3, n_imperfect=2, n_constraints=6, n_constraint_mistakes=2)
    """
    scores = _finite_1d("scores", scores)
    thresholds = _finite_1d("thresholds", thresholds)
    ranks = _check_ranks(ranks, thresholds.shape[0] + 1)
    check_consistent_length(ranks, scores)
    below = np.arange(thresholds.shape[0])[None, :] < ranks[:, None]  # label +1
    margins = np.where(below, 1.0, -1.0) * (scores[:, None] - thresholds[None, :])
    wrong = (margins <= 0.0).sum(axis=1)
    return OnlineMistakes(ranks.shape[0], int(np.count_nonzero(wrong)),
                          int(ranks.shape[0] * thresholds.shape[0]), int(wrong.sum()))


def _check_ranks(ranks, n_ranks):
    ranks = np.asarray(ranks)
    if ranks.ndim != 1 or not (np.issubdtype(ranks.dtype, np.integer) or ranks.size == 0):
        raise ValueError("ranks must be a one-dimensional integer array.")
    if ranks.size and (ranks.min() < 0 or ranks.max() >= n_ranks):
        raise ValueError(f"ranks must lie in 0..{n_ranks - 1}; got {ranks.min()}..{ranks.max()}.")
    return ranks.astype(np.int64)


def ranking_loss(Y, scores, *, sample_weight=None):
    """Average fraction of misordered (relevant, irrelevant) pairs per example.

    scikit-learn's :func:`sklearn.metrics.label_ranking_loss`: ties count as misordered, the
    convention of :func:`pairwise_mistakes`; examples with no relevant or no irrelevant label
    contribute 0.

    Examples
    --------
    >>> from onlinear.metrics import ranking_loss
    >>> ranking_loss([[1, 0, 1], [0, 1, 0]], [[0.9, 0.5, 0.4], [0.2, 0.2, 0.1]])
    0.5
    """
    return float(_sk.label_ranking_loss(Y, scores, sample_weight=sample_weight))


def hamming_loss(Y_true, Y_pred, *, sample_weight=None):
    """Fraction of wrong labels (indicator entries), scikit-learn's
    :func:`sklearn.metrics.hamming_loss`; for 1-D labels, the error rate.

    Examples
    --------
    >>> from onlinear.metrics import hamming_loss
    >>> hamming_loss([[1, 0, 1], [0, 1, 0]], [[1, 1, 1], [0, 1, 0]])
    0.16666666666666666
    """
    return float(_sk.hamming_loss(Y_true, Y_pred, sample_weight=sample_weight))


def _missing(label):
    return label is None or (isinstance(label, float) and label != label)


def ordinal_ranks(y, classes):
    """Positions of the labels ``y`` in the ordered ``classes`` (raises on an unknown label).

    Examples
    --------
    >>> from onlinear.metrics import ordinal_ranks
    >>> ordinal_ranks(["mid", "low", "high"], classes=["low", "mid", "high"])
    array([1, 0, 2])
    """
    # (the labels as given: an array of labels of two kinds would make them all strings)
    given = np.asarray(classes, dtype=object)
    if given.ndim != 1 or given.shape[0] < 1:
        raise ValueError("classes must be a non-empty one-dimensional array, in rank order.")
    classes = classes if isinstance(classes, np.ndarray) else given
    index = {label: i for i, label in enumerate(classes.tolist())}
    if len(index) != classes.shape[0]:
        raise ValueError(f"classes contains duplicates: {classes.tolist()}.")
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be one-dimensional; got shape {y.shape}.")
    labels = y.tolist()
    if any(_missing(label) for label in labels):
        raise ValueError("y contains a missing label (NaN or None), which has no rank.")
    # (distinct labels in their order of appearance: np.unique sorts, which labels of two
    # kinds, numbers and strings, cannot be)
    unknown = [label for label in dict.fromkeys(labels) if label not in index]
    if unknown:
        raise ValueError(f"y contains labels that are not in classes {classes.tolist()}: "
                         f"{unknown}.")
    return np.array([index[label] for label in y.tolist()], dtype=np.int64)


def ordinal_absolute_error(y_true, y_pred, classes=None):
    """Mean absolute difference between true and predicted ranks (the ordinal error).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Labels; their rank is their position in ``classes``.
    classes : array-like, optional
        The labels in rank order; by default the sorted union of ``y_true`` and ``y_pred``
        (then pass numbers or ordered labels).  Pass the estimator's ``classes_`` so that ranks
        missing from the data still count as steps.

    Examples
    --------
    >>> from onlinear.metrics import ordinal_absolute_error
    >>> ordinal_absolute_error([1, 2, 5], [1, 5, 2], classes=[1, 2, 3, 4, 5])
    2.0
    >>> ordinal_absolute_error([1, 2, 5], [1, 5, 2])   # ranks among {1, 2, 5}: 0, 1, 2
    0.6666666666666666
    """
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    check_consistent_length(y_true, y_pred)
    if classes is None:
        kinds = {name: {label_kind(label) for label in labels.ravel().tolist()}
                 for name, labels in (("y_true", y_true), ("y_pred", y_pred))}
        if len(kinds["y_true"] | kinds["y_pred"]) > 1:  # (union1d would make them all strings)
            raise ValueError(f"the labels are of different kinds (y_true: "
                             f"{', '.join(sorted(kinds['y_true']))}; y_pred: "
                             f"{', '.join(sorted(kinds['y_pred']))}), which have no order "
                             "together: pass classes=, the labels in rank order.")
        classes = np.union1d(y_true, y_pred)
    if y_true.shape[0] == 0:
        raise ValueError("ordinal_absolute_error needs at least one example.")
    diff = ordinal_ranks(y_true, classes) - ordinal_ranks(y_pred, classes)
    return float(np.abs(diff).mean())
