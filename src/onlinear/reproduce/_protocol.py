"""Pieces the experiments share: seeded orders, the epoch protocol, data loading, cells, plots."""
import zlib

import numpy as np

from .. import registry
from ..data import find_dataset
from ..data import load as load_dataset
from ._framework import record_data_read, summarize

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
    """The files of a catalogue data set (:func:`onlinear.data.find_dataset`), recorded for
    the run's provenance, or a ``FileNotFoundError`` that names the set and says that a full
    reproduction needs it."""
    try:
        paths = find_dataset(name)
    except FileNotFoundError as error:
        raise FileNotFoundError(
            f"this reproduction needs the data set {name!r}, which is not shipped with the "
            f"package: {error}") from None
    record_data_read(name, paths)
    return paths


def shipped(name):
    """``X, y, X_test, y_test`` of the copy of ``"usps"`` or ``"letter"`` shipped in the
    package (:func:`onlinear.data.load_usps`, :func:`onlinear.data.load_letter`), its files
    recorded for the run's provenance."""
    from importlib.resources import files

    from ..data import DATASETS, load_letter, load_usps

    loaders = {"usps": load_usps, "letter": load_letter}
    folder = files("onlinear.data") / "packaged"
    record_data_read(f"shipped {name}",
                     [str(folder / file) for file in DATASETS[name].packaged])
    return loaders[name]()


def subset(X, y, size, key, seed=0):
    """A seeded random subset of ``size`` rows (all rows when ``size`` is None)."""
    if size is None or size >= X.shape[0]:
        return X, y
    rows = np.sort(rng(key + "/subset", seed).choice(X.shape[0], size=size, replace=False))
    return X[rows], y[rows]


def epoch_runs(model, X, y, X_test, y_test, *, epochs, order_rng, classes=None):
    """Train ``model`` online for ``epochs`` passes through its :meth:`stream` of ``(X, y)``,
    each pass over its own random permutation drawn from ``order_rng``, predicting every example
    before learning it; after each epoch record the test error (%) of the final model, the
    cumulative updates and mistakes and, for a kernel model, its distinct support patterns (a
    training row met again in a later epoch is the same example, so its pattern counts once).

    Returns
    -------
    list of dict
        One per epoch: ``epoch``, ``error``, ``updates``, ``mistakes`` and
        ``support_patterns`` (None for a linear model).
    """
    classes = np.unique(y) if classes is None else classes
    stream = model.stream(X, y, classes=classes)
    records = []
    for epoch in range(1, epochs + 1):
        stream.learn(order_rng.permutation(X.shape[0]))
        error = 100.0 * (1.0 - float(model.score(X_test, y_test))) if X_test is not None \
            else None
        records.append({"epoch": epoch, "error": error, "updates": int(model.n_updates_),
                        "mistakes": int(model.n_mistakes_),
                        "support_patterns": int(model.n_support_patterns_)
                        if hasattr(model, "n_support_patterns_") else None})
    return records


def make(name, **params):
    """A registered estimator (:func:`onlinear.make`)."""
    return registry.make(name, **params)


def cell(group, item, quantity, paper, values, source, test_size=None, tolerance=None):
    """A comparison cell: the paper's number (a string as printed, e.g. ``"4.60"``, keeps its
    printed decimals; a float or int stands for itself) beside the mean ± sd of ``values``, the
    per-seed values themselves (``values``, ``;``-separated) and, when given, a stated relative
    ``tolerance`` within which the cell counts as reproduced."""
    mean, sd, n = summarize(values)
    return {"group": group, "item": item, "quantity": quantity, "paper": paper, "ours": mean,
            "sd": sd, "n": n, "values": ";".join(f"{float(v):.6g}" for v in values),
            "source": source, "test_size": test_size, "tolerance": tolerance}


def printed_numbers(printed):
    """The numbers of a transcription kept as printed strings (``"4.60"`` → 4.6, ``"1891"`` →
    1891), in the same nesting of dicts, tuples and lists; anything else is returned as is.

    Examples
    --------
    >>> printed_numbers({"MIRA": (("4.60", "4.0"), ("7229",))})
    {'MIRA': ((4.6, 4.0), (7229,))}
    """
    if isinstance(printed, str):
        return float(printed) if "." in printed else int(printed)
    if isinstance(printed, dict):
        return {key: printed_numbers(value) for key, value in printed.items()}
    if isinstance(printed, (tuple, list)):
        return type(printed)(printed_numbers(value) for value in printed)
    return printed


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
