#!/usr/bin/env python
"""One example per call: ``learn_one`` and ``predict_one`` of onlinear ``pa`` against the bare
compiled PA kernel of ``bare_loop.py`` called once per example from Python (issue [12]).

    python benchmarks/per_example.py              # 4,000 rows, 3 interleaved rounds
    python benchmarks/per_example.py --rows 2000 --rounds 5

The bare call is the lower bound of any per-example API built on a compiled kernel: a Python
loop calling ``pa_dense(X[i:i+1], y[i:i+1], W)`` (dense, float32, class-major weights: so
``pa`` is timed with its default weights, float32 on these float32 rows, and with
``dtype="float64"``) or
``pa_csr_dk(indptr[i:i+2], indices, data, y[i:i+1], W)`` (CSR, feature-major weights), with
no validation and no model object; ``learn_many`` takes the rows 32 at a time (the ratio is
still per example).  onlinear's calls check the row (finite, accepted norm)
and the label, keep the counters and return the prediction made before the update; on a
started model they take one compiled call (``onlinear.estimators.fast_path``).
Rows: the dense (MNIST-sized, float32, 784 features) and sparse (news20-sized, 60,000
features) workloads of ``workloads.py``; the contenders run interleaved, round by round, and
the table gives the median examples/s and the ratio to the bare call of the same storage.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import onlinear
from bare_loop import pa_csr_dk, pa_dense, zeros_aligned
from workloads import make_dense, make_sparse

#: rows per call of learn_many (a small batch: a user's mini-batch, a message queue's poll)
BATCH = 32


def _rows(n):
    X, y, _, _ = make_dense(n_train=n, n_test=10)
    dense = (np.ascontiguousarray(X), y.astype(np.int64))
    Xs, ys, _, _ = make_sparse(n_train=n, n_test=10)
    sparse = (Xs.tocsr(), ys.astype(np.int64))
    return dense, sparse


def contenders(dense, sparse):
    (X, y), (S, ys) = dense, sparse
    n = X.shape[0]
    k, ks = int(y.max()) + 1, int(ys.max()) + 1
    dense_rows = [X[i] for i in range(n)]
    sparse_rows = [S[i] for i in range(n)]

    def bare_dense():
        W = zeros_aligned((k, X.shape[1]), X.dtype)
        for i in range(n):
            pa_dense(X[i:i + 1], y[i:i + 1], W)

    def bare_csr():
        W = zeros_aligned((S.shape[1], ks), np.float64)
        indptr, indices, data = S.indptr, S.indices, S.data
        for i in range(n):
            pa_csr_dk(indptr[i:i + 2], indices, data, ys[i:i + 1], W)

    def learn(rows, labels, classes, every_call, dtype="auto"):
        def run():
            model = onlinear.make("pa", dtype=dtype)
            model.learn_one(rows[0], labels[0], classes=classes)
            if every_call:  # scikit-learn users pass classes= on every call
                for i in range(1, n):
                    model.learn_one(rows[i], labels[i], classes=classes)
            else:
                for i in range(1, n):
                    model.learn_one(rows[i], labels[i])
        return run

    def learn_many(X_all, labels, classes, batch):
        batches = [(X_all[s:s + batch], labels[s:s + batch]) for s in range(0, n, batch)]

        def run():
            model = onlinear.make("pa")
            model.learn_many(*batches[0], classes=classes)
            for rows, targets in batches[1:]:
                model.learn_many(rows, targets)
        return run

    def predict(rows, model):
        def run():
            for i in range(n):
                model.predict_one(rows[i])
        return run

    dense_model = onlinear.make("pa").fit(X[:500], y[:500])
    double_model = onlinear.make("pa", dtype="float64").fit(X[:500], y[:500])
    sparse_model = onlinear.make("pa").fit(S[:500], ys[:500])
    return {
        ("dense", "bare call"): bare_dense,
        ("dense", "learn_one"): learn(dense_rows, y, np.arange(k), False),
        ("dense", "learn_one, classes= each call"): learn(dense_rows, y, np.arange(k), True),
        ("dense", f"learn_many, {BATCH} rows a call"): learn_many(X, y, np.arange(k), BATCH),
        ("dense", "predict_one"): predict(dense_rows, dense_model),
        ("dense", "learn_one, float64 weights"): learn(dense_rows, y, np.arange(k), False,
                                                       "float64"),
        ("dense", "predict_one, float64 weights"): predict(dense_rows, double_model),
        ("CSR", "bare call"): bare_csr,
        ("CSR", "learn_one"): learn(sparse_rows, ys, np.arange(ks), False),
        ("CSR", f"learn_many, {BATCH} rows a call"): learn_many(S, ys, np.arange(ks), BATCH),
        ("CSR", "predict_one"): predict(sparse_rows, sparse_model),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=4000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    dense, sparse = _rows(args.rows)
    runs = contenders(dense, sparse)
    for run in runs.values():  # compile (or load the cache) outside the timings
        run()
    rates = {key: [] for key in runs}
    for _ in range(args.rounds):
        for key, run in runs.items():
            start = time.perf_counter()
            run()
            rates[key].append(args.rows / (time.perf_counter() - start))
    print(f"{'rows':<6} {'call':<32} {'examples/s':>12} {'/ bare call':>12}")
    for (storage, name), values in rates.items():
        rate = statistics.median(values)
        bare = statistics.median(rates[(storage, "bare call")])
        print(f"{storage:<6} {name:<32} {rate:>12,.0f} {rate / bare:>12.2f}")


if __name__ == "__main__":
    main()
