"""Download a data file (or a catalogue set's files) and verify its SHA-256."""
import hashlib
import http.client
import os
import re
import ssl
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import warnings
from pathlib import Path

from .catalogue import DATASETS

__all__ = ["fetch", "DownloadError", "ChecksumError"]

_CHUNK = 1 << 20
_USER_AGENT = "onlinear (python urllib)"
_SCHEMES = ("http", "https", "ftp", "file")


class DownloadError(OSError):
    """A file could not be downloaded (server down or unreachable, HTTP error, broken transfer)."""


class ChecksumError(ValueError):
    """A downloaded file's SHA-256 is not the expected one (the file was deleted)."""


def fetch(name_or_url, dest_dir, sha256=None, *, timeout=60.0, force=False):
    """Download a URL, or every file of a catalogue data set, into ``dest_dir``.

    The file is written to a temporary file in the destination folder and renamed into place
    only once complete and verified, so an interrupted or bad download never leaves a partial
    file under the final name.  A file already present is kept if its SHA-256 is the expected
    one (or, with no digest to check, if it exists), unless ``force``.

    Parameters
    ----------
    name_or_url : str
        A name of :data:`onlinear.data.DATASETS` (its files go to ``dest_dir/<sub-folder>/``,
        where :func:`onlinear.data.find_dataset` looks, and their catalogued digests are
        checked; mirrors are tried if the main address fails), or an ``http(s)://``,
        ``ftp://`` or ``file://`` URL (saved as ``dest_dir/<last part of the URL path>``).
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
        transfer breaks; also for a catalogue file with no public address.

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
    url_path = urllib.parse.urlsplit(name_or_url).path
    name = urllib.parse.unquote(url_path.rstrip("/").rsplit("/", 1)[-1])
    if not name:
        raise ValueError(f"cannot name the file of {name_or_url!r}: its path is empty.")
    return _fetch_file([name_or_url], Path(dest_dir) / name, _check_digest(sha256), timeout, force)


def _check_digest(sha256):
    if sha256 is None:
        return None
    if not isinstance(sha256, str) or not re.fullmatch(r"[0-9a-fA-F]{64}", sha256):
        raise ValueError(f"sha256 must be 64 hexadecimal digits; got {sha256!r}.")
    return sha256.lower()


def _fetch_dataset(entry, dest_dir, timeout, force):
    paths, unavailable = [], []
    for data_file in entry.files:
        target = dest_dir / data_file.path
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
    """Stream ``url`` into a temporary file beside ``target``, check it, rename it."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                         suffix=".part")
    try:
        digest = hashlib.sha256()
        with os.fdopen(handle, "wb") as out:
            request = urllib.request.Request(url, headers={"User-Agent": _USER_AGENT})
            try:
                with urllib.request.urlopen(request, timeout=timeout) as response:
                    while block := response.read(_CHUNK):
                        digest.update(block)
                        out.write(block)
            except (urllib.error.URLError, http.client.HTTPException, ConnectionError,
                    TimeoutError, ssl.SSLError) as error:
                # HTTPError reads well as it is; other URLErrors wrap the socket's reason.
                reason = (error if isinstance(error, urllib.error.HTTPError)
                          else getattr(error, "reason", error))
                raise DownloadError(f"could not download {url}: {reason}") from error
            out.flush()
            os.fsync(out.fileno())
        actual = digest.hexdigest()
        if sha256 is not None and actual != sha256:
            raise ChecksumError(f"{url}: SHA-256 mismatch: expected {sha256}, got {actual}; "
                                "the downloaded file was deleted")
        os.chmod(temporary, 0o644)  # mkstemp makes it private; a data file need not be
        os.replace(temporary, target)
    except BaseException:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise
