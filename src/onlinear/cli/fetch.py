"""``onlinear fetch``: a data set of the catalogue, downloaded and checksum verified."""
import os

import click

from .common import check_sha256, clean_errors
from .group import cli


@cli.command("fetch", short_help="Download a data set of the catalogue, checksum verified.")
@click.argument("name_or_url")
@click.option("--dest", "dest", type=click.Path(file_okay=False), default=None,
              help="Folder to download into (default: $ONLINEAR_DATA, else ./onlinear-data).")
@click.option("--sha256", default=None, callback=check_sha256,
              help="Expected SHA-256 of a URL's file (catalogue sets "
              "carry their own).")
@click.option("--force", is_flag=True, help="Download even if a verified copy is there.")
@clean_errors
def fetch_command(name_or_url, dest, sha256, force):
    """Download NAME_OR_URL — a data set of the catalogue (see onlinear.data.list_datasets) or a
    URL — into the data folder with pooch, verifying its SHA-256, retrying transient failures
    and trying the catalogue's mirrors; a bad download is deleted."""
    from ..data import fetch

    if dest is None:
        dest = os.environ.get("ONLINEAR_DATA", "").split(os.pathsep)[0] or "onlinear-data"
    from ..data import ChecksumError

    try:
        paths = fetch(name_or_url, dest, sha256, force=force)
    except ChecksumError:
        raise
    except ValueError as error:  # the name, the URL's file name or the destination
        raise click.UsageError(str(error)) from None
    for path in paths if isinstance(paths, list) else [paths]:
        click.echo(str(path))
