"""Numbers read from text, and C arrays grown and handed to numpy, for the compiled readers
(LIBSVM's ``_svmlight.pyx``, CSV's ``_csv.pyx``): inline, so each reader's loop is compiled with
them.

Numbers are read as C's ``strtod`` reads them (correctly rounded, as Python's ``float``), with
hexadecimal and ``nan(...)`` forms refused as ``float`` refuses them.
"""
from libc.math cimport isnan
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport free, realloc, strtod
from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_New

cimport numpy as cnp

cdef extern from *:
    """
    /* 10**0 .. 10**22: every one exact in a double (Clinger's fast path) */
    static const double onlinear_powers_of_ten[23] = {
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
        1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    """
    const double onlinear_powers_of_ten[23]


cdef inline bint _number(const char *start, const char *stop, double *out) noexcept nogil:
    """Read ``[start, stop)`` whole as a number, as Python's ``float`` would accept it."""
    cdef const char *end
    if _decimal(start, stop, out, &end) and end == stop:
        return True
    return _slow_number(start, stop, out)


cdef inline const char *_mantissa_digits(const char *p, const char *stop, uint64_t *mantissa,
                                         int *digits, int *count) noexcept nogil:
    """The decimal digits at ``p`` appended to ``mantissa`` (``digits`` counts its significant
    ones, ``count`` every digit read); where they end, or NULL past 19 significant digits (more
    than a uint64 holds exactly: strtod's)."""
    while p < stop and c'0' <= p[0] <= c'9':
        count[0] += 1
        if mantissa[0] or p[0] != c'0':
            digits[0] += 1
            if digits[0] > 19:
                return NULL
            mantissa[0] = mantissa[0] * 10 + <uint64_t>(p[0] - c'0')
        p += 1
    return p


cdef inline bint _decimal(const char *start, const char *stop, double *out,
                          const char **end) noexcept nogil:
    """Read the decimal number at ``start`` (before ``stop``), setting ``end`` after it; False
    if it is not one Clinger's fast path reads exactly (then strtod must).

    Clinger's fast path (W. D. Clinger, "How to read floating point numbers accurately",
    PLDI 1990, §5): a decimal of at most 2**53 as integer mantissa, scaled by 10**e with
    |e| <= 22, is that exact integer times or divided by an exact power of ten — one IEEE
    operation, correctly rounded, so the result is strtod's bit for bit.  More digits, larger
    exponents, inf and nan are strtod's.
    """
    cdef const char *p = start
    cdef uint64_t mantissa = 0
    cdef int digits = 0, fraction = 0, exponent = 0, exponent_sign = 1
    cdef bint negative = False
    if p < stop and (p[0] == c'+' or p[0] == c'-'):
        negative = p[0] == c'-'
        p += 1
    cdef int whole = 0
    p = _mantissa_digits(p, stop, &mantissa, &digits, &whole)
    if p == NULL:
        return False
    if p < stop and p[0] == c'.':
        p = _mantissa_digits(p + 1, stop, &mantissa, &digits, &fraction)
        if p == NULL:
            return False
    if whole == 0 and fraction == 0:
        return False
    if p < stop and (p[0] == c'e' or p[0] == c'E'):
        p += 1
        if p < stop and (p[0] == c'+' or p[0] == c'-'):
            exponent_sign = -1 if p[0] == c'-' else 1
            p += 1
        if p == stop or not (c'0' <= p[0] <= c'9'):
            return False
        while p < stop and c'0' <= p[0] <= c'9':
            if exponent < 100000:
                exponent = exponent * 10 + (p[0] - c'0')
            p += 1
    end[0] = p
    exponent = exponent_sign * exponent - fraction
    if mantissa == 0:
        out[0] = -0.0 if negative else 0.0
        return True
    if mantissa > (<uint64_t>1 << 53) or exponent < -22 or exponent > 22:
        return False
    if exponent >= 0:
        out[0] = <double>mantissa * onlinear_powers_of_ten[exponent]
    else:
        out[0] = <double>mantissa / onlinear_powers_of_ten[-exponent]
    if negative:
        out[0] = -out[0]
    return True


cdef inline bint _slow_number(const char *start, const char *stop, double *out) noexcept nogil:
    """strtod's reading of ``[start, stop)``, refused where Python's ``float`` refuses.  The
    byte at ``stop`` must be one strtod stops at (a space, a delimiter, a newline, the NUL
    after a ``bytes``' last)."""
    cdef char *end
    cdef const char *p = start
    if start == stop:
        return False  # (strtod would skip the newline and read the next line)
    out[0] = strtod(start, &end)
    if end != stop:
        return False
    if p[0] == c'+' or p[0] == c'-':
        p += 1
    if stop - p > 1 and p[0] == c'0' and (p[1] == c'x' or p[1] == c'X'):
        return False  # hexadecimal: strtod reads it, float does not
    if isnan(out[0]) and stop - p != 3:
        return False  # nan(...)
    return True


cdef inline bint _grow(void **array, int64_t *capacity, int64_t needed, size_t item,
                       int64_t start=1024) noexcept nogil:
    """Make the C array ``array`` hold at least ``needed`` items of ``item`` bytes (doubling
    from ``start`` items); False if memory runs out (the array is then as it was)."""
    cdef int64_t size = capacity[0] if capacity[0] > 0 else start
    cdef void *bigger
    if needed <= capacity[0]:
        return True
    while size < needed:
        size *= 2
    bigger = realloc(array[0], size * item)
    if bigger == NULL:
        return False
    array[0] = bigger
    capacity[0] = size
    return True


cdef inline void _free_capsule(object capsule) noexcept:
    free(PyCapsule_GetPointer(capsule, NULL))


cdef inline object _handed(void **array, int64_t *capacity, int64_t n, int typenum):
    """The first ``n`` items of the C array ``array`` as a numpy array that owns it (freed with
    the array), its unused tail given back; ``array`` is left empty, to be allocated anew."""
    cdef cnp.npy_intp size = n
    cdef void *shrunk
    if n == 0 or array[0] == NULL:
        return cnp.PyArray_EMPTY(1, &size, typenum, 0)
    shrunk = realloc(array[0], n * (4 if typenum == cnp.NPY_INT32 else 8))
    if shrunk != NULL:
        array[0] = shrunk
    owned = cnp.PyArray_SimpleNewFromData(1, &size, typenum, array[0])
    cnp.set_array_base(owned, PyCapsule_New(array[0], NULL, _free_capsule))
    array[0] = NULL
    capacity[0] = 0
    return owned
