"""A tidy table: an ordered list of columns and one ``dict`` per row, written as CSV, JSON,
Markdown or aligned text with the standard library — the results of :mod:`onlinear.harness`,
:mod:`onlinear.reproduce` and :mod:`onlinear.distributed` alike.

Examples
--------
>>> from onlinear.tables import Table
>>> table = Table([{"name": "pa", "mistakes": 12}, {"name": "mira", "mistakes": 9}])
>>> print(table.to_markdown(), end="")
| name | mistakes |
|:---|---:|
| pa | 12 |
| mira | 9 |
>>> Table.from_markdown(table.to_markdown()).rows == table.rows
True
"""
from __future__ import annotations

import csv
import io
import json
import math
import re

import numpy as np

class Table:
    """A tidy table: an ordered list of columns and one ``dict`` per row.

    Values are ``None``, ``int``, ``float`` or ``str``.  :meth:`to_csv`, :meth:`to_json` and
    :meth:`to_markdown` write it (to a file too when given a path) and :meth:`from_csv`,
    :meth:`from_json` and :meth:`from_markdown` read their text back, strings as strings
    (a label ``"1"`` or ``"nan"`` is not read as a number): CSV quotes a string that would
    read back as something else, and Markdown's alignment row tells a column of text
    (left-aligned) from one of numbers (right-aligned).  A string's line breaks, pipes,
    backslashes and outer spaces are escaped in Markdown (see :meth:`to_markdown`), so that
    they come back as they were.  The round trips' limits: Markdown cannot tell an empty
    string from ``None``, nor a number from text in a column that mixes them (read as text);
    JSON cannot keep the columns of a table without rows (``[]``).  The readers refuse
    malformed text (no header, no alignment row, a row longer than the header, JSON that is
    not an array of objects) with a :class:`ValueError`.

    Parameters
    ----------
    rows : iterable of dict, default=()
        The rows, one mapping of column name to value each (values are converted to ``None``,
        ``int``, ``float`` or ``str``).
    columns : list of str or None, default=None
        The column order; None takes the keys of the rows in order of first appearance.

    Attributes
    ----------
    rows : list of dict
        The rows.
    columns : list of str
        The columns, in order.

    Examples
    --------
    >>> table = Table([{"algorithm": "pa1", "mistake_rate": 0.25, "updates": 3}])
    >>> print(table.to_markdown(), end="")
    | algorithm | mistake_rate | updates |
    |:---|---:|---:|
    | pa1 | 0.25 | 3 |
    >>> Table.from_csv(table.to_csv()) == table
    True
    """

    def __init__(self, rows=(), columns=None):
        self.rows = [{key: _plain(value) for key, value in row.items()} for row in rows]
        if columns is None:
            columns = []
            for row in self.rows:
                columns.extend(key for key in row if key not in columns)
        self.columns = list(columns)

    def __len__(self):
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    def __getitem__(self, index):
        return self.rows[index]

    def __eq__(self, other):
        if not isinstance(other, Table):
            return NotImplemented
        return self.columns == other.columns and [self._full(r) for r in self.rows] == [
            other._full(r) for r in other.rows]

    def __repr__(self):
        return f"Table({len(self.rows)} rows × {len(self.columns)} columns: {self.columns})"

    def _full(self, row):
        return [row.get(column) for column in self.columns]

    def column(self, name):
        """The values of column ``name``, one per row."""
        return [row.get(name) for row in self.rows]

    def where(self, **values):
        """The rows whose columns equal ``values``, as a new table."""
        return Table([row for row in self.rows
                      if all(row.get(k) == v for k, v in values.items())], self.columns)

    # -------------------------------------------------------------------- writers
    def to_csv(self, path=None):
        """CSV with a header row; ``None`` is an empty field, floats keep every digit, and a
        string that would read back as something else (``"1"``, ``"nan"``, ``""``) is quoted,
        so that :meth:`from_csv` keeps it a string.

        A row of one empty field cannot be an empty line (CSV readers skip those): ``None``
        alone is written ``""``, as :mod:`csv` writes it, and the string ``""`` alone (a
        table of one column) ``"",`` — the quoted empty string, then an empty field that
        :meth:`from_csv` drops (:mod:`csv` reads the first field as ``""`` too)."""
        lines = [_csv_line([_csv_field(column, header=True) for column in self.columns])]
        lines += [_csv_line([_csv_field(value) for value in self._full(row)])
                  for row in self.rows]
        return _written("".join(lines), path)

    def to_json(self, path=None, indent=1):
        """A JSON array of records (one object per row, keys in column order).

        A table without rows is ``[]``: its columns are not written (:meth:`from_json` reads
        a table of no columns), as the format of the array of records has no place for
        them."""
        records = [dict(zip(self.columns, self._full(row))) for row in self.rows]
        return _written(json.dumps(records, indent=indent, allow_nan=False) + "\n", path)

    def to_markdown(self, path=None, digits=None):
        r"""A GitHub Markdown table; ``digits`` rounds floats to that many significant digits
        (by default every digit is kept, so that :meth:`from_markdown` reads it back exactly).

        A cell's text is escaped with backslashes, which :meth:`from_markdown` undoes: ``\\``
        for a backslash, ``\|`` for a pipe, ``\n`` and ``\r`` for the line breaks (a raw one
        would end the table's line), and a backslash before a space (any whitespace) that
        begins or ends the text (a cell's outer spaces are otherwise the table's layout).
        ``None`` and ``""`` are both an empty cell (read back as ``None``)."""
        numeric = [all(isinstance(row.get(c), (int, float)) or row.get(c) is None
                       for row in self.rows) and self.rows for c in self.columns]
        lines = ["| " + " | ".join(_markdown_escape(c) for c in self.columns) + " |",
                 "|" + "|".join("---:" if n else ":---" for n in numeric) + "|"]
        for row in self.rows:
            cells = [_markdown_escape(_text(v, digits)) for v in self._full(row)]
            lines.append("| " + " | ".join(cells) + " |")
        return _written("\n".join(lines) + "\n", path)

    def to_text(self, digits=4, align_right=False):
        """Aligned plain-text columns for a terminal: numbers (every column, with
        ``align_right``) to the right, text to the left."""
        cells = [[_text(v, digits) for v in self._full(row)] for row in self.rows]
        widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(self.columns)]
        numeric = [align_right or all(isinstance(row.get(c), (int, float)) or row.get(c) is None
                                      for row in self.rows) for c in self.columns]
        out = ["  ".join(c.rjust(w) if n else c.ljust(w)
                         for c, w, n in zip(self.columns, widths, numeric)).rstrip()]
        for r in cells:
            out.append("  ".join(c.rjust(w) if n else c.ljust(w)
                                 for c, w, n in zip(r, widths, numeric)).rstrip())
        return "\n".join(out) + "\n"

    # -------------------------------------------------------------------- readers
    @classmethod
    def from_csv(cls, text):
        """The table of CSV ``text`` (as :meth:`to_csv` writes it): a quoted field is a string,
        an unquoted one a number where it reads as one (an empty one ``None``); a row shorter
        than the header lacks its last columns (``None``), a longer one is a
        :class:`ValueError`."""
        records = _csv_records(text)
        columns = [field for field, _ in records[0][1]] if records else []
        rows = []
        for line, record in records[1:]:
            if record == [("", True)]:
                record = [("", False)]  # (a lone empty field is quoted only to be a line)
            elif len(columns) == 1 and record == [("", True), ("", False)]:
                record = [("", True)]  # (the string "" alone: see to_csv)
            if len(record) > len(columns):
                raise ValueError(f"CSV: line {line} has {len(record)} fields, more than the "
                                 f"{len(columns)} columns of the header")
            rows.append(dict(zip(columns, (field if quoted else _parse(field)
                                           for field, quoted in record))))
        return cls(rows, columns)

    @classmethod
    def from_json(cls, text):
        """The table of JSON ``text`` (as :meth:`to_json` writes it): an array of objects, one
        per row; the columns are the keys in order of first appearance (a table without rows,
        ``[]``, has none).  Another JSON value is a :class:`ValueError`."""
        records = json.loads(text)
        if not isinstance(records, list):
            raise ValueError(f"JSON: expected an array of objects (one per row), not "
                             f"{_json_kind(records)}")
        for number, record in enumerate(records, 1):
            if not isinstance(record, dict):
                raise ValueError(f"JSON: expected an array of objects (one per row), but row "
                                 f"{number} is {_json_kind(record)}")
        return cls(records)

    @classmethod
    def from_markdown(cls, text):
        """The table of Markdown ``text``: the cells of a left-aligned column (``:---``, the
        text columns of :meth:`to_markdown`) are strings, an empty one ``None``; the others'
        are numbers where they read as ones; the escapes of :meth:`to_markdown` are undone.

        The text is a header line, the alignment row (``|:---|---:|``, as many cells) and a
        line per row (blank lines skipped); a row with fewer cells lacks its last columns
        (``None``).  No header, no alignment row or a row with more cells than the header is a
        :class:`ValueError`."""
        lines = [(number, _markdown_strip(line))
                 for number, line in enumerate(re.split(r"\r\n|\r|\n", text), 1)]
        lines = [(number, line) for number, line in lines if line]
        if not lines:
            raise ValueError("Markdown: no table (the text is empty)")
        header = _markdown_cells(lines[0][1])
        if len(lines) < 2:
            raise ValueError(f"Markdown: no alignment row (such as |:---|---:|) under the "
                             f"header, line {lines[0][0]}")
        number, line = lines[1]
        alignment = _markdown_cells(line)
        if not all(_ALIGNMENT.fullmatch(cell) for cell in alignment):
            raise ValueError(f"Markdown: line {number} is not the alignment row (such as "
                             f"|:---|---:|) that follows the header: {line[:40]!r}")
        if not alignment and header == [""]:
            header = []  # (a table of no columns: "|  |" over "||")
        if len(alignment) != len(header):
            raise ValueError(f"Markdown: the alignment row, line {number}, has {len(alignment)} "
                             f"cells, the header {len(header)}")
        columns = [_markdown_unescape(c) for c in header]
        # (Markdown has no quotes: the alignment row is what says a column "1", "2" is text)
        text_columns = [_is_left_aligned(c) for c in alignment]
        rows = []
        for number, line in lines[2:]:
            cells = _markdown_cells(line)
            if not columns and cells == [""]:
                cells = []
            if len(cells) > len(columns):
                raise ValueError(f"Markdown: line {number} has {len(cells)} cells, more than "
                                 f"the {len(columns)} columns of the header")
            rows.append(dict(zip(columns, (_markdown_value(_markdown_unescape(c), is_text)
                                           for c, is_text in zip(cells, text_columns)))))
        return cls(rows, columns)


