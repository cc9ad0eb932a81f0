"""Hostile files, URLs and command lines: every failure names the file (and line) and the
problem, nothing is written outside the folder the user named, no partial file is left or
mistaken for data, a fitted model is never half-changed (issue "Nothing silently wrong").

The HTTP server runs on 127.0.0.1 with an ephemeral port, serves fixed bytes for any path,
and every slow answer ends by itself within seconds.
"""
import fcntl
import gzip
import http.server
import io
import os
import re
import subprocess
import sys
import tarfile
import threading
import time
import urllib.parse
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import onlinear
from cli_runner import onlinear_cli
from model_state import model_vars
from onlinear.data import (
    DATASETS,
    ChecksumError,
    DataFile,
    Dataset,
    DownloadError,
    FileFormatError,
    fetch,
    iter_libsvm_chunks,
    load_csv,
    load_idx,
    load_libsvm,
    read_20newsgroups,
    read_reuters21578,
)

PAYLOAD = b"1 1:0.5\n2 2:1\n"
CLAIMED = 1000  # the size that /truncated and /slow/ announce


@pytest.fixture
def waits(monkeypatch):
    """pooch's waits between attempts (1 s, then 2 s), recorded instead of slept."""
    import pooch.core

    recorded = []
    monkeypatch.setattr(pooch.core, "time", SimpleNamespace(sleep=recorded.append))
    return recorded


def tree(folder):
    """Every path under ``folder`` (relative), to show that nothing else was written."""
    return sorted(str(p.relative_to(folder)) for p in Path(folder).rglob("*"))


# ================================================================================= fetch
class HostileHandler(http.server.BaseHTTPRequestHandler):
    """``/truncated``: announces CLAIMED bytes, sends 100, hangs up.  ``/slow/...``:
    announces CLAIMED bytes, sends 10, then waits (at most 20 s) for the client to go.
    ``/unframed/...``: no length, no chunks: 100 bytes of a longer file, then hangs up (a body
    that ends with the connection, which a cut cannot be told from).  Anything else: PAYLOAD."""

    stop = None  # a threading.Event set at teardown

    def do_GET(self):
        self.send_response(200)
        path = urllib.parse.urlsplit(self.path).path
        if path.startswith("/unframed/"):
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(PAYLOAD[:5])
            self.wfile.flush()
            self.close_connection = True
            return
        if path == "/truncated" or path.startswith("/slow/"):
            self.send_header("Content-Length", str(CLAIMED))
            self.end_headers()
            self.wfile.write(b"x" * (100 if path == "/truncated" else 10))
            self.wfile.flush()
            if path.startswith("/slow/"):
                self.stop.wait(20)
            self.close_connection = True
            return
        self.send_header("Content-Length", str(len(PAYLOAD)))
        self.end_headers()
        self.wfile.write(PAYLOAD)

    def log_message(self, *args):
        pass


@pytest.fixture
def hostile_server():
    stop = threading.Event()
    handler = type("Handler", (HostileHandler,), {"stop": stop})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    stop.set()
    httpd.shutdown()
    httpd.server_close()
    thread.join()


@pytest.mark.parametrize("segment", [
    "..%2F..%2Fescape.txt", "%2E%2E%2Fescape.txt", "sub%2F..%2F..%2Fescape.txt", "%2E%2E",
    "%2E", "..%5Cescape.txt", "ABSOLUTE", "escape%00.txt",
])
def test_fetch_never_writes_outside_the_destination(hostile_server, tmp_path, segment):
    if segment == "ABSOLUTE":  # %2Ftmp%2F...: an absolute path once decoded
        segment = urllib.parse.quote(str(tmp_path / "escape.txt"), safe="")
    dest = tmp_path / "a" / "dest"
    before = tree(tmp_path)
    with pytest.raises(ValueError, match="not a plain file name"):
        fetch(f"{hostile_server}/{segment}", dest)
    assert tree(tmp_path) == before
    assert not (tmp_path / "escape.txt").exists()


