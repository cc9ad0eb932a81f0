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
folder does not exist) exit with code 2 before anything runs."""
import os

import click

from .common import check_output, clean_errors
from .group import cli


def _check_folder(ctx, param, value):
    """An output folder: an existing folder, or a new one whose parent exists."""
    if value is None:
        return None
    path = os.path.abspath(value)
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
@click.option("--report", type=click.Path(dir_okay=False), callback=check_output, default=None,
              help="Write the markdown reproduction report of the experiments run here.")
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
    if saved is not None:
        if report is None or out is not None or quick or seeds or seed_offset:
            raise click.UsageError("--from only builds a --report (no --out, --quick, --seeds, "
                                   "--seed-offset).")
        if not os.path.isdir(saved):
            raise click.BadParameter(f"no folder {saved}.", param_hint="--from")
        results = [reproduce.load(saved, identifier) for identifier in ids]
        which = ("--all" + (" --long" if long_runs else "")) if run_every else experiment
        # the report names the two commands that made it: the runs, then the assembly
        reproduce.report(results, report, command=(
            f"onlinear reproduce {which} --out {saved}`, then `onlinear reproduce {which} "
            f"--report {report} --from {saved}"))
        click.echo(f"wrote {report}", err=True)
        return
    seed_text = None if seeds is None else (
        str(seeds) if isinstance(seeds, int) else ",".join(map(str, seeds)))
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
        command = "onlinear reproduce --all" + (" --long" if long_runs else "") + (
            " --quick" if quick else "") + (
            f" --seeds {seed_text}" if seed_text else "") + (
            f" --seed-offset {seed_offset}" if seed_offset else "") + f" --report {report}"
        reproduce.report(results, report, command=command)
        click.echo(f"wrote {report}", err=True)
    if len(results) > 1:
        for result in results:
            click.echo(f"{result.experiment.id:24} {result.seconds:7.1f} s  {result.summary()}")
