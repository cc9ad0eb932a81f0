"""``harness.compare`` on plausible argument mistakes: each is refused before any run with a
message that names the argument and shows the form it takes (they used to fail inside the
harness with bare Python or numpy errors, or be taken letter by letter)."""
import numpy as np
import pytest

from onlinear import harness

X = np.random.default_rng(0).normal(size=(40, 3))
Y = np.arange(40) % 3


def test_flat_params_as_evaluate_takes_them_are_refused_showing_compares_form():
    """(``dict(0.1)``: "'float' object is not iterable")"""
    with pytest.raises(TypeError, match=r"compare's params is \{algorithm: \{param: value\}\}.*"
                                        r"Give params=\{'pa1': \{'C': 0\.1\}\}"):
        harness.compare(X, Y, ["pa1"], params={"C": 0.1})
    assert harness.evaluate("pa1", X, Y, params={"C": 0.1}).runs[0].params == {"C": 0.1}


def test_params_of_an_algorithm_must_be_a_dict():
    with pytest.raises(TypeError, match=r"params\['pa1'\] must be a dict of pa1's "
                                        r"hyperparameters .*got 0\.1"):
        harness.compare(X, Y, ["pa1"], params={"pa1": 0.1})
    with pytest.raises(TypeError, match="params is .* a dict of dicts; got list"):
        harness.compare(X, Y, ["pa1"], params=[("pa1", {"C": 0.1})])


@pytest.mark.parametrize("value, said", [(0.1, "float 0.1"), (np.float64(0.1), "float64"),
                                         ("0.1", "a string, whose characters")])
def test_a_grid_value_that_is_not_a_list_is_refused(value, said):
    """(one value: "'float' object is not iterable"; a string: searched letter by letter)"""
    with pytest.raises(TypeError, match=rf"grid 'C': a grid's values are a list of the values "
                                        rf"to try; got {said}.*Give grid=\{{'C': \["):
        harness.compare(X, Y, ["pa1"], grid={"C": value})
    with pytest.raises(TypeError, match="a grid's values are a list"):
        harness.grid_search("pa1", X, Y, {"C": value})


def test_a_grid_must_be_a_dict_and_any_iterable_of_values_is_a_list():
    with pytest.raises(TypeError, match=r"grid is \{param: \[values\]\}.*got list"):
        harness.compare(X, Y, ["pa1"], grid=[0.1, 1.0])
    tuned = harness.compare(X, Y, ["pa1"], grid={"C": (0.1, 1.0)})
    assert tuned.searches["pa1"].grid == {"C": [0.1, 1.0]}
    tuned = harness.compare(X, Y, ["pa1"], grid={"C": np.array([0.1, 1.0])})
    assert tuned.searches["pa1"].table.column("C") == [0.1, 1.0]


def test_one_algorithm_name_alone_is_that_algorithm():
    """(``list("pa")``: "unknown algorithm 'p'")"""
    one = harness.compare(X, Y, "pa1", permutations=2, random_state=3)
    listed = harness.compare(X, Y, ["pa1"], permutations=2, random_state=3)
    assert [run.algorithm for run in one.runs] == ["pa1", "pa1"]
    for a, b in zip(one.runs, listed.runs):
        assert a.seed == b.seed
        np.testing.assert_array_equal(a.mistakes, b.mistakes)


@pytest.mark.parametrize("random_state", ["a", 1.5, True, [1, 2]])
def test_a_bad_random_state_is_refused_by_name(random_state):
    """(a numpy cast error naming no argument)"""
    with pytest.raises(ValueError, match=r"random_state must be an int, None or a numpy "
                                         r"RandomState"):
        harness.compare(X, Y, ["pa"], permutations=2, random_state=random_state)


def test_a_random_state_object_is_drawn_from():
    seeds = [[run.seed for run in harness.compare(
        X, Y, ["pa"], permutations=2, random_state=np.random.RandomState(5)).runs]
        for _ in range(2)]
    assert seeds[0] == seeds[1] and len(set(seeds[0])) == 2
    again = harness.compare(X, Y, ["pa"], permutations=2, random_state=np.int64(5))
    assert [run.seed for run in again.runs] == \
        [run.seed for run in harness.compare(X, Y, ["pa"], permutations=2,
                                             random_state=5).runs]


@pytest.mark.parametrize("option, value, error", [
    ("epochs", "1", TypeError), ("epochs", 1.0, TypeError), ("epochs", True, TypeError),
    ("epochs", 0, ValueError), ("permutations", "2", TypeError), ("permutations", 0, ValueError),
    ("tick", "5", TypeError), ("tick", 2.5, TypeError), ("tick", 0, ValueError),
])
def test_counts_that_are_not_whole_numbers_are_named(option, value, error):
    X = np.random.default_rng(0).normal(size=(12, 3))
    y = np.arange(12) % 2
    options = {"shuffle": True} if option == "permutations" else {}
    with pytest.raises(error, match=f"{option} must be"):
        harness.compare(X, y, ["pa"], **options, **{option: value})


def test_numpy_integers_are_counts():
    X = np.random.default_rng(0).normal(size=(12, 3))
    y = np.arange(12) % 2
    result = harness.compare(X, y, ["pa"], epochs=np.int64(2), tick=np.int32(4))
    assert result.runs[0].examples.tolist() == [4, 8, 12, 16, 20, 24]
