"""The record of a reproduced experiment, the rule that judges our numbers against the paper's,
and the result an experiment run returns.

A paper's number is one draw of a noisy quantity: a test error measured on a finite test set,
after one (or an unstated number of) orders of the stream, printed to a fixed number of digits.
Ours is a mean over seeded orders.  :func:`verdict` says whether the two agree within that noise,
how far apart they are in units of that noise (z) and of the paper's number (d/paper), and,
as a secondary flag, whether they at least put the compared algorithms in the paper's order.
"""
import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..harness import mean_std
from ..tables import Table

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
FAR_OFF = "far off"
VERDICTS = (REPRODUCED, NOT_REPRODUCED, FAR_OFF)
SAME_ORDERING = "same ordering"
"""The secondary flag of a cell that is not reproduced but keeps the paper's order in its group
(a weak statement: an item that dominates its group keeps it at any level)."""

ENOUGH_SEEDS = 10
"""Seeded runs below which our standard deviation is itself unreliable: such cells are flagged."""
FAR_Z = 4.0
FAR_RELATIVE = 0.20

VERDICT_RULE = (
    "Each cell prints the difference d = ours − paper, its relative size d/paper and "
    "z = d/σ, where σ² = s²·(1 + 1/n) + b² + r²/3: s is the standard deviation of our n "
    "seeded runs (the paper's single run is another draw of the same spread), b the binomial "
    "standard deviation of the paper's error rate on its test set (error rates only) and r "
    "half a unit of the paper's last printed digit (a rounding error uniform on [−r, r]). A "
    "cell is **reproduced** when |z| ≤ 2, or when |d/paper| is within a relative tolerance "
    "stated beside the cell; otherwise it is **far off** when |z| > 4 or |d/paper| > 20 %, "
    "and **not reproduced** in between. n is printed with every cell: with fewer than 10 "
    "seeds s is itself uncertain and the cell is marked †. The **same ordering** flag is "
    "secondary: it marks a cell that is not reproduced but, against every other cell of its "
    "group (the same data, quantity and epoch) that the paper prints as clearly different "
    "(by more than 2σ of either cell), differs from them with the paper's sign — a weak "
    "statement, since an item that dominates its group keeps the paper's order at any level. "
    "A claim of the paper's text is tested on our per-seed values by the test written beside "
    "it (a paired sign or t test over seeds where the claim compares algorithms run on the "
    "same seeds), keeping its quantitative part; it **holds** or **fails**.")


def printed_digits(value):
    """Digits after the decimal point of a transcribed number: ``"4.60"`` → 2 (a string is the
    number as printed), ``5.93`` → 2, ``4.0`` → 1 (a float stands for a printed decimal, so at
    least one digit; a float cannot keep a trailing zero, so transcriptions are kept as
    strings), ``1891`` (an int) → 0.

    Examples
    --------
    >>> printed_digits("4.60"), printed_digits(4.6), printed_digits("7229"), printed_digits(4.0)
    (2, 1, 0, 1)
    """
    if isinstance(value, str):
        return len(value.strip().partition(".")[2])
    if isinstance(value, (int, np.integer)):
        return 0
    text = repr(float(value))
    if "e" in text or "E" in text:
        return 0
    fraction = text.partition(".")[2].rstrip("0")
    return max(len(fraction), 1)


def sigma(sd, n, paper, *, test_size=None, percent=True, digits=None):
    """The standard deviation σ of ``ours − paper`` under :data:`VERDICT_RULE`.

    Parameters
    ----------
    sd : float
        Standard deviation of our runs (0 for one run).
    n : int
        Number of our runs.
    paper : float or str
        The paper's number (a string: as printed, its digits count).
    test_size : int or None
        Size of the paper's test set when ``paper`` is an error rate, else None.
    percent : bool
        Whether an error rate is in percent.
    digits : int or None
        Printed decimals of ``paper`` (default: :func:`printed_digits`).

    Returns
    -------
    float

    Examples
    --------
    >>> round(sigma(0.0, 5, "5.00", test_size=2000), 4)  # sqrt(.05·.95/2000)·100, r = .005
    0.4873
    >>> round(sigma(10.0, 3, 1891), 3)  # a count: sqrt(100·(1 + 1/3) + 0.25/3)
    11.551
    """
    digits = printed_digits(paper) if digits is None else int(digits)
    value = float(paper)
    variance = (sd or 0.0) ** 2 * (1.0 + 1.0 / max(n, 1))
    if test_size:
        scale = 100.0 if percent else 1.0
        p = min(max(value / scale, 0.0), 1.0)
        variance += scale ** 2 * p * (1.0 - p) / test_size
    rounding = 0.5 * 10.0 ** -digits
    return math.sqrt(variance + rounding ** 2 / 3.0)


