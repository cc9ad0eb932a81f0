"""The two benchmark workloads, generated with fixed seeds.

The generators ``make_dense`` and ``make_sparse`` (and ``SEED``) are copied verbatim from
``../shared/bench/peers.py`` (md5 7a8c6fa4a0600a761123d01cf98765e5), the reference measurement
of the peers (scikit-learn, river, Vowpal Wabbit) on this machine, so that our figures and the
peers' figures are measured on exactly the same data.  They are copied, not imported: the
benchmark must not depend on ``../shared`` at run time.  Change them only together with that
file.

    dense   60,000 x 784 float32 in [0, 1], 10 classes (MNIST-sized), 10,000 held-out rows
    sparse  CSR 20,000 x 60,000 float64 (int32 indices), ~130 non-zeros per row, tf-idf rows
            L2-normalised, 20 classes (news20-sized), 4,000 held-out rows

and one real multilabel workload read from the data folder (skipped when absent):

    reuters Reuters-21578 ModApte, all 118 topics, tf-idf: 9,603 x 29,610 CSR, ~79 non-zeros
            per row, 1.005 topics per row (1,828 rows without a topic), 3,299 held-out rows
"""
from pathlib import Path

import numpy as np
import scipy.sparse as sp

SEED = 20240601

# --------------------------------------------------------------------------------------------
# copied from ../shared/bench/peers.py -- begin
# --------------------------------------------------------------------------------------------
def make_dense(seed=SEED, n_train=60000, n_test=10000, k=10, side=28, n_sub=5,
               noise=0.2, thr=0.3):
    """MNIST-like: per class n_sub 'digit' prototypes made of Gaussian strokes
    on a 28x28 grid (2 strokes shared by the class + 2 own), each shifted by
    up to +-2 px, scaled by U(0.6,1), plus N(0, noise) pixel noise, values
    below thr set to 0, clipped to [0,1]. ~21% of pixels are non-zero."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32)

    def strokes(n):
        img = np.zeros((side, side), np.float32)
        for _ in range(n):
            p0 = rng.uniform(6, side - 6, 2)
            p1 = rng.uniform(6, side - 6, 2)
            for t in np.linspace(0, 1, 12):
                cy, cx = p0 + t * (p1 - p0)
                img = np.maximum(img, np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * 1.3 ** 2)))
        return img

    temps = []
    for _c in range(k):
        base = strokes(2)
        for _m in range(n_sub):
            proto = np.maximum(base, strokes(2))
            for dy in range(-2, 3):
                for dx in range(-2, 3):
                    temps.append(np.roll(np.roll(proto, dy, 0), dx, 1).ravel())
    T = np.asarray(temps, np.float32)
    per_class = n_sub * 25
    n = n_train + n_test
    y = rng.integers(0, k, n)
    tid = y * per_class + rng.integers(0, per_class, n)
    scale = rng.uniform(0.6, 1.0, n).astype(np.float32)
    X = T[tid] * scale[:, None]
    X += noise * rng.standard_normal(X.shape, dtype=np.float32)
    X[X < thr] = 0.0
    np.clip(X, 0.0, 1.0, out=X)
    X = np.ascontiguousarray(X)
    return (np.ascontiguousarray(X[:n_train]), y[:n_train].astype(np.int64),
            np.ascontiguousarray(X[n_train:]), y[n_train:].astype(np.int64))


def make_sparse(seed=SEED, n_train=20000, n_test=4000, d=60000, k=20, mean_len=150,
                alpha=0.065, topic_words=3000, groups=5):
    """news20-like: document length ~ lognormal(mean_len); a fraction alpha of
    the tokens come from the class topic (3000 own words + 3000 words shared
    with the classes of its group, Dirichlet(0.3) weights), the rest from a
    Zipf(1) background over all 60,000 words. Features = log1p(tf) * idf
    (idf from the training rows), rows L2-normalised. ~129 nnz/row."""
    rng = np.random.default_rng(seed + 1)
    n = n_train + n_test
    ranks = np.arange(1, d + 1, dtype=np.float64)
    bg = ranks ** -1.0
    bg /= bg.sum()
    perm = rng.permutation(d)
    group_words = [rng.choice(d, topic_words, replace=False) for _ in range(groups)]
    topics = []
    for c in range(k):
        own = rng.choice(d, topic_words, replace=False)
        words = np.concatenate([group_words[c % groups], own])
        w = rng.dirichlet(np.full(words.size, 0.3))
        topics.append((words, w))
    y = rng.integers(0, k, n)
    L = np.maximum(20, rng.lognormal(np.log(mean_len), 0.5, n).astype(np.int64))
    n_top = rng.binomial(L, alpha)
    n_bg = L - n_top
    rows = [np.repeat(np.arange(n), n_bg)]
    cols = [perm[rng.choice(d, n_bg.sum(), p=bg)]]
    for c in range(k):
        idx = np.flatnonzero(y == c)
        cnt = n_top[idx]
        words, w = topics[c]
        rows.append(np.repeat(idx, cnt))
        cols.append(words[rng.choice(words.size, cnt.sum(), p=w)])
    rows = np.concatenate(rows)
    cols = np.concatenate(cols)
    C = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, d))
    C.sum_duplicates()
    df = np.bincount(C[:n_train].indices, minlength=d)
    idf = np.log((1 + n_train) / (1 + df)) + 1.0
    C.data = np.log1p(C.data)
    C = (C @ sp.diags(idf)).tocsr()
    norms = np.sqrt(np.asarray(C.multiply(C).sum(1)).ravel())
    C = (sp.diags(1.0 / norms) @ C).tocsr()
    C.sort_indices()
    Xtr, Xte = C[:n_train].tocsr(), C[n_train:].tocsr()
    Xtr.indices = Xtr.indices.astype(np.int32)
    Xte.indices = Xte.indices.astype(np.int32)
    return Xtr, y[:n_train].astype(np.int64), Xte, y[n_train:].astype(np.int64)


# --------------------------------------------------------------------------------------------
# copied from ../shared/bench/peers.py -- end
# --------------------------------------------------------------------------------------------

#: full-size (default) and --quick sizes of each workload: (n_train, n_test)
SIZES = {
    "dense": {"full": (60000, 10000), "quick": (10000, 2000)},
    "sparse": {"full": (20000, 4000), "quick": (5000, 1000)},
}


class Workload:
    """Training and held-out rows of one workload, with its description."""

    def __init__(self, name, X_train, y_train, X_test, y_test, n_classes):
        self.name = name
        self.X_train, self.y_train = X_train, y_train
        self.X_test, self.y_test = X_test, y_test
        self.n_classes = n_classes
        self.sparse = sp.issparse(X_train)
        self.n_train, self.n_features = X_train.shape
        self.n_test = X_test.shape[0]

    def row_nonzeros(self, X, i):
        """Row ``i`` of ``X`` as (column indices, values) of its non-zeros."""
        if self.sparse:
            start, stop = X.indptr[i], X.indptr[i + 1]
            return X.indices[start:stop], X.data[start:stop]
        row = X[i]
        nz = np.flatnonzero(row)
        return nz, row[nz]

    def describe(self):
        nnz = self.X_train.nnz if self.sparse else int(np.count_nonzero(self.X_train))
        return dict(name=self.name, kind="CSR" if self.sparse else "dense",
                    dtype=str(self.X_train.dtype), n_train=self.n_train, n_test=self.n_test,
                    n_features=self.n_features, n_classes=self.n_classes,
                    nnz_per_row=round(nnz / self.n_train, 1))


def load(name, quick=False):
    """The workload ``name`` ("dense" or "sparse"); ``quick`` gives the smaller --quick sizes
    (same generator and seed, fewer rows)."""
    n_train, n_test = SIZES[name]["quick" if quick else "full"]
    if name == "dense":
        return Workload(name, *make_dense(n_train=n_train, n_test=n_test), n_classes=10)
    if name == "sparse":
        return Workload(name, *make_sparse(n_train=n_train, n_test=n_test), n_classes=20)
    raise ValueError(f"unknown workload {name!r}; choose dense or sparse")


# --------------------------------------------------------------------------------------------
# multilabel: Reuters-21578 (real data, not generated)
# --------------------------------------------------------------------------------------------
#: where the Reuters tarball is looked for when neither --data-dir nor ONLINEAR_DATA is given:
#: the project's shared data folder next to the repository
DEFAULT_DATA_DIR = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


class MultilabelWorkload:
    """A multilabel stream: CSR rows, a 0/1 indicator of relevant labels, held-out rows."""

    def __init__(self, name, X_train, Y_train, X_test, Y_test, label_names):
        self.name = name
        self.X_train, self.Y_train = X_train, Y_train
        self.X_test, self.Y_test = X_test, Y_test
        self.label_names = list(label_names)
        self.n_train, self.n_features = X_train.shape
        self.n_test = X_test.shape[0]
        self.n_labels = Y_train.shape[1]

    def describe(self):
        return dict(name=self.name, kind="CSR multilabel", dtype=str(self.X_train.dtype),
                    n_train=self.n_train, n_test=self.n_test, n_features=self.n_features,
                    n_labels=self.n_labels,
                    nnz_per_row=round(self.X_train.nnz / self.n_train, 1),
                    labels_per_row=round(float(self.Y_train.sum(axis=1).mean()), 3),
                    rows_without_label=int((self.Y_train.sum(axis=1) == 0).sum()))


def load_reuters(data_dir=None):
    """Reuters-21578 ModApte, all topics (multilabel), tf-idf fitted on the training documents,
    in the collection's order (``onlinear.data.load_reuters21578(labels="multi")``).

    ``data_dir``: a folder holding ``text/reuters21578.tar.gz``; default ``ONLINEAR_DATA`` if set,
    else ``../shared/data`` next to the repository.  Returns ``(workload, None)``, or
    ``(None, reason)`` when the data is absent."""
    import os

    from onlinear.data import find_dataset, load_reuters21578

    if data_dir is None and not os.environ.get("ONLINEAR_DATA"):
        data_dir = DEFAULT_DATA_DIR
    try:
        (path,) = find_dataset("reuters21578", data_dir)
    except FileNotFoundError as error:
        return None, str(error)
    data = load_reuters21578(path, labels="multi")
    return MultilabelWorkload("reuters", data.X_train, data.y_train.astype(np.uint8),
                              data.X_test, data.y_test.astype(np.uint8), data.target_names), None
