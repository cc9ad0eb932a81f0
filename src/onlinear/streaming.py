"""Learning a stream of chunks, with checkpoints that survive a crash and progress reports.

:func:`learn_stream` feeds ``partial_fit`` the chunks of a stream — a file read in bounded
chunks (:func:`onlinear.data.iter_libsvm_chunks`) or any iterator of ``(X, y)`` — so memory does
not depend on the stream's length.  Every ``checkpoint_every`` examples it saves the model with
:func:`onlinear.save`, whose writes are atomic, together with how many examples of the stream
it has learned; started again with ``resume=True`` after a crash, it loads the last checkpoint,
skips the examples already learned and goes on: the final model is bit-identical to that of an
uninterrupted run, and every example is learned exactly once.

A kernel learner's default ``gamma="auto"`` (1/n_features) needs nothing from the data;
``gamma="scale"`` is refused (as by ``partial_fit``: a stream's first chunk is not the training
set), so give the number :func:`onlinear.kernels.scale_gamma` computes on a sample.

Checkpoints fall exactly on multiples of ``checkpoint_every`` whatever the chunk sizes: a
chunk is split there.  Splitting changes nothing, since ``partial_fit`` on consecutive pieces of
a chunk learns what it learns on the chunk (an online learner sees one example at a time).
"""
from __future__ import annotations

import contextlib
import itertools
import os
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable

import numpy as np
import scipy.sparse as sp

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .estimators.base import OnlineLinearClassifier

from .persistence import load, read_header, remove_stale_temporaries, save

__all__ = ["learn_stream", "resumable", "Progress", "padded"]

#: the header entry of a checkpoint: how many examples of the stream the model has learned
STREAM_POSITION = "stream_examples"


@dataclass(frozen=True)
class Progress:
    """One line of progressive validation, reported after ``examples`` examples of the stream.

    Parameters
    ----------
    examples : int
        Examples of the stream learned so far (including any before a resume).
    mistakes : int
        Mistakes the model made on them, each before learning the example.
    updates : int
        Examples on which the model changed.
    mistakes_since : int
        Mistakes since the previous report.
    examples_since : int
        Examples since the previous report.
    seconds : float
        Wall time since the previous report (or the start).
    """

    examples: int
    mistakes: int
    updates: int
    mistakes_since: int
    examples_since: int
    seconds: float

    @property
    def mistake_rate(self):
        return self.mistakes / self.examples if self.examples else 0.0

    @property
    def mistake_rate_since(self):
        return self.mistakes_since / self.examples_since if self.examples_since else 0.0

    @property
    def examples_per_second(self):
        return self.examples_since / self.seconds if self.seconds > 0 else float("inf")


