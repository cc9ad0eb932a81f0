"""The list of reproduced experiments: each paper's module contributes its ``EXPERIMENTS``."""
from . import amit, bshouty, crammer_singer, matsushima, yang_jin_ye

EXPERIMENTS = {experiment.id: experiment
               for module in (crammer_singer, amit, matsushima, yang_jin_ye, bshouty)
               for experiment in module.EXPERIMENTS}
"""Experiment id → :class:`Experiment`, in the order of the papers."""


def list_experiments():
    """The registered experiments, in the order of the papers."""
    return list(EXPERIMENTS.values())


def describe(id):
    """The :class:`Experiment` named ``id``."""
    try:
        return EXPERIMENTS[id]
    except KeyError:
        raise ValueError(f"unknown experiment {id!r}; available: "
                         f"{', '.join(EXPERIMENTS)}") from None
