"""The compiled reader of numeric CSV: bytes in, CSR arrays (or a dense table) and label strings
out, no Python object per field.

:class:`CsvParser` reads the lines of byte blocks (as a decompressor hands them out) into
growing C arrays until a chunk holds the rows asked for; :meth:`CsvParser.take` hands the chunk
over as numpy arrays.  It reads only the lines the Python reader (``csv.py``: numpy's text
parser, the :mod:`csv` module, ``float``) would read the same way: fields of ASCII text split on
a one-byte delimiter (or on runs of whitespace), each a number as ``float`` reads it (C's
``strtod``, correctly rounded) but the label's, kept as its text.  At the first line it does not
read — a quote, a lone carriage return (a line break to Python), a control or non-ASCII byte, a
field that is not such a number, a row of another width — it stops before the line
(``odd``), and the Python reader reads the stream from there on: its errors, quoting and
decoding are the Python reader's.
"""
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport free
from libc.string cimport memchr

from ._numbers cimport _decimal, _grow, _handed, _number

import numpy as np

from ._svmlight import _Lines as _ByteLines

cimport numpy as cnp

cnp.import_array()

#: the delimiters read here: none is a byte of a number or a space (strtod stops at each)
DELIMITERS = ",;|:\t"


cdef inline bint _space(char c, char delimiter) noexcept nogil:
    # what float() and str.strip() strip from a field, less what the Python reader reads
    # otherwise (a carriage return breaks a line there; \x1c-\x1f are odd bytes)
    return (c == c' ' or c == c'\t' or c == c'\v' or c == c'\f') and c != delimiter


cdef inline bint _odd(unsigned char c, bint quoting) noexcept nogil:
    """A byte the Python reader reads otherwise than as text: non-ASCII (decoded), a control
    byte but tab, \\v and \\f (a line break or whitespace to Python), a quote when delimited."""
    if c >= 0x7f:
        return True
    if c < 0x20:
        return not (c == 9 or c == 11 or c == 12)
    return quoting and c == c'"'