def learn_stream(model: OnlineLinearClassifier, chunks: Iterable[tuple], *,
                 classes: ArrayLike | None = None, checkpoint: str | os.PathLike | None = None,
                 checkpoint_every: int | None = None, resume: bool = False, grow: bool = True,
                 report: Callable | None = None,
                 keep_on_failure: bool = False) -> OnlineLinearClassifier:
    """Learn the stream ``chunks`` with ``partial_fit``, chunk by chunk, in order.

    Parameters
    ----------
    model : OnlineLinearClassifier
        The model that learns (it may already be trained: the stream continues it).  With
        ``resume=True`` and an existing checkpoint, the checkpoint's model is used instead.
    chunks : iterable of (X, y)
        The stream: examples and their labels, as ``partial_fit`` takes them.  Dense arrays,
        CSR matrices and DataFrames are learned as they are; a sparse matrix of another format
        (COO, CSC, DIA, BSR…) is converted to CSR, and a list of rows (or another array-like)
        to an array as the estimators' validation converts it.
    classes : array-like, optional
        All the labels of the stream; required if ``model`` is not started yet.  Given to a
        started (or resumed) model, it is taken as ``partial_fit`` takes it: new labels are
        added to the model (a learner that cannot grow refuses them), a missing one refused.
    checkpoint : str or path-like, optional
        File to save the model to every ``checkpoint_every`` examples and at the end.
    checkpoint_every : int, optional
        Examples between checkpoints (default: only at the end).
    resume : bool, default=False
        If ``checkpoint`` exists, continue from it: its model, and the stream after the
        examples it has learned.  The checkpoint's estimator and hyperparameters must be
        those of ``model``.
    grow : bool, default=True
        A chunk wider than the model (a larger feature index than seen so far) widens the
        model with :meth:`~onlinear.OnlineLinearClassifier.grow_features`; ``False`` raises a
        ``ValueError`` instead.  A narrower chunk is padded with zero features.
    report : callable, optional
        Called with a :class:`Progress` after 1, 2, 4, 8, … examples (a doubling schedule, as
        Vowpal Wabbit prints) and at the end.
    keep_on_failure : bool, default=False
        If the stream fails between examples — ``chunks`` or ``report`` raises (a bad line,
        an interrupt), or ``partial_fit`` refuses a chunk with a ``ValueError`` (which leaves
        the model as it was) — save the model learned so far to ``checkpoint`` (atomically, as
        a checkpoint of the examples learned: ``resume=True`` goes on from it) before the
        error propagates, with a note on the error (``error.__notes__``) saying so.  An
        interrupt inside ``partial_fit`` itself may leave the model half-way through a chunk:
        nothing is saved then.  A checkpoint's own save that fails (a full disk) is not tried
        again: the file still holds the previous checkpoint (the writes are atomic), and the
        note says which.  A row refused for its values (NaN, infinity, a norm out of range:
        :class:`~onlinear.estimators.checks.RowRefusedError`) stops the stream at that row,
        with or without ``keep_on_failure``: the rows of its chunk before it are learned
        first, and a note gives its position in the stream.

    Returns
    -------
    model : OnlineLinearClassifier
        The model after the stream (the resumed one if a checkpoint was loaded).

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> import onlinear
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(1000, 5)); y = (X[:, 0] > 0).astype(int)
    >>> chunks = [(X[i:i + 64], y[i:i + 64]) for i in range(0, 1000, 64)]
    >>> path = os.path.join(tempfile.mkdtemp(), "pa.onlinear")
    >>> model = onlinear.learn_stream(onlinear.make("pa"), chunks, classes=[0, 1],
    ...                               checkpoint=path, checkpoint_every=300)
    >>> model.n_seen_, model.n_mistakes_, onlinear.read_header(path)["metadata"]["stream_examples"]
    (1000, 47, 1000)
    """
    if checkpoint_every is not None and (isinstance(checkpoint_every, bool) or not isinstance(
            checkpoint_every, (int, np.integer)) or checkpoint_every < 1):
        raise ValueError(f"checkpoint_every must be a positive integer; got "
                         f"{checkpoint_every!r}.")
    if checkpoint_every is not None:
        # (a NumPy integer would carry the stream's arithmetic in its own width: np.int8(100)
        # overflows at the 128th example, and it has no bit_length)
        checkpoint_every = int(checkpoint_every)
    if checkpoint_every is not None and checkpoint is None:
        raise ValueError("checkpoint_every needs a checkpoint file.")
    if checkpoint is not None:
        remove_stale_temporaries(checkpoint, no_other_writer=True)  # a write a crash cut short
    done = 0
    before = _counters(model)  # a model trained before this stream: report this stream only
    if resume and checkpoint is not None and os.path.exists(checkpoint):
        model, done, before = _resumed(model, checkpoint)
    metadata = {STREAM_POSITION: done, "counters_before_stream": before}
    tracker = _Tracker(model, done, before, report)
    skip, saved = done, done
    stream = iter(chunks)
    for number in itertools.count(1):  # (a chunk's number, named in its errors)
        try:
            X, y = next(stream)
        except StopIteration:
            break
        except BaseException as error:  # (between two chunks: the model is whole)
            if keep_on_failure:
                _keep(model, checkpoint, metadata, done, saved, error)
            raise
        try:
            X = _examples(X, number)
        except ValueError as error:  # (refused before any of its rows: the model is whole)
            if keep_on_failure:
                _keep(model, checkpoint, metadata, done, saved, error)
            raise
        n = int(X.shape[0])
        labels = _count(y)
        if labels != n:  # (a piece of it would be learned before partial_fit saw the rest)
            error = ValueError(f"a chunk of the stream has {n:,} rows and {labels} labels: "
                               "each row needs its label.")
            if keep_on_failure:
                _keep(model, checkpoint, metadata, done, saved, error)
            raise error
        if skip >= n:  # learned before the resume
            skip -= n
            continue
        if skip:
            X, y = X[skip:], y[skip:]
            n, skip = n - skip, 0
        start = 0
        while start < n:
            stop = min(n, start + _until_next_stop(done, checkpoint_every))
            failure = None
            try:
                # (a piece refused before any of its rows is learned leaves the model as it
                # was: narrower too, if the piece widened it)
                with (model._unchanged_on_error() if _widens(model, X, grow)
                      else contextlib.nullcontext()):
                    X = _fit_width(model, X, grow)
                    whole = start == 0 and stop == X.shape[0]
                    try:
                        model.partial_fit(X if whole else _rows(X, start, stop),
                                          y if whole else y[start:stop],
                                          classes=classes)
                    except ValueError as error:  # refused, the model left as it was
                        learned = _learn_before(model, X, y, start, error, done, classes)
                        if learned == done:
                            raise
                        failure, done = error, learned
            except ValueError as error:
                failure = error
            if failure is not None:
                try:
                    tracker.after(done)
                except BaseException as error:  # (the report failed too: its error is raised,
                    error.__context__ = failure  # shown after the refusal; the model kept)
                    failure = error
                if keep_on_failure:
                    _keep(model, checkpoint, metadata, done, saved, failure)
                raise failure
            done += stop - start
            start = stop
            try:
                tracker.after(done)
            except BaseException as error:  # (the report runs between examples: the model is
                if keep_on_failure:  # whole, as when the chunks fail)
                    _keep(model, checkpoint, metadata, done, saved, error)
                raise
            if checkpoint_every is not None and done % checkpoint_every == 0:
                saved = _save_checkpoint(model, checkpoint, metadata, done, saved,
                                         keep_on_failure)
        X = y = None  # (the next chunk is read without this one in memory)
    if skip:
        raise ValueError(f"the checkpoint has learned {done} examples, but the stream has only "
                         f"{done - skip}: is it the same stream?")
    try:
        tracker.finish(done)
    except BaseException as error:  # (after the last example, the final checkpoint not saved)
        if keep_on_failure:
            _keep(model, checkpoint, metadata, done, saved, error)
        raise
    if checkpoint is not None and hasattr(model, "classes_"):
        _save_checkpoint(model, checkpoint, metadata, done, saved, keep_on_failure)
    return model


