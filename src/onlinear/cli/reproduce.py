"""``onlinear reproduce``: regenerate a paper's table or figure and print the paper's numbers
beside ours, with a verdict.

    onlinear reproduce --list
    onlinear reproduce matsushima-table4 --seeds 5 --out results/
    onlinear reproduce matsushima-table4 --seeds 10:20          # seeds 10-19
    onlinear reproduce matsushima-table4 --seeds 10-19          # the same seeds
    onlinear reproduce matsushima-table4 --seeds 3,5,8
    onlinear reproduce matsushima-table4 --seeds 5 --seed-offset 100   # seeds 100-104
    onlinear reproduce crammer-singer-table4 --quick
    onlinear reproduce --all --report docs/reproduction.md
    onlinear reproduce --all --report docs/reproduction.md --from results/   # no rerun

Data sets other than those shipped with the package are read from ``ONLINEAR_DATA`` (see
``onlinear.data.find_dataset``); a run that lacks one stops with exit code 1 and names it.
Usage errors (unknown experiment, bad ``--seeds``, an ``--out`` that is a file or whose parent
folder does not exist, a ``--report`` without a suffix, whose folder of figures is a file, or
that would overwrite a file of the run) exit with code 2 before anything runs."""
import os
import shlex

import click

from .common import check_output, clean_errors
from .group import cli


def _check_folder(ctx, param, value):
    """An output folder: an existing folder, or a new one whose parent exists."""
    if value is None:
        return None
    if not value:  # (abspath("") is the current folder, which the user did not name)
        raise click.BadParameter("an empty path; give a folder.", ctx, param)
    path = os.path.abspath(value)
    if os.path.islink(path) and not os.path.exists(path):
        raise click.BadParameter(f"{value} is a symbolic link to {os.readlink(path)}, which "
                                 "does not exist; give a folder.", ctx, param)
    if os.path.exists(path) and not os.path.isdir(path):
        raise click.BadParameter(f"{value} is a file; give a folder.", ctx, param)
    parent = os.path.dirname(path)
    if not os.path.isdir(parent):
        raise click.BadParameter(f"cannot create {value}: no folder {parent}.", ctx, param)
    target = path if os.path.isdir(path) else parent
    if not os.access(target, os.W_OK | os.X_OK):
        raise click.BadParameter(f"cannot write into {value}: permission denied.", ctx, param)
    return value


def _parse_seeds(ctx, param, value):
    """``--seeds`` (:func:`onlinear.reproduce.parse_seeds`): a count, a list or a range; None
    when not given."""
    if value is None:
        return None
    from ..reproduce import parse_seeds

    try:
        return parse_seeds(value)
    except ValueError as error:
        raise click.BadParameter(str(error), ctx, param) from None


def _check_report_path(ctx, param, value):
    """``--report``: a file that can be written (:func:`check_output`), not standard output."""
    if value == "-":
        raise click.BadParameter("the report is a file with its figures in a folder beside it, "
                                 "which standard output cannot hold; give a file name such as "
                                 "reproduction.md.", ctx, param)
    return check_output(ctx, param, value)


def _seed_text(seeds):
    """``--seeds`` of a list of seeds: a count, a range A-B or a list."""
    if seeds == list(range(len(seeds))):
        return str(len(seeds))
    if len(seeds) > 2 and seeds == list(range(seeds[0], seeds[-1] + 1)):
        return f"{seeds[0]}-{seeds[-1]}"
    return ",".join(map(str, seeds))


def _saved_seeds(results, quick):
    """The ``--seeds`` of the runs that saved ``results``: None when each ran its experiment's
    own seeds, or when they ran different ones (no one command made them all)."""
    defaults = [list(range(r.experiment.quick_seeds if quick else r.experiment.default_seeds))
                for r in results]
    seeds = [list(r.seeds) for r in results]
    if seeds == defaults or any(s != seeds[0] for s in seeds):
        return None
    return _seed_text(seeds[0])


def _command_line(which, *options):
    """The command as typed, from what it was given: ``onlinear reproduce WHICH`` and the
    options ``(name, value)`` that were given (a flag's value True), quoted for a shell."""
    words = ["onlinear", "reproduce", *which]
    for name, value in options:
        if value is None or value is False or (name == "--seed-offset" and value == 0):
            continue
        words += [name] if value is True else [name, str(value)]
    return " ".join(shlex.quote(word) for word in words)


@cli.command("reproduce")
@click.argument("experiment", required=False)
@click.option("--list", "list_only", is_flag=True, help="List the experiments and exit.")
@click.option("--all", "run_every", is_flag=True, help="Run every experiment.")
@click.option("--long", "long_runs", is_flag=True,
              help="With --all: also run the opt-in long experiments (e.g. MNIST's Table 3).")
@click.option("--quick", is_flag=True,
              help="Small subsets, seconds: checks the code path, not the paper's numbers.")