def _plain(value):
    """Python scalars for numpy ones; non-finite floats become ``None``."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _text(value, digits=None):
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value) if digits is None else f"{value:.{digits}g}"
    return str(value)


_INTEGER = re.compile(r"[+-]?\d+")


def _parse(text):
    if text == "":
        return None
    if _INTEGER.fullmatch(text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        return text


#: the characters that make a CSV field quoted whatever its value: the delimiter, the quote and
#: the line ends (csv.writer leaves "\r" bare, and csv.reader then ends the line there)
_CSV_SPECIAL = re.compile(r'[,"\r\n]')


def _csv_field(value, header=False):
    """``value`` as a CSV field: quoted where it holds a special character or, a string (not a
    column's name), where :func:`_parse` would read it back as another value (``"1"`` as 1,
    ``"nan"``, ``""`` as None)."""
    text = _text(value)
    ambiguous = isinstance(value, str) and not header and _parse(text) != text
    if ambiguous or _CSV_SPECIAL.search(text):
        return '"' + text.replace('"', '""') + '"'
    return text


def _csv_line(fields):
    if fields == [""]:  # (as csv.writer: a lone empty field would be a blank line, skipped)
        fields = ['""']
    elif fields == ['""']:  # (the string "" alone: apart from None, see Table.to_csv)
        fields = ['""', ""]
    return ",".join(fields) + "\n"


#: one CSV field: quoted (its text, quotes doubled, in group 1) or bare (group 2)
_CSV_FIELD = re.compile(r'"((?:[^"]|"")*)"|([^,\r\n]*)')


def _csv_records(text):
    """The records of CSV ``text`` (Excel's dialect, as :mod:`csv` reads it; blank lines
    skipped), each ``(line, fields)``: the number of the line it starts on and a list of
    ``(field, quoted)`` (:mod:`csv` does not say which fields were quoted, and a quoted
    ``"1"`` is the string, not the number)."""
    if '"' not in text:  # (nothing quoted: the C reader, faster)
        reader = csv.reader(io.StringIO(text))
        return [(reader.line_num, [(field, False) for field in fields])
                for fields in reader if fields]
    records, record, position, size, line, start = [], [], 0, len(text), 1, 1
    while position < size:
        if not record and text[position] in "\r\n":  # a blank line
            position += 2 if text.startswith("\r\n", position) else 1
            line += 1
            continue
        if not record:
            start = line
        match = _CSV_FIELD.match(text, position)
        quoted = match.group(1) is not None
        if quoted:
            line += len(_LINE_END.findall(match.group(1)))
        field = match.group(1).replace('""', '"') if quoted else match.group(2)
        if not quoted and field.startswith('"'):
            raise ValueError(f"CSV: a quoted field is not closed: {field[:40]!r}")
        record.append((field, quoted))
        position = match.end()
        if text.startswith(",", position):
            position += 1
            if position == size:  # (a last line that ends with an empty field)
                record.append(("", False))
            continue
        if position < size and text[position] not in "\r\n":
            raise ValueError(f"CSV: a quoted field is followed by {text[position]!r}, not by a "
                             f"comma or a line end: {text[match.start():position + 1][:40]!r}")
        position += 2 if text.startswith("\r\n", position) else 1
        line += 1
        records.append((start, record))
        record = []
    if record:
        records.append((start, record))
    return records


#: a line end: CRLF, CR or LF
_LINE_END = re.compile(r"\r\n|\r|\n")


def _is_left_aligned(cell):
    cell = cell.strip()
    return cell.startswith(":") and not cell.endswith(":")


def _markdown_value(text, is_text):
    if is_text:
        return text if text else None
    return _parse(text)


def _written(text, path):
    """``text``, written to ``path`` first when one is given: whole or not at all (an existing
    file is replaced only once the new one is complete)."""
    if path is not None:
        from .persistence import atomic_write

        with atomic_write(path) as handle:
            handle.write(text.encode("utf-8"))
    return text


def _json_kind(value):
    """What a JSON value is, for a message: ``"an object"``, ``"a number (1)"``..."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    kind = ("null" if value is None else "a boolean" if isinstance(value, bool)
            else "a string" if isinstance(value, str) else "a number")
    return f"{kind} ({json.dumps(value)[:40]})" if value is not None else kind


