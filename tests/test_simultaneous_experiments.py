"""The paper's synthetic experiment (Amit, Shalev-Shwartz & Singer §9.1, Fig. 7) in miniature:
its qualitative ordering of the schemes (Fig. 7 and its discussion) holds on the §9.1 generator.

Sizes are our fast recipe (n = 100 features, 10 relevant, p = 0.5, 75%-quantile margin,
T = 300 trials) instead of the paper's n = 500 and T = 1000; block sizes 1, 5 and 20; counts are
imperfect trials averaged over five seeded repeats.  As in the paper, each multiplicative scheme
is scored at its best C on the average over the repeats (C ∈ {½, 1, 2}·γ_gen, γ = γ_gen); the
additive schemes use C = 1/8 (on these {−1, 0, 1} rows every C of the paper's grid gives the same
SimProj/MaxPA counts within one mistake).
"""
import numpy as np
import pytest
import scipy.sparse as sp

import onlinear
from onlinear.data import make_simplex_blocks

BLOCK_SIZES = (1, 5, 20)
SEEDS = range(5)
ADDITIVE = ("simperc", "conproj", "simproj", "simopt", "maxpa")
MULTIPLICATIVE_C = (0.5, 1.0, 2.0)  # × γ_gen


@pytest.fixture(scope="module")
def mistakes():
    """{(scheme, form, block size): mean imperfect trials}, forms "A" and "M"."""
    runs = {}
    for k in BLOCK_SIZES:
        for seed in SEEDS:
            data = make_simplex_blocks(300, block_size=k, n_features=100, n_relevant=10,
                                       n_margin_samples=5000, random_state=seed)
            X, y, block_ptr = data.blocks()
            for scheme in ADDITIVE:
                model = onlinear.make(scheme, task="blocks", C=0.125)
                runs.setdefault((scheme, "A", k), []).append(
                    model.fit(X, y, block_ptr=block_ptr).n_mistakes_)
                for c in MULTIPLICATIVE_C:
                    model = onlinear.make(scheme, task="blocks", C=c * data.margin,
                                          update="multiplicative", gamma=data.margin)
                    runs.setdefault((scheme, "M", k, c), []).append(
                        model.fit(X, y, block_ptr=block_ptr).n_mistakes_)
    means = {key: float(np.mean(values)) for key, values in runs.items()}
    out = {key: value for key, value in means.items() if key[1] == "A"}
    for scheme in ADDITIVE:
        for k in BLOCK_SIZES:
            out[(scheme, "M", k)] = min(means[(scheme, "M", k, c)] for c in MULTIPLICATIVE_C)
    return out


def test_the_generator_gives_engine_blocks():
    data = make_simplex_blocks(50, block_size=4, n_features=30, n_relevant=5,
                               n_margin_samples=2000, noise=0.5, random_state=0)
    X, y, block_ptr = data.blocks()
    assert sp.issparse(X) and X.shape == (200, 30) and block_ptr.tolist() == list(range(0, 201, 4))
    np.testing.assert_array_equal(X.toarray(), data.X.reshape(200, 30))
    np.testing.assert_array_equal(y, data.y.ravel())
    clean = data.blocks(sparse=False, clean=True)
    np.testing.assert_array_equal(np.sign(clean.X @ data.omega), clean.y)
    assert not np.array_equal(clean.y, y)  # half the trials were contaminated
    assert np.all(np.abs(clean.X @ data.omega) >= data.margin)


def test_simproj_beats_simperc_and_conproj_on_larger_blocks(mistakes):
    for k in (5, 20):
        assert mistakes[("simproj", "A", k)] < 0.5 * mistakes[("simperc", "A", k)]
        assert mistakes[("simproj", "A", k)] < 0.5 * mistakes[("conproj", "A", k)]


def test_simproj_beats_maxpa_beyond_single_rows(mistakes):
    """Fig. 7: "SimProj algorithms always perform better than the max update", additive and
    multiplicative; with one row per trial they are the same algorithm (PA-I)."""
    assert mistakes[("simproj", "A", 1)] == mistakes[("maxpa", "A", 1)]
    for k in (5, 20):
        assert mistakes[("simproj", "A", k)] < mistakes[("maxpa", "A", k)]
        assert mistakes[("simproj", "M", k)] < mistakes[("maxpa", "M", k)]


def test_additive_averaging_improves_with_block_size_and_max_updates_do_not(mistakes):
    """Fig. 7: SimProj.A and SimOpt.A make fewer mistakes as blocks grow (the averaged instance
    approaches the target's normal), MaxPA.A and the multiplicative schemes more."""
    for scheme in ("simproj", "simopt"):
        counts = [mistakes[(scheme, "A", k)] for k in BLOCK_SIZES]
        assert counts[0] > counts[1] > counts[2], (scheme, counts)
    counts = [mistakes[("maxpa", "A", k)] for k in BLOCK_SIZES]
    assert counts[0] < counts[1] < counts[2], counts
    for scheme in ("simproj", "maxpa"):
        counts = [mistakes[(scheme, "M", k)] for k in BLOCK_SIZES]
        assert counts[0] < counts[2], (scheme, counts)
