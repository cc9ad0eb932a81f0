"""The record of a reproduced experiment, the rule that judges our numbers against the paper's,
and the result an experiment run returns.

A paper's number is one draw of a noisy quantity: a test error measured on a finite test set,
after one (or an unstated number of) orders of the stream, printed to a fixed number of digits.
Ours is a mean over seeded orders.  :func:`verdict` says whether the two agree within that noise,
whether they at least put the compared algorithms in the same order, or neither.
"""
import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..harness import Table, mean_std

WITHIN_NOISE = "within noise"
SAME_ORDERING = "same ordering"
OFF = "off"
VERDICTS = (WITHIN_NOISE, SAME_ORDERING, OFF)

VERDICT_RULE = (
    "A cell is **within noise** when |ours − paper| ≤ 2·√(s²·(1 + 1/n) + b²) + r, where s is the "
    "standard deviation of our n seeded runs (the paper's single run is another draw of the "
    "same spread), b the binomial standard deviation of the paper's error rate on its test set "
    "(for error rates only) and r half a unit of the paper's last printed digit. Otherwise it "
    "has the **same ordering** when, against every other cell of its group (the same data, "
    "quantity and epoch) that the paper prints as clearly different (by more than the larger "
    "of the two cells' noise bands), our difference has the paper's sign; otherwise it is "
    "**off**. A claim of the paper's text **holds** or **fails** "
    "on our means by the test written next to it.")


def printed_digits(value):
    """Digits after the decimal point of a transcribed number: ``5.93`` → 2, ``4.0`` → 1 (a
    float stands for a printed decimal, so at least one digit), ``1891`` (an int) → 0."""
    if isinstance(value, (int, np.integer)):
        return 0
    text = repr(float(value))
    if "e" in text or "E" in text:
        return 0
    fraction = text.partition(".")[2].rstrip("0")
    return max(len(fraction), 1)


def noise(sd, n, paper, *, test_size=None, percent=True):
    """Half-width of the band within which ``ours − paper`` counts as noise (:data:`VERDICT_RULE`).

    Parameters
    ----------
    sd : float
        Standard deviation of our runs (0 for one run).
    n : int
        Number of our runs.
    paper : float
        The paper's number.
    test_size : int or None
        Size of the paper's test set when ``paper`` is an error rate, else None.
    percent : bool
        Whether an error rate is in percent.

    Returns
    -------
    float

    Examples
    --------
    >>> round(noise(0.0, 5, 5.0, test_size=2000), 3)   # 2·sqrt(.05·.95/2000)·100 + 0.05
    1.025
    >>> noise(10.0, 3, 1891)  # a count: 2·sqrt(100·(1 + 1/3)) + 0.5
    23.59401076758503
    """
    variance = (sd or 0.0) ** 2 * (1.0 + 1.0 / max(n, 1))
    if test_size:
        scale = 100.0 if percent else 1.0
        p = min(max(paper / scale, 0.0), 1.0)
        variance += (scale * math.sqrt(p * (1.0 - p) / test_size)) ** 2
    return 2.0 * math.sqrt(variance) + 0.5 * 10.0 ** -printed_digits(paper)


def verdict(cells):
    """Set ``difference``, ``noise`` and ``verdict`` on every cell, by :data:`VERDICT_RULE`.

    Parameters
    ----------
    cells : list of dict
        Each with ``group``, ``paper``, ``ours``, ``sd``, ``n`` and optionally ``test_size``
        (the paper's test-set size, for error rates in percent); cells without a paper number
        (``paper`` None) get no verdict.

    Returns
    -------
    list of dict
        The same cells, completed.

    Examples
    --------
    >>> cells = verdict([
    ...     dict(group="err", item="a", paper=5.0, ours=5.1, sd=0.1, n=5),
    ...     dict(group="err", item="b", paper=7.0, ours=9.0, sd=0.1, n=5),
    ...     dict(group="err", item="c", paper=6.0, ours=4.0, sd=0.1, n=5)])
    >>> [c["verdict"] for c in cells]
    ['within noise', 'same ordering', 'off']
    """
    for cell in cells:
        if cell.get("paper") is None or cell.get("ours") is None:
            cell.update(difference=None, noise=None, verdict=None)
            continue
        cell["difference"] = cell["ours"] - cell["paper"]
        cell["noise"] = noise(cell.get("sd") or 0.0, cell.get("n") or 1, cell["paper"],
                              test_size=cell.get("test_size"))
    for cell in cells:
        if cell.get("difference") is None:
            continue
        if abs(cell["difference"]) <= cell["noise"]:
            cell["verdict"] = WITHIN_NOISE
            continue
        # the paper's order is only a claim where its own numbers differ by more than noise
        others = [o for o in cells if o is not cell and o.get("group") == cell.get("group")
                  and o.get("difference") is not None
                  and abs(o["paper"] - cell["paper"]) > max(o["noise"], cell["noise"])]
        agree = others and all(
            np.sign(cell["ours"] - o["ours"]) == np.sign(cell["paper"] - o["paper"])
            for o in others)
        cell["verdict"] = SAME_ORDERING if agree else OFF
    return cells