def _learn_before(model, X, y, start, error, done, classes):
    """After ``model`` refused the rows of ``X`` from ``start`` with ``error`` (and learned
    none of them): if the error names the first row it refused
    (:class:`~onlinear.estimators.checks.RowRefusedError`), the rows before it learned, so that
    the stream stops at the bad example and not at the start of the piece it fell in; returns
    the examples of the stream learned then."""
    from .estimators.checks import RowRefusedError  # (loaded with the model's estimator)

    row = int(error.row) if isinstance(error, RowRefusedError) else None  # (a position)
    if not row:
        return done
    try:
        model.partial_fit(_rows(X, start, start + row), y[start:start + row],
                          classes=classes)
    except ValueError:  # (refused in turn, the model left as it was: stop where it stands)
        return done
    error.add_note(f"(the stream's example {done + row + 1:,} was refused; the "
                   f"{done + row:,} before it are learned)")
    return done + row


def _keep(model, checkpoint, metadata, done, saved, error):
    """Save ``model``, which has learned ``done`` examples of the stream, to ``checkpoint`` as
    the stream fails with ``error`` (unless it holds them already), and note it on the
    error."""
    if checkpoint is None:
        return
    where = os.fspath(checkpoint)
    if done > saved and hasattr(model, "classes_"):
        try:
            save(model, checkpoint, metadata={**metadata, STREAM_POSITION: done})
        except Exception as failure:  # noqa: BLE001 - (the stream's error is the one to raise)
            error.add_note(f"the model learned could not be saved to {where}: {failure}; "
                           f"{_held(checkpoint, saved)}")
            return
        error.add_note(f"saved {where}: the model after {done:,} examples of the stream (a "
                       "checkpoint: resuming continues it)")
    elif done > 0 and os.path.exists(checkpoint):
        error.add_note(f"{where} holds the model after {done:,} examples of the stream (a "
                       "checkpoint: resuming continues it)")
    else:
        error.add_note(f"nothing learned from the stream: {where} "
                       f"{'left as it was' if os.path.exists(checkpoint) else 'not written'}")


def _save_checkpoint(model, checkpoint, metadata, done, saved, keep_on_failure):
    """Save ``model`` to ``checkpoint`` as the checkpoint after ``done`` examples of the stream;
    returns ``done``, the examples it holds now.  If the save fails (a full disk), the write
    being atomic, the file still holds the checkpoint of ``saved`` examples: with
    ``keep_on_failure`` the error says so (the save is not tried again, as :func:`_keep`
    would: it would fail the same way)."""
    try:
        save(model, checkpoint, metadata={**metadata, STREAM_POSITION: done})
    except BaseException as error:
        if keep_on_failure:
            error.add_note(f"the checkpoint after {done:,} examples of the stream could not be "
                           f"saved to {os.fspath(checkpoint)}; {_held(checkpoint, saved)}")
        raise
    return done


