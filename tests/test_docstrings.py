"""Every public class documents every parameter it takes, in its signature's order, and the
attributes every learner has — checked with numpydoc's own parser on the docstrings the user
sees (``help(cls)``, the API reference), whose shared entries come from one table
(:mod:`onlinear.estimators.docstrings`)."""
import inspect
import pydoc

import pytest
from numpydoc.docscrape import ClassDoc

import onlinear
from onlinear.estimators import docstrings
from onlinear.estimators.kernel import KERNEL_ATTRIBUTES, KERNEL_PARAMETERS, KernelLearner

CLASSES = [getattr(onlinear, name) for name in onlinear.__all__
           if inspect.isclass(getattr(onlinear, name))]
LEARNERS = [cls for cls in CLASSES if cls is not onlinear.OnlineLinearClassifier]


def _parameters(cls):
    return [p.name for p in inspect.signature(cls.__init__).parameters.values()
            if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def _documented(section):
    return [name.strip() for entry in section for name in entry.name.split(",")]


@pytest.mark.parametrize("cls", LEARNERS, ids=lambda c: c.__name__)
def test_every_parameter_is_documented_in_the_signatures_order(cls):
    doc = ClassDoc(cls, config={"show_class_members": False})
    assert _documented(doc["Parameters"]) == _parameters(cls)
    for entry in doc["Parameters"]:
        assert entry.type and " ".join(entry.desc).strip(), f"{cls.__name__}.{entry.name}"


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_learner_documents_the_shared_attributes(cls):
    attributes = _documented(ClassDoc(cls, config={"show_class_members": False})["Attributes"])
    assert set(docstrings.ATTRIBUTES) <= set(attributes)
    assert len(attributes) == len(set(attributes))  # (a class's own entry replaces the table's)
    if issubclass(cls, KernelLearner):
        assert set(KERNEL_ATTRIBUTES) <= set(attributes)


def test_the_base_lists_the_parameters_every_learner_takes():
    doc = ClassDoc(onlinear.OnlineLinearClassifier, config={"show_class_members": False})
    assert _documented(doc["Parameters"]) == list(docstrings.UNIVERSAL)
    for cls in LEARNERS:
        assert set(docstrings.UNIVERSAL) <= set(_parameters(cls)), cls.__name__


@pytest.mark.parametrize("cls", [onlinear.PassiveAggressive, onlinear.KernelMIRA,
                                 onlinear.IELLIP, onlinear.BlockLearner],
                         ids=lambda c: c.__name__)
def test_help_shows_every_parameter(cls):
    text = pydoc.render_doc(cls, renderer=pydoc.plaintext)
    for name in _parameters(cls):
        assert f"{name} : " in text, name


def test_a_shared_entry_is_written_once_and_used():
    """Each table entry is used by some class, and no class writes a shared entry's text
    again (it would drift from the table)."""
    used = {name for cls in LEARNERS for name in _parameters(cls)}
    assert set(docstrings.PARAMETERS) <= used
    assert set(KERNEL_PARAMETERS) <= used
    for cls in LEARNERS:
        source = inspect.getsource(cls)
        for name, text in docstrings.PARAMETERS.items():
            first_line_of_description = text.split("\n")[1].strip()
            assert first_line_of_description not in source, (cls.__name__, name)


def test_a_family_entry_wins_over_the_table():
    """A family whose shared parameter means something of its own keeps its entry."""
    doc = ClassDoc(onlinear.BlockLearner, config={"show_class_members": False})
    shuffle = next(e for e in doc["Parameters"] if e.name == "shuffle")
    assert "trials" in " ".join(shuffle.desc)
    n_seen = next(e for e in doc["Attributes"] if e.name == "n_seen_")
    assert "blocks" in " ".join(n_seen.desc)
