"""The package's import graph, read from the source (every ``import``, at module level or in a
function): no circle, and no room reaching into another room's private names.

A *room* is a top-level module or subpackage of ``onlinear``, except that the numeric core
(``_core``, ``rules``, ``solvers``, ``models``, ``estimators``, ``tasks``, ``kernels``,
``machine``) is one room and the command line (``cli``, ``cli_*``) another.  A name is
private to its room when it starts with ``_``, lives in a module whose path has a part starting
with ``_`` (``onlinear._core.primal``), or is left out of its module's ``__all__``.
"""
import ast
import re
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "src"
CORE = {"_core", "rules", "solvers", "models", "estimators", "tasks", "kernels", "machine"}
# A module every room may name (the version, in a module of its own so that it can be).
SHARED = {"onlinear._version"}


def _modules():
    found = {}
    for path in (SOURCE / "onlinear").rglob("*"):
        if path.suffix in (".py", ".pyx") and "__pycache__" not in path.parts:
            parts = list(path.relative_to(SOURCE).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _tree(path):
    text = path.read_text()
    if path.suffix == ".pyx":  # the Python-level imports of a Cython module, dedented
        statements = re.findall(r"^[ \t]*((?:from[ \t]+\S+[ \t]+import[ \t]+(?:\([^)]*\)|.*))"
                                r"|import[ \t]+.*)$", text, flags=re.MULTILINE)
        text = "\n".join(s for s in statements if "cimport" not in s)
    return ast.parse(text)


def _imports(module):
    """``[(imported module, name or None)]`` of ``module``, resolved to the package's modules."""
    path = MODULES[module]
    package = module if path.name.startswith("__init__") else module.rpartition(".")[0]
    found = []
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("onlinear"):
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.append((sub, None) if sub in MODULES else (target, alias.name))
        elif isinstance(node, ast.Import):
            found += [(alias.name, None) for alias in node.names
                      if alias.name.startswith("onlinear")]
    return [(target, name) for target, name in found if target in MODULES]


def _room(module):
    parts = module.split(".")
    if len(parts) == 1:
        return "onlinear"
    top = parts[1]
    if top in CORE:
        return "core"
    return "cli" if top == "cli" or top.startswith("cli_") else top


def _exported(module):
    """The module's ``__all__`` (None if it has none)."""
    for node in _tree(MODULES[module]).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__"
                                                for t in node.targets):
            try:
                return set(ast.literal_eval(node.value))
            except ValueError:
                return None  # (computed: taken as public)
    return None


def _private(target, name):
    if target in SHARED:
        return False
    if any(part.startswith("_") for part in target.split(".")[1:]):
        return True
    if name is None:
        return False
    exported = _exported(target)
    return name.startswith("_") or (exported is not None and name not in exported)


def _circles(edges):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def _edges():
    return {m: {t for t, _ in _imports(m) if t != m} for m in MODULES}


def test_the_package_has_no_import_circle():
    assert _circles(_edges()) == []


def test_the_circle_finder_finds_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    edges = _edges()
    edges["onlinear.tasks.labels"] = edges["onlinear.tasks.labels"] | {"onlinear.harness"}
    assert any("onlinear.tasks.labels" in circle for circle in _circles(edges))


# Rooms that still import another room's private names, each until its issue lands (a module
# listed here that no longer needs it fails).  Empty since parameter mixing went through the
# model objects' public interface (issue [18]).
PENDING = set()


def _private_imports():
    wrong = {}
    for module in MODULES:
        for target, name in _imports(module):
            if _room(target) != _room(module) and _private(target, name):
                wrong.setdefault(module, []).append(target + (f".{name}" if name else ""))
    return wrong


def test_no_room_imports_another_rooms_private_names():
    wrong = _private_imports()
    assert {m: v for m, v in wrong.items() if m not in PENDING} == {}
    assert set(wrong) >= PENDING, f"no longer pending: {sorted(PENDING - set(wrong))}"


def test_the_reader_sees_function_level_and_relative_imports():
    imports = _imports("onlinear.persistence")
    assert ("onlinear.estimators.base", "OnlineLinearClassifier") in imports  # (in a function)
    assert _room("onlinear.estimators.base") == _room("onlinear._core.primal") == "core"
    assert _private("onlinear._core.primal", "run_dense")
    assert _private("onlinear.data.libsvm", "_row_error")
    assert not _private("onlinear.data.libsvm", "load_libsvm")
    assert len(MODULES) > 60


def test_each_model_module_imports_first_in_a_fresh_interpreter():
    """A module imported before anything else of the package must not meet a half-made module
    on an import circle that only the packages' ``__init__`` files close (``models/metric.py``
    importing ``estimators.checks`` at its top ran ``estimators/__init__``, which imports the
    ellipsoid estimator, which imports ``models.metric``, not yet made)."""
    import subprocess
    import sys

    names = sorted(m for m in MODULES if m.startswith("onlinear.models."))
    assert "onlinear.models.block" in names and "onlinear.models.metric" in names
    failed = {}
    for name in names:
        run = subprocess.run([sys.executable, "-c", f"import {name}"], capture_output=True,
                             text=True)
        if run.returncode:
            failed[name] = run.stderr.strip().splitlines()[-1]
    assert failed == {}


def test_the_data_package_imports_without_the_estimators():
    """``from onlinear import data`` (which asks the package for the attribute ``data`` before
    importing the module) reads files without importing an estimator or scikit-learn, as
    ``import onlinear.data`` does; the estimators still come on first use."""
    import subprocess
    import sys

    code = ("import sys\n"
            "{statement}\n"
            "print(sorted(m for m in sys.modules if m.startswith('onlinear.estimators')\n"
            "             or m.partition('.')[0] == 'sklearn'))\n"
            "import onlinear\n"
            "print(onlinear.data.load_csv.__module__, onlinear.PassiveAggressive.__name__)\n")
    for statement in ("from onlinear import data", "import onlinear.data",
                      "from onlinear.data import load_csv, iter_libsvm_chunks",
                      "import onlinear; onlinear.data"):
        run = subprocess.run([sys.executable, "-c", code.format(statement=statement)],
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        assert run.stdout.splitlines() == ["[]", "onlinear.data.csv PassiveAggressive"], \
            (statement, run.stdout)
