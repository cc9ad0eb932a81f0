"""Kernel workloads of the benchmark (issue [6]): one epoch of the kernel (dual) learners on the
papers' data, next to scikit-learn's batch SVC and to Crammer & Singer's Tables 3–4.

    python benchmarks/run.py --workloads kernel        # USPS, degree-3 polynomial (~1 min)
    python benchmarks/run.py --workloads mnist-kernel  # full MNIST, opt-in (minutes)

* ``kernel``: the shipped USPS (7,291 training / 2,007 test rows, 256 features in [−1, 1], 10
  classes), the homogeneous polynomial kernel ``(x·x')³`` (the paper's kernel family for USPS,
  degree not stated), β = 0.01 as in the paper's experiments, the data as shipped: kernel MIRA,
  the kernel one-vs-rest Perceptron and the additive family (uniform, max, prop), one epoch in
  the given order, and scikit-learn's ``SVC(kernel="poly", degree=3, gamma=1.0, coef0=0.0)``
  (the same kernel) ``.fit`` as the batch reference; then the shipped Letter (LIBSVM copy:
  15,000 / 5,000 rows, 16 features in [−1, 1], 26 classes — the paper split 16,000 / 4,000) with
  the Gaussian kernel of Table 5, ``exp(−2‖x − x'‖²)`` (width not stated in the paper; γ = 2 is
  the best of 0.5, 1 and 2 tried here), the same five learners.
* ``mnist-kernel``: MNIST (60,000 / 10,000, 784 pixels) from the shared data folder
  (``$ONLINEAR_DATA`` or ``../shared/data``; skipped with a message if absent), each row scaled to
  unit Euclidean norm (the paper does not state its preprocessing; with unit rows K(x, x) = 1 and
  the absolute β = 0.01 is a margin of 1% — on raw pixels /255, K(x, x) ≈ 10⁸ makes β void and
  MIRA's error on a 10,000-row prefix rises from 3.5% to 5.3%), the homogeneous polynomial kernel
  ``(x·x')^4`` (Table 3's family; degree not stated), one epoch of kernel MIRA and of the kernel
  Perceptron.  No SVC: its fit on 60,000 rows takes far longer.

Times are one run each (wall clock, after a warm-up fit on 50 rows that compiles or loads the
numba cache); test errors and support patterns (distinct = cumulative after one epoch) are
printed next to the paper's.

Growth (issue [12]): a round of a kernel learner costs O(support patterns × non-zeros of x), so
its speed falls as the support set grows.  ``python benchmarks/kernel_bench.py --growth``
streams MNIST (as above) through ``model.stream(X, y).learn(rows)`` in the given order, 100,000
rows (the 60,000 training rows, then the first 40,000 again: a second epoch, in which a row met
again updates its own support pattern), and times windows of ``--window`` rows (default 2,000)
starting after 10,000, 50,000 and 100,000 − window rows: examples/s and support patterns in
each window (the rows between windows are learned untimed).

The kernel row (:func:`onlinear.kernels.kernel_row`) stays a hand loop: it skips the zero
features of x, so on MNIST rows (~19% non-zero) it reads a fifth of the support set; a BLAS
matrix–vector product over the stored patterns (``np.dot``, OpenBLAS, one thread) reads all of
it and was 3–9× slower there (2,000–16,000 patterns), and only 1.07–1.5× faster on fully dense
rows (``kernel_bench.py --blas`` measures both).
"""
import os
import time
from pathlib import Path

import numpy as np

WORKLOADS = ("kernel", "mnist-kernel")

#: Crammer & Singer, Tables 3 (MNIST) and 4 (USPS), epoch 1: (test error %, support patterns).
PAPER = {
    "usps": {"ovr-perceptron": (5.93, 936), "perceptron-uniform": (6.73, 492),
             "perceptron-max": (6.08, 527), "perceptron-prop": (6.63, 494),
             "mira": (4.78, 3242)},
    "letter": {"ovr-perceptron": (7.45, 4215), "perceptron-uniform": (7.07, 2202),
               "perceptron-max": (7.40, 2334), "perceptron-prop": (8.00, 2205),
               "mira": (3.68, 8184)},
    "mnist": {"ovr-perceptron": (1.83, 5299), "perceptron-uniform": (2.31, 2726),
              "perceptron-max": (2.61, 2823), "perceptron-prop": (2.46, 3050),
              "mira": (1.45, 20162)},
}

GOALS = {"usps": 30.0, "mnist": 15 * 60.0}

#: the growth report: rows learned before each timed window's end (see the module doc)
GROWTH_MARKS = (10_000, 50_000, 100_000)


def _data(name):
    if name == "kernel":
        from onlinear.data import load_usps
        return "usps", load_usps()
    from onlinear.data import load

    here = Path(__file__).resolve().parent
    directory = os.environ.get("ONLINEAR_DATA") or str(here.parent.parent / "shared" / "data")
    try:
        X, y, X_test, y_test = load("mnist", data_dir=directory)
    except FileNotFoundError as exc:
        print(f"  mnist-kernel skipped: {exc}", flush=True)
        return "mnist", None
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    X_test /= np.linalg.norm(X_test, axis=1, keepdims=True)
    return "mnist", (X, y, X_test, y_test)


