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
    (left-aligned) from one of numbers (right-aligned).  Markdown cannot tell an empty string
    from ``None``, nor a number from text in a column that mixes them (read as text).

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
    >>> print(table.to_markdown())
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
        so that :meth:`from_csv` keeps it a string."""
        lines = [_csv_line([_csv_field(column, header=True) for column in self.columns])]
        lines += [_csv_line([_csv_field(value) for value in self._full(row)])
                  for row in self.rows]
        return _written("".join(lines), path)

    def to_json(self, path=None, indent=1):
        """A JSON array of records (one object per row, keys in column order)."""
        records = [dict(zip(self.columns, self._full(row))) for row in self.rows]
        return _written(json.dumps(records, indent=indent, allow_nan=False) + "\n", path)

    def to_markdown(self, path=None, digits=None):
        """A GitHub Markdown table; ``digits`` rounds floats to that many significant digits
        (by default every digit is kept, so that :meth:`from_markdown` reads it back exactly)."""
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
        an unquoted one a number where it reads as one (an empty one ``None``)."""
        records = _csv_records(text)
        columns = [field for field, _ in records[0]] if records else []
        rows = []
        for record in records[1:]:
            if len(record) == 1 and record[0] == ("", True):
                record = [("", False)]  # (a lone empty field is quoted only to be a line)
            rows.append(dict(zip(columns, (field if quoted else _parse(field)
                                           for field, quoted in record))))
        return cls(rows, columns)

    @classmethod
    def from_json(cls, text):
        records = json.loads(text)
        return cls(records)

    @classmethod
    def from_markdown(cls, text):
        """The table of Markdown ``text``: the cells of a left-aligned column (``:---``, the
        text columns of :meth:`to_markdown`) are strings, an empty one ``None``; the others'
        are numbers where they read as ones."""
        lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
        columns = [_markdown_unescape(c) for c in _markdown_cells(lines[0])]
        # (Markdown has no quotes: the alignment row is what says a column "1", "2" is text)
        text_columns = [_is_left_aligned(c) for c in _markdown_cells(lines[1])] \
            if len(lines) > 1 else []
        text_columns += [False] * (len(columns) - len(text_columns))
        rows = [dict(zip(columns, (_markdown_value(_markdown_unescape(c), is_text)
                                   for c, is_text in zip(_markdown_cells(line), text_columns))))
                for line in lines[2:]]
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
    return ",".join(fields) + "\n"


#: one CSV field: quoted (its text, quotes doubled, in group 1) or bare (group 2)
_CSV_FIELD = re.compile(r'"((?:[^"]|"")*)"|([^,\r\n]*)')


def _csv_records(text):
    """The records of CSV ``text`` (Excel's dialect, as :mod:`csv` reads it; blank lines
    skipped), each a list of ``(field, quoted)``: :mod:`csv` does not say which fields were
    quoted, and a quoted ``"1"`` is the string, not the number."""
    if '"' not in text:  # (nothing quoted: the C reader, faster)
        return [[(field, False) for field in fields]
                for fields in csv.reader(io.StringIO(text)) if fields]
    records, record, position, size = [], [], 0, len(text)
    while position < size:
        if not record and text[position] in "\r\n":  # a blank line
            position += 1
            continue
        match = _CSV_FIELD.match(text, position)
        quoted = match.group(1) is not None
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
        records.append(record)
        record = []
    if record:
        records.append(record)
    return records


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


def _markdown_escape(text):
    return str(text).replace("\\", "\\\\").replace("|", "\\|")


def _markdown_unescape(text):
    return re.sub(r"\\(.)", r"\1", text)


def _markdown_cells(line):
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|") and not line.endswith("\\|"):
        line = line[:-1]
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", line)]
