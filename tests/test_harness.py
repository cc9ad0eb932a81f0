"""The experiment harness: its numbers equal hand traces and independent runs of the estimators."""
import json
import statistics

import numpy as np
import pytest

import onlinear
from onlinear.data import load_usps
from onlinear.harness import Table, compare, evaluate, grid_search, tick_positions

# A six-example stream, labels ±1, traced by hand for the binary Perceptron (β = 0): it
# predicts +1 iff w·x > 0 and updates (w += y x) iff y (w·x) ≤ 0, ties included.
#   t  x        y   w·x  predicted  mistake  update  w after
#   1  ( 1, 0)  +1   0     −1        yes      yes    (1, 0)
#   2  ( 0, 1)  −1   0     −1        no       yes    (1,−1)
#   3  ( 1, 1)  +1   0     −1        yes      yes    (2, 0)
#   4  (−1, 0)  −1  −2     −1        no       no     (2, 0)
#   5  ( 0,−1)  +1   0     −1        yes      yes    (2,−1)
#   6  ( 1, 0)  +1   2     +1        no       no     (2,−1)
# A second pass from w = (2,−1) scores 2, −1, 1, −2, 1, 2: no mistake, no update.
X6 = np.array([[1., 0.], [0., 1.], [1., 1.], [-1., 0.], [0., -1.], [1., 0.]])
Y6 = np.array([1, -1, 1, -1, 1, 1])
# w = (2,−1) scores the test rows 2, −1, −1, −2: predicts +1, −1, −1, −1, two of four wrong.
X6_TEST = np.array([[1., 0.], [0., 1.], [1., 3.], [-1., 0.]])
Y6_TEST = np.array([1, 1, -1, 1])


def test_ticks_match_the_hand_trace():
    result = evaluate("perceptron", X6, Y6, tick=2)
    (run,) = result.runs
    assert run.examples.tolist() == [2, 4, 6]
    assert run.mistakes.tolist() == [1, 2, 3]
    assert run.updates.tolist() == [2, 3, 4]
    assert run.mistake_rate.tolist() == [0.5, 0.5, 0.5]
    assert np.all(np.diff(run.seconds) >= 0) and run.seconds[0] >= 0
    assert run.seed is None and run.test_errors == []


def test_a_tick_that_does_not_divide_the_stream_also_records_the_end():
    (run,) = evaluate("perceptron", X6, Y6, tick=4).runs
    assert run.examples.tolist() == [4, 6]
    assert run.mistakes.tolist() == [2, 3]
    assert run.updates.tolist() == [3, 4]
    assert tick_positions(6, 2, 4).tolist() == [4, 6, 8, 12]


def test_ticks_that_do_not_divide_the_stream_run_on_across_epochs():
    (run,) = evaluate("perceptron", X6, Y6, tick=4, epochs=3).runs
    assert run.examples.tolist() == [4, 6, 8, 12, 16, 18]
    assert run.epoch.tolist() == [1, 1, 2, 2, 3, 3]
    assert run.examples.tolist() == tick_positions(6, 3, 4).tolist()


class _Stopped(Exception):
    pass


class _StopAfter:
    """A runner of the first permutation cell that stops it once ``examples`` are learned (its
    progress raises): what a run of many epochs costs before and while it learns."""

    warms_up_here = False

    def __init__(self, examples):
        self.examples, self.learned = examples, 0

    def run(self, cells, bar):
        cells.run(cells.algorithms[0], {}, 0, False, progress=self)

    def update(self, n):
        self.learned += n
        if self.learned >= self.examples:
            raise _Stopped


def test_a_run_of_a_million_epochs_holds_one_epoch_of_ticks():
    """The tick positions of every epoch were made before the first example: a set of one
    entry per epoch, ~100 MB for a million epochs (``--epochs 1000000000`` was killed for
    want of memory before learning anything)."""
    import tracemalloc

    runner = _StopAfter(18)
    tracemalloc.start()
    try:
        with pytest.raises(_Stopped):
            compare(X6, Y6, ["perceptron"], epochs=10**6, tick=4, runner=runner)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert runner.learned == 18  # three epochs, at the ticks 4, 6, 8, 12, 16, 18
    assert peak < 5 * 2**20, f"{peak / 2**20:.0f} MiB"


