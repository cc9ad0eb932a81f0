"""``Table``'s CSV and Markdown round trips keep a column of strings as strings: the labels
``"1"`` and ``"nan"`` used to come back as the number 1 and as None (NaN), and numeric columns
stay as they were."""
import csv
import io

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
    # (a cell's outer spaces are the table's layout, not its text)
    assert back.column("label") == [label.strip() for label in LABELS]
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
