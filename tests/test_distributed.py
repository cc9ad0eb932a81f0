"""Beyond one machine, on a real Dask cluster: two worker processes bound to 127.0.0.1.

* experiment grids (:func:`onlinear.harness.compare` with ``client=``, ``onlinear compare
  --scheduler``) equal the serial run cell by cell — counts, curves, test errors, grid-search
  tables — every example counted once by the progress bar, and stay complete and equal when a
  worker process is killed in the middle of the grid;
* iterative parameter mixing (McDonald, Hall & Mann 2010): one shard is the serial learner bit
  for bit; on separable data the Perceptron's mixed mistake bound of their Theorem 3,
  Σ_n Σ_i μ_{i,n} k_{i,n} ≤ R²/γ², holds for uniform and update-weighted mixing, the mixed
  model converges to a separator and generalizes; the shards can be a dask array, a dask data
  frame or LIBSVM files read on the workers; models whose state cannot be averaged are refused.

γ and R are the realized values of the generated data (``synthetic.py``), as in
``test_theorems.py``.  Fixed seeds throughout.
"""
import os
import pickle
import subprocess
import sys
import time

import dask.array as dask_array
import distributed
import numpy as np
import pytest

import onlinear
import synthetic as syn
from cli_runner import onlinear_cli
from onlinear import harness
from onlinear.data import load_usps
from onlinear.distributed import ParameterMixing, check_mixable, mix_models

CELL_COUNTS = ("algorithm", "params", "permutation", "seed", "n_examples", "test_errors")
CURVES = ("examples", "epoch", "mistakes", "updates")


@pytest.fixture(scope="module")
def usps_small():
    X, y, X_test, y_test = load_usps()
    return X[:500], y[:500], X_test[:300], y_test[:300]


@pytest.fixture(scope="module")
def client(usps_small):
    # compile (or load) the paths the workers will take into the shared numba cache first, so
    # that each worker process only loads them
    X, y, X_test, y_test = usps_small
    harness.compare(X[:80], y[:80], ["perceptron", "pa1"], X_test=X_test[:10],
                    y_test=y_test[:10], permutations=2, epochs=2, grid={"C": [1.0]})
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        client.run(_import_onlinear)
        yield client


def _import_onlinear():
    import onlinear.distributed.grid  # noqa: F401

    return os.getpid()


# ------------------------------------------------------------------------ experiment grids
def assert_same_cells(serial, parallel):
    """Every run, grid-search row and summary of ``parallel`` equals ``serial``'s; only the
    seconds (measured elsewhere) may differ."""
    assert len(parallel.runs) == len(serial.runs) > 0
    for one, other in zip(serial.runs, parallel.runs):
        for key in CELL_COUNTS:
            assert getattr(one, key) == getattr(other, key), key
        for key in CURVES:
            np.testing.assert_array_equal(getattr(one, key), getattr(other, key), err_msg=key)
    assert serial.searches.keys() == parallel.searches.keys()
    for name, search in serial.searches.items():
        assert search.best_params == parallel.searches[name].best_params
        assert _without_seconds(search.table) == _without_seconds(parallel.searches[name].table)
    assert _without_seconds(serial.summary()) == _without_seconds(parallel.summary())
    assert _without_seconds(serial.curves()) == _without_seconds(parallel.curves())


def _without_seconds(table):
    return [{k: v for k, v in row.items() if not k.startswith("seconds")} for row in table]


class CountingBar:
    """Stands in for the harness's tqdm bar: the total announced and the examples counted."""

    made = []

    def __init__(self, enabled, total, description):
        self.total, self.counted, self.closed = total, 0, False
        CountingBar.made.append(self)

    def describe(self, text):
        pass

    def update(self, n):
        self.counted += n

    def close(self):
        self.closed = True


GRID = dict(algorithms=["perceptron", "pa1", "mira"], grid={"C": [0.01, 0.1, 1.0]},
            permutations=3, epochs=2, random_state=7, tick=150)