def _held(checkpoint, saved):
    """What ``checkpoint``, not written now, holds: the checkpoint of the ``saved`` examples
    this stream learned before, or whatever it held before the stream."""
    where = os.fspath(checkpoint)
    if not os.path.exists(checkpoint):
        return f"{where} not written"
    if saved > 0:
        return (f"{where} still holds the model after {saved:,} examples of the stream (a "
                "checkpoint: resuming continues it)")
    return f"{where} left as it was"


def resumable(model: OnlineLinearClassifier,
              checkpoint: str | os.PathLike) -> OnlineLinearClassifier:
    """The model of ``checkpoint``, after checking it is a checkpoint of a stream (see
    :func:`learn_stream`) that continues ``model``: the same estimator with the same
    hyperparameters.  A command calls it before reading a stream, so that resuming with
    other hyperparameters fails at once.

    Parameters
    ----------
    model : OnlineLinearClassifier
        The model the stream would train.
    checkpoint : str or path-like
        An existing checkpoint file.

    Returns
    -------
    OnlineLinearClassifier
        The checkpoint's model.

    Raises
    ------
    ValueError
        A model file that is no checkpoint of a stream, or another estimator, or other
        hyperparameters (each named with both values).
    """
    return _resumed(model, checkpoint)[0]


def _resumed(model, checkpoint):
    """The checkpoint's model, stream position and counters before the stream, after checking
    it continues ``model``."""
    metadata = read_header(checkpoint).get("metadata") or {}
    position = metadata.get(STREAM_POSITION)
    before = metadata.get("counters_before_stream")
    if not isinstance(position, int) or isinstance(position, bool) or position < 0 or not (
            isinstance(before, list) and len(before) == 2
            and all(isinstance(c, int) for c in before)):
        raise ValueError(f"{os.fspath(checkpoint)} is a model file but not a checkpoint of a "
                         "stream (no stream position): cannot resume from it.")
    saved = load(checkpoint)
    if type(saved) is not type(model):
        raise ValueError(f"the checkpoint {os.fspath(checkpoint)} holds a "
                         f"{type(saved).__name__}, not a {type(model).__name__}: resume with "
                         "the same algorithm and parameters.")
    theirs, ours = saved.get_params(), model.get_params()
    differ = [key for key in sorted(set(theirs) | set(ours))
              if not same_hyperparameter(theirs.get(key), ours.get(key))]
    if differ:
        listed = ", ".join(f"{key}={theirs.get(key)!r} (given: {ours.get(key)!r})"
                           for key in differ)
        raise ValueError(f"the checkpoint {os.fspath(checkpoint)} holds a "
                         f"{type(saved).__name__} with other hyperparameters than the model "
                         f"to train: {listed}; resume with the same algorithm and parameters.")
    return saved, position, before


def same_hyperparameter(saved, given):
    """Whether a hyperparameter read back from a file (``saved``) is the one ``given``: a
    ``RandomState`` by its state (a file holds a copy, not the object), a sequence by its items
    (a tuple or an array comes back as a list), the rest by ``==``."""
    if isinstance(saved, np.random.RandomState) and isinstance(given, np.random.RandomState):
        return all(np.array_equal(a, b) for a, b in zip(saved.get_state(), given.get_state()))
    if isinstance(given, (tuple, list, np.ndarray)) and isinstance(saved, (tuple, list,
                                                                          np.ndarray)):
        return np.asarray(saved, dtype=object).tolist() == np.asarray(given,
                                                                      dtype=object).tolist()
    try:
        return bool(saved == given)
    except (ValueError, TypeError):  # (an array's elementwise ==: not one truth value)
        return False


def _count(y):
    """The number of targets of a chunk (rows of an indicator matrix), or None."""
    try:
        return np.shape(y)[0] if hasattr(y, "shape") else len(y)
    except (TypeError, IndexError):
        return None


