"""Iterative parameter mixing: one model trained over partitioned data (McDonald, Hall & Mann
2010).

Each epoch, every shard's learner starts from the current mixed model and runs online over its
shard (predict, then learn, in the shard's order); the shards' models are then averaged —
uniformly, or weighted by each shard's updates or mistakes of the epoch — into the next mixed
model.  On a Dask cluster a shard is read or computed once and stays on its worker; each epoch
sends the mixed model to every worker and brings one model back per shard.
"""
import time

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from ..tables import Table
from .engine import fresh_copy, payload_bytes, runner_for
from .mixing import MIXING, check_mixable, mix_models, mixing_weights
from .shards import place, shard_note


class ParameterMixing:
    """Train an additive primal learner over the shards of a data set by iterative parameter
    mixing (McDonald, Hall & Mann, "Distributed training strategies for the structured
    perceptron", NAACL 2010, §3, Figure 3).

    Epoch n: every shard i runs ``estimator``'s rule online over its examples, starting from the
    mixed model ``w^(n-1)`` (zero at first), and reaches ``w_i^(n)`` after ``k_{i,n}`` updates;
    then ``w^(n) = Σ_i μ_{i,n} w_i^(n)``.

    **Theorem** (McDonald et al. 2010, Theorem 3, stated as we know it — the paper is not at
    hand; the proof below is ours and is what the tests check).  Let the examples of all shards
    be separable with margin γ > 0 by a unit vector u, and R bound the norm of every update
    vector (for the binary Perceptron ``w ← w + z·x``, R = max ‖x‖).  Then for any mixing
    coefficients μ_{i,n} ≥ 0 with Σ_i μ_{i,n} = 1, after any number N of epochs of the
    Perceptron with iterative parameter mixing,

        Σ_{n=1..N} Σ_i μ_{i,n} k_{i,n}  ≤  R²/γ².

    Proof: by Novikoff's argument on each shard, ``u·w_i^(n) ≥ u·w^(n-1) + k_{i,n} γ`` and
    ``‖w_i^(n)‖² ≤ ‖w^(n-1)‖² + k_{i,n} R²`` (each update has margin ≤ 0); mixing is a convex
    combination, linear in the first and convex in the second, so with M = Σ_n Σ_i μ k,
    ``Mγ ≤ u·w^(N) ≤ ‖w^(N)‖ ≤ R √M``.  Consequences [DERIVED]: with uniform mixing the total
    number of updates over all shards is at most S·R²/γ² (S shards); with ``mixing="updates"``
    (μ_{i,n} = k_{i,n}/Σ_j k_{j,n}) every epoch with an update adds at least 1 to the sum, so at
    most R²/γ² epochs update before the model separates the data — the paper's argument that
    error-weighted mixing converges.  One-vs-rest Perceptrons satisfy it output by output.
    Other additive learners (PA, MIRA, …) are mixed the same way, without a theorem of ours.

    A worker lost during a fit costs its work, not the fit: an epoch whose shards' work was
    lost (a task that died with its worker, or whose shard or model did) runs again on the
    workers left — a shard computed from a dask array or data frame, or read from a file, is
    computed again from its graph by the scheduler; a scattered ``(X, y)`` pair is scattered
    again from the data given to :meth:`fit` — and ends with the very model of an undisturbed
    run (each shard's epoch is deterministic).  If an epoch is not done within
    ``lost_worker_timeout`` seconds of its start, the fit stops with a
    :class:`LostWorkerError` naming the epoch and the shards whose work was lost.  An error a
    shard's work raises itself — data the estimator refuses: an empty shard, a NaN, a label not
    among the classes — is not a lost worker: it is raised at once, the exception the serial
    run raises, with a note naming the shard, and never tried again.  In this process the
    error is the same, with the same note naming the shard (and its file).

    With one shard, iterative parameter mixing is the serial learner: the model, counters and
    predictions equal those of ``estimator`` fitted for ``n_epochs`` epochs on that data, bit for
    bit.  An epoch in which no shard updated keeps the model as it was (no rounding drift).

    Parameters
    ----------
    estimator : OnlineLinearClassifier
        An additive primal learner (e.g. ``onlinear.make("perceptron")``, ``"pa1"``,
        ``"spa"``), unfitted; its own ``n_epochs``/``shuffle`` are not used (each epoch is one
        pass over each shard in its order).  Learners whose model cannot be averaged (kernel,
        ellipsoid, multiplicative, ROMMA and Maximum Cosine rules, simultaneous projections)
        raise ``TypeError``: see :func:`onlinear.distributed.check_mixable`.
    n_epochs : int, default=1
        Epochs: one pass over every shard, then one mixing.
    mixing : {"uniform", "updates", "mistakes"}, default="uniform"
        The mixing coefficients (:func:`onlinear.distributed.mixing_weights`).
    client : distributed.Client or None, default=None
        The Dask cluster to run on; None runs the shards one after another in this process.
        (Not the scheduler's address: connect with ``distributed.Client(address)``.)
    lost_worker_timeout : float, default=300.0
        Seconds an epoch may take on the cluster, recovery from lost workers included, before
        the fit stops with a :class:`LostWorkerError`.

    Attributes
    ----------
    estimator_ : OnlineLinearClassifier
        The mixed model after the last epoch: an ordinary fitted onlinear estimator (predict,
        ``onlinear.save``/``load``); its counters sum every shard's rounds over every epoch.
    history_ : Table
        One row per epoch and shard: ``epoch``, ``shard``, ``examples``, ``mistakes``,
        ``updates`` (of that epoch), ``weight`` (μ), ``seconds`` (learning time on the worker),
        and per epoch ``bytes_sent`` and ``bytes_received`` (models serialized to the workers
        — one copy per worker — and back — one per shard; 0 in this process).
    n_shards_ : int
        Shards of the data.

    Examples
    --------
    >>> import numpy as np
    >>> import onlinear
    >>> from onlinear.data import load_usps
    >>> from onlinear.distributed import ParameterMixing
    >>> X, y, X_test, y_test = load_usps()
    >>> shards = [(X[i::4], y[i::4]) for i in range(4)]  # four shards, in this process
    >>> ipm = ParameterMixing(onlinear.make("pa1"), n_epochs=3, mixing="updates").fit(shards)
    >>> model = ipm.estimator_
    >>> print(f"{model.n_seen_} rounds; test accuracy {model.score(X_test, y_test):.3f}")
    21873 rounds; test accuracy 0.912
    """

    def __init__(self, estimator, *, n_epochs=1, mixing="uniform", client=None,
                 lost_worker_timeout=300.0):
        self.estimator = estimator
        self.n_epochs = n_epochs
        self.mixing = mixing
        self.client = client
        self.lost_worker_timeout = lost_worker_timeout

    def fit(self, X, y=None, *, classes=None, n_features=None):
        """Run every epoch (:meth:`iter_fit`) and keep the last mixed model.

        Parameters
        ----------
        X : dask.array.Array, dask.dataframe.DataFrame, list of LIBSVM paths or of (X, y)
            The training data, one shard per partition (:mod:`onlinear.distributed.shards`).
        y : dask.array.Array, ndarray, str, dask Series or None, default=None
            The labels, when ``X`` does not hold them.
        classes : array-like, default=None
            Every label; by default those found in the data.
        n_features : int, default=None
            Number of features; by default found in the data.

        Returns
        -------
        self
        """
        for _ in self.iter_fit(X, y, classes=classes, n_features=n_features):
            pass
        return self

    def iter_fit(self, X, y=None, *, classes=None, n_features=None):
        """Train epoch by epoch: yield ``(epoch, model)`` after each mixing (``model`` is
        ``estimator_``; score it to follow the learning).  Parameters as :meth:`fit`."""
        if isinstance(self.n_epochs, bool) or not isinstance(self.n_epochs, (int, np.integer)) \
                or self.n_epochs < 1:
            raise ValueError(f"n_epochs must be an integer ≥ 1; got {self.n_epochs!r}.")
        if self.mixing not in MIXING:
            raise ValueError(f"mixing must be one of {', '.join(map(repr, MIXING))}; got "
                             f"{self.mixing!r}.")
        timeout = self.lost_worker_timeout
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float, np.number)) \
                or not timeout > 0:
            raise ValueError(f"lost_worker_timeout must be a positive number of seconds; got "
                             f"{timeout!r}.")
        check_mixable(self.estimator)
        runner = runner_for(self.client)
        shards = place(X, y, runner, classes=classes, n_features=n_features)
        start = _started(self.estimator, shards.classes, shards.n_features, shards.dtype)
        check_mixable(start)
        prepared = _each(runner, _validated, shards.handles, start, step="checking its data",
                         names=shards.names)

        def prepare_again(i):
            """Shard i validated again, its data scattered again if it was lost with it."""
            if runner.lost(shards.handles[i]):
                if shards.pairs is None:  # (a computed shard is recomputed by the scheduler)
                    return False
                shards.handles[i] = runner.put([shards.pairs[i]])[0]
            prepared[i] = runner.map(_validated, [shards.handles[i]], start)[0]
            return True

        self.n_shards_ = len(prepared)
        rows = []
        model = start
        try:
            for epoch in range(1, self.n_epochs + 1):
                model, epoch_rows = self._epoch(runner, prepared, prepare_again, model, epoch,
                                                shards.names)
                rows.extend(epoch_rows)
                self.estimator_, self.history_ = model, Table(rows)
                yield epoch, model
        finally:
            runner.release(prepared)
            runner.release(shards.handles)

    def _learned(self, runner, prepared, prepare_again, sent, epoch, names):
        """Every shard's ``(model, seconds)`` of the epoch, its lost work done again on the
        workers left (:class:`ParameterMixing`), or :class:`LostWorkerError` once
        ``lost_worker_timeout`` has passed.  A shard's work that raised an error of its own
        (data the estimator refuses: :func:`_raise_own_error`) is not lost: its error is
        raised at once."""
        deadline = time.monotonic() + self.lost_worker_timeout
        lost = set()
        while True:
            handle = runner.broadcast(sent)
            futures = _each(runner, _learn, prepared, handle, step=f"learning epoch {epoch}",
                            names=names)
            try:
                failed = runner.failed(futures, deadline - time.monotonic())
            except TimeoutError:
                failed = [i for i, f in enumerate(futures) if runner.lost(f)] or None
            if failed == []:
                results = runner.gather(futures)
                runner.release(futures)
                runner.release(handle)
                return results
            try:
                _raise_own_error(runner, prepared, futures, epoch, names)
            finally:
                runner.release(futures)
                runner.release(handle)
            lost.update(failed or [])
            redone = [prepare_again(i) for i in (failed or []) if runner.lost(prepared[i])]
            if failed is None or time.monotonic() >= deadline or not all(redone):
                raise LostWorkerError(
                    f"parameter mixing stopped in epoch {epoch}: the work of shard(s) "
                    f"{sorted(lost) or 'still running'} was lost with a worker and not done "
                    f"again within lost_worker_timeout={self.lost_worker_timeout} s (workers "
                    f"now: {runner.workers}).")

    def _epoch(self, runner, prepared, prepare_again, model, epoch, names):
        sent = fresh_copy(model)
        sent.model_.counts[:] = 0  # the shards count this epoch only: the mixing's weights
        on_cluster = hasattr(runner, "client")
        size = payload_bytes(sent) if on_cluster else 0
        results = self._learned(runner, prepared, prepare_again, sent, epoch, names)
        models = [m for m, _ in results]
        weights = mixing_weights(self.mixing, models)
        if all(m.n_updates_ == 0 for m in models) and len(models) > 1:
            mixed = fresh_copy(model)  # nothing changed anywhere: the same model, exactly
            mixed.model_.counts += np.sum([m.model_.counts for m in models], axis=0)
        else:
            mixed = mix_models(models, weights)
            mixed.model_.counts += model.model_.counts
        received = size * len(models)  # the models coming back have the arrays of the one sent
        rows = [{"epoch": epoch, "shard": i, "examples": m.n_seen_,
                 "mistakes": m.n_mistakes_, "updates": m.n_updates_,
                 "weight": float(w), "seconds": seconds,
                 "bytes_sent": size * runner.workers, "bytes_received": received}
                for i, ((m, seconds), w) in enumerate(zip(results, weights))]
        return mixed, rows

    def predict(self, X):
        """``estimator_.predict(X)``; ``NotFittedError`` before :meth:`fit`, as an estimator's."""
        self._check_fitted()
        return self.estimator_.predict(X)

    def score(self, X, y):
        """``estimator_.score(X, y)``: the mean accuracy; ``NotFittedError`` before :meth:`fit`."""
        self._check_fitted()
        return self.estimator_.score(X, y)

    def _check_fitted(self):
        # (estimator_ is set at the first epoch's end: before it, scikit-learn's error, not an
        # AttributeError; not check_is_fitted, which wants scikit-learn's estimator tags)
        if not hasattr(self, "estimator_"):
            raise NotFittedError("This ParameterMixing has no mixed model yet: call 'fit' (or "
                                 "run 'iter_fit' for an epoch) before 'predict' or 'score'.")


