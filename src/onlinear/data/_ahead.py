"""Reading the next chunk of a stream while this one is learned: a producer thread, one chunk
ahead, the chunks in their order.

The compiled reader parses without the GIL (and zlib, bz2 and lzma decompress without it), so
on a second core the next chunk is parsed while the compiled pass learns this one.  The
consumer sees exactly the sequence the reader yields — the same chunks in the same order, an
error where the reader raised it — so what is learned is bit-identical to a serial read.
"""
import queue
import threading

_DONE = object()
_POLL = 0.1  # seconds between looks at whether the consumer has gone


def read_ahead(chunks, depth=1):
    """Iterate ``chunks`` (an iterator) with a thread producing up to ``depth`` items ahead.

    Parameters
    ----------
    chunks : iterator
        The stream, consumed by the producer thread only.
    depth : int, default=1
        Items produced ahead of the consumer (each is held in memory until taken).

    Yields
    ------
    The items of ``chunks``, in order; an exception ``chunks`` raised is raised here, after the
    items before it.  Closing this generator early (a consumer that stops) stops the thread.

    Examples
    --------
    >>> list(read_ahead(iter(range(5))))
    [0, 1, 2, 3, 4]
    """
    handed = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def produce():
        def put(item):
            while not stop.is_set():
                try:
                    handed.put(item, timeout=_POLL)
                    return True
                except queue.Full:
                    continue
            return False

        try:
            for item in chunks:
                if not put((item, None)):
                    return
        except BaseException as error:  # handed over, raised in the consumer's thread
            put((_DONE, error))
            return
        finally:
            close = getattr(chunks, "close", None)
            if close is not None and stop.is_set():
                close()  # (the reader's files are closed in this thread, which used them)
        put((_DONE, None))

    producer = threading.Thread(target=produce, name="onlinear-read-ahead", daemon=True)
    producer.start()
    try:
        while True:
            item, error = handed.get()
            if item is _DONE:
                if error is not None:
                    raise error
                return
            yield item
    finally:
        stop.set()
        producer.join()
