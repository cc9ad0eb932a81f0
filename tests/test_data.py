"""onlinear.data: file readers, the catalogue, downloads and the synthetic generators.

Small fixture files are written to ``tmp_path``; the papers' real files are used where the
project's shared data folder (``../shared/data``) is present, and those tests are skipped
otherwise.  Nothing here reaches the internet: downloads go to a server on 127.0.0.1.
"""
import bz2
import codecs
import gzip
import hashlib
import http.server
import io
import socket
import socketserver
import struct
import tarfile
import threading
from functools import partial
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file

import onlinear
from onlinear.data import (
    DATASETS,
    ChecksumError,
    DataFile,
    Dataset,
    DownloadError,
    FileFormatError,
    fetch,
    find_dataset,
    iter_libsvm_chunks,
    list_datasets,
    load,
    load_20newsgroups,
    load_csv,
    load_idx,
    load_idx_pair,
    load_letter,
    load_libsvm,
    load_reuters21578,
    make_chessboard,
    make_separable,
    make_simplex_blocks,
    read_20newsgroups,
    read_reuters21578,
)
from onlinear.data.fetch import RETRIES

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def shared(*parts):
    path = SHARED.joinpath(*parts)
    return pytest.mark.skipif(not path.exists(), reason=f"{path} not present")


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


# ================================================================================ LIBSVM
GOOD_LIBSVM = b"""# a comment line
1 1:0.5 3:1.5
2 2:-1 # trailing comment

3 1:2 2:1 4:0.25
1 4:1
"""
GOOD_DENSE = np.array([[0.5, 0, 1.5, 0, 0], [0, -1, 0, 0, 0], [2, 1, 0, 0.25, 0], [0, 0, 0, 1, 0]])


def write(path, data, compression=None):
    opener = {None: open, "gz": gzip.open, "bz2": bz2.open}[compression]
    with opener(path, "wb") as handle:
        handle.write(data)
    return path


@pytest.mark.parametrize("compression", [None, "gz", "bz2"])
def test_libsvm_reads_plain_gzip_and_bzip2(tmp_path, compression):
    path = write(tmp_path / f"good.{compression or 'txt'}", GOOD_LIBSVM, compression)
    X, y = load_libsvm(path, n_features=5)
    assert sp.issparse(X) and X.shape == (4, 5)
    np.testing.assert_array_equal(X.toarray(), GOOD_DENSE)
    np.testing.assert_array_equal(y, [1, 2, 3, 1])


@pytest.mark.parametrize("compression", [None, "gz"])
def test_libsvm_skips_a_utf8_byte_order_mark_at_the_start_only(tmp_path, compression):
    """An editor's UTF-8 mark (EF BB BF) before the first label was read as part of it
    ("could not convert string to float: b'\\xef\\xbb\\xbf1'"); the CSV reader skipped it."""
    rows = b"1 1:0.5 3:1.5\n2 2:-1\n"
    path = write(tmp_path / "marked.txt", codecs.BOM_UTF8 + rows, compression)
    X, y = load_libsvm(path, n_features=3)
    np.testing.assert_array_equal(X.toarray(), [[0.5, 0, 1.5], [0, -1, 0]])
    np.testing.assert_array_equal(y, [1, 2])
    assert [c[1].tolist() for c in iter_libsvm_chunks(path, 1, 3)] == [[1.0], [2.0]]
    inside = write(tmp_path / "inside.txt", rows + codecs.BOM_UTF8 + rows, compression)
    with pytest.raises(FileFormatError, match="line 3"):
        load_libsvm(inside)


def test_libsvm_compression_is_recognised_by_content_not_name(tmp_path):
    path = write(tmp_path / "misnamed.txt", GOOD_LIBSVM, "bz2")
    np.testing.assert_array_equal(load_libsvm(path, n_features=5)[0].toarray(), GOOD_DENSE)


def test_libsvm_n_features_defaults_to_largest_index(tmp_path):
    X, _ = load_libsvm(write(tmp_path / "good.txt", GOOD_LIBSVM))
    assert X.shape == (4, 4)


@pytest.mark.parametrize("content, line, words", [
    (b"1 1:1\n2 2:abc\n", 2, "could not convert"),
    (b"1 1:1\n# comment\n\n2 3:1 2:1\n", 4, "sorted and unique"),
    (b"1 1:1\nfoo 3:1\n", 2, "could not convert"),
    (b"1 1:1\n2 3\n1 1:2\n", 2, ""),
    (b"1 1:1\n2 2:1\n1 9:1\n", 3, "n_features=5"),
])
def test_libsvm_malformed_line_is_named(tmp_path, content, line, words):
    path = write(tmp_path / "bad.libsvm", content)
    with pytest.raises(ValueError) as caught:
        load_libsvm(path, n_features=5)
    assert isinstance(caught.value, FileFormatError)
    assert caught.value.line == line
    assert str(path) in str(caught.value) and f"line {line}:" in str(caught.value)
    assert words in str(caught.value)


def test_libsvm_malformed_line_in_compressed_file_and_zero_index(tmp_path):
    path = write(tmp_path / "bad.bz2", b"1 1:1\n2 0:1 1:1\n", "bz2")
    with pytest.raises(FileFormatError, match=r"bad\.bz2, line 2: Invalid index 0"):
        load_libsvm(path, zero_based=False)
    # "auto" reads the same file as zero-based, so then the width is what fails.
    with pytest.raises(FileFormatError, match=r"line 1: .*needs 2 features, n_features=1"):
        load_libsvm(path, n_features=1)


@pytest.mark.parametrize("compression", ["gz", "bz2"])
def test_truncated_compressed_files_are_named(tmp_path, compression):
    whole = write(tmp_path / f"whole.{compression}", GOOD_LIBSVM * 50, compression)
    cut = write(tmp_path / f"cut.{compression}", whole.read_bytes()[:-20])
    with pytest.raises(FileFormatError, match=rf"cut\.{compression}: corrupt or truncated"):
        load_libsvm(cut)
    with pytest.raises(FileFormatError, match=rf"cut\.{compression}: corrupt or truncated"):
        list(iter_libsvm_chunks(cut, 10, n_features=5))
    with pytest.raises(FileFormatError, match=rf"cut\.{compression}: corrupt or truncated"):
        load_idx(cut)


def test_libsvm_missing_file(tmp_path):
    missing = tmp_path / "nope.libsvm"
    with pytest.raises(FileNotFoundError, match="nope.libsvm"):
        load_libsvm(missing)
    with pytest.raises(FileNotFoundError, match="nope.libsvm"):
        next(iter_libsvm_chunks(missing, 10, 5))


@pytest.fixture(scope="module")
def stream_file(tmp_path_factory):
    """A sparse 5-class problem of 503 rows as a gzip LIBSVM file, and its arrays."""
    rng = np.random.default_rng(0)
    X = sp.random(503, 40, density=0.2, format="csr", random_state=1)
    X.data = np.round(X.data, 6)  # values that survive the trip through text exactly
    y = np.argmax(X @ rng.normal(size=(40, 5)), axis=1) + 1
    buffer = io.BytesIO()
    dump_svmlight_file(X, y, buffer, zero_based=False)
    lines = buffer.getvalue().splitlines(keepends=True)
    lines.insert(100, b"# a comment is not a row\n")
    lines.insert(300, b"\n")
    path = write(tmp_path_factory.mktemp("stream") / "stream.libsvm.gz", b"".join(lines), "gz")
    return path, X, y