def test_a_grid_on_the_cluster_equals_the_serial_run_cell_by_cell(client, usps_small,
                                                                 monkeypatch):
    X, y, X_test, y_test = usps_small
    serial = harness.compare(X, y, X_test=X_test, y_test=y_test, **GRID)
    monkeypatch.setattr(harness, "_Progress", CountingBar)
    parallel = harness.compare(X, y, X_test=X_test, y_test=y_test, client=client,
                               progress=True, **GRID)
    assert_same_cells(serial, parallel)
    assert [run.seed for run in parallel.runs[:3]] == [run.seed for run in serial.runs[:3]]
    assert len(set(run.seed for run in parallel.runs)) == 3
    assert parallel.searches["pa1"].table.column("mistakes") == \
        serial.searches["pa1"].table.column("mistakes")
    assert all(len(run.test_errors) == 2 for run in parallel.runs)
    [bar] = CountingBar.made
    # 3 grid passes of pa1 + 3 algorithms × 3 permutations × 2 epochs, every example once
    assert bar.total == bar.counted == 500 * (3 + 3 * 3 * 2) and bar.closed
    # the cells really ran on both worker processes
    pids = client.run(os.getpid)
    assert len(set(pids.values())) == 2


def _wait_until_running(client, n, timeout=60.0):
    deadline = time.monotonic() + timeout
    while sum(info.get("status") == "running"
              for info in client.scheduler_info()["workers"].values()) < n:
        assert time.monotonic() < deadline, "the cluster's workers did not all start"
        time.sleep(0.1)


class KillFirstCell(distributed.WorkerPlugin):
    """Kills its worker process the first time any worker starts a grid cell (a flag file
    shared by the workers makes it happen once)."""

    def __init__(self, flag):
        self.flag = flag

    def transition(self, key, start, finish, **kwargs):
        if finish == "executing" and str(key).startswith("run_cell"):
            try:
                handle = os.open(self.flag, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                return
            os.close(handle)
            os._exit(1)


def test_a_worker_killed_mid_grid_costs_only_its_cells(client, usps_small, tmp_path):
    X, y, X_test, y_test = usps_small
    grid = dict(algorithms=["perceptron", "pa1"], permutations=4, epochs=1, random_state=3)
    serial = harness.compare(X, y, X_test=X_test, y_test=y_test, **grid)
    # the data is scattered to the workers running when the grid starts: on a loaded machine a
    # worker may be late to report as running, and the one killed then held the only copy; the
    # test is of a grid started on both
    _wait_until_running(client, 2)
    before = set(client.scheduler_info()["workers"])
    flag = tmp_path / "killed"
    client.register_plugin(KillFirstCell(str(flag)), name="kill-first-cell")
    try:
        parallel = harness.compare(X, y, X_test=X_test, y_test=y_test, client=client, **grid)
    finally:
        client.unregister_worker_plugin("kill-first-cell")
    assert flag.exists()  # a worker did die, in the middle of a cell
    assert_same_cells(serial, parallel)
    client.wait_for_workers(2, timeout=60)  # its nanny restarts it, under a new address
    assert set(client.scheduler_info()["workers"]) != before


def _onlinear_process(*args, cwd):
    """``python -m onlinear ARGS`` in a fresh process: no Dask client is anyone's default there,
    as for a user at a shell (this process has one: the ``client`` fixture's)."""
    env = dict(os.environ)
    env.pop("ONLINEAR_TRACEBACK", None)
    return subprocess.run([sys.executable, "-m", "onlinear", *map(str, args)], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def small_svm(tmp_path_factory):
    from sklearn.datasets import dump_svmlight_file

    X, y, _, _ = load_usps()
    path = tmp_path_factory.mktemp("compare") / "head.svm"
    dump_svmlight_file(X[:150], y[:150], str(path))
    return path


@pytest.mark.parametrize("where", ["scheduler", "workers"])
def test_onlinear_compare_on_a_cluster_prints_the_serial_table(small_svm, where):
    args = ["compare", "perceptron", "pa1", "--data", small_svm, "--permutations", "2", "--seed",
            "5", "--grid", "C=0.1,1", "--format", "csv"]
    serial = onlinear_cli(*args)
    if where == "workers":  # a local cluster of its own, closed when the command ends
        parallel = _onlinear_process(*args, "--workers", "2", cwd=small_svm.parent)
    else:  # a cluster the command only connects to; its worker is a thread of this process
        with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                      protocol="tcp", host="127.0.0.1",
                                      dashboard_address=None) as cluster:
            parallel = _onlinear_process(*args, "--scheduler", cluster.scheduler_address,
                                         cwd=small_svm.parent)
    assert serial.returncode == 0, serial.stderr
    assert parallel.returncode == 0, parallel.stderr
    assert "No clients found" not in parallel.stderr
    one, other = (harness.Table.from_csv(r.stdout) for r in (serial, parallel))
    assert _without_seconds(one) == _without_seconds(other) and len(one) == 2


@pytest.mark.parametrize("extra, message", [
    (["--scheduler", "tcp://127.0.0.1:1", "--workers", "2"], "not both"),
    (["--workers", "0"], "0"),
])
def test_cluster_options_are_checked_before_any_training(extra, message):
    result = onlinear_cli("compare", "perceptron", "--data", "no-such-file.svm", *extra)
    assert result.returncode == 2
    assert message in result.stderr


def test_a_client_without_dask_installed_is_a_clear_error(usps_small, monkeypatch):
    import sys

    X, y, _, _ = usps_small
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ImportError, match=r"onlinear\[dask\]"):
        harness.compare(X[:50], y[:50], ["perceptron"], client=object())


