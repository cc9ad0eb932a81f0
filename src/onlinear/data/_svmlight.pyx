"""The compiled LIBSVM/SVMlight reader: bytes in, CSR arrays out, no Python object per line.

:class:`SvmlightParser` reads the lines of byte blocks (as a decompressor hands them out) into
growing C arrays — values, column indices, row pointers, labels, and for each row its line
number and where its line lies in the blocks — until a chunk holds the rows asked for;
:meth:`SvmlightParser.take` hands the chunk over as numpy arrays.  The parse runs without the
GIL, so another thread (the learner's) runs beside it.

The grammar is scikit-learn's ``load_svmlight_file`` (Joachims' SVMlight format, which LIBSVM
shares): ``label[,label...] [qid:n] index:value ...`` with strictly increasing indices, ``#``
starting a comment, blank lines skipped; numbers as C's ``strtod`` reads them (correctly
rounded, as Python's ``float``), hexadecimal and ``nan(...)`` forms refused as ``float`` does.
"""
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport free
from libc.string cimport memchr

from ._numbers cimport _decimal, _grow, _handed, _number

import numpy as np

cimport numpy as cnp

cnp.import_array()

# What went wrong on a line (the message is written in Python, from the token's bytes).
cpdef enum Fault:
    NONE = 0
    BAD_LABEL = 1        # a label that is not a number
    NO_COLON = 2         # a feature token without ':'
    BAD_INDEX = 3        # an index that is not an integer
    BAD_VALUE = 4        # a value that is not a number (or is missing)
    INVALID_INDEX = 5    # negative, or 0 in a one-based file
    UNSORTED = 6         # not above the previous index
    INDEX_TOO_LARGE = 7  # above 2**31 - 1
    BEYOND_WIDTH = 8     # at or beyond n_features
    UNFINISHED = 9       # the stream ended inside a line (no newline after it)
    NO_MEMORY = 10
    QID = 11             # (not a fault: a query id token, skipped)

#: the largest feature index taken (the compiled passes index columns with int32)
MAX_INDEX = 2147483647
cdef int64_t _MAX_INDEX = MAX_INDEX


cdef inline bint _space(char c) noexcept nogil:
    # bytes.split()'s whitespace, less the newline that ends a line
    return c == c' ' or c == b'\t' or c == b'\r' or c == b'\v' or c == b'\f'


cdef inline const char *_content(const char *line, const char *end,
                                 const char **stop) noexcept nogil:
    """The first character of the line ``[line, end)`` that is not a space, and in ``stop``
    where its content ends (at a ``#``, which starts a comment): the two meet on a blank or
    comment-only line."""
    cdef const char *hash_ = <const char *>memchr(line, c'#', end - line)
    stop[0] = hash_ if hash_ != NULL else end
    cdef const char *p = line
    while p < stop[0] and _space(p[0]):
        p += 1
    return p


cdef inline const char *_token_end(const char *p, const char *stop) noexcept nogil:
    """Where the token starting at ``p`` ends: the next space, or ``stop``."""
    while p < stop and not _space(p[0]):
        p += 1
    return p


cdef inline bint _integer(const char *start, const char *stop, int64_t *out) noexcept nogil:
    """Read ``[start, stop)`` as a decimal integer (sign allowed); saturates far above 2**31."""
    cdef int64_t value = 0
    cdef bint negative = False
    if start < stop and (start[0] == c'+' or start[0] == c'-'):
        negative = start[0] == c'-'
        start += 1
    if start == stop:
        return False
    while start < stop:
        if start[0] < c'0' or start[0] > c'9':
            return False
        if value < (<int64_t>1 << 40):
            value = value * 10 + (start[0] - c'0')
        start += 1
    out[0] = -value if negative else value
    return True


