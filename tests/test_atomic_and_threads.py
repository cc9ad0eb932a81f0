"""Nothing silently wrong: duplicate CSR entries, failed calls, threads and loose acceptance.

* **Duplicates.**  A CSR matrix that stores a column twice in a row means the sum of the entries
  (scipy's reading).  Every estimator class (one registered name each, and the multilabel,
  ordinal and blocks estimators) learns and predicts from such a matrix — ``fit``,
  ``partial_fit``, ``learn_one`` with a one-row CSR, ``predict``/``decision_function``,
  ``predict_one`` — bitwise as from its canonical form, and the user's matrix is left as it was.
* **Atomicity.**  A call that raises leaves the model exactly as it was (every attribute and
  private array compared bitwise, an unfitted model stays unfitted), and the model then learns
  like an untouched ``copy.deepcopy``: a polynomial kernel that overflows, a callable kernel that
  returns NaN on the 21st row, CELLIP's ``on_infeasible="raise"`` with one ellipsoid per class,
  diagonal or stacked — on every learning path, dense and CSR.
* **Threads.**  Two threads × ``partial_fit`` on one kernel learner count every row once and
  give the model of the order in which the calls took the lock; predictions made meanwhile never
  fail; racing first calls lose no rows; every public method waits for the estimator's lock;
  the lock survives pickling, ``copy.deepcopy`` and ``clone``.  (What is asserted does not depend
  on the interleaving; ``sys.setswitchinterval`` makes interleavings frequent, so that the tests
  fail without the lock.)
* **Loose acceptance.**  ``learn_one``/``predict_one`` refuse complex input as ``fit`` does;
  multilabel ``learn_one`` refuses an indicator row other than 0/1.
"""
import copy
import pickle
import sys
import threading

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

import onlinear
from onlinear import CELLIP, KernelPassiveAggressive, KernelPerceptron, PassiveAggressive
from model_state import model_vars

N_FEATURES = 4
LABELS = {2: np.array([3, 7]), 3: np.array([3, 7, 11])}


