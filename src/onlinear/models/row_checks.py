"""The dense passes that check their rows themselves (a sweep over X before the pass would
read every row from memory once more): the refusal of a row named as the estimators' row check
(:func:`onlinear.estimators.checks.check_rows`) names it.

A block or metric pass checks each row on copies of the arrays it writes and raises here having
changed nothing; a row engine's pass (:mod:`onlinear._core.row_pass`) stops before the row,
the rounds before it taken, which the estimator's snapshot of a pass that can fail undoes.

Prediction checks the scores it reads instead (:func:`refuse_unscored_rows`): it takes any
finite row, which the weights can score beyond float64's range.
"""
from contextlib import contextmanager

import numpy as np
import scipy.sparse as sp

from .._core.row_pass import RefusedRow
from .._core.rows import ROW_NORM_EXPONENT


def raise_refused_row(X, bad, name, exponent=ROW_NORM_EXPONENT):
    """Raise the error of ``X``'s first bad row (a NaN or an infinity: scikit-learn's message;
    else a norm out of range), or, if the check finds none, of row ``bad``, which the pass
    refused (a norm at the edge of the range, where the two sums round apart)."""
    # (imported here: onlinear.estimators imports the models)
    from ..estimators.checks import check_rows, row_norm, row_scale_error

    check_rows(X, name, exponent)
    raise row_scale_error(row_norm(np.asarray(X[bad])), bad, exponent)


@contextmanager
def refused_rows_named(X, name):
    """Around a row engine's pass over ``X``: its :class:`RefusedRow` raised as
    :func:`raise_refused_row` names it."""
    try:
        yield
    except RefusedRow as refused:
        raise_refused_row(X, refused.row, name)


def check_weighted_rows(X, name):
    """Check the dense rows of a pass with example weights before it: its short runs of equal
    weight are played a round at a time, by paths that do not check rows (the estimator
    checked CSR rows already)."""
    if not sp.issparse(X):
        from ..estimators.checks import check_rows

        check_rows(X, name)


def refuse_unscored_rows(scores):
    """``scores`` (a row of scores per example, or one score per example) if every one is
    finite, else ``ValueError`` naming the first row whose scores are not: its values, finite,
    times the model's weights overflow float64 (learning refuses such rows by their norm;
    prediction takes any finite row).  Its scores would pick a class of their own, which a
    positive scaling of the row, leaving a linear model's prediction as it is, changes.  One
    ``isfinite`` over the scores on the normal path."""
    finite = np.isfinite(scores)
    if finite.all():
        return scores
    row = int(np.argmin(finite.reshape(finite.shape[0], -1).all(axis=1)))
    raise ValueError(f"row {row}'s scores are not numbers: its values times the model's "
                     "weights overflow float64 (beyond ±1.8e308, though every value is "
                     "finite); rescale the rows, e.g. to the scale of the data the model "
                     "learned from.")
