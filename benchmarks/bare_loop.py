#!/usr/bin/env python
"""onlinear's compiled pass against the bare numba loop (issue [12], "at the compiled-loop limit").

    flock /tmp/onlinear-bench.lock python benchmarks/bare_loop.py            # about a minute
    flock /tmp/onlinear-bench.lock python benchmarks/bare_loop.py --repeats 15

On the two workloads of ``workloads.py`` (dense 60,000 × 784 float32, 10 classes; CSR
20,000 × 60,000, 20 classes) it times, interleaved run by run in one process (so that a drift of
the machine's speed hits all alike; the median of ``--repeats`` runs is reported, and the
fastest run's ratio to the bare loop's fastest):

* **the bare loop**: the multiclass PA (max-score form) of ``../shared/bench/peers.py``
  (``pa_dense`` with W (k, d) in X's dtype, and ``pa_csr_dk`` with W (d, k)), copied below
  verbatim — a single ``@njit(fastmath=True)`` function, no validation, no model object;
* the same dense loop with **float64 weights** (W (k, d) float64, x widened per value): the bare
  loop of onlinear's arithmetic with ``dtype="float64"`` (float32 weights halve the memory a
  round reads and double the values per vector instruction);
* ``onlinear.make(name).fit(X, y)`` of pa, mira, spa2, perceptron-max, aromma and mcp
  (validation included), and their compiled pass alone (``stream(X, y).learn(rows)``, the data
  validated beforehand), with the default weights (``dtype="auto"``: float32 on the float32
  dense workload, the bare loop's own precision, float64 on the CSR one) and (dense workload)
  with ``dtype="float64"``;
* ``onlinear.make(name).fit(X, y)`` of the other engines' learners (issue [18]): simproj (the
  block engine's multiclass label sets) and iellip and cellip (the metric engine, ``matrix=
  "auto"``: diagonal at these widths), with their default weights (float64);
* scikit-learn's ``PassiveAggressiveClassifier(max_iter=1, tol=None, shuffle=False).fit``.

Every learner is run once on 50 rows first (numba compiles or loads its cache).  It prints the
seconds of one pass and the ratios: each onlinear learner / bare loop, each / onlinear pa of the
same precision, and scikit-learn PA / onlinear pa and / the bare loop (the ceiling of the former
in that run).  ``--out FILE`` writes every run as JSON.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from numba import njit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import workloads  # noqa: E402

RULES = ("pa", "mira", "spa2", "perceptron-max", "aromma", "mcp")
#: the engines other than the primal one (issue [18]: "every family's pass at the speed of the
#: primal one"), timed with their defaults beside the primal rules, default weights only: the
#: block engine's simproj (multiclass label sets), the metric engine's iellip and cellip
#: (``matrix="auto"``: the diagonal metric at these widths).  kernel-pa is left out: its round
#: costs O(support set), tens of thousands of patterns on these workloads (per_example.py times
#: what its per-example path adds).
FAMILIES = ("simproj", "iellip", "cellip")
#: the weights' precisions timed, by workload (sparse or not): the default ("auto": the data's,
#: float32 on the dense workload as the bare loop's weights are, float64 on the CSR one), and on
#: the dense workload float64 weights too
DTYPES = {False: ("auto", "float64"), True: ("auto",)}
perf = time.perf_counter


# --------------------------------------------------------------------------------------------
# the bare loop: copied from ../shared/bench/peers.py (numba_kernels) -- begin
# --------------------------------------------------------------------------------------------
@njit(fastmath=True, cache=False)
def pa_dense(X, y, W):
    """W (k, d), same dtype as X. Returns the number of online mistakes."""
    n, d = X.shape
    k = W.shape[0]
    buf = np.empty_like(X[0, :1])  # 1-element scratch of X's dtype
    buf[0] = 0.0
    zero = buf[0]
    scores = np.empty(k, dtype=np.float64)
    mistakes = 0
    for i in range(n):
        x = X[i]
        yi = y[i]
        for c in range(k):
            s = zero
            wc = W[c]
            for j in range(d):
                s += wc[j] * x[j]
            scores[c] = s
        best = -np.inf
        r = -1
        for c in range(k):
            if c != yi and scores[c] > best:
                best = scores[c]
                r = c
        if best >= scores[yi]:
            mistakes += 1
        loss = 1.0 - (scores[yi] - best)
        if loss > 0.0:
            nx = zero
            for j in range(d):
                nx += x[j] * x[j]
            if nx > 0.0:
                buf[0] = loss / (2.0 * nx)  # tau in X's dtype
                tau = buf[0]
                wy = W[yi]
                wr = W[r]
                for j in range(d):
                    t = tau * x[j]
                    wy[j] += t
                    wr[j] -= t
    return mistakes


@njit(fastmath=True, cache=False)
def pa_csr_dk(indptr, indices, data, y, Wt):
    """CSR input, weights stored transposed Wt (d, k): the k weights of a
    feature are contiguous, so scoring reads one short row per non-zero."""
    n = indptr.size - 1
    k = Wt.shape[1]
    scores = np.empty(k, dtype=np.float64)
    mistakes = 0
    for i in range(n):
        a = indptr[i]
        b = indptr[i + 1]
        yi = y[i]
        for c in range(k):
            scores[c] = 0.0
        for p in range(a, b):
            v = data[p]
            wrow = Wt[indices[p]]
            for c in range(k):
                scores[c] += wrow[c] * v
        best = -np.inf
        r = -1
        for c in range(k):
            if c != yi and scores[c] > best:
                best = scores[c]
                r = c
        if best >= scores[yi]:
            mistakes += 1
        loss = 1.0 - (scores[yi] - best)
        if loss > 0.0:
            nx = 0.0
            for p in range(a, b):
                nx += data[p] * data[p]
            if nx > 0.0:
                tau = loss / (2.0 * nx)
                for p in range(a, b):
                    t = tau * data[p]
                    j = indices[p]
                    Wt[j, yi] += t
                    Wt[j, r] -= t
    return mistakes
# --------------------------------------------------------------------------------------------
# copied from ../shared/bench/peers.py -- end
# --------------------------------------------------------------------------------------------


@njit(fastmath=True, cache=False)
def pa_dense_float64_weights(X, y, W):
    """:func:`pa_dense` with W (k, d) float64 whatever X's dtype (x widened per value): the
    bare loop of onlinear's arithmetic."""
    n, d = X.shape
    k = W.shape[0]
    scores = np.empty(k, dtype=np.float64)
    mistakes = 0
    for i in range(n):
        x = X[i]
        yi = y[i]
        for c in range(k):
            s = 0.0
            wc = W[c]
            for j in range(d):
                s += wc[j] * np.float64(x[j])
            scores[c] = s
        best = -np.inf
        r = -1
        for c in range(k):
            if c != yi and scores[c] > best:
                best = scores[c]
                r = c
        if best >= scores[yi]:
            mistakes += 1
        loss = 1.0 - (scores[yi] - best)
        if loss > 0.0:
            nx = 0.0
            for j in range(d):
                nx += np.float64(x[j]) * np.float64(x[j])
            if nx > 0.0:
                tau = loss / (2.0 * nx)
                wy = W[yi]
                wr = W[r]
                for j in range(d):
                    t = tau * np.float64(x[j])
                    wy[j] += t
                    wr[j] -= t
    return mistakes


