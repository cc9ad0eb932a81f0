"""Tasks: what a round asks of the learner, apart from how the learner answers.

A task turns one example's target into the round's constraints — in the compiled form the
engines read — and turns scores into a prediction.  The learners' steps (the rule table, the
simultaneous schemes, the exact block solver) are defined over constraints; a task is the only
part that knows whether the target was a class label, a label set, a rank or a block of ±1
rows, so one engine serves every task with the same constraint form:

==============  =====================================  =========================================
task            target → constraints of the round       scores → prediction
==============  =====================================  =========================================
Multiclass      label y: ``s_y − s_r ≥ 1`` for r ≠ y    top score (ties → lowest class index)
Binary          Multiclass of two classes only          (the same)
Multilabel      set Y: ``s_r − s_s ≥ 1``, r ∈ Y, s ∉ Y  labels whose score beats the threshold
                (+ the threshold label's pairs)
LabelSets       Multiclass or Multilabel, as the first  (the chosen task's)
                targets show
Ordinal         rank y: ``f − b_j ≥ 1`` (j < y),        ``min{i : f ≤ b_i}``
                ``b_j − f ≥ 1`` (j ≥ y)
Blocks          rows (x_j, y_j = ±1): ``y_j ω·x_j ≥ 1``  sign of ω·x
==============  =====================================  =========================================

(Amit, Shalev-Shwartz & Singer, §2 and §3.1–3.2; Crammer & Singer, §2 for the multiclass
constraints.)  Each task's :meth:`constraints` lists the constraints of one target as the
engine forms them; the tests check them against the engine's counts.
"""
from .binary import Binary
from .blocks import Blocks
from .label_sets import LabelSets
from .multiclass import Multiclass
from .multilabel import Multilabel
from .ordinal import Ordinal

__all__ = ["Binary", "Blocks", "LabelSets", "Multiclass", "Multilabel", "Ordinal"]
