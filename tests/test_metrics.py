"""onlinear.metrics against brute-force loops over the constraints they count (Amit et al. §2–3)."""
import numpy as np
import pytest
import scipy.sparse as sp

from onlinear import metrics


def _brute_blocks(y, scores, block_ptr):
    imperfect = wrong = 0
    for t in range(len(block_ptr) - 1):
        rows = range(block_ptr[t], block_ptr[t + 1])
        bad = [j for j in rows if y[j] * scores[j] <= 0]
        wrong += len(bad)
        imperfect += bool(bad)
    return metrics.OnlineMistakes(len(block_ptr) - 1, imperfect, len(y), wrong)


def _brute_pairs(Y, scores):
    imperfect = wrong = pairs = 0
    per_example = []
    for row, s in zip(Y, scores):
        bad = n = 0
        for r in np.flatnonzero(row):
            for q in np.flatnonzero(row == 0):
                n += 1
                bad += s[r] <= s[q]
        pairs += n
        wrong += bad
        imperfect += bad > 0
        per_example.append(bad / n if n else 0.0)
    return metrics.OnlineMistakes(len(Y), imperfect, pairs, wrong), np.mean(per_example)


def test_block_mistakes_equal_a_loop_over_rows():
    rng = np.random.default_rng(0)
    for _ in range(20):
        sizes = rng.integers(0, 5, size=rng.integers(1, 12))
        block_ptr = np.concatenate([[0], np.cumsum(sizes)])
        n = block_ptr[-1]
        y = rng.choice([-1, 1], size=n)
        scores = rng.integers(-2, 3, size=n).astype(float)  # many exact zeros: ties
        assert metrics.block_mistakes(y, scores, block_ptr) == _brute_blocks(y, scores, block_ptr)


def test_pairwise_mistakes_and_ranking_loss_equal_a_loop_over_pairs():
    rng = np.random.default_rng(1)
    for _ in range(20):
        Y = (rng.random((15, 6)) < 0.4).astype(int)
        scores = rng.integers(-2, 3, size=Y.shape).astype(float)
        expected, loss = _brute_pairs(Y, scores)
        assert metrics.pairwise_mistakes(Y, scores) == expected
        assert metrics.pairwise_mistakes(sp.csr_matrix(Y), scores) == expected
        assert metrics.ranking_loss(Y, scores) == pytest.approx(loss)


def test_multiclass_imperfect_is_a_wrong_argmax_with_ties_as_errors():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 4, size=200)
    scores = rng.integers(0, 3, size=(200, 4)).astype(float)
    Y = np.eye(4, dtype=int)[y]
    true = scores[np.arange(200), y]
    others = np.where(Y == 1, -np.inf, scores).max(axis=1)
    counts = metrics.pairwise_mistakes(Y, scores)
    assert counts.n_imperfect == int(np.sum(others >= true))
    assert counts.n_constraints == 200 * 3


def test_ordinal_mistakes_equal_a_loop_over_thresholds():
    rng = np.random.default_rng(3)
    thresholds = np.sort(rng.normal(size=4))
    ranks = rng.integers(0, 5, size=100)
    scores = rng.normal(size=100)
    scores[:10] = thresholds[rng.integers(0, 4, size=10)]  # exactly on a threshold: a mistake
    imperfect = wrong = 0
    for r, f in zip(ranks, scores):
        bad = sum((1 if j < r else -1) * (f - b) <= 0 for j, b in enumerate(thresholds))
        wrong += bad
        imperfect += bad > 0
    assert metrics.ordinal_mistakes(ranks, scores, thresholds) == (100, imperfect, 400, wrong)
    # with ordered thresholds and no ties, imperfect ⇔ the predicted rank is wrong
    scores = rng.normal(size=100) * 2
    predicted = np.searchsorted(thresholds, scores, side="right")
    assert metrics.ordinal_mistakes(ranks, scores, thresholds).n_imperfect == \
        int(np.sum(predicted != ranks))


def test_hamming_and_ordinal_errors():
    assert metrics.hamming_loss([[1, 0], [0, 1]], [[1, 1], [0, 1]]) == 0.25
    assert metrics.ordinal_absolute_error(["b", "a"], ["a", "c"], classes=["a", "b", "c"]) == 1.5
    with pytest.raises(ValueError, match="not in classes"):
        metrics.ordinal_absolute_error(["b", "z"], ["a", "c"], classes=["a", "b", "c"])


@pytest.mark.parametrize(("call", "message"), [
    (lambda: metrics.block_mistakes([1, 0], [1.0, 1.0], [0, 2]), "only −1 and \\+1"),
    (lambda: metrics.block_mistakes([1, 1], [1.0, 1.0], [0, 3]), "block_ptr must rise"),
    (lambda: metrics.block_mistakes([1, 1], [1.0, np.nan], [0, 2]), "NaN"),
    (lambda: metrics.pairwise_mistakes([[1, 2]], [[0.0, 1.0]]), "binary indicator"),
    (lambda: metrics.pairwise_mistakes([[1, 0]], [[0.0, 1.0, 2.0]]), "shape"),
    (lambda: metrics.ordinal_mistakes([0, 3], [0.0, 1.0], [0.0, 1.0]), "ranks must lie"),
])
def test_bad_input_is_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()
