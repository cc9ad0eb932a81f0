"""The figure-only experiments of ``onlinear reproduce``: what each says of the paper's plotted
values, Yang, Jin & Ye Fig. 1's readings of the paper's axes beside our bars, its averaged
hypothesis (a variant on the same runs) and the note that traces its failing claims."""
import numpy as np
import pytest

from reproduce_runs import _no_data_directory, quick  # noqa: F401 (a fixture)
from onlinear import reproduce
from onlinear.reproduce import yang_jin_ye
from onlinear.reproduce._framework import CAPTION_ONLY, FIGURE_VALUES_NOTE, Claim
from onlinear.reproduce._protocol import epoch_runs, make, rng

FIGURE_ONLY = {"amit-fig7", "amit-fig8", "amit-fig9", "matsushima-fig1", "matsushima-fig2",
               "yang-jin-ye-fig1", "yang-jin-ye-fig2", "bshouty-fig3"}


def test_every_figure_only_experiment_says_what_of_the_paper_s_values_it_has():
    stated = {e.id for e in reproduce.list_experiments() if e.figure_values}
    assert stated == FIGURE_ONLY
    # only Yang, Jin & Ye's Fig. 1 has values to read (its axes): the others say they have none
    read = {e.id for e in reproduce.list_experiments() if e.figure_values
            and e.figure_values != CAPTION_ONLY}
    assert read == {"yang-jin-ye-fig1", "yang-jin-ye-fig2"}
    assert reproduce.describe("yang-jin-ye-fig2").figure_values.startswith("none")


@pytest.mark.parametrize("id", ["amit-fig7", "yang-jin-ye-fig1"])
def test_the_figure_values_are_a_note_of_every_run(id):
    result = quick(id)
    notes = [n for n in result.notes if n.startswith(FIGURE_VALUES_NOTE)]
    assert notes == [f"{FIGURE_VALUES_NOTE} {reproduce.describe(id).figure_values}"]
    # a figure-only experiment compares no printed number
    assert len(result.comparison) == 0


def test_fig1_readings_place_our_tallest_bar_against_the_paper_s_axis():
    datasets = ("usps", "letter")
    avg = {(n, a, e): (10.0, 1_000.0) for n in datasets for a in yang_jin_ye.LEARNERS
           for e in (1, 2, 3)}
    avg[("letter", "MIRA", 1)] = (55.0, 32_000.0)   # within the bands of epoch 1
    avg[("usps", "PA", 2)] = (61.0, 9_000.0)        # error above the axis, updates below
    table = yang_jin_ye.fig1_readings(avg, datasets)
    rows = {(r["quantity"], r["epoch"]): r for r in table}
    assert len(rows) == 6
    assert rows[("error", 1)]["ours_place"] == "within the band"
    assert rows[("error", 1)]["ours_tallest_bar"] == "letter MIRA"
    assert rows[("updates", 1)]["ours_place"] == "within the band"
    assert (rows[("updates", 1)]["paper_tallest_from"],
            rows[("updates", 1)]["paper_tallest_to"]) == (30_000.0, 35_000.0)
    assert rows[("error", 2)]["ours_place"] == "above the axis"
    assert rows[("updates", 2)]["ours_place"] == "below the band"
    assert rows[("error", 3)]["ours_place"] == "below the band"
    assert all(r["reading_error"] == r["paper_tallest_to"] - r["paper_tallest_from"]
               for r in table)


def test_the_quick_fig1_carries_the_readings_and_the_failing_claims_note():
    fig1 = quick("yang-jin-ye-fig1")
    readings = fig1.tables["paper-readings"]
    assert len(readings) == 6
    runs = fig1.tables["runs"]
    tallest = max(np.mean([r["error"] for r in runs if (r["data"], r["algorithm"], r["epoch"])
                           == (n, a, 3)]) for n in ("usps", "letter") for a in ("PA", "MIRA",
                                                                                 "IELLIP"))
    row = next(r for r in readings if (r["quantity"], r["epoch"]) == ("error", 3))
    assert row["ours_tallest"] == pytest.approx(tallest)
    failing = [c for c in fig1.claims if not c.holds]
    traced = [n for n in fig1.notes if n.startswith("Fig. 1's failing claims")
              or n.startswith("Every claim of Fig. 1 holds")]
    assert len(traced) == 1
    assert traced[0].startswith("Fig. 1's failing claims" if failing else "Every claim")
    for c in failing:
        assert c.statement in traced[0]


def _rows(final, averaged, name="usps"):
    """Runs-table rows of three learners, one seed, three epochs: the final hypothesis's errors
    ``final[learner]`` and the averaged one's ``averaged[learner]`` (one per epoch)."""
    rows = []
    for learner in yang_jin_ye.LEARNERS:
        for e in range(3):
            rows.append({"data": name, "algorithm": learner, "epoch": e + 1,
                         "error": final[learner][e]})
            rows.append({"data": name, "algorithm": f"{learner} (averaged)", "epoch": e + 1,
                         "error": averaged[learner][e]})
    return rows