def noise(sd, n, paper, *, test_size=None, percent=True, digits=None):
    """Half-width 2σ of the band within which ``ours − paper`` is reproduced (|z| ≤ 2;
    :func:`sigma`).

    Examples
    --------
    >>> round(noise(0.0, 5, "5.00", test_size=2000), 3)
    0.975
    """
    return 2.0 * sigma(sd, n, paper, test_size=test_size, percent=percent, digits=digits)


def verdict(cells):
    """Set ``difference``, ``relative``, ``sigma``, ``z``, ``noise``, ``verdict`` and
    ``ordering`` on every cell, by :data:`VERDICT_RULE`.

    Parameters
    ----------
    cells : list of dict
        Each with ``group``, ``paper`` (a number, or a string as printed), ``ours``, ``sd``,
        ``n`` and optionally ``test_size`` (the paper's test-set size, for error rates in
        percent), ``digits`` (the paper's printed decimals) and ``tolerance`` (a stated
        relative tolerance); cells without a paper number (``paper`` None) get no verdict.

    Returns
    -------
    list of dict
        The same cells, completed; ``paper`` becomes a float, ``digits`` keeps its printed
        decimals.

    Examples
    --------
    >>> cells = verdict([
    ...     dict(group="err", item="a", paper="5.00", ours=5.1, sd=0.1, n=10),
    ...     dict(group="err", item="b", paper="7.00", ours=7.3, sd=0.1, n=10),
    ...     dict(group="err", item="c", paper="9.00", ours=12.0, sd=0.1, n=10)])
    >>> [(c["verdict"], round(c["z"], 1), f"{c['relative']:+.0%}", c["ordering"])
    ...  for c in cells]
    [('reproduced', 1.0, '+2%', True), ('not reproduced', 2.9, '+4%', True), \
('far off', 28.6, '+33%', True)]
    """
    for cell in cells:
        if cell.get("paper") is None or cell.get("ours") is None:
            cell.update(difference=None, relative=None, sigma=None, z=None, noise=None,
                        verdict=None, ordering=None)
            continue
        if cell.get("digits") is None:
            cell["digits"] = printed_digits(cell["paper"])
        cell["paper"] = float(cell["paper"])
        cell["difference"] = cell["ours"] - cell["paper"]
        cell["relative"] = (cell["difference"] / abs(cell["paper"]) if cell["paper"]
                            else None)
        cell["sigma"] = sigma(cell.get("sd") or 0.0, cell.get("n") or 1, cell["paper"],
                              test_size=cell.get("test_size"), digits=cell["digits"])
        cell["z"] = cell["difference"] / cell["sigma"]
        cell["noise"] = 2.0 * cell["sigma"]
    for cell in cells:
        if cell.get("difference") is None:
            continue
        relative = abs(cell["relative"]) if cell["relative"] is not None else math.inf
        tolerance = cell.get("tolerance")
        if abs(cell["z"]) <= 2.0 or (tolerance is not None and relative <= tolerance):
            cell["verdict"] = REPRODUCED
        elif abs(cell["z"]) > FAR_Z or relative > FAR_RELATIVE:
            cell["verdict"] = FAR_OFF
        else:
            cell["verdict"] = NOT_REPRODUCED
        # the paper's order is only a claim where its own numbers differ by more than noise
        others = [o for o in cells if o is not cell and o.get("group") == cell.get("group")
                  and o.get("difference") is not None
                  and abs(o["paper"] - cell["paper"]) > max(o["noise"], cell["noise"])]
        cell["ordering"] = None if not others else bool(all(
            np.sign(cell["ours"] - o["ours"]) == np.sign(cell["paper"] - o["paper"])
            for o in others))
    return cells


SIGNIFICANCE = 0.05
"""Level of the one-sided paired tests over seeds that back a claim comparing algorithms."""


@dataclass(frozen=True)
class Claim:
    """A claim of the paper, tested on our numbers.

    Parameters
    ----------
    statement : str
        The claim, in the paper's words where possible.
    source : str
        Where the paper makes it (section, table or figure).
    holds : bool
        Whether it holds on our means (and its quantitative part, where it has one).
    evidence : str
        The numbers the test looked at.
    p_value : float or None
        One-sided p-value of the paired test over seeds behind it (:func:`paired_test`), or
        None for a claim not tested over seeds; a claim that holds on the means with
        p > :data:`SIGNIFICANCE` is reported as not significant.
    """

    statement: str
    source: str
    holds: bool
    evidence: str
    p_value: float = None

    def __post_init__(self):
        object.__setattr__(self, "holds", bool(self.holds))  # numpy booleans → bool
        if self.p_value is not None:
            object.__setattr__(self, "p_value", float(self.p_value))

    @property
    def significant(self):
        return self.p_value is None or self.p_value <= SIGNIFICANCE

    @property
    def status(self):
        if not self.holds:
            return "fails"
        return "holds" if self.significant else "holds, not significant"


