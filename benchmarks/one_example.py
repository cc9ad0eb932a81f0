#!/usr/bin/env python
"""One example at a time: ``learn_one`` of every engine family against ``pa``'s.

    python benchmarks/one_example.py            # 2,000 USPS rows per learner, 5 rounds
    python benchmarks/one_example.py --quick    # 300 rows, 2 rounds

``learn_one`` rates: each learner streams the first ``--rows`` USPS rows (1-D float64 numpy rows,
``classes=`` on the first call only), the learners interleaved round by round so that a drift of
the machine's speed hits all of them alike; the table gives the median examples/s and the ratio
to ``pa`` measured in the same rounds (the goal of issue [8]: at least 0.5 for simproj multiclass
and multilabel, iellip diagonal and per-class, and kernel-pa).  Beside it, the same rows in one
``partial_fit`` call: the compiled rounds alone, hence the highest ratio to ``pa`` any
per-example path could reach — below 0.5 for the learners whose round does more arithmetic than
pa's (per-class IELLIP: a d×d matrix per class; a kernel machine: a kernel row over its growing
support set) — and what ``learn_one`` keeps of it.  Multilabel simproj learns
indicator rows made from the digit (its column and a parity column).

A first use from a fresh process (what the first call of each family costs) is
``benchmarks/cold_start.py``'s.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

LEARNERS = [
    ("pa", "pa", {}),
    ("simproj multiclass", "simproj", {}),
    ("simproj multilabel", "simproj", {}),
    ("iellip diagonal", "iellip", {"matrix": "diagonal"}),
    ("iellip per-class", "iellip", {"matrix": "per-class"}),
    ("kernel-pa (poly 3)", "kernel-pa", {"kernel": "poly", "degree": 3, "gamma": 1.0}),
]


def _targets(label, y, classes):
    if label == "simproj multilabel":
        # indicator rows: the digit's column and a parity column (USPS labels are digit + 1)
        Y = np.zeros((y.shape[0], classes.shape[0] + 2), dtype=np.int64)
        Y[np.arange(y.shape[0]), np.searchsorted(classes, y)] = 1
        Y[np.arange(y.shape[0]), classes.shape[0] + y % 2] = 1
        return list(Y), np.arange(Y.shape[1])
    return y.tolist(), classes


def _stream(model, X, targets, classes):
    learn_one = model.learn_one
    start = time.perf_counter()
    learn_one(X[0], targets[0], classes=classes)
    for x, t in zip(X[1:], targets[1:]):
        learn_one(x, t)
    return time.perf_counter() - start


def _fit(model, X, targets, classes):
    """The same rows through one ``partial_fit`` call: the same compiled rounds, no per-example
    Python — what the rounds themselves cost."""
    start = time.perf_counter()
    model.partial_fit(X, targets if isinstance(targets[0], (int, np.integer)) else
                      np.asarray(targets), classes=classes)
    return time.perf_counter() - start


def learn_one_rates(rows, rounds):
    import onlinear
    from onlinear.data import load_usps

    X, y, _, _ = load_usps()
    X, y = np.ascontiguousarray(X[:rows]), y[:rows]
    classes = np.unique(y)
    feeds = {label: _targets(label, y, classes) for label, _, _ in LEARNERS}
    for label, name, params in LEARNERS:  # compile, or load the compiled code, untimed
        targets, cls = feeds[label]
        _stream(onlinear.make(name, **params), X[:20], targets[:20], cls)
        _fit(onlinear.make(name, **params), X[:20], targets[:20], cls)
    seconds = {label: [] for label, _, _ in LEARNERS}
    batch = {label: [] for label, _, _ in LEARNERS}
    for _ in range(rounds):
        for label, name, params in LEARNERS:
            targets, cls = feeds[label]
            seconds[label].append(_stream(onlinear.make(name, **params), X, targets, cls))
            batch[label].append(_fit(onlinear.make(name, **params), X, targets, cls))
    pa = seconds["pa"]
    print(f"learn_one on {rows:,} USPS rows (256 features, 10 classes), median of {rounds} "
          "interleaved rounds")
    print("  ratio to pa: learn_one rate / pa's learn_one rate (the issue's measure)")
    print("  rounds alone: the same rows in one partial_fit call (compiled rounds, no "
          "per-example Python) / pa's learn_one rate — the ceiling of the ratio to pa")
    print("  learn_one / own batch: what the per-example path keeps of the learner's own "
          "compiled rate")
    print(f"{'learner':<22}{'examples/s':>12}{'ratio to pa':>13}{'rounds alone':>14}"
          f"{'learn_one / own batch':>23}")
    for label, _, _ in LEARNERS:
        ratio = statistics.median(p / s for p, s in zip(pa, seconds[label]))
        ceiling = statistics.median(p / b for p, b in zip(pa, batch[label]))
        own = statistics.median(b / s for b, s in zip(batch[label], seconds[label]))
        rate = rows / statistics.median(seconds[label])
        print(f"{label:<22}{rate:>12,.0f}{ratio:>13.2f}{ceiling:>14.2f}{own:>23.2f}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    if args.quick:
        args.rows, args.rounds = 300, 2
    learn_one_rates(args.rows, args.rounds)


if __name__ == "__main__":
    main()