# ----------------------------------------------------------------------------- model state
def _bits(value):
    """A bitwise image of an attribute's value (arrays by their bytes)."""
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, dict):
        return ("dict", tuple((repr(k), _bits(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_bits(v) for v in value))
    return (type(value).__name__, repr(value))


def _state(model):
    """Every attribute of the model (fitted and private), bitwise, but its lock and its
    per-example context (``_fast``: compiled entry points over the model's own arrays, kept
    once the fast path served a call)."""
    return {key: _bits(value) for key, value in model_vars(model).items()
            if key not in ("_lock", "_fast")}


def _assert_same_state(before, model):
    after = _state(model)
    assert sorted(after) == sorted(before)
    changed = [key for key in before if before[key] != after[key]]
    assert not changed, f"changed by a failed call: {changed}"


# ------------------------------------------------------------------------------- the models
def _one_name_per_class():
    names = {}
    for name in onlinear.available(kernel=None):
        names.setdefault(onlinear.describe(name).estimator, name)
    return list(names.values())


CASES = ([(name, None) for name in _one_name_per_class()]
         + [("simproj", "multilabel"), ("simproj", "ordinal"), ("simproj", "blocks")])


def _task_data(name, task, n=30, seed=0):
    """``(X, y, classes)`` for a registered name and task; y as the task wants it."""
    rng = np.random.RandomState(seed)
    X = np.round(rng.randn(n, N_FEATURES), 3)
    X[rng.rand(n, N_FEATURES) < 0.3] = 0.0
    if task == "multilabel":
        return X, (rng.rand(n, 3) < 0.5).astype(np.int64), np.arange(3)
    if task == "blocks":
        return X, LABELS[2][rng.randint(2, size=n)], LABELS[2]
    k = 3 if task == "ordinal" or onlinear.describe(name).handles_multiclass else 2
    return X, LABELS[k][rng.randint(k, size=n)], LABELS[k]


def _duplicated(X):
    """CSR of the dense ``X`` storing every non-zero twice, as two halves (exact in binary), in
    reversed column order: duplicates and unsorted indices, not canonical."""
    data, indices, indptr = [], [], [0]
    for row in np.asarray(X):
        for j in np.flatnonzero(row)[::-1]:
            data += [row[j] / 2, row[j] / 2]
            indices += [j, j]
        indptr.append(len(data))
    matrix = sp.csr_matrix((np.array(data, dtype=np.float64), np.array(indices, dtype=np.int32),
                            np.array(indptr, dtype=np.int32)), shape=np.shape(X))
    assert not matrix.has_canonical_format
    return matrix


def _csr_image(matrix):
    return matrix.data.tobytes(), matrix.indices.tobytes(), matrix.indptr.tobytes()


# ======================================================================= 1. duplicate entries
@pytest.mark.parametrize("name, task", CASES, ids=[f"{n}-{t or 'default'}" for n, t in CASES])
def test_duplicate_csr_entries_are_summed_on_every_path(name, task):
    X, y, classes = _task_data(name, task)
    canonical, duplicated = sp.csr_matrix(X), _duplicated(X)
    image = _csr_image(duplicated)

    def trained(matrix, rows):
        model = onlinear.make(name, task=task)
        model.fit(matrix[:10], y[:10])
        model.partial_fit(matrix[10:20], y[10:20])
        for i in range(20, 30):
            model.learn_one(rows[i], y[i])
        return model

    # a 1-row CSR with duplicates, built row by row (slicing may or may not keep them)
    canonical_rows = [sp.csr_matrix(X[i:i + 1]) for i in range(30)]
    duplicated_rows = [_duplicated(X[i:i + 1]) for i in range(30)]
    reference = trained(canonical, canonical_rows)
    model = trained(duplicated, duplicated_rows)
    assert _state(model) == _state(reference)
    np.testing.assert_array_equal(model.decision_function(duplicated),
                                  reference.decision_function(canonical))
    np.testing.assert_array_equal(model.predict(duplicated), reference.predict(canonical))
    for i in (0, 7):
        assert np.array_equal(model.predict_one(duplicated_rows[i]),
                              reference.predict_one(canonical_rows[i]))
    assert _csr_image(duplicated) == image and not duplicated.has_canonical_format


def test_duplicate_entries_example_of_the_issue():
    """The issue's example: [[1, 0], [0, 1]] stored as 0.5 + 0.5 — PA's coef_ is [[-1, 1]]."""
    X = sp.csr_matrix((np.full(4, 0.5), np.array([0, 0, 1, 1]), np.array([0, 2, 4])),
                      shape=(2, 2))
    np.testing.assert_array_equal(PassiveAggressive().fit(X, [0, 1]).coef_, [[-1.0, 1.0]])
    model = KernelPassiveAggressive(kernel="linear")
    model.learn_one(X[0], 0, classes=[0, 1])
    model.learn_one(X[1], 1)
    np.testing.assert_array_equal(model.support_vectors_, np.eye(2))


def test_harness_sums_duplicates_without_touching_the_input():
    from onlinear.harness import evaluate

    X, y, _ = _task_data("pa", None, n=40)
    duplicated = _duplicated(X)
    image = _csr_image(duplicated)
    run_dup = evaluate("pa", duplicated, y, permutations=1).runs[0]
    run_ref = evaluate("pa", sp.csr_matrix(X), y, permutations=1).runs[0]
    np.testing.assert_array_equal(run_dup.mistakes, run_ref.mistakes)
    assert _csr_image(duplicated) == image


# ================================================================================ 3. atomicity
def _outcome(call):
    try:
        return ("returned", _bits(np.asarray(call())))
    except ValueError as error:
        return ("raised", str(error))


def _check_failed_call(model, call, good_X, good_y):
    """``call(model)`` raises ValueError, leaves the model bitwise as it was, and the model then
    learns like a deep copy taken before the call (example by example, the same predictions or
    the same errors, and the same state after a batch)."""
    twin = copy.deepcopy(model)
    before = _state(model)
    with pytest.raises(ValueError):
        call(model)
    _assert_same_state(before, model)
    classes = np.unique(good_y) if not hasattr(twin, "classes_") else None
    for i in range(good_X.shape[0]):
        assert (_outcome(lambda: model.learn_one(good_X[i], good_y[i], classes=classes))
                == _outcome(lambda: twin.learn_one(good_X[i], good_y[i], classes=classes)))
    assert (_outcome(lambda: model.partial_fit(good_X, good_y, classes=classes) and 0)
            == _outcome(lambda: twin.partial_fit(good_X, good_y, classes=classes) and 0))
    assert _state(model) == _state(twin)


def _learning_calls(bad_X, bad_y, classes):
    """Every learning path, on a batch whose last row fails (and on that row alone)."""
    return {
        "fit": lambda m: m.fit(bad_X, bad_y),
        "partial_fit": lambda m: m.partial_fit(bad_X, bad_y, classes=classes),
        "learn_one": lambda m: m.learn_one(bad_X[-1], bad_y[-1], classes=classes),
    }


def _kernel_data(n=24, seed=3):
    rng = np.random.RandomState(seed)
    X = np.round(rng.rand(n, N_FEATURES), 3)
    return X, LABELS[3][rng.randint(3, size=n)]


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_polynomial_overflow_leaves_the_model_as_it_was(sparse):
    X, y = _kernel_data()
    bad_X = np.vstack([X[:5], np.full(N_FEATURES, 1e120)])  # K(x, x) = inf, x finite
    bad_y = y[:6]
    convert = sp.csr_matrix if sparse else np.asarray
    calls = _learning_calls(convert(bad_X), bad_y, LABELS[3])
    for started in (False, True):
        for path, call in calls.items():
            model = KernelPassiveAggressive(kernel="poly", degree=3, gamma=1.0)
            if started:
                model.fit(convert(X[:12]), y[:12])
                assert model.n_support_patterns_ >= 2
            _check_failed_call(model, call, convert(X[12:]), y[12:])


def _nan_kernel(A, B):
    """A linear kernel that returns NaN for every pair with a row whose first feature is 7."""
    A = A.toarray() if sp.issparse(A) else np.asarray(A)
    B = B.toarray() if sp.issparse(B) else np.asarray(B)
    gram = A @ B.T
    gram[A[:, 0] == 7.0, :] = np.nan
    gram[:, B[:, 0] == 7.0] = np.nan
    return gram


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_callable_kernel_returning_nan_after_20_rows_leaves_the_model_as_it_was(sparse):
    X, y = _kernel_data(n=60)
    bad_X = np.vstack([X[:20], np.r_[7.0, np.zeros(N_FEATURES - 1)]])
    bad_y = y[:21]
    convert = sp.csr_matrix if sparse else np.asarray
    calls = _learning_calls(convert(bad_X), bad_y, LABELS[3])
    for started in ("no", "yes", "full"):
        for path, call in calls.items():
            model = KernelPerceptron(kernel=_nan_kernel)
            if started == "yes":
                model.fit(convert(X[20:30]), y[20:30])
                assert model.n_support_patterns_ >= 2
            elif started == "full":  # the next pattern would grow the arrays
                model.partial_fit(convert(X[:1]), y[:1], classes=LABELS[3])
                for i in range(1, 40):
                    if model.n_support_patterns_ == model.model_.support.shape[1]:
                        break
                    model.learn_one(X[i], y[i])
                assert model.n_support_patterns_ == model.model_.support.shape[1]
            _check_failed_call(model, call, convert(X[30:]), y[30:])


def _unit_rows(n, seed):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, N_FEATURES)
    return X / np.linalg.norm(X, axis=1, keepdims=True)


@pytest.mark.parametrize("matrix, n_classes, gamma",
                         [("per-class", 5, 0.1), ("diagonal", 5, 0.1), ("stacked", 3, 0.5)])
def test_cellip_raise_leaves_the_model_as_it_was(matrix, n_classes, gamma):
    """Random labels: the cuts soon miss the ellipsoid — with one ellipsoid per class, often
    for an output after others have stepped.  Every failing call — one row, or a batch failing
    part way — leaves every output as it was."""
    X = _unit_rows(160, seed=5)
    y = np.random.RandomState(6).randint(n_classes, size=160)
    model = CELLIP(gamma=gamma, on_infeasible="raise", matrix=matrix)
    model.partial_fit(X[:1], y[:1], classes=np.arange(n_classes))
    failures = 0
    for i in range(1, 120):
        if i == 20:
            early = copy.deepcopy(model)
        before = _state(model)
        try:
            model.learn_one(X[i], y[i])
        except ValueError:
            failures += 1
            _assert_same_state(before, model)
    assert failures >= 10
    # a batch whose last row fails after the rows before it have updated the model
    probe, batch = copy.deepcopy(early), []
    for i in range(20, 160):
        try:
            probe.learn_one(X[i], y[i])
            batch.append(i)
        except ValueError:
            if probe.n_updates_ > early.n_updates_:
                batch.append(i)
                break
    assert len(batch) >= 2 and probe.n_updates_ > early.n_updates_
    for convert in (np.asarray, sp.csr_matrix):
        for call in (lambda m: m.partial_fit(convert(X[batch]), y[batch]),
                     lambda m: m.fit(convert(X[:120]), y[:120])):  # fails where learn_one did
            _check_failed_call(early, call, X[120:], y[120:])


# =================================================================================== 6. threads
@pytest.fixture
def frequent_switches():
    """Switch threads every microsecond, so that unguarded code interleaves."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(interval)


_CALL_ORDER = {}


class _RecordingKernelPerceptron(KernelPerceptron):
    """Records, while holding the model's lock, the batches in the order they are learned."""

    def partial_fit(self, X, y, classes=None):
        _CALL_ORDER.setdefault(id(self), []).append((X, y))
        return super().partial_fit(X, y, classes=classes)


def _run_threads(targets):
    errors = []

    def guarded(target):
        try:
            target()
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=guarded, args=(t,)) for t in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    return errors