def unpaired_test(smaller, larger):
    """One-sided Welch test that the mean of ``smaller`` is below that of ``larger``, for
    values of runs on independent data (two settings of an experiment, each with its own
    seeded data sets): ``(p_value, text)``; None with fewer than two values on a side.

    Examples
    --------
    >>> p, text = unpaired_test([1.0, 2.0, 3.0], [4.0, 5.0, 6.0])
    >>> round(p, 4), text
    (0.0107, 'Welch over 3 and 3 seeds: mean difference -3.00, p = 0.011')
    """
    from scipy import stats

    a, b = np.asarray(smaller, dtype=float), np.asarray(larger, dtype=float)
    difference = a.mean() - b.mean()
    if a.size < 2 or b.size < 2:
        return None, f"one seed: difference {difference:+.2f}, no test"
    if np.ptp(a) == 0 and np.ptp(b) == 0:
        p = 0.0 if difference < 0 else 1.0
    else:
        import warnings

        with warnings.catch_warnings():
            # a side whose seeds agree (counts often do) has a variance of exactly 0, which
            # scipy flags as "precision loss" though Welch's statistic is exact
            warnings.filterwarnings("ignore", "Precision loss", RuntimeWarning)
            p = float(stats.ttest_ind(a, b, equal_var=False, alternative="less").pvalue)
    return p, (f"Welch over {a.size} and {b.size} seeds: mean difference {difference:+.2f}, "
               f"p = {p:.2g}")


def weakest(tests):
    """The test of several with the largest p-value (a claim made of several comparisons
    holds as strongly as its weakest), ``(p_value, text)``; ``(None, "…no test")`` when none
    could be run."""
    tests = [t for t in tests if t[0] is not None]
    return max(tests, key=lambda t: t[0]) if tests else (None, "one seed, no test")


def paired_test(smaller, larger):
    """One-sided paired test over seeds that ``smaller`` is below ``larger`` (the values of two
    algorithms on the same seeds, in the same order): ``(p_value, text)``.

    A paired t test (scipy.stats.ttest_rel); when every seed's difference is the same (to
    rounding), the p-value is 0 if it has the claimed sign and 1 otherwise; None with fewer
    than two seeds.

    Examples
    --------
    >>> p, text = paired_test([1.0, 2.0, 3.0], [1.5, 2.4, 3.6])
    >>> round(p, 4), text
    (0.0065, 'paired over 3 seeds: mean difference -0.50, 3/3 seeds in the claimed direction, p = 0.0065')
    """
    from scipy import stats

    a, b = np.asarray(smaller, dtype=float), np.asarray(larger, dtype=float)
    diff = a - b
    n = diff.size
    agree = int(np.sum(diff < 0))
    if n < 2:
        return None, f"one seed: difference {diff.mean():+.2f}, no test"
    # differences that agree to rounding (errors of the same test set, one ulp apart) are the
    # same difference: the t statistic of such a spread is noise
    if np.ptp(diff) <= 1e-9 * max(1.0, float(np.max(np.abs(diff)))):
        p = 0.0 if diff.mean() < 0 else 1.0
    else:
        p = float(stats.ttest_rel(a, b, alternative="less").pvalue)
    return p, (f"paired over {n} seeds: mean difference {diff.mean():+.2f}, {agree}/{n} seeds "
               f"in the claimed direction, p = {p:.2g}")