def kernel_rows(name, args):
    """Result rows of the kernel workload ``name`` (see the module docstring)."""
    dataset, data = _data(name)
    if data is None:
        return [dict(workload=name, learner="onlinear kernel learners", api=".fit 1 epoch",
                     skipped="MNIST files not found")]
    if dataset == "usps":
        from onlinear.data import load_letter

        family = ["ovr-perceptron", "perceptron-uniform", "perceptron-max", "perceptron-prop",
                  "mira"]
        rows = _learner_rows(name, dataset, data, dict(kernel="poly", degree=3, gamma=1.0,
                                                       coef0=0.0), family)
        rows += _svc_rows(name, dataset, data)
        return rows + _learner_rows(name, "letter", load_letter(),
                                    dict(kernel="rbf", gamma=2.0), family)
    return _learner_rows(name, dataset, data, dict(kernel="poly", degree=4, gamma=1.0,
                                                   coef0=0.0), ["mira", "ovr-perceptron"])


def _learner_rows(name, dataset, data, kernel, learners):
    import onlinear

    X, y, X_test, y_test = data
    print(f"\n# {name}: {dataset} {X.shape[0]} x {X.shape[1]}, test {X_test.shape[0]} rows, "
          f"kernel {kernel}, beta 0.01, one epoch", flush=True)
    rows = []
    for learner in learners:
        make = lambda: onlinear.make(f"kernel-{learner}", beta=0.01, **kernel)  # noqa: E731
        make().fit(X[:50], y[:50])  # compile or load the numba cache
        load0 = os.getloadavg()[0]
        t0 = time.perf_counter()
        model = make().fit(X, y)
        seconds = time.perf_counter() - t0
        t0 = time.perf_counter()
        error = 100.0 * (1.0 - model.score(X_test, y_test))
        predict_s = time.perf_counter() - t0
        paper_error, paper_sp = PAPER[dataset][learner]
        rows.append(dict(workload=name, learner=f"onlinear kernel-{learner}",
                         api=f".fit 1 epoch {dataset}",
                         seconds=seconds, eps=X.shape[0] / seconds, n_timed=X.shape[0],
                         acc=1.0 - error / 100.0, mode="one epoch, dual form",
                         test_error_pct=error, support_patterns=model.n_support_patterns_,
                         updates=model.n_updates_, paper_test_error_pct=paper_error,
                         paper_support_patterns=paper_sp, predict_s=predict_s,
                         load_average_1min=[load0, os.getloadavg()[0]]))
        print(f"  {dataset:<6} kernel-{learner:<20} fit {seconds:8.2f} s  test error "
              f"{error:5.2f}% (paper {paper_error:.2f}%)  SP {model.n_support_patterns_:6d} "
              f"(paper {paper_sp})  predict {predict_s:.1f} s  load {load0:.1f}", flush=True)
    return rows


def _svc_rows(name, dataset, data):
    from sklearn.svm import SVC

    X, y, X_test, y_test = data
    t0 = time.perf_counter()
    svc = SVC(kernel="poly", degree=3, gamma=1.0, coef0=0.0).fit(X, y)
    seconds = time.perf_counter() - t0
    error = 100.0 * (1.0 - svc.score(X_test, y_test))
    print(f"  {dataset:<6} sklearn SVC(poly 3) {'':<8} fit {seconds:8.2f} s  test error "
          f"{error:5.2f}%  SV {int(svc.n_support_.sum()):6d}", flush=True)
    return [dict(workload=name, learner="sklearn SVC(poly 3)", api=f".fit (batch) {dataset}",
                 seconds=seconds, eps=X.shape[0] / seconds, n_timed=X.shape[0],
                 acc=1.0 - error / 100.0, mode="batch reference, libsvm", test_error_pct=error,
                 support_patterns=int(svc.n_support_.sum()))]


def kernel_goals(rows):
    """One epoch of kernel MIRA: under 30 s on USPS, under 15 minutes on full MNIST."""
    out = []
    for name, dataset in (("kernel", "usps"), ("mnist-kernel", "mnist")):
        row = next((r for r in rows if r["workload"] == name
                    and r["learner"] == "onlinear kernel-mira" and not r.get("skipped")
                    and r["api"].endswith(dataset)), None)
        if row is None:
            continue
        out.append(dict(goal=f"one epoch of kernel MIRA on {dataset} under {GOALS[dataset]:g} s",
                        value=row["seconds"], passed=row["seconds"] < GOALS[dataset],
                        text=f"{row['seconds']:.2f} s, test error {row['test_error_pct']:.2f}% "
                             f"(paper {row['paper_test_error_pct']:.2f}%), "
                             f"{row['support_patterns']} support patterns (paper "
                             f"{row['paper_support_patterns']})"))
    return out


