"""The compiled side of the rule table, generated from it: what a new rule would otherwise have
to repeat by hand in two more files.

From :mod:`onlinear.rules.table` (read as source, with :mod:`ast`: the build runs this before
any module is compiled, so the table cannot be imported) it writes

* ``_rule_params.pxd`` — one struct per rule, ``<Rule>Params`` (``Rule.PASSIVE_AGGRESSIVE`` →
  ``PassiveAggressiveParams``), whose fields are the row's ``params`` in order: a step reads
  its parameters through its rule's struct, by name, so the vector's order is the table's by
  construction;
* ``_steps.pxi`` — included by ``dispatch.pyx``: the ``cimport`` of every row's step function
  (found in the family ``.pxd`` that declares it), the table of step pointers by rule id, and
  ``STEP_NAMES`` and ``PARAMETER_FIELDS`` for the tests.

``setup.py`` calls :func:`write` before it compiles (a file is rewritten only when its text
changes, so that an unchanged table recompiles nothing); ``tests/test_rule_table.py`` checks
that the files in the package are those the table gives.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
HEADER = ("# Generated from rules/table.py by rules/codegen.py (setup.py runs it before compiling):\n"
          "# do not edit; change the table.\n")


def read_table(source: str, enum: str = "Rule",
               rows_name: str = "RULES") -> list[tuple[str, int, str, tuple[str, ...]]]:
    """``[(member, id, step, params)]`` of a rule table's source (members of the class
    ``enum``, rows in the dict ``rows_name``), by id."""
    tree = ast.parse(source)
    ids, rows = {}, {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == enum:
            for item in node.body:
                if isinstance(item, ast.Assign) and isinstance(item.value, ast.Constant):
                    ids[item.targets[0].id] = item.value.value
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == rows_name):
            for key, value in zip(node.value.keys, node.value.values):
                step, params = (ast.literal_eval(arg) for arg in value.args[:2])
                rows[key.attr] = (step, tuple(params))
    if set(ids) != set(rows):
        raise ValueError(f"rules/table.py: members without a row or rows without a member: "
                         f"{sorted(set(ids) ^ set(rows))}")
    table = sorted((ids[name], name, *rows[name]) for name in ids)
    if [row[0] for row in table] != list(range(len(table))):
        raise ValueError("rules/table.py: rule ids must be 0, 1, 2, … in order")
    return [(name, number, step, params) for number, name, step, params in table]


def struct_name(member: str) -> str:
    """``PASSIVE_AGGRESSIVE`` → ``PassiveAggressiveParams``."""
    return "".join(part.capitalize() for part in member.split("_")) + "Params"


def step_modules(folder: Path = HERE, returns: str = "void") -> dict[str, str]:
    """``{step function: module}`` of the ``cdef <returns> …(`` declarations in
    ``folder/*.pxd``."""
    found = {}
    for pxd in sorted(folder.glob("*.pxd")):
        pattern = rf"^cdef {returns} (\w+)\("
        for name in re.findall(pattern, pxd.read_text(), flags=re.MULTILINE):
            found[name] = pxd.stem
    return found


def generated(folder: Path = HERE) -> dict[str, str]:
    """``{file name: text}`` of the generated files: those of the first-order rules' table and
    of the Gaussian rules' table (:mod:`onlinear.rules.confidence_table`, steps
    ``cdef GaussianStep …(`` of ``(m, V, params)``, included by ``confidence_dispatch.pyx``)."""
    first_order = read_table((folder / "table.py").read_text())
    gaussian = read_table((folder / "confidence_table.py").read_text(), "GaussianRule",
                          "GAUSSIAN_RULES")
    return {**_table_files(first_order, step_modules(folder), "Rule", "rule", "step_function",
                           "", "_rule_params.pxd", "_steps.pxi"),
            **_table_files(gaussian, step_modules(folder, "GaussianStep"), "GaussianRule",
                           "Gaussian rule", "gaussian_step_function", "GAUSSIAN_",
                           "_gaussian_params.pxd", "_gaussian_steps.pxi")}


def _table_files(table, modules, enum, what, pointer, prefix, params_file, steps_file):
    """The struct file and the step table of one rule table (names prefixed by ``prefix``)."""
    missing = [step for _, _, step, _ in table if step not in modules]
    if missing:
        raise ValueError(f"step functions of the {what} table declared in no rules/*.pxd: "
                         f"{missing}")
    structs = [HEADER, f"# One struct of named doubles per {what}: its row's params, in order.\n"]
    for member, _, _, params in table:
        structs.append(f"\ncdef struct {struct_name(member)}:  # {enum}.{member}\n")
        structs.extend(f"    double {name}\n" for name in params)
        if not params:
            structs.append("    double unused\n")
    steps = [HEADER]
    for module in sorted({modules[step] for _, _, step, _ in table}):
        names = sorted({step for _, _, step, _ in table if modules[step] == module})
        steps.append(f"from .{module} cimport {', '.join(names)}\n")
    steps.append("\n#: the compiled step functions, by rule id\n")
    steps.append(f"cdef {pointer}[{len(table)}] _{prefix}STEPS\n")
    steps.extend(f"_{prefix}STEPS[{number}] = {step}\n" for _, number, step, _ in table)
    steps.append(f"cdef int _N_{prefix}RULES = {len(table)}\n")
    steps.append("#: their names, by rule id (each its row's ``step``)\n")
    steps.append(f"{prefix}STEP_NAMES = (" + "".join(f"{step!r}, " for _, _, step, _ in table)
                 + ")\n")
    steps.append(f"#: the fields of each rule's parameter struct, by rule id (``{params_file}``)\n")
    steps.append(f"{prefix}PARAMETER_FIELDS = (" + "".join(
        f"{tuple(params)!r}, " for _, _, _, params in table) + ")\n")
    return {params_file: "".join(structs), steps_file: "".join(steps)}


def write(folder: Path = HERE) -> list[str]:
    """Write the generated files into ``folder`` where their text changed; their names."""
    written = []
    for name, text in generated(folder).items():
        path = folder / name
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            written.append(name)
    return written


if __name__ == "__main__":
    print("written:", write() or "nothing (up to date)")