@dataclass
class Outcome:
    """What an experiment's run function returns.

    Parameters
    ----------
    cells : list of dict
        The numbers the paper prints, beside ours: ``group``, ``item``, ``quantity``,
        ``paper``, ``ours``, ``sd``, ``n``, ``values`` (the per-seed values, ``;``-separated,
        in the order of the seeds), ``source`` and, for error rates, ``test_size``.
        Experiments whose paper has only a figure leave ``paper`` None (or have no cells).
    claims : list of Claim
    tables : dict of str to Table
        Further results (curves, per-setting numbers), each saved as its own CSV.
    notes : list of str
        Data used, deviations from the paper's protocol, traces of "off" cells.
    figure : callable or None
        ``figure(path)`` draws the figure the paper has and saves it to ``path`` (PNG).
    shown : dict of str to str
        Names of ``tables`` printed in the report's section too (besides their CSV), each
        with its caption.
    """

    cells: list = field(default_factory=list)
    claims: list = field(default_factory=list)
    tables: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    figure: object = None
    shown: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Experiment:
    """One table or figure of a paper, reproduced.

    Parameters
    ----------
    id : str
        Name on the command line (``onlinear reproduce ID``).
    paper : str
        Authors, year, title (as in :mod:`onlinear.registry`).
    target : str
        The table or figure, e.g. ``"Table 4 (USPS)"``.
    title : str
        One line: what is measured.
    runner : callable
        ``runner(quick, seeds)`` → :class:`Outcome`; ``seeds`` is a list of ints, one per
        seeded order.  Its docstring is the protocol, with every choice the paper leaves open.
    data : tuple of str
        Catalogue names of the data sets a full run needs (:func:`onlinear.data.load`).
    default_seeds : int
        Seeded orders of a full run.
    quick_seeds : int
        Seeded orders in quick mode.
    opt_in : bool
        A long run that ``--all`` leaves out unless ``--long`` is given (it runs when named).
    figure_values : str
        For an experiment whose paper prints no numbers (a figure only): what of the figure's
        plotted values the paper's text gives, and so what is drawn beside ours (a note of
        every run); empty for an experiment compared with printed numbers.
    """

    id: str
    paper: str
    target: str
    title: str
    runner: object
    data: tuple = ()
    default_seeds: int = 5
    quick_seeds: int = 2
    opt_in: bool = False
    figure_values: str = ""

    @property
    def citation(self):
        """The authors and year of the paper (``"Amit, Shalev-Shwartz & Singer"``)."""
        import re

        dated = re.match(r"^(.*?\d{4})", self.paper)
        return dated.group(1) if dated else self.paper.rsplit(", ", 1)[0].split(", Online")[0]

    @property
    def protocol(self):
        """The run function's docstring: the protocol and the choices made where the paper is
        silent."""
        import inspect

        return inspect.cleandoc(self.runner.__doc__ or "")


