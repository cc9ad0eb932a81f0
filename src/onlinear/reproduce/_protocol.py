"""Pieces the experiments share: seeded orders, the epoch protocol, data loading, cells, plots."""
import zlib

import numpy as np

from .. import registry
from ..data import find_dataset
from ..data import load as load_dataset
from ._framework import summarize

BASE_SEED = 20_240_613
"""Root of every seeded order: order ``s`` of experiment ``e`` comes from
``numpy.random.default_rng((BASE_SEED, crc32(e), s))``."""


def rng(key, seed):
    """The random generator of order ``seed`` of the experiment (or part) named ``key``."""
    return np.random.default_rng((BASE_SEED, zlib.crc32(key.encode()), int(seed)))


def load(name):
    """A catalogue data set (:func:`onlinear.data.load`), or a ``FileNotFoundError`` that names
    the set and says that a full reproduction needs it."""
    require(name)
    return load_dataset(name)


def require(name):
    """The files of a catalogue data set (:func:`onlinear.data.find_dataset`), or a
    ``FileNotFoundError`` that names the set and says that a full reproduction needs it."""
    try:
        return find_dataset(name)
    except FileNotFoundError as error:
        raise FileNotFoundError(
            f"this reproduction needs the data set {name!r}, which is not shipped with the "
            f"package: {error}") from None


def subset(X, y, size, key, seed=0):
    """A seeded random subset of ``size`` rows (all rows when ``size`` is None)."""
    if size is None or size >= X.shape[0]:
        return X, y
    rows = np.sort(rng(key + "/subset", seed).choice(X.shape[0], size=size, replace=False))
    return X[rows], y[rows]


def epoch_runs(model, X, y, X_test, y_test, *, epochs, order_rng, classes=None):
    """Train ``model`` online for ``epochs`` passes, each over its own random permutation drawn
    from ``order_rng``, predicting every example before learning it; after each epoch record
    the test error (%) of the final model and the cumulative updates and mistakes.  (Each
    epoch is a new array for ``partial_fit``, so a kernel model cannot tell a training row seen
    again from a new one: its distinct support patterns are not recorded.)

    Returns
    -------
    list of dict
        One per epoch: ``epoch``, ``error``, ``updates``, ``mistakes``.
    """
    classes = np.unique(y) if classes is None else classes
    records = []
    for epoch in range(1, epochs + 1):
        order = order_rng.permutation(X.shape[0])
        model.partial_fit(X[order], y[order], classes=classes)
        error = 100.0 * (1.0 - float(model.score(X_test, y_test))) if X_test is not None \
            else None
        records.append({"epoch": epoch, "error": error, "updates": int(model.n_updates_),
                        "mistakes": int(model.n_mistakes_)})
    return records


def make(name, **params):
    """A registered estimator (:func:`onlinear.make`)."""
    return registry.make(name, **params)


def cell(group, item, quantity, paper, values, source, test_size=None):
    """A comparison cell: the paper's number beside the mean ± sd of ``values``."""
    mean, sd, n = summarize(values)
    return {"group": group, "item": item, "quantity": quantity, "paper": paper, "ours": mean,
            "sd": sd, "n": n, "source": source, "test_size": test_size}


def mean(values):
    return float(np.mean(values))


def figure(draw, *, panels=(1, 1), size=(10, 4), title=None):
    """A ``figure(path)`` callable: a matplotlib figure on its own Agg canvas (pyplot's global
    state untouched) with ``panels`` axes, filled by ``draw(axes)`` and saved as PNG."""

    def save(path):
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        fig = Figure(figsize=size)
        FigureCanvasAgg(fig)
        axes = fig.subplots(*panels, squeeze=False).ravel()
        draw(axes)
        if title:
            fig.suptitle(title)
        fig.tight_layout()
        fig.savefig(path, dpi=110, format="png")

    return save
