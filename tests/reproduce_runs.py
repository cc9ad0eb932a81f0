"""The quick-mode runs of ``onlinear reproduce`` shared by the test modules that check them:
each experiment runs once per test session whichever module asks first (tests only)."""
import pytest

from onlinear import reproduce

_RESULTS = {}


@pytest.fixture(autouse=True)
def _no_data_directory(monkeypatch):
    # quick mode must not need a data directory (ONLINEAR_DATA): run as on a clean machine
    monkeypatch.delenv("ONLINEAR_DATA", raising=False)


def quick(id):
    """The quick-mode result of ``id``, computed once per test session."""
    if id not in _RESULTS:
        _RESULTS[id] = reproduce.run(id, quick=True)
    return _RESULTS[id]


def claim(result, text):
    """The one claim of ``result`` whose statement contains ``text``."""
    found = [c for c in result.claims if text in c.statement]
    assert len(found) == 1, (text, [c.statement for c in result.claims])
    return found[0]
