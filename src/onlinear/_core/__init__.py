"""The numeric core: the compiled online loops and the pieces they share.

* :mod:`.rows` — a row as ``(column indices, values)`` for dense and CSR data alike, and the
  validation of rows (:data:`.rows.ROW_NORM_EXPONENT`, the accepted range of ``‖x‖``);
* :mod:`.counters` — the counter layout every loop increments;
* :mod:`.weights` — the lazy weight store: scale, size bookkeeping, fold, add a row,
  exponentiated step, dot;
* the four engines on top of them: :mod:`.primal` (the rules of the table, additive, rescaling
  and multiplicative steps), :mod:`.ellipsoid` (metric-carrying steps), :mod:`.kernel` (the same
  rules over support patterns) and :mod:`.blocks` (blocks of binary constraints: simultaneous
  projections, label sets, ordinal thresholds).
"""