def zeros_aligned(shape, dtype):
    """Zero weights for the bare loops, 64-byte aligned as onlinear aligns its own (numpy's are
    16-byte aligned: a W 16 bytes off a 32-byte boundary makes the bare loop about 14 % slower,
    and which one a run gets is chance, so the ratios would move by as much)."""
    from onlinear._core.weights import aligned_copy

    return aligned_copy(np.zeros(shape, dtype), "C")


def contenders(wl):
    """``{name: (setup, run)}``: ``setup()`` is untimed, ``run(state)`` is one timed pass."""
    import onlinear
    from sklearn.linear_model import PassiveAggressiveClassifier

    X, y = wl.X_train, wl.y_train
    classes = np.unique(y)
    k, d = wl.n_classes, wl.n_features
    out = {}
    if wl.sparse:
        out["bare loop (peers.py pa_csr_dk)"] = (
            lambda: np.full((d, k), 0.0),
            lambda W: pa_csr_dk(X.indptr, X.indices, X.data, y, W))
    else:
        out["bare loop (peers.py pa_dense)"] = (
            lambda: zeros_aligned((k, d), X.dtype), lambda W: pa_dense(X, y, W))
        out["bare loop, float64 weights"] = (
            lambda: zeros_aligned((k, d), np.float64), lambda W: pa_dense_float64_weights(X, y, W))
    for dtype in DTYPES[wl.sparse]:
        suffix = "" if dtype == "auto" else f", {dtype}"
        for name in RULES:
            out[f"onlinear {name} .fit{suffix}"] = (
                lambda name=name, dtype=dtype: onlinear.make(name, dtype=dtype),
                lambda model: model.fit(X, y))
            out[f"onlinear {name} pass{suffix}"] = (
                lambda name=name, dtype=dtype: (
                    onlinear.make(name, dtype=dtype).stream(X, y, classes=classes),
                    np.arange(X.shape[0])),
                lambda state: state[0].learn(state[1]))
    for name in FAMILIES:
        out[f"onlinear {name} .fit"] = (lambda name=name: onlinear.make(name),
                                        lambda model: model.fit(X, y))
    out["sklearn PA .fit"] = (
        lambda: PassiveAggressiveClassifier(max_iter=1, tol=None, shuffle=False),
        lambda model: model.fit(X, y))
    return out


