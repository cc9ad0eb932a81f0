"""The ``onlinear`` command group, on which every command module registers its command."""
import click


# ============================================================================ commands
@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="onlinear", prog_name="onlinear")
def cli():
    """Online learning of linear multiclass classifiers: list the algorithms, run one, compare
    several on a stream (progressive validation: predict, then learn)."""