def growth_rows(learner="ovr-perceptron", window=2_000, kernel=None):
    """Examples/s of ``kernel-<learner>`` on MNIST in windows of ``window`` rows starting after
    10,000 and 50,000 rows and ending at 100,000 (two epochs' worth, see the module doc)."""
    import onlinear

    dataset, data = _data("mnist-kernel")
    if data is None:
        return []
    X, y, _, _ = data
    kernel = kernel or dict(kernel="poly", degree=4, gamma=1.0, coef0=0.0)
    model = onlinear.make(f"kernel-{learner}", beta=0.01, **kernel)
    onlinear.make(f"kernel-{learner}", beta=0.01, **kernel).fit(X[:50], y[:50])  # compile
    stream = model.stream(X, y, classes=np.unique(y))
    order = np.concatenate([np.arange(X.shape[0]), np.arange(X.shape[0])])
    starts = [GROWTH_MARKS[0], GROWTH_MARKS[1], GROWTH_MARKS[2] - window]
    print(f"\n# growth: kernel-{learner} on MNIST {X.shape[0]} x {X.shape[1]}, {kernel}, "
          f"windows of {window} rows (rows past 60,000: the second epoch)", flush=True)
    rows, done, t_all = [], 0, time.perf_counter()
    for start in starts:
        stream.learn(order[done:start])
        before = model.n_support_patterns_
        t0 = time.perf_counter()
        stream.learn(order[start:start + window])
        seconds = time.perf_counter() - t0
        done = start + window
        rows.append(dict(workload="mnist-kernel-growth", learner=f"onlinear kernel-{learner}",
                         api=f"stream.learn rows {start:,}-{done:,}", seconds=seconds,
                         eps=window / seconds, n_timed=window, acc=None,
                         mode="window of a 100,000-row stream", support_before=before,
                         support_after=model.n_support_patterns_,
                         load_average_1min=os.getloadavg()[0]))
        print(f"  rows {start:>7,}-{done:>7,}: {window / seconds:9,.0f} examples/s  support "
              f"patterns {before:,} -> {model.n_support_patterns_:,}  "
              f"load {os.getloadavg()[0]:.1f}", flush=True)
    print(f"  (all {done:,} rows: {time.perf_counter() - t_all:.0f} s)", flush=True)
    return rows


def blas_comparison(sizes=(2_000, 8_000, 16_000), repeats=20):
    """The kernel row's inner products: the hand loop of :func:`onlinear.kernels.kernel_row`
    (feature-major support set, zero features of x skipped) against one BLAS matrix–vector
    product over the same patterns stored pattern-major (``np.dot`` in numba), on an MNIST row
    and on a fully dense row of the same norm; best of ``repeats`` calls."""
    from numba import njit

    from onlinear.kernels import POLY, kernel_row

    @njit(cache=False)
    def blas_dots(patterns, x, out):
        out[:] = np.dot(patterns, x)

    _, data = _data("mnist-kernel")
    if data is None:
        return
    X = data[0]
    rng = np.random.default_rng(0)
    dense = np.abs(rng.standard_normal(X.shape[1]))
    dense /= np.linalg.norm(dense)
    params = np.array([1.0, 0.0, 4.0])

    def best(call):
        walls = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            call()
            walls.append(time.perf_counter() - t0)
        return min(walls)

    print("\n# kernel row: hand loop (zeros of x skipped) vs BLAS gemv over the patterns")
    for size in sizes:
        support = np.ascontiguousarray(X[:size].T)  # (features, patterns), as the engine keeps
        patterns = np.ascontiguousarray(X[:size])  # (patterns, features), for BLAS
        support_sq = np.einsum("ij,ij->i", patterns, patterns)
        out, dots = np.empty(size), np.empty(size)
        for name, x in (("MNIST row", X[-1]), ("dense row", dense)):
            kernel_row(support, support_sq, size, x, 1.0, POLY, params, out)
            blas_dots(patterns, x, dots)
            hand = best(lambda: kernel_row(support, support_sq, size, x, 1.0, POLY, params, out))
            blas = best(lambda: blas_dots(patterns, x, dots))
            print(f"  {size:>6,} patterns, {name}: hand loop {hand * 1e6:8.0f} us, BLAS "
                  f"{blas * 1e6:8.0f} us (dots only), hand/BLAS {hand / blas:.2f}", flush=True)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="kernel growth report and kernel-row timing")
    parser.add_argument("--growth", action="store_true", help="examples/s as the support grows")
    parser.add_argument("--learner", default="ovr-perceptron",
                        help="kernel learner of the growth report (e.g. mira, ovr-perceptron)")
    parser.add_argument("--window", type=int, default=2_000)
    parser.add_argument("--blas", action="store_true", help="hand loop vs BLAS kernel row")
    cli = parser.parse_args()
    if cli.blas:
        blas_comparison()
    if cli.growth:
        growth_rows(cli.learner, cli.window)
