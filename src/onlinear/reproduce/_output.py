"""Writing results: one experiment's files into a folder, and the markdown reproduction report.

Files are first written into a hidden staging folder inside the target folder and then renamed
into place one by one, so that a reader never sees a half-written file and a failed run leaves
the files of the previous run untouched; nothing is written outside the folder named.
"""
import json
import os
import shutil
import tempfile
from pathlib import Path

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
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(f"{out} is not a folder")
    out.mkdir(exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=out, prefix=".reproduce-"))
    try:
        names = _files(result, staging)
        mask = os.umask(0)
        os.umask(mask)
        for name in names:
            os.chmod(staging / name, 0o666 & ~mask)
            os.replace(staging / name, out / name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return [out / name for name in names]


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


def report(results, path=None, *, command="onlinear reproduce --all --report docs/reproduction.md"):
    """The markdown reproduction report of ``results`` (a list of :class:`Result`): how to
    regenerate it, the verdict rule, a summary table with wall times, then every experiment's
    section.  With ``path``, also writes it there (whole or not at all), and each figure as
    ``<folder of path>/<stem of path>/ID.png``.

    Returns
    -------
    str
        The markdown.
    """
    figures = {}
    if path is not None:
        path = Path(path)
        image_folder = path.parent / path.stem
        for result in results:
            if result.figure is not None:
                image_folder.mkdir(exist_ok=True)
                target = image_folder / f"{result.experiment.id}.png"
                with _replacing(target) as temporary:
                    result.figure(str(temporary))
                figures[result.experiment.id] = f"{path.stem}/{target.name}"
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
        with _replacing(path) as temporary:
            Path(temporary).write_text(text, encoding="utf-8", newline="")
    return text


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
    """
    from ._framework import Claim, Result
    from ._registry import describe

    folder = Path(folder)
    experiment = describe(id)
    summary_file = folder / f"{id}.json"
    if not summary_file.exists():
        raise FileNotFoundError(f"no saved result of {id!r} in {folder} (run onlinear "
                                f"reproduce {id} --out {folder})")
    summary = json.loads(summary_file.read_text(encoding="utf-8"))
    saved = Table.from_csv((folder / f"{id}.csv").read_text(encoding="utf-8"))
    # judged again, so that a report always applies the current rule (a CSV of an older
    # version lacks the new columns: they are computed)
    from ._framework import COMPARISON_COLUMNS

    rows = [{k: v for k, v in row.items()
             if k not in ("difference", "relative", "sigma", "z", "noise", "verdict",
                          "ordering")} for row in saved]
    comparison = Table(verdict(rows), COMPARISON_COLUMNS)
    claims = [Claim(row["statement"], row["source"], row["status"] != "fails", row["evidence"],
                    row.get("p_value"))
              for row in Table.from_csv((folder / f"{id}-claims.csv").read_text(
                  encoding="utf-8"))]
    png = folder / f"{id}.png"
    figure = (lambda path: shutil.copyfile(png, path)) if png.exists() else None
    shown = summary.get("shown") or {}
    tables = {name: Table.from_csv((folder / f"{id}-{name}.csv").read_text(encoding="utf-8"))
              for name in _table_names(folder, id)}
    return Result(experiment, summary["quick"], summary["seeds"], comparison, claims, tables,
                  summary.get("notes", []), summary["seconds"], figure,
                  summary.get("machine", ""), summary.get("provenance") or {}, shown)
