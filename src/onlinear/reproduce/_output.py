"""Writing results: one experiment's files into a folder, and the markdown reproduction report.

Files are first written into a hidden staging folder inside the target folder and then renamed
into place one by one, so that a reader never sees a half-written file and a failed run leaves
the files of the previous run untouched; nothing is written outside the folder named.  A run
killed outright cannot remove its staging folder: the next save into the folder does, unless a
live run holds it (its lock, POSIX).
"""
import contextlib
import json
import os
import re
import shutil
import tempfile
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: staging folders are not locked
    fcntl = None

from ..tables import Table
from ..persistence import replacing
from ._framework import (
    ENOUGH_SEEDS,
    SAME_ORDERING,
    VERDICT_RULE,
    VERDICTS,
    source_changes,
    source_commit,
    verdict,
)


def _claims_table(result):
    return Table([{"statement": c.statement, "source": c.source, "status": c.status,
                   "evidence": c.evidence, "p_value": c.p_value} for c in result.claims],
                 ["statement", "source", "status", "evidence", "p_value"])


def _files(result, folder):
    """Write the files of ``result`` into ``folder``; their names."""
    folder = Path(folder)
    stem = result.experiment.id
    written = {}

    def text(name, content):
        (folder / name).write_text(content, encoding="utf-8", newline="")
        written[name] = True

    text(f"{stem}.md", result.to_markdown(level=1) + "\n")
    text(f"{stem}.txt", result.to_text())
    text(f"{stem}.csv", result.comparison.to_csv())
    text(f"{stem}-claims.csv", _claims_table(result).to_csv())
    for name, table in result.tables.items():
        text(f"{stem}-{name}.csv", table.to_csv())
    summary = {"id": stem, "quick": result.quick, "seeds": result.seeds,
               "seconds": result.seconds, "counts": result.counts, "notes": result.notes,
               "machine": result.machine, "provenance": result.provenance,
               "shown": result.shown}
    text(f"{stem}.json", json.dumps(summary, indent=1) + "\n")
    if result.figure is not None:
        result.figure(str(folder / f"{stem}.png"))
        written[f"{stem}.png"] = True
    return list(written)


def save(result, out):
    """Write ``result``'s files into the folder ``out`` (created if its parent exists):
    ``ID.md``, ``ID.txt``, ``ID.csv`` (the comparison), ``ID-claims.csv``, ``ID-NAME.csv`` per
    further table, ``ID.json`` (counts, wall time) and ``ID.png`` where the paper has a figure.

    Returns
    -------
    list of Path
        The files written.
    """
    out = Path(out)
    if out.is_symlink() and not out.exists():
        raise NotADirectoryError(f"{out} is a symbolic link to {os.readlink(out)}, which does "
                                 "not exist")
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(f"{out} is not a folder")
    out.mkdir(exist_ok=True)
    _remove_abandoned_staging(out)
    with _staging_folder(out) as staging:
        names = _files(result, staging)
        mask = os.umask(0)
        os.umask(mask)
        for name in names:
            os.chmod(staging / name, 0o666 & ~mask)
            os.replace(staging / name, out / name)
    return [out / name for name in names]


_STAGING_PREFIX = ".reproduce-"
#: a staging folder's name: the prefix and mkdtemp's 8 random characters (a folder of the user's
#: that merely starts with the prefix is not ours to remove)
_STAGING_NAME = re.compile(re.escape(_STAGING_PREFIX) + r"[a-z0-9_]{8}")