@click.option("--seeds", callback=_parse_seeds, default=None,
              help="Seeded orders per experiment: a count N (seeds 0…N−1; default: the "
                   "experiment's own), a range A:B (seeds A…B−1) or A-B (A…B), or a list "
                   "a,b,c of seed numbers.")
@click.option("--seed-offset", type=click.IntRange(min=0), default=0,
              help="Add this to every seed number (another set of orders, same count).")
@click.option("--out", type=click.Path(), callback=_check_folder, default=None,
              help="Folder for the CSV, markdown and PNG files (created if its parent exists).")
@click.option("--report", type=click.Path(dir_okay=False), callback=_check_report_path,
              default=None,
              help="Write the markdown reproduction report of the experiments run here to this "
                   "file (a name with a suffix, e.g. reproduction.md), its figures into the "
                   "folder of its name without the suffix (reproduction/).")
@click.option("--from", "saved", type=click.Path(file_okay=False), default=None,
              help="With --report: build the report from the results saved in this folder "
                   "by earlier --out runs, without running anything.")
@clean_errors
def reproduce_command(experiment, list_only, run_every, long_runs, quick, seeds, seed_offset,
                      out, report, saved):
    """Reproduce a paper's table or figure (EXPERIMENT: an id of --list)."""
    from .. import reproduce

    if list_only:
        if experiment or run_every:
            raise click.UsageError("--list takes no experiment and no --all.")
        for e in reproduce.list_experiments():
            data = ", ".join(e.data) or "synthetic"
            opt_in = ", opt-in: --long or by name" if e.opt_in else ""
            click.echo(f"{e.id:24} {e.citation}, {e.target}  [data: {data}{opt_in}]")
            click.echo(f"{'':24} {e.title}")
        return
    if run_every == bool(experiment):
        raise click.UsageError("give one EXPERIMENT (see --list) or --all.")
    if long_runs and not run_every:
        raise click.UsageError("--long goes with --all (a named experiment always runs).")
    ids = [e.id for e in reproduce.list_experiments() if long_runs or not e.opt_in] \
        if run_every else [experiment]
    if experiment is not None and experiment not in reproduce.EXPERIMENTS:
        raise click.UsageError(f"unknown experiment {experiment!r}; see onlinear reproduce "
                               "--list.")
    which = (["--all"] + ["--long"] * long_runs) if run_every else [experiment]
    if saved is not None:
        if report is None or out is not None or quick or seeds or seed_offset:
            raise click.UsageError("--from only builds a --report (no --out, --quick, --seeds, "
                                   "--seed-offset).")
        if not os.path.isdir(saved):
            raise click.BadParameter(f"no folder {saved!r}.", param_hint="--from")
        figures = any(os.path.exists(os.path.join(saved, f"{i}.png")) for i in ids)
        _check_report(report, figures, ids, {"--from": saved})
        results = [reproduce.load(saved, identifier) for identifier in ids]
        # the report names the two commands that made it: the runs (as far as the saved
        # results tell them), then the assembly
        quick_runs = all(r.quick for r in results)
        reproduce.report(results, report, command=(
            _command_line(which, ("--quick", quick_runs),
                          ("--seeds", _saved_seeds(results, quick_runs)), ("--out", saved))
            + "`, then `" + _command_line(which, ("--report", report), ("--from", saved))))
        click.echo(f"wrote {report}", err=True)
        return
    if report is not None:
        # (which experiments draw a figure is known only once they have run)
        _check_report(report, True, ids, {"--out": out})
    seed_text = None if seeds is None else (
        str(seeds) if isinstance(seeds, int) else _seed_text(seeds))
    if seed_offset:
        from ..reproduce import describe

        def shifted(identifier):
            base = seeds
            if base is None:
                e = describe(identifier)
                base = e.quick_seeds if quick else e.default_seeds
            base = list(range(base)) if isinstance(base, int) else base
            return [s + seed_offset for s in base]
    else:
        def shifted(identifier):
            return seeds
    results = []
    for identifier in ids:
        if run_every:
            click.echo(f"== {identifier}", err=True)
        result = reproduce.run(identifier, quick=quick, seeds=shifted(identifier), out=out)
        click.echo(result.to_text())
        results.append(result)
    if out is not None:
        click.echo(f"wrote {len(ids)} experiment(s) into {out}", err=True)
    if report is not None:
        command = _command_line(which, ("--quick", quick), ("--seeds", seed_text),
                                ("--seed-offset", seed_offset), ("--out", out),
                                ("--report", report))
        reproduce.report(results, report, command=command)
        click.echo(f"wrote {report}", err=True)
    if len(results) > 1:
        for result in results:
            click.echo(f"{result.experiment.id:24} {result.seconds:7.1f} s  {result.summary()}")


def _check_report(report, figures, ids, folders):
    """``--report`` against where its figures go and the files of the run: a usage error
    before anything runs (:func:`onlinear.reproduce.check_report`)."""
    from ..reproduce import check_report

    try:
        check_report(report, figures=figures, ids=ids, folders=folders)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--report") from None