@pytest.mark.parametrize("chunk_size", [1, 64, 100, 503, 1000])
def test_chunks_cover_the_file_in_order(stream_file, chunk_size):
    path, X, y = stream_file
    chunks = list(iter_libsvm_chunks(path, chunk_size, n_features=40))
    assert [c[0].shape[0] for c in chunks[:-1]] == [chunk_size] * (len(chunks) - 1)
    assert all(c[0].shape[1] == 40 and sp.issparse(c[0]) for c in chunks)
    np.testing.assert_array_equal(sp.vstack([c[0] for c in chunks]).toarray(), X.toarray())
    np.testing.assert_array_equal(np.concatenate([c[1] for c in chunks]), y)


@pytest.mark.parametrize("algorithm", ["pa", "mira", "spa1"])
def test_partial_fit_chunk_by_chunk_equals_training_on_the_whole_file(stream_file, algorithm):
    path, _, _ = stream_file
    classes = [1, 2, 3, 4, 5]
    X_all, y_all = load_libsvm(path, n_features=40)
    whole = onlinear.make(algorithm).partial_fit(X_all, y_all, classes=classes)
    fitted = onlinear.make(algorithm).fit(X_all, y_all)
    chunked = onlinear.make(algorithm)
    for X, y in iter_libsvm_chunks(path, 64, n_features=40):
        chunked.partial_fit(X, y, classes=classes)
    for other in (whole, fitted):
        np.testing.assert_array_equal(chunked.coef_, other.coef_)
        assert (chunked.n_seen_, chunked.n_mistakes_, chunked.n_updates_) == (
            other.n_seen_, other.n_mistakes_, other.n_updates_)
    assert chunked.n_seen_ == 503 and chunked.n_mistakes_ > 0


def test_chunked_training_on_the_shipped_letter_file(tmp_path):
    path = find_dataset("letter", data_dir=tmp_path)[0]  # empty directory: the shipped copy
    assert path.name == "letter.scale.bz2"
    X_all, y_all = load_libsvm(path, n_features=16)
    classes = np.arange(1, 27)
    whole = onlinear.make("pa").partial_fit(X_all, y_all, classes=classes)
    chunked = onlinear.make("pa")
    n_chunks = 0
    for X, y in iter_libsvm_chunks(path, 4096, n_features=16):
        chunked.partial_fit(X, y, classes=classes)
        n_chunks += 1
    assert n_chunks == 4
    np.testing.assert_array_equal(chunked.coef_, whole.coef_)
    assert chunked.n_mistakes_ == whole.n_mistakes_


def test_chunks_are_read_lazily_and_a_bad_line_is_named_from_the_file_start(tmp_path):
    rows = [f"{i % 2 + 1} 1:{i}\n".encode() for i in range(10)]
    rows[7] = b"2 1:oops\n"
    path = write(tmp_path / "late-error.txt", b"# header comment\n" + b"".join(rows))
    chunks = iter_libsvm_chunks(path, 3, n_features=1)
    _, second = next(chunks), next(chunks)  # the bad line is not read yet
    np.testing.assert_array_equal(second[0].toarray().ravel(), [3, 4, 5])
    with pytest.raises(FileFormatError) as caught:
        next(chunks)
    assert caught.value.line == 9 and "late-error.txt, line 9" in str(caught.value)


def test_chunks_check_the_width_line_by_line(tmp_path):
    path = write(tmp_path / "wide.txt", b"1 1:1\n2 2:1\n1 7:1\n")
    with pytest.raises(FileFormatError, match="line 3: .*needs 7 features, n_features=2"):
        list(iter_libsvm_chunks(path, 2, n_features=2))


@pytest.mark.parametrize("kwargs", [
    dict(chunk_size=0, n_features=3), dict(chunk_size=2.5, n_features=3),
    dict(chunk_size=2, n_features=0), dict(chunk_size=2, n_features=3, zero_based="auto"),
])
def test_chunks_reject_bad_arguments(tmp_path, kwargs):
    path = write(tmp_path / "good.txt", GOOD_LIBSVM)
    with pytest.raises(ValueError):
        next(iter_libsvm_chunks(path, **kwargs))


# =================================================================================== IDX
def idx_bytes(array, code):
    array = np.asarray(array)
    header = bytes([0, 0, code, array.ndim]) + struct.pack(f">{array.ndim}I", *array.shape)
    return header + array.astype(array.dtype.newbyteorder(">")).tobytes()


@pytest.mark.parametrize("dtype, code", [(np.uint8, 0x08), (np.int8, 0x09), (np.int16, 0x0B),
                                         (np.int32, 0x0C), (np.float32, 0x0D),
                                         (np.float64, 0x0E)])
@pytest.mark.parametrize("compression", [None, "gz"])
def test_idx_round_trip(tmp_path, dtype, code, compression):
    array = (np.arange(24).reshape(2, 3, 4) - 5).astype(dtype)
    path = write(tmp_path / "array-idx3", idx_bytes(array, code), compression)
    loaded = load_idx(path)
    assert loaded.dtype == np.dtype(dtype) and loaded.dtype.isnative and loaded.flags.writeable
    np.testing.assert_array_equal(loaded, array)


@pytest.mark.parametrize("content", [
    b"\x00\x00\x08",                                   # too short
    b"\x01\x00\x08\x01\x00\x00\x00\x01\x07",           # first byte not zero
    b"\x00\x00\x07\x01\x00\x00\x00\x01\x07",           # unknown type code
    b"\x00\x00\x08\x00",                               # no dimensions
    b"PK\x03\x04 not an idx file at all",
])
def test_idx_wrong_magic_names_the_file(tmp_path, content):
    path = write(tmp_path / "wrong-magic.idx", content)
    with pytest.raises(FileFormatError, match=r"wrong-magic\.idx: not an IDX file: magic number"):
        load_idx(path)


def test_idx_size_must_match_header(tmp_path):
    good = idx_bytes(np.zeros((3, 2, 2), np.uint8), 0x08)
    with pytest.raises(FileFormatError, match=r"short\.idx: .*shape \(3, 2, 2\).*11 bytes"):
        load_idx(write(tmp_path / "short.idx", good[:-1]))
    with pytest.raises(FileFormatError, match="truncated IDX header"):
        load_idx(write(tmp_path / "header.idx", good[:9]))


def test_idx_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="absent-idx"):
        load_idx(tmp_path / "absent-idx")


def test_idx_pair(tmp_path):
    images = np.arange(3 * 2 * 2, dtype=np.uint8).reshape(3, 2, 2)
    images_path = write(tmp_path / "images", idx_bytes(images, 0x08), "gz")
    labels_path = write(tmp_path / "labels", idx_bytes(np.array([4, 0, 9], np.uint8), 0x08))
    X, y = load_idx_pair(images_path, labels_path)
    np.testing.assert_array_equal(X, images.reshape(3, 4))
    np.testing.assert_array_equal(y, [4, 0, 9])
    two = write(tmp_path / "two", idx_bytes(np.array([4, 0], np.uint8), 0x08))
    with pytest.raises(FileFormatError, match="2 labels for 3 examples"):
        load_idx_pair(images_path, two)


@shared("mnist", "t10k-labels-idx1-ubyte.gz")
def test_idx_real_mnist_headers():
    labels = load_idx(SHARED / "mnist" / "t10k-labels-idx1-ubyte.gz")
    assert labels.shape == (10000,) and labels.dtype == np.uint8
    assert labels[:5].tolist() == [7, 2, 1, 0, 4]
    images = load_idx(SHARED / "mnist" / "t10k-images-idx3-ubyte.gz")
    assert images.shape == (10000, 28, 28) and images.max() == 255