@contextlib.contextmanager
def _staging_folder(out):
    """A fresh staging folder in ``out``, locked (POSIX) while it is in use, so that
    :func:`_remove_abandoned_staging` of another run leaves it alone, and removed with what is
    in it at the end.  A folder that another run's clean-up removed between its creation and
    the lock (it found it unheld) is given up for a new one."""
    while True:
        staging = Path(tempfile.mkdtemp(dir=out, prefix=_STAGING_PREFIX))
        descriptor = os.open(staging, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        if fcntl is None:
            break
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
        except OSError:  # (a file system without locks: used unlocked, never removed by others)
            break
        if os.fstat(descriptor).st_nlink > 0:
            break
        os.close(descriptor)
    try:
        yield staging
    finally:
        try:
            shutil.rmtree(staging, ignore_errors=True)
        finally:
            os.close(descriptor)  # (releases the lock once the folder is gone)


def _remove_abandoned_staging(out):
    """Remove the staging folders in ``out`` that no live run holds: those a run killed
    outright (``kill -9``, a power cut) left behind.  Where there are no locks (not POSIX, a
    file system without them) a run in progress cannot be told apart: nothing is removed."""
    if fcntl is None:
        return
    try:
        names = os.listdir(out)
    except OSError:
        return
    for name in names:
        if not _STAGING_NAME.fullmatch(name):
            continue
        folder = os.path.join(out, name)
        try:
            descriptor = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
                                 | getattr(os, "O_NOFOLLOW", 0))
        except OSError:  # (gone meanwhile, a link, not a folder)
            continue
        try:
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # held by a live run (or no locks here): left alone
                continue
            # removed while locked here, so that a run that created it but has not locked it
            # yet finds it gone (:func:`_staging_folder`) rather than emptied under it
            shutil.rmtree(folder, ignore_errors=True)
        finally:
            os.close(descriptor)


def _changes_text(commits):
    """What of the package's source differs between each run's commit and the assembly's
    (:func:`source_changes`), one clause per commit."""
    parts = []
    for commit in commits:
        changed = source_changes(commit)
        parts.append(f"{commit}: " + ("git cannot tell" if changed is None else
                                      "no source file differs" if not changed else
                                      "differs in " + ", ".join(f"`{c}`" for c in changed)))
    return "; ".join(parts) + "."


def _source_text(results, commits):
    """The report's **Source** paragraph: the runs' commits and, for the sections run at
    another commit than this one, whether their quick fingerprint still holds here
    (:mod:`._fingerprint`) — the others are stale until regenerated, with what differs."""
    from ._fingerprint import still_current

    here = source_commit()
    text = (f"**Source.** The runs were made at commit {', '.join(commits)}; this report was "
            f"assembled at commit {here}.")
    elsewhere = [r for r in results if r.provenance.get("commit", "unrecorded") != here]
    if not elsewhere:
        return text
    checked = {r.experiment.id: still_current(r) for r in elsewhere}
    same = sorted(i for i, ok in checked.items() if ok)
    stale = [r for r in elsewhere if not checked[r.experiment.id]]
    if same:
        text += (f" Of the {len(elsewhere)} sections run at another commit, {len(same)} give "
                 "here, in quick mode, the very numbers their run's quick mode gave at its "
                 "commit (the same quick fingerprint: every number of the result but its "
                 "timings, bit for bit), so this commit computes them on the same code path "
                 "(evidence, not proof: a change only a full run's sizes reach would escape "
                 "it): " + ", ".join(f"`{i}`" for i in same) + ".")
    if stale:
        stale_commits = sorted({r.provenance.get("commit", "unrecorded") for r in stale})
        several = len(stale) > 1
        text += (" " + ("The other" if same else "Each") + (" sections" if several and same
                                                             else " section")
                 + " run at another commit (" + ", ".join(f"`{r.experiment.id}`" for r in stale)
                 + (") give" if several and same else ") gives") + " another quick fingerprint "
                 "here, or none (a run that recorded none, or a section of timings only, which "
                 "differ between any two runs), and " + ("are" if several and same else "is")
                 + " stale until regenerated, unless nothing " + ("they run" if several and same
                                                                  else "it runs")
                 + " changed since: " + _changes_text(stale_commits))
    return text


def figure_folder(path):
    """The folder of the figures of the report ``path``: beside it, named after it without its
    suffix (``docs/reproduction.md`` → ``docs/reproduction/``)."""
    path = Path(path)
    return path.parent / path.stem


def _saved_names(id):
    """A pattern of the names of the files :func:`save` writes for ``id``."""
    return re.compile(re.escape(id) + r"(\.(md|txt|csv|json|png)|-.+\.csv)")