# ------------------------------------------------------------ iterative parameter mixing
NOBODYS_DEFAULT = """
import distributed, numpy as np, onlinear
from onlinear.distributed import ParameterMixing

rng = np.random.default_rng(0)
X = rng.normal(size=(120, 4)); y = (X[:, 0] > 0).astype(int)
with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, protocol="tcp",
                              host="127.0.0.1", dashboard_address=None) as cluster, \\
        distributed.Client(cluster, set_as_default=False) as client:
    model = ParameterMixing(onlinear.make("perceptron"), n_epochs=2, client=client).fit(
        [(X[:60], y[:60]), (X[60:], y[60:])]).estimator_
print(model.n_seen_)
"""


def test_parameter_mixing_with_a_client_that_is_nobodys_default():
    """(a fresh process: this one has a default client, the ``client`` fixture's)"""
    done = subprocess.run([sys.executable, "-c", NOBODYS_DEFAULT], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == "240"


def test_one_shard_is_the_serial_learner_bit_for_bit(client, usps_small, tmp_path):
    X, y, X_test, y_test = usps_small
    serial = onlinear.make("pa1", C=0.1, n_epochs=3).fit(X, y)
    ipm = ParameterMixing(onlinear.make("pa1", C=0.1), n_epochs=3, client=client)
    ipm.fit(dask_array.from_array(X, chunks=(500, 128)), y)
    model = ipm.estimator_
    assert ipm.n_shards_ == 1
    np.testing.assert_array_equal(model.coef_, serial.coef_)
    assert (model.n_seen_, model.n_mistakes_, model.n_updates_) == \
        (serial.n_seen_, serial.n_mistakes_, serial.n_updates_) == (1500, serial.n_mistakes_,
                                                                    serial.n_updates_)
    np.testing.assert_array_equal(ipm.predict(X_test), serial.predict(X_test))
    assert ipm.history_.column("weight") == [1.0, 1.0, 1.0]
    assert min(ipm.history_.column("bytes_sent")) > X.shape[1] * 10 * 8  # the model travelled
    path = tmp_path / "mixed.onlinear"
    onlinear.save(model, path)
    np.testing.assert_array_equal(onlinear.load(path).predict(X_test), serial.predict(X_test))


def test_one_float32_shard_is_the_serial_learner_with_its_dtype(client, usps_small):
    """dtype="auto" gives float32 weights on float32 rows: parameter mixing started its model
    from a float64 zero row, so one shard of float32 rows gave float64 weights, off the serial
    learner's by 3e-8.  All shards empty gave scikit-learn's "inconsistent numbers of
    samples: [1, 0]"."""
    X, y, _, _ = usps_small
    X = X.astype(np.float32)
    serial = onlinear.make("pa1").fit(X, y)
    for data in ([(X, y)], dask_array.from_array(X, chunks=(500, 128))):
        ipm = ParameterMixing(onlinear.make("pa1"), client=client)
        ipm.fit(data, None if isinstance(data, list) else y)
        assert ipm.estimator_.coef_.dtype == np.float32
        np.testing.assert_array_equal(ipm.estimator_.coef_, serial.coef_)
    with pytest.raises(ValueError, match="every shard is empty"):
        ParameterMixing(onlinear.make("pa1")).fit([(X[:0], y[:0]), (X[:0], y[:0])])


@pytest.fixture(scope="module")
def separable():
    X, y, w_star, gamma, R = syn.binary_separable(np.random.default_rng(11), 20, 900, 0.05)
    return X[:600], y[:600], X[600:], y[600:], gamma, R


@pytest.mark.parametrize("mixing", ["uniform", "updates"])
def test_mixed_perceptron_respects_the_ipm_mistake_bound(client, separable, mixing):
    """McDonald, Hall & Mann 2010, Theorem 3: Σ_n Σ_i μ_{i,n} k_{i,n} ≤ R²/γ² on separable
    data; uniform mixing then makes ≤ S·R²/γ² updates in all, update-weighted mixing updates
    in ≤ R²/γ² epochs; the model converges to a separator of the training data."""
    X, y, X_test, y_test, gamma, R = separable
    bound = R ** 2 / gamma ** 2
    n_shards = 3
    ipm = ParameterMixing(onlinear.make("perceptron"), n_epochs=40, mixing=mixing,
                          client=client)
    ipm.fit(dask_array.from_array(X, chunks=(200, 20)), y)
    history = ipm.history_
    assert ipm.n_shards_ == n_shards
    k = np.array(history.column("updates"), dtype=float).reshape(-1, n_shards)
    mu = np.array(history.column("weight")).reshape(-1, n_shards)
    np.testing.assert_allclose(mu.sum(axis=1), 1.0)
    weighted = float((mu * k).sum())
    assert 1 <= weighted <= bound, f"Σ μk = {weighted:.1f} > R²/γ² = {bound:.1f}"
    assert k.sum() <= n_shards * bound
    if mixing == "updates":
        assert np.count_nonzero(k.sum(axis=1)) <= bound
    # not vacuous: every shard learned, and it took several epochs of mixing to converge
    assert np.all(k[0] > 0) and np.count_nonzero(k.sum(axis=1)) >= 3
    assert k[-1].sum() == 0  # converged: an epoch without an update anywhere
    model = ipm.estimator_
    assert model.score(X, y) == 1.0
    assert model.score(X_test, y_test) >= 0.95
    assert model.n_seen_ == 40 * 600 and model.n_updates_ == k.sum()


@pytest.mark.parametrize("mixing", ["uniform", "updates", "mistakes"])
@pytest.mark.parametrize("seed, n_shards, gamma0", [(1, 2, 0.05), (2, 5, 0.03), (3, 8, 0.02)])
def test_the_ipm_bound_across_seeds_and_shard_counts(seed, n_shards, gamma0, mixing):
    """Theorem 3 again, in this process (the same loop as on a cluster), for any convex μ:
    several seeds, margins and numbers of shards."""
    X, y, _, gamma, R = syn.binary_separable(np.random.default_rng(seed), 10, 400, gamma0)
    bound = R ** 2 / gamma ** 2
    shards = [(X[i::n_shards], y[i::n_shards]) for i in range(n_shards)]
    ipm = ParameterMixing(onlinear.make("perceptron"), n_epochs=60, mixing=mixing).fit(shards)
    k = np.array(ipm.history_.column("updates"), dtype=float).reshape(-1, n_shards)
    mu = np.array(ipm.history_.column("weight")).reshape(-1, n_shards)
    assert 1 <= (mu * k).sum() <= bound
    assert k[-1].sum() == 0 and ipm.score(X, y) == 1.0
    assert np.count_nonzero(k.sum(axis=1)) >= 2


def test_mixing_shards_of_a_data_frame_and_of_libsvm_files_on_the_workers(client, usps_small,
                                                                         tmp_path):
    import dask.dataframe as dd
    import pandas as pd
    from sklearn.datasets import dump_svmlight_file

    X, y, X_test, y_test = usps_small
    shards = [(X[:250], y[:250]), (X[250:], y[250:])]
    reference = ParameterMixing(onlinear.make("perceptron-max"), n_epochs=2,
                                mixing="mistakes").fit(shards)
    paths = []
    for i, (Xs, ys) in enumerate(shards):
        paths.append(str(tmp_path / f"shard{i}.svm"))
        dump_svmlight_file(Xs, ys, paths[-1])
    from_files = ParameterMixing(onlinear.make("perceptron-max"), n_epochs=2,
                                 mixing="mistakes", client=client).fit(paths)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])]).assign(digit=y)
    from_frame = ParameterMixing(onlinear.make("perceptron-max"), n_epochs=2,
                                 mixing="mistakes", client=client).fit(
        dd.from_pandas(frame, npartitions=2, sort=False), "digit")
    for ipm in (from_files, from_frame):
        assert ipm.n_shards_ == 2
        np.testing.assert_array_equal(ipm.estimator_.classes_, reference.estimator_.classes_)
        np.testing.assert_allclose(ipm.estimator_.coef_, reference.estimator_.coef_,
                                   rtol=1e-12, atol=1e-12)
        assert ipm.history_.column("mistakes") == reference.history_.column("mistakes")
    assert reference.score(X_test, y_test) > 0.8