def test_two_threads_learning_one_kernel_model_count_every_row_once(frequent_switches):
    rng = np.random.RandomState(0)
    X = rng.rand(400, N_FEATURES)
    y = LABELS[3][rng.randint(3, size=400)]
    model = _RecordingKernelPerceptron(kernel="rbf", gamma=2.0)
    model.partial_fit(X[:10], y[:10], classes=LABELS[3])
    chunks = [(X[s:s + 10], y[s:s + 10]) for s in range(10, 400, 10)]
    done, predicted = threading.Event(), threading.Event()
    predictions = []

    def learner(part):
        for chunk_X, chunk_y in part:
            model.partial_fit(chunk_X, chunk_y)

    def predictor():
        while not done.is_set():
            predictions.append(model.predict(X[:50]))
            predictions.append(np.array([model.predict_one(X[1])]))
            assert model.decision_function(X[:3]).shape == (3, 3)
            predicted.set()

    def learners():
        # (the learners start once the predictor has predicted: a fast pass could otherwise
        # end before the predictor's thread first runs, leaving nothing to check)
        try:
            assert predicted.wait(timeout=30)
            errors = _run_threads([lambda: learner(chunks[0::2]),
                                   lambda: learner(chunks[1::2])])
        finally:
            done.set()
        if errors:
            raise errors[0]

    errors = _run_threads([learners, predictor])
    assert not errors, errors
    assert model.n_seen_ == 400
    assert model.n_support_patterns_ == model.n_updates_ > 0  # one new pattern per update
    assert predictions and all(np.isin(p, LABELS[3]).all() for p in predictions)
    # exactly the model of the calls in the order they took the lock
    order = _CALL_ORDER.pop(id(model))
    assert len(order) == 40
    replay = _RecordingKernelPerceptron(kernel="rbf", gamma=2.0)
    replay.partial_fit(*order[0], classes=LABELS[3])
    for chunk in order[1:]:
        replay.partial_fit(*chunk)
    _CALL_ORDER.pop(id(replay))
    assert _state(model) == _state(replay)


