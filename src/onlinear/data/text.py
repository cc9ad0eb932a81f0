"""Raw text corpora to tf-idf matrices: 20 Newsgroups ("bydate") and Reuters-21578 (ModApte).

Both readers take the distributed archive (a tarball, any compression) or the folder it
unpacks to.  The tf-idf vectorizer is fitted on the training documents only and then applied
to the test documents, so that no statistic of the test set leaks into the features.
"""
import html
import os
import re
import tarfile
from typing import NamedTuple

import numpy as np

from ._files import FileFormatError, reading

__all__ = ["TextDataset", "ReutersDocument", "read_20newsgroups", "load_20newsgroups",
           "read_reuters21578", "load_reuters21578"]

# The largest file of 20 Newsgroups ("bydate") is 160 KB and of Reuters-21578 1.5 MB; each
# corpus unpacks to under 40 MB.  The caps leave ample room and stop a decompression bomb.
MAX_FILE_SIZE = 64 * 2**20
"""Default cap, in bytes, on one file of a text corpus (the ``max_file_size`` arguments)."""
MAX_TOTAL_SIZE = 2**30
"""Default cap, in bytes, on all the files of a text corpus read together."""

_NEWS_SPLITS = {"20news-bydate-train": "train", "20news-bydate-test": "test"}
_SGML_FILE = re.compile(r"reut2-\d{3}\.sgm$")
_DOCUMENT = re.compile(r"<REUTERS([^>]*)>(.*?)</REUTERS>", re.S)
_ATTRIBUTE = re.compile(r'([\w-]+)="([^"]*)"')
_TOPICS = re.compile(r"<TOPICS>(.*?)</TOPICS>", re.S)
_D = re.compile(r"<D>(.*?)</D>", re.S)
_TEXT = re.compile(r"<TEXT[^>]*>(.*?)</TEXT>", re.S)
_TAG = re.compile(r"<[^>]+>")


class TextDataset(NamedTuple):
    """A vectorized text corpus with its train/test split.

    Parameters
    ----------
    X_train : sparse matrix (CSR)
        tf-idf matrix of the training documents.
    y_train : ndarray
        Labels: class names, or a 0/1 indicator matrix (columns = ``target_names``).
    X_test : sparse matrix (CSR)
        tf-idf matrix of the test documents (same columns as ``X_train``).
    y_test : ndarray
        Labels of the test documents, as ``y_train``.
    target_names : list of str
        The class names, sorted.
    vectorizer : object
        The fitted vectorizer (its vocabulary gives the meaning of the columns of ``X``).
    """

    X_train: object
    """tf-idf matrix (CSR) of the training documents."""
    y_train: np.ndarray
    """Labels: class names, or a 0/1 indicator matrix (columns = ``target_names``)."""
    X_test: object
    y_test: np.ndarray
    target_names: list
    """The class names, sorted."""
    vectorizer: object
    """The fitted vectorizer (its vocabulary gives the meaning of the columns of ``X``)."""


class ReutersDocument(NamedTuple):
    """One ``<REUTERS>`` element of Reuters-21578.

    Parameters
    ----------
    newid : int
        ``NEWID``, the document's identifier.
    lewis_split : str
        ``LEWISSPLIT``: "TRAIN", "TEST" or "NOT-USED".
    topics_attribute : str
        ``TOPICS``: "YES", "NO" or "BYPASS" (whether the document was indexed for topics).
    topics : tuple of str
        The topic categories in ``<TOPICS>``, in document order (possibly none).
    text : str
        The content of ``<TEXT>`` (title, dateline, body) without tags, entities decoded.
    """

    newid: int
    lewis_split: str
    """``LEWISSPLIT``: "TRAIN", "TEST" or "NOT-USED"."""
    topics_attribute: str
    """``TOPICS``: "YES", "NO" or "BYPASS" (whether the document was indexed for topics)."""
    topics: tuple
    """The topic categories in ``<TOPICS>``, in document order (possibly none)."""
    text: str
    """The content of ``<TEXT>`` (title, dateline, body) without tags, entities decoded."""


