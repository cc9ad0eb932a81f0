#!/usr/bin/env python
"""The hostile-input audit of issue [9], as one command: every learner configuration against
every kind of bad (or merely unusual) input, through every public method, in worker
interpreters that report each configuration as soon as it is audited, so that a crash is seen as
one and named by its configuration (the worker then restarts with the next).  ``.ci/run`` runs
it after the test suite.

    python tools/audit.py            # every configuration (under a minute on 2 cores)
    python tools/audit.py --quick    # six configurations, one of each engine, and river's pa
    python tools/audit.py --jobs 1   # one worker at a time (default: one per CPU, up to 4)

For each configuration (every registered name; the simultaneous schemes' ordinal and block
tasks; the ellipsoid methods' metric layouts; CW's k constraints; averaging learners), fitted on
a small data set by ``fit``, ``partial_fit`` and ``learn_one``, each case calls one method with
one bad or unusual input and classifies what happened:

* **clear error** — a ``ValueError``/``TypeError`` (scikit-learn's ``NotFittedError`` and
  ``InvalidParameterError`` are ones) with a message, the model bitwise unchanged (every
  attribute's values: :func:`model_state`);
* **accepted** — an input the library takes by design (float32, integer or boolean X, a CSR row
  storing a column twice, rows at the edges of the accepted norm range, a refit on another
  width or other labels, a new class named by ``classes=`` for a learner that can grow, rows
  whose norms differ by 1e155): the
  call must give finite results, and a duplicated-CSR pass the very model of its canonical
  form;
* **non-atomic** — it raised but the model changed;
* **unclear error** — another exception type (a bare ``ZeroDivisionError``,
  ``FloatingPointError``, ``IndexError`` …) or an empty message;
* **silent bad result** — no error, but NaN/inf in the model or the output, a label outside
  ``classes_``, or an accepted input that trained another model;
* **crash** — the configuration's interpreter died (a segmentation fault in compiled code) or
  stayed silent for ``CHILD_TIMEOUT`` seconds.

Each configuration's fitted model is then saved and the file tampered with, as anyone editing
a file can (one entry of one array set to ±1e300, 1e-320, -1, 0 or 7 with its header entry and
digest recomputed; counters made a list; a member whose zip directory declares 3.9 GB): each
file must be refused with a ``ModelFileError`` (a clear error) or load a model that learns on
finitely and saves a file that loads again (accepted; anything else is a silent bad result or an
unclear error).  Its pickles are tampered with alike (an array cut to one row, emptied, or its
first entry made huge) in a part of their own (``part=pickles``), so that a crash of the
compiled core reading or writing out of bounds is named, and costs only that part's report.

The river adapter (``onlinear.river_adapter.RiverClassifier``, when river is installed) is
audited alike on dict examples: NaN/inf under known and new names, examples that are not dicts,
a multilabel target, new labels and names, string, None, integer and boolean values.

The closing figures of issues [9] and [16] are this command's summary.  The suite runs the
same kinds of cases (tests/test_bad_input.py, test_extreme_scales.py, test_hostile_files.py,
test_atomic_and_threads.py) with hypothesis fuzzing; this audit is their wide sweep.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter

CHILD_TIMEOUT = 600
PICKLES = "pickles"  # the part of a configuration that audits tampered pickles of its model
RIVER = "river"  # the configurations of onlinear.river_adapter.RiverClassifier


# ------------------------------------------------------------------------ the configurations
def configurations(quick=False):
    import onlinear

    configs = [(name, {}) for name in onlinear.available(kernel=None)]
    for scheme in ("simperc", "conproj", "simproj", "simopt", "maxpa", "optimal", "sopopo"):
        configs += [(scheme, {"task": "ordinal"}), (scheme, {"task": "blocks"})]
    for name in ("iellip", "cellip"):
        configs += [(name, {"matrix": m}) for m in ("diagonal", "per-class", "stacked")]
    configs += [("cw", {"form": "variance", "constraints": "all", "matrix": m})
                for m in ("diagonal", "per-class")]
    configs += [("pa", {"average": True}), ("mc-romma", {"average": True}),
                ("simproj", {"update": "multiplicative"})]
    if quick:
        keep = {"pa", "iellip", "kernel-pa", "simproj", "mcp", "multiplicative"}
        configs = [c for c in configs if c[0] in keep and not c[1]]
    # tampered pickles apart (a crash in the compiled core then costs only their report)
    configs += [(name, {**params, "part": PICKLES}) for name, params in configs
                if name != RIVER]
    if importlib.util.find_spec("river") is not None:  # (an optional extra)
        learners = [{"model": "pa"}, {"model": "binary-mira"},
                    {"model": "kernel-pa", "gamma": 0.5},  # (learn_one refuses gamma="scale")
                    {"model": "iellip", "classes": True}]  # (cannot grow classes or features)
        configs += [(RIVER, {"model": "pa"})] if quick else [
            (RIVER, {**learner, **hashing}) for learner in learners
            for hashing in ({}, {"n_features": 64})]
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
    add("rows of norm ratio 1e155", rows, lambda: (X * np.where(
        np.arange(X.shape[0]) % 2 == 0, 1e5, 1e-150)[:, None], y), "ok")
    add("refit on another width", ("fit",), lambda: (wide, y), "ok")
    add("refit on other labels", ("fit",), lambda: (X, np.where(y == classes[0], 99, y)), "ok")
    add("score with a label never seen", ("score",),
        lambda: (X, np.where(y == classes[0], 99, y)), "ok")
    return cases


def model_state(model):
    """Every attribute of ``model`` but its lock and its per-example context (compiled closures
    over the model's own arrays), bitwise, each array by its dtype, shape and values in C order.

    Not by its memory layout: the weights are kept in the layout of the rows learned last
    (feature-major after a CSR row, class-major after a dense one), and a call may switch it
    before it refuses a row without changing a value, a prediction or any later round
    (tests/test_atomic_and_threads.py); a pickle's bytes would tell the layouts apart."""
    import io
    import pickle

    import numpy as np

    class Canonical(pickle.Pickler):
        def reducer_override(self, obj):
            if isinstance(obj, np.ndarray) and obj.dtype.kind != "O":
                return np.ndarray, (obj.shape, obj.dtype.str, obj.tobytes())
            return NotImplemented

    buffer = io.BytesIO()
    # (_dense_index: a cache a dense row makes on first use, not the model's state)
    Canonical(buffer).dump({k: v for k, v in vars(model).items()
                            if k not in ("_lock", "_fast", "_dense_index")})
    return buffer.getvalue()


def _audit_one(name, params):
    import copy

    import numpy as np
    import scipy.sparse as sp

    import onlinear

    params = dict(params)
    part = params.pop("part", None)
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
    if part == PICKLES:
        _audit_pickles(base, X, y, outcomes, examples)
        return {"outcomes": dict(outcomes), "examples": examples}
    for case, method, make_args, kind in _cases(np, sp, X, y, classes, n_features):
        model = copy.deepcopy(base)
        before = model_state(model)
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
            elif model_state(model) != before:
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
    _audit_files(base, X, y, outcomes, examples)
    return {"outcomes": dict(outcomes), "examples": examples}


#: values written into one entry of a saved model's arrays (the header entry and digest then
#: recomputed, as anyone editing a file can)
TAMPERED_VALUES = (1e300, -1e300, 1e-320, -1.0, 0.0, 7.0)


def _tampered_files(data):
    """``(case, bytes)``: the model file ``data`` with one entry of one array changed (every
    array, every value of :data:`TAMPERED_VALUES`, the first and last entry), its counters
    made a list, its ``n_updates_`` above ``n_seen_``, a member declaring 3.9 GB."""
    import hashlib
    import io
    import json
    import zipfile

    import numpy as np

    from onlinear.persistence import HEADER

    source = zipfile.ZipFile(io.BytesIO(data))
    header = json.loads(source.read(HEADER))
    members = {n: source.read(n) for n in source.namelist() if n != HEADER}

    def pack(header, members):
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as archive:
            archive.writestr(HEADER, json.dumps(header))
            for name, content in members.items():
                archive.writestr(name, content)
        return out.getvalue()

    for member, content in members.items():
        name = member[len("arrays/"):-len(".npy")]
        array = np.lib.format.read_array(io.BytesIO(content))
        if array.size == 0 or array.dtype.kind not in "fiu":
            continue
        for at in sorted({0, array.size - 1}):
            for value in TAMPERED_VALUES if array.dtype.kind == "f" else (-1, 2**40):
                changed = array.copy()
                changed.flat[at] = value
                buffer = io.BytesIO()
                np.lib.format.write_array(buffer, changed)
                entry = {"dtype": changed.dtype.str, "shape": list(changed.shape),
                         "sha256": hashlib.sha256(changed.tobytes()).hexdigest()}
                yield (f"file: {name}[{at}] = {value}",
                       pack({**header, "arrays": {**header["arrays"], name: entry}},
                            {**members, member: buffer.getvalue()}))
    if "counters" in header:
        yield "file: counters a list", pack({**header, "counters": [1, 2, 3]}, members)
        if "n_updates_" in header["counters"]:
            counters = {**header["counters"], "n_updates_": header["counters"]["n_seen_"] + 1}
            yield "file: n_updates_ > n_seen_ (header only)", pack(
                {**header, "counters": counters}, members)
    lie = bytearray(pack(header, members))  # a central directory entry claiming 3.9 GB
    at = lie.find(b"PK\x01\x02", lie.find(b"arrays/"))
    if at >= 0:
        lie[at + 20:at + 28] = (3_900_000_000).to_bytes(4, "little") * 2
        yield "file: a member declaring 3.9 GB", bytes(lie)


def _audit_files(model, X, y, outcomes, examples):
    """Hostile model files (issue [23]): each tampered file (:func:`_tampered_files`) must be
    refused with a ``ModelFileError`` or load a model that learns on finitely and saves a file
    that loads again."""
    import os
    import tempfile

    import numpy as np

    import onlinear
    from onlinear.persistence import ModelFileError

    learns_finitely = _learns_finitely(model, X, y)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.onlinear")
        try:
            onlinear.save(model, path)
        except TypeError:  # (a model the safe format cannot hold: nothing to tamper)
            return
        with open(path, "rb") as handle:
            data = handle.read()
        for case, tampered in _tampered_files(data):
            with open(path, "wb") as handle:
                handle.write(tampered)
            try:
                with np.errstate(all="ignore"):
                    loaded = onlinear.load(path)
                    good = learns_finitely(loaded)
                    onlinear.save(loaded, path)
                    onlinear.load(path)
                outcome = "accepted" if good else "silent bad result"
            except ModelFileError as error:
                outcome = "clear error" if str(error) else "unclear error"
            except Exception as error:  # noqa: BLE001 - what the audit looks for
                outcome = "unclear error"
                examples.setdefault(outcome, f"{case}: {type(error).__name__}: {error}")
            outcomes[outcome] += 1
            if outcome not in ("clear error", "accepted"):
                examples.setdefault(outcome, case)
                if os.environ.get("AUDIT_VERBOSE"):
                    print(f"{outcome}: {case}", file=sys.stderr)


def _learns_finitely(model, X, y):
    """A check of a model loaded or unpickled from a tampered ``model``: it learns ``(X, y)``
    (labels named by its own classes: a file may rename one) and every array and score stays
    finite."""
    import numpy as np

    position = {label: i for i, label in enumerate(model.classes_.tolist())}

    def learns_finitely(loaded):
        loaded.partial_fit(X, loaded.classes_[[position[label] for label in y.tolist()]])
        values = [v for v in vars(loaded).values()
                  if isinstance(v, np.ndarray) and v.dtype.kind == "f"]
        scores = np.asarray(loaded.decision_function(X), dtype=np.float64)
        return all(np.isfinite(v).all() for v in values) and np.isfinite(scores).all()
    return learns_finitely


def _audit_pickles(model, X, y, outcomes, examples):
    """Tampered pickles of ``model`` (each array attribute cut to one row, emptied, or its first
    entry huge): refused with a ``ValueError``, or harmless (learns on finitely).  A crash
    (the compiled core reading or writing out of bounds) is the worker's death."""
    import os
    import pickle

    import numpy as np

    learns_finitely = _learns_finitely(model, X, y)
    state = model.__getstate__()
    for key, array in state.items():
        if not isinstance(array, np.ndarray) or array.dtype.kind not in "fi":
            continue
        huge = array.copy()
        huge.flat[:1] = 1e300 if array.dtype.kind == "f" else np.iinfo(array.dtype).max // 2
        for case, changed in (("one row", array[:1]), ("empty", array[:0]),
                              ("huge first entry", huge)):
            clone = object.__new__(type(model))
            vars(clone).update({**state, key: changed})
            payload = pickle.dumps(clone)
            try:
                with np.errstate(all="ignore"):
                    good = learns_finitely(pickle.loads(payload))
                outcome = "accepted" if good else "silent bad result"
            except ValueError as error:
                outcome = "clear error" if str(error) else "unclear error"
            except Exception as error:  # noqa: BLE001 - what the audit looks for
                outcome = "unclear error"
                examples.setdefault(outcome, f"pickle {key} {case}: {type(error).__name__}: "
                                             f"{error}")
            outcomes[outcome] += 1
            if outcome not in ("clear error", "accepted"):
                examples.setdefault(outcome, f"pickle: {key} {case}")
                if os.environ.get("AUDIT_VERBOSE"):
                    print(f"{outcome}: pickle: {key} {case}", file=sys.stderr)


# ----------------------------------------------------------------------------- river adapter
def _river_cases(np, x, y, labels):
    """``(case, method, x, y, kind)`` for a RiverClassifier that has learned examples like
    ``x`` (a dict) with the labels ``labels``."""
    nan, inf = float("nan"), float("inf")
    known = next(iter(x))
    cases = []

    def add(case, methods, example, label=y, kind="bad"):
        cases.extend((case, method, example, label, kind) for method in methods)

    every = ("learn_one", "predict_one", "predict_proba_one")
    add("NaN under a known name", every, {**x, known: nan})
    add("inf under a known name", every, {**x, known: inf})
    add("NaN under a new name", every, {**x, "brand new": nan})
    add("-inf under a new name", every, {**x, "brand new": -inf})
    add("norm 1e300 under new names", ("learn_one",), {**x, "new a": 1e300, "new b": 1e300})
    add("complex value", every, {**x, known: 1j})
    add("a list", every, list(x.values()))
    add("an ndarray", every, np.array(list(x.values())))
    add("a tuple", every, tuple(x.values()))
    add("None", every, None)
    add("a string", every, "a=1")
    add("a dict label (multilabel)", ("learn_one",), x, {labels[0]: True})
    # a new label, or a new name while learning: taken by a learner that can grow classes or
    # features, refused clearly by the others
    add("a new label", ("learn_one",), x, "a label never seen", "either")
    reads = ("predict_one", "predict_proba_one")
    for case, example in (("a new name", {**x, "brand new": 1.0}),
                          ("a string value (one-hot: a new name)", {**x, "colour": "red"}),
                          ("integer and boolean values", {**x, known: 3, "flag": True})):
        add(case, ("learn_one",), example, kind="either")
        add(case, reads, example, kind="ok")
    add("None value (missing)", every, {**x, known: None}, kind="ok")
    add("an empty dict", every, {}, kind="ok")
    return cases


def _audit_river(params):
    """The river adapter's cases (:func:`_river_cases`): a clear error leaves the adapter as it
    was (its model, vocabulary, labels and kept examples; its cache of hashed names is a memo),
    an accepted example gives finite results."""
    import copy

    import numpy as np

    from onlinear.river_adapter import RiverClassifier

    import onlinear

    rng = np.random.default_rng(0)
    name = params["model"]
    labels = ["cat", "dog"] if name == "binary-mira" else ["cat", "dog", "owl"]
    stream = [({f"f{j}": float(v) for j, v in enumerate(rng.normal(size=5))},
               labels[rng.integers(len(labels))]) for _ in range(30)]
    hyperparameters = {k: v for k, v in params.items()
                       if k not in ("model", "n_features", "classes")}
    base = RiverClassifier(onlinear.make(name, **hyperparameters) if hyperparameters else name,
                           n_features=params.get("n_features"),
                           classes=labels if params.get("classes") else None)
    for x, y in stream:
        base.learn_one(x, y)

    def state(adapter):
        class View:  # the adapter's attributes but its caches
            pass

        view = View()
        view.__dict__.update({k: v for k, v in vars(adapter).items()
                              if k not in ("_hashed", "_in_order")})
        return model_state(view)

    def finite(adapter):
        return all(not isinstance(v, np.ndarray) or v.dtype.kind != "f" or np.isfinite(v).all()
                   for v in vars(adapter.estimator_).values())

    outcomes, examples = Counter(), {}
    for case, method, x, y, kind in _river_cases(np, stream[0][0], stream[0][1], labels):
        adapter = copy.deepcopy(base)
        before = state(adapter)
        try:
            with np.errstate(all="ignore"):
                result = (adapter.learn_one(x, y) if method == "learn_one"
                          else getattr(adapter, method)(x))
        except (ValueError, TypeError) as error:
            if kind == "ok":
                outcome = "refused an accepted input"
            elif not str(error):
                outcome = "unclear error"
            elif state(adapter) != before:
                outcome = "non-atomic"
            else:
                outcome = "clear error"
        except Exception as error:  # noqa: BLE001 - what the audit looks for
            outcome = "unclear error"
            examples.setdefault(outcome, f"{case} / {method}: {type(error).__name__}: {error}")
        else:
            if method == "predict_proba_one":
                bad_output = not np.isfinite(list(result.values())).all()
            elif method == "predict_one":
                bad_output = result not in adapter._labels
            else:
                bad_output = False
            if kind == "either":
                kind = "ok"  # a learner that can grow classes takes it
            outcome = ("silent bad result" if kind == "bad" or bad_output or not finite(adapter)
                       else "accepted")
        outcomes[outcome] += 1
        if outcome not in ("clear error", "accepted"):
            examples.setdefault(outcome, f"{case} / {method}")
            if os.environ.get("AUDIT_VERBOSE"):
                print(f"{outcome}: {case} / {method}", file=sys.stderr)
    return {"outcomes": dict(outcomes), "examples": examples}


# ---------------------------------------------------------------------------------- driver
_REPORT = "AUDIT-REPORT "  # the prefix of a worker's report lines (anything else is noise)


def _audit(name, params):
    return _audit_river(params) if name == RIVER else _audit_one(name, params)


def _child(config_json):
    name, params = json.loads(config_json)
    print(json.dumps(_audit(name, params)))


def _worker():
    """Audit the configurations listed (JSON) on standard input, in order, one report line
    each, flushed as soon as it is made: the driver tells which configuration a crash is in."""
    for name, params in json.load(sys.stdin):
        print(_REPORT + json.dumps(_audit(name, params)), flush=True)


def _label(name, params):
    return name + "".join(f" {k}={v}" for k, v in params.items())


def _run_worker(configs, timeout, done):
    """Audit ``configs`` in as few interpreters as a crash allows: one worker audits them in
    order; if it dies (a crash in compiled code) or stays silent for ``timeout`` seconds, the
    configuration it was on is a crash and a new worker goes on with the next.  ``done(label,
    report or None, crash or None)`` is called for each configuration."""
    import queue
    import threading

    pending = list(configs)
    while pending:
        process = subprocess.Popen([sys.executable, __file__, "--worker"], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   env=dict(os.environ))
        lines, errors = queue.Queue(), []

        def read(stream=process.stdout, lines=lines):
            for line in stream:
                lines.put(line)
            lines.put(None)  # the worker has ended

        threading.Thread(target=read, daemon=True).start()
        threading.Thread(target=errors.extend, args=(process.stderr,), daemon=True).start()
        process.stdin.write(json.dumps(pending))
        process.stdin.close()
        while pending:
            try:
                line = lines.get(timeout=timeout)
            except queue.Empty:
                process.kill()
                line = None
            if line is None:  # the worker died on pending[0]
                code = process.wait()
                tail = "".join(errors).strip()[-300:] or f"no report in {timeout} s"
                done(_label(*pending.pop(0)), None, (code, tail))
                break
            if line.startswith(_REPORT):
                done(_label(*pending.pop(0)), json.loads(line[len(_REPORT):]), None)
        else:
            process.wait()


def main(argv=None):
    from concurrent.futures import ThreadPoolExecutor

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one configuration of each engine")
    ap.add_argument("--jobs", type=int, default=min(len(os.sched_getaffinity(0)), 4)
                    if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1),
                    help="worker interpreters run at once (default: the CPUs, at most 4)")
    ap.add_argument("--child", help=argparse.SUPPRESS)  # one configuration, its report printed
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return _child(args.child)
    if args.worker:
        return _worker()
    configs = configurations(args.quick)
    totals, examples, crashes = Counter(), {}, []
    start = time.perf_counter()
    lock = threading.Lock()

    def done(label, report, crash):
        with lock:
            if crash is not None:
                crashes.append((label, *crash))
                print(f"{label:<40} crash (exit {crash[0]})", flush=True)
                return
            totals.update(report["outcomes"])
            for outcome, example in report["examples"].items():
                examples.setdefault(outcome, f"{label}: {example}")
            bad = {k: v for k, v in report["outcomes"].items()
                   if k not in ("clear error", "accepted")}
            print(f"{label:<40} {sum(report['outcomes'].values()):>4} cases"
                  + (f"   {bad}" if bad else ""), flush=True)

    jobs = max(1, min(args.jobs, len(configs)))
    with ThreadPoolExecutor(jobs) as pool:  # configurations dealt out in turn
        for future in [pool.submit(_run_worker, configs[i::jobs], CHILD_TIMEOUT, done)
                       for i in range(jobs)]:
            future.result()
    cases = sum(totals.values())
    print()
    print(f"configurations: {len(configs)}   cases tried: {cases} "
          f"({cases / max(len(configs), 1):.0f} per configuration)   "
          f"wall time: {time.perf_counter() - start:.0f} s   worker interpreters: {jobs}")
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