def test_epochs_continue_the_counts_and_score_the_test_set_after_each():
    result = evaluate("perceptron", X6, Y6, tick=3, epochs=2, X_test=X6_TEST, y_test=Y6_TEST)
    (run,) = result.runs
    assert run.examples.tolist() == [3, 6, 9, 12]
    assert run.epoch.tolist() == [1, 1, 2, 2]
    assert run.mistakes.tolist() == [2, 3, 3, 3]
    assert run.updates.tolist() == [3, 4, 4, 4]
    assert run.test_errors == [0.5, 0.5]
    curves = result.curves()
    assert curves.column("test_error") == [None, 0.5, None, 0.5]
    (row,) = result.summary()
    assert row["mistake_rate"] == 3 / 12 and row["updates"] == 4 and row["test_error"] == 0.5
    assert row["examples"] == 12 and row["epochs"] == 2 and row["permutations"] == 1


@pytest.fixture(scope="module")
def usps_head():
    X, y, X_test, y_test = load_usps()
    return X[:400], y[:400], X_test[:200], y_test[:200]


def _reference_curve(model, X, y, orders, ticks):
    """Counters after each tick, from partial_fit calls only (the public API)."""
    classes = np.unique(y)
    rows = np.concatenate(orders)
    out, done = [], 0
    for stop in ticks:
        model.partial_fit(X[rows[done:stop]], y[rows[done:stop]], classes=classes)
        out.append((model.n_seen_, model.n_mistakes_, model.n_updates_))
        done = stop
    return out


@pytest.mark.parametrize("name", onlinear.available("multiclass"))
def test_every_algorithm_matches_a_partial_fit_loop(usps_head, name):
    X, y, X_test, y_test = usps_head
    result = evaluate(name, X, y, tick=150, epochs=2, X_test=X_test, y_test=y_test)
    (run,) = result.runs
    model = onlinear.make(name)
    expected = _reference_curve(model, X, y, [np.arange(400)] * 2, run.examples)
    assert list(zip(run.examples, run.mistakes, run.updates)) == expected
    assert run.test_errors[-1] == pytest.approx(1 - model.score(X_test, y_test))


def test_permutations_are_seeded_shared_and_summarized(usps_head):
    X, y, _, _ = usps_head
    result = compare(X, y, ["pa1", "perceptron-max"], permutations=3, random_state=7, tick=100,
                     epochs=2)
    seeds = [run.seed for run in result.runs if run.algorithm == "pa1"]
    assert len(set(seeds)) == 3
    assert seeds == [run.seed for run in result.runs if run.algorithm == "perceptron-max"]
    again = compare(X, y, ["pa1"], permutations=3, random_state=7, tick=100, epochs=2)
    assert [run.seed for run in again.runs] == seeds
    summary = result.summary()
    for name in ("pa1", "perceptron-max"):
        runs = [run for run in result.runs if run.algorithm == name]
        rates, updates = [], []
        for run in runs:  # epoch e is the e-th permutation drawn from default_rng(seed)
            rng = np.random.default_rng(run.seed)
            orders = [rng.permutation(400), rng.permutation(400)]
            counts = _reference_curve(onlinear.make(name), X, y, orders, run.examples)
            assert [c[1] for c in counts] == run.mistakes.tolist()
            assert [c[2] for c in counts] == run.updates.tolist()
            rates.append(counts[-1][1] / 800)
            updates.append(counts[-1][2])
        (row,) = summary.where(algorithm=name)
        assert row["permutations"] == 3
        assert row["mistake_rate"] == pytest.approx(statistics.mean(rates))
        assert row["mistake_rate_std"] == pytest.approx(statistics.stdev(rates))
        assert row["updates"] == pytest.approx(statistics.mean(updates))
        assert row["updates_std"] == pytest.approx(statistics.stdev(updates))
        curve = result.mean_curves()[name]
        assert curve["mistake_rate"][-1] == pytest.approx(statistics.mean(rates))
        assert curve["mistake_rate_std"][-1] == pytest.approx(statistics.stdev(rates))
    assert "±" in result.report()


def test_several_permutations_need_shuffling():
    with pytest.raises(ValueError, match="shuffle"):
        compare(X6, Y6, ["perceptron"], permutations=2, shuffle=False)


