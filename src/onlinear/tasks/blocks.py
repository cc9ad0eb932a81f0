"""The block task: trials given as blocks of binary rows that must all be classified
correctly (Amit et al., §2, single prototype)."""
import numpy as np
from sklearn.utils.validation import check_array

from .labels import Labels

_NO_PARTS = np.empty(0, dtype=np.int64)
_NO_COUPLING = np.empty(0, dtype=np.float64)


class Blocks(Labels):
    """Trials of binary rows: trial t is the rows ``block_ptr[t]:block_ptr[t + 1]``, each row
    x_j with label y_j = ±1.

    Constraints of a trial: ``y_j ω·x_j ≥ 1`` for each of its rows (§2); optionally the rows are
    partitioned into sets (the decomposable loss of §7) and weighted by coupling weights c_j
    (§10).  Prediction: the sign of ω·x, ``classes[1]`` on the positive side (a zero score is a
    mistake for either label online).

    Parameters
    ----------
    classes : array-like of shape (2,)
        The two labels; ``classes[1]`` is the positive side (+1).

    Examples
    --------
    >>> task = Blocks([-1, 1])
    >>> task.encode([1, -1, 1]).tolist(), task.constraints([1.0, -1.0])
    ([1.0, -1.0, 1.0], [(0, 1.0), (1, -1.0)])
    >>> task.check_blocks(3, [0, 2, 3], None, None)[0].tolist()
    [0, 2, 3]
    """

    name = "blocks"
    engine_task = "TASK_BLOCKS"
    multiclass = False
    two_classes_only = "a block learner learns two classes (labels ±1 of the constraints)"

    @classmethod
    def outputs_for(cls, n_labels, two_class_outputs):
        """One prototype ω."""
        return 1

    def coef(self, coefficients, n_features):
        """The prototype ω as one row."""
        return coefficients[:n_features][None, :].copy()

    def encode(self, y):
        """±1 of each row's label (+1 for ``classes[1]``); raises on an unknown label."""
        y = np.asarray(y)
        index = np.minimum(np.searchsorted(self.classes, y), 1)
        unknown = self.classes[index] != y
        if np.any(unknown):
            raise ValueError(f"y contains labels that are not in classes_ "
                             f"{self.classes.tolist()}: "
                             f"{np.unique(y[unknown]).tolist()}")
        return np.where(index == 1, 1.0, -1.0)

    @staticmethod
    def constraints(signs):
        """``(row j, y_j)`` of each constraint ``y_j ω·x_j ≥ 1`` of one trial."""
        return [(j, float(s)) for j, s in enumerate(signs)]

    @staticmethod
    def check_blocks(n_rows, block_ptr, parts, coupling):
        """Validated ``(block_ptr, parts, coupling)`` for the engine: ``block_ptr`` rising from
        0 to ``n_rows`` (default: one row per trial), ``parts`` the set ids 0..r_t−1 of each
        trial's rows (default: one set), ``coupling`` the weights c_j > 0 (default: 1)."""
        if block_ptr is None:
            block_ptr = np.arange(n_rows + 1, dtype=np.int64)
        else:
            block_ptr = np.asarray(block_ptr)
            if block_ptr.ndim != 1 or not np.issubdtype(block_ptr.dtype, np.integer):
                raise ValueError("block_ptr must be a 1-D integer array of n_trials + 1 offsets.")
            if (block_ptr.shape[0] < 1 or block_ptr[0] != 0 or block_ptr[-1] != n_rows
                    or np.any(np.diff(block_ptr) < 0)):
                raise ValueError(f"block_ptr must rise from 0 to the number of rows ({n_rows}).")
            block_ptr = np.ascontiguousarray(block_ptr, dtype=np.int64)
        if parts is None:
            parts = _NO_PARTS
        else:
            parts = np.asarray(parts)
            if parts.shape != (n_rows,) or not np.issubdtype(parts.dtype, np.integer):
                raise ValueError(f"parts must be one integer set id per row ({n_rows}).")
            if parts.size and parts.min() < 0:
                raise ValueError("parts must be non-negative set ids.")
            for t in range(block_ptr.shape[0] - 1):  # ids 0..r_t−1 inside each block
                ids = np.unique(parts[block_ptr[t]:block_ptr[t + 1]])
                if ids.size and ids[-1] != ids.size - 1:
                    raise ValueError(f"parts of trial {t} must number its sets 0..r−1 (every id "
                                     f"used); got {ids.tolist()}.")
            parts = np.ascontiguousarray(parts, dtype=np.int64)
        if coupling is None:
            coupling = _NO_COUPLING
        else:
            coupling = check_array(coupling, ensure_2d=False, dtype=np.float64,
                                   input_name="coupling", ensure_min_samples=0)
            if coupling.shape != (n_rows,) or not np.all(coupling > 0):
                raise ValueError(f"coupling must be one weight c_j > 0 per row ({n_rows}).")
        return block_ptr, parts, coupling

    def predict(self, scores):
        """``classes[1]`` where the score is positive, else ``classes[0]``."""
        return self.classes[(np.asarray(scores) > 0).astype(np.int64)]

    predict_scores = predict  # (one score per row: ω·x)

    def predict_row(self, score):
        """:meth:`predict` of one row's score."""
        return self.classes[int(score > 0)]