def check_report(path, *, figures=True, ids=(), folders=None):
    """Check, before anything runs, that the report ``path`` and its figures
    (:func:`figure_folder`; ``figures``: whether there may be any) can be written, and overwrite
    none of the files that :func:`save` writes for ``ids`` in ``folders`` (``{what the folder
    is, e.g. "--out": folder}``), nor those folders.

    Raises
    ------
    ValueError
        Saying what is wrong: a name without a suffix (the figures' folder would be the report
        itself), a figures' folder that is a file or cannot be written, a report or figures'
        folder that is one of ``folders`` or one of the files written there.
    """
    path = Path(path)
    if not path.suffix:
        raise ValueError(f"{str(path)!r} has no suffix: a report's figures go into the folder "
                         "of its name without the suffix (reproduction.md → reproduction/); "
                         f"give a name such as {path.name}.md.")
    folder = figure_folder(path)
    resolved = Path(os.path.realpath(path))
    for what, other in (folders or {}).items():
        if other is None:
            continue
        other = Path(os.path.realpath(other))
        if resolved == other:
            raise ValueError(f"{path} is the folder of {what}; give the report another name.")
        if figures and Path(os.path.realpath(folder)) == other:
            raise ValueError(f"the report's figures would go into {folder}, the folder of "
                             f"{what}, in place of the figures there (ID.png); give the report "
                             "another name.")
        if resolved.parent == other:
            for id in ids:
                if _saved_names(id).fullmatch(resolved.name):
                    raise ValueError(f"{path} is a file of the result of {id} in {what} "
                                     f"{other}; give the report another name.")
    if figures and (folder.exists() or folder.is_symlink()):
        if not folder.is_dir():
            raise ValueError(f"the report's figures go into {folder}, which is a file (or a "
                             "broken link), not a folder; give the report another name.")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise ValueError(f"the report's figures go into {folder}, which cannot be written "
                             "(permission denied).")


def report(results, path=None, *, command="onlinear reproduce --all --report docs/reproduction.md"):
    """The markdown reproduction report of ``results`` (a list of :class:`Result`): how to
    regenerate it, the verdict rule, a summary table with wall times, then every experiment's
    section.  With ``path`` (a name with a suffix, checked by :func:`check_report` before
    anything is drawn), also writes it there and each figure as ``<folder of path>/<stem of
    path>/ID.png`` (:func:`figure_folder`), all whole or not at all: on an error nothing is
    replaced.

    Returns
    -------
    str
        The markdown.
    """
    drawn = [r for r in results if r.figure is not None] if path is not None else []
    if path is not None:
        path = Path(path)
        check_report(path, figures=bool(drawn))
    figures = {r.experiment.id: f"{path.stem}/{r.experiment.id}.png" for r in drawn}
    commits = sorted({r.provenance.get("commit", "unrecorded") for r in results
                      if r.provenance} or {"unrecorded"})
    lines = [
        "# Reproducing the papers", "",
        "Generated by `" + command + "` (set `ONLINEAR_DATA` to the folder of the benchmark "
        "data sets; see `onlinear.data`). Each section prints its provenance (commit, library "
        "versions, sha256 of the data files, machine), the paper's numbers beside ours (mean ± "
        "sd over seeded orders, median and range of the per-seed values, which the CSV files "
        "of `--out` list one by one), the difference d, d/paper, z and a verdict, then the "
        "paper's claims as hold/fail lines with their tests, the notes that trace what is off, "
        "and the protocol with every choice the paper leaves open.", "",
        _source_text(results, commits), "",
        "**Verdict rule.** " + VERDICT_RULE, "",
        "**Wall times** are those of the runs that produced the results, on "
        + "; ".join(sorted({r.machine for r in results if r.machine}) or ["an unrecorded machine"])
        + ". Quick-mode rows ran on small subsets: their numbers check the code path, not the "
        f"paper. † marks verdicts from fewer than {ENOUGH_SEEDS} seeds.", "",
        "| experiment | paper | target | mode | orders | wall time (s) | "
        + " | ".join(VERDICTS) + " | of those not reproduced: same ordering | claims hold | "
        "claims hold, not significant | claims fail |",
        "|:---|:---|:---|:---|---:|---:|" + "---:|" * (len(VERDICTS) + 4)]
    totals = dict.fromkeys((*VERDICTS, SAME_ORDERING, "claims hold", "claims not significant",
                            "claims fail"), 0)
    for r in results:
        c = r.counts
        for key in totals:
            totals[key] += c[key]
        lines.append(f"| [`{r.experiment.id}`](#{r.experiment.id}) | "
                     f"{r.experiment.citation} | {r.experiment.target} | "
                     f"{'quick' if r.quick else 'full'} | {len(r.seeds)} | {r.seconds:.1f} | "
                     + " | ".join(str(c[v]) for v in (*VERDICTS, SAME_ORDERING))
                     + f" | {c['claims hold']} | {c['claims not significant']} | "
                     f"{c['claims fail']} |")
    lines.append("| **total** | | | | | | " + " | ".join(str(totals[k]) for k in totals) + " |")
    lines.append("")
    from ._registry import CLAIMS_NOT_TESTED, NOT_REPRODUCED

    lines += ["**Not reproduced.**", ""]
    lines += [f"- {paper}, {target}: {why}." for paper, target, why in NOT_REPRODUCED]
    lines += ["", "**Claims not tested.** Every other claim of the papers' experiment sections "
              "is tested in the section of its table or figure.", ""]
    lines += [f"- {paper}, {source}: \"{claim}\" — {why}."
              for paper, source, claim, why in CLAIMS_NOT_TESTED]
    lines.append("")
    for r in results:
        # an explicit anchor: GitHub and MkDocs slugify the headings differently
        lines += [f'<a id="{r.experiment.id}"></a>', ""]
        lines.append(r.to_markdown(level=2))
        if r.experiment.id in figures:
            lines += [f"![{r.experiment.id}]({figures[r.experiment.id]})", ""]
    text = "\n".join(lines).rstrip() + "\n"
    if path is not None:
        _write_report(path, text, drawn)
    return text


