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

Then (issue [18], "every family's per-example path") what a ``learn_one`` call costs beyond the
family's own compiled round: on a model started on the first 50 rows (untimed), the time per
example of ``learn_one`` over the other rows minus that of the compiled pass over the same
rows (one ``partial_fit`` over them, less a call's own cost, measured as the extra time of the
same rows in two calls; each the fastest of ``--rounds``, interleaved; kernel-pa, whose
difference is a few µs on a 45 µs round: of three times as many, with the quartiles of each
repeat's difference), for pa, simproj, iellip with
each layout of its metric, cellip, kernel-pa (linear kernel), the block learner (a trial of
one row, by ``learn_one``, against ``partial_fit`` with one row per block), AROW and SCW-I
(diagonal and per-class), AdaGrad and FTRL-Proximal, with the ratio to pa's.  Dense rows:
the first ``--usps`` rows of USPS (256 features, 10 classes, float64: a full metric per class,
or the stacked one, is affordable there); CSR rows: the sparse workload's (60,000 features:
the diagonal metric only; kernel-pa, whose support patterns are dense columns, dense only).
``--families-only`` skips the first table; ``--cpu-time`` times it by the thread's CPU time
(on a loaded machine the waits for a core are not counted; the caches are still shared).
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import scipy.sparse as sp

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


#: (label, make's name, parameters, storages) of the per-example overhead table
FAMILIES = (
    ("pa", "pa", {}, ("dense", "CSR", "dense64", "small", "small CSR")),
    ("simproj", "simproj", {}, ("dense", "CSR", "small", "small CSR")),
    ("iellip diagonal", "iellip", {"matrix": "diagonal"},
     ("dense", "CSR", "small", "small CSR")),
    ("iellip per-class", "iellip", {"matrix": "per-class"}, ("dense", "small", "small CSR")),
    # (and on 64 of USPS's pixels: what a call adds does not grow with the round, which on 256
    # pixels, 140–190 µs, hides it in the noise)
    ("iellip stacked", "iellip", {"matrix": "stacked"},
     ("dense", "dense64", "small", "small CSR")),
    ("cellip (auto)", "cellip", {}, ("dense", "CSR", "small", "small CSR")),
    # (not on the sparse workload: the support patterns are dense columns, 60,000 × 1,000
    # floats)
    ("kernel-pa linear", "kernel-pa", {"kernel": "linear"},
     ("dense", "dense64", "small", "small CSR")),
    ("block learner", "simproj", {"task": "blocks"},
     ("dense", "CSR", "small", "small CSR")),
    # the models held as objects with a compiled per-row round (issue [19])
    ("arow diagonal", "arow", {"matrix": "diagonal"},
     ("dense", "CSR", "small", "small CSR")),
    ("scw1 per-class", "scw1", {"matrix": "per-class"}, ("dense", "small", "small CSR")),
    ("adagrad", "adagrad", {}, ("dense", "CSR", "small", "small CSR")),
    ("ftrl (log)", "ftrl", {}, ("dense", "CSR", "small", "small CSR")),
)


def _family_rows(n_usps, n_sparse):
    from onlinear.data import load_usps

    X, y = load_usps()[:2]
    dense = (np.ascontiguousarray(X[:n_usps]), np.asarray(y[:n_usps]))
    Xs, ys, _, _ = make_sparse(n_train=n_sparse, n_test=10)
    # every fourth pixel: the rounds of the learners whose round grows with the features
    # squared (a stacked metric) or with the support set (a kernel) made cheap enough that a
    # call's own cost shows
    dense64 = (np.ascontiguousarray(X[:n_usps, ::4]), dense[1])
    # rows of 8 features (unit norm, three classes a linear map separates with a margin, so
    # that the kernel learner's support set stays small): every family's round takes about a
    # µs or less, so what a call adds beyond it is measured on its own, not as the small
    # difference of two long times (the big rounds' cache misses, which differ between a pass
    # and a call from Python, are noise of that size)
    rng = np.random.default_rng(8)
    small = rng.normal(size=(32 * n_usps, 8))
    small /= np.linalg.norm(small, axis=1, keepdims=True)
    scores = small @ rng.normal(size=(8, 3))
    top_two = np.sort(scores, axis=1)[:, -2:]
    wide = top_two[:, 1] - top_two[:, 0] > 1.5 * np.std(scores)
    small, labels = small[wide][:n_usps], np.argmax(scores[wide][:n_usps], axis=1)
    return {"dense": dense, "CSR": (Xs.tocsr(), ys.astype(np.int64)), "dense64": dense64,
            "small": (small, labels), "small CSR": (sp.csr_matrix(small), labels)}


#: rows that start a model before the timed rows (the start, untimed, is not a call's cost)
WARM = 50

#: families whose difference is a few µs on a round of tens (kernel-pa: ~1–5 µs on 45, whose
#: fastest-of-5 figures moved by more than the difference from run to run): timed this many
#: times ``--rounds`` (interleaved with the others while they last; the fastest of more
#: repeats, as a load only adds time), with the quartiles of each repeat's own difference
STEADIED = {"kernel-pa linear": 3}