@pytest.mark.parametrize("name, reason", [
    ("kernel-pa", "kernel"), ("cellip", "ellipsoid"), ("multiplicative", "multiplicatively"),
    ("romma", "certificate"), ("mc-romma", "certificate"), ("simproj", "simultaneous projections"),
    ("arow", "Gaussian"), ("cw", "Gaussian"), ("ftrl", "step sizes"), ("adagrad", "step sizes"),
])
def test_models_that_cannot_be_averaged_are_refused(name, reason):
    with pytest.raises(TypeError, match=reason):
        ParameterMixing(onlinear.make(name)).fit([(np.eye(3), np.array([0, 1, 2]))])


def test_a_learner_that_averages_its_own_run_is_refused():
    with pytest.raises(TypeError, match="average=True"):
        ParameterMixing(onlinear.make("pa", average=True)).fit(
            [(np.eye(3), np.array([0, 1, 2]))])


@pytest.mark.parametrize("options, data, message", [
    ({"n_epochs": 0}, None, "n_epochs"),
    ({"mixing": "average"}, None, "mixing must be one of"),
    ({}, [(np.eye(3), np.array([0, 1, 2])), (np.eye(4), np.arange(4))], "numbers of features"),
    ({}, np.eye(3), "dask array"),
])
def test_bad_mixing_requests_raise_before_any_training(options, data, message):
    data = [(np.eye(3), np.array([0, 1, 2]))] if data is None else data
    with pytest.raises((ValueError, TypeError), match=message):
        ParameterMixing(onlinear.make("pa"), **options).fit(data)