@dataclass(frozen=True)
class Claim:
    """A qualitative claim of the paper, tested on our numbers.

    Parameters
    ----------
    statement : str
        The claim, in the paper's words where possible.
    source : str
        Where the paper makes it (section, table or figure).
    holds : bool
        Whether it holds on our means.
    evidence : str
        The numbers the test looked at.
    """

    statement: str
    source: str
    holds: bool
    evidence: str

    def __post_init__(self):
        object.__setattr__(self, "holds", bool(self.holds))  # numpy booleans → bool

    @property
    def status(self):
        return "holds" if self.holds else "fails"


@dataclass
class Outcome:
    """What an experiment's run function returns.

    Parameters
    ----------
    cells : list of dict
        The numbers the paper prints, beside ours: ``group``, ``item``, ``quantity``,
        ``paper``, ``ours``, ``sd``, ``n``, ``source`` and, for error rates, ``test_size``.
        Experiments whose paper has only a figure leave ``paper`` None (or have no cells).
    claims : list of Claim
    tables : dict of str to Table
        Further results (curves, per-setting numbers), each saved as its own CSV.
    notes : list of str
        Data used, deviations from the paper's protocol, traces of "off" cells.
    figure : callable or None
        ``figure(path)`` draws the figure the paper has and saves it to ``path`` (PNG).
    """

    cells: list = field(default_factory=list)
    claims: list = field(default_factory=list)
    tables: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    figure: object = None


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
    """

    id: str
    paper: str
    target: str
    title: str
    runner: object
    data: tuple = ()
    default_seeds: int = 5
    quick_seeds: int = 2

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
        One row per paper number: ours (mean ± sd over the seeds), the difference, the noise
        band and the verdict.
    claims : list of Claim
    tables : dict of str to Table
    notes : list of str
    seconds : float
        Wall time of the run.
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

    @property
    def counts(self):
        """``{verdict: number of cells}`` and the claims that hold and fail."""
        verdicts = self.comparison.column("verdict")
        out = {v: verdicts.count(v) for v in VERDICTS}
        out["claims hold"] = sum(c.holds for c in self.claims)
        out["claims fail"] = sum(not c.holds for c in self.claims)
        return out

    def summary(self):
        """One line: the counts of verdicts and claims."""
        c = self.counts
        cells = ", ".join(f"{c[v]} {v}" for v in VERDICTS) if len(self.comparison) else \
            "no printed numbers"
        return (f"{cells}; claims: {c['claims hold']} hold, {c['claims fail']} fail"
                f"{' (quick mode)' if self.quick else ''}")

    def to_markdown(self, level=2):
        """The result as a markdown section: protocol, comparison table, claims, notes."""
        h = "#" * level
        e = self.experiment
        mode = "quick mode (subsets: not comparable with the paper)" if self.quick else "full run"
        lines = [f"{h} `{e.id}` — {e.citation}, {e.target}", "",
                 f"{e.title}.", "",
                 f"*{mode}; {len(self.seeds)} seeded orders; wall time {self.seconds:.1f} s; "
                 f"{self.summary()}.*", ""]
        if len(self.comparison):
            lines += [_comparison_markdown(self.comparison), ""]
        if self.claims:
            lines += ["| claim | source | status | evidence |", "|:---|:---|:---|:---|"]
            lines += [f"| {_cell(c.statement)} | {_cell(c.source)} | **{c.status}** | "
                      f"{_cell(c.evidence)} |" for c in self.claims]
            lines.append("")
        if self.notes:
            lines += [f"- {note}" for note in self.notes] + [""]
        lines += ["<details><summary>Protocol</summary>", "", e.protocol, "", "</details>", ""]
        return "\n".join(lines)

    def to_text(self):
        """The result as plain text, for the terminal."""
        e = self.experiment
        lines = [f"{e.id}: {e.paper}", f"{e.target}: {e.title}",
                 f"{'quick mode, ' if self.quick else ''}{len(self.seeds)} seeded orders, "
                 f"{self.seconds:.1f} s", ""]
        if len(self.comparison):
            table = Table([{k: row[k] for k in _SHOWN} for row in _formatted(self.comparison)],
                          list(_SHOWN))
            lines += [table.to_text(), ""]
        for c in self.claims:
            lines.append(f"[{c.status}] {c.statement} ({c.source}): {c.evidence}")
        if self.claims:
            lines.append("")
        lines += [f"note: {n}" for n in self.notes]
        lines.append(f"verdict: {self.summary()}")
        return "\n".join(lines) + "\n"


_SHOWN = ("group", "item", "paper", "ours", "difference", "verdict")


def _formatted(table):
    rows = []
    for row in table:
        ours = row.get("ours")
        digits = max(printed_digits(row["paper"]), 1) if row.get("paper") is not None else 2
        shown = "" if ours is None else f"{ours:.{digits}f}"
        if ours is not None and (row.get("n") or 0) > 1:
            shown += f" ± {row.get('sd') or 0.0:.{digits}f}"
        diff = row.get("difference")
        rows.append({**row, "ours": shown,
                     "paper": "" if row.get("paper") is None else f"{row['paper']:g}",
                     "difference": "" if diff is None else f"{diff:+.{digits}f}",
                     "verdict": row.get("verdict") or ""})
    return rows


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def _comparison_markdown(table):
    header = ["group", "item", "paper", "ours (mean ± sd)", "difference", "verdict", "source"]
    lines = ["| " + " | ".join(header) + " |", "|:---|:---|---:|---:|---:|:---|:---|"]
    for row in _formatted(table):
        lines.append("| " + " | ".join(_cell(row.get(k) or "") for k in
                                       ("group", "item", "paper", "ours", "difference",
                                        "verdict", "source")) + " |")
    return "\n".join(lines)


COMPARISON_COLUMNS = ["group", "item", "quantity", "paper", "ours", "sd", "n", "difference",
                      "noise", "verdict", "test_size", "source"]


def execute(experiment, quick=False, seeds=None):
    """Run ``experiment`` and judge it: a :class:`Result`."""
    n_seeds = seeds if seeds is not None else (
        experiment.quick_seeds if quick else experiment.default_seeds)
    if int(n_seeds) < 1:
        raise ValueError(f"seeds must be at least 1; got {n_seeds}.")
    seed_list = list(range(int(n_seeds)))
    start = time.perf_counter()
    outcome = experiment.runner(quick, seed_list)
    seconds = time.perf_counter() - start
    cells = verdict([dict(c) for c in outcome.cells])
    comparison = Table(cells, COMPARISON_COLUMNS)
    return Result(experiment, quick, seed_list, comparison, list(outcome.claims),
                  dict(outcome.tables), list(outcome.notes), seconds, outcome.figure, machine())


def machine():
    """A one-line description of this machine, saved with every result beside its wall time."""
    import os
    import platform

    from .. import __version__
    from .._core.primal import simd_instruction_set

    return (f"{os.cpu_count()} CPUs ({platform.machine()}, {simd_instruction_set()} sweeps), "
            f"Python {platform.python_version()}, numpy {np.__version__}, "
            f"onlinear {__version__}")


def summarize(values):
    """``(mean, sd, n)`` of a list of numbers (sd with ddof=1, 0 for one value)."""
    values = [float(v) for v in values]
    mean, sd = mean_std(values)
    return mean, sd, len(values)