def _per_example_pair(name, params, X, y):
    """``(start, partial_fit, learn_one)``: a model started on the first :data:`WARM` rows,
    then the rest in one ``partial_fit`` (the family's compiled pass) or one per call."""
    blocks = params.get("task") == "blocks"
    if blocks:  # a binary trial per row: labels ±1
        y = np.where(y == y[0], 1.0, -1.0)
    rows = [X[i] for i in range(WARM, X.shape[0])]

    classes = np.unique(y)

    def start():
        model = onlinear.make(name, **params)
        if blocks:
            return model.partial_fit(X[:WARM], y[:WARM], classes=classes,
                                     block_ptr=np.arange(WARM + 1))
        return model.partial_fit(X[:WARM], y[:WARM], classes=classes)

    def partial_fit(model, begin=WARM, stop=X.shape[0]):
        if blocks:
            model.partial_fit(X[begin:stop], y[begin:stop],
                              block_ptr=np.arange(stop - begin + 1))
        else:
            model.partial_fit(X[begin:stop], y[begin:stop])

    def partial_fit_split(model):
        # the same rows in two calls: the same rounds as one call, plus one call's own cost
        middle = WARM + (X.shape[0] - WARM) // 2
        partial_fit(model, WARM, middle)
        partial_fit(model, middle)

    def learn_one(model):
        for i, row in enumerate(rows, start=WARM):
            model.learn_one(row, y[i])
    return start, partial_fit, partial_fit_split, learn_one


def family_overheads(n_usps, n_sparse, rounds, clock=time.perf_counter):
    """Print, per family and storage, on a started model: the compiled pass's µs per example
    over the same rows as learn_one (one partial_fit over them, less a call's own cost — e.g.
    O(features × classes) for the CSR layout — measured as the extra time of the same rows in
    two calls), learn_one's, and what learn_one adds, with its ratio to pa's (each the fastest
    of ``rounds``, interleaved; of more for the families of :data:`STEADIED`), timed by
    ``clock``."""
    data = _family_rows(n_usps, n_sparse)
    runs = {}
    for label, name, params, storages in FAMILIES:
        for storage in storages:
            runs[(storage, label)] = _per_example_pair(name, params, *data[storage])
    for start, *calls in runs.values():  # first calls outside the timings
        for run in calls:
            run(start())
    times = {key: [] for key in runs}  # per repeat: (full, split, one) in seconds
    repeats = {key: rounds * STEADIED.get(key[1], 1) for key in runs}
    for repeat in range(max(repeats.values())):
        for key, (start, *calls) in runs.items():
            if repeat >= repeats[key]:
                continue
            timed = []
            for run in calls:
                model = start()
                begin = clock()
                run(model)
                timed.append(clock() - begin)
            times[key].append(timed)

    def per_example(key):
        """``(pass, learn_one, added)`` µs per example (each time the fastest of the
        repeats), and for :data:`STEADIED` families the quartiles of each repeat's ``added``."""
        n = data[key[0]][0].shape[0] - WARM
        each = np.asarray(times[key]) / n * 1e6  # (repeats, 3)
        # one call's own cost is split − full; the pass's rounds are those of learn_one (the
        # same rows from the same model), so a family whose updates get rarer along the
        # stream is not charged for them
        full, split, one = each.min(axis=0)
        pass_ = 2.0 * full - split
        quartiles = None if key[1] not in STEADIED else np.percentile(
            each[:, 2] - (2.0 * each[:, 0] - each[:, 1]), [25, 75])
        return pass_, one, one - pass_, quartiles

    print(f"\n{'rows':<10} {'learner':<20} {'pass µs/ex':>11} {'learn_one µs/ex':>16} "
          f"{'added µs':>9} {'/ pa':>6}")
    for key in times:
        pass_, one, added, quartiles = per_example(key)
        pa_added = per_example((key[0], "pa"))[2]
        ratio = f"{added / pa_added:>6.1f}" if pa_added > 0 else f"{'–':>6}"  # (pa's pass
        # can cost more a row than its learn_one: then there is no ratio)
        spread = "" if quartiles is None else (
            f"  fastest of {repeats[key]} repeats; each repeat's added µs: quartiles "
            f"{quartiles[0]:.2f}–{quartiles[1]:.2f}")
        print(f"{key[0]:<10} {key[1]:<20} {pass_:>11.2f} {one:>16.2f} {added:>9.2f} {ratio}"
              f"{spread}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=4000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--usps", type=int, default=1000,
                        help="USPS rows (dense) and sparse rows of the per-family table")
    parser.add_argument("--families-only", action="store_true")
    parser.add_argument("--cpu-time", action="store_true",
                        help="time the per-family table by this thread's CPU time "
                             "(time.thread_time): on a loaded machine the time the thread "
                             "waits for a core is not counted (the caches are still shared)")
    args = parser.parse_args(argv)
    clock = time.thread_time if args.cpu_time else time.perf_counter
    if args.families_only:
        family_overheads(args.usps, args.usps, args.rounds, clock)
        return
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
    family_overheads(args.usps, args.usps, args.rounds, clock)


if __name__ == "__main__":
    main()