def warm_up(wl, runs):
    """One call of every contender on 50 rows (compiles, or loads numba's cache)."""
    import onlinear

    X, y = wl.X_train[:50], wl.y_train[:50]
    k, d = wl.n_classes, wl.n_features
    if wl.sparse:
        pa_csr_dk(X.indptr, X.indices, X.data, y, np.zeros((d, k)))
    else:
        pa_dense(X, y, np.zeros((k, d), X.dtype))
        pa_dense_float64_weights(X, y, np.zeros((k, d)))
    for dtype in DTYPES[wl.sparse]:
        for name in RULES:
            onlinear.make(name, dtype=dtype).fit(X, y)
            onlinear.make(name, dtype=dtype).stream(
                X, y, classes=np.unique(wl.y_train)).learn(np.arange(50))
    for name in FAMILIES:
        onlinear.make(name).fit(X, y)


def measure(wl, repeats):
    runs = contenders(wl)
    warm_up(wl, runs)
    walls = {name: [] for name in runs}
    for _ in range(repeats):
        for name, (setup, run) in runs.items():
            state = setup()
            gc.collect()
            t0 = perf()
            run(state)
            walls[name].append(perf() - t0)
            del state
    return walls


def updates(wl):
    """``{"onlinear NAME": (updates / pa's updates, squared norms summed)}`` of one pass of each
    rule (default weights): the work a rule does beyond pa's, which no loop removes — the
    rounds that update (each adds its step to two or more weight rows, a sweep as long as the
    scoring of one row), and whether its update sweeps also sum the squared norms' changes
    (rules that read the norms, ``exact_norms``; dense rows: a CSR pass sums them for every
    rule)."""
    import onlinear

    models = {name: onlinear.make(name).fit(wl.X_train, wl.y_train) for name in RULES}
    pa = models["pa"].n_updates_
    return {f"onlinear {name}": (model.n_updates_ / pa,
                                 not wl.sparse and bool(getattr(model, "_exact_norms", 0)))
            for name, model in models.items()}


def report(wl, walls):
    """Print the medians and their ratios (to the bare loop, and to onlinear pa's ``.fit``
    with the same weights' precision), and the fastest run's ratio to the bare loop's."""
    med = {name: statistics.median(w) for name, w in walls.items()}
    bare = next(name for name in med if name.startswith("bare loop ("))

    def pa_of(name):
        dtype = next((d for d in DTYPES[wl.sparse][1:] if name.endswith(f", {d}")), None)
        return med["onlinear pa .fit" + (f", {dtype}" if dtype else "")]

    work = updates(wl)
    print(f"\n# {wl.name}: {wl.n_train:,} x {wl.n_features:,} "
          f"{'CSR' if wl.sparse else 'dense'} {wl.X_train.dtype}, {wl.n_classes} classes; "
          f"median of {len(next(iter(walls.values())))} runs")
    # the fastest runs too: another tenant's load makes the timings of this shared machine
    # bimodal, and the median of a few runs then lands in either mode
    fastest = {name: min(w) for name, w in walls.items()}
    print(f"  {'':40s} {'seconds':>9s} {'/ bare':>7s} {'/ pa fit':>9s} {'fastest / bare':>15s}"
          "  updates / pa's")
    for name, seconds in med.items():
        rule = work.get(name.split(" .fit")[0].split(" pass")[0])
        extra = "" if rule is None else f"  {rule[0]:.2f}{' (norms summed)' if rule[1] else ''}"
        print(f"  {name:40s} {seconds:9.4f} {seconds / med[bare]:7.2f} "
              f"{seconds / pa_of(name):9.2f} {fastest[name] / fastest[bare]:15.2f}{extra}")
    for dtype in DTYPES[wl.sparse]:
        suffix = "" if dtype == "auto" else f", {dtype}"
        print(f"  scikit-learn PA .fit / onlinear pa .fit{suffix}: "
              f"{med['sklearn PA .fit'] / med['onlinear pa .fit' + suffix]:.1f}x (fastest runs: "
              f"{fastest['sklearn PA .fit'] / fastest['onlinear pa .fit' + suffix]:.1f}x)")
    # the ceiling of that ratio in this run: a pass cannot take less than the bare loop
    print(f"  scikit-learn PA .fit / the bare loop: {med['sklearn PA .fit'] / med[bare]:.1f}x")
    return dict(workload=wl.name, walls_s=walls, median_s=med, bare=bare)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--workloads", default="dense,sparse")
    ap.add_argument("--out", default=None, help="write every timed run to this JSON file")
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore", category=FutureWarning)  # sklearn PA deprecation (1.8)
    print(f"# load average {os.getloadavg()[0]:.2f} at start", flush=True)
    results = []
    for name in args.workloads.split(","):
        wl = workloads.load(name)
        results.append(report(wl, measure(wl, args.repeats)))
    print(f"# load average {os.getloadavg()[0]:.2f} at end")
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