cdef class CsvParser:
    """Rows of a numeric CSV table parsed into arrays, a chunk at a time.

    Parameters
    ----------
    width : int
        Fields of a row (the first row's); a row of another width is odd.
    label : int
        The label's field (0-based).
    delimiter : str
        One of :data:`DELIMITERS`, or ``""`` for runs of whitespace.
    sparse : bool
        CSR arrays of the nonzero features (as :class:`scipy.sparse.csr_matrix` keeps of a
        dense table), else a dense table.
    single : bool
        The features go to float32: a value that float32 rounds to zero is not stored.
    """
    cdef double *values
    cdef int32_t *columns
    cdef int64_t *pointers
    cdef int64_t *numbers
    cdef int64_t *starts
    cdef int64_t *stops
    cdef int32_t *blocks
    cdef int64_t nnz, nnz_capacity, columns_capacity, start_nnz, start_rows
    cdef int64_t row_capacity, numbers_capacity, starts_capacity, stops_capacity
    cdef int64_t blocks_capacity
    cdef readonly int64_t n_rows
    cdef public int64_t line  # lines read (blank ones too): the next is line + 1
    cdef readonly bint odd
    cdef int width, label
    cdef char delimiter
    cdef bint sparse, single
    cdef list held, labels  # (0, block) of the blocks the chunk's lines lie in; its labels
    cdef const char *label_start
    cdef const char *label_stop

    def __cinit__(self, int width, int label, str delimiter, bint sparse, bint single):
        if not (0 <= label < width) or width < 2:
            raise ValueError(f"label {label} is not a feature of a {width}-field row")
        if delimiter and (len(delimiter) != 1 or delimiter not in DELIMITERS):
            raise ValueError(f"delimiter {delimiter!r} is not one of {DELIMITERS!r}")
        self.width, self.label = width, label
        self.delimiter = ord(delimiter) if delimiter else 0
        self.sparse, self.single = sparse, single
        self.held, self.labels = [], []
        self.start_nnz = 1024 * (width - 1)
        self.start_rows = 1024

    def __dealloc__(self):
        free(self.values); free(self.columns); free(self.pointers); free(self.numbers)
        free(self.starts); free(self.stops); free(self.blocks)

    def parse(self, bytes block, Py_ssize_t position, bint final, int64_t rows):
        """Parse the lines of ``block`` from byte ``position`` until the chunk holds ``rows``
        rows, an odd line is met (``odd`` is then set) or only an unfinished line is left (the
        whole block if ``final``: no more bytes come).  Returns the position after the last
        line read."""
        if not self.held or self.held[len(self.held) - 1][1] is not block:
            self.held.append((0, block))
        return self._parse(block, len(block), position, final, rows, len(self.held) - 1)

    cdef Py_ssize_t _parse(self, const char *text, Py_ssize_t size, Py_ssize_t position,
                           bint final, int64_t wanted, int32_t block_id) except -1:
        cdef const char *line
        cdef const char *end
        cdef const char *stop
        while self.n_rows < wanted and position < size:
            line = text + position
            end = <const char *>memchr(line, c'\n', size - position)
            if end == NULL:
                if not final:
                    return position
                end = text + size
            stop = end
            if stop > line and (stop - 1)[0] == c'\r':
                stop -= 1
            if not self._room():
                raise MemoryError()
            if not self._row(line, stop):
                if not self._blank(line, stop):
                    self.odd = True
                    return position
                self.line += 1
                position = end - text + 1
                continue
            self.line += 1
            self.labels.append(self.label_start[:self.label_stop - self.label_start].decode(
                "ascii"))
            self.numbers[self.n_rows] = self.line
            self.starts[self.n_rows] = line - text
            self.stops[self.n_rows] = min(end - text + 1, size)
            self.blocks[self.n_rows] = block_id
            self.n_rows += 1
            if self.sparse:
                self.pointers[self.n_rows] = self.nnz
            else:
                self.nnz += self.width - 1
            position = end - text + 1
        return min(position, size)

    cdef bint _row(self, const char *p, const char *stop) noexcept nogil:
        """Read the row ``[p, stop)`` into the arrays; False (nothing kept) if it is not a row
        of ``width`` fields, numbers but the label."""
        cdef int field, column = 0
        cdef int64_t nnz = self.nnz
        cdef double value
        cdef const char *field_end
        cdef const char *after
        cdef char delimiter = self.delimiter
        cdef double *dense = self.values + self.nnz
        for field in range(self.width):
            while p < stop and _space(p[0], delimiter):
                p += 1
            if field == self.label:
                if not self._label(p, stop, &p):
                    return False
            else:
                if not (_decimal(p, stop, &value, &after) and self._field_end(after, stop)):
                    after = self._token_end(p, stop)
                    field_end = after
                    while field_end > p and _space((field_end - 1)[0], delimiter):
                        field_end -= 1
                    if p == field_end or _odd(p[0], False) or not _number(p, field_end, &value):
                        return False
                p = after
                if not self.sparse:
                    dense[column] = value
                elif (<float>value != 0) if self.single else (value != 0):
                    self.values[nnz] = value
                    self.columns[nnz] = column
                    nnz += 1
                column += 1
            # p is at the field's end: the delimiter before the next field, or spaces
            while p < stop and _space(p[0], delimiter):
                p += 1
            if field < self.width - 1:
                if delimiter:
                    if p == stop or p[0] != delimiter:
                        return False
                    p += 1
                elif p == stop:
                    return False
        if p != stop:
            return False
        if self.sparse:
            self.nnz = nnz
        return True

    cdef inline bint _field_end(self, const char *p, const char *stop) noexcept nogil:
        """Whether a field can end at ``p`` (the number read before it is the field)."""
        return p == stop or _space(p[0], self.delimiter) or (self.delimiter and
                                                              p[0] == self.delimiter)

    cdef inline const char *_token_end(self, const char *p, const char *stop) noexcept nogil:
        """Where the field starting at ``p`` ends (before its trailing spaces if whitespace
        delimits)."""
        cdef const char *found
        if self.delimiter:
            found = <const char *>memchr(p, self.delimiter, stop - p)
            return found if found != NULL else stop
        while p < stop and not _space(p[0], 0):
            p += 1
        return p

    cdef bint _label(self, const char *p, const char *stop, const char **end) noexcept nogil:
        """Note the label field at ``p`` (its spaces stripped) and set ``end`` after it; False
        if it holds an odd byte."""
        cdef const char *field_end = self._token_end(p, stop)
        cdef const char *q = p
        end[0] = field_end
        while q < field_end:
            if _odd(q[0], self.delimiter != 0):
                return False
            q += 1
        while field_end > p and _space((field_end - 1)[0], self.delimiter):
            field_end -= 1
        self.label_start, self.label_stop = p, field_end
        return True

    cdef bint _blank(self, const char *p, const char *stop) noexcept nogil:
        """Whether the line ``[p, stop)`` holds no field but empty ones (skipped)."""
        while p < stop:
            if not (_space(p[0], 0) or p[0] == self.delimiter):
                return False
            p += 1
        return True

    cdef bint _room(self) noexcept nogil:
        """Room for one more row."""
        cdef int64_t rows = self.n_rows + 2, start = self.start_rows
        if self.sparse:
            if not (_grow(<void **>&self.values, &self.nnz_capacity, self.nnz + self.width, 8,
                          self.start_nnz)
                    and _grow(<void **>&self.columns, &self.columns_capacity, self.nnz_capacity,
                              4, self.start_nnz)
                    and _grow(<void **>&self.pointers, &self.row_capacity, rows, 8, start)):
                return False
            self.pointers[0] = 0
        elif not _grow(<void **>&self.values, &self.nnz_capacity, self.nnz + self.width, 8,
                       self.start_nnz):
            return False
        return (_grow(<void **>&self.numbers, &self.numbers_capacity, rows, 8, start)
                and _grow(<void **>&self.starts, &self.starts_capacity, rows, 8, start)
                and _grow(<void **>&self.stops, &self.stops_capacity, rows, 8, start)
                and _grow(<void **>&self.blocks, &self.blocks_capacity, rows, 4, start))

    def take(self, dtype):
        """The chunk parsed so far, and start a new one (the arrays are handed over, not
        copied).

        Returns
        -------
        X : ndarray of shape (n_rows, width - 1) or tuple
            The dense table, or with ``sparse`` the CSR arrays ``(data, indices, indptr)``
            (int32 indices; int32 pointers unless the chunk holds more than 2**31 - 1 values).
        labels : list of str
            Each row's label field, its spaces stripped.
        numbers : list of int
            Each row's 1-based line number.
        lines : _Lines
            Each row's line as text, on demand (an error quotes one).
        """
        cdef int64_t n = self.n_rows, nnz = self.nnz
        cdef int64_t features = self.width - 1
        numbers = _handed(<void **>&self.numbers, &self.numbers_capacity, n, cnp.NPY_INT64)
        starts = _handed(<void **>&self.starts, &self.starts_capacity, n, cnp.NPY_INT64)
        stops = _handed(<void **>&self.stops, &self.stops_capacity, n, cnp.NPY_INT64)
        blocks = _handed(<void **>&self.blocks, &self.blocks_capacity, n, cnp.NPY_INT32)
        data = _handed(<void **>&self.values, &self.nnz_capacity, nnz, cnp.NPY_FLOAT64)
        if self.sparse:
            indices = _handed(<void **>&self.columns, &self.columns_capacity, nnz,
                              cnp.NPY_INT32)
            if n:
                pointers = _handed(<void **>&self.pointers, &self.row_capacity, n + 1,
                                   cnp.NPY_INT64)
            else:
                pointers = np.zeros(1, dtype=np.int64)
        if nnz:
            # the next chunk's arrays sized for this one's and 1/8 more (as _svmlight's)
            self.start_nnz = nnz + nnz // 8 + self.width
        if n:
            self.start_rows = n + 2
        labels, self.labels = self.labels, []
        lines = _Lines(self.held, blocks, starts, stops)
        self.held = self.held[len(self.held) - 1:] if self.held else []
        self.n_rows = self.nnz = 0
        if dtype != np.float64:
            with np.errstate(over="ignore"):  # (beyond float32: inf, as numpy's parser reads it)
                data = data.astype(dtype)
        if self.sparse:
            pointer_type = np.int32 if nnz <= 2147483647 else np.int64
            X = (data, indices, pointers.astype(pointer_type, copy=False))
        else:
            X = data.reshape(n, features)
        return X, labels, numbers.tolist(), lines


class _Lines(_ByteLines):
    """The lines of a chunk's rows as text (with their line break), cut from the blocks they
    were read from only when asked for."""

    def __getitem__(self, row):
        return super().__getitem__(row).decode("ascii")