# ------------------------------------------------------------------------- 20 Newsgroups
def read_20newsgroups(path, *, max_file_size=MAX_FILE_SIZE,
                      max_total_size=MAX_TOTAL_SIZE):
    """The messages of the 20 Newsgroups "bydate" distribution, split as distributed.

    The class of a message is the name of its folder; ``20news-bydate-train/`` and
    ``20news-bydate-test/`` give the split (11,314 and 7,532 messages in the original).
    Messages are decoded as latin-1 and ordered by class, then by message number.

    Parameters
    ----------
    path : str or path-like
        ``20news-bydate.tar.gz`` or the folder holding ``20news-bydate-train/`` and
        ``20news-bydate-test/`` (directly or one level down).
    max_file_size, max_total_size : int, default 64 MiB and 1 GiB
        Caps in bytes on one file and on all the files read (checked before reading them); a
        larger file raises :class:`FileFormatError`.

    Returns
    -------
    dict
        ``{"train": (texts, labels), "test": (texts, labels)}`` with lists of strings.

    Examples
    --------
    See :func:`load_20newsgroups`.
    """
    found = {"train": [], "test": []}
    for parts, content in _files(path, max_file_size=max_file_size,
                                 max_total_size=max_total_size):
        split_at = [i for i, part in enumerate(parts) if part in _NEWS_SPLITS]
        if not split_at or len(parts) != split_at[-1] + 3:
            continue
        i = split_at[-1]
        label, name = parts[i + 1], parts[i + 2]
        order = (0, int(name), "") if name.isdigit() else (1, 0, name)
        found[_NEWS_SPLITS[parts[i]]].append((label, order, content.decode("latin-1")))
    if not found["train"] and not found["test"]:
        raise FileFormatError(path, "no 20news-bydate-train/ or 20news-bydate-test/ folder of "
                              "messages found")
    result = {}
    for split, messages in found.items():
        messages.sort(key=lambda message: message[:2])
        result[split] = ([text for _, _, text in messages], [label for label, _, _ in messages])
    return result


def load_20newsgroups(path, *, vectorizer=None, max_file_size=MAX_FILE_SIZE,
                      max_total_size=MAX_TOTAL_SIZE):
    """20 Newsgroups "bydate" as tf-idf features; labels are the newsgroup names.

    Parameters
    ----------
    path : str or path-like
        ``20news-bydate.tar.gz`` or its unpacked folder (see :func:`read_20newsgroups`).
    vectorizer : scikit-learn text vectorizer, optional
        Fitted on the training messages, then applied to the test messages.  Default
        ``TfidfVectorizer()``.
    max_file_size, max_total_size : int, default 64 MiB and 1 GiB
        Caps in bytes on one file and on all the files read (checked before reading them); a
        larger file raises :class:`FileFormatError`.

    Returns
    -------
    TextDataset
        ``X_train, y_train, X_test, y_test, target_names, vectorizer``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from onlinear.data import load_20newsgroups
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> messages = {"train/sci.space/1": "orbit rocket launch", "train/rec.autos/2": "engine car",
    ...             "train/rec.autos/3": "car wheel", "test/sci.space/4": "rocket"}
    >>> for name, text in messages.items():
    ...     split, group, number = name.split("/")
    ...     folder = root / f"20news-bydate-{split}" / group
    ...     folder.mkdir(parents=True, exist_ok=True)
    ...     _ = (folder / number).write_text(text)
    >>> data = load_20newsgroups(root)
    >>> data.X_train.shape, data.X_test.shape
    ((3, 6), (1, 6))
    >>> data.y_train.tolist(), data.target_names
    (['rec.autos', 'rec.autos', 'sci.space'], ['rec.autos', 'sci.space'])
    """
    corpus = read_20newsgroups(path, max_file_size=max_file_size,
                               max_total_size=max_total_size)
    (train_texts, train_labels), (test_texts, test_labels) = corpus["train"], corpus["test"]
    return _vectorize(train_texts, np.array(train_labels), test_texts, np.array(test_labels),
                      sorted(set(train_labels) | set(test_labels)), vectorizer)


