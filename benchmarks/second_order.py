#!/usr/bin/env python
"""The compiled passes of the second-order and adaptive learners (issue [19]) against onlinear's
pa and the bare loop, in one run.

    flock /tmp/onlinear-bench.lock python benchmarks/second_order.py              # a few minutes
    flock /tmp/onlinear-bench.lock python benchmarks/second_order.py --repeats 7

Workloads (``workloads.py``'s generators): dense 20,000 × 784 float32, 10 classes (MNIST-like);
CSR 20,000 × 60,000 float64, 20 classes (news20-like); USPS (7,291 × 256 float64, 10 classes,
``onlinear.data.load_usps``) for the full per-class covariance.

Timed, interleaved run by run (a drift of the machine's speed hits all alike; medians of
``--repeats`` runs): ``onlinear.make("pa").fit(X, y)`` (validation included), the bare numba
loop of ``bare_loop.py`` (pa_dense / pa_csr_dk, when numba is installed), and the *engine
passes alone* of the Gaussian learners (``onlinear._core.confidence.learn_pass``: AROW, SCW-I,
CW-std with per-class diagonal covariance; on USPS AROW and SCW-I with per-class full
covariance) and of AdaGrad and FTRL-Proximal (``onlinear._core.adaptive``), their state
allocated and the label indices computed before the clock starts.  On the float32 workload pa
with float64 weights is timed too (these learners keep their state in float64).  (Their estimators do not
exist yet: their ``.fit`` will add validation, which pa's ``.fit`` includes.)  It prints each
median and its ratio to pa's ``.fit`` and to the bare loop, with issue [19]'s goals: diagonal
AROW/SCW ≤ 2× pa (dense and CSR), AdaGrad/FTRL ≤ 1.5×, full covariance ≤ 20× on USPS.

Also timed, as ``.fit`` (validation included, as pa's): ``adagrad`` and ``adagrad-rda`` (AdaGrad's
primal-dual form), hinge and log.  ``--only adagrad,pa`` keeps the contenders whose name contains
one of the words; ``--rows`` shortens the dense and CSR workloads (for a learner too slow for
20,000 rows, timed before and after a change at the same size).
"""
from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import workloads  # noqa: E402

perf = time.perf_counter

#: (name, engine, keyword arguments, goal as a multiple of pa's .fit)
GAUSSIAN = [("AROW diagonal", "AROW", {}, 2.0), ("SCW-I diagonal", "SCW_I", {}, 2.0),
            ("CW-std diagonal", "CW_STD", {}, None)]
FULL = [("AROW per-class full", "AROW", {}, 20.0), ("SCW-I per-class full", "SCW_I", {}, 20.0)]
#: (name, registry name, keyword arguments, goal): timed as ``.fit``
FITTED = [("adagrad .fit", "adagrad", {}, 1.5),
          ("adagrad-rda .fit", "adagrad-rda", {}, 1.5),
          ("adagrad-rda log .fit", "adagrad-rda", dict(loss="log"), 1.5)]
ADAPTIVE = [("AdaGrad hinge", "adagrad", dict(loss="hinge"), 1.5),
            ("AdaGrad log", "adagrad", dict(loss="log"), 1.5),
            ("AdaGrad log l1", "adagrad", dict(loss="log", l1=1e-4), 1.5),
            ("FTRL log", "ftrl", dict(loss="log"), 1.5),
            ("FTRL hinge l1", "ftrl", dict(loss="hinge", l1=0.1), 1.5)]


def gaussian(X, codes, K, rule, layout):
    from onlinear._core import confidence
    from onlinear.rules.confidence_table import GaussianRule, parameter_vector

    rule = GaussianRule[rule]
    params = parameter_vector(rule)
    order = np.arange(X.shape[0])

    def setup():
        return confidence.initial_state(layout, X.shape[1], K)

    def run(state):
        return confidence.learn_pass(int(rule), X, codes, order, *state, params, layout=layout)
    return setup, run


def adaptive(X, codes, K, method, options):
    from onlinear._core import adaptive as A

    order = np.arange(X.shape[0])
    if method == "adagrad":
        return (lambda: A.adagrad_state(X.shape[1], K),
                lambda state: A.adagrad_pass(X, codes, order, *state, **options))
    return (lambda: A.ftrl_state(X.shape[1], K),
            lambda state: A.ftrl_pass(X, codes, order, *state, **options))


