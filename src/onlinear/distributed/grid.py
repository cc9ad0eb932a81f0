"""The cells of an experiment grid on a Dask cluster: what :func:`onlinear.harness.compare` runs
when given ``client=``.

A *cell* is one call of the harness's ``_run_one``: an algorithm with its hyperparameters on one
seeded ordering of the stream.  The grid-search cells of an algorithm (one pass per combination,
on the first permutation) come first; as soon as they are all back the best combination is
chosen exactly as the serial search chooses it (:func:`onlinear.harness._searched`) and that
algorithm's permutation cells are submitted — while other algorithms' cells still run.  So the
cluster is never idle waiting for a whole phase, and the results equal the serial run's cell by
cell: same seeds, same orders, same code.

Data placement: the validated stream (and the test set) is scattered to every worker once
(``broadcast``), before any cell; a cell's task only names it.  A worker that dies mid-grid
takes its running cells with it: the scheduler runs them again on the workers left (or on the
worker its nanny restarts), up to ``distributed.scheduler.allowed-failures`` times per cell, and
the scattered data survives on the other workers.  The progress bar advances by a cell's
examples when the cell comes back.
"""
import itertools

from .. import harness
from ..registry import describe

_warmed = set()  # algorithms whose compiled paths this worker process has loaded


def run_cell(name, params, data, epochs, seed, permutation, tick, with_test):
    """One cell on a worker: ``harness._run_one`` on the scattered ``data``
    ``(X, y, classes, X_test, y_test)``, the compiled paths warmed up first (once per algorithm
    and worker process, outside the cell's timing, as the serial run warms up once per
    algorithm).

    Parameters
    ----------
    name : str
        Registered algorithm name.
    params : dict
        Its hyperparameters.
    data : tuple
        ``(X, y, classes, X_test, y_test)``, validated by ``compare``.
    epochs, seed, permutation, tick
        As for ``harness._run_one``.
    with_test : bool
        Score the test set after every epoch (the permutation cells; not the grid search's).

    Returns
    -------
    run : onlinear.harness.Run
    """
    X, y, classes, X_test, y_test = data
    if name not in _warmed:
        harness._warm_up(describe(name).make(**params), X, y, classes)
        _warmed.add(name)
    return harness._run_one(name, params, X, y, classes, epochs=epochs, seed=seed,
                            permutation=permutation, tick=tick,
                            X_test=X_test if with_test else None,
                            y_test=y_test if with_test else None, progress=None)


def compare_cells(client, algorithms, grids, params, seeds, X, y, classes, X_test, y_test, *,
                  epochs, tick, bar):
    """The runs and grid searches of :func:`onlinear.harness.compare`, its cells run on the
    cluster of ``client``.

    Parameters
    ----------
    client : distributed.Client
        The cluster's client.
    algorithms : list of str
        The algorithms, in the order of the runs.
    grids : dict
        Algorithm → its grid (``{param: [values]}``, empty when not tuned).
    params : dict
        Algorithm → its fixed hyperparameters.
    seeds : list
        The permutations' seeds (``[None]`` for the given order).
    X, y, classes, X_test, y_test
        The validated stream, its classes and the test set (``None`` without one).
    epochs, tick : int
        As for ``compare``.
    bar : onlinear.harness._Progress
        The progress bar, advanced as cells come back.

    Returns
    -------
    runs : list of Run
        In the serial order: by algorithm, then permutation.
    searches : dict
        Algorithm → :class:`onlinear.harness.GridSearch`, for the tuned algorithms.
    """
    from distributed import as_completed

    n = X.shape[0]
    [data] = client.scatter([(X, y, classes, X_test, y_test)], broadcast=True, hash=False)
    searched = {name: [None] * len(harness._combinations(grids[name]))
                for name in algorithms if grids[name]}
    runs = {name: [None] * len(seeds) for name in algorithms}
    searches = {}
    cells = {}  # future → (name, index, is a search cell)
    # on the client's own loop: as_completed() alone takes the process's default client, and
    # a client made for one command (``onlinear compare --workers``) is nobody's default
    pending = as_completed(loop=client.loop)

    def submit(name, cell_params, index, search):
        epochs_, seed = (1, seeds[0]) if search else (epochs, seeds[index])
        future = client.submit(run_cell, name, cell_params, data, epochs_, seed,
                               0 if search else index, n if search else tick, not search,
                               pure=False)
        cells[future] = (name, index, search)
        pending.add(future)

    for name in algorithms:
        fixed = params.get(name, {})
        if grids[name]:
            for index, combination in enumerate(harness._combinations(grids[name])):
                submit(name, {**fixed, **combination}, index, True)
        else:
            for index in range(len(seeds)):
                submit(name, fixed, index, False)
    bar.describe(f"{len(cells)} cells on the cluster")
    try:
        for future in pending:
            name, index, search = cells.pop(future)
            run = future.result()  # a cell's own error (not a lost worker) is raised here
            future.release()
            bar.update(int(run.examples[-1]))
            if not search:
                runs[name][index] = run
                continue
            searched[name][index] = run
            if all(r is not None for r in searched[name]):
                search = harness._searched(name, grids[name], searched[name])
                searches[name] = search
                best = {**params.get(name, {}), **search.best_params}
                for permutation in range(len(seeds)):
                    submit(name, best, permutation, False)
    finally:
        client.cancel(list(cells))
        data.release()
    order = [runs[name] for name in algorithms]
    return list(itertools.chain.from_iterable(order)), \
        {name: searches[name] for name in algorithms if name in searches}