@pytest.mark.parametrize("make", [lambda: PassiveAggressive(),
                                  lambda: KernelPerceptron(kernel="rbf", gamma=1.0),
                                  lambda: onlinear.make("simproj", task="ordinal")],
                         ids=["pa", "kernel-perceptron", "ordinal"])
def test_racing_first_calls_lose_no_rows(make, frequent_switches):
    rng = np.random.RandomState(1)
    X = rng.randn(60, N_FEATURES)
    y = LABELS[3][rng.randint(3, size=60)]
    for _ in range(5):
        model = make()
        barrier = threading.Barrier(2)

        def first_call(rows):
            barrier.wait()
            model.partial_fit(X[rows], y[rows], classes=LABELS[3])

        def first_examples(rows):
            barrier.wait()
            for i in rows:
                model.learn_one(X[i], y[i], classes=LABELS[3])

        assert not _run_threads([lambda: first_call(slice(0, 30)),
                                 lambda: first_call(slice(30, 60))])
        assert model.n_seen_ == 60
        model = make()
        assert not _run_threads([lambda: first_examples(range(0, 30)),
                                 lambda: first_examples(range(30, 60))])
        assert model.n_seen_ == 60


def _lock_waiters(model, X, y):
    """Calls of every public method that reads or changes the model."""
    calls = {
        "fit": lambda: model.fit(X, y),
        "partial_fit": lambda: model.partial_fit(X, y),
        "learn_one": lambda: model.learn_one(X[0], y[0]),
        "predict": lambda: model.predict(X),
        "predict_one": lambda: model.predict_one(X[0]),
        "decision_function": lambda: model.decision_function(X),
        "score": lambda: model.score(X, y),
        "set_params": lambda: model.set_params(n_epochs=1),
        "n_seen_": lambda: model.n_seen_,
    }
    if hasattr(type(model), "dual_coef_"):
        calls["dual_coef_"] = lambda: model.dual_coef_
    else:
        calls["coef_"] = lambda: model.coef_
    return calls


