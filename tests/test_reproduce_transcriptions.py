"""The papers' numbers that ``onlinear reproduce`` compares with are the printed strings: every
transcribed number equals, character for character, the token of the paper's table it comes
from (tests/paper_tables.txt keeps those tables' lines verbatim, with their table reference),
and the cells carry the printed decimals, so the verdict's rounding term is the printed one
("4.60" → ±0.005, not the ±0.05 of a float's 4.6)."""
import os
import re
from pathlib import Path

import numpy as np
import pytest

from onlinear.reproduce import crammer_singer, matsushima, sigma, sol
from onlinear.reproduce._framework import printed_digits

TABLES = Path(__file__).with_name("paper_tables.txt")


def _sections():
    sections, current = {}, None
    for line in TABLES.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), [])
        else:
            current.append(line)
    return sections


def _section(words):
    found = [lines for name, lines in _sections().items() if all(w in name for w in words)]
    assert len(found) == 1, words
    return found[0]


def _tokens(line):
    return re.findall(r"\d+\.\d+|\d+", line)


def _crammer_singer_rows(words, two_lines):
    """``{algorithm: (errors, support patterns)}`` as printed, from the paper's lines."""
    lines = _section(words)
    rows = {}
    for i, line in enumerate(lines):
        name = line.split("\t")[0]
        if name not in crammer_singer.ALGORITHMS:
            continue
        if two_lines:  # errors on the algorithm's line, support patterns on the next
            rows[name] = (tuple(_tokens(line)), tuple(_tokens(lines[i + 1])))
        else:  # "5.93 936" pairs on one line
            tokens = _tokens(line)
            rows[name] = (tuple(tokens[0::2]), tuple(tokens[1::2]))
    return rows


@pytest.mark.parametrize("words,table,two_lines", [
    (("Table 2", "Chess-Board"), crammer_singer.TABLE2_CHESSBOARD_PRINTED, True),
    (("Table 3", "MNIST"), crammer_singer.TABLE3_MNIST_PRINTED, False),
    (("Table 4", "USPS"), crammer_singer.TABLE4_USPS_PRINTED, False),
    (("Table 5", "Letter"), crammer_singer.TABLE5_LETTER_PRINTED, True),
])
def test_crammer_singer_tables_are_the_printed_strings(words, table, two_lines):
    assert _crammer_singer_rows(words, two_lines) == table
    # the trailing zeros a float would lose are kept
    everything = [v for errors, sps in table.values() for v in errors + sps]
    assert all(isinstance(v, str) for v in everything)


def test_trailing_zeros_and_their_rounding_term():
    letter = crammer_singer.TABLE5_LETTER_PRINTED
    assert letter["Perceptron"][0][2] == "4.60" and printed_digits("4.60") == 2
    assert crammer_singer.TABLE2_CHESSBOARD_PRINTED["MIRA"][0][1] == "4.0"
    # one seed, no test-set term: σ is the rounding term alone, r/√3 with r = 0.005
    assert sigma(0.0, 1, "4.60") == pytest.approx(0.005 / np.sqrt(3))
    assert sigma(0.0, 1, "4.0") == pytest.approx(0.05 / np.sqrt(3))
    assert sigma(0.0, 1, "7229") == pytest.approx(0.5 / np.sqrt(3))


def test_the_cells_carry_the_printed_decimals():
    from reproduce_runs import quick

    result = quick("crammer-singer-table5")
    row = result.comparison.where(group="error % (epoch 1)", item="Uniform")[0]
    assert row["digits"] == 2 and row["paper"] == 7.07
    assert row["sigma"] == pytest.approx(sigma(row["sd"], row["n"], "7.07"))
    for row in result.comparison:
        assert row["digits"] == (2 if row["quantity"] == "test error %" else 0)
    table4 = quick("matsushima-table4")
    assert set(table4.comparison.column("digits")) == {2}


