"""Download a data file (or a catalogue set's files) and verify its SHA-256."""
from __future__ import annotations

import contextlib
import hashlib
import http.client
import os
import re
import ssl
import urllib.error
import urllib.parse
import urllib.request
import warnings
from pathlib import Path

from .catalogue import DATASETS

try:  # a lock tells a live download's partial file from one a killed process left behind
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no lock, a partial file is overwritten
    fcntl = None

__all__ = ["fetch", "DownloadError", "ChecksumError"]

_CHUNK = 1 << 20
_USER_AGENT = "onlinear (python urllib)"
_SCHEMES = ("http", "https", "ftp", "file")


class DownloadError(OSError):
    """A file could not be downloaded (server down or unreachable, HTTP error, broken transfer).

    Parameters
    ----------
    message : str
        The address and what went wrong.
    """


class ChecksumError(ValueError):
    """A downloaded file's SHA-256 is not the expected one (the file was deleted).

    Parameters
    ----------
    message : str
        The file with the expected and the actual digest.
    """


def fetch(name_or_url: str, dest_dir: str | os.PathLike, sha256: str | None = None, *,
          timeout: float = 60.0, force: bool = False) -> Path | list[Path]:
    """Download a URL, or every file of a catalogue data set, into ``dest_dir``.

    The file is written to ``.<name>.part`` in the destination folder and renamed into place
    only once complete (as long as the server announced) and verified, so an interrupted,
    truncated or bad download never leaves a file under the final name; a failed download
    removes its partial file and the folders it created, and the partial file a killed
    process left is overwritten by the next fetch.  Nothing is written outside ``dest_dir``.
    A file already present is kept if its SHA-256 is the expected one (or, with no digest to
    check, if it exists), unless ``force``.

    Parameters
    ----------
    name_or_url : str
        A name of :data:`onlinear.data.DATASETS` (its files go to ``dest_dir/<sub-folder>/``,
        where :func:`onlinear.data.find_dataset` looks, and their catalogued digests are
        checked; mirrors are tried if the main address fails), or an ``http(s)://``,
        ``ftp://`` or ``file://`` URL (saved as ``dest_dir/<last part of the URL path>``,
        decoded; a name that decodes to a path, ``.`` or ``..`` is refused).
    dest_dir : str or path-like
        Created if missing.
    sha256 : str, optional
        Expected SHA-256 (hex) of the file at a URL.  Not accepted with a catalogue name.
    timeout : float, default=60
        Seconds to wait for the server at each step.
    force : bool, default=False
        Download even if the file is already there.

    Returns
    -------
    pathlib.Path, or a list of them for a catalogue name.

    Raises
    ------
    ChecksumError
        (a ``ValueError``) if the downloaded file's SHA-256 differs from the expected one; the
        file is deleted.
    DownloadError
        (an ``OSError``) if the server is down, refuses, answers with an HTTP error, or the
        transfer breaks or ends before the announced size; also for a catalogue file with no
        public address, or while another process is downloading the same file.
    ValueError
        For a bad ``sha256``, an unknown name, or a URL whose file name would leave
        ``dest_dir``.

    Examples
    --------
    >>> import hashlib, pathlib, tempfile
    >>> from onlinear.data import fetch
    >>> source = pathlib.Path(tempfile.mkdtemp()) / "numbers.txt"
    >>> _ = source.write_text("1 2 3\\n")
    >>> digest = hashlib.sha256(b"1 2 3\\n").hexdigest()
    >>> target = tempfile.mkdtemp()
    >>> fetch(source.as_uri(), target, sha256=digest).read_text()
    '1 2 3\\n'
    >>> fetch(source.as_uri(), tempfile.mkdtemp(), sha256="0" * 64)
    Traceback (most recent call last):
    ...
    onlinear.data.fetch.ChecksumError: file:///.../numbers.txt: SHA-256 mismatch: expected 000...000, got ...; the downloaded file was deleted
    """
    if name_or_url in DATASETS:
        if sha256 is not None:
            raise ValueError("sha256 is for a URL; a catalogue set carries its own digests.")
        return _fetch_dataset(DATASETS[name_or_url], Path(dest_dir), timeout, force)
    scheme = urllib.parse.urlsplit(name_or_url).scheme
    if scheme not in _SCHEMES:
        raise ValueError(f"{name_or_url!r} is neither a data set of the catalogue "
                         f"({sorted(DATASETS)}) nor a URL ({', '.join(_SCHEMES)}).")
    sha256 = _check_digest(sha256)
    name = _file_name(name_or_url)
    return _fetch_file([name_or_url], _inside(Path(dest_dir), name), sha256, timeout, force)


def _file_name(url):
    """The last segment of ``url``'s path, decoded, if it is a plain file name.

    Decoding can turn ``%2F`` into a separator and ``%2E%2E`` into the parent folder, so the
    decoded name is refused unless it names a file of the destination folder itself.
    """
    segment = urllib.parse.urlsplit(url).path.rstrip("/").rsplit("/", 1)[-1]
    name = urllib.parse.unquote(segment)
    if not name:
        raise ValueError(f"cannot name the file of {url!r}: its path is empty.")
    if (name in (".", "..") or any(c in name for c in "/\\\0")
            or os.path.splitdrive(name)[0]):
        raise ValueError(f"cannot save {url!r}: its file name {name!r} is not a plain file name "
                         "(it would leave the destination folder or name a folder).")
    return name


