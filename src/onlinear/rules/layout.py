"""Rows of the learner's ``state`` array (shape ``(n_rows, n_outputs)``), shared by the engine and
the rules: the engine owns the rows before ``FIRST_RULE_ROW``, each rule the ones from it on.

The engine keeps the sizes of the weight columns in W units, updated from the coordinates a step
actually touches (O(non-zeros of x)); the lazy scale multiplies in exactly.  A running sum keeps
the absolute rounding error of the largest value it has held, so when a column's size falls below
half of its largest value since the last exact computation (``SIZE_ANCHOR``), it is recomputed
exactly (O(n_features), at most once per halving): the relative error stays at a few ulps times
the number of steps, where the closed form ``‖w‖² ← c²‖w‖² + 2cτ(w·x) + τ²‖x‖²`` would lose
everything to cancellation.
"""
SCALE = 0  # lazy scale factor: true weights of output r = state[SCALE, r] * W[:, r]
RAW_SQNORM = 1  # Σ_j W[j, r]² (additive learners)
RAW_MASS = 2  # Σ_j W[j, r] (multiplicative learners: positive weights)
SIZE_ANCHOR = 3  # largest RAW_SQNORM (additive) or RAW_MASS (multiplicative) since it was exact
FIRST_RULE_ROW = 4

