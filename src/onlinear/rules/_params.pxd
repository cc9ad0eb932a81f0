# cython: language_level=3
# The parameter structs of the engines' own rules, outside the rule table (the table's rules get
# theirs generated into _rule_params.pxd, rules/codegen.py): a params vector read by name
# (``(<const EllipsoidParams *>params).gamma``), never by position.  (Integer options travel
# as doubles: the vector is float64.)

cdef struct EllipsoidParams:  # CELLIP and IELLIP (onlinear._core.ellipsoid)
    double gamma
    double a
    double b
    double c
    double mode
    double p1_scale
    double kind
    double decay
    double p_update
