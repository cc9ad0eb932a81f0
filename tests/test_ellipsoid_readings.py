"""IELLIP's readings of Algorithm 2 (Yang, Jin & Ye §2.3, eq. (15); §3): what t counts in
``c_t`` (``decay``), what P⁻¹ mixes in (``p_update``), where w starts (``w_init``).

Every reading of the estimator equals an independent numpy transcription on the same data and
orders: :func:`onlinear.reproduce.yang_jin_ye.iellip_reference` for one ellipsoid per class,
and the short references below for the per-output layouts (full and diagonal, binary too) and
the paper's stacked matrix (§2.4).  The defaults are the printed reading; a model learned in
chunks, or saved and loaded part way, is the model learned in one pass; combinations that make
no sense are refused."""
import numpy as np
import pytest
from sklearn.preprocessing import normalize

import onlinear
from onlinear.data import load_usps
from onlinear.reproduce.yang_jin_ye import iellip_reference

READINGS = [("rounds", "normalized"), ("updates", "normalized"), ("rounds", "raw"),
            ("updates", "raw"), ("constant", "normalized")]
GAMMA = 0.1


def _usps(n=300):
    X, y, _, _ = load_usps()
    return normalize(X[:n]), y[:n]


def _blobs(n=240, d=12, k=4, seed=0):
    """Overlapping Gaussian classes in the unit ball (every reading makes many updates)."""
    generator = np.random.default_rng(seed)
    centres = generator.normal(size=(k, d))
    y = generator.integers(0, k, size=n)
    X = centres[y] + 1.5 * generator.normal(size=(n, d))
    return X / np.linalg.norm(X, axis=1).max(), y


def _orders(n, epochs=2, seed=3):
    generator = np.random.default_rng(seed)
    return [generator.permutation(n) for _ in range(epochs)]


def _memory(decay, t, b, c):
    if decay == "constant":
        return 1.0 - b
    return c * b ** (t - 1)


def _metric_update(P, u, v, c_t, p_update):
    """(15) as printed, or with the raw instance (Sherman–Morrison), on a full or a diagonal
    P (``u`` = P x, ``v`` = xᵀPx)."""
    if c_t <= 1e-15:
        return P
    outer = np.outer(u, u) if P.ndim == 2 else u * u
    k = c_t / v if p_update == "normalized" else c_t / ((1.0 - c_t) + c_t * v)
    return (P - k * outer) / (1.0 - c_t)


def per_output_reference(X, y, n_classes, orders, *, b, c, decay, p_update, diagonal, w_1=None):
    """One ellipsoid per output (z = ±1 one-vs-rest; one output for two classes), full or
    diagonal P: ``(W, mistakes, updates)``."""
    m = 1 if n_classes == 2 else n_classes
    d = X.shape[1]
    W = np.zeros((m, d)) if w_1 is None else w_1.copy()
    P = [0.1 * (np.ones(d) if diagonal else np.eye(d)) for _ in range(m)]
    made = np.zeros(m, dtype=int)
    seen = mistakes = updates = 0
    for order in orders:
        for i in order:
            x, label = X[i], y[i]
            seen += 1
            s = W @ x
            predicted = (1 if s[0] > 0 else 0) if m == 1 else int(np.argmax(s))
            mistakes += predicted != label
            changed = False
            for r in range(m):
                z = (1.0 if label == 1 else -1.0) if m == 1 else (1.0 if label == r else -1.0)
                if z * s[r] > 0:
                    continue
                u = P[r] * x if diagonal else P[r] @ x
                v = float(x @ u)
                W[r] += (GAMMA - z * s[r]) / v * z * u
                made[r] += 1
                c_t = _memory(decay, seen if decay == "rounds" else made[r], b, c)
                P[r] = _metric_update(P[r], u, v, c_t, p_update)
                changed = True
            updates += changed
    return W, mistakes, updates


def stacked_reference(X, y, n_classes, orders, *, b, c, decay, p_update):
    """The paper's stacked (K·d)×(K·d) matrix (§2.4): cut direction x in block y, −x in the
    block of the best rival; ``(W, mistakes, updates)``."""
    k, d = n_classes, X.shape[1]
    w = np.zeros(k * d)
    P = 0.1 * np.eye(k * d)
    seen = mistakes = updates = 0
    for order in orders:
        for i in order:
            x, label = X[i], y[i]
            seen += 1
            s = w.reshape(k, d) @ x
            mistakes += int(np.argmax(s)) != label
            rivals = np.where(np.arange(k) == label, -np.inf, s)
            rival = int(np.argmax(rivals))
            margin = s[label] - s[rival]
            if margin > 0:
                continue
            z = np.zeros(k * d)
            z[label * d:(label + 1) * d] = x
            z[rival * d:(rival + 1) * d] = -x
            u = P @ z
            v = float(z @ u)
            w += (GAMMA - margin) / v * u
            updates += 1
            c_t = _memory(decay, seen if decay == "rounds" else updates, b, c)
            P = _metric_update(P, u, v, c_t, p_update)
    return w.reshape(k, d), mistakes, updates


