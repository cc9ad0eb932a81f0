#!/usr/bin/env python
"""The hostile-input audit of issue [9], as one command: every learner configuration against
every kind of bad (or merely unusual) input, through every public method, each configuration in
its own interpreter so that a crash is seen as one.

    python tools/audit.py            # every configuration (about 4 minutes on 2 cores)
    python tools/audit.py --quick    # six configurations, one of each engine

For each configuration (every registered name; the simultaneous schemes' ordinal and block
tasks; the ellipsoid methods' metric layouts; averaging learners), fitted on a small data set by
``fit``, ``partial_fit`` and ``learn_one``, each case calls one method with one bad or unusual
input and classifies what happened:

* **clear error** — a ``ValueError``/``TypeError`` (scikit-learn's ``NotFittedError`` and
  ``InvalidParameterError`` are ones) with a message, the model bitwise unchanged;
* **accepted** — an input the library takes by design (float32, integer or boolean X, a CSR row
  storing a column twice, rows at the edges of the accepted norm range, a refit on another
  width or other labels, a new class named by ``classes=`` for a learner that can grow): the
  call must give finite results, and a duplicated-CSR pass the very model of its canonical
  form;
* **non-atomic** — it raised but the model changed;
* **unclear error** — another exception type (a bare ``ZeroDivisionError``,
  ``FloatingPointError``, ``IndexError`` …) or an empty message;
* **silent bad result** — no error, but NaN/inf in the model or the output, a label outside
  ``classes_``, or an accepted input that trained another model;
* **crash** — the configuration's interpreter died (a segmentation fault in compiled code).

The closing figures of issue [9] are this command's summary.  The suite runs the same kinds of
cases (tests/test_bad_input.py, test_extreme_scales.py, test_hostile_files.py,
test_atomic_and_threads.py) with hypothesis fuzzing; this audit is their wide sweep.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter

CHILD_TIMEOUT = 600


# ------------------------------------------------------------------------ the configurations
def configurations(quick=False):
    import onlinear

    configs = [(name, {}) for name in onlinear.available(kernel=None)]
    for scheme in ("simperc", "conproj", "simproj", "simopt", "maxpa", "optimal", "sopopo"):
        configs += [(scheme, {"task": "ordinal"}), (scheme, {"task": "blocks"})]
    for name in ("iellip", "cellip"):
        configs += [(name, {"matrix": m}) for m in ("diagonal", "per-class", "stacked")]
    configs += [("pa", {"average": True}), ("mc-romma", {"average": True}),
                ("simproj", {"update": "multiplicative"})]
    if quick:
        keep = {"pa", "iellip", "kernel-pa", "simproj", "mcp", "multiplicative"}
        configs = [c for c in configs if c[0] in keep and not c[1]]
    return configs


# --------------------------------------------------------------------------- one configuration
def _cases(np, sp, X, y, classes, n_features):
    """``(case, method, args, kind)``: kind "bad" must raise clearly, "ok" must be accepted."""
    wide = np.hstack([X, X[:, :1]])
    narrow = X[:, :-1]
    nan, inf, negative_inf = X.copy(), X.copy(), X.copy()
    nan[3, 1] = np.nan
    inf[2, 0] = np.inf
    negative_inf[2, 0] = -np.inf
    cases = []

    def add(case, methods, make_args, kind="bad"):
        for method in methods:
            cases.append((case, method, make_args, kind))

    rows = ("fit", "partial_fit", "learn_one")
    reads = ("predict", "decision_function", "predict_one", "score")
    every = rows + reads
    add("NaN in X", every, lambda: (nan, y))
    add("inf in X", every, lambda: (inf, y))
    add("-inf in X", every, lambda: (negative_inf, y))
    refit = every[1:]  # fit starts a new model: another width or other labels are its own
    add("one feature too many", refit, lambda: (wide, y))
    add("one feature too few", refit, lambda: (narrow, y))
    add("3-D X", every, lambda: (X[:, :, None], y))
    add("no rows", ("fit", "partial_fit", "predict"), lambda: (X[:0], y[:0]))
    add("complex X", every, lambda: (X + 1j, y))
    add("string X", every, lambda: (X.astype(str).astype(object) + "x", y))
    add("None in X", every, lambda: (np.where(X > 1.5, None, X).astype(object), y))
    add("scalar X", every, lambda: (np.float64(1.0), y[:1]))
    add("row of norm 1e-160", rows, lambda: (X * 1e-160, y))
    add("row of norm 1e160", rows, lambda: (X * 1e160, y))
    add("subnormal row", rows, lambda: (np.full_like(X, 5e-324), y))
    add("values 1e300", rows, lambda: (X * 1e300, y))
    add("CSR with NaN", rows + ("predict",),
        lambda: (sp.csr_matrix(nan), y))
    add("CSR too wide", refit, lambda: (sp.csr_matrix(wide), y))
    add("unknown label", ("partial_fit", "learn_one"),
        lambda: (X, np.where(y == classes[0], 99, y)))
    add("NaN label", rows, lambda: (X, np.where(y == classes[0], np.nan, y)))
    add("y too short", ("fit", "partial_fit", "score"), lambda: (X, y[:-1]))
    add("y is None", ("fit", "partial_fit"), lambda: (X, None))
    add("classes missing one of the model's", ("partial_fit",),
        lambda: (X, y, {"classes": np.append(classes[1:], 99)}))
    # growing (a label added mid-stream): accepted by the learners that can grow, refused
    # with a clear error by the others
    add("a new class on partial_fit", ("partial_fit",),
        lambda: (X, y, {"classes": np.append(classes, 99)}), "either")
    add("bad hyperparameter C=-1", ("set_params",), lambda: ({"C": -1.0},))
    add("bad hyperparameter n_epochs=0", ("set_params",), lambda: ({"n_epochs": 0},))
    add("unknown hyperparameter", ("set_params",), lambda: ({"no_such_parameter": 1},))
    # accepted by design
    add("float32 X", rows + reads, lambda: (X.astype(np.float32), y), "ok")
    add("integer X", rows + reads, lambda: (np.round(X * 3).astype(np.int64), y), "ok")
    add("boolean X", rows + ("predict",), lambda: (X > 0, y), "ok")
    add("row of norm 1e-150", rows, lambda: (X * 1e-150, y), "ok")
    add("row of norm 1e150", rows, lambda: (X * 1e150, y), "ok")
    add("refit on another width", ("fit",), lambda: (wide, y), "ok")
    add("refit on other labels", ("fit",), lambda: (X, np.where(y == classes[0], 99, y)), "ok")
    add("score with a label never seen", ("score",),
        lambda: (X, np.where(y == classes[0], 99, y)), "ok")
    return cases


def _audit_one(name, params):
    import copy
    import io
    import pickle

    import numpy as np
    import scipy.sparse as sp

    import onlinear

    task = params.get("task")
    rng = np.random.default_rng(0)
    n_features = 6
    X = rng.normal(size=(30, n_features))
    if task == "blocks":
        classes = np.array([-1, 1])
    elif onlinear.describe(name).handles_multiclass:
        classes = np.array([3, 7, 11])
    else:
        classes = np.array([3, 7])
    y = classes[rng.integers(classes.shape[0], size=30)]
    if params.get("update") == "multiplicative" or name in ("multiplicative", "winnow"):
        X = np.abs(X)

    def fitted():
        model = onlinear.make(name, **params)
        model.fit(X[:10], y[:10])
        model.partial_fit(X[10:20], y[10:20])
        for x, label in zip(X[20:], y[20:]):
            model.learn_one(x, label)
        return model

    def state(model):
        buffer = io.BytesIO()
        pickle.dump({k: v for k, v in vars(model).items() if k != "_lock"}, buffer)
        return buffer.getvalue()

    def finite(model):
        for key, value in vars(model).items():
            if isinstance(value, np.ndarray) and value.dtype.kind == "f" and \
                    not np.isfinite(value).all():
                return False
        return True

    def first_different_row(data, labels):
        """The row a per-example call should take: the first that differs from the good data
        (or row 0 when the shapes differ)."""
        data = np.asarray(data.toarray() if sp.issparse(data) else data)
        if data.shape != X.shape:
            return 0
        for i in range(min(len(labels) if labels is not None else 0, X.shape[0])):
            row_differs = not np.array_equal(data[i], X[i], equal_nan=False)
            label_differs = not (labels[i] == y[i])
            if row_differs or label_differs:
                return i
        return 0

    def call(model, method, args, kind):
        if method == "set_params":
            return model.set_params(**args[0])
        data, labels, *extra = args
        options = extra[0] if extra else {}
        if method in ("fit", "partial_fit"):
            return getattr(model, method)(data, labels, **options)
        if method in ("learn_one", "predict_one"):
            if np.ndim(data) == 0:
                rows = [(data, labels[0])]
            elif kind == "ok":
                rows = [(data[i], labels[i]) for i in range(3)]
            else:
                i = first_different_row(data, labels)
                rows = [(data[i], labels[i])]
            if method == "learn_one":
                return [model.learn_one(x, label) for x, label in rows]
            return [model.predict_one(x) for x, _ in rows]
        if method == "score":
            return model.score(data, labels)
        return getattr(model, method)(data)

    outcomes = Counter()
    examples = {}
    base = fitted()
    for case, method, make_args, kind in _cases(np, sp, X, y, classes, n_features):
        model = copy.deepcopy(base)
        before = state(model)
        try:
            args = make_args()
        except Exception as error:  # noqa: BLE001 - a case that cannot be built is skipped
            outcomes["case not built"] += 1
            examples.setdefault("case not built", f"{case}: {error}")
            continue
        if task == "blocks" and method == "learn_one" and kind == "bad" \
                and case.startswith("y "):
            continue
        try:
            with np.errstate(all="ignore"):
                result = call(model, method, args, kind)
        except (ValueError, TypeError) as error:
            if kind == "either":
                kind = "bad"  # refused: then as any refusal
            if kind == "ok":
                outcome = "refused an accepted input"
            elif not str(error):
                outcome = "unclear error"
            elif state(model) != before:
                outcome = "non-atomic"
            else:
                outcome = "clear error"
        except Exception as error:  # noqa: BLE001 - what the audit looks for
            outcome = "unclear error"
            examples.setdefault(outcome, f"{case} / {method}: {type(error).__name__}: {error}")
        else:
            output = None if result is None or method == "set_params" else np.asarray(
                result, dtype=object)
            bad_output = False
            if output is not None and method in ("decision_function", "score"):
                bad_output = not np.isfinite(np.asarray(result, dtype=np.float64)).all()
            if output is not None and method in ("predict", "predict_one") and \
                    not getattr(model, "multilabel_", False):
                bad_output = not np.isin(np.asarray(result), model.classes_).all()
            if kind == "either" and case.startswith("a new class"):
                kind = "ok" if 99 in model.classes_.tolist() else "bad"
            if kind == "bad":
                outcome = "silent bad result"  # a bad input went through
            elif bad_output or not finite(model):
                outcome = "silent bad result"
            else:
                outcome = "accepted"
        outcomes[outcome] += 1
        if outcome not in ("clear error", "accepted"):
            examples.setdefault(outcome, f"{case} / {method}")
            if os.environ.get("AUDIT_VERBOSE"):
                print(f"{outcome}: {case} / {method}", file=sys.stderr)
    # a CSR that stores a column twice is the sum of its entries: the same model as canonical
    if task != "blocks":
        dense = fitted()
        duplicated = onlinear.make(name, **params)
        A = sp.csr_matrix(X)
        data, indices, indptr = [], [], [0]
        for i in range(A.shape[0]):
            for j, v in zip(A.indices[A.indptr[i]:A.indptr[i + 1]],
                            A.data[A.indptr[i]:A.indptr[i + 1]]):
                data += [v / 2, v / 2]
                indices += [j, j]
            indptr.append(len(data))
        D = sp.csr_matrix((np.array(data), np.array(indices), np.array(indptr)), shape=A.shape)
        canonical = onlinear.make(name, **params)
        canonical.fit(A[:10], y[:10])
        duplicated.fit(D[:10], y[:10])
        same = np.allclose(canonical.decision_function(X), duplicated.decision_function(X),
                           rtol=1e-12, atol=1e-12)
        outcomes["accepted" if same else "silent bad result"] += 1
        if not same:
            examples.setdefault("silent bad result", "duplicated CSR entries")
        del dense
    return {"outcomes": dict(outcomes), "examples": examples}


# ---------------------------------------------------------------------------------- driver
def _child(config_json):
    name, params = json.loads(config_json)
    print(json.dumps(_audit_one(name, params)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one configuration of each engine")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return _child(args.child)
    configs = configurations(args.quick)
    totals, examples, crashes = Counter(), {}, []
    start = time.perf_counter()
    for name, params in configs:
        label = name + "".join(f" {k}={v}" for k, v in params.items())
        process = subprocess.run([sys.executable, __file__, "--child",
                                  json.dumps([name, params])], capture_output=True, text=True,
                                 timeout=CHILD_TIMEOUT, env=dict(os.environ))
        if process.returncode != 0:
            crashes.append((label, process.returncode, process.stderr.strip()[-300:]))
            continue
        report = json.loads(process.stdout.strip().splitlines()[-1])
        totals.update(report["outcomes"])
        for outcome, example in report["examples"].items():
            examples.setdefault(outcome, f"{label}: {example}")
        bad = {k: v for k, v in report["outcomes"].items()
               if k not in ("clear error", "accepted")}
        print(f"{label:<40} {sum(report['outcomes'].values()):>4} cases"
              + (f"   {bad}" if bad else ""), flush=True)
    cases = sum(totals.values())
    print()
    print(f"configurations: {len(configs)}   cases tried: {cases} "
          f"({cases / max(len(configs), 1):.0f} per configuration)   "
          f"wall time: {time.perf_counter() - start:.0f} s")
    for outcome in ("clear error", "accepted", "silent bad result", "non-atomic",
                    "unclear error", "refused an accepted input", "case not built"):
        print(f"  {outcome:<28}{totals.get(outcome, 0):>7}")
    print(f"  {'crash':<28}{len(crashes):>7}")
    for label, code, tail in crashes:
        print(f"    {label}: exit {code}: {tail}")
    for outcome, example in examples.items():
        print(f"  e.g. {outcome}: {example}")
    failed = crashes or any(totals.get(k) for k in (
        "silent bad result", "non-atomic", "unclear error", "refused an accepted input"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