@dataclass
class Result:
    """A finished run of an :class:`Experiment`.

    Attributes
    ----------
    experiment : Experiment
    quick : bool
        Whether it ran in quick mode (subsets; numbers not comparable with the paper's).
    seeds : list of int
    comparison : Table
        One row per paper number: ours (mean ± sd over the seeds, and the per-seed values),
        the difference, d/paper, z, the verdict and the ordering flag.
    claims : list of Claim
    tables : dict of str to Table
    notes : list of str
    seconds : float
        Wall time of the run.
    figure : callable or None
    machine : str
        The machine and library versions (:func:`machine`).
    provenance : dict
        ``commit``, ``versions``, ``data`` (file → sha256) and ``machine``
        (:func:`provenance`).
    shown : dict of str to str
        The tables printed in the section, name → caption (:class:`Outcome`).
    """

    experiment: Experiment
    quick: bool
    seeds: list
    comparison: Table
    claims: list
    tables: dict
    notes: list
    seconds: float
    figure: object = None
    machine: str = ""
    provenance: dict = field(default_factory=dict)
    shown: dict = field(default_factory=dict)

    def _shown_tables(self):
        """``(caption, table)`` of the tables printed in the section."""
        return [(caption, self.tables[name]) for name, caption in self.shown.items()
                if name in self.tables]

    @property
    def counts(self):
        """``{verdict: number of cells}``, the cells not reproduced that keep the paper's
        ordering, and the claims that hold (significantly), hold without significance and
        fail."""
        verdicts = self.comparison.column("verdict")
        out = {v: verdicts.count(v) for v in VERDICTS}
        out[SAME_ORDERING] = sum(1 for row in self.comparison
                                 if row.get("verdict") in (NOT_REPRODUCED, FAR_OFF)
                                 and _flag(row.get("ordering")))
        out["claims hold"] = sum(c.holds and c.significant for c in self.claims)
        out["claims not significant"] = sum(c.holds and not c.significant for c in self.claims)
        out["claims fail"] = sum(not c.holds for c in self.claims)
        return out

    def summary(self):
        """One line: the counts of verdicts and claims."""
        c = self.counts
        cells = (", ".join(f"{c[v]} {v}" for v in VERDICTS)
                 + f" ({c[SAME_ORDERING]} of those not reproduced in the paper's order)"
                 if len(self.comparison) else "no printed numbers")
        return (f"{cells}; claims: {c['claims hold']} hold, {c['claims not significant']} hold "
                f"without significance, {c['claims fail']} fail"
                f"{' (quick mode)' if self.quick else ''}")

    def provenance_line(self):
        """One line: commit, versions, data checksums and machine of the run."""
        return provenance_text(self.provenance) if self.provenance else (
            f"machine: {self.machine or 'unrecorded'}")

    def to_markdown(self, level=2):
        """The result as a markdown section: provenance, comparison table, claims, notes,
        protocol."""
        h = "#" * level
        e = self.experiment
        mode = "quick mode (subsets: not comparable with the paper)" if self.quick else "full run"
        lines = [f"{h} `{e.id}` — {e.citation}, {e.target}", "",
                 f"{e.title}.", "",
                 f"*{mode}; {len(self.seeds)} seeded orders (seeds {_seed_text(self.seeds)}); "
                 f"wall time {self.seconds:.1f} s; {self.summary()}.*", "",
                 f"Provenance: {self.provenance_line()}.", ""]
        if self.few_seeds_line():
            lines += [self.few_seeds_line(), ""]
        if len(self.comparison):
            lines += [_comparison_markdown(self.comparison), ""]
            lines += _per_seed_markdown(self.comparison)
        for caption, table in self._shown_tables():
            lines += [f"{caption}:", "", table.to_markdown().rstrip(), ""]
        if self.claims:
            lines += ["| claim | source | status | evidence |", "|:---|:---|:---|:---|"]
            lines += [f"| {_cell(c.statement)} | {_cell(c.source)} | **{c.status}** | "
                      f"{_cell(c.evidence)} |" for c in self.claims]
            lines.append("")
        if self.notes:
            lines += [f"- {note}" for note in self.notes] + [""]
        lines += ["<details><summary>Protocol</summary>", "", e.protocol, "", "</details>", ""]
        return "\n".join(lines)

    def few_seeds_line(self):
        """For a full run of fewer than :data:`ENOUGH_SEEDS` seeds (its verdicts marked †), the
        time that more seeds would take at this run's pace — what kept the count down; ``""``
        otherwise."""
        n = len(self.seeds)
        if self.quick or n >= ENOUGH_SEEDS:
            return ""
        pace = self.seconds / n
        return (f"† {n} seeds: {ENOUGH_SEEDS} would take about "
                f"{pace * ENOUGH_SEEDS / 60:.0f} min at this run's {pace:.0f} s per seed (its "
                "set-up counted in every seed), the reason this experiment keeps fewer.")

    def to_text(self):
        """The result as plain text, for the terminal."""
        e = self.experiment
        lines = [f"{e.id}: {e.paper}", f"{e.target}: {e.title}",
                 f"{'quick mode, ' if self.quick else ''}{len(self.seeds)} seeded orders "
                 f"(seeds {_seed_text(self.seeds)}), {self.seconds:.1f} s",
                 f"provenance: {self.provenance_line()}", ""]
        if len(self.comparison):
            table = Table([{k: row[k] for k in _SHOWN} for row in _formatted(self.comparison)],
                          list(_SHOWN))
            lines += [table.to_text(), ""]
        for caption, table in self._shown_tables():
            lines += [f"{caption}:", table.to_text(), ""]
        for c in self.claims:
            lines.append(f"[{c.status}] {c.statement} ({c.source}): {c.evidence}")
        if self.claims:
            lines.append("")
        lines += [f"note: {n}" for n in self.notes]
        lines.append(f"verdict: {self.summary()}")
        return "\n".join(lines) + "\n"


_SHOWN = ("group", "item", "paper", "ours", "n", "difference", "relative", "z", "verdict",
          "ordering")


def _flag(value):
    """The ordering flag as saved (bool, 0/1 from a CSV, or None)."""
    return None if value is None or value == "" else bool(value)


def _seed_text(seeds):
    seeds = [int(s) for s in seeds]
    if seeds and seeds == list(range(seeds[0], seeds[0] + len(seeds))) and len(seeds) > 2:
        return f"{seeds[0]}–{seeds[-1]}"
    return ", ".join(map(str, seeds))