def _fit_orders(model, X, y, orders, classes):
    for order in orders:
        model.partial_fit(X[order], y[order], classes=classes)
    return model


def _assert_close(ours, reference):
    scale = np.abs(reference).max()
    np.testing.assert_allclose(ours, reference, rtol=0, atol=1e-10 * scale)


def _c(decay, b):
    return None if decay == "constant" else 0.5 * (1 - b)


@pytest.mark.parametrize("decay,p_update", READINGS)
@pytest.mark.parametrize("b", [0.3, 0.9])
def test_per_class_equals_the_numpy_transcription(decay, p_update, b):
    X, y = _usps()
    classes = np.unique(y)
    orders = _orders(X.shape[0])
    model = _fit_orders(onlinear.IELLIP(b=b, matrix="per-class", decay=decay,
                                        p_update=p_update), X, y, orders, classes)
    reference = iellip_reference(X, y, classes, orders, b=b, decay=decay,
                                 p_update=p_update)[-1]
    assert (model.n_mistakes_, model.n_updates_) == (reference["mistakes"],
                                                     reference["updates"])
    _assert_close(model.coef_, reference["coef"])


def test_the_readings_differ():
    """Each reading is a different learner on the same stream (else the tests above could not
    tell them apart)."""
    X, y = _usps()
    classes = np.unique(y)
    orders = _orders(X.shape[0])
    coefs = [_fit_orders(onlinear.IELLIP(b=0.9, matrix="per-class", decay=decay,
                                         p_update=p_update), X, y, orders, classes).coef_
             for decay, p_update in READINGS]
    for i in range(len(coefs)):
        for j in range(i):
            assert np.abs(coefs[i] - coefs[j]).max() > 1e-6 * np.abs(coefs[j]).max()


def test_random_start_equals_the_transcription_from_the_same_w1():
    X, y = _usps()
    classes = np.unique(y)
    orders = _orders(X.shape[0])
    model = _fit_orders(onlinear.IELLIP(matrix="per-class", w_init="random", w_scale=0.01,
                                        random_state=5), X, y, orders, classes)
    w_1 = np.random.RandomState(5).normal(0.0, 0.01, (X.shape[1], classes.shape[0])).T
    reference = iellip_reference(X, y, classes, orders, w_1=w_1)[-1]
    assert (model.n_mistakes_, model.n_updates_) == (reference["mistakes"],
                                                     reference["updates"])
    _assert_close(model.coef_, reference["coef"])
    zero = iellip_reference(X, y, classes, orders)[-1]
    assert np.abs(zero["coef"] - reference["coef"]).max() > 1e-4


@pytest.mark.parametrize("decay,p_update", READINGS)
@pytest.mark.parametrize("layout,n_classes", [("per-class", 4), ("diagonal", 4),
                                              ("per-class", 2), ("diagonal", 2)])
def test_per_output_layouts_equal_their_transcription(decay, p_update, layout, n_classes):
    X, y = _blobs(k=n_classes)
    orders = _orders(X.shape[0])
    b = 0.9
    model = _fit_orders(onlinear.IELLIP(b=b, matrix=layout, decay=decay, p_update=p_update),
                        X, y, orders, np.arange(n_classes))
    W, mistakes, updates = per_output_reference(
        X, y, n_classes, orders, b=b, c=0.5 * (1 - b), decay=decay, p_update=p_update,
        diagonal=layout == "diagonal")
    assert (model.n_mistakes_, model.n_updates_) == (mistakes, updates)
    _assert_close(model.coef_, W)


@pytest.mark.parametrize("decay,p_update", READINGS)
def test_stacked_equals_its_transcription(decay, p_update):
    X, y = _blobs(k=4)
    orders = _orders(X.shape[0])
    b = 0.9
    model = _fit_orders(onlinear.IELLIP(b=b, matrix="stacked", decay=decay, p_update=p_update),
                        X, y, orders, np.arange(4))
    W, mistakes, updates = stacked_reference(X, y, 4, orders, b=b, c=0.5 * (1 - b),
                                             decay=decay, p_update=p_update)
    assert (model.n_mistakes_, model.n_updates_) == (mistakes, updates)
    _assert_close(model.coef_, W)


def test_the_update_count_is_per_ellipsoid_and_in_the_state():
    X, y = _blobs(k=4)
    model = onlinear.IELLIP(matrix="per-class", decay="updates").fit(X, y)
    made = model.model_.state[2]
    assert made.sum() >= model.n_updates_ > 0 and len(set(made.tolist())) > 1
    stacked = onlinear.IELLIP(matrix="stacked", decay="updates").fit(X, y)
    assert stacked.model_.state[2, 0] == stacked.n_updates_


def test_the_defaults_are_the_printed_reading():
    X, y = _blobs(k=4)
    printed = onlinear.IELLIP(decay="rounds", p_update="normalized", w_init="zeros",
                              matrix="per-class").fit(X, y)
    default = onlinear.IELLIP(matrix="per-class").fit(X, y)
    np.testing.assert_array_equal(default.coef_, printed.coef_)
    params = onlinear.IELLIP().get_params()
    assert (params["decay"], params["p_update"], params["w_init"]) == ("rounds", "normalized",
                                                                      "zeros")