class LostWorkerError(RuntimeError):
    """Parameter mixing could not finish an epoch within its ``lost_worker_timeout``: work was
    lost with a worker and not done again in time.  The message names the epoch and the
    shards.

    Parameters
    ----------
    message : str
        What was lost, and when.
    """


def _raise_own_error(runner, prepared, futures, epoch, names=None):
    """Raise the error of the first shard whose work of the epoch (``futures``) raised one of
    its own — not lost with a worker — as the serial run raises it: the same exception, with
    the worker's traceback and a note naming the shard (and its file: ``names``).  Its work
    would raise it again on any worker, so it is not done again.  (Its check, ``prepared``,
    blames its error on the epoch's task that needs it.)"""
    for i, future in enumerate(futures):
        error = runner.error(future)
        if error is None:
            continue
        step = "checking its data" if runner.error(prepared[i]) is not None else \
            f"learning epoch {epoch}"
        error.add_note(shard_note(i, len(futures), step, names=names, on_cluster=True))
        raise error


def _each(runner, function, handles, *args, step, names=None):
    """``runner.map(function, handles, *args)``; in this process, where the first error is
    raised by the call itself, shard by shard, so that the error gets the note naming the
    shard (and its file) that :func:`_raise_own_error` gives it on a cluster."""
    if hasattr(runner, "client"):  # (a task's error is raised, noted, by _raise_own_error)
        return runner.map(function, handles, *args)
    done = []
    for i, handle in enumerate(handles):
        try:
            done.extend(runner.map(function, [handle], *args))
        except Exception as error:
            error.add_note(shard_note(i, len(handles), step, names=names))
            raise
    return done


def _started(estimator, classes, n_features, dtype):
    """A fresh copy of ``estimator`` started at the zero model for ``classes`` and
    ``n_features`` (its first ``stream`` call sets it up from one zero row of the data's
    ``dtype``, learning nothing: ``dtype="auto"`` follows it, as in the serial learner)."""
    import scipy.sparse as sp

    model = clone(estimator)
    model.stream(sp.csr_matrix((1, n_features), dtype=dtype), np.asarray(classes)[:1],
                 classes=classes)
    return model


def _validated(shard, model):
    """A shard checked and encoded once for ``model`` (where it lives): ``(X, targets, context)``
    as the estimator's compiled pass reads them."""
    X, y = shard
    stream = fresh_copy(model).stream(X, y, classes=model.classes_)
    return stream.X, stream.targets, stream.context


def _learn(prepared, model):
    """One epoch on one shard: a copy of the mixed ``model`` learns every row in order.
    Returns ``(model, seconds)``."""
    from ..estimators.base import TrainingStream

    X, targets, context = prepared
    model = fresh_copy(model)
    start = time.perf_counter()
    TrainingStream(model, X, targets, context).learn(np.arange(X.shape[0]))
    return model, time.perf_counter() - start
