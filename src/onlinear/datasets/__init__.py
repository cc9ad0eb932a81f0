"""Data sets shipped inside the package, so that the main job and the examples run offline."""
from __future__ import annotations

from functools import lru_cache
from importlib.resources import files

from sklearn.datasets import load_svmlight_file

_DATA = files(__package__) / "data"


def load_usps() -> tuple:
    """USPS handwritten digits (Hull 1994), LIBSVM copy: 7,291 training and 2,007 test rows,
    256 features in [−1, 1], labels 1..10 (= digit + 1) as in the LIBSVM file.

    Returns ``X_train, y_train, X_test, y_test`` with dense float64 ``X`` and integer labels,
    fresh arrays on every call (the files are parsed once per process).
    """
    return tuple(array.copy() for array in _parsed_usps())


@lru_cache(maxsize=1)
def _parsed_usps():
    # parsing costs seconds and examples, tests and the CLI load the same files again and again
    with (_DATA / "usps.bz2").open("rb") as train, (_DATA / "usps.t.bz2").open("rb") as test:
        X_train, y_train = _read_bz2(train)
        X_test, y_test = _read_bz2(test)
    return X_train, y_train, X_test, y_test


def _read_bz2(handle):
    import bz2
    import io

    X, y = load_svmlight_file(io.BytesIO(bz2.decompress(handle.read())), n_features=256)
    return X.toarray(), y.astype(int)


def load_letter() -> tuple:
    """Letter (UCI, LIBSVM's 15,000 / 5,000 split, 16 features scaled to [−1, 1], 26 classes),
    shipped with the package; see :func:`onlinear.data.catalogue.load_letter`."""
    from ..data.catalogue import load_letter as load

    return load()