def _write_report(path, text, drawn):
    """Write the report ``text`` to ``path`` and the figures of the results ``drawn`` into its
    folder of figures: each to a temporary file first, all renamed once all are written (the
    figures before the report, so that the report never links to a figure not yet there); on
    an error every temporary file is removed, and the folder of figures if made here."""
    folder = figure_folder(path)
    made = False
    try:
        with contextlib.ExitStack() as stack:
            # (entered first, so renamed last: the contexts exit in reverse order)
            report_temporary = stack.enter_context(_replacing(path))
            if drawn and not folder.is_dir():
                folder.mkdir()
                made = True
            for result in drawn:
                temporary = stack.enter_context(
                    _replacing(folder / f"{result.experiment.id}.png"))
                result.figure(str(temporary))
            Path(report_temporary).write_text(text, encoding="utf-8", newline="")
    except BaseException:
        if made:
            with contextlib.suppress(OSError):  # (not empty: something else went into it)
                folder.rmdir()
        raise


def _replacing(path):
    """A temporary file beside ``path``, renamed onto it once written
    (:func:`onlinear.persistence.replacing`, with ``path``'s suffix for matplotlib)."""
    return replacing(path, suffix=Path(path).suffix)


def _table_names(folder, id):
    """The names of the further tables of ``id`` saved in ``folder`` (``ID-NAME.csv``; not the
    claims, nor the files of another experiment whose id ``id`` begins, as
    ``matsushima-table5-text`` begins with ``matsushima-table5``)."""
    from ._registry import list_experiments

    longer = [e.id for e in list_experiments() if e.id.startswith(id + "-")]
    names = []
    for path in sorted(Path(folder).glob(f"{id}-*.csv")):
        stem = path.name[:-len(".csv")]
        if any(stem == other or stem.startswith(other + "-") for other in longer):
            continue
        name = stem[len(id) + 1:]
        if name != "claims":
            names.append(name)
    return names


