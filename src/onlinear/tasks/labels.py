"""Labels by position: what every task with named labels shares."""
import numpy as np


class Labels:
    """The labels of a task and their positions (class index, or rank).

    Parameters
    ----------
    classes : array-like of shape (n_labels,)
        The labels, in the task's order.
    """

    def __init__(self, classes):
        self.classes = np.asarray(classes)
        self.index = {label: i for i, label in enumerate(self.classes.tolist())}

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

    def index_of(self, label):
        """The position of one label; ``ValueError`` naming it if it is not one of the labels."""
        try:
            index = self.index.get(label)
        except TypeError:  # unhashable, e.g. a 0-d array
            index = self.index.get(np.asarray(label).item()) if np.ndim(label) == 0 else None
        if index is None:
            raise ValueError(f"y={label!r} is not one of classes_ {self.classes.tolist()}.")
        return index
