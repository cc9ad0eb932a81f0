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
    the arrays are not read.  A dict hyperparameter (class_weight) is shown as the Python dict
    it was given as, e.g. "{0: 2.0}"."""
    from ..persistence import read_header

    header = read_header(model_path)
    header.pop("arrays", None)
    if isinstance(header.get("params"), dict):
        header["params"] = shown_params(header["params"])
    click.echo(json.dumps(header, indent=2, sort_keys=True))


#: how a model file stores a dict hyperparameter (:mod:`onlinear.persistence`, format version
#: 2): ``{"__pairs__": [[key, value], ...]}``, since a JSON object's keys are strings and a class
#: label 0 is not "0"
_PAIRS = "__pairs__"


def shown_params(params):
    """``params`` of a model file's header with each dict hyperparameter as the user gave it:
    the text of the Python dict, ``"{0: 2.0}"``, not its stored ``[key, value]`` pairs (a JSON
    object would make its keys strings again).

    Parameters
    ----------
    params : dict
        The header's ``params``.

    Returns
    -------
    dict
        ``params``, each stored dict replaced by its Python text; the rest as stored, and so a
        malformed stored dict (a damaged file, which :func:`onlinear.load` refuses), shown as
        it is rather than guessed at.
    """
    return {name: _dict_text(value) or value for name, value in params.items()}


def _dict_text(value):
    """The Python text of the dict ``value`` stores as pairs, or None if it stores none."""
    if not (isinstance(value, dict) and set(value) == {_PAIRS}):
        return None
    pairs = value[_PAIRS]
    if not (isinstance(pairs, list) and all(
            isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], (str, int, float))
            for pair in pairs)):
        return None
    return repr({key: item for key, item in pairs})
