# cython: language_level=3
# The one signature of a rule's step (see onlinear.rules.dispatch): from the round's true scores
# (m of them), the label index y, q = ‖x‖² > 0, the rule's parameters and the learner's state
# (C-contiguous (rows, m), onlinear.rules.layout) it writes the steps tau (zeroed by the engine)
# and, for a rescaling rule, the factors (set to ones by the engine); order is an int64 scratch
# of m entries the rule may overwrite.
from libc.stdint cimport int64_t

ctypedef void (*step_function)(const double *scores, Py_ssize_t m, Py_ssize_t y, double q,
                               const double *params, double *state, double *tau,
                               double *factor, int64_t *order) noexcept nogil
