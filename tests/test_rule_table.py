"""The rule table is the one source of rule facts: the compiled switch, the estimators and the
dual engine all read it, and this file walks it row by row."""
import re
from pathlib import Path

import numpy as np
import pytest

import onlinear
from onlinear.rules import dispatch
from onlinear.rules.dispatch import NORM_READING_RULES, compute_steps
from onlinear.rules.layout import FIRST_RULE_ROW, SCALE
from onlinear._core import primal
from onlinear.rules.table import RULES, Rule


def _estimators_of(rule):
    return [onlinear.make(name) for name in onlinear.available(kernel=None)
            if getattr(onlinear.describe(name).estimator, "_rule", None) == rule]


@pytest.mark.parametrize("rule", list(Rule), ids=lambda r: r.name)
def test_every_rule_has_a_row_an_estimator_and_a_branch_of_the_switch(rule):
    row = RULES[rule]
    estimators = _estimators_of(rule)
    assert estimators, f"no registered estimator uses {rule.name}"
    for estimator in estimators:
        assert set(estimator._rule_values()) == set(row.params)
        assert estimator._state_rows == row.state_rows >= FIRST_RULE_ROW
    # the switch runs the row's rule: two outputs (binary rules) or three, a violated margin
    n_outputs = 1 if row.binary else 3
    state = np.zeros((row.state_rows, n_outputs))
    state[SCALE] = 1.0
    tau, factor = np.zeros(n_outputs), np.ones(n_outputs)
    scores = np.array([0.5]) if row.binary else np.array([0.2, 0.5, -0.1])
    params = estimators[0]._rule_params()
    compute_steps(int(rule), scores, 0, 1.0, params, state, tau, factor)
    assert np.all(np.isfinite(tau)) and np.any(tau != 0.0)


def test_the_compiled_table_of_steps_is_the_rule_table_by_name():
    """Each rule id calls the step function its row names (the compiled table lists them by id),
    each declared with the one step signature in its family's ``.pxd`` (shipped with the
    package)."""
    from pathlib import Path

    assert len(dispatch.STEP_NAMES) == len(Rule)
    folder = Path(dispatch.__file__).parent
    declarations = "".join(path.read_text() for path in folder.glob("*.pxd"))
    signature = ("(const double *scores, Py_ssize_t m, Py_ssize_t y, double q,")
    for rule, row in RULES.items():
        assert dispatch.STEP_NAMES[int(rule)] == row.step, rule.name
        assert f"cdef void {row.step}{signature}" in " ".join(declarations.split()), row.step


def test_the_switch_refuses_an_unknown_rule():
    with pytest.raises(ValueError, match="unknown rule id"):
        compute_steps(len(Rule), np.zeros(2), 0, 1.0, np.zeros(3), np.ones((FIRST_RULE_ROW, 2)),
                      np.zeros(2), np.ones(2))


def test_properties_read_by_the_engines_and_estimators():
    assert set(NORM_READING_RULES) == {int(r) for r, row in RULES.items() if row.reads_norm}
    assert all(row.binary for row in RULES.values() if row.scale_free)
    # (the learners that keep one output per class whatever their rule: one-vs-rest's
    # Perceptron per class, balanced Winnow's pair (w⁺, w⁻); their kernel forms alike)
    per_class = {"OneVsRestPerceptron", "KernelPerceptron", "BalancedWinnow"}
    for rule, row in RULES.items():
        for estimator in _estimators_of(rule):
            assert estimator._scale_free == row.scale_free
            two = 2 if type(estimator).__name__ in per_class else (1 if row.binary else 2)
            outputs = estimator._task_class.outputs_for  # (the task counts the outputs)
            assert outputs(2, estimator._two_class_outputs) == two, type(estimator).__name__
            assert outputs(5, estimator._two_class_outputs) == 5


def test_a_parameter_vector_needs_exactly_the_named_parameters():
    row = RULES[Rule.PASSIVE_AGGRESSIVE]
    assert row.vector({"variant": 1, "C": 2.0, "kind": 0}).tolist() == [2.0, 0.0, 1.0]
    with pytest.raises(ValueError, match=r"missing \['variant'\], unknown \['slack'\]"):
        row.vector({"C": 2.0, "kind": 0, "slack": 1})


SOURCE_RULES = Path(__file__).resolve().parents[1] / "src" / "onlinear" / "rules"


def test_the_compiled_switch_was_built_from_this_table():
    """The step table and the parameter structs are generated from the rule table before the
    build (``rules/codegen.py``): the compiled module's lists and the installed structs are
    those this table gives (a build from another table fails here)."""
    from onlinear.rules import codegen

    expected = codegen.generated(SOURCE_RULES)
    installed = Path(dispatch.__file__).parent / "_rule_params.pxd"
    assert installed.read_text() == expected["_rule_params.pxd"]
    assert dispatch.PARAMETER_FIELDS == tuple(row.params for row in RULES.values())
    assert dispatch.STEP_NAMES == tuple(row.step for row in RULES.values())