@pytest.mark.parametrize("name, task", [("pa", None), ("kernel-pa", None), ("cellip", None),
                                        ("simproj", None), ("simproj", "ordinal"),
                                        ("simproj", "blocks")])
def test_every_public_method_waits_for_the_lock(name, task):
    X, y, classes = _task_data(name, task, n=12)
    model = onlinear.make(name, task=task).fit(X, y)
    for method, call in _lock_waiters(model, X, y).items():
        finished = threading.Event()

        def worker():
            call()
            finished.set()

        with model._model_lock():
            thread = threading.Thread(target=worker)
            thread.start()
            # the worker cannot finish while the lock is held (when it may, it soon does)
            assert not finished.wait(0.05), f"{method} ran without the lock"
        thread.join(timeout=30)
        assert finished.is_set(), method


def test_the_lock_survives_pickle_deepcopy_and_clone():
    X, y, classes = _task_data("kernel-pa", None)
    model = onlinear.make("kernel-pa").fit(X[:20], y[:20])
    lock = model._model_lock()
    twin = copy.deepcopy(model)
    unpickled = pickle.loads(pickle.dumps(model))
    assert twin._model_lock() is not lock and unpickled._model_lock() is not lock
    assert "_lock" not in vars(clone(model))
    for other in (twin, unpickled):
        other.partial_fit(X[20:], y[20:])
    model.partial_fit(X[20:], y[20:])
    assert _state(twin) == _state(model) == _state(unpickled)
    assert clone(model).fit(X, y).n_seen_ == 30


def _calls(X, y):
    """A learner's calls in a fixed order, alternating a batch of 5 rows and one row: the
    model after ``n`` rows is that of the calls' prefix that learned ``n`` rows."""
    calls, start = [], 0
    while start < len(X):
        calls.append((X[start:start + 5], y[start:start + 5], "batch"))
        start += 5
        if start < len(X):
            calls.append((X[start], y[start], "one"))
            start += 1
    return calls


def _replay(make, calls, classes, n_rows):
    """A fresh model that learned the first ``n_rows`` rows of ``calls``."""
    model, seen = make(), 0
    for rows, labels, kind in calls:
        if seen == n_rows:
            break
        if kind == "batch":
            model.partial_fit(rows, labels, classes=classes)
            seen += len(rows)
        else:
            model.learn_one(rows, labels, classes=classes)
            seen += 1
    assert seen == n_rows, (seen, n_rows)
    return model


@pytest.mark.parametrize("name, task", [("pa", None), ("kernel-pa", None), ("cellip", None),
                                        ("iellip", None), ("simproj", None),
                                        ("simproj", "ordinal")])
def test_save_pickle_and_deepcopy_during_learning_hold_a_model_of_some_round(
        name, task, tmp_path, frequent_switches):
    """A copy taken while another thread learns (``onlinear.save``, ``pickle``,
    ``copy.deepcopy``) is the model after some whole round: every file loads, and each copy
    equals a fresh model replayed over as many rows as it has seen."""
    X, y, classes = _task_data(name, task, n=1500, seed=3)
    make = lambda: onlinear.make(name, task=task)  # noqa: E731
    calls = _calls(X, y)
    model = make()
    model.partial_fit(*calls[0][:2], classes=classes)
    done, copied = threading.Event(), threading.Event()
    copies = []

    def learner():
        try:
            assert copied.wait(timeout=30)  # (a copy before the first round too: see above)
            for rows, labels, kind in calls[1:]:
                if kind == "batch":
                    model.partial_fit(rows, labels)
                else:
                    model.learn_one(rows, labels)
        finally:
            done.set()

    def copier():
        path = tmp_path / "model.onlinear"
        while not done.is_set():
            onlinear.save(model, path)
            copies.append(onlinear.load(path))  # refuses a torn file (checksums, invariants)
            copies.append(pickle.loads(pickle.dumps(model)))
            copies.append(copy.deepcopy(model))
            copied.set()

    assert not _run_threads([learner, copier])
    assert model.n_seen_ == len(X) and len(copies) >= 3
    replays = {}
    for twin in copies:
        n = twin.n_seen_
        if n not in replays:
            replays[n] = _state(_replay(make, calls, classes, n))
        assert _state(twin) == replays[n], f"a copy after {n} rows is not that model"


