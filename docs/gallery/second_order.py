"""The gallery's comparison of the second-order and adaptive learners with PA-I and SPA-II
(issue [19]): one pass over each data set in three seeded orders, each learner's
hyperparameter chosen first by one online pass per grid value (``onlinear.harness.grid_search``,
fewest online mistakes, on the first order: the test set plays no part), then the online
mistake rate, the test error and the time of the pass.

    ONLINEAR_DATA=/path/to/data python docs/gallery/second_order.py [DATA ...]

writes ``docs/gallery/second-order-DATA.txt`` for each data set (default: all five).
"""
import sys
import time
from pathlib import Path

import numpy as np

from onlinear.data import load
from onlinear.harness import compare, grid_search

POWERS = [2.0 ** k for k in range(-10, 5, 2)]
#: learner → (fixed parameters, the grid of its one tuned hyperparameter)
LEARNERS = {
    "pa1": ({}, {"C": POWERS}),
    "spa2": ({}, {"C": POWERS}),
    "arow": ({"matrix": "diagonal"}, {"r": POWERS}),
    "scw1": ({"matrix": "diagonal"}, {"C": POWERS}),
    # (the exact CW's variances underflow on Letter within a few thousand rows, and a
    # round whose step overflows stops the pass: a floor keeps them, see min_variance)
    "cw": ({"matrix": "diagonal", "min_variance": 1e-12}, {"eta": [0.6, 0.75, 0.9]}),
    "adagrad": ({}, {"eta": [0.001, 0.01, 0.1, 1.0, 10.0]}),
    "ftrl": ({}, {"alpha": [0.05, 0.5, 5.0, 50.0]}),
}
DATA = ("usps", "letter", "satimage", "sector", "news20")


def run(name):
    X, y, X_test, y_test = load(name)
    lines = [f"data: {name}, {X.shape[0]:,} training and {X_test.shape[0]:,} test examples, "
             f"{X.shape[1]:,} features, {np.unique(y).shape[0]} classes; one pass, 3 seeded "
             "orders (mean ± sd)", ""]
    chosen = {}
    for learner, (fixed, grid) in LEARNERS.items():
        search = grid_search(learner, X, y, grid, params=fixed, shuffle=True, random_state=0)
        chosen[learner] = {**fixed, **search.best_params}
    start = time.perf_counter()
    result = compare(X, y, list(LEARNERS), X_test=X_test, y_test=y_test, params=chosen,
                     permutations=3, random_state=0)
    lines.append(result.report())
    lines.append("")
    lines.append("hyperparameters (chosen by one online pass per value, on the first order): "
                 + "; ".join(f"{k} {v}" for k, v in chosen.items()))
    lines.append(f"(compare: {time.perf_counter() - start:.0f} s)")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    for name in sys.argv[1:] or DATA:
        text = run(name)
        Path(__file__).with_name(f"second-order-{name}.txt").write_text(text, encoding="utf-8")
        print(text, flush=True)