# =================================================================================== CSV
def test_csv_label_by_position_strings_and_no_header(tmp_path):
    path = write(tmp_path / "iris.data", b"5.1,3.5,setosa\n4.9,3.0,setosa\n\n6.3,2.9,virginica\n\n")
    X, y = load_csv(path)
    np.testing.assert_array_equal(X, [[5.1, 3.5], [4.9, 3.0], [6.3, 2.9]])
    assert y.tolist() == ["setosa", "setosa", "virginica"]


def test_csv_label_first_and_integer_labels(tmp_path):
    path = write(tmp_path / "t.csv", b"3,1,2\n1,4,5\n", "gz")
    X, y = load_csv(path, label_column=0)
    np.testing.assert_array_equal(X, [[1, 2], [4, 5]])
    assert y.dtype.kind == "i" and y.tolist() == [3, 1]


def test_csv_label_by_name_with_header(tmp_path):
    path = write(tmp_path / "t.csv", b"a,label,b\n1,x,2\n3,y,4\n")
    X, y = load_csv(path, label_column="label")
    np.testing.assert_array_equal(X, [[1, 2], [3, 4]])
    assert y.tolist() == ["x", "y"]
    X_auto, _ = load_csv(path, label_column=1)  # header recognised: 'a', 'b' are not numbers
    np.testing.assert_array_equal(X_auto, X)


def test_csv_whitespace_delimited_float_labels(tmp_path):
    path = write(tmp_path / "shuttle.trn", b"50 21  77 1\n  55 0 92 0.5\n")
    X, y = load_csv(path, delimiter=None)
    np.testing.assert_array_equal(X, [[50, 21, 77], [55, 0, 92]])
    assert y.dtype.kind == "f" and y.tolist() == [1.0, 0.5]


def test_csv_errors_name_file_and_line(tmp_path):
    path = write(tmp_path / "bad.csv", b"1,2,a\n3,4,b\n5,x,c\n")
    with pytest.raises(FileFormatError, match=r"bad\.csv, line 3: column 1: 'x' is not a number"):
        load_csv(path)
    ragged = write(tmp_path / "ragged.csv", b"1,2,a\n3,b\n")
    with pytest.raises(FileFormatError, match=r"ragged\.csv, line 2: 2 fields where"):
        load_csv(ragged)
    with pytest.raises(FileFormatError, match="no column named 'nope'"):
        load_csv(write(tmp_path / "h.csv", b"a,b\n1,2\n"), label_column="nope")
    with pytest.raises(FileFormatError, match="label_column=5"):
        load_csv(path, label_column=5)
    with pytest.raises(FileNotFoundError):
        load_csv(tmp_path / "absent.csv")


@shared("uci", "iris.data")
def test_csv_real_iris():
    X, y = load_csv(SHARED / "uci" / "iris.data")
    assert X.shape == (150, 4) and sorted(set(y.tolist())) == [
        "Iris-setosa", "Iris-versicolor", "Iris-virginica"]


# ================================================================================== text
NEWS = {
    "train/sci.space/38": "The rocket reached orbit.",
    "train/sci.space/101": "Launch window for the probe.",
    "train/rec.autos/7": "My car engine stalls.",
    "test/sci.space/90": "orbit insertion burn, unseenword",
    "test/rec.autos/12": "wheel alignment for the car",
}