#: a cell of a Markdown alignment row: ---, :---, ---: or :---:
_ALIGNMENT = re.compile(r":?-+:?")

#: the letters of the escaped line breaks (any other escaped character is itself)
_MARKDOWN_LETTERS = {"n": "\n", "r": "\r"}


def _odd_backslashes(text):
    """Whether ``text`` ends with an odd run of backslashes (an escape of what follows)."""
    return (len(text) - len(text.rstrip("\\"))) % 2 == 1


def _markdown_escape(text):
    """``text`` for a Markdown cell (see :meth:`Table.to_markdown`); the text of an ordinary
    cell (no line break, no outer space) is as it was, pipes and backslashes escaped."""
    text = str(text).replace("\\", "\\\\").replace("|", "\\|")
    text = text.replace("\n", "\\n").replace("\r", "\\r")
    if text[:1].isspace():
        text = "\\" + text
    if text[-1:].isspace() and not _odd_backslashes(text[:-1]):
        text = text[:-1] + "\\" + text[-1]
    return text


def _markdown_unescape(text):
    return re.sub(r"\\(.)", lambda m: _MARKDOWN_LETTERS.get(m.group(1), m.group(1)), text,
                  flags=re.DOTALL)


def _markdown_strip(text):
    """``text`` without its outer whitespace, but for an escaped (``\\ ``) last one."""
    text = text.lstrip()
    stripped = text.rstrip()
    if len(stripped) < len(text) and _odd_backslashes(stripped):
        stripped = text[:len(stripped) + 1]
    return stripped


def _markdown_cells(line):
    """The cells of a table's line (stripped as :func:`_markdown_strip`), split at the pipes
    that no backslash escapes, the outer pipes dropped; ``"||"`` has none."""
    line = _markdown_strip(line)
    if line == "||":
        return []
    cells, start = [], 0
    for match in re.finditer(r"\\.|\|", line, re.DOTALL):
        if match.group() == "|":
            cells.append(line[start:match.start()])
            start = match.end()
    cells.append(line[start:])
    if len(cells) > 1 and line.startswith("|"):
        cells = cells[1:]
    if len(cells) > 1 and cells[-1] == "":
        cells = cells[:-1]
    return [_markdown_strip(cell) for cell in cells]
