"""``onlinear info``: a model file's header."""
import json

import click

from .common import clean_errors
from .group import cli


@cli.command("info", short_help="Print a model file's header.")
@click.argument("model_path", metavar="MODEL")
@clean_errors
def info_command(model_path):
    """The header of MODEL (format, versions, algorithm, hyperparameters, counters) as JSON;
    the arrays are not read."""
    from ..persistence import read_header

    header = read_header(model_path)
    header.pop("arrays", None)
    click.echo(json.dumps(header, indent=2, sort_keys=True))
