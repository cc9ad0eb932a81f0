"""The public names come from one list (``onlinear.estimators.__all__``): the package's
``__all__``, the API reference page and the registry agree with it."""
import inspect
from pathlib import Path

import onlinear
from onlinear import estimators
from onlinear.estimators.base import OnlineLinearClassifier
from onlinear.registry import REGISTRY

ROOT = Path(__file__).resolve().parents[1]


def test_the_package_exports_every_estimator_once():
    assert len(onlinear.__all__) == len(set(onlinear.__all__))
    assert set(estimators.__all__) <= set(onlinear.__all__)
    for name in onlinear.__all__:
        assert getattr(onlinear, name) is not None


def test_every_public_learner_is_registered_and_every_registered_class_is_public():
    registered = {algorithm.estimator for algorithm in REGISTRY.values()}
    registered |= {cls for algorithm in REGISTRY.values() for cls in algorithm.tasks.values()}
    public = {getattr(estimators, name) for name in estimators.__all__}
    learners = {cls for cls in public if cls is not OnlineLinearClassifier}
    assert learners - registered == set(), "public classes no algorithm name makes"
    assert registered - public == set(), "registered classes missing from estimators.__all__"


def test_every_estimator_class_defined_is_public_or_private_by_name():
    """A class of ``onlinear.estimators`` that subclasses the base is in ``__all__`` unless
    its name marks it private (``_Unweighted``) or it is a family's base (``KernelLearner``)."""
    import importlib
    import pkgutil
    for info in pkgutil.iter_modules(estimators.__path__):
        module = importlib.import_module(f"onlinear.estimators.{info.name}")
        for name, obj in vars(module).items():
            if (inspect.isclass(obj) and issubclass(obj, OnlineLinearClassifier)
                    and obj.__module__ == module.__name__ and not name.startswith("_")
                    and name != "KernelLearner"):
                assert name in estimators.__all__, name


def test_the_api_page_is_generated_from_the_list():
    page = (ROOT / "docs" / "api" / "estimators.md").read_text()
    assert "<!-- onlinear.estimators.__all__ -->" in page
    assert "::: onlinear." not in page  # (no hand-kept second list)


def test_each_family_is_listed_with_its_modules_public_names():
    import importlib

    for family, names in estimators.FAMILIES.items():
        module = importlib.import_module(f"onlinear.estimators.{family}")
        assert tuple(module.__all__) == names, family
        assert all(getattr(estimators, name) is getattr(module, name) for name in names)
    assert estimators.__all__ == ["OnlineLinearClassifier",
                                  *(n for names in estimators.FAMILIES.values() for n in names)]
