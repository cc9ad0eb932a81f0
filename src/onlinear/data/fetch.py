"""Download a data file (or a catalogue set's files) with pooch and verify its SHA-256.

pooch (https://www.fatiando.org/pooch) does the transfer (requests for HTTP(S), ftplib for
FTP), checks the digest, retries a failed attempt and moves the file into place only once
verified.  What is left here is what pooch leaves to its caller: the catalogue's mirrors
(tried in turn), ``file://`` addresses, refusing a file name that would leave the destination
folder, keeping a verified copy unless ``force``, removing the folders a failed download
created, and errors of onlinear's own classes that name the address.
"""
from __future__ import annotations

import contextlib
import ftplib
import glob
import logging
import os
import re
import shutil
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import warnings
from pathlib import Path

from .catalogue import DATASETS

try:  # a lock tells a live download's staging folder from one a killed process left behind
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: a killed download's folder stays
    fcntl = None

__all__ = ["fetch", "DownloadError", "ChecksumError", "RETRIES", "check_digest"]

RETRIES = 2
"""Further attempts at an address after a transient failure (pooch's ``retry_if_failed``):
a connection refused or reset, a time-out, a transfer that breaks off, an HTTP 408, 425, 429
or 5xx answer, or a digest mismatch (a corrupted transfer).  pooch waits 1 s, then 2 s."""

_CHUNK = 1 << 20
_USER_AGENT = "onlinear (python pooch)"
_SCHEMES = ("http", "https", "ftp", "file")
_TRANSIENT_STATUS = {408, 425, 429}  # and every 5xx


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

    The transfer is pooch's (:data:`RETRIES` further attempts after a transient failure,
    with a wait between them).  Each download goes to a hidden ``.<name>.*.part`` folder
    beside the target and the file is moved into place only once complete (as long as the
    server announced) and verified, so an interrupted, truncated or bad download never
    leaves a file under the final name; a failed download removes its partial file and the
    folders it created, and the next fetch removes what a killed process left.  Nothing is
    written outside ``dest_dir``.  A file already present is kept if its SHA-256 is the
    expected one (or, with no digest to check, if it exists), unless ``force``; a failed
    ``force`` download keeps it.

    Parameters
    ----------
    name_or_url : str
        A name of :data:`onlinear.data.DATASETS` (its files go to ``dest_dir/<sub-folder>/``,
        where :func:`onlinear.data.find_dataset` looks, and their catalogued digests are
        checked; the mirrors are tried in turn if the main address fails), or an
        ``http(s)://``, ``ftp://`` or ``file://`` URL (saved as
        ``dest_dir/<last part of the URL path>``, decoded; a name that decodes to a path,
        ``.`` or ``..`` is refused).
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
        public address.
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
    sha256 = check_digest(sha256)
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


def check_digest(sha256):
    """``sha256`` in lower case if it is 64 hexadecimal digits (None stays None); else a
    ``ValueError`` saying what a digest is."""
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


def _fetch_file(urls, target, sha256, timeout, force):
    from pooch import file_hash

    if target.is_dir():
        raise ValueError(f"cannot save to {target}: it is a folder.")
    if target.exists() and not force and (
            sha256 is None or file_hash(str(target), alg="sha256") == sha256):
        return target
    errors = []
    for url in urls:  # pooch knows one address per file: the mirrors are tried here
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
    """Let pooch download ``url`` into a fresh staging folder beside ``target``, then rename.

    A fresh folder, rather than ``target``'s own, because pooch keeps a file that is already
    there with the right digest (``force`` must download anyway) and replaces a file only
    once the new one is verified (so a failed ``force`` keeps the old copy).  Folders created
    for the download are removed again if it fails.
    """
    import pooch
    import requests

    from ..persistence import new_file_mode

    created = _make_folders(target.parent)
    try:
        _remove_abandoned_staging(target)
        with _staging_folder(target) as staging:
            downloader = _Downloader(timeout, sha256 is not None)
            store = pooch.create(
                path=staging, base_url="", registry={target.name: sha256 and f"sha256:{sha256}"},
                urls={target.name: url},
                retry_if_failed=0 if urllib.parse.urlsplit(url).scheme == "file" else RETRIES)
            try:
                with _quiet(pooch.get_logger()):
                    downloaded = store.fetch(target.name, downloader=downloader)
            except requests.RequestException as error:
                raise DownloadError(f"could not download {url}: {_reason(error)}"
                                    f"{downloader.attempts_note()}") from error
            except ValueError as error:  # pooch's digest check (the downloader raises no other)
                raise ChecksumError(f"{url}: SHA-256 mismatch: expected {sha256}, got "
                                    f"{downloader.digest}; the downloaded file was deleted"
                                    f"{downloader.attempts_note()}") from error
            # pooch's temporary file is private (0600): give the file the mode a plain open
            # would, so that a data folder shared with others stays readable to them
            os.chmod(downloaded, new_file_mode())
            os.replace(downloaded, target)
    except BaseException:
        for folder in created:
            with contextlib.suppress(OSError):  # not empty: something else is in it
                folder.rmdir()
        raise