def test_fetch_refuses_a_catalogue_path_that_leaves_the_destination(hostile_server, tmp_path,
                                                                   monkeypatch):
    entry = Dataset("evil", "path escapes", "libsvm", (
        DataFile("../escape.txt", f"{hostile_server}/small.txt", None),), 2, None, 2, 2, {})
    monkeypatch.setitem(DATASETS, "evil", entry)
    (tmp_path / "dest").mkdir()
    with pytest.raises(ValueError, match="outside"):
        fetch("evil", tmp_path / "dest")
    assert tree(tmp_path) == ["dest"]


def test_fetch_a_name_that_is_a_folder_is_refused(hostile_server, tmp_path):
    (tmp_path / "dest" / "small.txt").mkdir(parents=True)
    with pytest.raises(ValueError, match="it is a folder"):
        fetch(f"{hostile_server}/small.txt", tmp_path / "dest")
    assert tree(tmp_path) == ["dest", "dest/small.txt"]


def test_fetch_a_truncated_download_is_an_error_even_without_a_digest(hostile_server, tmp_path,
                                                                      waits):
    with pytest.raises(DownloadError, match=f"broke off after 100 of the {CLAIMED} bytes "
                                            r"announced \(3 attempts\)"):
        fetch(f"{hostile_server}/truncated", tmp_path / "new" / "dest")
    assert waits == [1, 2]  # a broken transfer is worth another attempt
    assert tree(tmp_path) == []  # no file, no partial file, not even the folders it made
    (tmp_path / "mine").mkdir()
    with pytest.raises(DownloadError, match="broke off"):
        fetch(f"{hostile_server}/truncated", tmp_path / "mine")
    assert tree(tmp_path) == ["mine"]  # the user's own folder stays


def test_fetch_a_body_without_length_is_kept_only_when_its_digest_says_whole(
        hostile_server, tmp_path, waits):
    """A server that sends no Content-Length and no chunks ends the body by closing the
    connection: a cut looks whole.  Without a digest, nothing is kept; with one, the digest
    tells (here the body is cut: a checksum error, the file deleted)."""
    url = f"{hostile_server}/unframed/data.txt"
    with pytest.raises(DownloadError, match="no Content-Length.*sha256"):
        fetch(url, tmp_path / "dest")
    assert tree(tmp_path) == []
    import hashlib

    with pytest.raises(ChecksumError, match="SHA-256 mismatch"):
        fetch(url, tmp_path / "dest", sha256=hashlib.sha256(PAYLOAD).hexdigest())
    assert tree(tmp_path) == []
    whole = hashlib.sha256(PAYLOAD[:5]).hexdigest()  # what this server sends, whole
    assert fetch(url, tmp_path / "dest", sha256=whole).read_bytes() == PAYLOAD[:5]


def test_fetch_removes_a_killed_downloads_staging_folder(hostile_server, tmp_path):
    dest = tmp_path / "dest"
    dest.mkdir()
    stale = dest / ".small.txt.k1ll3d.part"  # no live download holds it
    stale.mkdir()
    (stale / "tmpabc").write_bytes(b"left by a killed fetch" * 100)
    (dest / ".other.txt.k1ll3d.part").mkdir()  # another file's: not this fetch's business
    assert fetch(f"{hostile_server}/small.txt", dest).read_bytes() == PAYLOAD
    assert tree(tmp_path) == ["dest", "dest/.other.txt.k1ll3d.part", "dest/small.txt"]


def test_fetch_after_a_killed_fetch(hostile_server, tmp_path):
    dest = tmp_path / "dest"
    code = ("import sys; from onlinear.data import fetch; "
            "fetch(sys.argv[1], sys.argv[2], timeout=30)")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    process = subprocess.Popen([sys.executable, "-c", code, f"{hostile_server}/slow/data.txt",
                                str(dest)], env=env)
    try:
        deadline = time.monotonic() + 60
        # pooch's temporary file in the staging folder: made before connecting; the body stalls
        while not list(dest.glob(".data.txt.*.part/*")):
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.02)
        time.sleep(0.3)
    finally:
        process.kill()
        process.wait(timeout=30)
    left = tree(tmp_path)
    assert len(left) == 3 and left[0] == "dest" and re.fullmatch(r"dest/\.data\.txt\..+\.part",
                                                                  left[1])
    assert not (dest / "data.txt").exists()  # never under the final name
    path = fetch(f"{hostile_server}/data.txt", dest)  # same name, complete this time
    assert path.read_bytes() == PAYLOAD
    assert tree(tmp_path) == ["dest", "dest/data.txt"]  # and the killed one's folder is gone