def load(folder, id):
    """The :class:`Result` of experiment ``id`` saved by :func:`save` in ``folder`` (with its
    further tables; its figure is the saved PNG), so that a report can be assembled from runs
    made one by one.

    Raises
    ------
    FileNotFoundError
        If the folder holds no saved result of ``id``.
    ValueError
        Naming the file and the field, if a saved file lacks a field the report needs or
        cannot be read (damaged, or not written by :func:`save`).
    """
    from ._framework import Claim, Result
    from ._registry import describe

    folder = Path(folder)
    experiment = describe(id)
    summary_file = folder / f"{id}.json"
    if not summary_file.exists():
        raise FileNotFoundError(f"no saved result of {id!r} in {folder} (run onlinear "
                                f"reproduce {id} --out {folder})")
    again = f"run onlinear reproduce {id} --out {folder} again"
    try:
        summary = json.loads(summary_file.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{summary_file} is not the JSON summary of a saved result ({error}); "
                         f"{again}.") from None
    if not isinstance(summary, dict):
        raise ValueError(f"{summary_file} is not the JSON summary of a saved result (not an "
                         f"object); {again}.")
    for key, valid in (("quick", lambda v: isinstance(v, bool)),
                       ("seeds", lambda v: isinstance(v, list) and all(
                           isinstance(s, int) and not isinstance(s, bool) for s in v)),
                       ("seconds", lambda v: isinstance(v, (int, float))
                        and not isinstance(v, bool))):
        if key not in summary:
            raise ValueError(f"{summary_file} lacks the field {key!r} (damaged, or not written "
                             f"by onlinear reproduce --out); {again}.")
        if not valid(summary[key]):
            raise ValueError(f"{summary_file}: the field {key!r} holds {summary[key]!r}, not a "
                             f"saved result's value; {again}.")
    saved = _saved_table(folder / f"{id}.csv", (), again)
    # judged again, so that a report always applies the current rule (a CSV of an older
    # version lacks the new columns: they are computed)
    from ._framework import COMPARISON_COLUMNS

    rows = [{k: v for k, v in row.items()
             if k not in ("difference", "relative", "sigma", "z", "noise", "verdict",
                          "ordering")} for row in saved]
    try:
        comparison = Table(verdict(rows), COMPARISON_COLUMNS)
    except (ValueError, TypeError) as error:  # (a paper's number that is text: "abc")
        raise ValueError(f"{folder / f'{id}.csv'} holds a value that is not a number where "
                         f"one is needed ({error}); {again}.") from None
    claims_file = folder / f"{id}-claims.csv"
    saved_claims = _saved_table(claims_file, ("statement", "source", "status", "evidence"),
                                again)
    try:
        claims = [Claim(row["statement"], row["source"], row["status"] != "fails",
                        row["evidence"], row.get("p_value")) for row in saved_claims]
    except (ValueError, TypeError) as error:
        raise ValueError(f"{claims_file}: a p_value that is not a number ({error}); "
                         f"{again}.") from None
    png = folder / f"{id}.png"
    figure = (lambda path: shutil.copyfile(png, path)) if png.exists() else None
    shown = summary.get("shown") or {}
    tables = {name: _saved_table(folder / f"{id}-{name}.csv", (), again)
              for name in _table_names(folder, id)}
    return Result(experiment, summary["quick"], summary["seeds"], comparison, claims, tables,
                  summary.get("notes", []), summary["seconds"], figure,
                  summary.get("machine", ""), summary.get("provenance") or {}, shown)


def _saved_table(path, columns, again):
    """The table saved in the CSV file ``path``, which must have ``columns``; a ``ValueError``
    naming the file and the missing column otherwise."""
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing from the saved result; {again}.")
    try:
        table = Table.from_csv(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise ValueError(f"{path} cannot be read as a saved table ({error}); {again}.") from None
    for column in columns:
        if column not in table.columns:
            raise ValueError(f"{path} lacks the column {column!r} (damaged, or not written by "
                             f"onlinear reproduce --out); {again}.")
    for number, row in enumerate(table, 1):
        for column in columns:
            if column not in row:  # (a row cut short)
                raise ValueError(f"{path}: row {number} has no {column!r} (damaged); {again}.")
    return table