def test_mixing_is_the_convex_combination_of_the_true_weights(tmp_path):
    X = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0], [1.0, 1.0, 0.5], [-1.0, 0.5, 0.0]])
    y = np.array([0, 1, 2, 0])
    a = onlinear.make("spa1").fit(X, y)
    b = onlinear.make("spa1").fit(X[::-1], y[::-1])
    mixed = mix_models([a, b], [0.25, 0.75])
    np.testing.assert_allclose(mixed.coef_, 0.25 * a.coef_ + 0.75 * b.coef_, rtol=1e-15)
    assert mixed.n_seen_ == 8
    check_mixable(mixed)
    onlinear.save(mixed, tmp_path / "mixed.onlinear")  # a model like any other: saved, loaded,
    loaded = onlinear.load(tmp_path / "mixed.onlinear")  # and learning on
    np.testing.assert_array_equal(loaded.coef_, mixed.coef_)
    mixed.partial_fit(X, y), loaded.partial_fit(X, y)
    assert mixed.n_seen_ == 12
    np.testing.assert_array_equal(loaded.coef_, mixed.coef_)
    with pytest.raises(ValueError, match="summing to 1"):
        mix_models([a, b], [0.5, 0.6])


# ------------------------------------------------------- a worker lost during parameter mixing
class KillAtLearn(distributed.WorkerPlugin):
    """Kills its worker process when it starts a shard's epoch (a ``_learn`` task), at most
    ``times`` times over the cluster (flag files shared by the workers count them)."""

    def __init__(self, folder, times=1):
        self.folder, self.times = folder, times

    def transition(self, key, start, finish, **kwargs):
        if finish != "executing" or not str(key).startswith("_learn"):
            return
        for i in range(self.times):
            try:
                handle = os.open(os.path.join(self.folder, f"killed-{i}"),
                                 os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                continue
            os.close(handle)
            os._exit(1)


def _mixing_shards(usps_small):
    X, y, _, _ = usps_small
    return [(X[i::4], y[i::4]) for i in range(4)]


def test_a_worker_killed_mid_epoch_of_parameter_mixing_costs_only_its_work(client, usps_small,
                                                                           tmp_path):
    """The shards' work lost with the worker is done again on the workers left (the scattered
    shards scattered again) and the fit ends with the model of an undisturbed run, bit for
    bit (the undisturbed run: in this process, which the cluster equals)."""
    shards = _mixing_shards(usps_small)
    undisturbed = ParameterMixing(onlinear.make("pa1", C=0.1), n_epochs=3,
                                  mixing="updates").fit(shards)
    _wait_until_running(client, 2)
    client.register_plugin(KillAtLearn(str(tmp_path)), name="kill-at-learn")
    try:
        start = time.monotonic()
        ipm = ParameterMixing(onlinear.make("pa1", C=0.1), n_epochs=3, mixing="updates",
                              client=client, lost_worker_timeout=120).fit(shards)
    finally:
        client.unregister_worker_plugin("kill-at-learn")
    assert (tmp_path / "killed-0").exists()  # a worker did die, in the middle of an epoch
    assert time.monotonic() - start < 120
    np.testing.assert_array_equal(ipm.estimator_.coef_, undisturbed.estimator_.coef_)
    np.testing.assert_array_equal(ipm.estimator_.model_.counts, undisturbed.estimator_.model_.counts)
    assert ipm.history_.column("updates") == undisturbed.history_.column("updates")
    # the module's cluster left with its two workers for the tests after this one: the nanny
    # restarts the killed worker; on a loaded machine it was once not back within a minute (CI:
    # the suite beside a build), and then the cluster starts a worker in its place
    try:
        client.wait_for_workers(2, timeout=60)
    except TimeoutError:
        client.cluster.scale(2)
        client.wait_for_workers(2, timeout=120)


def test_parameter_mixing_stops_within_its_time_out_naming_what_was_lost(usps_small, tmp_path):
    """Workers that die at every try: the fit stops after ``lost_worker_timeout`` (plus the
    try under way) with a LostWorkerError naming the epoch and the shards, never hangs.  (A
    cluster of its own: its workers are killed over and over.)"""
    from onlinear.distributed import LostWorkerError

    shards = _mixing_shards(usps_small)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster, \
            distributed.Client(cluster) as own:
        _wait_until_running(own, 2)
        own.register_plugin(KillAtLearn(str(tmp_path), times=1000), name="kill-every-learn")
        start = time.monotonic()
        with pytest.raises(LostWorkerError, match=r"epoch 1: the work of shard\(s\) \[\d"):
            ParameterMixing(onlinear.make("pa1"), client=own, lost_worker_timeout=10).fit(shards)
        assert time.monotonic() - start < 10 + 50  # (the last try may wait for a restart)
    assert (tmp_path / "killed-1").exists()  # workers did die, more than once


# ------------------------------------- a shard the estimator refuses: its own error, not a loss
def _with_a_refused_shard(usps_small, refused):
    """Four good shards with a fifth, at position 2, whose data the estimator refuses."""
    shards = _mixing_shards(usps_small)
    X, y = shards[0]
    if refused == "nan":
        X = X.toarray() if hasattr(X, "toarray") else X.copy()
        X[7, 3] = np.nan
        bad = (X, y)
    elif refused == "empty":
        bad = (X[:0], y[:0])
    else:  # "unseen label": the other shards' labels are strings, this one's integers, which
        # are not among the classes (the strings the shards hold)
        shards = [(Xs, ys.astype(str)) for Xs, ys in shards]
        bad = (X, y)
    return shards[:2] + [bad] + shards[2:]


@pytest.mark.parametrize("refused", ["nan", "empty", "unseen label"])
def test_a_shard_the_estimator_refuses_raises_its_error_at_once_as_the_serial_run(
        client, usps_small, refused):
    """A shard's own error (not a lost worker) is raised in the client at once — the serial
    run's exception, type and message, noting the shard — and never tried again until
    ``lost_worker_timeout`` as lost work is; the estimator given is left as it was."""
    shards = _with_a_refused_shard(usps_small, refused)
    estimator = onlinear.make("pa1", C=0.1)
    before = pickle.dumps(estimator)
    with pytest.raises(ValueError) as serial:
        ParameterMixing(estimator, n_epochs=2).fit(shards)
    ipm = ParameterMixing(estimator, n_epochs=2, client=client, lost_worker_timeout=60)
    start = time.monotonic()
    with pytest.raises(ValueError) as on_cluster:
        ipm.fit(shards)
    elapsed = time.monotonic() - start
    assert elapsed < 30, f"the error took {elapsed:.0f} s: retried as a lost worker"
    assert type(on_cluster.value) is type(serial.value)
    assert str(on_cluster.value) == str(serial.value)
    assert any("shard 2," in note and "not a lost worker" in note
               for note in getattr(on_cluster.value, "__notes__", [])), on_cluster.value
    assert pickle.dumps(estimator) == before and not hasattr(estimator, "classes_")
    assert not hasattr(ipm, "estimator_")


def test_csv_files_are_shards_as_their_arrays_are(tmp_path):
    """Data files of any streamed format of the registry are shards (read where the work runs):
    CSV files mix as the same rows given as (X, y) pairs."""
    X, y, _, _, _ = syn.binary_separable(np.random.default_rng(4), 5, 120, 0.05)
    paths = []
    for i in range(3):
        path = tmp_path / f"part{i}.csv"
        np.savetxt(path, np.column_stack([X[i::3], y[i::3]]), delimiter=",", fmt="%.17g")
        paths.append(str(path))
    from_files = ParameterMixing(onlinear.make("perceptron"), n_epochs=3).fit(paths)
    pairs = [(X[i::3], y[i::3].astype(np.int64)) for i in range(3)]
    from_pairs = ParameterMixing(onlinear.make("perceptron"), n_epochs=3).fit(pairs)
    np.testing.assert_array_equal(from_files.estimator_.coef_, from_pairs.estimator_.coef_)
    assert from_files.estimator_.n_seen_ == 3 * 120
    with pytest.raises(ValueError, match="several formats"):
        ParameterMixing(onlinear.make("perceptron")).fit(paths[:1] + [str(tmp_path / "x.svm")])