def test_failing_claims_note_counts_the_jumps_and_judges_the_averaged_variant():
    final = {"PA": [10, 10, 10], "MIRA": [10, 11, 10], "IELLIP": [12, 30, 25]}
    averaged = {"PA": [10, 9, 9], "MIRA": [10, 10, 9], "IELLIP": [10, 9.5, 9.5]}
    claims = [Claim("usps: IELLIP's test error is comparable", "§3, Fig. 1", False, "ep 2: 30"),
              Claim("usps: IELLIP makes fewer updates than PA", "§3, Fig. 1", True, "")]
    note = yang_jin_ye.failing_claims_note(claims, ("usps",), _rows(final, averaged), 1)
    assert note.startswith("Fig. 1's failing claims (1 of 2; their numbers in the claims "
                           "above): usps: IELLIP's test error is comparable. ")
    assert "fewer updates" not in note
    # two of IELLIP's three epoch-ends jump by more than 5 points; PA's and MIRA's none
    assert "usps IELLIP 2/3 (final 12.0–30.0 %, averaged 9.5–10.0 %)" in note
    assert "usps PA 0/3" in note and "usps MIRA 0/3" in note
    # the averaged IELLIP is within 1 point of the best averaged PA/MIRA after every epoch
    assert "usps holds (epoch 3: IELLIP 9.50, PA 9.00, MIRA 9.00)" in note
    averaged["IELLIP"][0] = 12.0
    note = yang_jin_ye.failing_claims_note(claims, ("usps",), _rows(final, averaged), 1)
    assert "usps fails" in note
    held = [Claim("x", "§3", True, "")]
    assert yang_jin_ye.failing_claims_note(held, ("usps",), _rows(final, averaged), 1) \
        == "Every claim of Fig. 1 holds on our means."


def _letter(rows=600, test=300):
    from sklearn.preprocessing import normalize

    from onlinear.data import load_letter

    X, y, X_test, y_test = load_letter()
    return normalize(X[:rows]), y[:rows], normalize(X_test[:test]), y_test[:test]


@pytest.mark.parametrize("algorithm,params", [("pa", {}), ("iellip", {"matrix": "stacked"})])
def test_averaged_runs_learn_what_the_plain_runs_learn(algorithm, params):
    """Learning in chunks of rows changes nothing: the final hypothesis's records equal
    :func:`epoch_runs`' on the same orders."""
    X, y, X_test, y_test = _letter()
    classes = np.unique(y)
    plain = epoch_runs(make(algorithm, **params), X, y, X_test, y_test, epochs=2,
                       order_rng=rng("test/averaged", 3), classes=classes)
    chunked = yang_jin_ye.averaged_epoch_runs(
        make(algorithm, **params), X, y, X_test, y_test, epochs=2,
        order_rng=rng("test/averaged", 3), classes=classes, every=37)
    for p, c in zip(plain, chunked, strict=True):
        assert (p["error"], p["updates"], p["mistakes"]) == (c["error"], c["updates"],
                                                             c["mistakes"])


def test_the_averaged_hypothesis_is_the_mean_of_the_chunk_ends():
    X, y, X_test, y_test = _letter(rows=200, test=300)
    classes = np.unique(y)
    # one chunk per epoch: after epoch 1 the average is of one hypothesis, the final one
    one = yang_jin_ye.averaged_epoch_runs(make("pa"), X, y, X_test, y_test, epochs=2,
                                          order_rng=rng("test/averaged", 0), classes=classes,
                                          every=X.shape[0])
    assert one[0]["averaged_error"] == one[0]["error"]
    # by hand: the mean of the weights after every 50 rows, over two epochs
    model = make("pa")
    stream = model.stream(X, y, classes=classes)
    generator = rng("test/averaged", 0)
    snapshots = []
    for _ in range(2):
        order = generator.permutation(X.shape[0])
        for start in range(0, X.shape[0], 50):
            stream.learn(order[start:start + 50])
            snapshots.append((model.coef_.copy(), np.copy(getattr(model, "intercept_", 0.0))))
    coef = np.mean([c for c, _ in snapshots], axis=0)
    intercept = np.mean([b for _, b in snapshots], axis=0)
    predicted = classes[np.argmax(X_test @ coef.T + intercept, axis=1)]
    expected = 100.0 * np.mean(predicted != y_test)
    runs = yang_jin_ye.averaged_epoch_runs(make("pa"), X, y, X_test, y_test, epochs=2,
                                           order_rng=rng("test/averaged", 0), classes=classes,
                                           every=50)
    assert runs[1]["averaged_error"] == pytest.approx(expected)
    # and it is another hypothesis than the final one (the test can tell them apart)
    final = classes[np.argmax(X_test @ model.coef_.T + getattr(model, "intercept_", 0.0),
                              axis=1)]
    assert np.any(final != predicted)


def test_source_changes_name_what_a_section_of_an_older_commit_misses():
    """The report's Source line says, for each run's commit, which source files differ from
    the assembly's checkout (here: this test's own checkout)."""
    import subprocess
    from pathlib import Path

    from onlinear.reproduce._framework import source_changes, source_commit

    assert source_changes("0000000000000000") is None  # not a commit: git cannot tell
    if source_commit() == "not a git checkout":  # an installed copy: nothing to compare
        assert source_changes("HEAD") is None
        return
    here = Path(reproduce.__file__).resolve().parent
    root = subprocess.run(["git", "rev-list", "--max-parents=0", "HEAD"], cwd=here,
                          capture_output=True, text=True, check=True).stdout.split()[0]
    # the first commit had no reproduction package: its files all differ since
    assert "src/onlinear/reproduce/yang_jin_ye.py" in source_changes(root)
    # a described commit names its hash after "-g" (a tag before it) or alone
    assert source_changes(f"v0-1-g{root[:12]}") == source_changes(root)
