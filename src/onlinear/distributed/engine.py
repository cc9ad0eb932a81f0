"""Where work runs: on a Dask cluster through a ``distributed.Client``, or in this process.

The parameter-mixing loop (:mod:`.parameter_mixing`) is written once against the three
operations below — put a value where the work runs, broadcast one to every worker, run a
function on every shard — so that the same loop runs on a cluster and, without dask, in this
process (doctests, one machine, the one-shard equality with the serial learner).

Work that does not finish failed in one of two ways, which the runners keep apart: it was
*lost* (:meth:`OnDask.lost`: its worker died, or the data it needed died with one — worth
doing again elsewhere), or it *raised an error of its own* (:meth:`OnDask.error`: a shard the
estimator refuses, a bug — the same on any worker, so it is raised to the caller at once, as
in this process, and never tried again).
"""
import copy
import pickle

INSTALL_HINT = "pip install 'onlinear[dask]'"


def require_dask():
    """Import ``dask`` and ``distributed``, or raise an ``ImportError`` that says how to get them.

    Returns
    -------
    distributed : module
        The ``distributed`` package.

    Raises
    ------
    ImportError
        If dask or distributed is not installed.
    """
    try:
        import dask  # noqa: F401
        import distributed
    except ImportError as error:
        raise ImportError(f"running on a Dask cluster needs the packages dask and distributed "
                          f"({error.name} is missing): {INSTALL_HINT}") from None
    return distributed


def runner_for(client):
    """The runner for ``client``: :class:`OnDask` for a ``distributed.Client``, :class:`InProcess`
    for ``None``.

    Parameters
    ----------
    client : distributed.Client or None
        The cluster's client, or None to run in this process (anything else is refused:
        :func:`check_client`).
    """
    if client is None:
        return InProcess()
    check_client(client)
    return OnDask(client)


def check_client(client):
    """Raise unless ``client`` is a ``distributed.Client`` (dask installed: :func:`require_dask`).

    The scheduler's address is refused, not connected to: a client made here would have to be
    closed by someone, and the caller who holds one decides how long it lives.

    Parameters
    ----------
    client : object
        What was given as the cluster's client.

    Raises
    ------
    ImportError
        If dask or distributed is not installed.
    TypeError
        If ``client`` is not a ``distributed.Client`` (the message says how to make one).
    """
    distributed = require_dask()
    if isinstance(client, distributed.Client):
        return
    if isinstance(client, (str, bytes)):
        raise TypeError(f"client must be a distributed.Client, not the scheduler's address "
                        f"{client!r}: connect first, client = distributed.Client({client!r}) "
                        f"(and close it when done: client.close(), or a with block).")
    raise TypeError(f"client must be a distributed.Client (distributed.Client(address) "
                    f"connects to a running scheduler); got {type(client).__name__}.")


def payload_bytes(value):
    """Bytes of ``value`` serialized as it travels to and from workers (pickle, protocol 5)."""
    return len(pickle.dumps(value, protocol=5))


class InProcess:
    """Runs every shard's work here, one shard after another; values are not copied on the way
    (the work functions never write to their inputs)."""

    workers = 1

    def put(self, values):
        """``values`` (a list), where the work runs."""
        return list(values)

    def broadcast(self, value):
        """``value``, available to the work of every shard."""
        return value

    def map(self, function, handles, *args):
        """``[function(handle, *args) for handle in handles]``."""
        return [function(handle, *args) for handle in handles]

    def gather(self, handles):
        """The values behind ``handles``."""
        return list(handles)

    def failed(self, handles, timeout):
        """The positions of ``handles`` whose work was lost (none here: nothing is lost)."""
        return []

    def lost(self, handle):
        """Whether the value behind ``handle`` is gone (never here)."""
        return False

    def error(self, handle):
        """The error the work behind ``handle`` raised (never here: :meth:`map` raises it)."""
        return None

    def release(self, handles):
        """Forget ``handles`` (nothing to free here)."""


class OnDask:
    """Runs every shard's work as a task on the cluster of ``client``; shards stay on the workers
    as futures between tasks, so each epoch moves models, never data.

    Parameters
    ----------
    client : distributed.Client
        The cluster's client.
    """

    def __init__(self, client):
        self.client = client

    @property
    def workers(self):
        """Workers of the cluster now."""
        return max(1, len(self.client.scheduler_info(n_workers=-1)["workers"]))

    def put(self, values):
        """Scatter ``values`` (a list) to the workers: one future each, spread over them."""
        return self.client.scatter(list(values), hash=False)

    def broadcast(self, value):
        """Scatter ``value`` to one worker; the tasks of every shard fetch it from there, once
        a worker.  (Not ``scatter(broadcast=True)``, which waits without a time-out for every
        worker, a lost one too.)"""
        return self.client.scatter(value, hash=False)

    def map(self, function, handles, *args):
        """Futures of ``function(handle, *args)``, one task per shard, each where its shard is
        (the scheduler places a task with its largest input)."""
        return [self.client.submit(function, handle, *args, pure=False) for handle in handles]

    def gather(self, handles):
        """The values behind the futures ``handles`` (the first failure raises)."""
        return self.client.gather(handles)

    def failed(self, handles, timeout):
        """Wait at most ``timeout`` seconds for the futures ``handles`` to finish or fail, and
        return the positions of those that did not finish: lost (:meth:`lost`: the task, or its
        input, with its worker) or failed by an error of their own (:meth:`error`), which this
        does not raise.  Raises ``TimeoutError`` if some are still running then."""
        import distributed

        try:
            # (wait() alone takes the process's default client: this one may be nobody's)
            with self.client.as_current():
                distributed.wait(handles, timeout=max(timeout, 0.0))
        except TimeoutError:
            raise
        except Exception:  # noqa: BLE001 - (FuturesCancelledError: a future lost its input)
            pass
        return [i for i, future in enumerate(handles) if future.status != "finished"]

    def lost(self, handle):
        """Whether the value behind the future ``handle`` is gone with a worker: lost (its worker
        died and the scheduler cannot compute it again: scattered data), cancelled (an input
        of its task was), or its task given up by the scheduler after it killed
        ``distributed.scheduler.allowed-failures`` workers (``KilledWorker``).  Not a task that
        raised an error of its own (:meth:`error`): doing it again would raise it again."""
        if handle.status in ("lost", "cancelled"):
            return True
        return handle.status == "error" and _killed_worker(handle.exception())

    def error(self, handle):
        """The exception the task behind the future ``handle`` raised itself — or one of the
        tasks it needs: the scheduler blames their error on it — with its traceback from the
        worker; None if the task finished, is still running, or was lost (:meth:`lost`)."""
        if handle.status != "error":
            return None
        exception = handle.exception()
        if _killed_worker(exception):
            return None
        return exception.with_traceback(handle.traceback())

    def release(self, handles):
        """Let the cluster free ``handles``."""
        for future in handles if isinstance(handles, list) else [handles]:
            if hasattr(future, "release"):
                future.release()


def _killed_worker(exception):
    """Whether ``exception``, a failed future's, is the scheduler's ``KilledWorker``: the task's
    workers died under it (a lost worker, not an error of the task)."""
    from distributed import KilledWorker

    return isinstance(exception, KilledWorker)


def fresh_copy(model):
    """A copy of ``model`` to learn with: a scattered model is shared by the tasks of one
    worker (and an in-process one by the caller), so no task writes to the one it is given."""
    return copy.deepcopy(model)