def test_matsushima_tables_are_the_printed_strings():
    """Tables 4–6 of Matsushima et al. are kept as the strings printed ("20.50", "3.80"), each
    equal to its token of the paper's line; the numbers the runs use are read from them."""
    rows = {"USPS": "USPS", "reut20": "reut20", "News20": "News20"}
    header, *lines = _section(("Matsushima", "Table 4"))
    columns = header.split()
    printed = {line.split("\t")[0]: dict(zip(columns, line.split("\t")[1:])) for line in lines}
    assert matsushima.TABLE4_PRINTED == {row: printed[name] for row, name in rows.items()}
    assert printed["News20"]["SPA"] == "20.50" and matsushima.TABLE4_TEXT["News20"]["SPA"] == 20.5
    header, *lines = _section(("Matsushima", "Table 5"))
    columns = header.split()
    seconds = {line.split("\t")[0]: dict(zip(columns, line.split("\t")[1:])) for line in lines}
    assert matsushima.TABLE5_PRINTED == {"USPS": seconds["USPS"], "reut20": seconds["Reuter"],
                                         "News20": seconds["News20"]}
    header, *lines = _section(("Matsushima", "Table 6"))
    columns = header.split()
    peaks = {}
    for line in lines:
        cells = line.split("\t")
        peaks[cells[0]] = dict(zip(columns, (c.replace(" ", "") for c in cells[1:])))
    for row, name in (("USPS", "USPS"), ("reut20", "Reuters"), ("News20", "News20")):
        table = matsushima.TABLE6_PRINTED[row]
        assert {k: f"{error}({epoch})" for k, (error, epoch) in table.items()} == {
            k: peaks[name][k] for k in table}
        assert matsushima.BATCH_PRINTED[row] == {k: peaks[name][k] for k in ("LR", "M-SVM")}
    assert matsushima.BATCH_PRINTED["reut20"]["LR"] == "3.50"
    everything = [v for table in (matsushima.TABLE4_PRINTED, matsushima.TABLE5_PRINTED,
                                  matsushima.BATCH_PRINTED) for row in table.values()
                  for v in row.values()]
    assert all(isinstance(v, str) for v in everything)
    # the numbers are those of the strings, in the runs' order of learners
    assert matsushima.TABLE6_USPS["SPA-II"] == (4.95, 35)
    assert list(matsushima.TABLE5_USPS) == list(matsushima.ONLINE)
    assert matsushima.TABLE5_SECONDS["News20"]["LR"] == 405.6


# The papers' text, where a checkout has it beside the repository (not in CI, which clones the
# repository alone): the folder, or ONLINEAR_PAPERS naming another.
PAPERS = Path(os.environ.get("ONLINEAR_PAPERS", "/work/shared/papers"))
TITLES = {"Crammer & Singer": "Ultraconservative Online Algorithms for Multiclass Problems",
          "Matsushima": "Exact Passive-Aggressive Algorithm for Multiclass Classification Using "
                        "Support Class"}


def _paper_text(section):
    """The text of the paper a section of tests/paper_tables.txt transcribes, found by its
    title among the papers' text files."""
    (title,) = [t for author, t in TITLES.items() if section.startswith(author)]
    found = [p.read_text(encoding="utf-8") for p in sorted(PAPERS.glob("*.txt"))
             if title in p.read_text(encoding="utf-8")]
    assert len(found) == 1, (section, title)
    return found[0]


@pytest.mark.skipif(not PAPERS.is_dir(), reason=f"the papers' text ({PAPERS}) is not on this "
                    "machine (a clone of the repository alone)")
def test_every_transcribed_line_is_in_the_papers_text():
    """Each line of tests/paper_tables.txt, which the tests above hold the code's tables to,
    is a line of the paper it names, character for character ("4.60", "4.0", "20.50"):
    together they check every transcribed number against the papers' text."""
    checked = 0
    for section, lines in _sections().items():
        text = _paper_text(section)
        table = re.search(r"Table \d", section).group(0)
        assert table in text, section
        paper_lines = set(text.splitlines())
        for line in lines:
            assert line in paper_lines, (section, line)
            checked += len(_tokens(line))
    # the 373 numbers of 4 tables of Crammer & Singer and 3 of Matsushima et al. (with the
    # epoch and column numbers of their headers)
    assert checked >= 373, checked
    everything = [v for table in (crammer_singer.TABLE2_CHESSBOARD_PRINTED,
                                  crammer_singer.TABLE4_USPS_PRINTED,
                                  crammer_singer.TABLE5_LETTER_PRINTED)
                  for errors, sps in table.values() for v in errors + sps]
    assert "4.60" in everything and "4.0" in everything


def test_sol_readme_table_is_the_printed_strings():
    """Every number of SOL's README table (tests/sol_readme_table.txt, its lines verbatim) is
    the string ``onlinear.reproduce.sol`` compares with: train and test accuracy and their ±,
    for all 16 rows (the timing columns are not compared)."""
    lines = [line for line in Path(__file__).with_name("sol_readme_table.txt").read_text(
        encoding="utf-8").splitlines() if line and not line.startswith("#")]
    assert lines[0].split()[:3] == ["algorithm", "train", "train"]
    printed = {}
    for line in lines[2:]:
        name, *tokens = line.split()
        numbers = [n for token in tokens for n in token.split("+/-")]
        printed[name] = (numbers[0], numbers[1], numbers[4], numbers[5])
    assert printed == sol.SOL_MNIST_PRINTED
    assert len(printed) == 16 and printed["arow"][2] == "0.9226"
    # in percent, with the printed digits: 0.9226 is 92.26 (rounding term ±0.005 points)
    assert sol._percent("0.9226") == "92.26" and printed_digits(sol._percent("0.9226")) == 2