def test_fetch_leaves_a_live_download_alone(hostile_server, tmp_path):
    dest = tmp_path / "dest"
    dest.mkdir()
    live = dest / ".small.txt.l1v3.part"
    live.mkdir()
    (live / "tmpabc").write_bytes(b"half")
    descriptor = os.open(live, os.O_RDONLY)  # another process's download in progress
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        # each download has its own staging folder: both can run, neither disturbs the other
        assert fetch(f"{hostile_server}/small.txt", dest).read_bytes() == PAYLOAD
        assert (live / "tmpabc").read_bytes() == b"half"
    finally:
        os.close(descriptor)
    assert tree(tmp_path) == ["dest", "dest/.small.txt.l1v3.part",
                              "dest/.small.txt.l1v3.part/tmpabc", "dest/small.txt"]


def test_fetch_does_not_write_through_a_planted_link(hostile_server, tmp_path):
    outside = tmp_path / "precious"
    outside.mkdir()
    (outside / "precious.txt").write_bytes(b"keep me")
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / ".small.txt.evil.part").symlink_to(outside)  # looks like a killed download's
    (dest / "small.txt").symlink_to(outside / "precious.txt")
    assert fetch(f"{hostile_server}/small.txt", dest, force=True).read_bytes() == PAYLOAD
    assert not (dest / "small.txt").is_symlink()  # the link was replaced, not written through
    assert (outside / "precious.txt").read_bytes() == b"keep me"
    assert tree(tmp_path) == ["dest", "dest/.small.txt.evil.part", "dest/small.txt",
                              "precious", "precious/precious.txt"]


@pytest.mark.parametrize("args, phrase", [
    (["URL/..%2F..%2Fescape.txt"], "not a plain file name"),
    (["URL/small.txt", "--sha256", "abc"], "Invalid value for '--sha256': sha256 must be 64 "
                                           "hexadecimal digits; got 'abc'"),
    (["no-such-set"], "neither a data set of the catalogue"),
])
def test_cli_fetch_usage_errors_exit_2(hostile_server, tmp_path, args, phrase):
    args = [a.replace("URL", hostile_server) for a in args]
    result = onlinear_cli("fetch", *args, "--dest", tmp_path / "dest")
    assert result.returncode == 2, result.stderr
    assert phrase in result.stderr and "Traceback" not in result.stderr
    assert tree(tmp_path) == []


def test_cli_fetch_truncated_download_exits_1(hostile_server, tmp_path):
    result = onlinear_cli("fetch", f"{hostile_server}/truncated", "--dest", tmp_path / "d")
    assert result.returncode == 1 and "broke off after 100 of the 1000 bytes" in result.stderr
    assert tree(tmp_path) == []


# ================================================================================ LIBSVM
@pytest.mark.parametrize("index", [2**31, 2**32, 10**30])
def test_libsvm_index_too_large_names_file_and_line(tmp_path, index):
    path = tmp_path / "wide.svm"
    path.write_text(f"1 1:1\n2 {index}:1\n")
    message = r"wide\.svm, line 2: feature index too large .*2,147,483,647"
    with pytest.raises(FileFormatError, match=message):
        load_libsvm(path)
    with pytest.raises(FileFormatError, match=message):
        list(iter_libsvm_chunks(path, 1, 10))


# =================================================================================== CLI
TINY = "1 1:1\n-1 2:1\n1 1:1 2:1\n-1 1:-1\n1 2:-1\n1 1:1\n"


def assert_exit(result, code, phrase):
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr
    assert phrase in result.stderr, result.stderr
    assert result.stdout == ""


def test_cli_reads_a_gzip_file_without_suffix_with_the_projects_reader(tmp_path):
    (tmp_path / "data").write_bytes(gzip.compress(TINY.encode()))
    result = onlinear_cli("run", "perceptron", tmp_path / "data", "--format", "json")
    assert result.returncode == 0, result.stderr
    assert '"examples": 6' in result.stdout
    (tmp_path / "broken").write_bytes(gzip.compress(TINY.encode())[:20])
    assert_exit(onlinear_cli("run", "pa1", tmp_path / "broken"), 1,
                f"{tmp_path / 'broken'}: corrupt or truncated compressed data")
    (tmp_path / "bad").write_bytes(gzip.compress(b"1 1:1\n2 2:x\n"))
    assert_exit(onlinear_cli("run", "pa1", tmp_path / "bad"), 1,
                f"{tmp_path / 'bad'}, line 2: could not convert string to float")