def bare_loop(X, codes, K, sparse):
    try:
        import bare_loop as bare
    except ImportError:  # numba missing
        return None
    if sparse:
        return (lambda: np.zeros((X.shape[1], K)),
                lambda W: bare.pa_csr_dk(X.indptr, X.indices, X.data, codes, W))
    return (lambda: bare.zeros_aligned((K, X.shape[1]), X.dtype),
            lambda W: bare.pa_dense(X, codes, W))


def contenders(X, y, sparse, full_only=False):
    import onlinear

    classes, codes = np.unique(y, return_inverse=True)
    codes = codes.astype(np.int64)
    K = classes.size
    out = {"onlinear pa .fit": ((lambda: onlinear.make("pa")), lambda model: model.fit(X, y),
                                None)}
    if X.dtype == np.float32:  # (the learners here keep float64 state, spec of issue [19])
        out["onlinear pa .fit, float64"] = ((lambda: onlinear.make("pa", dtype="float64")),
                                            lambda model: model.fit(X, y), None)
    loop = bare_loop(X, codes, K, sparse)
    if loop is not None:
        out["bare loop (pa)"] = (*loop, None)
    if full_only:
        for name, rule, _, goal in FULL:
            out[name] = (*gaussian(X, codes, K, rule, "per-class"), goal)
        return out
    for name, rule, _, goal in GAUSSIAN:
        out[name] = (*gaussian(X, codes, K, rule, "diagonal"), goal)
    for name, method, options, goal in ADAPTIVE:
        out[name] = (*adaptive(X, codes, K, method, options), goal)
    for name, algorithm, options, goal in FITTED:
        out[name] = ((lambda algorithm=algorithm, options=options:
                      onlinear.make(algorithm, **options)),
                     lambda model: model.fit(X, y), goal)
    return out


def measure(runs, repeats):
    for setup, run, _ in runs.values():  # warm-up: imports, numba's compilation
        run(setup())
    walls = {name: [] for name in runs}
    for _ in range(repeats):
        for name, (setup, run, _) in runs.items():
            state = setup()
            gc.collect()
            t0 = perf()
            run(state)
            walls[name].append(perf() - t0)
            del state
    return walls


def report(title, runs, walls):
    med = {name: statistics.median(w) for name, w in walls.items()}
    pa = med["onlinear pa .fit"]
    bare = med.get("bare loop (pa)")
    print(f"\n# {title}; median of {len(next(iter(walls.values())))} runs")
    print(f"  {'':28s} {'seconds':>9s} {'/ pa fit':>9s} {'/ bare':>7s}  goal")
    for name, seconds in med.items():
        goal = runs[name][2]
        verdict = "" if goal is None else (f"≤ {goal:g}×  " + ("met" if seconds / pa <= goal
                                                                else "NOT MET"))
        ratio_bare = f"{seconds / bare:7.2f}" if bare else "      -"
        print(f"  {name:28s} {seconds:9.4f} {seconds / pa:9.2f} {ratio_bare}  {verdict}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--workloads", default="dense,sparse,usps")
    ap.add_argument("--only", default="",
                    help="comma-separated words: keep the contenders whose name has one "
                         "(pa's .fit is always kept)")
    ap.add_argument("--rows", type=int, default=20000,
                    help="rows of the dense and CSR workloads")
    args = ap.parse_args(argv)
    words = [word.lower() for word in args.only.split(",") if word]

    def kept(runs):
        return {name: run for name, run in runs.items()
                if name == "onlinear pa .fit" or not words
                or any(word in name.lower() for word in words)}
    warnings.filterwarnings("ignore", category=FutureWarning)
    print(f"# load average {os.getloadavg()[0]:.2f} at start", flush=True)
    for name in args.workloads.split(","):
        if name == "dense":
            X, y, _, _ = workloads.make_dense(n_train=args.rows, n_test=10)
            title = f"dense {args.rows:,} x 784 float32, 10 classes"
            runs = contenders(X, y, sparse=False)
        elif name == "sparse":
            X, y, _, _ = workloads.make_sparse(n_train=args.rows, n_test=10)
            title = f"CSR {X.shape[0]:,} x {X.shape[1]:,} float64, 20 classes"
            runs = contenders(X, y, sparse=True)
        else:
            from onlinear.data import load_usps
            X, y, _, _ = load_usps()
            X = np.ascontiguousarray(X)
            title = "USPS 7,291 x 256 float64, 10 classes (full per-class covariance)"
            runs = contenders(X, y, sparse=False, full_only=True)
        runs = kept(runs)
        report(title, runs, measure(runs, args.repeats))
    print(f"# load average {os.getloadavg()[0]:.2f} at end")


if __name__ == "__main__":
    main()