def _examples(X, number):
    """The examples ``X`` of the stream's chunk ``number`` (from 1) as the stream reads them:
    sliced by rows, with a ``shape``.  A dense array, a CSR matrix or a DataFrame (anything of
    two dimensions but a sparse matrix) is taken as it is, no copy; a sparse matrix of another
    format (COO, CSC, DIA, BSR…, which ``partial_fit`` takes) as CSR; a list of rows, or
    another array-like, as the estimators' validation converts it (scikit-learn's
    ``check_array``, to the dtypes they take), so that ``partial_fit`` converts nothing more.
    Anything else is refused naming the chunk."""
    if sp.issparse(X):
        if X.ndim == 2:
            return X if X.format == "csr" else X.tocsr()
        reason = f"a sparse array of {X.ndim} dimension(s)"
    elif len(getattr(X, "shape", ())) == 2:
        return X
    elif isinstance(X, (list, tuple)) and not X:  # (a batch of no rows: skipped, as any)
        return np.empty((0, 0))
    else:
        from sklearn.utils.validation import check_array  # (loaded with the estimators)

        from .estimators.checks import ROW_DTYPES

        try:
            return check_array(X, accept_sparse=False, dtype=ROW_DTYPES, order="C",
                               ensure_all_finite=False, ensure_min_samples=0,
                               ensure_min_features=0, input_name="X")
        except (TypeError, ValueError) as error:  # (1-D, ragged, not numbers…)
            raise _not_examples(X, number, error) from error
    raise _not_examples(X, number, reason)


def _not_examples(X, number, reason):
    """The error refusing the ``X`` of chunk ``number``, for ``reason``."""
    return ValueError(f"the stream's chunk {number:,} has an X ({type(X).__name__}) that is "
                      f"not a matrix of examples: {str(reason).rstrip('.')}.  Give each "
                      "chunk's X as a 2-D array, a sparse matrix or a list of rows.")


def _counters(model):
    if not hasattr(model, "classes_"):
        return [0, 0]
    return [model.n_mistakes_, model.n_updates_]


def _until_next_stop(done, every):
    """Examples until the next checkpoint or report (1, 2, 4, …) after ``done``.  Both are
    Python ints (:func:`learn_stream` converts a NumPy ``checkpoint_every``: one has no
    ``bit_length``, and a narrow one overflows)."""
    report = 1 << done.bit_length()  # the next power of two above done
    stops = [report - done]
    if every is not None:
        stops.append(every - done % every)
    return min(stops)


def _rows(X, start, stop):
    """Rows ``start:stop`` of ``X``: of a CSR matrix, views of its arrays if they are at least
    half of them (scipy copies a smaller part, and its slice copies any), so that learning a
    chunk in parts copies less than half of it."""
    if not (sp.issparse(X) and X.format == "csr"):
        return X[start:stop]
    first, last = X.indptr[start], X.indptr[stop]
    rows = type(X)((X.data[first:last], X.indices[first:last],
                    X.indptr[start:stop + 1] - first), shape=(stop - start, X.shape[1]))
    rows.has_canonical_format = X.has_canonical_format  # (a part of the same arrays)
    return rows


def _widens(model, X, grow):
    """Whether :func:`_fit_width` widens the started ``model`` for ``X``."""
    width = getattr(model, "n_features_in_", None)
    return grow and width is not None and X.shape[1] > width


def _fit_width(model, X, grow):
    """``X`` as wide as the model, the model widened first if ``X`` is wider (a first chunk of
    no features, rows of labels only, as one feature of zeros: a model has at least one, as
    :func:`onlinear.data.load_libsvm` reads such a file)."""
    width = getattr(model, "n_features_in_", None)
    if width is None:
        return X if X.shape[1] > 0 else padded(X, 1)
    if X.shape[1] == width:
        return X
    if X.shape[1] > width:
        if not grow:
            raise ValueError(f"a row has {X.shape[1]} features, but the model has {width} "
                             "(and growing is off).")
        model.grow_features(X.shape[1])
        return X
    return padded(X, width)


def padded(X, width):
    """``X`` (no wider than ``width``) with zero features appended up to ``width``."""
    if X.shape[1] == width:
        return X
    if sp.issparse(X):
        # the same arrays, wider: no copy of a chunk (its indices all lie below its width)
        X = X.tocsr()
        wider = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], width))
        wider.has_canonical_format = X.has_canonical_format  # (the arrays are the same)
        return wider
    return np.pad(np.asarray(X), ((0, 0), (0, width - X.shape[1])))


class _Tracker:
    """Progressive-validation reports on the doubling schedule."""

    def __init__(self, model, done, before, report):
        self.report = report
        self.model = model
        self.before = before
        self.last = (done, self._counters()[0], time.perf_counter())

    def _counters(self):
        mistakes, updates = _counters(self.model)
        return mistakes - self.before[0], updates - self.before[1]

    def after(self, done):
        if self.report is not None and done & (done - 1) == 0:  # a power of two
            self._emit(done)

    def finish(self, done):
        if self.report is not None and done != self.last[0]:
            self._emit(done)

    def _emit(self, done):
        examples, mistakes, then = self.last
        now = time.perf_counter()
        current, updates = self._counters()
        self.report(Progress(done, current, updates, current - mistakes, done - examples,
                             now - then))
        self.last = (done, current, now)