def test_cli_train_and_test_files_share_width_and_numbering(tmp_path):
    (tmp_path / "train.svm").write_text("1 1:1\n2 2:1\n")
    (tmp_path / "test.svm").write_text("1 1:1\n2 2:1 3:0.5\n")
    result = onlinear_cli("run", "pa", tmp_path / "train.svm", "--test", tmp_path / "test.svm")
    assert result.returncode == 0, result.stderr
    # the test set as wide as the training data: its feature 3 ignored, and told
    assert "2 examples, 2 features, 2 classes" in result.stdout
    assert "ignored 1 value(s) of features beyond, on 1 of 2 rows" in result.stderr
    (tmp_path / "test0.svm").write_text("1 0:1 1:1\n2 2:1\n")  # index 0: both zero-based
    result = onlinear_cli("run", "pa", tmp_path / "train.svm", "--test", tmp_path / "test0.svm")
    assert result.returncode == 0, result.stderr
    assert "2 examples, 3 features, 2 classes" in result.stdout


def test_cli_says_what_memory_huge_weights_would_need_before_allocating(tmp_path):
    path = tmp_path / "huge.svm"
    path.write_text("".join(f"{k} {2**31 - 1 - k}:1\n" for k in range(16)))
    started = time.monotonic()
    result = onlinear_cli("run", "pa", path)
    assert_exit(result, 1, "would need 256.0 GiB for its weights (2,147,483,647 features x 16 "
                "classes x 8 bytes), more than this machine's")
    assert time.monotonic() - started < 60


@pytest.mark.parametrize("args, phrase", [
    (["run", "no-such-learner", "MISSING"], "unknown algorithm 'no-such-learner'"),
    (["compare", "pa1", "no-such-learner", "--data", "MISSING"], "unknown algorithm"),
    (["run", "pa1", "MISSING", "--param", "C=-1"], "The 'C' parameter"),
    (["run", "pa1", "MISSING", "--param", "gamma=2"], "pa1 has no hyperparameter 'gamma'"),
    (["run", "pa1", "MISSING", "--grid", "C=abc"], "The 'C' parameter"),
    (["compare", "pa1", "mira", "--data", "MISSING", "--grid", "gamma=1,2"],
     "no compared algorithm has the hyperparameter(s) ['gamma']"),
    (["compare", "pa1", "--data", "MISSING", "--param", "mira:beta=1"], "mira is not compared"),
    (["run", "pa1", "MISSING", "--curve", "NOFOLDER/c.csv"], "no folder"),
    (["run", "pa1", "MISSING", "--out", "NOFOLDER/o.txt"], "no folder"),
    (["run", "pa1", "MISSING", "--out", "."], "is a folder"),
    (["run", "pa1", "MISSING", "--plot", "curves.xyz"], "unknown image format 'xyz'"),
    (["run", "pa1", "MISSING", "--plot", "curves"], "cannot tell the image format"),
    (["compare", "pa1", "--data", "MISSING", "--plot", "c.png", "--plot-log", "speed"],
     "unknown panel 'speed'"),
    (["run", "pa1", "MISSING", "--plot", "c.png", "--plot-size", "8"], "two numbers of inches"),
    (["run", "pa1", "MISSING", "--plot", "c.png", "--plot-size", "a,b"], "expected W,H"),
    (["run", "pa1", "MISSING", "--plot", "c", "--plot-format", "tiff2"], "unknown image format"),
    (["run", "pa1", "MISSING", "--plot-log", "time"], "need --plot FILE"),
    (["run", "pa1", "MISSING", "--plot", "c.png", "--plot-dpi", "0"], "dpi must be"),
])
def test_cli_usage_errors_exit_2_before_reading_data(tmp_path, args, phrase):
    # MISSING does not exist: a usage error must be found before the data is even read.
    args = [a.replace("NOFOLDER", str(tmp_path / "nofolder")) for a in args]
    result = onlinear_cli(*args, cwd=tmp_path)
    assert_exit(result, 2, phrase)
    assert tree(tmp_path) == []


