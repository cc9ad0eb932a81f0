"""The examples in the docstrings run and print what they claim (against the installed package)."""
import doctest
import importlib
import pkgutil

import pytest

import onlinear

MODULES = sorted(
    info.name for info in pkgutil.walk_packages(onlinear.__path__, prefix="onlinear.")
    if not info.name.endswith("__main__")
)


@pytest.mark.parametrize("module_name", MODULES)
def test_docstring_examples(module_name):
    module = importlib.import_module(module_name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


def test_the_examples_exist():
    finder = doctest.DocTestFinder()
    n_examples = sum(len(t.examples) for name in MODULES
                     for t in finder.find(importlib.import_module(name)))
    assert n_examples >= 10
