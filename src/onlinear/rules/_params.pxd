# cython: language_level=3
# Each rule's params vector as a struct of named doubles, one struct per row of the rule table
# (onlinear.rules.table.RULES): a step reads ``(<const PAParams *>params).C``, never a
# position.  The fields are the row's ``params``, in order; dispatch.PARAMETER_FIELDS gives
# each rule's field names from these declarations and tests/test_rule_table.py checks them
# against the table by name.  (Integer options travel as doubles: the vector is float64.)

cdef struct MarginParams:  # Perceptron, binary MIRA, Kesler, MIRA
    double beta

cdef struct AdditiveFamilyParams:
    double beta
    double scheme

cdef struct PassiveAggressiveParams:  # PA and the support-class PA
    double C
    double kind
    double variant

cdef struct RommaParams:
    double kind

cdef struct NarommaParams:
    double skip

cdef struct MaximumCosineParams:
    double conservative

cdef struct MulticlassRommaParams:
    double scheme

cdef struct MultiplicativeParams:
    double eta
    double scheme

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
