"""Arguments of the registry, the ordinal metrics, ``onlinear list`` and ``onlinear info`` that
a hostile-input review found answered by bare errors or silently: each is refused naming the
problem, or listed as asked."""

import numpy as np
import pytest

import onlinear
from cli_runner import onlinear_cli
from onlinear.metrics import ordinal_absolute_error, ordinal_ranks
from onlinear.persistence import ModelFileError


@pytest.mark.parametrize("kernel", ["yes", "True", "all", 2, 0.5])
def test_available_refuses_a_kernel_that_is_not_a_flag(kernel):
    with pytest.raises(ValueError, match="kernel must be True, False or None"):
        onlinear.available(kernel=kernel)


@pytest.mark.parametrize("kernel, family", [(False, "pa"), (True, "kernel-pa"), (None, "pa")])
def test_available_takes_the_flags(kernel, family):
    assert family in onlinear.available(kernel=kernel)


@pytest.mark.parametrize("name", [["pa"], None, 1])
def test_an_algorithm_is_named_by_a_string(name):
    with pytest.raises(TypeError, match="named by a string"):
        onlinear.describe(name)


@pytest.mark.parametrize("name, task, params, wrong", [
    ("pa1", None, {"bogus": 1}, "bogus"),
    ("simproj", "ordinal", {"fit_intercept": True}, "fit_intercept"),
    ("arow", None, {"r": 1.0, "alpha": 2}, "alpha"),
])
def test_make_refuses_an_unknown_hyperparameter_with_a_value_error(name, task, params, wrong):
    with pytest.raises(ValueError, match=rf"has no hyperparameter\(s\) \['{wrong}'\]; its "
                                         r"hyperparameters: .+"):
        onlinear.make(name, task=task, **params)


def test_ordinal_ranks_of_labels_of_two_kinds():
    ranks = ordinal_ranks(np.array([1, "a", 1], dtype=object), classes=[1, "a"])
    assert ranks.tolist() == [0, 1, 0]
    with pytest.raises(ValueError, match="not in classes"):
        ordinal_ranks(["a", 2], classes=[1, "a"])


def test_the_ordinal_error_without_classes_refuses_labels_of_two_kinds():
    with pytest.raises(ValueError, match=r"different kinds .*pass classes="):
        ordinal_absolute_error(["a", "b"], [1, 2])
    assert ordinal_absolute_error(["a", "b"], [1, 2], classes=["a", "b", 1, 2]) == 2.0


@pytest.mark.parametrize("missing", [np.nan, None])
def test_a_missing_label_has_no_rank(missing):
    with pytest.raises(ValueError, match="missing label"):
        ordinal_ranks(np.array([1.0, missing], dtype=object), classes=[1.0, 2.0])


def test_info_of_a_folder_says_it_is_no_model_file(tmp_path):
    result = onlinear_cli("info", tmp_path)
    assert result.returncode == 1
    assert "a folder, not an onlinear model file" in result.stderr
    with pytest.raises(ModelFileError, match="a folder"):
        onlinear.load(tmp_path)


def test_list_of_an_empty_selection_says_so_and_keeps_the_task():
    result = onlinear_cli("list", "--kernel", "--task", "binary")
    assert result.returncode == 0
    primal = len(onlinear.available("binary", kernel=False))
    assert result.stdout == (f"no kernel learner for the task binary; {primal} primal "
                             "learners: onlinear list --task binary; hyperparameters and "
                             "summaries: --format markdown\n")
    hint = onlinear_cli("list", "--task", "binary").stdout.splitlines()[-1]
    assert "onlinear list" not in hint  # (no kernel learner of that task: no hint)
