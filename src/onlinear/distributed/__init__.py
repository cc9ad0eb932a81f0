"""Beyond one machine: experiment grids and training on a Dask cluster (``onlinear[dask]``).

Two things run on an existing distributed engine, `Dask <https://distributed.dask.org>`_ —
never on a pool of our own:

* the independent cells of an experiment grid — :func:`onlinear.harness.compare` with
  ``client=`` (and ``onlinear compare --scheduler ADDRESS`` or ``--workers N``): the data is
  scattered to every worker once, every cell (algorithm × permutation × hyperparameters) runs
  where the scheduler puts it, and the results are those of the serial run, cell by cell
  (:mod:`.grid`); a worker lost mid-grid costs only its cells, which the scheduler runs again;
* one model trained over the partitions of a ``dask.array``, a ``dask.dataframe`` or a list of
  LIBSVM files by iterative parameter mixing (McDonald, Hall & Mann 2010):
  :class:`ParameterMixing` (:mod:`.parameter_mixing`), mixing by :func:`mix_models`
  (:mod:`.mixing`), data placed by :mod:`.shards`; a worker lost mid-epoch costs its work,
  done again on the workers left (or a :class:`LostWorkerError` after a stated time-out); a
  shard's own error (data the estimator refuses) is raised at once, as in this process.

``import onlinear`` and ``import onlinear.distributed`` never import dask: it is imported when a
cluster is used (:func:`require_dask` raises a clear ``ImportError`` when it is missing), and
:class:`ParameterMixing` also runs in this process, without dask, on a list of ``(X, y)`` shards.
"""
from .engine import require_dask
from .mixing import check_mixable, mix_models, mixing_weights
from .parameter_mixing import LostWorkerError, ParameterMixing

__all__ = ["LostWorkerError", "ParameterMixing", "check_mixable", "mix_models", "mixing_weights", "require_dask"]