def news_tarball(path, prefix):
    with tarfile.open(path, "w:gz") as archive:
        for name, text in NEWS.items():
            split, group, number = name.split("/")
            data = text.encode("latin-1")
            info = tarfile.TarInfo(f"{prefix}20news-bydate-{split}/{group}/{number}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


@pytest.mark.parametrize("prefix", ["", "20news-bydate/"])
def test_20newsgroups_from_tarball(tmp_path, prefix):
    data = load_20newsgroups(news_tarball(tmp_path / "20news-bydate.tar.gz", prefix))
    assert data.y_train.tolist() == ["rec.autos", "sci.space", "sci.space"]
    assert data.y_test.tolist() == ["rec.autos", "sci.space"]
    assert data.target_names == ["rec.autos", "sci.space"]
    assert data.X_train.shape[0] == 3 and data.X_test.shape == (2, data.X_train.shape[1])
    # Fitted on the training messages only: a word seen only in the test set has no column.
    assert "unseenword" not in data.vectorizer.vocabulary_
    assert "rocket" in data.vectorizer.vocabulary_
    # Message order within a class is numeric: 38 before 101.
    texts, _ = read_20newsgroups(tmp_path / "20news-bydate.tar.gz")["train"]
    assert texts[1].startswith("The rocket") and texts[2].startswith("Launch")


def test_20newsgroups_from_folder_equals_tarball(tmp_path):
    for name, text in NEWS.items():
        split, group, number = name.split("/")
        folder = tmp_path / "unpacked" / f"20news-bydate-{split}" / group
        folder.mkdir(parents=True, exist_ok=True)
        (folder / number).write_text(text, encoding="latin-1")
    tarball = news_tarball(tmp_path / "news.tar.gz", "")
    assert read_20newsgroups(tmp_path / "unpacked") == read_20newsgroups(tarball)


def test_20newsgroups_errors(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileFormatError, match="no 20news-bydate-train"):
        read_20newsgroups(tmp_path / "empty")
    with pytest.raises(FileFormatError, match="neither a folder nor a tar archive"):
        read_20newsgroups(write(tmp_path / "junk.tar.gz", b"not a tarball"))
    with pytest.raises(FileNotFoundError):
        read_20newsgroups(tmp_path / "absent.tar.gz")


def reuters_document(newid, topics_attribute, split, topics, body):
    tags = "".join(f"<D>{topic}</D>" for topic in topics)
    return (f'<REUTERS TOPICS="{topics_attribute}" LEWISSPLIT="{split}" '
            f'CGISPLIT="TRAINING-SET" OLDID="{newid + 5000}" NEWID="{newid}">\n'
            f"<DATE>26-FEB-1987 15:01:01.79</DATE>\n<TOPICS>{tags}</TOPICS>\n"
            f"<PLACES><D>usa</D></PLACES>\n<TEXT>&#2;\n<TITLE>TITLE {newid}</TITLE>\n"
            f"<BODY>{body}\n Reuter\n&#3;</BODY></TEXT>\n</REUTERS>\n")


REUTERS = [
    (1, "YES", "TRAIN", ["cocoa"], "Cocoa prices &lt;rose&gt; sharply"),
    (2, "YES", "TRAIN", ["grain", "wheat"], "Wheat and grain exports"),
    (3, "YES", "TRAIN", [], "No topic although indexed"),
    (4, "NO", "TRAIN", [], "Not indexed for topics"),
    (5, "YES", "TEST", ["earn"], "Net profit up, caf\xe9 sales"),   # é: latin-1 byte
    (6, "YES", "TEST", ["grain", "corn"], "Corn harvest"),
    (7, "BYPASS", "TRAIN", ["earn"], "Bypassed document"),
    (8, "YES", "NOT-USED", ["earn"], "Not used by ModApte"),
]


@pytest.fixture
def reuters_tarball(tmp_path):
    files = {"reut2-000.sgm": REUTERS[:4], "reut2-001.sgm": REUTERS[4:]}
    path = tmp_path / "reuters21578.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for name, documents in files.items():
            sgml = '<!DOCTYPE lewis SYSTEM "lewis.dtd">\n' + "".join(
                reuters_document(*document) for document in documents)
            data = sgml.encode("latin-1")
            info = tarfile.TarInfo(f"reuters/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        readme = tarfile.TarInfo("reuters/README.txt")
        archive.addfile(readme, io.BytesIO(b""))
    return path


def test_reuters_reader_parses_attributes_topics_text_and_latin1(reuters_tarball):
    documents = read_reuters21578(reuters_tarball)
    assert [d.newid for d in documents] == list(range(1, 9))
    assert documents[1].topics == ("grain", "wheat")
    assert documents[3].topics_attribute == "NO" and documents[6].topics_attribute == "BYPASS"
    assert "Cocoa prices <rose> sharply" in documents[0].text
    assert "TITLE 1" in documents[0].text and "<BODY>" not in documents[0].text
    assert "café" in documents[4].text


def test_reuters_modapte_single_and_multilabel(reuters_tarball):
    single = load_reuters21578(reuters_tarball)
    assert single.y_train.tolist() == ["cocoa"] and single.y_test.tolist() == ["earn"]
    assert single.target_names == ["cocoa", "earn"]
    multi = load_reuters21578(reuters_tarball, labels="multi")
    assert multi.target_names == ["cocoa", "corn", "earn", "grain", "wheat"]
    np.testing.assert_array_equal(multi.y_train, [[1, 0, 0, 0, 0], [0, 0, 0, 1, 1],
                                                  [0, 0, 0, 0, 0]])
    np.testing.assert_array_equal(multi.y_test, [[0, 0, 1, 0, 0], [0, 1, 0, 1, 0]])
    assert multi.X_train.shape[0] == 3 and multi.X_test.shape[0] == 2
    assert "corn" not in multi.vectorizer.vocabulary_  # a test-only word
    with pytest.raises(ValueError, match="labels must be"):
        load_reuters21578(reuters_tarball, labels="both")


def test_reuters_without_documents(tmp_path):
    (tmp_path / "reut2-000.sgm").write_text("<!DOCTYPE lewis>\n")
    with pytest.raises(FileFormatError, match="no Reuters-21578 documents"):
        read_reuters21578(tmp_path)


@pytest.fixture(scope="module")
def real_reuters():
    return read_reuters21578(SHARED / "text" / "reuters21578.tar.gz")


@shared("text", "reuters21578.tar.gz")
def test_reuters_real_modapte_counts(real_reuters):
    assert len(real_reuters) == 21578
    modapte = [d for d in real_reuters if d.topics_attribute == "YES"]
    train = [d for d in modapte if d.lewis_split == "TRAIN"]
    test = [d for d in modapte if d.lewis_split == "TEST"]
    assert (len(train), len(test)) == (9603, 3299)
    assert (sum(len(d.topics) == 1 for d in train), sum(len(d.topics) == 1 for d in test)) == (
        6552, 2581)
    assert (sum(len(d.topics) >= 1 for d in train), sum(len(d.topics) >= 1 for d in test)) == (
        7775, 3019)
    assert any("\xa0" in d.text or "\xfc" in d.text or "\xe9" in d.text
               for d in real_reuters if 17000 <= d.newid <= 18000)  # reut2-017's latin-1 byte


@shared("text", "reuters21578.tar.gz")
def test_reuters_real_multilabel_matrix():
    data = load_reuters21578(SHARED / "text" / "reuters21578.tar.gz", labels="multi")
    assert data.X_train.shape[0] == data.y_train.shape[0] == 9603
    assert data.X_test.shape[0] == data.y_test.shape[0] == 3299
    assert data.y_train.shape[1] == len(data.target_names) == 118
    assert int((data.y_train.sum(axis=1) == 1).sum()) == 6552
    assert "earn" in data.target_names and "acq" in data.target_names


@shared("text", "20news-bydate.tar.gz")
def test_20newsgroups_real_counts():
    corpus = read_20newsgroups(SHARED / "text" / "20news-bydate.tar.gz")
    (train_texts, train_labels), (test_texts, test_labels) = corpus["train"], corpus["test"]
    assert (len(train_texts), len(test_texts)) == (11314, 7532)
    assert len(set(train_labels)) == len(set(test_labels)) == 20
    assert train_labels.count("alt.atheism") == 480


# ============================================================================= catalogue
BRIEF_NAMES = {"usps", "letter", "mnist", "satimage", "segment", "glass", "wine", "vowel",
               "sector", "iris", "shuttle", "news20", "reuters21578"}


def test_catalogue_names_and_entries():
    assert BRIEF_NAMES <= set(list_datasets())
    for name, entry in DATASETS.items():
        assert entry.name == name and entry.files and entry.format in (
            "libsvm", "idx", "csv", "news20", "reuters")
        for data_file in entry.files:
            assert data_file.url is not None or data_file.note
            assert data_file.url is None or data_file.url.startswith(("http://", "https://"))
            assert data_file.sha256 is None or len(data_file.sha256) == 64


def test_catalogue_unknown_name():
    with pytest.raises(ValueError, match="unknown data set 'nope'.*'usps'"):
        find_dataset("nope", data_dir=".")
    with pytest.raises(ValueError, match="unknown data set"):
        load("nope")


def test_shipped_letter_and_usps_are_the_libsvm_files_byte_for_byte(tmp_path):
    letter, usps = DATASETS["letter"], DATASETS["usps"]
    for packaged, data_file in zip(find_dataset("letter", data_dir=tmp_path), letter.files):
        assert hashlib.sha256(bz2.decompress(packaged.read_bytes())).hexdigest() == data_file.sha256
    for packaged, data_file in zip(find_dataset("usps", data_dir=tmp_path), usps.files):
        assert sha256(packaged) == data_file.sha256


def test_load_letter_shipped():
    X, y, X_test, y_test = load_letter()
    assert X.shape == (15000, 16) and X_test.shape == (5000, 16)
    assert isinstance(X, np.ndarray) and X.dtype == np.float64 and y.dtype.kind == "i"
    assert sorted(set(y.tolist())) == list(range(1, 27)) and np.abs(X).max() <= 1.0


def test_packaged_sets_need_no_data_directory(monkeypatch):
    monkeypatch.delenv("ONLINEAR_DATA", raising=False)
    assert [p.name for p in find_dataset("usps")] == ["usps.bz2", "usps.t.bz2"]
    X, y, X_test, y_test = load("letter")
    np.testing.assert_array_equal(X, load_letter()[0])


def test_find_dataset_missing_names_set_directory_and_files(tmp_path, monkeypatch):
    monkeypatch.delenv("ONLINEAR_DATA", raising=False)
    with pytest.raises(FileNotFoundError) as caught:
        find_dataset("satimage", data_dir=tmp_path)
    message = str(caught.value)
    assert "'satimage'" in message and str(tmp_path) in message
    assert "libsvm/satimage.scale" in message and "libsvm/satimage.scale.t" in message
    assert "fetch('satimage'" in message
    with pytest.raises(FileNotFoundError, match="'mnist': no data directory.*ONLINEAR_DATA"):
        find_dataset("mnist")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        find_dataset("glass", data_dir=tmp_path / "absent")


def test_find_dataset_layouts_and_environment(tmp_path, monkeypatch):
    glass = tmp_path / "flat"
    glass.mkdir()
    write(glass / "glass.scale.bz2", b"1 1:0.5\n2 9:1\n", "bz2")   # flat and compressed
    nested = tmp_path / "nested" / "libsvm"
    nested.mkdir(parents=True)
    write(nested / "wine.scale", b"1 1:0.5\n3 13:1\n")
    monkeypatch.setenv("ONLINEAR_DATA", f"{tmp_path / 'nested'}{__import__('os').pathsep}{glass}")
    assert find_dataset("glass") == (glass / "glass.scale.bz2",)
    assert find_dataset("wine") == (nested / "wine.scale",)
    X, y, X_test, y_test = load("glass")
    assert X.shape == (2, 9) and y.tolist() == [1, 2] and X_test is None and y_test is None
    assert find_dataset("glass", data_dir=glass) == (glass / "glass.scale.bz2",)


def test_load_formats_from_a_fixture_directory(tmp_path):
    (tmp_path / "uci").mkdir()
    (tmp_path / "uci" / "shuttle.trn").write_text("1 2 3 4 5 6 7 8 9 1\n1 2 3 4 5 6 7 8 9 4\n")
    (tmp_path / "uci" / "shuttle.tst").write_text("9 8 7 6 5 4 3 2 1 7\n")
    X, y, X_test, y_test = load("shuttle", data_dir=tmp_path)
    assert X.shape == (2, 9) and y.tolist() == [1, 4] and y_test.tolist() == [7]
    (tmp_path / "mnist").mkdir()
    images = np.arange(2 * 28 * 28, dtype=np.uint8).reshape(2, 28, 28)
    for part in ("train", "t10k"):
        write(tmp_path / "mnist" / f"{part}-images-idx3-ubyte", idx_bytes(images, 0x08))  # plain
        write(tmp_path / "mnist" / f"{part}-labels-idx1-ubyte.gz",
              idx_bytes(np.array([3, 8], np.uint8), 0x08), "gz")
    X, y, X_test, y_test = load("mnist", data_dir=tmp_path)
    assert X.shape == (2, 784) and X.dtype == np.float64 and y.tolist() == [3, 8]
    news_tarball(tmp_path / "20news-bydate.tar.gz", "20news-bydate/")
    X, y, X_test, y_test = load("news20", data_dir=tmp_path)
    assert sp.issparse(X) and X.shape[0] == 3 and y_test.tolist() == ["rec.autos", "sci.space"]


SMALL_SETS = ["letter", "letter-uci", "satimage", "segment", "glass", "wine", "vowel", "iris",
              "shuttle"]


@pytest.mark.parametrize("name", SMALL_SETS)
def test_load_real_small_sets(name):
    entry = DATASETS[name]
    if not all((SHARED / f.path).exists() for f in entry.files):
        pytest.skip("shared data not present")
    X, y, X_test, y_test = load(name, data_dir=SHARED)
    assert X.shape == (entry.n_train, entry.n_features) and isinstance(X, np.ndarray)
    assert len(np.unique(y)) == entry.n_classes
    if entry.n_test is None:
        assert X_test is None
    else:
        assert X_test.shape == (entry.n_test, entry.n_features)


@shared("mnist", "train-images-idx3-ubyte.gz")
def test_load_real_mnist():
    X, y, X_test, y_test = load("mnist", data_dir=SHARED)
    assert X.shape == (60000, 784) and X_test.shape == (10000, 784)
    assert X.max() == 255 and sorted(set(y.tolist())) == list(range(10))


REPACKED = {"mnist", "news20", "reuters21578"}  # the shared copies are not the served bytes


@shared()
def test_catalogue_digests_match_the_shared_copies():
    checked = 0
    for entry in DATASETS.values():
        for data_file in entry.files:
            local = SHARED / data_file.path
            if data_file.sha256 and local.exists() and entry.name not in REPACKED:
                assert sha256(local) == data_file.sha256, data_file.path
                checked += 1
    assert checked >= 14


@shared("mnist", "train-labels-idx1-ubyte.gz")
def test_shared_mnist_content_is_lecuns():
    """The shared .gz files are re-compressed; their content is the original (known digest)."""
    content = gzip.decompress((SHARED / "mnist" / "train-labels-idx1-ubyte.gz").read_bytes())
    assert hashlib.md5(content).hexdigest() == "a25bea736e30d166cdddb491f175f624"


# ================================================================================= fetch
class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def server(tmp_path):
    """An HTTP server on 127.0.0.1 (ephemeral port) serving ``tmp_path / "served"``."""
    root = tmp_path / "served"
    root.mkdir()
    (root / "small.txt").write_bytes(b"1 1:0.5\n2 2:1\n")
    handler = partial(QuietHandler, directory=str(root))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", root
    httpd.shutdown()
    httpd.server_close()
    thread.join()


def closed_port_url():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/small.txt"


def leftovers(folder):
    """Partial files and staging folders left in ``folder``."""
    return [p.name for p in Path(folder).iterdir() if p.name.endswith(".part")]


@pytest.fixture
def waits(monkeypatch):
    """pooch's waits between attempts (1 s, then 2 s), recorded instead of slept."""
    import pooch.core

    recorded = []
    monkeypatch.setattr(pooch.core, "time", SimpleNamespace(sleep=recorded.append))
    return recorded


class ScriptedHandler(http.server.BaseHTTPRequestHandler):
    """Answers each GET with the next status of ``script`` (then 200), ``PAYLOAD`` on 200;
    records the paths asked for in ``hits``."""

    script = hits = None

    def do_GET(self):
        self.hits.append(self.path)
        status = self.script.pop(0) if self.script else 200
        body = b"1 1:0.5\n2 2:1\n" if status == 200 else b"busy"
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def scripted_server():
    """``(base URL, script, hits)``: fill ``script`` with the statuses to answer."""
    script, hits = [], []
    handler = type("Handler", (ScriptedHandler,), {"script": script, "hits": hits})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", script, hits
    httpd.shutdown()
    httpd.server_close()
    thread.join()


def test_fetch_good_checksum(server, tmp_path, capfd):
    base, root = server
    digest = sha256(root / "small.txt")
    path = fetch(f"{base}/small.txt", tmp_path / "dest", sha256=digest.upper())
    assert path == tmp_path / "dest" / "small.txt"
    assert path.read_bytes() == (root / "small.txt").read_bytes()
    assert leftovers(tmp_path / "dest") == []
    X, _ = load_libsvm(path)
    assert X.shape == (2, 2)
    assert capfd.readouterr().err == ""  # pooch logs each download; the library stays silent


def test_fetch_bad_checksum_deletes_the_file(server, tmp_path, waits):
    base, _ = server
    with pytest.raises(ChecksumError, match=r"/small\.txt: SHA-256 mismatch: expected 0{64}, "
                                            r"got [0-9a-f]{64}; .*deleted \(3 attempts\)"):
        fetch(f"{base}/small.txt", tmp_path / "dest", sha256="0" * 64)
    assert waits == [1, 2]  # a mismatch may be a corrupted transfer: pooch tries again
    assert not (tmp_path / "dest").exists()  # no file, no staging folder, no empty folder
    (tmp_path / "mine").mkdir()
    with pytest.raises(ChecksumError):
        fetch(f"{base}/small.txt", tmp_path / "mine" / "sub", sha256="0" * 64)
    assert list((tmp_path / "mine").iterdir()) == []  # the user's own folder stays, empty


def test_fetch_server_down(tmp_path, waits):
    with pytest.raises(DownloadError, match=r"could not download http://127\.0\.0\.1:\d+/small"
                                            r"\.txt: .*refused \(3 attempts\)"):
        fetch(closed_port_url(), tmp_path / "dest", timeout=5)
    assert waits == [1, 2]
    assert not (tmp_path / "dest").exists()


def test_fetch_http_error(server, tmp_path, waits):
    base, _ = server
    with pytest.raises(DownloadError, match=r"/absent\.txt: HTTP Error 404: File not found$"):
        fetch(f"{base}/absent.txt", tmp_path / "dest")
    assert waits == []  # another attempt would not find it either
    assert not (tmp_path / "dest").exists()


def test_fetch_server_error_is_retried_then_reported(scripted_server, tmp_path, waits):
    base, script, hits = scripted_server
    script.extend([503, 503, 503])
    with pytest.raises(DownloadError, match=r"could not download http://127\.0\.0\.1:\d+/a\.txt: "
                                            r"HTTP Error 503: Service Unavailable \(3 attempts\)"):
        fetch(f"{base}/a.txt", tmp_path / "dest")
    assert hits == ["/a.txt"] * (1 + RETRIES) and waits == [1, 2]
    assert not (tmp_path / "dest").exists()


def test_fetch_a_transient_failure_then_success(scripted_server, tmp_path, waits):
    base, script, hits = scripted_server
    script.extend([502])
    digest = hashlib.sha256(b"1 1:0.5\n2 2:1\n").hexdigest()
    path = fetch(f"{base}/a.txt", tmp_path / "dest", sha256=digest)
    assert path.read_bytes() == b"1 1:0.5\n2 2:1\n"
    assert hits == ["/a.txt", "/a.txt"] and waits == [1]
    assert sorted(p.name for p in (tmp_path / "dest").iterdir()) == ["a.txt"]


def test_fetch_file_url(tmp_path, waits):
    source = tmp_path / "source" / "small.txt"
    source.parent.mkdir()
    source.write_bytes(b"1 1:0.5\n")
    path = fetch(source.as_uri(), tmp_path / "dest", sha256=sha256(source))
    assert path.read_bytes() == b"1 1:0.5\n"
    with pytest.raises(DownloadError, match=r"could not download file://.*/absent\.txt: .*No such"):
        fetch((tmp_path / "source" / "absent.txt").as_uri(), tmp_path / "other")
    with pytest.raises(ChecksumError, match="deleted$"):  # a local file: no second attempt
        fetch(source.as_uri(), tmp_path / "other", sha256="0" * 64)
    assert waits == [] and not (tmp_path / "other").exists()


class FakeFTPHandler(socketserver.StreamRequestHandler):
    """Just enough FTP (RFC 959) for ftplib's passive RETR: greets with ``greeting`` and, if
    that is 220, serves ``b"1 1:0.5\\n"`` for any path; counts the connections."""

    greeting = connections = None

    def handle(self):
        self.connections.append(self.client_address)
        self.reply(self.greeting)
        listener = None
        for line in self.rfile if self.greeting.startswith("220") else ():
            command = line.decode("ascii").split(" ", 1)[0].strip().upper()
            if command == "PASV":
                listener = socket.create_server(("127.0.0.1", 0))
                port = listener.getsockname()[1]
                self.reply(f"227 Entering Passive Mode (127,0,0,1,{port >> 8},{port & 255})")
            elif command == "RETR":
                self.reply("150 sending")
                connection, _ = listener.accept()
                with connection:
                    connection.sendall(b"1 1:0.5\n")
                listener.close()
                self.reply("226 done")
            elif command == "QUIT":
                self.reply("221 bye")
                return
            else:  # USER, PASS, TYPE
                self.reply({"USER": "331 password", "PASS": "230 in"}.get(command, "200 ok"))

    def reply(self, text):
        self.wfile.write(text.encode("ascii") + b"\r\n")
        self.wfile.flush()


@pytest.mark.parametrize("greeting, attempts, expected", [
    ("220 ready", 1, None),
    ("421 too many users", 3, r"could not download ftp://127\.0\.0\.1:\d+/pub/small\.txt: 421 "
                              r"too many users \(3 attempts\)"),
    ("530 not for you", 1, r"could not download ftp://.*: 530 not for you$"),
])
def test_fetch_ftp(tmp_path, waits, greeting, attempts, expected):
    connections = []
    handler = type("Handler", (FakeFTPHandler,), {"greeting": greeting,
                                                   "connections": connections})
    with socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler) as ftpd:
        ftpd.daemon_threads = True
        thread = threading.Thread(target=ftpd.serve_forever, args=(0.05,), daemon=True)
        thread.start()
        url = f"ftp://127.0.0.1:{ftpd.server_address[1]}/pub/small.txt"
        try:
            if expected is None:
                digest = hashlib.sha256(b"1 1:0.5\n").hexdigest()
                assert fetch(url, tmp_path / "d", sha256=digest, timeout=10).read_bytes() == \
                    b"1 1:0.5\n"
            else:
                with pytest.raises(DownloadError, match=expected):
                    fetch(url, tmp_path / "d", timeout=10)
                assert not (tmp_path / "d").exists()
        finally:
            ftpd.shutdown()
            thread.join()
    assert len(connections) == attempts and len(waits) == attempts - 1


def test_fetch_keeps_a_verified_file_and_replaces_a_bad_one(server, tmp_path):
    base, root = server
    digest = sha256(root / "small.txt")
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / "small.txt").write_bytes(b"stale")
    assert fetch(f"{base}/small.txt", dest, sha256=digest).read_bytes() == b"1 1:0.5\n2 2:1\n"
    (root / "small.txt").unlink()  # from now on the server has nothing
    assert fetch(f"{base}/small.txt", dest, sha256=digest).exists()  # verified: no download
    assert fetch(f"{base}/small.txt", dest).exists()                 # no digest: kept
    with pytest.raises(DownloadError, match="404"):
        fetch(f"{base}/small.txt", dest, force=True)
    assert (dest / "small.txt").read_bytes() == b"1 1:0.5\n2 2:1\n"  # a failed download keeps it
    assert sorted(p.name for p in dest.iterdir()) == ["small.txt"]