# ===================================================================== 8. loose acceptance
COMPLEX_CASES = [("pa", None), ("kernel-pa", None), ("cellip", None), ("simproj", None),
                 ("simproj", "multilabel"), ("simproj", "ordinal"), ("simproj", "blocks")]


@pytest.mark.parametrize("name, task", COMPLEX_CASES,
                         ids=[f"{n}-{t or 'default'}" for n, t in COMPLEX_CASES])
def test_one_example_paths_refuse_complex_input_as_fit_does(name, task):
    X, y, classes = _task_data(name, task, n=12)
    complex_row = X[0] + 1j
    with pytest.raises(ValueError, match="Complex data not supported"):
        onlinear.make(name, task=task).fit(X + 1j, y)
    fresh = onlinear.make(name, task=task)
    with pytest.raises(ValueError, match="Complex data not supported"):
        fresh.learn_one(complex_row, y[0], classes=classes)
    assert not hasattr(fresh, "classes_")
    model = onlinear.make(name, task=task).fit(X, y)
    before = _state(model)
    for row in (complex_row, list(complex_row), sp.csr_matrix(complex_row[None, :])):
        with pytest.raises(ValueError, match="Complex data not supported"):
            model.learn_one(row, y[0])
        with pytest.raises(ValueError, match="Complex data not supported"):
            model.predict_one(row)
    _assert_same_state(before, model)


def test_multilabel_learn_one_refuses_indicators_other_than_0_and_1():
    X, y, classes = _task_data("simproj", "multilabel", n=12)
    fresh = onlinear.make("simproj", task="multilabel")
    with pytest.raises(ValueError, match="only 0 and 1"):
        fresh.learn_one(X[0], np.array([5, 0, 1]))
    # a list is read as fit reads a list of targets: [5, 0, 1] holds labels, not 0/1 only,
    # so it is a label set, which needs classes on the first call
    with pytest.raises(ValueError, match="classes must be passed"):
        fresh.learn_one(X[0], [5, 0, 1])
    assert not hasattr(fresh, "classes_")
    model = onlinear.make("simproj", task="multilabel").fit(X, y)
    before = _state(model)
    for bad in ([5, 0, 1], np.array([0.5, 0, 1]), [0, 1, -1], [np.nan, 0, 1]):
        with pytest.raises(ValueError, match="only 0 and 1"):
            model.learn_one(X[0], bad)
    _assert_same_state(before, model)
    model.learn_one(X[0], [1, 0, 1])
    model.learn_one(X[1], np.array([True, False, False]))
    assert model.n_seen_ == 14