cdef class SvmlightParser:
    """Rows of LIBSVM text parsed into CSR arrays, a chunk at a time.

    Parameters
    ----------
    n_features : int
        Columns of a chunk: an index at or beyond is an error; -1 for no bound (a chunk is then
        as wide as its largest index).
    zero_based : bool
        Whether indices start at 0 (LIBSVM's start at 1).
    multilabel : bool
        Labels are comma-separated sets (a row may have none: its first token is a feature).
    need_newline : bool
        The stream's last line must end with a newline (for a pipe, whose writer may have been
        cut off mid-line: the cut line would otherwise read as a shorter row).
    keep_lines : bool
        Keep the blocks a chunk's lines lie in, so that :meth:`take` can hand them over (for an
        error quoting a row's line, where the stream cannot be read again: standard input);
        False keeps only the block in use, and a row's line is found again by its offsets.
    """
    cdef double *values
    cdef int32_t *columns
    cdef int64_t *pointers
    cdef double *labels
    cdef int64_t *label_pointers
    cdef int64_t *numbers
    cdef int64_t *starts
    cdef int64_t *stops
    cdef int32_t *blocks
    cdef readonly int64_t n_rows
    cdef int64_t nnz, nnz_capacity, row_capacity, n_labels, label_capacity
    cdef int64_t _columns_capacity, _rows_capacity2, _rows_capacity3, _rows_capacity4
    cdef int64_t _rows_capacity5, _rows_capacity6
    # the last chunk's sizes: the next chunk's arrays start there (one allocation, not a dozen)
    cdef int64_t start_nnz, start_rows, start_labels
    cdef readonly int64_t line, width
    cdef int64_t n_features
    cdef bint zero_based, multilabel, need_newline, keep_lines
    cdef list held  # (offset, block) of the blocks the chunk's lines lie in
    # the fault: its kind, line, token (offsets in the block parsed) and index
    cdef readonly int fault
    cdef readonly int64_t fault_line, fault_start, fault_stop, fault_line_start, fault_line_stop
    cdef readonly int64_t fault_index

    def __cinit__(self, int64_t n_features, bint zero_based, bint multilabel,
                  bint need_newline=False, bint keep_lines=True):
        self.n_features, self.keep_lines = n_features, keep_lines
        self.zero_based, self.multilabel, self.need_newline = zero_based, multilabel, need_newline
        self.held = []
        self.fault = NONE
        self.start_nnz = self.start_rows = self.start_labels = 1024
        self._reset()

    def __dealloc__(self):
        free(self.values); free(self.columns); free(self.pointers); free(self.labels)
        free(self.label_pointers); free(self.numbers); free(self.starts); free(self.stops)
        free(self.blocks)

    cdef void _reset(self) noexcept:
        self.nnz = self.n_rows = self.n_labels = 0
        self.width = 0

    def parse(self, bytes block, Py_ssize_t position, bint final, int64_t rows,
              int64_t offset=0):
        """Parse the lines of ``block`` from byte ``position`` until the chunk holds ``rows``
        rows or only an unfinished line is left (the whole block if ``final``: no more bytes
        come).  Returns the position after the last line read.  ``fault`` is then set if a line
        is malformed (nothing of it is kept).  ``offset`` is where ``block`` starts in the
        stream: a row's line is recorded by its offsets in the stream."""
        cdef const char *text = block
        cdef Py_ssize_t size = len(block)
        cdef Py_ssize_t reached
        cdef int32_t block_id
        if not self.held or self.held[len(self.held) - 1][1] is not block:
            if not self.keep_lines:
                self.held = []
            self.held.append((offset, block))
        block_id = len(self.held) - 1
        with nogil:
            reached = self._parse(text, size, position, final, rows, block_id, offset)
        return reached

    cdef Py_ssize_t _parse(self, const char *text, Py_ssize_t size, Py_ssize_t position,
                           bint final, int64_t wanted, int32_t block_id,
                           int64_t offset) noexcept nogil:
        cdef const char *line
        cdef const char *end
        cdef const char *stop
        cdef const char *p
        cdef const char *token
        cdef const char *colon
        cdef const char *after
        cdef double value
        cdef int64_t index, previous, column
        cdef int64_t row_nnz0, labels0
        cdef bint first
        while self.n_rows < wanted and position < size:
            line = text + position
            end = <const char *>memchr(line, c'\n', size - position)
            if end == NULL:
                if not final:
                    return position
                end = text + size
            self.line += 1
            p = _content(line, end, &stop)
            if p == stop:  # blank or comment only
                position = end - text + 1
                continue
            if end == text + size and self.need_newline:
                self._fail(UNFINISHED, line, end, line, end, text)
                return position
            # room for this row: labels and pointers (values are grown token by token)
            if not self._room_for_row():
                self._fail(NO_MEMORY, line, end, line, end, text)
                return position
            row_nnz0, labels0 = self.nnz, self.n_labels
            # the label field
            token = p
            p = _token_end(p, stop)
            if self.multilabel:
                if memchr(token, c':', p - token) != NULL:
                    p = token  # no label: the token is a feature
                else:
                    if not self._labels(token, p):
                        self._fail(BAD_LABEL, token, p, line, end, text)
                        self.nnz, self.n_labels = row_nnz0, labels0
                        return position
            else:
                if not _number(token, p, &value):
                    self._fail(BAD_LABEL, token, p, line, end, text)
                    return position
                if not self._label(value):
                    self._fail(NO_MEMORY, line, end, line, end, text)
                    return position
            # the features
            previous = -1
            first = True
            while True:
                while p < stop and _space(p[0]):
                    p += 1
                if p == stop:
                    break
                token = p
                # the common token, digits:decimal, read in one sweep
                index = 0
                while p < stop and c'0' <= p[0] <= c'9' and index < (<int64_t>1 << 40):
                    index = index * 10 + (p[0] - c'0')
                    p += 1
                if p > token and p < stop and p[0] == c':' and _decimal(p + 1, stop, &value, &after) \
                        and (after == stop or _space(after[0])):
                    p = after
                    first = False
                else:  # anything else: the token whole, each fault told apart
                    p = _token_end(token, stop)
                    if not self._token(token, p, first, &index, &value):
                        self._undo(row_nnz0, labels0)
                        self._fail(self.fault, token, p, line, end, text)
                        return position
                    if self.fault == QID:
                        self.fault = NONE
                        first = False
                        continue  # a query id: not a feature
                    first = False
                if index < 0 or (index == 0 and not self.zero_based):
                    self._undo(row_nnz0, labels0)
                    self._fail(INVALID_INDEX, token, p, line, end, text)
                    self.fault_index = index
                    return position
                if index <= previous:
                    self._undo(row_nnz0, labels0)
                    self._fail(UNSORTED, token, p, line, end, text)
                    return position
                if index > _MAX_INDEX:
                    self._undo(row_nnz0, labels0)
                    self._fail(INDEX_TOO_LARGE, token, p, line, end, text)
                    return position
                column = index if self.zero_based else index - 1
                if self.n_features >= 0 and column >= self.n_features:
                    self._undo(row_nnz0, labels0)
                    self._fail(BEYOND_WIDTH, token, p, line, end, text)
                    self.fault_index = column + 1
                    return position
                previous = index
                if self.nnz >= self.nnz_capacity and not (
                        _grow(<void **>&self.values, &self.nnz_capacity, self.nnz + 1, 8,
                              self.start_nnz)
                        and self._columns_room()):
                    self._undo(row_nnz0, labels0)
                    self._fail(NO_MEMORY, line, end, line, end, text)
                    return position
                self.values[self.nnz] = value
                self.columns[self.nnz] = <int32_t>column
                self.nnz += 1
                if column + 1 > self.width:
                    self.width = column + 1
            self.pointers[self.n_rows + 1] = self.nnz
            self.label_pointers[self.n_rows + 1] = self.n_labels
            self.numbers[self.n_rows] = self.line
            self.starts[self.n_rows] = offset + (line - text)
            self.stops[self.n_rows] = offset + (end - text)
            self.blocks[self.n_rows] = block_id
            self.n_rows += 1
            position = end - text + 1
        return position if position < size else size

    cdef bint _token(self, const char *token, const char *stop, bint first,
                     int64_t *index, double *value) noexcept nogil:
        """Read the feature token ``[token, stop)`` the quick sweep did not: set ``fault`` to
        what is wrong with it (or to QID for a query id, skipped) and return False if
        anything is."""
        cdef const char *colon
        if first and stop - token >= 4 and token[0] == c'q' \
                and token[1] == c'i' and token[2] == c'd' and token[3] == c':':
            self.fault = QID
            return True
        colon = <const char *>memchr(token, c':', stop - token)
        if colon == NULL:
            self.fault = NO_COLON
        elif not _integer(token, colon, index):
            self.fault = BAD_INDEX
        elif not _number(colon + 1, stop, value):
            self.fault = BAD_VALUE
        else:
            return True
        return False

    cdef bint _columns_room(self) noexcept nogil:
        return _grow(<void **>&self.columns, &self._columns_capacity, self.nnz_capacity, 4,
                     self.start_nnz)

    cdef bint _room_for_row(self) noexcept nogil:
        cdef int64_t needed = self.n_rows + 2, start = self.start_rows
        return (_grow(<void **>&self.pointers, &self.row_capacity, needed, 8, start)
                and _grow(<void **>&self.label_pointers, &self._rows_capacity2, needed, 8, start)
                and _grow(<void **>&self.numbers, &self._rows_capacity3, needed, 8, start)
                and _grow(<void **>&self.starts, &self._rows_capacity4, needed, 8, start)
                and _grow(<void **>&self.stops, &self._rows_capacity5, needed, 8, start)
                and _grow(<void **>&self.blocks, &self._rows_capacity6, needed, 4, start)
                and self._first_pointers())

    cdef bint _first_pointers(self) noexcept nogil:
        if self.n_rows == 0:
            self.pointers[0] = 0
            self.label_pointers[0] = 0
        return True

    cdef bint _label(self, double value) noexcept nogil:
        if not _grow(<void **>&self.labels, &self.label_capacity, self.n_labels + 1, 8,
                     self.start_labels):
            return False
        self.labels[self.n_labels] = value
        self.n_labels += 1
        return True

    cdef bint _labels(self, const char *start, const char *stop) noexcept nogil:
        """The comma-separated labels of ``[start, stop)``, sorted (as scikit-learn's)."""
        cdef const char *comma
        cdef double value, held
        cdef int64_t first = self.n_labels, i
        while True:
            comma = <const char *>memchr(start, c',', stop - start)
            if comma == NULL:
                comma = stop
            if not _number(start, comma, &value) or not self._label(value):
                return False
            i = self.n_labels - 1  # insertion sort: a row has few labels
            while i > first and self.labels[i - 1] > self.labels[i]:
                held = self.labels[i - 1]
                self.labels[i - 1] = self.labels[i]
                self.labels[i] = held
                i -= 1
            if comma == stop:
                return True
            start = comma + 1

    cdef void _undo(self, int64_t nnz, int64_t n_labels) noexcept nogil:
        self.nnz, self.n_labels = nnz, n_labels

    cdef void _fail(self, int fault, const char *token, const char *token_end,
                    const char *line, const char *line_end, const char *text) noexcept nogil:
        self.fault = fault
        self.fault_line = self.line
        self.fault_start, self.fault_stop = token - text, token_end - text
        self.fault_line_start, self.fault_line_stop = line - text, line_end - text

    def fault_bytes(self):
        """``(token, line)`` of the fault, as bytes (from the block last parsed)."""
        block = self.held[len(self.held) - 1][1]
        return (block[self.fault_start:self.fault_stop],
                block[self.fault_line_start:self.fault_line_stop])

    def take(self, dtype):
        """The chunk parsed so far, and start a new one.  The arrays are the parser's own,
        handed over (no copy: a chunk is in memory once), and the next chunk parses into new
        ones.

        Returns
        -------
        data, indices, indptr : ndarray
            The CSR arrays (``dtype``, int32, int32 — int64 if the chunk holds more than
            2**31 - 1 values).
        labels, label_pointers : ndarray
            float64 labels, and where each row's start (``label_pointers[i]:[i + 1]``).
        numbers : ndarray of int64
            Each row's 1-based line number.
        starts, stops : ndarray of int64
            Where each row's line starts and ends in the stream (bytes after decompression,
            from the ``offset`` given to :meth:`parse`).
        lines : _Lines or None
            Each row's line as bytes, on demand (None without ``keep_lines``).
        width : int
            One more than the largest column index (0 for no value).
        """
        cdef int64_t n = self.n_rows, nnz = self.nnz
        if n == 0:  # (a row's arrays are allocated with its first row)
            pointers = np.zeros(1, dtype=np.int64)
            label_pointers = np.zeros(1, dtype=np.int64)
            numbers, starts, stops = (np.empty(0, dtype=np.int64) for _ in range(3))
            blocks = np.empty(0, dtype=np.int32)
        else:
            pointers = _handed(<void **>&self.pointers, &self.row_capacity, n + 1, cnp.NPY_INT64)
            label_pointers = _handed(<void **>&self.label_pointers, &self._rows_capacity2, n + 1,
                                     cnp.NPY_INT64)
            numbers = _handed(<void **>&self.numbers, &self._rows_capacity3, n, cnp.NPY_INT64)
            starts = _handed(<void **>&self.starts, &self._rows_capacity4, n, cnp.NPY_INT64)
            stops = _handed(<void **>&self.stops, &self._rows_capacity5, n, cnp.NPY_INT64)
            blocks = _handed(<void **>&self.blocks, &self._rows_capacity6, n, cnp.NPY_INT32)
            self.start_rows = n + 2
        data = _handed(<void **>&self.values, &self.nnz_capacity, nnz, cnp.NPY_FLOAT64)
        indices = _handed(<void **>&self.columns, &self._columns_capacity, nnz, cnp.NPY_INT32)
        labels = _handed(<void **>&self.labels, &self.label_capacity, self.n_labels,
                         cnp.NPY_FLOAT64)
        if nnz:
            # the next chunk's arrays sized for this one's values and 1/8 more: a chunk a little
            # fuller than the last is not grown by doubling (a copy, with both in memory, where
            # the allocator cannot grow in place); pages never written cost no memory
            self.start_nnz = nnz + nnz // 8
        if self.n_labels:
            self.start_labels = self.n_labels
        lines = _Lines(self.held, blocks, starts, stops) if self.keep_lines else None
        width = self.width
        # the block in use goes on holding the next chunk's lines
        self.held = self.held[len(self.held) - 1:] if self.held else []
        self._reset()
        if dtype != np.float64:
            with np.errstate(over="ignore"):  # (beyond float32: inf, as scikit-learn reads it)
                data = data.astype(dtype)
        pointer_type = np.int32 if nnz <= MAX_INDEX else np.int64
        return (data, indices, pointers.astype(pointer_type, copy=False), labels, label_pointers,
                numbers, starts, stops, lines, width)