def test_fetch_force_downloads_again(server, tmp_path):
    base, root = server
    dest = tmp_path / "dest"
    first = fetch(f"{base}/small.txt", dest)
    (root / "small.txt").write_bytes(b"3 1:1\n")  # the server's copy changed
    assert fetch(f"{base}/small.txt", dest).read_bytes() == b"1 1:0.5\n2 2:1\n"  # kept
    digest = hashlib.sha256(b"1 1:0.5\n2 2:1\n").hexdigest()
    assert fetch(f"{base}/small.txt", dest, sha256=digest) == first  # verified: kept
    assert fetch(f"{base}/small.txt", dest, force=True).read_bytes() == b"3 1:1\n"
    assert sorted(p.name for p in dest.iterdir()) == ["small.txt"]


def test_fetch_rejects_bad_arguments(tmp_path):
    catalogue_or_url = r"neither a data set of the catalogue \(\[.*'usps'.*\]\) nor a URL"
    with pytest.raises(ValueError, match=catalogue_or_url):
        fetch("no-such-set", tmp_path)
    with pytest.raises(ValueError, match="64 hexadecimal digits"):
        fetch("http://127.0.0.1:9/x", tmp_path, sha256="abc")
    with pytest.raises(ValueError, match="sha256 is for a URL"):
        fetch("usps", tmp_path, sha256="0" * 64)