def test_only_the_raw_reading_lets_the_scale_of_p1_stand_in_for_c():
    """§3: "by setting the scale of P, we don't have to set c" — true of P⁻¹ mixing x xᵀ, not
    of (15), under which the scale changes no prediction."""
    X, y = _blobs(k=4)
    orders = _orders(X.shape[0])

    def coef(p_update, scale):
        model = onlinear.IELLIP(b=0.9, scale=scale, matrix="per-class", p_update=p_update)
        return _fit_orders(model, X, y, orders, np.arange(4)).coef_

    np.testing.assert_allclose(coef("normalized", 10.0), coef("normalized", 0.1),
                               rtol=1e-9, atol=1e-12)
    assert np.abs(coef("raw", 10.0) - coef("raw", 0.1)).max() > 1e-3


CASES = [dict(decay=decay, p_update=p_update) for decay, p_update in READINGS] + [
    dict(w_init="random", random_state=2)]


@pytest.mark.parametrize("params", CASES, ids=lambda p: "-".join(map(str, p.values())))
@pytest.mark.parametrize("layout", ["per-class", "diagonal", "stacked"])
def test_chunks_and_a_saved_model_go_on_exactly(tmp_path, params, layout):
    X, y = _blobs(k=4)
    whole = onlinear.IELLIP(matrix=layout, b=0.9, **params).fit(X, y)
    chunked = onlinear.IELLIP(matrix=layout, b=0.9, **params)
    for start in range(0, X.shape[0], 70):
        chunked.partial_fit(X[start:start + 70], y[start:start + 70], classes=np.arange(4))
    np.testing.assert_array_equal(chunked.coef_, whole.coef_)
    np.testing.assert_array_equal(chunked.model_.state, whole.model_.state)

    resumed = onlinear.IELLIP(matrix=layout, b=0.9, **params).partial_fit(
        X[:100], y[:100], classes=np.arange(4))
    onlinear.save(resumed, tmp_path / "half")
    loaded = onlinear.load(tmp_path / "half")
    loaded.partial_fit(X[100:], y[100:])
    np.testing.assert_array_equal(loaded.coef_, whole.coef_)
    np.testing.assert_array_equal(loaded.model_.metric, whole.model_.metric)
    assert (loaded.n_mistakes_, loaded.n_updates_) == (whole.n_mistakes_, whole.n_updates_)


def test_a_random_start_follows_random_state():
    X, y = _blobs(k=4)
    first = onlinear.IELLIP(w_init="random", random_state=1).partial_fit(X[:1], y[:1], classes=np.arange(4))
    again = onlinear.IELLIP(w_init="random", random_state=1).partial_fit(X[:1], y[:1], classes=np.arange(4))
    other = onlinear.IELLIP(w_init="random", random_state=2).partial_fit(X[:1], y[:1], classes=np.arange(4))
    np.testing.assert_array_equal(first.coef_, again.coef_)
    assert not np.array_equal(first.coef_, other.coef_)


@pytest.mark.parametrize("params,message", [
    (dict(decay="trials"), "decay"),
    (dict(p_update="unnormalized"), "p_update"),
    (dict(w_init="normal"), "w_init"),
    (dict(w_scale=0.0), "w_scale"),
    (dict(w_scale=-1.0), "w_scale"),
    (dict(decay="constant", c=0.2), "not used with decay='constant'"),
    (dict(decay="constant", b=0.0), "needs b > 0"),
    (dict(decay="constant", p_update="raw"), "p_update='raw'"),
    (dict(p_update="raw", b=1.0, c=0.2), "p_update='raw'"),
])
def test_bad_readings_are_refused(params, message):
    X, y = _blobs(k=4)
    with pytest.raises(ValueError, match=message):
        onlinear.IELLIP(**params).fit(X, y)
    model = onlinear.IELLIP().fit(X, y)
    before = (model.coef_.copy(), model.get_params())
    with pytest.raises(ValueError, match=message):
        model.set_params(**params)
    np.testing.assert_array_equal(model.coef_, before[0])
    assert model.get_params() == before[1]


def test_a_saved_state_with_a_bad_update_count_is_refused(tmp_path):
    X, y = _blobs(k=4)
    model = onlinear.IELLIP(decay="updates").fit(X, y)
    model.model_.state[2, 0] = 1.5
    with pytest.raises(ValueError, match="whole numbers"):
        model._check_model()


def test_a_cellip_gamma_whose_first_radius_overflows_is_named():
    """Python's bare "OverflowError: (34, 'Numerical result out of range')" named nothing (the
    default reading squares the radius 1 + γ(1 − a))."""
    X, y = _blobs(k=4)
    model = onlinear.CELLIP().fit(X, y)
    before = model.coef_.copy()
    with pytest.raises(ValueError, match=r"gamma=1e\+300 .* overflows float64"):
        model.set_params(gamma=1e300).fit(X, y)
    np.testing.assert_array_equal(model.coef_, before)