# ------------------------------------------------------------------------- Reuters-21578
def read_reuters21578(path, *, max_file_size=MAX_FILE_SIZE,
                      max_total_size=MAX_TOTAL_SIZE):
    """Every document of Reuters-21578 (Distribution 1.0, the ``reut2-NNN.sgm`` files).

    Files are decoded as UTF-8, or as latin-1 where that fails (``reut2-017.sgm`` holds one
    byte that is not UTF-8).  Documents come in file order (= ``NEWID`` order).

    Parameters
    ----------
    path : str or path-like
        ``reuters21578.tar.gz`` or a folder holding the ``.sgm`` files (at any depth).
    max_file_size, max_total_size : int, default 64 MiB and 1 GiB
        Caps in bytes on one file and on all the files read (checked before reading them); a
        larger file raises :class:`FileFormatError`.

    Returns
    -------
    list of ReutersDocument

    Examples
    --------
    See :func:`load_reuters21578`.
    """
    documents = []
    files = _files(path, keep=lambda name: _SGML_FILE.search(name), max_file_size=max_file_size,
                   max_total_size=max_total_size)
    for parts, content in sorted(files):
        try:
            sgml = content.decode("utf-8")
        except UnicodeDecodeError:
            sgml = content.decode("latin-1")
        for match in _DOCUMENT.finditer(sgml):
            attributes = dict(_ATTRIBUTE.findall(match[1]))
            body = match[2]
            topics = _TOPICS.search(body)
            text = _TEXT.search(body)
            documents.append(ReutersDocument(
                newid=int(attributes.get("NEWID", -1)),
                lewis_split=attributes.get("LEWISSPLIT", ""),
                topics_attribute=attributes.get("TOPICS", ""),
                topics=tuple(d.strip() for d in _D.findall(topics[1])) if topics else (),
                text=html.unescape(_TAG.sub(" ", text[1])) if text else "",
            ))
    if not documents:
        raise FileFormatError(path, "no Reuters-21578 documents (reut2-NNN.sgm files) found")
    return documents


def load_reuters21578(path, *, labels="single", vectorizer=None, max_file_size=MAX_FILE_SIZE,
                      max_total_size=MAX_TOTAL_SIZE):
    """Reuters-21578, ModApte split, as tf-idf features.

    The ModApte split keeps the documents with ``TOPICS="YES"``: ``LEWISSPLIT="TRAIN"`` for
    training (9,603 documents) and ``"TEST"`` for testing (3,299).

    Parameters
    ----------
    path : str or path-like
        ``reuters21578.tar.gz`` or a folder holding the ``.sgm`` files.
    labels : {"single", "multi"}, default="single"
        ``"single"``: only the documents with exactly one topic (6,552 / 2,581), labelled by
        that topic's name.  ``"multi"``: every ModApte document, labelled by a 0/1 indicator
        matrix whose columns are ``target_names`` (the topics occurring in the split's
        documents); a document indexed for topics but given none has a row of zeros.
    vectorizer : scikit-learn text vectorizer, optional
        Fitted on the training documents.  Default ``TfidfVectorizer()``.
    max_file_size, max_total_size : int, default 64 MiB and 1 GiB
        Caps in bytes on one file and on all the files read (checked before reading them); a
        larger file raises :class:`FileFormatError`.

    Returns
    -------
    TextDataset
        ``X_train, y_train, X_test, y_test, target_names, vectorizer``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from onlinear.data import load_reuters21578
    >>> def document(newid, split, topics, body):
    ...     tags = "".join(f"<D>{t}</D>" for t in topics)
    ...     return (f'<REUTERS TOPICS="YES" LEWISSPLIT="{split}" NEWID="{newid}">'
    ...             f"<TOPICS>{tags}</TOPICS><TEXT><BODY>{body}</BODY></TEXT></REUTERS>\\n")
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "reut2-000.sgm").write_text(
    ...     document(1, "TRAIN", ["grain"], "wheat harvest")
    ...     + document(2, "TRAIN", ["grain", "wheat"], "wheat prices")
    ...     + document(3, "TEST", ["earn"], "net profit &lt;up&gt;"))
    >>> single = load_reuters21578(folder)
    >>> single.y_train.tolist(), single.y_test.tolist()
    (['grain'], ['earn'])
    >>> multi = load_reuters21578(folder, labels="multi")
    >>> multi.target_names
    ['earn', 'grain', 'wheat']
    >>> multi.y_train
    array([[0, 1, 0],
           [0, 1, 1]], dtype=int8)
    """
    if labels not in ("single", "multi"):
        raise ValueError(f'labels must be "single" or "multi"; got {labels!r}.')
    documents = read_reuters21578(path, max_file_size=max_file_size,
                                  max_total_size=max_total_size)
    documents = [d for d in documents if d.topics_attribute == "YES"]
    train = [d for d in documents if d.lewis_split == "TRAIN"]
    test = [d for d in documents if d.lewis_split == "TEST"]
    if labels == "single":
        train = [d for d in train if len(d.topics) == 1]
        test = [d for d in test if len(d.topics) == 1]
        names = sorted({d.topics[0] for d in train + test})
        y_train = np.array([d.topics[0] for d in train])
        y_test = np.array([d.topics[0] for d in test])
    else:
        names = sorted({topic for d in train + test for topic in d.topics})
        y_train, y_test = _indicator(train, names), _indicator(test, names)
    return _vectorize([d.text for d in train], y_train, [d.text for d in test], y_test, names,
                      vectorizer)