def test_fetch_catalogue_entry_with_mirror_then_find_it(server, tmp_path, monkeypatch, waits):
    base, root = server
    digest = sha256(root / "small.txt")
    entry = Dataset("tiny", "test entry", "libsvm", (
        DataFile("libsvm/tiny.scale", closed_port_url(), digest, mirrors=(f"{base}/small.txt",)),
    ), 2, None, 2, 2, dict(n_features=2))
    monkeypatch.setitem(DATASETS, "tiny", entry)
    paths = fetch("tiny", tmp_path / "data", timeout=5)
    assert waits == [1, 2]  # the main address, three times, then the mirror
    assert paths == [tmp_path / "data" / "libsvm" / "tiny.scale"]
    assert find_dataset("tiny", data_dir=tmp_path / "data") == (paths[0],)
    X, y, X_test, _ = load("tiny", data_dir=tmp_path / "data")
    assert X.shape == (2, 2) and y.tolist() == [1, 2] and X_test is None


def test_fetch_catalogue_mirror_after_a_missing_file(scripted_server, tmp_path, monkeypatch,
                                                    waits):
    base, script, hits = scripted_server
    script.extend([404])
    digest = hashlib.sha256(b"1 1:0.5\n2 2:1\n").hexdigest()
    entry = Dataset("tiny-moved", "moved", "libsvm", (
        DataFile("libsvm/tiny.scale", f"{base}/gone.txt", digest,
                 mirrors=(f"{base}/copy.txt", f"{base}/never.txt")),), 2, None, 2, 2, {})
    monkeypatch.setitem(DATASETS, "tiny-moved", entry)
    assert fetch("tiny-moved", tmp_path / "data")[0].read_bytes() == b"1 1:0.5\n2 2:1\n"
    assert hits == ["/gone.txt", "/copy.txt"] and waits == []  # a 404 is not retried


