"""What an estimator trained by one rule of the rule table knows of its rule.

The primal learners (:mod:`.primal`) and their kernel forms (:mod:`.kernel`) are trained by one
rule of :data:`onlinear.rules.table.RULES`: a learner names it (``_rule``) and turns its
hyperparameters into the rule's parameters by name (``_rule_values``); the rest — the parameter
vector, the state rows, whether the rule is binary or scale-free, how an example's weight enters
its round, whether its hypothesis can be averaged — is read from the rule's row here, once.
"""
from .._core import primal
from ..rules.table import RULES


class _RuleFacts:
    """Mixin of the estimators trained by one rule (module doc)."""

    _rule = None  # set by subclasses: a Rule of onlinear.rules.table
    _rule_id = -1  # (both set by __init_subclass__ from _rule)
    _rule_scale_free = False
    #: how the rule's steps change the weights (additive, or multiplicative normalized per row
    #: or over the matrix: :mod:`onlinear._core.primal`)
    _step_kind = primal.ADDITIVE

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # the rule's id and scale-freedom as plain class attributes: the per-example paths
        # read them on every call (``int(Rule)`` and the table look-up cost 0.2 µs)
        cls._rule_id = int(cls._rule) if cls._rule in RULES else -1
        cls._rule_scale_free = RULES[cls._rule].scale_free if cls._rule in RULES else False
        if "_rule" in vars(cls) and "_two_class_outputs" not in vars(cls) and cls._rule in RULES:
            # one output for two classes if the rule is binary, one per class otherwise
            cls._two_class_outputs = 1 if RULES[cls._rule].binary else 2

    def _rule_values(self):
        """The rule's parameters by name (the names of its row in
        :data:`onlinear.rules.table.RULES`), string options encoded as numbers."""
        raise NotImplementedError

    def _rule_params(self):
        """The rule's ``params`` vector, in its table row's order."""
        return RULES[self._rule].vector(self._rule_values())

    @property
    def _state_rows(self):
        """Rows of the state array: the engine's and the rule's (see the rule table)."""
        return RULES[self._rule].state_rows

    @property
    def _scale_free(self):
        return self._rule_scale_free

    def _has_averaged_form(self):
        """Whether the learner can average its hypotheses: additive steps whose weights are the
        hypothesis (not the multiplicative family, normalized; not the scale-free learners,
        whose hypothesis is the direction w/‖w‖), or any rule whose model averages every
        rule's hypothesis (the kernel forms' expansion)."""
        return (getattr(self._model_class, "averages_every_rule", False)
                or self._step_kind == primal.ADDITIVE and not self._scale_free)

    def _averaging_refusal(self):
        """Why ``average=True`` is refused (:meth:`_has_averaged_form` is False)."""
        return ("its weights are normalized, multiplicatively updated"
                if self._step_kind != primal.ADDITIVE else
                "its hypothesis is the direction w/‖w‖, not w")

    def _weight_mode(self):
        """How an example's weight enters this learner's round (``primal.WEIGHT_*``): the C
        of PA-I/PA-II and their support-class forms (the weighted loss C·w·ξ of their primal
        problem), the step of the others (a weight w makes the step w times as long; for the
        hard-margin PA and MIRA, whose step meets the constraints exactly, a weight below 1
        leaves the margin short and one above 1 overshoots it)."""
        if RULES[self._rule].weight_mode(self._rule_values()) == "C":
            return primal.WEIGHT_C
        return primal.WEIGHT_STEP