# ------------------------------------------------------------------------------- helpers
def _indicator(documents, names):
    column = {name: j for j, name in enumerate(names)}
    matrix = np.zeros((len(documents), len(names)), dtype=np.int8)
    for i, document in enumerate(documents):
        matrix[i, [column[topic] for topic in document.topics]] = 1
    return matrix


def _vectorize(train_texts, y_train, test_texts, y_test, names, vectorizer):
    if not train_texts:
        raise ValueError("the corpus has no training documents")
    if vectorizer is None:
        from sklearn.feature_extraction.text import TfidfVectorizer

        vectorizer = TfidfVectorizer()
    X_train = vectorizer.fit_transform(train_texts)
    X_test = vectorizer.transform(test_texts) if test_texts else X_train[:0]
    return TextDataset(X_train, y_train, X_test, y_test, names, vectorizer)


def _files(path, keep=lambda name: True, max_file_size=MAX_FILE_SIZE,
           max_total_size=MAX_TOTAL_SIZE):
    """``(path parts, bytes)`` of the regular files of a tarball or a folder tree.

    Sizes are checked before reading (and reads bounded, should a size lie), so that a small
    archive cannot expand into more memory than the corpus could need; a symbolic link to a
    file outside the folder is refused rather than read.
    """
    path = os.fspath(path)
    budget = _Budget(path, max_file_size, max_total_size)
    if os.path.isdir(path):
        root = os.path.realpath(path)
        for folder, subfolders, names in os.walk(path):
            subfolders.sort()
            for name in sorted(names):
                full = os.path.join(folder, name)
                relative = os.path.relpath(full, path)
                if not keep(relative.replace(os.sep, "/")):
                    continue
                real = os.path.realpath(full)
                if os.path.commonpath([root, real]) != root:
                    raise FileFormatError(full, f"a link to {real}, outside {path}; copy the "
                                          "file into the folder to read it")
                if not os.path.isfile(real):
                    continue
                with open(real, "rb") as handle:
                    content = budget.read(full, handle, os.fstat(handle.fileno()).st_size)
                yield tuple(relative.split(os.sep)), content
        return
    try:
        with reading(path):  # (a cut gzip stream can end inside the first member's header)
            archive = tarfile.open(path, "r:*")
    except tarfile.ReadError as error:
        raise FileFormatError(path, f"neither a folder nor a tar archive ({error})") from None
    with reading(path), archive:
        try:
            for member in archive:
                if member.isfile() and keep(member.name):
                    content = budget.read(f"{path}: {member.name}", archive.extractfile(member),
                                          member.size)
                    yield tuple(member.name.strip("/").split("/")), content
        except tarfile.TarError as error:
            raise FileFormatError(path, f"corrupt or truncated tar archive ({error})") from error


class _Budget:
    """The sizes read so far, against the caps on one file and on the whole corpus."""

    def __init__(self, path, max_file_size, max_total_size):
        self.path, self.max_file, self.max_total, self.total = path, max_file_size, \
            max_total_size, 0

    def read(self, name, handle, size):
        for limit, what in ((self.max_file, "max_file_size"),
                            (self.max_total - self.total, "max_total_size")):
            if size > limit:
                raise FileFormatError(self.path, f"{name} holds {size:,} bytes, more than "
                                      f"{what} allows ({limit:,} left); raise {what} if the "
                                      "corpus is really that large")
        content = handle.read(size + 1)
        if len(content) > size:
            raise FileFormatError(self.path, f"{name} holds more than its announced {size:,} "
                                  "bytes")
        if len(content) < size:
            raise FileFormatError(self.path, f"{name} is truncated: {len(content):,} of its "
                                  f"{size:,} bytes")
        self.total += len(content)
        return content