def test_fetch_catalogue_entry_errors(server, tmp_path, monkeypatch, waits):
    base, _ = server
    bad = Dataset("tiny-bad", "wrong digest everywhere", "libsvm", (
        DataFile("libsvm/tiny.scale", f"{base}/small.txt", "1" * 64,
                 mirrors=(f"{base}/small.txt",)),), 2, None, 2, 2, dict(n_features=2))
    unlisted = Dataset("tiny-manual", "no URL", "csv", (
        DataFile("uci/manual.trn", None, None, note="get it by hand"),
        DataFile("uci/small.txt", f"{base}/small.txt", None)), 2, None, 2, 2, {})
    monkeypatch.setitem(DATASETS, "tiny-bad", bad)
    monkeypatch.setitem(DATASETS, "tiny-manual", unlisted)
    with pytest.raises(ChecksumError, match="every address failed for tiny.scale: http://.*"
                                            "mismatch.*; http://.*mismatch"):
        fetch("tiny-bad", tmp_path / "data")
    assert not (tmp_path / "data").exists()
    with pytest.warns(UserWarning, match="not verified"):
        with pytest.raises(DownloadError, match="no direct download for uci/manual.trn: get it"):
            fetch("tiny-manual", tmp_path / "data")
    assert (tmp_path / "data" / "uci" / "small.txt").exists()  # what could be fetched was


# ============================================================================= synthetic
def test_chessboard_labels_follow_the_squares():
    X, y = make_chessboard(10_000, random_state=3)
    assert X.shape == (10_000, 2) and X.min() >= 0.0 and X.max() <= 1.0
    i, j = np.floor(8 * X[:, 0]).astype(int), np.floor(8 * X[:, 1]).astype(int)
    np.testing.assert_array_equal(y, (i + j) % 8 + 1)
    counts = np.bincount(y)[1:]
    assert counts.shape == (8,) and np.all(np.abs(counts / 10_000 - 1 / 8) < 0.02)


def test_chessboard_edges_seeds_and_options():
    X1, y1 = make_chessboard(100, random_state=7)
    X2, y2 = make_chessboard(100, random_state=np.random.default_rng(7))
    np.testing.assert_array_equal(X1, X2)
    assert not np.array_equal(X1, make_chessboard(100, random_state=8)[0])
    X, y = make_chessboard(500, n_cells=4, n_classes=3, random_state=0)
    i, j = np.floor(4 * X[:, 0]).astype(int), np.floor(4 * X[:, 1]).astype(int)
    np.testing.assert_array_equal(y, (i + j) % 3 + 1)
    with pytest.raises(ValueError):
        make_chessboard(-1)


@pytest.mark.parametrize("seed, k, n, gamma", [(0, 2, 2, 0.05), (1, 5, 10, 0.03), (2, 10, 20, 0.01),
                                                (3, 3, 5, 0.1)])
def test_separable_margin_at_least_requested(seed, k, n, gamma):
    data = make_separable(300, n, k, margin=gamma, radius=2.0, random_state=seed)
    X, y, M = data.X, data.y, data.M
    assert X.shape == (300, n) and M.shape == (k, n)
    assert np.isclose(np.linalg.norm(M), 1.0)
    scores = X @ M.T
    np.testing.assert_array_equal(y, scores.argmax(axis=1))
    others = scores.copy()
    others[np.arange(300), y] = -np.inf
    margins = scores[np.arange(300), y] - others.max(axis=1)
    assert data.margin >= gamma and np.isclose(data.margin, margins.min())
    norms = np.linalg.norm(X, axis=1)
    assert np.isclose(data.radius, norms.max()) and data.radius <= 2.0
    assert norms.min() >= 0.3 * 2.0 - 1e-12


def test_separable_is_seeded_and_gives_up_on_impossible_margins():
    a, b = make_separable(50, random_state=5), make_separable(50, random_state=5)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    with pytest.raises(RuntimeError, match="smaller margin"):
        make_separable(10, 5, 3, margin=5.0, max_draws=10_000, random_state=0)


def test_separable_data_keeps_the_perceptron_mistake_bound():
    """Crammer & Singer's Theorem 3 with the realised γ and R: updates ≤ 2R²/γ²."""
    data = make_separable(300, 5, 4, margin=0.05, random_state=11)
    model = onlinear.make("perceptron-uniform")
    model.partial_fit(data.X, data.y, classes=range(4))
    for _ in range(200):  # n_updates_ counts since the first partial_fit
        before = model.n_updates_
        model.partial_fit(data.X, data.y)
        if model.n_updates_ == before:
            break
    assert model.n_updates_ == before  # converged: an epoch without updates
    assert 0 < model.n_updates_ <= 2 * data.radius ** 2 / data.margin ** 2


def test_simplex_blocks_properties():
    data = make_simplex_blocks(200, block_size=5, n_features=100, n_relevant=20,
                               n_margin_samples=20_000, random_state=4)
    X, omega = data.X, data.omega
    assert X.shape == (200, 5, 100) and data.y.shape == (200, 5)
    assert set(np.unique(X).tolist()) <= {-1.0, 0.0, 1.0}
    assert np.all(omega >= 0) and np.isclose(omega.sum(), 1.0) and (omega > 0).sum() == 20
    scores = X @ omega
    assert np.all(np.abs(scores) >= data.margin) and data.margin > 0
    np.testing.assert_array_equal(data.y_clean, np.sign(scores))
    np.testing.assert_array_equal(data.y, data.y_clean)  # no noise by default
    assert not data.noisy.any()
    assert abs((X == 0).mean() - 0.5) < 0.02  # p_zero
    # γ_gen is the 75% quantile of |ω·x| on raw instances: about 3/4 would be rejected.
    rng = np.random.default_rng(0)
    raw = rng.choice([-1, 0, 0, 1], size=(20_000, 100)) @ omega
    assert abs((np.abs(raw) < data.margin).mean() - 0.75) < 0.02