def _formatted(table):
    rows = []
    for row in table:
        ours = row.get("ours")
        digits = row.get("digits")
        if digits is None:
            digits = printed_digits(row["paper"]) if row.get("paper") is not None else 2
        shown_digits = max(int(digits), 1)
        n = row.get("n") or 0
        shown = "" if ours is None else f"{ours:.{shown_digits}f}"
        if ours is not None and n > 1:
            shown += f" ± {row.get('sd') or 0.0:.{shown_digits}f}"
        values = _values(row.get("values"))
        if len(values) > 1:
            shown += (f" (median {np.median(values):.{shown_digits}f}, "
                      f"{min(values):.{shown_digits}f}–{max(values):.{shown_digits}f})")
        diff, relative, z = row.get("difference"), row.get("relative"), row.get("z")
        flag = _flag(row.get("ordering"))
        verdict_text = row.get("verdict") or ""
        if verdict_text and n < ENOUGH_SEEDS:
            verdict_text += " †"
        rows.append({**row, "ours": shown,
                     "paper": "" if row.get("paper") is None else
                     f"{float(row['paper']):.{int(digits)}f}",
                     "n": str(n),
                     "difference": "" if diff is None else f"{diff:+.{shown_digits}f}",
                     "relative": "" if relative is None else f"{relative:+.1%}",
                     "z": "" if z is None else f"{z:+.1f}",
                     "verdict": verdict_text,
                     "ordering": "" if flag is None or row.get("verdict") == REPRODUCED
                     else ("same" if flag else "different")})
    return rows


def _values(text):
    """Per-seed values as saved in the ``values`` column (``"5.6;5.8"``)."""
    if text is None or text == "":
        return []
    if isinstance(text, (int, float)):
        return [float(text)]
    return [float(v) for v in str(text).split(";")]


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def _comparison_markdown(table):
    header = ["group", "item", "paper", "ours: mean ± sd (median, range)", "n", "d", "d/paper",
              "z", "verdict", "order", "source"]
    lines = ["| " + " | ".join(header) + " |",
             "|:---|:---|---:|---:|---:|---:|---:|---:|:---|:---|:---|"]
    for row in _formatted(table):
        lines.append("| " + " | ".join(_cell(row.get(k) or "") for k in
                                       ("group", "item", "paper", "ours", "n", "difference",
                                        "relative", "z", "verdict", "ordering", "source"))
                     + " |")
    return "\n".join(lines)


def _per_seed_markdown(table):
    """The per-seed values of every cell, each after its seed number, in a folded block (the
    comparison prints their mean ± sd, median and range)."""
    rows = [row for row in table if len(_values(row.get("values"))) > 1]
    if not rows:
        return []
    lines = ["<details><summary>Per-seed values (seed: value)</summary>", "",
             "| group | item | per-seed values |", "|:---|:---|:---|"]
    for row in rows:
        values = _values(row["values"])
        seeds = str(row.get("seeds") or "").split(";")
        # counts as integers, other values with a digit more than the paper prints
        digits = 0 if all(float(v).is_integer() for v in values) else (
            2 if row.get("digits") is None else int(row["digits"]) + 1)
        shown = [f"{v:.{digits}f}" for v in values]
        pairs = (f"{s}: {v}" for s, v in zip(seeds, shown)) if len(seeds) == len(values) \
            else shown
        lines.append(f"| {_cell(row.get('group') or '')} | {_cell(row.get('item') or '')} | "
                     + ", ".join(pairs) + " |")
    return lines + ["", "</details>", ""]


FIGURE_VALUES_NOTE = "The paper's values read from the figure:"
"""How the note on a figure-only experiment's readable values begins
(:attr:`Experiment.figure_values`)."""

CAPTION_ONLY = ("none. The text of the paper available to us holds this figure's caption only "
                "(no axis tick labels; its text states no plotted value) and the figure's image "
                "is not available, so no value of the paper is drawn beside ours: only the "
                "claims of its text are tested.")
"""The :attr:`Experiment.figure_values` of a figure whose paper text holds its caption only."""

COMPARISON_COLUMNS = ["group", "item", "quantity", "paper", "digits", "ours", "sd", "n",
                      "values", "seeds", "difference", "relative", "sigma", "z", "noise", "tolerance",
                      "verdict", "ordering", "test_size", "source"]


def execute(experiment, quick=False, seeds=None):
    """Run ``experiment`` and judge it: a :class:`Result`.

    ``seeds`` is None (the experiment's own count, from 0), an int n (seeds 0…n−1) or a list
    of seed numbers."""
    seed_list = seed_numbers(seeds, experiment.quick_seeds if quick
                             else experiment.default_seeds)
    # recorded before the run: the checkout may change while a long run goes on
    record = provenance()
    _DATA_READ.clear()
    start = time.perf_counter()
    outcome = experiment.runner(quick, seed_list)
    seconds = time.perf_counter() - start
    # the files the run did read (recorded by reproduce's loaders), not those it might have
    record["data"] = file_checksums(dict(_DATA_READ))
    cells = verdict([dict(c) for c in outcome.cells])
    for c in cells:
        # a cell's values are one per seed, in the order of the seeds (Outcome)
        if "seeds" not in c and len(_values(c.get("values"))) == len(seed_list):
            c["seeds"] = ";".join(map(str, seed_list))
    comparison = Table(cells, COMPARISON_COLUMNS)
    notes = list(outcome.notes)
    if experiment.figure_values:
        notes.append(f"{FIGURE_VALUES_NOTE} {experiment.figure_values}")
    return Result(experiment, quick, seed_list, comparison, list(outcome.claims),
                  dict(outcome.tables), notes, seconds, outcome.figure,
                  record["machine"], record, dict(outcome.shown))


