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

    def __init__(self, classes):
        super().__init__(classes)
        if self.classes.shape[0] != 2:
            n = self.classes.shape[0]
            raise ValueError(f"Only binary classification is supported: this learner takes two "
                             f"classes; got {n} class{'' if n == 1 else 'es'}: "
                             f"{self.classes.tolist()}.")

    @classmethod
    def check_classes(cls, classes):
        """Two distinct labels, sorted."""
        super().check_classes(classes)
        if classes.shape[0] != 2:
            raise ValueError(f"a binary learner has two classes; got {classes.tolist()}.")
