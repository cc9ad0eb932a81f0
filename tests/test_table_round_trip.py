"""``Table``'s CSV and Markdown round trips keep a column of strings as strings: the labels
``"1"`` and ``"nan"`` used to come back as the number 1 and as None (NaN), and numeric columns
stay as they were."""
import csv
import io
import re

import pytest

from onlinear.tables import Table

LABELS = ["1", "nan", "2.5", "-3", "1e5", "inf", " 4", "pa"]


def _labelled():
    return Table([{"label": label, "count": i, "rate": i / 8 if i else None}
                  for i, label in enumerate(LABELS)])


def test_csv_keeps_a_column_of_labels_that_look_like_numbers():
    table = _labelled()
    back = Table.from_csv(table.to_csv())
    assert back == table
    assert back.column("label") == LABELS
    assert back.column("count") == list(range(8))  # numbers stay numbers
    assert back.column("rate") == [None] + [i / 8 for i in range(1, 8)]


def test_csv_keeps_an_empty_string_apart_from_none():
    table = Table([{"name": "", "value": None}, {"name": None, "value": ""}])
    assert Table.from_csv(table.to_csv()).rows == table.rows


def test_markdown_keeps_a_column_of_labels_that_look_like_numbers():
    table = _labelled()
    back = Table.from_markdown(table.to_markdown())
    assert back.column("label") == LABELS  # (" 4" too: its space is escaped, "\ 4")
    assert back.column("count") == list(range(8))
    assert back.column("rate") == table.column("rate")


def test_json_keeps_them_too():
    table = _labelled()
    assert Table.from_json(table.to_json()) == table


def test_the_csv_of_a_table_without_such_strings_is_what_it_was():
    """Only a string that would read back as something else is quoted: the other outputs are
    byte for byte csv.writer's."""
    rows = [{"algorithm": "pa1", "params": "C=0.1", "mistakes": 3, "rate": 0.25, "note": None},
            {"algorithm": "a, b", "params": 'say "hi"', "mistakes": -1, "rate": 1e-300,
             "note": "two\nlines"}]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(list(rows[0]))
    for row in rows:
        writer.writerow(["" if v is None else repr(v) if isinstance(v, float) else str(v)
                         for v in row.values()])
    table = Table(rows)
    assert table.to_csv() == buffer.getvalue()
    assert Table.from_csv(table.to_csv()) == table


def test_the_quoted_labels_are_standard_csv():
    text = _labelled().to_csv()
    assert text.splitlines()[1] == '"1",0,'
    assert [row[0] for row in csv.reader(io.StringIO(text))][1:] == LABELS


def test_a_file_written_before_reads_as_it_did():
    """No quotes: every field that reads as a number is one (files saved by older versions)."""
    back = Table.from_csv("label,count\n1,0\nnan,1\npa,\n")
    assert back.rows == [{"label": 1, "count": 0}, {"label": None, "count": 1},
                         {"label": "pa", "count": None}]


def test_a_one_column_table_of_none_and_blank_lines():
    table = Table([{"x": None}, {"x": "1"}, {"x": 2}])
    text = table.to_csv()
    assert text == 'x\n""\n"1"\n2\n'  # (a lone empty field is quoted, as csv.writer does)
    assert Table.from_csv(text).rows == table.rows
    assert Table.from_csv('x\n\n"1"\r\n\n2').column("x") == ["1", 2]


@pytest.mark.parametrize("text, phrase", [
    ('a,b\n"1"x,2\n', "followed by 'x'"),
    ('a,b\n"1,2\n', "not closed"),
])
def test_a_malformed_quoted_field_is_a_value_error(text, phrase):
    with pytest.raises(ValueError, match=phrase):
        Table.from_csv(text)


# ------------------------------------------------------------------ Markdown: escaped strings
NASTY = ["a\nb", "two\r\nlines", "cr\rhere", "\n", "ends\n", "a\\nb", "a\\", "\\", "a|b", "|",
         "<br>", "x<br>y", "  indented", "x ", " ", "  ", "\t", "\ttab ", " a\\ ", "\\ ",
         "a \\", "form\x0cfeed", "\u2028", "mid  dle", "-", ":---", "1", "pa"]


def test_markdown_escapes_a_line_break_instead_of_breaking_the_table():
    table = Table([{"name": "a\nb", "value": 1}, {"name": "c\r\nd", "value": 2}])
    text = table.to_markdown()
    assert text == "| name | value |\n|:---|---:|\n| a\\nb | 1 |\n| c\\r\\nd | 2 |\n"
    assert Table.from_markdown(text) == table


