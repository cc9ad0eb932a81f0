"""Three defects of ``onlinear compare``/``run``/``info`` and the harness behind them:

* a hyperparameter an algorithm takes but does not read (``C`` of the hard ``pa``) was accepted
  and silently ignored; it is refused, naming the algorithm and the parameter, and a value
  shared by several compared algorithms goes only to those that read it;
* ``onlinear info`` showed a dict hyperparameter in the model file's stored form
  (``{"__pairs__": [[0, 2.0]]}``); it shows the dict as given, ``{0: 2.0}``;
* a run recorded a point at every epoch's end, so its memory grew with ``--epochs``; beyond 100
  epochs it records about 100 evenly spaced ones.
"""
import json

import numpy as np
import pytest

import onlinear
from cli_runner import onlinear_cli, said, tiny  # noqa: F401 (tiny: a fixture)
from onlinear import harness
from onlinear.data import load_usps
from onlinear.harness import Table, compare, evaluate, tick_positions

X6 = np.array([[1., 0.], [0., 1.], [1., 1.], [-1., 0.], [0., -1.], [1., 0.]])
Y6 = np.array([1, -1, 1, -1, 1, 1])


# ------------------------------------------------------------- parameters an algorithm ignores
@pytest.mark.parametrize("args", [
    ["compare", "pa", "--data", "TINY", "--param", "C=0.1"],
    ["compare", "pa", "pa1", "--data", "TINY", "--param", "pa:C=0.1"],
    ["compare", "pa", "--data", "TINY", "--grid", "C=0.1,1"],
    ["run", "pa", "TINY", "--param", "C=0.1"],
    ["run", "pa", "TINY", "--grid", "C=0.1,1"],
    ["run", "spa", "TINY", "--param", "C=0.1"],
    ["run", "kernel-pa", "TINY", "--param", "C=0.1"],
    ["run", "pa", "TINY", "--param", "variant=printed"],
])
def test_a_hard_pa_given_C_is_a_usage_error_naming_both(tiny, args):
    result = onlinear_cli(*[tiny if a == "TINY" else a for a in args])
    assert result.returncode == 2, result.stdout
    message = said(result)
    name = args[1]
    key = "variant" if "variant=printed" in args else "C"
    assert f"{name} does not use {key}" in message, message
    assert "slack='none'" in message and "drop" in message, message  # why, and the remedy


@pytest.mark.parametrize("args, phrase", [
    (["run", "simproj", "TINY", "--param", "max_rule=distance"],
     "simproj does not use max_rule"),
    (["run", "simproj", "TINY", "--param", "gamma=0.5"], "simproj does not use gamma"),
    (["run", "iellip", "TINY", "--param", "step=fixed", "--param", "a=0.5"],
     "iellip does not use a"),
    (["run", "iellip", "TINY", "--param", "w_scale=0.1"], "iellip does not use w_scale"),
])
def test_other_documented_unread_parameters_are_refused(tiny, args, phrase):
    result = onlinear_cli(*[tiny if a == "TINY" else a for a in args])
    assert result.returncode == 2, result.stdout
    assert phrase in said(result), said(result)


@pytest.mark.parametrize("args", [
    ["run", "pa1", "TINY", "--param", "C=0.1"],
    ["run", "maxpa", "TINY", "--param", "max_rule=distance"],
    ["run", "simproj", "TINY", "--param", "update=multiplicative", "--param", "gamma=0.5"],
    ["run", "simproj", "TINY", "--grid", "update=additive,multiplicative", "--param",
     "gamma=0.5"],  # (read in one of the searched combinations)
    ["run", "iellip", "TINY", "--param", "w_init=random", "--param", "w_scale=0.1"],
])
def test_a_parameter_read_with_the_settings_given_is_taken(tiny, args):
    result = onlinear_cli(*[tiny if a == "TINY" else a for a in args])
    assert result.returncode == 0, result.stderr