def test_simplex_blocks_noise_and_seeds():
    noisy = make_simplex_blocks(2000, block_size=4, n_features=50, n_relevant=10, noise=0.2,
                                flip=0.4, n_margin_samples=10_000, random_state=9)
    flipped = noisy.y != noisy.y_clean
    assert not flipped[~noisy.noisy].any()
    assert abs(noisy.noisy.mean() - 0.2) < 0.03
    assert abs(flipped[noisy.noisy].mean() - 0.4) < 0.04
    again = make_simplex_blocks(2000, block_size=4, n_features=50, n_relevant=10, noise=0.2,
                                flip=0.4, n_margin_samples=10_000, random_state=9)
    np.testing.assert_array_equal(noisy.X, again.X)
    np.testing.assert_array_equal(noisy.y, again.y)
    everything = make_simplex_blocks(10, block_size=3, n_features=20, n_relevant=5, noise=1.0,
                                     flip=1.0, n_margin_samples=5_000, random_state=1)
    np.testing.assert_array_equal(everything.y, -everything.y_clean)
    with pytest.raises(ValueError, match="exceeds"):
        make_simplex_blocks(10, n_features=5, n_relevant=6)


# ------------------------------------------------------------------ the format registry
def test_the_format_registry_reads_a_file_by_its_suffix_whole_or_in_chunks(tmp_path):
    from onlinear.data import FORMATS, format_of, iter_csv_chunks, load_csv, read_chunks, read_file

    rng = np.random.default_rng(2)
    X, y = np.round(rng.normal(size=(23, 3)), 3), rng.integers(0, 4, size=23)
    csv_path, svm_path = tmp_path / "t.csv.gz", tmp_path / "t.svm"
    import gzip
    with gzip.open(csv_path, "wt") as handle:
        handle.write("a,b,c,label\n" + "".join(
            f"{a},{b},{c},{label}\n" for (a, b, c), label in zip(X, y)))
    dump_svmlight_file(X, y, str(svm_path), zero_based=False)
    assert format_of(csv_path) is FORMATS["csv"] and format_of(svm_path) is FORMATS["libsvm"]
    assert format_of("-") is FORMATS["libsvm"] and format_of(svm_path, "csv") is FORMATS["csv"]
    whole_X, whole_y = read_file(csv_path)
    np.testing.assert_array_equal(whole_X, X)
    np.testing.assert_array_equal(whole_y, y)
    chunks = list(read_chunks(csv_path, 5))
    assert [len(c[1]) for c in chunks] == [5, 5, 5, 5, 3]
    np.testing.assert_array_equal(np.vstack([c[0] for c in chunks]), X)
    assert list(iter_csv_chunks(csv_path, 5))[1][1].tolist() == y[5:10].tolist()
    assert [c[1].tolist() for c in read_chunks(svm_path, 10)] == [
        y[:10].tolist(), y[10:20].tolist(), y[20:].tolist()]
    np.testing.assert_array_equal(load_csv(csv_path)[0], X)
    with pytest.raises(ValueError, match="unknown data format 'parquet'"):
        format_of(csv_path, "parquet")
    with pytest.raises(ValueError, match=r"take the options .*got \['zero_based'\]"):
        read_file(csv_path, zero_based=True)
    with pytest.raises(ValueError, match="not one file"):
        read_file(tmp_path / "x.idx")


def test_a_csv_stream_keeps_the_first_chunks_label_type_and_names_a_line_that_breaks_it(
        tmp_path):
    from onlinear.data import FileFormatError, iter_csv_chunks

    path = tmp_path / "s.csv"
    path.write_text("1,0,3\n0,1,7\n\n1,1,seven\n")
    chunks = iter_csv_chunks(path, 2)
    assert next(chunks)[1].tolist() == [3, 7]
    with pytest.raises(FileFormatError, match=r"line 4: label 'seven' is not an integer"):
        next(chunks)
    path.write_text("1,0,3.5\n0,1,2\n")
    assert [c[1].tolist() for c in iter_csv_chunks(path, 1)] == [[3.5], [2.0]]


def _corrupt_bz2(path, text):
    """``text`` bzip2-compressed into ``path`` with a byte of its middle flipped: bz2 then
    raises a bare ``OSError('Invalid data stream')`` (a bad block's checksum)."""
    data = bytearray(bz2.compress(text.encode()))
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(OSError, match="Invalid data stream"):
        bz2.decompress(bytes(data))
    return path


def test_corrupt_bzip2_data_is_a_format_error_naming_the_file(tmp_path):
    """gzip's and xz's bad data were a FileFormatError naming the file, bzip2's a bare
    OSError('Invalid data stream'), which named none."""
    from onlinear.data import iter_csv_chunks, libsvm_labels

    rng = np.random.default_rng(2)
    rows = [(int(k), rng.integers(1, 50, size=3)) for k in rng.integers(0, 3, size=3000)]
    svm = _corrupt_bz2(tmp_path / "bad.svm.bz2", "".join(
        f"{k} {' '.join(f'{i}:{v}' for i, v in enumerate(sorted(set(r)), 1))}\n"
        for k, r in rows))
    table = _corrupt_bz2(tmp_path / "bad.csv.bz2", "".join(
        f"{','.join(map(str, r))},{k}\n" for k, r in rows))
    for read in (lambda: load_libsvm(svm), lambda: list(iter_libsvm_chunks(svm, 100, None)),
                 lambda: libsvm_labels(svm)):
        with pytest.raises(FileFormatError, match=r"bad\.svm\.bz2: corrupt or truncated "
                                                  r"compressed data \(Invalid data stream\)"):
            read()
    for read in (lambda: load_csv(table), lambda: list(iter_csv_chunks(table, 100))):
        with pytest.raises(FileFormatError, match=r"bad\.csv\.bz2: corrupt or truncated "
                                                  r"compressed data \(Invalid data stream\)"):
            read()


def test_an_error_of_the_system_while_reading_is_not_called_corrupt_data(tmp_path):
    import errno

    from onlinear.data._files import reading

    with pytest.raises(OSError) as caught, reading(tmp_path / "f"):
        raise OSError(errno.EIO, "Input/output error")
    assert not isinstance(caught.value, FileFormatError)


@pytest.mark.parametrize("mask", [0o022, 0o002, 0o077])
def test_fetch_gives_the_file_the_mode_an_ordinary_open_would(tmp_path, waits, mask):
    """pooch's temporary file is 0600: moved into place as it was, a file fetched into a shared
    data folder was unreadable to the others, whatever the umask."""
    import os
    import stat

    source = tmp_path / "source.txt"
    source.write_bytes(b"1 1:0.5\n")
    before = os.umask(mask)
    try:
        path = fetch(source.as_uri(), tmp_path / "dest", sha256=sha256(source))
    finally:
        os.umask(before)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask


def test_whole_number_labels_beyond_int64_stay_floats():
    """Cast to int64, LIBSVM labels 1e19 and -1e19 both wrapped to -2**63: one class."""
    from onlinear.data import whole_number_labels

    y = whole_number_labels(np.array([1e19, -1e19, 1e19]))
    assert y.dtype.kind == "f" and y.tolist() == [1e19, -1e19, 1e19]
    assert whole_number_labels(np.array([2.0**63])).dtype.kind == "f"
    y = whole_number_labels(np.array([-2.0**63, 3.0]))  # the least int64 is one
    assert y.dtype == np.int64 and y.tolist() == [-2**63, 3]