# ============================================================ 5. the audit's idea of "unchanged"
def _audit():
    """tools/audit.py as a module (it is a script, not part of the package)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "tools" / "audit.py"
    spec = importlib.util.spec_from_file_location("onlinear_audit", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name, params", [("pa", {}), ("pa", {"average": True}),
                                          ("perceptron", {})], ids=["pa", "pa-average",
                                                                    "perceptron"])
def test_the_audit_of_a_primal_configuration_finds_nothing_wrong(name, params):
    # every bad input through every public method: a clear error with the model unchanged,
    # or accepted (the audit of issue [16] found 3 "non-atomic" CSR-with-NaN cases here)
    report = _audit()._audit_one(name, params)
    assert set(report["outcomes"]) <= {"clear error", "accepted"}, report


#: the held learners whose dense pass checks its rows itself (no sweep over X before it): a
#: refused row stops the pass mid-way, and the estimator's snapshot undoes the rounds before it
ROWS_CHECKED_IN_THE_PASS = [("arow", {}), ("scw1", {}), ("adagrad", {}), ("ftrl", {}),
                            ("adagrad-rda", {}), ("simproj", {})]


@pytest.mark.parametrize("name, params", ROWS_CHECKED_IN_THE_PASS,
                         ids=[name for name, _ in ROWS_CHECKED_IN_THE_PASS])
def test_the_audit_of_a_learner_whose_pass_checks_its_rows_finds_nothing_wrong(name, params):
    # (its snapshot once copied classes_ apart from the task's: 72 "non-atomic" cases)
    report = _audit()._audit_one(name, params)
    assert set(report["outcomes"]) <= {"clear error", "accepted"}, report


@pytest.mark.parametrize("bad", [np.nan, 1e300], ids=["nan", "huge"])
@pytest.mark.parametrize("name", ["arow", "adagrad", "ftrl", "narow", "simproj"])
def test_a_row_refused_mid_pass_leaves_the_model_as_it_was(name, bad):
    """A dense batch whose 15th row is refused by the pass itself, after 14 rounds: the
    estimators' own error (naming the row), the model bitwise as it was, the task's classes
    still the estimator's, and learning goes on as from a copy taken before."""
    rng = np.random.RandomState(4)
    X = rng.randn(60, N_FEATURES)
    y = LABELS[2 if name == "narow" else 3][rng.randint(2 if name == "narow" else 3, size=60)]
    model = onlinear.make(name).partial_fit(X[:20], y[:20], classes=np.unique(y))
    bad_X = X[20:40].copy()
    bad_X[14, 1] = bad
    with pytest.raises(ValueError, match="NaN" if np.isnan(bad) else "X row 14 has norm"):
        model.partial_fit(bad_X, y[20:40])
    assert model.classes_ is model._task.classes
    _check_failed_call(model, lambda m: m.partial_fit(bad_X, y[20:40]), X[40:], y[40:])


def test_the_audit_names_the_configuration_a_worker_dies_in_and_goes_on():
    # one worker interpreter audits configurations in turn; one that kills it (here an
    # unknown name, which raises outside any case) is reported as a crash, and a new worker
    # audits the next
    reports = []
    _audit()._run_worker([("mira", {}), ("no-such-learner", {}), ("pa", {"average": True})],
                         600, lambda label, report, crash: reports.append((label, report, crash)))
    assert [label for label, _, _ in reports] == ["mira", "no-such-learner", "pa average=True"]
    (_, mira, none), (_, nothing, crash), (_, pa, also_none) = reports
    assert none is None and also_none is None and nothing is None
    assert set(mira["outcomes"]) == set(pa["outcomes"]) == {"clear error", "accepted"}
    assert crash[0] == 1 and crash[1]  # (a Python error's exit code, and the end of stderr)


@pytest.mark.parametrize("name, params", [("pa1", {}), ("mira", {}), ("pa", {"average": True}),
                                          ("mc-romma", {}), ("multiplicative", {})])
@pytest.mark.parametrize("refused", ["csr", "dense"])
def test_a_row_the_fast_path_refuses_leaves_the_model_as_it_was(name, params, refused):
    # A CSR row on a model last fed dense rows puts the weights feature-major before the row is
    # checked (and a dense row on a CSR-fed model class-major): the values stay bitwise the
    # same, and every later prediction and round is bitwise that of an untouched copy.
    rng = np.random.default_rng(5)
    X = np.abs(rng.normal(size=(40, 6)))
    y = np.array([3, 7, 11])[rng.integers(3, size=40)]
    model = onlinear.make(name, **params).fit(X[:10], y[:10])
    fed = sp.csr_matrix(X) if refused == "dense" else X
    for i in range(10, 20):
        model.learn_one(fed[i], y[i])
    bad = X[20].copy()
    bad[1] = np.nan
    bad = sp.csr_matrix(bad) if refused == "csr" else bad
    twin = copy.deepcopy(model)
    scores = {kind: model.decision_function(data) for kind, data in
              (("dense", X), ("csr", sp.csr_matrix(X)))}
    before = _state(model)
    with pytest.raises(ValueError, match="NaN"):
        model.learn_one(bad, y[20])
    _assert_same_state(before, model)
    for kind, data in (("dense", X), ("csr", sp.csr_matrix(X))):
        assert _bits(model.decision_function(data)) == _bits(scores[kind])
    for i in range(20, 40):
        row = fed[i] if i % 2 else (X[i] if refused == "dense" else sp.csr_matrix(X[i]))
        assert model.learn_one(row, y[i]) == twin.learn_one(row, y[i])
    assert _state(model) == _state(twin)
