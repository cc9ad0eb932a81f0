"""The multiclass task: one label per example."""
import numpy as np

from .labels import Labels

#: Batches of at most this many labels are encoded by dictionary look-ups.
_FEW = 64


class Multiclass(Labels):
    """One class label per example; ``k ≥ 2`` classes, one score per class.

    Constraints of an example of class y (Crammer & Singer, §2; Amit et al., §3.1, Kesler's
    multi-prototype form): ``s_y − s_r ≥ 1`` for every other class r.  Prediction: the top
    score, ties going to the lowest class index (a tie is a mistake online).

    Parameters
    ----------
    classes : array-like of shape (n_classes,)
        The class labels, sorted (as ``np.unique`` returns them).

    Examples
    --------
    >>> task = Multiclass(["ant", "bee", "cat"])
    >>> task.encode(["cat", "ant"]).tolist(), task.constraints(2)
    ([2, 0], [(2, 0), (2, 1)])
    >>> task.predict([[0.5, 2.0, 2.0]]).tolist()
    ['bee']
    """

    name = "multiclass"
    engine_task = "TASK_LABEL_SETS"

    def encode(self, y):
        """Class indices of the labels ``y`` (int64); raises, naming the unknown labels, before
        anything is changed."""
        if isinstance(y, np.ndarray) and y.ndim == 1 and y.shape[0] <= _FEW:
            try:  # a small batch (learn_many): a look-up per label beats the array passes
                return np.array([self.index[label] for label in y.tolist()], dtype=np.int64)
            except (KeyError, TypeError):
                pass  # (an unknown label: named below)
        else:
            index = self.encode_small_span(y)  # integer labels: a table, not a sort
            if index is not None:
                return index
        index = np.searchsorted(self.classes, y)
        index = np.minimum(index, self.classes.shape[0] - 1)
        unknown = self.classes[index] != y
        if np.any(unknown):
            raise ValueError(
                f"y contains labels that are not in classes_ {self.classes.tolist()}: "
                f"{np.unique(np.asarray(y)[unknown]).tolist()}")
        return index.astype(np.int64)

    @classmethod
    def outputs_for(cls, n_labels, two_class_outputs):
        """One output per class; ``two_class_outputs`` for two classes."""
        return two_class_outputs if n_labels == 2 else n_labels

    def coef(self, coefficients, n_features):
        """A row of weights per class; for two classes one row, positive for ``classes[1]``
        (a binary model's one output, or the difference of the two), as :meth:`decision`."""
        rows = coefficients[:n_features].T
        if rows.shape[0] == 2 and self.classes.shape[0] == 2:
            return (rows[1] - rows[0])[None, :]
        return rows.copy()

    def intercept(self, coefficients, constant):
        """The bias of every row of :meth:`coef`."""
        bias = super().intercept(coefficients, constant)
        if bias.shape[0] == 2 and self.classes.shape[0] == 2:
            return bias[1:] - bias[:1]
        return bias

    def constraints(self, index):
        """The pairs (y, r) of the constraints ``s_y − s_r ≥ 1`` of an example of class index
        ``index``, in the engine's order."""
        return [(int(index), r) for r in range(self.classes.shape[0]) if r != index]

    def predict_index(self, scores):
        """Class indices of the top scores (rows of ``scores``)."""
        return np.argmax(np.asarray(scores), axis=1)

    def predict(self, scores):
        """Labels of the top scores."""
        return self.classes[self.predict_index(scores)]

    def decision(self, scores):
        """Class scores; for two classes one column, positive meaning ``classes[1]`` (the one
        output of a binary model, or the difference of the two)."""
        if self.classes.shape[0] == 2:
            return scores[:, 0] if scores.shape[1] == 1 else scores[:, 1] - scores[:, 0]
        return scores

    def predict_scores(self, scores):
        """The top-scoring class (ties → the lowest class index, as in training); for two
        classes, ``classes[1]`` where :meth:`decision` is positive."""
        if self.classes.shape[0] == 2:
            return self.classes[(self.decision(scores) > 0).astype(np.int64)]
        return self.predict(scores)
