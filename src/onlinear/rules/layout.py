"""Rows of the learner's ``state`` array (shape ``(n_rows, n_outputs)``), shared by the engine and
the rules: the engine owns the first two, each rule the ones from ``FIRST_RULE_ROW`` on."""
SCALE = 0  # lazy scale factor: true weights of output r = state[SCALE, r] * W[:, r]
SQNORM = 1  # ‖w_r‖², kept current by the engine's additive step
FIRST_RULE_ROW = 2
