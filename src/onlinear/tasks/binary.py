"""The binary task: the multiclass task of a learner that takes two classes only."""
from .multiclass import Multiclass


class Binary(Multiclass):
    """One of two class labels per example (the learners whose model has no form for more:
    balanced Winnow's pair of weight vectors); otherwise :class:`Multiclass`.

    Parameters
    ----------
    classes : array-like of shape (2,)
        The two class labels, sorted; the second is the positive side.

    Examples
    --------
    >>> Binary(["no", "yes"]).encode(["yes", "no", "yes"]).tolist()
    [1, 0, 1]
    >>> Binary(["a", "b", "c"])
    Traceback (most recent call last):
    ...
    ValueError: Only binary classification is supported: this learner takes two classes; got 3 classes: ['a', 'b', 'c'].
    """

    multiclass = False
    two_classes_only = "this learner takes two classes"