# A stream on which the Perceptron's margin β changes the outcome, traced by hand:
#   β = 0: mistakes on rounds 1, 4, 5, 6            → 4 mistakes, 4 updates
#   β = 1: mistakes on rounds 1, 4, 5; updates also on 2 and 6      → 3 mistakes, 5 updates
#   β = 3: w = (0,−1), (0,−2), (1,−3), (2,−3); round 5 scores −5 (mistake) → (1,−2);
#          round 6 → (1,−1)                          → 2 mistakes, 6 updates
X_GRID = np.array([[0., -1.], [0., 1.], [-1., 1.], [1., 0.], [-1., 1.], [0., -1.]])
Y_GRID = np.array([1, -1, -1, 1, 1, 1])


def test_grid_search_picks_the_hand_checked_best():
    search = grid_search("perceptron", X_GRID, Y_GRID, {"beta": [0.0, 1.0, 3.0]})
    assert search.table.column("mistakes") == [4, 3, 2]
    assert search.table.column("updates") == [4, 5, 6]
    assert search.best_params == {"beta": 3.0}


def test_grid_search_ties_go_to_the_first_in_grid_order():
    # On the six-example stream every β ≤ 2 makes 3 mistakes.
    assert grid_search("perceptron", X6, Y6, {"beta": [2.0, 0.0, 1.0]}).best_params == {
        "beta": 2.0}


def test_compare_tunes_only_the_algorithms_that_have_the_key():
    result = compare(X_GRID, Y_GRID, ["perceptron", "mcp"], grid={"beta": [0.0, 1.0, 3.0]})
    assert list(result.searches) == ["perceptron"]
    assert result.runs[0].params == {"beta": 3.0} and result.runs[1].params == {}
    assert result.summary()[0]["params"] == "beta=3.0"
    assert result.searched().column("beta") == [0.0, 1.0, 3.0]
    with pytest.raises(ValueError, match="no compared algorithm"):
        compare(X_GRID, Y_GRID, ["mcp"], grid={"beta": [0.0]})


class _BackwardsRunner:
    """A runner of its own: every cell in reverse order (the last algorithm's last permutation
    first), each search finished before its algorithm's permutations, through the cells'
    methods only."""

    warms_up_here = False

    def __init__(self):
        self.order = []

    def run(self, cells, bar):
        runs, searches = {}, {}
        for name in reversed(cells.algorithms):
            best = None
            if cells.grids[name]:
                combinations = range(len(cells.combinations(name)))
                searched = {i: cells.run(name, cells.cell_params(name, i, True), i, True)
                            for i in reversed(combinations)}
                searches[name] = cells.choose(name, [searched[i] for i in combinations])
                best = searches[name].best_params
            for index in reversed(range(len(cells.seeds))):
                self.order.append((name, index))
                runs[name, index] = cells.run(name, cells.cell_params(name, index, False, best),
                                              index, False)
        return [runs[name, i] for name in cells.algorithms for i in range(len(cells.seeds))], \
            searches


def test_a_runner_of_its_own_runs_the_same_cells():
    grid = dict(grid={"beta": [0.0, 1.0, 3.0]}, permutations=3, epochs=2, random_state=4,
                tick=2)
    serial = compare(X_GRID, Y_GRID, ["perceptron", "mcp"], **grid)
    runner = _BackwardsRunner()
    other = compare(X_GRID, Y_GRID, ["perceptron", "mcp"], runner=runner, **grid)
    assert runner.order[0] == ("mcp", 2) and len(runner.order) == 6
    assert other.searches["perceptron"].best_params == serial.searches["perceptron"].best_params
    for a, b in zip(serial.runs, other.runs):
        assert (a.algorithm, a.seed, a.params) == (b.algorithm, b.seed, b.params)
        np.testing.assert_array_equal(a.mistakes, b.mistakes)
        np.testing.assert_array_equal(a.updates, b.updates)