def test_markdown_keeps_the_outer_spaces_of_a_string():
    table = Table([{"name": "  indented", "v": 1}, {"name": "x ", "v": 2},
                   {"name": " ", "v": 3}, {"name": "\t", "v": 4}])
    text = table.to_markdown()
    assert text.splitlines()[2:] == ["| \\  indented | 1 |", "| x\\  | 2 |", "| \\  | 3 |",
                                     "| \\\t | 4 |"]
    assert Table.from_markdown(text) == table
    # (the layout's spaces, as a hand-aligned table has them, are still not text)
    assert Table.from_markdown("|  name   |\n| :--- |\n|   a  |\n").rows == [{"name": "a"}]


@pytest.mark.parametrize("label", NASTY)
def test_markdown_round_trips_every_string(label):
    table = Table([{label: label, "n": 1}, {label: "pa", "n": 2}])
    back = Table.from_markdown(table.to_markdown())
    assert back == table and back.columns == [label, "n"]


def test_a_markdown_file_written_before_reads_as_it_did():
    """The new escapes (``\\n``, ``\\r``, a backslash before a space) were never written: an
    old file's doubled backslashes and escaped pipes read as they did."""
    text = "| name | n |\n|:---|---:|\n| a\\\\nb | 1 |\n| x\\|y\\\\ | 2 |\n| <br> | 3 |\n"
    assert Table.from_markdown(text).column("name") == ["a\\nb", "x|y\\", "<br>"]


def test_a_markdown_table_of_no_columns():
    for table in (Table([]), Table([{}, {}], columns=[])):
        back = Table.from_markdown(table.to_markdown())
        assert back.columns == [] and back.rows == table.rows


# ------------------------------------------------------------- CSV: "" alone apart from None
def test_a_one_column_csv_keeps_an_empty_string_apart_from_none():
    table = Table([{"label": ""}, {"label": None}, {"label": "1"}])
    text = table.to_csv()
    assert text == 'label\n"",\n""\n"1"\n'  # (None alone: '""' as before and as csv.writer)
    assert Table.from_csv(text).rows == table.rows
    # csv reads the first field of '"",' as the empty string too
    assert [row[0] for row in csv.reader(io.StringIO(text))] == ["label", "", "", "1"]


# ------------------------------------------------------------------- malformed text refused
@pytest.mark.parametrize("text, phrase", [
    ("", "no table"),
    ("\n  \n", "no table"),
    ("| a | b |\n", "no alignment row"),
    ("| a | b |\n| 1 | 2 |\n| 3 | 4 |\n", "line 2 is not the alignment row"),
    ("| a | b |\n|---:|\n| 1 | 2 |\n", "alignment row, line 2, has 1 cells, the header 2"),
    ("| a | b |\n|---:|---:|\n| 1 | 2 | 99 |\n", "line 3 has 3 cells"),
    ("| a | b |\n|---:|---:|\n\n| 1 | 2 |\n| 1 | 2 | |\n", "line 5 has 3 cells"),
])
def test_malformed_markdown_is_a_value_error(text, phrase):
    with pytest.raises(ValueError, match=re.escape(phrase)):
        Table.from_markdown(text)


def test_a_markdown_row_with_fewer_cells_lacks_its_last_columns():
    assert Table.from_markdown("| a | b |\n|---:|---:|\n| 1 |\n").rows == [{"a": 1}]


@pytest.mark.parametrize("text, phrase", [
    ("a,b\n1,2,3\n", "line 2 has 3 fields"),
    ('a,b\n1,2\n"x\ny",2\n3,4,\n', "line 5 has 3 fields"),
    ("x\n1\n\n2,\n", "line 4 has 2 fields"),
])
def test_a_csv_row_longer_than_the_header_is_a_value_error(text, phrase):
    with pytest.raises(ValueError, match=phrase):
        Table.from_csv(text)


def test_a_csv_row_shorter_than_the_header_lacks_its_last_columns():
    assert Table.from_csv("a,b\n1\n").rows == [{"a": 1}]


# ------------------------------------------------------------------------------------ JSON
@pytest.mark.parametrize("text, phrase", [
    ('{"a": 1}', "not an object"),
    ('"rows"', "not a string"),
    ("null", "not null"),
    ("[[1, 2]]", "row 1 is an array"),
    ("[1, 2]", "row 1 is a number"),
    ('[{"a": 1}, null]', "row 2 is null"),
])
def test_json_that_is_not_an_array_of_objects_is_a_value_error(text, phrase):
    with pytest.raises(ValueError, match="expected an array of objects.*" + phrase):
        Table.from_json(text)


def test_a_table_of_no_rows_keeps_its_columns_but_in_json():
    """JSON's array of records has no place for the columns of no rows (a documented limit:
    the format is what `onlinear run --format json` has always written)."""
    empty = Table([], columns=["algorithm", "mistakes"])
    assert Table.from_csv(empty.to_csv()) == empty
    assert Table.from_markdown(empty.to_markdown()) == empty
    assert empty.to_json() == "[]\n" and Table.from_json(empty.to_json()).columns == []
    assert "columns" in Table.to_json.__doc__ and "without rows" in Table.to_json.__doc__
