"""``onlinear list``: the registered algorithms."""
import re

import click

from .. import harness
from ..registry import available, describe
from .common import FORMATS, clean_errors, exported
from .group import cli


@cli.command("list", short_help="List the registered algorithms.")
@click.option("--task", type=click.Choice(["all", "multiclass", "binary"]), default="all",
              show_default=True, help="Only the algorithms for this task (binary learners "
              "count as multiclass when they run one-vs-rest).")
@click.option("--kernel", is_flag=True, help="List the kernel (dual, support-pattern) learners "
              "instead of the primal ones.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="Output format (csv, json and markdown add the estimator, the tunable "
              "hyperparameters and a summary).")
@clean_errors
def list_command(task, kernel, fmt):
    """The registered algorithms: name, task, the parameters the name fixes (pa, pa1 and pa2
    differ by slack), and the paper with its year.  The table fits 100 columns."""
    rows = []
    names = available(None if task == "all" else task, kernel=kernel)
    for name in names:
        algorithm = describe(name)
        # the rule's hyperparameters: not the protocol's, nor the choices of every learner
        params = {k: v for k, v in algorithm.hyperparameters.items()
                  if k not in harness.PROTOCOL_PARAMETERS and k not in (
                      "average", "fit_intercept", "class_weight", "warm_start", "verbose",
                      "dtype")}
        rows.append({"name": name, "task": algorithm.task,
                     "fixed": " ".join(f"{k}={v}" for k, v in algorithm.fixed.items()) or "-",
                     "paper": algorithm.paper if fmt != "table" else _short_paper(algorithm),
                     "estimator": algorithm.estimator.__name__,
                     "hyperparameters": " ".join(f"{k}={v}" for k, v in params.items()) or None,
                     "summary": algorithm.summary})
    table = harness.Table(rows, ["name", "task", "fixed", "paper", "estimator",
                                 "hyperparameters", "summary"])
    if fmt != "table":
        click.echo(exported(table, fmt), nl=False)
        return
    shown = harness.Table([{k: r[k] for k in ("name", "task", "fixed", "paper")} for r in rows])
    others = available(None if task == "all" else task, kernel=not kernel)
    # (the other family's command keeps the task asked: its count is of that selection)
    same_task = "" if task == "all" else f" --task {task}"
    hint = (f"and {len(others)} {'primal' if kernel else 'kernel'} learners: onlinear list"
            f"{same_task}{'' if kernel else ' --kernel'}; hyperparameters and summaries: "
            "--format markdown\n")
    if not rows:
        click.echo(f"no {'kernel' if kernel else 'primal'} learner for the task {task}; "
                   + hint.removeprefix("and "), nl=False)
        return
    click.echo(shown.to_text() + (hint if others else ""), nl=False)


def _short_paper(algorithm):
    """``"Matsushima et al. 2010"``: the authors and year of an algorithm's paper."""
    found = re.match(r".*?\b(?:19|20)\d\d\b", algorithm.paper)
    return found.group(0) if found else algorithm.paper.split(",")[0]
