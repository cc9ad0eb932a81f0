"""CSR matrices whose arrays do not describe their rows: scipy builds them from a user's arrays
without checking column indices against the shape (nor after an in-place change), and the
compiled loops index the model's state by those numbers.  Every learner refuses them with an
error that names the problem, before reading them, and a fitted model is left as it was."""
import numpy as np
import pytest
import scipy.sparse as sp

import onlinear
from onlinear._core import adaptive, confidence, rows
from onlinear.registry import REGISTRY
from onlinear.rules.confidence_table import GaussianRule, parameter_vector

RNG = np.random.default_rng(20261130)
X = RNG.normal(size=(40, 6))
X[np.abs(X) < 0.4] = 0.0
LABELS = RNG.integers(0, 3, size=40)


def _negative_index(A):
    A.indices[1] = -1
    return A, "column index -1 outside"


def _index_past_the_width(A):
    A.indices[-1] = 99
    return A, "column index 99 outside"


def _row_pointers_going_back(A):
    A.indptr[2], A.indptr[3] = A.indptr[3], A.indptr[2]
    return A, "row pointers"


MALFORMED = [_negative_index, _index_past_the_width, _row_pointers_going_back]


def _malformed(how, X_rows):
    A = sp.csr_matrix(X_rows)
    assert A.indptr[3] > A.indptr[2]  # (rows 2 and 3 hold values: swapping moves them)
    return how(A)


def _learner(name):
    """A model of ``name`` (its default task: one label an example) learning from CSR rows."""
    kernel = {"gamma": 0.5} if onlinear.describe(name).kernel else {}
    model = onlinear.make(name, **kernel)
    X_used = np.abs(X) if name == "winnow" else X
    y = LABELS % 2 if name == "winnow" else LABELS
    classes = np.unique(y)
    return model, X_used, lambda m, A, rows_: m.partial_fit(A, y[rows_], classes=classes)


def _state(model):
    state = {name: np.copy(model._saved_array(name)) for name in model._model_arrays()}
    state.update({name: getattr(model, name, None) for name in model._model_scalars})
    return state


@pytest.mark.parametrize("how", MALFORMED, ids=lambda f: f.__name__.strip("_"))
@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_learner_refuses_csr_arrays_that_do_not_describe_their_rows(name, how):
    model, X_used, learn = _learner(name)
    learn(model, sp.csr_matrix(X_used[:20]), np.arange(20))
    before = _state(model)
    predicted = model.predict(sp.csr_matrix(X_used[20:]))
    A, words = _malformed(how, X_used[20:])
    with pytest.raises(ValueError, match=words):
        learn(model, A, np.arange(20, 40))
    with pytest.raises(ValueError, match=words):
        model.predict(A)
    after = _state(model)
    assert after.keys() == before.keys()
    for key, value in before.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(after[key], value, err_msg=key, strict=True)
        else:
            assert after[key] == value, key
    np.testing.assert_array_equal(model.predict(sp.csr_matrix(X_used[20:])), predicted)


def test_a_one_row_csr_example_with_an_index_past_the_width_is_refused():
    model = onlinear.make("arow").fit(X, LABELS)
    row = sp.csr_matrix((np.array([1.0, 2.0]), np.array([1, 400000]), np.array([0, 2])),
                        shape=(1, 6))
    with pytest.raises(ValueError, match="column index 400000 outside"):
        model.learn_one(row, LABELS[0])


@pytest.mark.parametrize("how", MALFORMED, ids=lambda f: f.__name__.strip("_"))
def test_the_engines_passes_refuse_them_too(how):
    """The second-order and adaptive engines' passes (``row_pass.check_pass``), called
    directly, check the arrays before their loops index the state by them."""
    A, words = _malformed(how, X)
    codes = LABELS.astype(np.int64)
    order = np.arange(A.shape[0], dtype=np.int64)
    rule = GaussianRule["AROW"]
    with pytest.raises(ValueError, match=words):
        confidence.learn_pass(int(rule), A, codes, order, *confidence.initial_state(
            "diagonal", 6, 3), parameter_vector(rule), layout="diagonal")
    with pytest.raises(ValueError, match=words):
        adaptive.adagrad_pass(A, codes, order, *adaptive.adagrad_state(6, 3), loss="hinge")


def test_well_formed_csr_passes_the_structure_check_whatever_its_index_dtype():
    A = sp.csr_matrix(X)
    rows.check_csr_structure(A)
    wide = sp.csr_matrix((A.data, A.indices.astype(np.int64), A.indptr.astype(np.int64)),
                         shape=A.shape)
    rows.check_csr_structure(wide)
    rows.check_csr_structure(sp.csr_matrix((0, 6)))  # (no rows: indptr = [0])
    short = sp.csr_matrix(X)
    short.indptr = short.indptr[:-1]
    with pytest.raises(ValueError, match="row pointers"):
        rows.check_csr_structure(short)
