#!/usr/bin/env python
"""The cost of each layout of the ellipsoid metric next to ``pa``'s, and what it buys.

    flock /tmp/onlinear-bench.lock python benchmarks/ellipsoid_layouts.py
    flock /tmp/onlinear-bench.lock python benchmarks/ellipsoid_layouts.py --quick

One pass of ``fit`` over USPS (7,291 × 256, 10 classes), MNIST (60,000 × 784, 10 classes),
and, for the stacked matrix at small K·d, Letter (the shipped LIBSVM copy, 15,000 × 16, 26
classes: K·d = 416) and Shuttle (43,500 × 9, 7 classes: K·d = 63) — MNIST and Shuttle need
``ONLINEAR_DATA`` —, rows divided by the largest row norm (CELLIP's theory assumes
‖x‖ ≤ 1; IELLIP and pa do not depend on it), for ``pa`` and for CELLIP and IELLIP with each
``matrix``: ``diagonal`` (O(non-zeros) per update), ``per-class`` (one d×d matrix per class,
O(d²) per updated class) and ``stacked`` (the paper's (K·d)×(K·d) matrix, O((K·d)²) per
update).  The learners are timed in turns, repeat after repeat (a drift of the machine's speed
hits all of them alike), the median wall time of each is reported as examples/s and as the
ratio of pa's examples/s to the learner's (how many times pa's cost), with the test accuracy of
the model after the pass.

The stacked matrix of MNIST (7,840² float64 = 492 MB, about 0.1 s per update) is timed on the
first ``--stacked-rows`` rows only: its examples/s is that of the prefix (where mistakes, hence
updates, are more frequent than over the whole pass: an upper bound on its cost ratio), and its
accuracy is not comparable (not reported).

This is the measurement behind ``onlinear.estimators.ellipsoid.FULL_MATRIX_MAX_COST``: the
``matrix="auto"`` rule keeps a full matrix only while its cost stays within that factor of pa's.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import numpy as np

LAYOUTS = ("diagonal", "per-class", "stacked")


def _data(name, quick):
    if name == "usps":
        from onlinear.data import load_usps

        X, y, X_test, y_test = load_usps()
    elif name == "letter":
        from onlinear.data import load_letter

        X, y, X_test, y_test = load_letter()
    else:
        from onlinear.data import load

        X, y, X_test, y_test = load(name)
    if quick:
        X, y, X_test, y_test = X[:2000], y[:2000], X_test[:1000], y_test[:1000]
    scale = float(np.linalg.norm(X, axis=1).max())
    return (np.ascontiguousarray(X / scale), y, np.ascontiguousarray(X_test / scale), y_test)


def _learners(name, d, k, stacked_rows):
    """``(label, algorithm, params, rows)``: rows = None for the whole training set."""
    out = [("pa", "pa", {}, None)]
    for algorithm in ("iellip", "cellip"):
        for layout in LAYOUTS:
            rows = None
            if layout == "stacked" and k * d > 4096:
                rows = stacked_rows
            out.append((f"{algorithm} {layout}", algorithm, {"matrix": layout}, rows))
    return out


def measure(name, repeats, stacked_rows, quick):
    import onlinear

    X, y, X_test, y_test = _data(name, quick)
    classes = np.unique(y)
    n, d = X.shape
    learners = _learners(name, d, classes.shape[0], stacked_rows)
    for _, algorithm, params, _ in learners:  # compile / load numba's cache first
        onlinear.make(algorithm, **params).fit(X[:30], y[:30])
    walls = {label: [] for label, *_ in learners}
    models = {}
    for repeat in range(repeats):
        for label, algorithm, params, rows in learners:
            if rows is not None and repeat > 0:
                continue  # the stacked MNIST prefix: one run is minutes of the budget
            rows = n if rows is None else min(rows, n)
            model = onlinear.make(algorithm, **params)
            start = time.perf_counter()
            model.fit(X[:rows], y[:rows])
            walls[label].append((time.perf_counter() - start, rows))
            models[label] = (model, rows)
            print(f"  {name:<7} {label:<18} repeat {repeat + 1}: "
                  f"{walls[label][-1][0]:8.3f} s ({rows:,} rows)", flush=True)
    out = []
    pa_rate = None
    for label, algorithm, params, _ in learners:
        seconds = statistics.median(w for w, _ in walls[label])
        rows = walls[label][0][1]
        rate = rows / seconds
        if label == "pa":
            pa_rate = rate
        model, rows = models[label]
        accuracy = float(model.score(X_test, y_test)) if rows == n else None
        out.append(dict(data=name, learner=label, rows=rows, seconds=seconds,
                        examples_per_s=rate, times_pa=pa_rate / rate, accuracy=accuracy,
                        updates=int(model.n_updates_), n_features=d,
                        n_classes=int(classes.shape[0])))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--stacked-rows", type=int, default=500)
    parser.add_argument("--quick", action="store_true", help="2,000 training rows, 1 repeat")
    parser.add_argument("--data", nargs="+", default=["usps", "mnist", "letter", "shuttle"])
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results",
                                                      "ellipsoid_layouts.json"))
    args = parser.parse_args(argv)
    repeats = 1 if args.quick else args.repeats
    rows = []
    for name in args.data:
        rows += measure(name, repeats, args.stacked_rows, args.quick)
    print(f"\n{'data':<8}{'learner':<18}{'rows':>8}{'examples/s':>12}{'× pa':>9}"
          f"{'test acc':>10}{'updates':>9}")
    for r in rows:
        acc = "—" if r["accuracy"] is None else f"{r['accuracy']:.4f}"
        print(f"{r['data']:<8}{r['learner']:<18}{r['rows']:>8,}{r['examples_per_s']:>12,.0f}"
              f"{r['times_pa']:>9.1f}{acc:>10}{r['updates']:>9,}")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as handle:
        json.dump(rows, handle, indent=1)
    print(f"\nwritten to {args.out}")


if __name__ == "__main__":
    main()