@pytest.mark.parametrize("call, message", [
    (lambda: evaluate("no-such-learner", X6, Y6), "unknown algorithm"),
    (lambda: evaluate("pa1", X6, Y6, params={"gamma": 1}), "no hyperparameter 'gamma'"),
    (lambda: evaluate("pa1", X6, Y6, params={"slack": "none"}), "fixes slack"),
    (lambda: evaluate("pa1", X6, Y6, params={"n_epochs": 3}), "set by the harness"),
    (lambda: evaluate("pa1", X6, Y6, params={"C": -1.0}), "'C' parameter"),
    (lambda: grid_search("pa1", X6, Y6, {"C": [1.0, -1.0]}), "'C' parameter"),
    (lambda: compare(np.eye(3), [0, 1, 2], ["winnow"]), "two classes only"),
    (lambda: compare(X6, Y6[:5], ["pa1"]), "one label per row"),
])
def test_bad_requests_raise_value_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_the_default_algorithms_come_from_the_registry():
    three = compare(np.eye(3), [0, 1, 2], tick=3)
    assert three.algorithms == onlinear.available("multiclass")
    two = compare(X6, Y6, tick=6)
    assert two.algorithms == onlinear.available()


# ----------------------------------------------------------------------------- tables
AWKWARD = Table([
    {"algorithm": "pa1", "params": "C=0.001 variant=exact", "rate": 0.1 + 0.2, "n": 3,
     "missing": None, "note": 'a|b, "quoted"'},
    {"algorithm": "mira", "params": None, "rate": 1e-17, "n": -4, "missing": None,
     "note": "back\\slash"},
])


@pytest.mark.parametrize("fmt", ["csv", "json", "markdown"])
def test_tables_round_trip(tmp_path, fmt):
    path = tmp_path / f"table.{fmt}"
    text = getattr(AWKWARD, f"to_{fmt}")(path)
    assert path.read_text(encoding="utf-8") == text
    back = getattr(Table, f"from_{fmt}")(text)
    assert back == AWKWARD
    assert back.columns == AWKWARD.columns
    assert back[0]["rate"] == 0.1 + 0.2 and back[1]["missing"] is None


@pytest.mark.parametrize("fmt", ["csv", "json", "markdown"])
def test_result_tables_round_trip(fmt):
    result = compare(X6, Y6, ["perceptron", "pa1"], params={"pa1": {"C": 0.5}}, tick=2,
                     X_test=X6_TEST, y_test=Y6_TEST)
    for table in (result.summary(), result.curves()):
        assert getattr(Table, f"from_{fmt}")(getattr(table, f"to_{fmt}")()) == table


def test_exports_are_standard_formats():
    result = evaluate("perceptron", X6, Y6, tick=2)
    records = json.loads(result.curves().to_json())
    assert [r["mistakes"] for r in records] == [1, 2, 3]
    import csv
    import io

    rows = list(csv.DictReader(io.StringIO(result.curves().to_csv())))
    assert [int(r["updates"]) for r in rows] == [2, 3, 4]
    markdown = result.summary().to_markdown(digits=3).splitlines()
    assert markdown[0].startswith("| algorithm |") and markdown[1].startswith("|:---|")
    assert "| perceptron |" in markdown[2] and "| 0.5 |" in markdown[2]


def test_plot_has_three_panels_and_one_line_per_algorithm(tmp_path):
    pytest.importorskip("matplotlib")
    from onlinear.plots import plot_curves

    result = compare(X_GRID, Y_GRID, ["perceptron", "mcp"], permutations=2, random_state=0,
                     tick=2)
    figure = plot_curves(result, tmp_path / "curves.png")
    axes = figure.axes
    assert [ax.get_title() for ax in axes] == ["Cumulative mistake rate", "Cumulative updates",
                                               "Learning time"]
    assert all(len(ax.get_lines()) == 2 for ax in axes)
    assert all(ax.get_xlabel() == "examples seen" for ax in axes)
    assert [t.get_text() for t in figure.legends[0].get_texts()] == ["perceptron", "mcp"]
    assert (tmp_path / "curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("tick", [0, -1])
def test_tick_positions_refuses_a_tick_below_one(tick):
    with pytest.raises(ValueError, match="tick"):
        tick_positions(5, 2, tick)


def test_compare_refuses_an_empty_grid_and_an_algorithm_given_twice():
    X = np.array([[1., 0.], [0., 1.], [1., 1.], [-1., 0.]])
    y = np.array([1, -1, 1, -1])
    with pytest.raises(ValueError, match="'C' has no values"):
        compare(X, y, ["pa1"], grid={"C": []})
    with pytest.raises(ValueError, match="'C' has no values"):
        grid_search("pa1", X, y, {"C": []})
    with pytest.raises(ValueError, match="'pa1' given more than once"):
        compare(X, y, ["pa1", "pa1"])