def test_a_shared_param_goes_only_to_the_algorithms_that_read_it(tiny):
    result = onlinear_cli("compare", "pa", "pa1", "--data", tiny, "--param", "C=0.25",
                          "--format", "csv")
    assert result.returncode == 0, result.stderr
    params = dict(zip(*(Table.from_csv(result.stdout).column(c)
                        for c in ("algorithm", "params"))))
    assert params == {"pa": None, "pa1": "C=0.25"}


def test_a_shared_grid_searches_only_the_algorithms_that_read_it(tiny):
    result = onlinear_cli("compare", "pa", "pa1", "--data", tiny, "--grid", "C=0.1,1",
                          "--format", "markdown")
    assert result.returncode == 0, result.stderr
    grid = Table.from_markdown(result.stdout.split("\n\n")[1])
    assert set(grid.column("algorithm")) == {"pa1"}


def test_the_harness_refuses_an_unread_parameter_before_any_run():
    with pytest.raises(ValueError, match="pa does not use C"):
        compare(X6, Y6, ["pa"], params={"pa": {"C": 0.1}})
    with pytest.raises(ValueError, match="no compared algorithm reads C: pa does not use C"):
        compare(X6, Y6, ["pa"], grid={"C": [0.1, 1.0]})
    with pytest.raises(ValueError, match="spa does not use C"):
        harness.grid_search("spa", X6, Y6, {"C": [0.1, 1.0]})
    result = compare(X6, Y6, ["pa", "pa1"], grid={"C": [0.1, 1.0]})
    assert list(result.searches) == ["pa1"]


@pytest.fixture(scope="module")
def usps_head():
    X, y, _, _ = load_usps()
    return X[:150], y[:150]


def _cases():
    """(algorithm, settings, parameter, another value): every parameter the harness calls
    unread, under settings where it says so."""
    others = {"C": 0.01, "variant": "printed", "max_rule": "distance", "gamma": 0.3, "a": 0.25,
              "w_scale": 0.5}
    settings = {"gamma": {"update": "additive"}, "a": {"step": "fixed"},
                "w_scale": {"w_init": "zeros"}}
    cases = []
    for name in onlinear.available(kernel=None):
        # (the learners' own facts; none before the fix: no case)
        for key in getattr(onlinear.describe(name).estimator, "_read_only_with", {}):
            given = settings.get(key, {})
            if key not in onlinear.describe(name).unread({**given, key: others[key]}):
                continue  # (the algorithm reads it: pa1's C)
            cases.append((name, given, key, others[key]))
    return cases


@pytest.mark.parametrize("name, given, key, other", _cases())
def test_what_is_refused_is_indeed_unread(usps_head, name, given, key, other):
    """Grounds the learners' facts (``_read_only_with``) in their rules: with the settings under which it calls a
    parameter unread, another value of it learns the very same model."""
    X, y = usps_head
    if onlinear.describe(name).kernel:
        X, y = X[:60], y[:60]
    default = onlinear.make(name, **given).fit(X, y)
    changed = onlinear.make(name, **given, **{key: other}).fit(X, y)
    np.testing.assert_array_equal(default.decision_function(X), changed.decision_function(X))
    with pytest.raises(ValueError, match=f"{name} does not use {key}"):
        harness._check_params(name, {**given, key: other})


def test_the_cases_cover_pa_spa_and_their_kernel_forms():
    covered = {(name, key) for name, _, key, _ in _cases()}
    for name in ("pa", "spa", "kernel-pa", "kernel-spa"):
        assert {(name, "C"), (name, "variant")} <= covered
    assert ("pa1", "C") not in covered and ("kernel-spa2", "C") not in covered


# ---------------------------------------------------------------------- info of a dict param
@pytest.mark.parametrize("class_weight, labels, shown", [
    ({0: 2.0}, [0, 1, 0, 1], "{0: 2.0}"),
    ({"a": 2.0, "b": 0.5}, ["a", "b", "a", "b"], "{'a': 2.0, 'b': 0.5}"),
])
def test_info_shows_a_dict_hyperparameter_as_given(tmp_path, class_weight, labels, shown):
    path = tmp_path / "model.onlinear"
    X = np.array([[1., 0.], [0., 1.], [1., 1.], [-1., 0.]])
    onlinear.save(onlinear.make("pa1", class_weight=class_weight).fit(X, np.array(labels)),
                  path)
    result = onlinear_cli("info", path)
    assert result.returncode == 0, result.stderr
    assert "__pairs__" not in result.stdout
    header = json.loads(result.stdout)
    assert header["params"]["class_weight"] == shown
    assert header["params"]["C"] == 1.0 and header["algorithm"] == "pa1"  # the rest as before