MAX_SEEDS = 10_000
"""The most seeded orders a run takes (a full run of a few spends hours; a count beyond any use
is a typing slip, and listing it would fill the memory)."""


def parse_seeds(text):
    """The seeds a user names in one string (``--seeds``): a count ``"N"`` (an int: seeds
    0…N−1), a list ``"a,b,c"``, a half-open range ``"A:B"`` (seeds A…B−1, as Python's
    ``range``: ``"10:20"`` is ten seeds from 10) or an inclusive range ``"A-B"``.

    Raises
    ------
    ValueError
        Naming the text, when it is none of these or names no seed, a seed twice, a
        negative seed or more than :data:`MAX_SEEDS` seeds.

    Examples
    --------
    >>> parse_seeds("5"), parse_seeds("0,3,7"), parse_seeds("10:13"), parse_seeds("4-5")
    (5, [0, 3, 7], [10, 11, 12], [4, 5])
    """
    value = str(text).strip()
    shapes = "a count N, a list a,b,c, a range A:B (A…B−1) or A-B (A…B)"
    too_many = (f"--seeds {text!r}: at most {MAX_SEEDS:,} seeds (to name one seed N, give the "
                "range N-N).")
    try:
        if "," in value:
            seeds = [int(part) for part in value.split(",")]
        elif ":" in value or "-" in value.lstrip("-"):
            first, separator, end = value.partition(":" if ":" in value else "-")
            first, stop = int(first), int(end) + (separator == "-")
            # counted before the range is listed: a huge one would fill the memory
            if stop - first > MAX_SEEDS:
                raise ValueError(too_many)
            seeds = list(range(first, stop))
        else:
            count = int(value)
            if count < 1:
                raise ValueError(f"--seeds {text!r}: at least one seed.")
            if count > MAX_SEEDS:
                raise ValueError(too_many)
            return count
    except ValueError as error:
        if str(error).startswith("--seeds"):
            raise
        raise ValueError(f"--seeds {text!r} is not {shapes}.") from None
    if not seeds:
        raise ValueError(f"--seeds {text!r} is an empty range (A:B needs A < B, A-B A ≤ B).")
    return seed_numbers(seeds, None)


def seed_numbers(seeds, default):
    """The list of seed numbers of a run: ``None`` → ``0…default−1``, an int n → ``0…n−1``, a
    list → itself (distinct, non-negative ints), a string → :func:`parse_seeds`.

    Examples
    --------
    >>> seed_numbers(None, 3), seed_numbers(2, 5), seed_numbers([10, 11], 5)
    ([0, 1, 2], [0, 1], [10, 11])
    >>> seed_numbers("10:12", 5)
    [10, 11]
    """
    if seeds is None:
        seeds = default
    if isinstance(seeds, str):
        seeds = parse_seeds(seeds)
    if isinstance(seeds, (int, np.integer)) and not isinstance(seeds, bool):
        if int(seeds) < 1:
            raise ValueError(f"seeds must be at least 1; got {seeds}.")
        if int(seeds) > MAX_SEEDS:
            raise ValueError(f"seeds must be at most {MAX_SEEDS:,}; got {seeds}.")
        return list(range(int(seeds)))
    try:
        numbers = [int(s) for s in seeds]
    except (TypeError, ValueError):
        raise ValueError(f"seeds must be a count or a list of seed numbers; got {seeds!r}."
                         ) from None
    if not numbers:
        raise ValueError("seeds must name at least one seed.")
    if len(numbers) > MAX_SEEDS:
        raise ValueError(f"seeds must be at most {MAX_SEEDS:,}; got {len(numbers):,}.")
    if any(s < 0 for s in numbers) or len(set(numbers)) != len(numbers):
        raise ValueError(f"seeds must be distinct non-negative integers; got {numbers}.")
    return numbers


def machine():
    """A one-line description of this machine, saved with every result beside its wall time."""
    import os
    import platform

    from .._version import __version__
    from ..machine import instruction_set

    return (f"{os.cpu_count()} CPUs ({platform.machine()}, {instruction_set()} sweeps), "
            f"Python {platform.python_version()}, numpy {np.__version__}, "
            f"onlinear {__version__}")