def _step_bodies():
    """``{step function: its source}`` of the rule modules (the repository's source tree)."""
    bodies = {}
    for path in SOURCE_RULES.glob("*.pyx"):
        parts = re.split(r"^(?=cdef |def |cpdef |class )", path.read_text(), flags=re.MULTILINE)
        for part in parts:
            found = re.match(r"cdef void (\w+_steps)\(", part)
            if found:
                bodies[found.group(1)] = part
    return bodies


def test_each_step_reads_its_parameters_through_its_own_rules_struct():
    """A step reads ``params`` only through its rule's generated struct, whose fields are the
    row's parameter names in the row's order: a vector built from the row by name is read field
    by field as the estimator meant it."""
    from onlinear.rules import codegen

    bodies = _step_bodies()
    for rule, row in RULES.items():
        casts = set(re.findall(r"<const (\w+Params) \*>", bodies[row.step]))
        assert casts <= {codegen.struct_name(rule.name)}, (rule.name, casts)
        assert casts or not row.params, f"{row.step} never reads its parameters"


def test_the_generator_reads_every_row_and_refuses_a_member_without_one():
    from onlinear.rules import codegen

    table = (SOURCE_RULES / "table.py").read_text()
    assert [(name, number) for name, number, _, _ in codegen.read_table(table)] == [
        (rule.name, int(rule)) for rule in Rule]
    broken = table.replace("    MULTIPLICATIVE = 11\n", "    MULTIPLICATIVE = 11\n    EXTRA = 12\n")
    with pytest.raises(ValueError, match="EXTRA"):
        codegen.read_table(broken)


def test_no_step_reads_a_parameter_by_position():
    for path in SOURCE_RULES.glob("*.pyx"):
        if path.name in ("dispatch.pyx", "simultaneous.pyx", "ellipsoid.pyx"):
            continue  # (the switch passes the vector on; the other families: not table rules)
        assert not re.search(r"params\[\d\]", path.read_text()), path.name
    assert len(list(SOURCE_RULES.glob("*.pyx"))) >= 4


@pytest.mark.parametrize("rule", list(Rule), ids=lambda r: r.name)
def test_how_an_example_weight_enters_is_the_rows_fact(rule):
    row = RULES[rule]
    for estimator in _estimators_of(rule):
        mode = row.weight_mode(estimator._rule_values())
        expected = {"C": primal.WEIGHT_C, "step": primal.WEIGHT_STEP}[mode]
        assert estimator._weight_mode() == expected
    assert row.updates_when, f"{rule.name}: state the update condition"


def test_pa_with_a_slack_takes_the_weight_in_C_and_hard_pa_in_the_step():
    assert onlinear.make("pa1")._weight_mode() == primal.WEIGHT_C
    assert onlinear.make("spa2")._weight_mode() == primal.WEIGHT_C
    assert onlinear.make("pa")._weight_mode() == primal.WEIGHT_STEP
    assert onlinear.make("mira")._weight_mode() == primal.WEIGHT_STEP


def test_a_constant_name_means_one_thing_across_the_core():
    """The compiled core's integer constants (rule ids, kinds, slots, counters) exported by
    ``onlinear.rules``, ``onlinear._core`` and ``onlinear.solvers``: a name that two modules
    export has the same value in both (a re-export), never two meanings."""
    import importlib
    import pkgutil
    values = {}
    for package in ("onlinear.rules", "onlinear._core", "onlinear.solvers"):
        for info in pkgutil.iter_modules(importlib.import_module(package).__path__):
            module = importlib.import_module(f"{package}.{info.name}")
            for name, value in vars(module).items():
                if name.isupper() and isinstance(value, int) and not isinstance(value, bool):
                    values.setdefault(name, {})[module.__name__] = int(value)
    for rule in Rule:
        values.setdefault(rule.name, {})["Rule"] = int(rule)
    collisions = {name: where for name, where in values.items()
                  if len(set(where.values())) > 1}
    assert collisions == {}


def test_the_ellipsoid_engine_reads_its_parameters_by_name():
    """The metric engine's params vector is its struct's fields by name (rules/_params.pxd),
    built from the estimator's values by name: each value lands in its named field."""
    from onlinear._core import ellipsoid as ee
    from onlinear.rules import ellipsoid as ellipsoid_rules
    assert ee.PARAMETERS == ("gamma", "a", "b", "c", "mode", "p1_scale", "kind", "decay",
                             "p_update")
    model = onlinear.IELLIP(gamma=0.25, a=0.75, b=0.5)
    model.fit(np.eye(3), [0, 1, 2])
    params = dict(zip(ee.PARAMETERS, model._rule_params().tolist()))
    assert (params["gamma"], params["a"], params["b"]) == (0.25, 0.75, 0.5)
    assert params["kind"] == ellipsoid_rules.IELLIP
