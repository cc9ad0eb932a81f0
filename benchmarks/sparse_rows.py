#!/usr/bin/env python
"""One example at a time from a CSR matrix: the ways to feed ``learn_one``/``learn_many``.

    flock /tmp/onlinear-bench.lock python benchmarks/sparse_rows.py            # 5,000 rows
    flock /tmp/onlinear-bench.lock python benchmarks/sparse_rows.py --rows 1000 --repeats 2

On the rows of the sparse workload (``workloads.make_sparse``: news20-sized tf-idf CSR, 60,000
features, 20 classes) it times pa, interleaved run by run, four ways:

* ``learn_one(X[i], y[i])`` row by row — the loop a user writes first; scipy's row slicing
  ``X[i]`` dominates it;
* ``learn_one`` over rows sliced beforehand (``rows = [X[i] for i in ...]``, not timed): the
  per-call cost of onlinear's per-example path alone;
* ``learn_many`` over consecutive blocks of ``--block`` rows (``X[a:b]``): the same rounds (the
  same model, bit for bit; the prediction made before each row), one call per block;
* one ``partial_fit`` of all the rows: the compiled rounds alone.

It prints examples/s (median of ``--repeats``) and each way's ratio to ``partial_fit``.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from workloads import make_sparse


def _row_by_row(model, X, y, classes):
    for i in range(X.shape[0]):
        model.learn_one(X[i], y[i], classes=classes if i == 0 else None)


def _presliced(model, rows, y, classes):
    for i, row in enumerate(rows):
        model.learn_one(row, y[i], classes=classes if i == 0 else None)


def _blocks(model, X, y, classes, block):
    for start in range(0, X.shape[0], block):
        model.learn_many(X[start:start + block], y[start:start + block],
                         classes=classes if start == 0 else None)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--block", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)

    import onlinear

    X, y, _, _ = make_sparse()
    X, y = X[:args.rows], y[:args.rows]
    classes = np.unique(y)
    rows = [X[i] for i in range(X.shape[0])]
    ways = {
        "learn_one(X[i]) row by row": lambda m: _row_by_row(m, X, y, classes),
        "learn_one, rows sliced before": lambda m: _presliced(m, rows, y, classes),
        f"learn_many, blocks of {args.block}": lambda m: _blocks(m, X, y, classes, args.block),
        "partial_fit (all rows)": lambda m: m.partial_fit(X, y, classes=classes),
    }
    models = {}
    for name, way in ways.items():  # warm up every path (compiled entry points, contexts)
        way(onlinear.make("pa"))
    seconds = {name: [] for name in ways}
    for _ in range(args.repeats):
        for name, way in ways.items():
            model = onlinear.make("pa")
            start = time.perf_counter()
            way(model)
            seconds[name].append(time.perf_counter() - start)
            models[name] = model
    reference = models["partial_fit (all rows)"]
    for name, model in models.items():  # the same rounds, whichever way
        assert np.array_equal(model.coef_, reference.coef_), name
    best = statistics.median(seconds["partial_fit (all rows)"])
    print(f"pa on {X.shape[0]:,} CSR rows ({X.shape[1]:,} features, {classes.size} classes, "
          f"{X.nnz / X.shape[0]:.0f} non-zeros a row), median of {args.repeats}:")
    for name, times in seconds.items():
        median = statistics.median(times)
        print(f"  {name:34s} {X.shape[0] / median:12,.0f} examples/s   "
              f"{median / best:6.1f}x partial_fit's time")


if __name__ == "__main__":
    main()