def _inside(dest_dir, relative):
    """``dest_dir / relative``, refused if it would resolve outside ``dest_dir``."""
    target = dest_dir / relative
    root = os.path.realpath(dest_dir)
    if os.path.commonpath([root, os.path.realpath(target.parent)]) != root or \
            target.name in ("", ".", ".."):
        raise ValueError(f"{relative!r} would be written outside {os.fspath(dest_dir)!r}.")
    return target


def _check_digest(sha256):
    if sha256 is None:
        return None
    if not isinstance(sha256, str) or not re.fullmatch(r"[0-9a-fA-F]{64}", sha256):
        raise ValueError(f"sha256 must be 64 hexadecimal digits; got {sha256!r}.")
    return sha256.lower()


def _fetch_dataset(entry, dest_dir, timeout, force):
    paths, unavailable = [], []
    for data_file in entry.files:
        target = _inside(dest_dir, data_file.path)
        if data_file.url is None:
            if not target.exists():
                unavailable.append(f"{data_file.path}: {data_file.note}")
            paths.append(target)
            continue
        if data_file.sha256 is None:
            warnings.warn(f"{data_file.path}: no published SHA-256 is known, so the download of "
                          f"{data_file.url} is not verified", UserWarning, stacklevel=3)
        urls = [data_file.url, *data_file.mirrors]
        paths.append(_fetch_file(urls, target, data_file.sha256, timeout, force))
    if unavailable:
        raise DownloadError(f"data set {entry.name!r}: no direct download for "
                            + "; ".join(unavailable))
    return paths


def _sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def _fetch_file(urls, target, sha256, timeout, force):
    if target.is_dir():
        raise ValueError(f"cannot save to {target}: it is a folder.")
    if target.exists() and not force and (sha256 is None or _sha256_of(target) == sha256):
        return target
    errors = []
    for url in urls:
        try:
            _download(url, target, sha256, timeout)
            return target
        except (DownloadError, ChecksumError) as error:
            errors.append(error)
    if len(errors) == 1:
        raise errors[0]
    kind = ChecksumError if all(isinstance(e, ChecksumError) for e in errors) else DownloadError
    raise kind(f"every address failed for {target.name}: " + "; ".join(map(str, errors)))


def _download(url, target, sha256, timeout):
    """Stream ``url`` into ``.<name>.part`` beside ``target``, check it, rename it.

    The partial file has a fixed name and is locked while written: a later fetch overwrites
    what a killed one left, and refuses to interfere with one still running.  Folders created
    for the download are removed again if it fails.
    """
    created = _make_folders(target.parent)
    partial = target.parent / f".{target.name}.part"
    try:
        with _locked_partial(partial, target) as out:
            digest, size, expected = hashlib.sha256(), 0, None
            request = urllib.request.Request(url, headers={"User-Agent": _USER_AGENT})
            try:
                with urllib.request.urlopen(request, timeout=timeout) as response:
                    expected = _announced_length(response)
                    while block := response.read(_CHUNK):
                        digest.update(block)
                        out.write(block)
                        size += len(block)
            except (urllib.error.URLError, http.client.HTTPException, ConnectionError,
                    TimeoutError, ssl.SSLError) as error:
                # HTTPError reads well as it is; other URLErrors wrap the socket's reason.
                reason = (error if isinstance(error, urllib.error.HTTPError)
                          else getattr(error, "reason", error))
                raise DownloadError(f"could not download {url}: {reason}") from error
            # urllib returns a short body without complaint when the connection drops.
            if expected is not None and size != expected:
                raise DownloadError(f"could not download {url}: the transfer broke off after "
                                    f"{size} of the {expected} bytes announced")
            actual = digest.hexdigest()
            if sha256 is not None and actual != sha256:
                raise ChecksumError(f"{url}: SHA-256 mismatch: expected {sha256}, got {actual}; "
                                    "the downloaded file was deleted")
            out.flush()
            os.fsync(out.fileno())
            os.replace(partial, target)
    except BaseException:
        for folder in created:
            with contextlib.suppress(OSError):  # not empty: something else is in it
                folder.rmdir()
        raise


def _announced_length(response):
    """The body size the server announced, or None (unknown, or of the encoded body only)."""
    length = response.headers.get("Content-Length")
    if length is None or response.headers.get("Content-Encoding", "identity") != "identity":
        return None
    try:
        return int(length)
    except ValueError:
        return None


def _make_folders(folder):
    """Create ``folder`` and its missing parents; the ones created, deepest first."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for path in reversed(missing):
        path.mkdir(exist_ok=True)
    return missing


@contextlib.contextmanager
def _locked_partial(partial, target):
    """The partial file, empty, opened for writing and locked by this process."""
    while True:
        if partial.is_symlink():  # never write through a link planted in the folder
            partial.unlink()
        descriptor = os.open(partial, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0),
                             0o644)
        try:
            if fcntl is not None:
                try:
                    fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    raise DownloadError(f"{target}: another download of this file is under way "
                                        f"(it holds {partial})") from None
            # The lock may be on a file that the download holding it has just renamed into
            # place: start again on the name's current file.
            if os.path.exists(partial) and os.path.samestat(os.fstat(descriptor),
                                                             os.stat(partial)):
                break
        except BaseException:
            os.close(descriptor)
            raise
        os.close(descriptor)
    out = os.fdopen(descriptor, "wb")
    try:
        out.truncate(0)
        yield out
    except BaseException:
        # Still locked: the partial file removed is this download's own.
        if os.path.exists(partial) and os.path.samestat(os.fstat(descriptor), os.stat(partial)):
            os.remove(partial)
        raise
    finally:
        out.close()
