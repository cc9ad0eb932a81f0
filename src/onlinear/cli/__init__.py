"""The ``onlinear`` command: list the registered algorithms, run one on a data set, compare several.

    onlinear list
    onlinear run pa1 usps --param C=0.01 --epochs 2 --curve pa1.csv
    onlinear compare                                  # every multiclass algorithm on USPS
    onlinear compare pa1 spa1 mira --data train.svm --test test.svm --permutations 5 --plot out.png
    onlinear compare pa1 mira --grid C=0.01,0.1,1 --permutations 10 --workers 4   # on Dask

Data is ``usps`` (the copy shipped with the package, with its test set), a catalogue name, or
the path of a LIBSVM or CSV file (by its suffix; plain, gzip, bzip2 or xz, recognised by
content).  Exit codes: 0 on success, 2 on a usage
error (unknown algorithm, bad ``--param``/``--grid``/``--sha256``, an output path that cannot be
written or that is an input of the command), checked before anything is read or written; 1 on a
data or algorithm error, reported on one line (set ``ONLINEAR_TRACEBACK=1`` for the
traceback).  Outputs are written to a temporary file beside them and renamed once complete: a
failed command leaves an existing output as it was.

The package: ``group`` (the command group), ``common`` (what the commands share), one module per
command (``listing``, ``run``, ``compare``, ``fetch``, ``train``, ``predict``, ``evaluate``,
``info``, ``reproduce``) registering itself on the group when the group first needs it (see
``group``), and the modules shared by a few (``data_args``, ``experiments``, ``model_files``,
``imports``).  No module imports this one.
"""
from .group import cli

__all__ = ["cli", "main", "load_data"]


def __getattr__(name):
    # load_data (numpy, scipy) imported when asked for: ``onlinear train`` imports its
    # modules as it chooses (see group and imports)
    if name == "load_data":
        from .data_args import load_data

        return load_data
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv=None):
    """Entry point of the ``onlinear`` console script."""
    return cli.main(args=argv, prog_name="onlinear")
