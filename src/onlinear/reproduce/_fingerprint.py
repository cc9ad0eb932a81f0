"""Which sections of a report assembled from runs at other commits are still this commit's.

A full run takes hours; the report is assembled from runs made one at a time, at the commits
they were made at.  A full run therefore also records the *quick fingerprint* of its experiment:
a hash of the numbers its quick mode (the same learners, settings and protocol on small subsets
of shipped data, seconds) computes at that commit.  When the report is assembled at a later
commit, each section run elsewhere has its quick mode run again: an equal fingerprint says this
commit computes those numbers bit for bit on the same code path, an unequal one that the
section is stale until its experiment runs again.  It is evidence, not proof: a change that
only a full run's sizes reach (a layout chosen by the data's width, say) escapes quick mode.

Timing cells (wall-clock ratios) are left out: they differ between any two runs.
"""
import hashlib

#: the words that make a quantity, table, column or claim a timing (left out of the fingerprint)
_TIMING = ("time", "second", "faster", "slower", "fastest", "slowest", "wall")


def quick_fingerprint(result):
    """A hash (16 hexadecimal digits) of ``result``'s numbers, timings left out: each
    comparison row's group, item, quantity, and our mean, standard deviation and seed count at
    full precision (a change in any seed's value changes the mean); every further table (the
    per-seed runs, curves, selections...) but the timing ones, row by row without its timing
    columns; each claim's status and p-value but the timing claims'.  None when ``result``
    holds none of these (nothing to compare).

    Parameters
    ----------
    result : Result
        A run's result, as :func:`onlinear.reproduce.run` returns it or
        :func:`onlinear.reproduce.load` reads it back (the CSV keeps every float's shortest
        repr, so both give the same hash).

    Returns
    -------
    str or None
    """
    lines = []
    for row in result.comparison:
        quantity = str(row["quantity"])
        if not _timing(quantity):
            lines.append("|".join((str(row["group"]), str(row["item"]), quantity,
                                   _number(row["ours"]), _number(row["sd"]),
                                   _number(row["n"]))))
    for name in sorted(result.tables):
        if _timing(name):
            continue
        table = result.tables[name]
        columns = [c for c in table.columns if not _timing(c)]
        lines.append(f"table {name}: " + "|".join(columns))
        lines += ["|".join(_number(row[c]) for c in columns) for row in table]
    for claim in result.claims:
        if not _timing(claim.statement):
            lines.append("|".join((claim.statement, claim.status, _number(claim.p_value))))
    if not lines:
        return None
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()[:16]


def _timing(text):
    """Whether a quantity, table, column or claim speaks of time (its numbers differ between
    any two runs)."""
    text = str(text).lower()
    return any(word in text for word in _TIMING)


def _number(value):
    """A number as its shortest repr (floats and ints alike: a loaded CSV's 2 and a run's 2.0
    are one value)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    return repr(number)


def still_current(result):
    """Whether this checkout's quick run of ``result``'s experiment gives the quick
    fingerprint its full run recorded (``provenance["quick_fingerprint"]``); None when it
    recorded none."""
    from ._framework import execute

    recorded = result.provenance.get("quick_fingerprint")
    if recorded is None:
        return None
    return quick_fingerprint(execute(result.experiment, quick=True)) == recorded