class _Downloader:
    """pooch's downloader for the URL's scheme, with onlinear's errors and a record of tries.

    pooch retries a ``requests.RequestException`` (and a digest mismatch); a failure that
    another attempt cannot mend (HTTP 404, an FTP 5xx reply, a missing ``file://`` file) is
    raised as a :class:`DownloadError`, which pooch passes on at once.
    """

    def __init__(self, timeout, record_digest):
        self.timeout, self.record_digest = timeout, record_digest
        self.attempts, self.digest = 0, None

    def attempts_note(self):
        return f" ({self.attempts} attempts)" if self.attempts > 1 else ""

    def __call__(self, url, output_file, store):
        import pooch
        import requests

        self.attempts += 1
        scheme = urllib.parse.urlsplit(url).scheme
        try:
            if scheme == "file":  # pooch has no downloader for local files
                with urllib.request.urlopen(url, timeout=self.timeout) as source, \
                        open(output_file, "wb") as out:
                    shutil.copyfileobj(source, out, _CHUNK)
            elif scheme == "ftp":
                # pooch's FTPDownloader takes the whole network location for the host name:
                # the port and the user go to it separately
                parts = urllib.parse.urlsplit(url)
                pooch.FTPDownloader(
                    port=parts.port or 21, timeout=self.timeout, chunk_size=_CHUNK,
                    username=urllib.parse.unquote(parts.username or "anonymous"),
                    password=urllib.parse.unquote(parts.password or ""),
                )(parts._replace(netloc=parts.hostname or "").geturl(), output_file, store)
            else:
                self._http(url, output_file)
        except requests.HTTPError as error:
            status = error.response.status_code
            if status >= 500 or status in _TRANSIENT_STATUS:
                raise
            raise DownloadError(f"could not download {url}: {_reason(error)}") from error
        except (requests.exceptions.InvalidURL, requests.exceptions.InvalidSchema,
                requests.exceptions.MissingSchema) as error:
            raise DownloadError(f"could not download {url}: {_reason(error)}") from error
        except requests.RequestException:
            raise
        except (urllib.error.URLError, *ftplib.all_errors) as error:  # file:// and ftp://
            if scheme == "ftp" and not isinstance(error, ftplib.error_perm):
                # a time-out, a dropped connection, a 4xx reply: worth another attempt
                raise requests.ConnectionError(error) from error
            reason = getattr(error, "reason", None) or error
            raise DownloadError(f"could not download {url}: {reason}") from error
        if self.record_digest:  # for the message, should pooch find a mismatch
            self.digest = pooch.file_hash(output_file, alg="sha256")


    def _http(self, url, output_file):
        """Download ``url`` over HTTP(S) with requests (as pooch's ``HTTPDownloader`` does), but
        only a transfer whose end can be checked: one that announces its length (urllib3 then
        raises on a shorter body) or comes in chunks (whose last one marks the end), or whose
        digest is known.  A body that simply ends when the connection closes could be cut
        anywhere and look whole: without a digest it is refused before it is read."""
        import requests

        with requests.get(url, stream=True, timeout=self.timeout,
                          headers={"User-Agent": _USER_AGENT}) as response:
            response.raise_for_status()
            framed = "content-length" in response.headers or \
                "chunked" in response.headers.get("transfer-encoding", "").lower()
            if not framed and not self.record_digest:
                raise DownloadError(
                    f"could not download {url}: the server announces no length (no "
                    "Content-Length, no chunked transfer), so a transfer cut short could not "
                    "be told from a whole one; give the file's sha256 to check it.")
            with contextlib.ExitStack() as stack:
                out = output_file if hasattr(output_file, "write") else \
                    stack.enter_context(open(output_file, "wb"))
                for chunk in response.iter_content(chunk_size=_CHUNK):
                    out.write(chunk)


def _reason(error):
    """What went wrong, in a few words, from the innermost error requests and urllib3 wrap."""
    import requests
    import urllib3.exceptions

    if isinstance(error, requests.HTTPError):
        return f"HTTP Error {error.response.status_code}: {error.response.reason}"
    innermost = error
    for _ in range(10):  # a handful of wrappers at most
        reason = getattr(innermost, "reason", None)
        inner = reason if isinstance(reason, BaseException) else (
            innermost.__cause__
            or next((a for a in innermost.args if isinstance(a, BaseException)), None))
        if inner is None:
            break
        innermost = inner
    if isinstance(innermost, urllib3.exceptions.IncompleteRead):
        return (f"the transfer broke off after {innermost.partial} of the "
                f"{innermost.partial + innermost.expected} bytes announced")
    if isinstance(innermost, OSError) and innermost.strerror:
        return innermost.strerror
    return str(innermost) or type(innermost).__name__


@contextlib.contextmanager
def _quiet(logger):
    """pooch logs every download at INFO level; the library stays silent unless the user
    set pooch's logger's level."""
    if logger.level != logging.NOTSET:
        yield
        return
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(logging.NOTSET)


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
def _staging_folder(target):
    """A fresh ``.<name>.*.part`` folder beside ``target``, locked while it is in use and
    removed with what is in it at the end."""
    staging = tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    descriptor = os.open(staging, os.O_RDONLY)
    try:
        if fcntl is not None:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield staging
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        os.close(descriptor)


def _remove_abandoned_staging(target):
    """Remove the staging folders of ``target`` that no live download holds (a killed one's)."""
    if fcntl is None:
        return
    for folder in target.parent.glob(f".{glob.escape(target.name)}.*.part"):
        if folder.is_symlink() or not folder.is_dir():
            continue
        with contextlib.suppress(OSError):
            descriptor = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # a live download: leave it alone
            finally:
                os.close(descriptor)
            shutil.rmtree(folder, ignore_errors=True)