class _Lines:
    """The lines of a chunk's rows, as bytes, cut from the blocks they were read from only when
    asked for (an error message quotes one)."""

    def __init__(self, held, blocks, starts, stops):
        self.held, self.blocks, self.starts, self.stops = held, blocks, starts, stops

    def __len__(self):
        return len(self.starts)

    def __getitem__(self, row):
        offset, block = self.held[self.blocks[row]]
        return block[self.starts[row] - offset:self.stops[row] - offset]


def scan_labels(bytes block, Py_ssize_t position, bint final, bint multilabel, set found):
    """Add the labels of the lines of ``block`` from ``position`` to ``found`` (the label field
    only: the features are not parsed).  Returns ``(position, lines, fault)``: the position
    after the last whole line, the lines read, and ``(line offset, token)`` of a label that is
    not a number (else None)."""
    cdef const char *text = block
    cdef Py_ssize_t size = len(block)
    cdef const char *line
    cdef const char *end
    cdef const char *stop
    cdef const char *p
    cdef const char *token
    cdef const char *comma
    cdef double value, last = 0.0
    cdef bint have_last = False
    cdef int64_t lines = 0
    while position < size:
        line = text + position
        end = <const char *>memchr(line, c'\n', size - position)
        if end == NULL:
            if not final:
                break
            end = text + size
        lines += 1
        p = _content(line, end, &stop)
        position = end - text + 1
        if p == stop:
            continue
        token = p
        p = _token_end(p, stop)
        if multilabel and memchr(token, c':', p - token) != NULL:
            continue
        while True:
            comma = <const char *>memchr(token, c',', p - token) if multilabel else NULL
            if comma == NULL:
                comma = p
            if not _number(token, comma, &value):
                return position, lines, (line - text, block[token - text:comma - text])
            if not (have_last and value == last):  # (runs of one label: no set look-up)
                found.add(value)
                last, have_last = value, True
            if comma == p:
                break
            token = comma + 1
    return min(position, size), lines, None