def test_info_shows_a_malformed_stored_dict_as_stored(tmp_path):
    """(A damaged file, which load refuses: info shows what is there rather than a guess.)"""
    import zipfile

    path = tmp_path / "model.onlinear"
    onlinear.save(onlinear.make("pa1", class_weight={0: 2.0}), path)
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    header = json.loads(members["onlinear-model.json"])
    header["params"]["class_weight"] = {"__pairs__": [[0]]}
    members["onlinear-model.json"] = json.dumps(header).encode()
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    result = onlinear_cli("info", path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["params"]["class_weight"] == {"__pairs__": [[0]]}


# ------------------------------------------------------------------ points of a long run
def test_a_long_run_records_about_100_epoch_ends():
    (run,) = evaluate("perceptron", X6, Y6, epochs=20000).runs
    assert len(run.examples) <= 102
    ends = {int(e) // 6 for e in run.examples if e % 6 == 0}
    assert {1, 200, 400, 19800, 20000} <= ends and len(ends) == 101
    assert run.mistakes[-1] == 3 and run.examples[-1] == 120000  # every epoch learned


def test_tick_positions_of_a_million_epochs_are_about_100():
    positions = tick_positions(6, 10**6, 6 * 10**4)  # (the default tick: ~100 points)
    assert len(positions) <= 102
    assert positions[0] == 6 and positions[-1] == 6 * 10**6


def test_a_run_of_up_to_100_epochs_still_records_every_epoch():
    (run,) = evaluate("perceptron", X6, Y6, epochs=100, tick=4).runs
    ends = [int(e) // 6 for e in run.examples if e % 6 == 0]
    assert ends == list(range(1, 101))
    assert run.examples.tolist() == tick_positions(6, 100, 4).tolist()


def test_the_curves_of_a_long_run_carry_each_recorded_epochs_test_error():
    result = evaluate("perceptron", X6, Y6, epochs=250, X_test=X6, y_test=Y6)
    (run,) = result.runs
    assert len(run.test_errors) == 250  # (scored after every epoch, as before)
    rows = [row for row in result.curves() if row["examples"] % 6 == 0]
    assert len(rows) <= 2 * 101 < 250 and rows[-1]["epoch"] == 250  # (ends, and ticks on ends)
    assert all(row["test_error"] == run.test_errors[row["epoch"] - 1] for row in rows)


def test_onlinear_run_of_1000_epochs_prints_about_100_rows(tiny):
    result = onlinear_cli("run", "perceptron", tiny, "--epochs", 1000)
    assert result.returncode == 0, result.stderr
    epochs = [int(line.split()[0]) for line in result.stdout.splitlines()[2:]]
    assert epochs[:3] == [1, 10, 20] and epochs[-1] == 1000 and len(epochs) == 101


@pytest.mark.parametrize("name, given, key, other", [
    ("pa1", {}, "C", 1e-4), ("spa1", {}, "variant", "printed"), ("iellip", {}, "a", 0.25),
    ("simproj", {"update": "multiplicative"}, "gamma", 0.3),
    ("iellip", {"w_init": "random"}, "w_scale", 0.5),
])
def test_with_the_settings_that_read_it_the_same_change_changes_the_model(usps_head, name, given,
                                                                           key, other):
    """The converse of the test above, on the same data: the data can show a difference."""
    X, y = usps_head
    default = onlinear.make(name, **given).fit(X, y)
    changed = onlinear.make(name, **given, **{key: other}).fit(X, y)
    assert not np.array_equal(default.decision_function(X), changed.decision_function(X))
    harness._check_params(name, {**given, key: other})  # taken
