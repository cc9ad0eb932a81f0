"""Reproductions of the five papers' tables and figures, on the papers' data, with the papers'
numbers printed beside ours and a verdict.

>>> from onlinear.reproduce import list_experiments
>>> "matsushima-table4" in [e.id for e in list_experiments()]
True

``run(id, quick=False, seeds=None, out=None)`` runs one experiment and returns a
:class:`Result` (``print(result.to_text())``); with ``out`` it also writes the comparison
(CSV, markdown), the claims, further tables and, where the paper has a figure, a PNG into that
folder.  ``report(results, path)`` writes the markdown reproduction report of several results
(``check_report(path)`` checks, before anything runs, that it and its figures can be written).
The command line does the same: ``onlinear reproduce --list``, ``onlinear reproduce ID
[--quick] [--seeds N | --seeds 10:20 | --seeds 10-19 | --seeds 3,5,8]
[--seed-offset K] [--out DIR]``, ``onlinear reproduce --all --report docs/reproduction.md``.

Each experiment lives in the module of its paper; the run function's docstring is its protocol
and says what was chosen where the paper is silent.  Data sets other than those shipped in the
package (USPS, Letter) are read from the data directory of :func:`onlinear.data.find_dataset`
(environment variable ``ONLINEAR_DATA``); a full run without them stops with an error naming the
missing set.  Quick mode runs a small subset (on shipped or synthetic data when the paper's set
is not shipped) in seconds: its numbers check the code path, not the paper.
"""
from ._framework import (
    FAR_OFF,
    NOT_REPRODUCED,
    REPRODUCED,
    SAME_ORDERING,
    VERDICT_RULE,
    VERDICTS,
    Claim,
    Experiment,
    Outcome,
    Result,
    execute,
    noise,
    parse_seeds,
    seed_numbers,
    sigma,
    verdict,
)
from ._fingerprint import quick_fingerprint
from ._output import check_report, figure_folder, load, report, save
from ._registry import EXPERIMENTS, describe, list_experiments

__all__ = ["Experiment", "Outcome", "Result", "Claim", "EXPERIMENTS", "list_experiments",
           "describe", "run", "run_all", "report", "check_report", "figure_folder", "save",
           "load", "verdict", "noise",
           "sigma", "seed_numbers", "parse_seeds", "VERDICT_RULE", "VERDICTS", "REPRODUCED",
           "NOT_REPRODUCED", "FAR_OFF", "SAME_ORDERING", "quick_fingerprint"]


def run(id, quick=False, seeds=None, out=None):
    """Run the experiment ``id`` and return its :class:`Result`.

    Parameters
    ----------
    id : str
        An experiment id (:func:`list_experiments`).
    quick : bool, default=False
        Small subsets, seconds: checks the code path, not the paper's numbers.
    seeds : int, list of int, str or None
        The seeded orders: a count n (seeds 0…n−1), a list of seed numbers, a string of
        :func:`parse_seeds` (``"10:20"``, ``"0,3,7"``), or None (the experiment's own count,
        fewer in quick mode).
    out : path or None
        A folder to write the result's files into (created if its parent exists); every file
        is written whole or not at all, and nothing is written outside the folder.

    Returns
    -------
    Result
    """
    experiment = describe(id)
    result = execute(experiment, quick=quick, seeds=seeds)
    if not quick:  # (seconds: what a report assembled at a later commit checks this run by)
        result.provenance["quick_fingerprint"] = quick_fingerprint(execute(experiment,
                                                                           quick=True))
    if out is not None:
        save(result, out)
    return result


def run_all(quick=False, seeds=None, out=None, ids=None, progress=None, long=False):
    """Run every registered experiment (or those of ``ids``), in registry order, the opt-in
    long ones (:attr:`Experiment.opt_in`) only with ``long``; a list of :class:`Result`.
    ``progress(experiment)`` is called before each run when given."""
    results = []
    chosen = ([e for e in list_experiments() if long or not e.opt_in] if ids is None
              else [describe(i) for i in ids])
    for experiment in chosen:
        if progress is not None:
            progress(experiment)
        results.append(run(experiment.id, quick=quick, seeds=seeds, out=out))
    return results