def test_cli_keeps_an_existing_output_whole_when_the_run_fails(tmp_path):
    (tmp_path / "tiny.svm").write_text(TINY.replace("-1 1:-1", "3 1:-1"))  # three classes
    for name in ("out.txt", "curve.csv", "plot.png"):
        (tmp_path / name).write_bytes(b"previous results")
    result = onlinear_cli("run", "winnow", "tiny.svm", "--out", "out.txt", "--curve",
                          "curve.csv", "--plot", "plot.png", cwd=tmp_path)
    assert_exit(result, 1, "winnow learns two classes only")
    for name in ("out.txt", "curve.csv", "plot.png"):
        assert (tmp_path / name).read_bytes() == b"previous results"
    result = onlinear_cli("run", "pa", "tiny.svm", "--out", "out.txt", "--curve", "curve.csv",
                          cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out.txt").read_text().startswith("pa on tiny.svm")
    assert tree(tmp_path) == ["curve.csv", "out.txt", "plot.png", "tiny.svm"]  # no temporaries


@pytest.mark.parametrize("option, target", [("--plot", "onlinear.plots.plot_curves"),
                                            ("--curve", "onlinear.harness.Table.to_csv")])
def test_cli_a_write_that_fails_half_way_leaves_the_old_file(tmp_path, monkeypatch, option,
                                                            target):
    def disk_full(self_or_evaluation, path, *args, **kwargs):
        Path(path).write_bytes(b"half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(target, disk_full)
    (tmp_path / "tiny.svm").write_text(TINY)
    (tmp_path / "old.png").write_bytes(b"previous results")
    result = onlinear_cli("run", "pa", "tiny.svm", option, "old.png", cwd=tmp_path)
    assert result.returncode == 1 and "No space left on device" in result.stderr
    assert (tmp_path / "old.png").read_bytes() == b"previous results"
    assert tree(tmp_path) == ["old.png", "tiny.svm"]


# =========================================================================== text corpora
def tarball(path, members, mode="w:gz"):
    with tarfile.open(path, mode, **({"compresslevel": 1} if mode == "w:gz" else {})) as tar:
        for name, size in members:
            info = tarfile.TarInfo(name)
            info.size = size
            tar.addfile(info, io.BytesIO(b"a" * size) if size < 2**20 else _Zeros(size))
    return path


class _Zeros(io.RawIOBase):
    def __init__(self, size):
        self.left = size

    def readable(self):
        return True

    def readinto(self, buffer):
        n = min(len(buffer), self.left)
        buffer[:n] = bytes(n)
        self.left -= n
        return n


def test_text_corpus_a_member_beyond_the_default_cap_is_refused_unread(tmp_path):
    path = tarball(tmp_path / "bomb.tar.gz",
                   [("20news-bydate-train/sci.space/1", 10), ("20news-bydate-train/x/2",
                                                              64 * 2**20 + 1)])
    assert path.stat().st_size < 2**20  # small archive, large content
    with pytest.raises(FileFormatError, match=r"bomb\.tar\.gz: .*20news-bydate-train/x/2 holds "
                                              r"67,108,865 bytes, more than max_file_size"):
        read_20newsgroups(path)


def test_text_corpus_caps_on_one_file_and_on_the_total(tmp_path):
    path = tarball(tmp_path / "news.tar.gz", [(f"20news-bydate-train/g/{i}", 600)
                                              for i in range(3)])
    assert len(read_20newsgroups(path)["train"][0]) == 3
    with pytest.raises(FileFormatError, match="more than max_file_size allows"):
        read_20newsgroups(path, max_file_size=500)
    with pytest.raises(FileFormatError, match="more than max_total_size allows"):
        read_20newsgroups(path, max_total_size=1000)
    folder = tmp_path / "unpacked"
    with tarfile.open(path) as tar:
        tar.extractall(folder, filter="data")
    with pytest.raises(FileFormatError, match="more than max_total_size allows"):
        read_20newsgroups(folder, max_total_size=1000)


@pytest.mark.parametrize("mode, cut", [("w:gz", 0.5), ("w", 0.6)])
def test_text_corpus_truncated_archive_names_the_file(tmp_path, mode, cut):
    path = tarball(tmp_path / "cut.tar", [(f"20news-bydate-train/g/{i}", 5000)
                                          for i in range(4)], mode)
    data = path.read_bytes()
    path.write_bytes(data[:int(len(data) * cut)])
    with pytest.raises(FileFormatError, match=r"cut\.tar.*(truncated|corrupt)"):
        read_20newsgroups(path)


def test_text_corpus_a_gzip_cut_anywhere_is_a_file_format_error(tmp_path):
    """Every cut of a .tar.gz whose members do not compress (the cut then falls in a tar
    header or member, where tarfile's gzip stream raises a bare EOFError)."""
    rng = np.random.default_rng(3)
    path = tmp_path / "whole.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for i in range(2):
            data = rng.bytes(3000)
            info = tarfile.TarInfo(f"20news-bydate-train/g/{i}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    data = path.read_bytes()
    cut = tmp_path / "cut.tar.gz"
    for end in list(range(12, 600, 7)) + list(range(600, len(data) - 40, 97)):
        cut.write_bytes(data[:end])
        with pytest.raises(FileFormatError, match=r"cut\.tar\.gz.*(truncated|corrupt)"):
            read_20newsgroups(cut)


def test_text_corpus_refuses_a_link_out_of_the_folder(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("private")
    group = tmp_path / "corpus" / "20news-bydate-train" / "g"
    group.mkdir(parents=True)
    (group / "1").write_text("a message")
    (group / "2").symlink_to(group / "1")  # inside the folder: fine
    assert read_20newsgroups(tmp_path / "corpus")["train"][0] == ["a message", "a message"]
    (group / "3").symlink_to(secret)
    with pytest.raises(FileFormatError, match=r"g/3: a link to .*secret\.txt, outside"):
        read_20newsgroups(tmp_path / "corpus")
    (group / "3").unlink()
    (tmp_path / "corpus" / "reut2-000.sgm").symlink_to(secret)
    with pytest.raises(FileFormatError, match="outside"):
        read_reuters21578(tmp_path / "corpus")


# =================================================================================== CSV
def test_csv_utf8_byte_order_mark_is_not_part_of_the_first_name(tmp_path):
    path = tmp_path / "bom.csv"
    path.write_bytes("\ufeffspecies,length\nsetosa,5.1\n".encode())
    X, y = load_csv(path, label_column="species")
    assert X.tolist() == [[5.1]] and y.tolist() == ["setosa"]
    path.write_bytes("\ufeff1.5,2,a\n3,4,b\n".encode())  # no header: the first number reads
    X, y = load_csv(path)
    assert X.tolist() == [[1.5, 2.0], [3.0, 4.0]] and y.tolist() == ["a", "b"]


def test_csv_undecodable_text_names_the_line(tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes("a,b,c\n1,2,x\n3,4,caf\u00e9\n".encode("latin-1"))
    with pytest.raises(FileFormatError, match=r"latin\.csv, line 3: not utf-8 text: .*latin-1"):
        load_csv(path)
    assert load_csv(path, encoding="latin-1")[1].tolist() == ["x", "caf\u00e9"]


@pytest.mark.parametrize("content, delimiter, hint", [
    ("1;2;a\n3;4;b\n", ",", "pass delimiter=';'"),
    ("1\t2\ta\n3\t4\tb\n", ",", "pass delimiter='\\t'"),
    ("1,2,a\n3,4,b\n", None, "pass delimiter=','"),
    ("a\nb\n", ",", "no feature besides the label"),
])
def test_csv_a_wrong_delimiter_is_an_error_not_zero_features(tmp_path, content, delimiter, hint):
    path = tmp_path / "table.csv"
    path.write_text(content)
    with pytest.raises(FileFormatError, match=r"table\.csv, line 1: a single column") as error:
        load_csv(path, delimiter=delimiter)
    assert hint in str(error.value)


# ======================================================================= fuzzed loaders
def _compressed(data, kind):
    return gzip.compress(data) if kind == "gz" else data


@settings(max_examples=60, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.one_of(st.binary(max_size=200),
                      st.lists(st.sampled_from([b"1", b"-2", b" ", b":", b"3:0.5", b"\n", b"#",
                                                b"2147483648:1", b"x", b",", b"\xff", b"0:1",
                                                b"nan", b"qid:1", b"\t", b"1e999"]),
                               max_size=30).map(b"".join)),
       kind=st.sampled_from(["plain", "gz"]))
def test_loaders_raise_only_file_format_errors_naming_the_file(tmp_path, data, kind):
    path = tmp_path / "fuzz.dat"
    path.write_bytes(_compressed(data, kind))
    for loader in (load_libsvm, load_csv, load_idx,
                   lambda p: list(iter_libsvm_chunks(p, 3, 5))):
        try:
            loader(path)
        except FileFormatError as error:
            assert str(error).startswith(str(path))


# ================================================================ NaN/None class labels
X3, Y3 = np.eye(3), np.array([0, 1, 1])


@pytest.mark.parametrize("name, task", [("pa", None), ("mira", None), ("simproj", None),
                                        ("kernel-pa", None), ("simproj", "ordinal")])
@pytest.mark.parametrize("classes", [[0, 1, np.nan], [0, 1, None], np.array([0.0, 1.0, np.nan])])
def test_nan_or_none_is_not_a_class(name, task, classes):
    # (a kernel learner's first partial_fit takes a number for gamma, not "scale")
    model = onlinear.make(name, task=task, **({"gamma": 0.5} if name == "kernel-pa" else {}))
    with pytest.raises(ValueError, match="classes must not contain NaN or None"):
        model.partial_fit(X3, Y3, classes=classes)
    assert not hasattr(model, "classes_")
    with pytest.raises(ValueError, match="classes must not contain NaN or None"):
        model.learn_one(X3[0], 1, classes=classes)
    model.partial_fit(X3, Y3, classes=[0, 1, 2])
    saved = {key: (value.copy() if isinstance(value, np.ndarray) else value)
             for key, value in model_vars(model).items()}
    for call in (lambda: model.partial_fit(X3, Y3, classes=classes),
                 lambda: model.learn_one(X3[0], 1, classes=classes)):
        with pytest.raises(ValueError, match="classes must not contain NaN or None"):
            call()
        assert model_vars(model).keys() == saved.keys()
        for key, value in saved.items():
            if isinstance(value, np.ndarray):
                assert model_vars(model)[key].tobytes() == value.tobytes(), key


@pytest.mark.parametrize("name, params, width, what", [
    ("pa", {}, 2**40, "for its weights (1,099,511,627,776 features × 3 outputs × 8 bytes)"),
    ("pa", {"average": True}, 2**39, "for its weights (549,755,813,888 features × 3 outputs × 8 "
     "bytes, twice: averaging)"),
    ("simproj", {}, 2**40, "for its weights (1,099,511,627,776 features × 3 labels"),
    ("simproj", {"task": "ordinal"}, 2**45, "for its weights"),
    ("iellip", {"matrix": "per-class"}, 300_000, "for its metric (270,000,000,000 float64"),
])
def test_a_model_larger_than_memory_is_refused_before_allocating(name, params, width, what):
    """From Python too (fit, learn_one, the harness): a MemoryError that says what the model
    would need, raised before anything is allocated; the estimator stays unfitted."""
    import scipy.sparse as sp

    from onlinear import harness

    X = sp.csr_matrix((np.ones(3), ([0, 1, 2], [5, width - 1, 7])), shape=(3, width))
    y = np.array([0, 1, 2])
    model = onlinear.make(name, **params)
    started = time.monotonic()
    with pytest.raises(MemoryError, match="would need .* GiB " + re.escape(what)):
        model.fit(X, y)
    assert not hasattr(model, "classes_")
    with pytest.raises(MemoryError, match="more than this machine's"):
        model.learn_one(X[0], 0, classes=[0, 1, 2])
    assert not hasattr(model, "classes_")
    if not params:
        with pytest.raises(MemoryError, match="would need"):
            harness.compare(X, y, [name])
    assert time.monotonic() - started < 30


def test_cli_names_a_corrupt_bzip2_file(tmp_path):
    """bz2 reports bad data as a bare OSError: the command said only "Error: Invalid data
    stream", naming no file (gzip's and xz's named it)."""
    import bz2

    rng = np.random.default_rng(4)
    text = "".join(f"{k} 1:{a:.4f} 2:{b:.4f}\n"
                   for k, (a, b) in zip(rng.integers(0, 3, 4000), rng.normal(size=(4000, 2))))
    data = bytearray(bz2.compress(text.encode()))
    data[len(data) // 2] ^= 0xFF
    (tmp_path / "bad.svm.bz2").write_bytes(bytes(data))
    for command in (["train", "pa1", "bad.svm.bz2", "--save", "m.onlinear"],
                    ["run", "pa1", "bad.svm.bz2"]):
        result = onlinear_cli(*command, cwd=tmp_path)
        assert result.returncode == 1, result.stderr
        assert "bad.svm.bz2: corrupt or truncated compressed data (Invalid data stream)" in \
            result.stderr, result.stderr


def _test_error(result):
    import json

    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)[-1]["test_error"]


def test_cli_a_test_file_is_read_by_its_own_format_not_the_training_files(tmp_path):
    """A LIBSVM test file of CSV training data was held to the CSV rule ("tiny.svm has 3
    feature columns, the training data 2: a CSV test file needs the training file's columns"),
    and a CSV test file of LIBSVM training data was parsed as LIBSVM."""
    rng = np.random.default_rng(6)
    X = np.round(rng.normal(size=(60, 2)), 3)
    y = (X[:, 0] > X[:, 1]).astype(int) + 1
    table = "".join(f"{a},{b},{label}\n" for (a, b), label in zip(X, y))
    (tmp_path / "train.csv").write_text(table)
    (tmp_path / "test.csv").write_text(table)
    (tmp_path / "train.svm").write_text("".join(f"{label} 1:{a} 2:{b}\n"
                                                for (a, b), label in zip(X, y)))
    # the same rows as LIBSVM, one with a third feature, which the training data lacks
    (tmp_path / "test.svm").write_text("".join(f"{label} 1:{a} 2:{b}{' 3:1' if i == 4 else ''}\n"
                                               for i, ((a, b), label) in enumerate(zip(X, y))))

    def run(*args):
        return onlinear_cli("run", "pa1", *args, "--format", "json", cwd=tmp_path)

    expected = _test_error(run("train.csv", "--test", "test.csv"))
    result = run("train.csv", "--test", "test.svm")
    assert _test_error(result) == expected
    assert "ignored 1 value(s) of features beyond, on 1 of 60 rows" in result.stderr
    result = run("train.csv", "--test", "test.svm", "--strict-features")
    assert result.returncode == 1
    assert "test.svm, line 5: feature index out of range" in result.stderr, result.stderr
    assert _test_error(run("train.svm", "--test", "test.csv")) == expected
    (tmp_path / "wide.csv").write_text("".join(f"{a},{b},0,{label}\n"
                                               for (a, b), label in zip(X, y)))
    assert _test_error(run("train.svm", "--test", "wide.csv")) == expected
    result = run("train.svm", "--test", "wide.csv", "--strict-features")
    assert_exit(result, 1, "wide.csv has 3 feature columns, the training data 2 features: "
                "--strict-features refuses")
    # a CSV test file of a CSV training file keeps the rule of its columns
    result = run("train.csv", "--test", "wide.csv")
    assert_exit(result, 1, "wide.csv has 3 feature columns, the training data 2: a CSV test file "
                "needs the training file's columns.")


def test_cli_numeric_test_labels_of_word_training_labels_are_compared_as_text(tmp_path):
    (tmp_path / "train.csv").write_text("a,b,label\n0.5,1,cat\n-0.5,1,dog\n1,0,1\n")
    (tmp_path / "test.svm").write_text("1 1:1\n2 2:1\n")
    result = onlinear_cli("run", "pa1", "train.csv", "--test", "test.svm", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "1 of 2 test rows have a label the training data lacks (2)" in result.stderr
    (tmp_path / "train.svm").write_text("1 1:1\n2 2:1\n")
    (tmp_path / "test.csv").write_text("1,0,cat\n0,1,2\n")
    assert_exit(onlinear_cli("run", "pa1", "train.svm", "--test", "test.csv", cwd=tmp_path), 1,
                "test.csv has a test label that is not a number ('cat'), but the training "
                "data's labels are numbers")