_DATA_READ = {}
"""label → path of every data file the run in progress reads (:func:`record_data_read`);
:func:`execute` empties it before a run and checksums it after."""


def record_data_read(name, paths):
    """Note that the run in progress reads the files ``paths`` of the data set ``name``: their
    sha256 goes into the result's provenance."""
    from pathlib import Path

    for path in paths:
        _DATA_READ[f"{name}:{Path(path).name}"] = Path(path)


def provenance():
    """What a reader needs to trace a run: the source commit (``git describe`` of the checkout
    the package runs from, ``-dirty`` with uncommitted changes, or "not a git checkout"), the
    versions of the libraries the numbers depend on, the sha256 of every data file the run
    reads (filled in by :func:`execute` after the run, from the files reproduce's loaders
    read: a catalogue set's files in ``ONLINEAR_DATA``, or the copies shipped in the package)
    and the machine."""
    import platform

    import scipy
    import sklearn

    from .._version import __version__

    versions = {"onlinear": __version__, "python": platform.python_version(),
                "numpy": np.__version__, "scipy": scipy.__version__,
                "scikit-learn": sklearn.__version__}
    return {"commit": source_commit(), "versions": versions, "data": {},
            "machine": machine()}


def provenance_text(record):
    """:func:`provenance` as one line."""
    versions = ", ".join(f"{k} {v}" for k, v in record.get("versions", {}).items())
    data = record.get("data") or {}
    data_text = ", ".join(f"{name} sha256 {digest[:12]}" for name, digest in data.items()) \
        or "synthetic data only"
    return (f"commit {record.get('commit', 'unrecorded')}; {versions}; data: {data_text}; "
            f"machine: {record.get('machine', 'unrecorded')}")


def source_commit():
    """``git describe --always --dirty --abbrev=12`` of the source tree this package runs from,
    or ``"not a git checkout"``."""
    import subprocess
    from pathlib import Path

    here = Path(__file__).resolve().parent
    try:
        done = subprocess.run(["git", "describe", "--always", "--dirty", "--abbrev=12"],
                              cwd=here, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return "not a git checkout"
    if done.returncode != 0 or not done.stdout.strip():
        return "not a git checkout"
    return done.stdout.strip()


def source_changes(commit):
    """The files of the package's source (``src/``) that differ between ``commit`` (as
    :func:`source_commit` records it) and the checkout this package runs from, committed or
    not: what a section run at an older commit may miss.  None when git cannot tell (not a
    checkout, an unknown commit)."""
    import subprocess
    from pathlib import Path

    here = Path(__file__).resolve().parent
    base = str(commit).removesuffix("-dirty").rsplit("-g", 1)[-1]
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=here,
                             capture_output=True, text=True, timeout=20)
        done = subprocess.run(["git", "diff", "--name-only", base, "--", "src"],
                              cwd=top.stdout.strip() or here, capture_output=True, text=True,
                              timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    if top.returncode != 0 or done.returncode != 0:
        return None
    return done.stdout.split()


_CHECKSUMS = {}


def data_checksums(names):
    """``{file label: sha256}`` of the files of the catalogue sets ``names``
    (:func:`onlinear.data.find_dataset`; a folder: of its files in sorted order, names
    included); a set not found is recorded as ``"not found"``."""
    from ..data import find_dataset

    paths = {}
    for name in names:
        try:
            paths.update({f"{name}:{p.name}": p for p in find_dataset(name)})
        except (FileNotFoundError, ValueError):
            paths[name] = None
    return file_checksums(paths)


def file_checksums(paths):
    """``{label: sha256}`` of ``{label: path}`` (a folder: of its files in sorted order, their
    relative names included; None: ``"not found"``), each file read once per size and
    modification time."""
    import hashlib
    from pathlib import Path

    out = {}
    for label, path in paths.items():
        if path is None:
            out[label] = "not found"
            continue
        path = Path(path)
        stat = path.stat()
        key = (str(path), stat.st_size, stat.st_mtime_ns)
        if key not in _CHECKSUMS:
            digest = hashlib.sha256()
            members = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() \
                else [path]
            for member in members:
                if path.is_dir():
                    digest.update(str(member.relative_to(path)).encode())
                with open(member, "rb") as handle:
                    for block in iter(lambda: handle.read(1 << 20), b""):
                        digest.update(block)
            _CHECKSUMS[key] = digest.hexdigest()
        out[label] = _CHECKSUMS[key]
    return out


def summarize(values):
    """``(mean, sd, n)`` of a list of numbers (sd with ddof=1, 0 for one value)."""
    values = [float(v) for v in values]
    mean, sd = mean_std(values)
    return mean, sd, len(values)
