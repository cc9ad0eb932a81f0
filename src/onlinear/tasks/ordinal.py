"""The ordinal task: labels in a rank order, one score against k − 1 thresholds."""
import numpy as np

from .labels import Labels


class Ordinal(Labels):
    """Ordinal regression (Amit et al., §3.2): one score f = w·x against thresholds
    b_0, …, b_{k−2}.

    Constraints of an example of rank y (its label's position in the rank order): ``f − b_j ≥
    1`` for j < y and ``b_j − f ≥ 1`` for j ≥ y (the virtual instance (x, −e_j)).  Prediction:
    ``min{i : f ≤ b_i}`` with b_{k−1} = +∞ — the paper's ``min{i : f < b_i}`` except that an
    exact tie goes to the lower rank, as the online count treats it (a mistake).

    Parameters
    ----------
    classes : array-like of shape (n_ranks,)
        The labels in rank order, lowest first.

    Examples
    --------
    >>> task = Ordinal(["low", "mid", "high"])
    >>> task.encode(["high", "low"]).tolist(), task.constraints(1)
    ([2, 0], [(0, 1.0), (1, -1.0)])
    >>> task.predict(np.array([-3.0, 0.5, 9.0]), np.array([0.0, 1.0])).tolist()
    ['low', 'mid', 'high']
    """

    name = "ordinal"
    engine_task = "TASK_ORDINAL"
    refuses_unknown_labels = True

    @classmethod
    def check_classes(cls, classes):
        """At least two distinct labels, none missing, in the rank order given (not sorted)."""
        from ..estimators.checks import check_class_labels

        check_class_labels(classes)
        if classes.ndim != 1 or classes.shape[0] < 2 or \
                np.unique(classes).shape[0] != classes.shape[0]:
            raise ValueError(f"classes_ must hold at least two distinct labels (the rank "
                             f"order); got {classes.tolist()!r:.200}.")

    @classmethod
    def read_classes(cls, classes):
        """The rank order as given (each label once; not sorted)."""
        from ..estimators.checks import check_class_labels

        check_class_labels(classes)
        given = np.asarray(classes)
        if given.ndim != 1 or np.unique(given).shape[0] != given.shape[0]:
            raise ValueError(f"classes must list each label once, in rank order; got "
                             f"{given.tolist()}.")
        return given

    @classmethod
    def check_growth(cls, given, known):
        """A rank order is fixed: any other ``given`` is refused."""
        raise ValueError(f"classes={given.tolist()} differs from the rank order the model was "
                         f"started with, {known.tolist()}.")

    def encode(self, y):
        """Ranks of the labels ``y``; raises, naming the unknown labels, before anything is
        changed."""
        y = np.asarray(y)
        unknown = [label for label in np.unique(y).tolist() if label not in self.index]
        if unknown:
            raise ValueError(f"y contains labels that are not in classes_ "
                             f"{self.classes.tolist()}: {unknown}")
        return np.array([self.index[label] for label in y.tolist()], dtype=np.int64)

    def coef(self, coefficients, n_features):
        """The one weight vector w of the scores f = w·x (1-D: the thresholds are
        ``thresholds_``, not rows)."""
        return coefficients[:n_features].copy()

    def intercept(self, coefficients, constant):
        """Zero (the model's offsets are its thresholds)."""
        return np.zeros(1, dtype=coefficients.dtype)

    def constraints(self, rank):
        """``(threshold j, sign)`` of each constraint ``sign·(f − b_j) ≥ 1`` of rank ``rank``."""
        return [(j, 1.0 if j < rank else -1.0) for j in range(self.classes.shape[0] - 1)]

    def decision(self, margins):
        """:meth:`cumulative_scores` from the model's output scores, the margins ``f − b_j``
        of each row against each threshold."""
        if margins.shape[1] == 1:
            return margins[:, 0]
        return np.hstack([np.zeros((margins.shape[0], 1)), np.cumsum(margins, axis=1)])

    def predict_scores(self, margins):
        """The labels of ``min{i : f − b_i ≤ 0}`` (``f ≤ b_i``: a float difference has the
        comparison's sign) from the margins of each row."""
        at_or_below = np.asarray(margins) <= 0.0
        return self.classes[np.where(at_or_below.any(axis=1), np.argmax(at_or_below, axis=1),
                                     at_or_below.shape[1])]

    @staticmethod
    def rank_of(f, thresholds):
        """``min{i : f ≤ b_i}`` (b_{k−1} = +∞) for each score of ``f``."""
        at_or_below = np.asarray(f)[:, None] <= thresholds[None, :]
        return np.where(at_or_below.any(axis=1), np.argmax(at_or_below, axis=1),
                        thresholds.shape[0])

    def score_sums(self, y, predicted):
        """:meth:`Labels.score_sums` and the sum of the absolute rank errors ``|rank(ŷ) −
        rank(y)|`` (every label of ``y`` must be one of the ranks)."""
        sums = super().score_sums(y, predicted)
        true, guess = self.encode(y), self.encode(predicted)
        sums["rank_error"] = int(np.abs(true - guess).sum())
        return sums

    def scores(self, sums):
        """The accuracy and the mean absolute rank error."""
        return {**super().scores(sums),
                "mean_absolute_rank_error": sums["rank_error"] / sums["examples"]}

    def predict(self, f, thresholds):
        """The labels of the ranks of the scores ``f``."""
        return self.classes[self.rank_of(f, thresholds)]

    @staticmethod
    def cumulative_scores(f, thresholds):
        """The scores ``Σ_{j<r} (f − b_j)`` of every rank r (argmax = the predicted rank when the
        thresholds are ordered); for two ranks, ``f − b_0``."""
        margins = np.asarray(f)[:, None] - thresholds[None, :]
        if thresholds.shape[0] == 1:
            return margins[:, 0]
        return np.hstack([np.zeros((margins.shape[0], 1)), np.cumsum(margins, axis=1)])
