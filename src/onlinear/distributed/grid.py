"""The cells of an experiment grid on a Dask cluster: the runner :func:`onlinear.harness.compare`
uses when given ``client=`` (or ``runner=DaskRunner(client)``).

A *cell* is one run of :class:`onlinear.harness.Cells`: an algorithm with its hyperparameters on
one seeded ordering of the stream.  The grid-search cells of an algorithm (one pass per
combination, on the first permutation) come first; as soon as they are all back the best
combination is chosen exactly as the serial search chooses it (:meth:`Cells.choose
<onlinear.harness.Cells.choose>`) and that algorithm's permutation cells are submitted — while
other algorithms' cells still run.  So the cluster is never idle waiting for a whole phase, and
the results equal the serial run's cell by cell: same seeds, same orders, same code.

This module reaches the harness only through the :class:`~onlinear.harness.Cells` it is handed
(it imports nothing of it).

Data placement: the validated stream (and the test set) is scattered to every worker once
(``broadcast``), before any cell; a cell's task only names it.  A worker that dies mid-grid
takes its running cells with it: the scheduler runs them again on the workers left (or on the
worker its nanny restarts), up to ``distributed.scheduler.allowed-failures`` times per cell, and
the scattered data survives on the other workers.  A cell the scheduler forgets with the dying
worker instead (cancelled: its task, or the only copy of the data it needed, was lost) is
submitted again, on data scattered again if the data was lost, up to ``_RETRIES`` times.  The
progress bar advances by a cell's examples when the cell comes back.
"""
import itertools

#: How many times a cell cancelled with a dying worker is submitted again.
_RETRIES = 3


_warmed = set()  # algorithms whose compiled paths this worker process has loaded


def run_cell(cells, data, name, params, index, search):
    """One cell on a worker: :meth:`Cells.run <onlinear.harness.Cells.run>` on the scattered
    ``data``, the compiled paths warmed up first (once per algorithm and worker process,
    outside the cell's timing, as the serial run warms up once per algorithm).

    Parameters
    ----------
    cells : onlinear.harness.Cells
        The comparison's cells, without their data (:meth:`~onlinear.harness.Cells.without_data`).
    data : tuple
        ``(X, y, classes, X_test, y_test)``, validated by ``compare``, scattered once.
    name : str
        Registered algorithm name.
    params : dict
        Its hyperparameters (:meth:`~onlinear.harness.Cells.cell_params`).
    index : int
        The search combination or the permutation.
    search : bool
        A grid-search cell (one pass, no test set) or a permutation cell.

    Returns
    -------
    run : onlinear.harness.Run
    """
    cells = cells.with_data(data)
    if name not in _warmed:
        cells.warm_up(name, params)
        _warmed.add(name)
    return cells.run(name, params, index, search)


class DaskRunner:
    """Runs the cells of :func:`onlinear.harness.compare` on the cluster of a Dask client (see
    the module's description).

    Parameters
    ----------
    client : distributed.Client
        The cluster's client; it need not be the process's default client.
    """

    #: the workers warm up their own compiled paths (once per algorithm and worker process)
    warms_up_here = False

    def __init__(self, client):
        from .engine import check_client

        check_client(client)  # (an address, or no dask, refused before any cell is made)
        self.client = client

    def run(self, cells, bar):
        """``(runs, searches)`` as :class:`onlinear.harness.SerialRunner.run` returns them
        (the runs in the serial order: by algorithm, then permutation); ``bar`` advances as
        cells come back."""
        from distributed import as_completed

        client = self.client
        [data] = client.scatter([cells.data], broadcast=True, hash=False)
        shipped = cells.without_data()
        searched = {name: [None] * len(cells.combinations(name))
                    for name in cells.algorithms if cells.grids[name]}
        runs = {name: [None] * len(cells.seeds) for name in cells.algorithms}
        searches = {}
        pending_cells = {}  # future → (name, index, is a search cell)
        # on the client's own loop: as_completed() alone takes the process's default client, and
        # a client made for one command (``onlinear compare --workers``) is nobody's default
        pending = as_completed(loop=client.loop)

        lost = {}  # (name, index, search) → cells lost with a dying worker so far

        def submit(name, params, index, search):
            future = client.submit(run_cell, shipped, data, name, params, index, search,
                                   pure=False)
            pending_cells[future] = (name, index, search, params)
            pending.add(future)

        for name in cells.algorithms:
            if cells.grids[name]:
                for index in range(len(cells.combinations(name))):
                    submit(name, cells.cell_params(name, index, True), index, True)
            else:
                for index in range(len(cells.seeds)):
                    submit(name, cells.cell_params(name, index, False), index, False)
        bar.describe(f"{len(pending_cells)} cells on the cluster")
        try:
            for future in pending:
                name, index, search, params = pending_cells.pop(future)
                if future.status == "cancelled":
                    # the scheduler forgot the cell with a dying worker (its task, or the data
                    # copy it needed): the cell runs again, on the data scattered again if lost
                    key = (name, index, search)
                    lost[key] = lost.get(key, 0) + 1
                    if lost[key] > _RETRIES:
                        future.result()  # (raises the cancellation)
                    if data.status != "finished":
                        [data] = client.scatter([cells.data], broadcast=True, hash=False)
                    submit(name, params, index, search)
                    continue
                run = future.result()  # a cell's own error (not a lost worker) is raised here
                future.release()
                bar.update(int(run.examples[-1]))
                if not search:
                    runs[name][index] = run
                    continue
                searched[name][index] = run
                if all(r is not None for r in searched[name]):
                    searches[name] = cells.choose(name, searched[name])
                    best = searches[name].best_params
                    for permutation in range(len(cells.seeds)):
                        submit(name, cells.cell_params(name, permutation, False, best),
                               permutation, False)
        finally:
            client.cancel(list(pending_cells))
            data.release()
        order = [runs[name] for name in cells.algorithms]
        return list(itertools.chain.from_iterable(order)), \
            {name: searches[name] for name in cells.algorithms if name in searches}
