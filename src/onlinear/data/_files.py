"""Opening data files whatever their compression; the error readers raise on bad content."""
import bz2
import gzip
import io
import lzma
import os
import sys
import zlib
from contextlib import contextmanager

# Compression is recognised by the file's first bytes, not its name, so that a file renamed
# without its suffix (or with a wrong one) still reads.
_MAGIC = ((b"\x1f\x8b", gzip.open), (b"BZh", bz2.open), (b"\xfd7zXZ\x00", lzma.open))


class FileFormatError(ValueError):
    """A data file whose content does not follow its format.

    The message names the file and, where one line is at fault, its number (1-based);
    both are also kept as the attributes ``path`` and ``line`` (``None`` when no single line is).

    Parameters
    ----------
    path : str or path-like
        The file.
    message : str
        What is wrong with it.
    line : int or None, default=None
        The 1-based number of the faulty line, or None when no single line is at fault.

    Attributes
    ----------
    path : str
        The file.
    line : int or None
        The faulty line, or None.
    """

    def __init__(self, path, message, line=None):
        self.path = display_name(path)
        self.line = line
        where = f"{self.path}, line {line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")


#: The name standing for standard input where a data file is expected.
STDIN = "-"


def open_binary(path):
    """Open ``path`` for reading bytes, decompressing gzip, bzip2 or xz transparently;
    ``"-"`` reads standard input (compressed or not), a binary file object is read as it is
    (the caller keeps it open).

    A missing file raises :class:`FileNotFoundError` naming it.
    """
    if path == STDIN or hasattr(path, "read"):
        raw = sys.stdin.buffer if path == STDIN else path
        if not hasattr(raw, "peek"):
            raw = io.BufferedReader(raw)
        head = raw.peek(6)[:6]  # without consuming: a pipe cannot be read twice
        for magic, opener in _MAGIC:
            if head.startswith(magic):
                return opener(_Unclosed(raw), "rb")
        return _Unclosed(raw)
    with open(path, "rb") as handle:
        head = handle.read(6)
    for magic, opener in _MAGIC:
        if head.startswith(magic):
            return opener(path, "rb")
    return open(path, "rb")


class _Unclosed:
    """A reader over a stream the caller owns (standard input): closing it leaves the stream
    open."""

    name = ""  # what gzip records as the member's name

    def __init__(self, stream):
        self._stream = stream

    def read(self, size=-1):
        return self._stream.read(size)

    def read1(self, size=-1):
        """At most ``size`` bytes, from at most one read of the stream: what it holds, or
        else waits for (a pipe's writer may be slow); a stream without ``read1``, ``read``."""
        read1 = getattr(self._stream, "read1", None)
        return read1(size) if read1 is not None else self._stream.read(size)

    def readline(self, size=-1):
        return self._stream.readline(size)

    def __iter__(self):
        return iter(self._stream.readline, b"")

    def readable(self):
        return True

    def seekable(self):
        return False

    def close(self):
        pass

    closed = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def display_name(path):
    """How messages name a data source."""
    if path == STDIN:
        return "<stdin>"
    if hasattr(path, "read"):
        return getattr(path, "name", "<stream>")
    return os.fspath(path)


@contextmanager
def reading(path):
    """Turn the errors of a truncated or corrupt compressed file into a FileFormatError naming it."""
    try:
        yield
    except (EOFError, gzip.BadGzipFile, lzma.LZMAError, zlib.error) as error:
        raise FileFormatError(path, f"corrupt or truncated compressed data ({error})") from error
    except OSError as error:
        # bz2 reports bad data as a bare OSError ("Invalid data stream") with no errno; an
        # error of the system (a disk's, a permission's) carries one, and is left as it is
        if type(error) is not OSError or error.errno is not None:
            raise
        raise FileFormatError(path, f"corrupt or truncated compressed data ({error})") from error


def shorten(line, limit=80):
    """``line`` (bytes or str) as a short printable excerpt for an error message."""
    if isinstance(line, bytes):
        line = line.decode("latin-1")
    line = line.rstrip("\r\n")
    return repr(line if len(line) <= limit else line[:limit] + "...")
