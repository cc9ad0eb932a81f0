"""Named benchmark data sets: which files each needs, where to find them, how to load them.

The papers' data sets are not shipped (except USPS and Letter, small enough to sit in the
package): :func:`find_dataset` looks for their files in a data directory given as an argument
or in the environment variable ``ONLINEAR_DATA`` (several directories may be given, separated
by ``os.pathsep``), and :func:`load` reads them into train/test arrays.  Within a data
directory a file may sit in its sub-folder (``libsvm/letter.scale``, the layout that
:func:`onlinear.data.fetch` writes) or at the top, compressed or not (``letter.scale.bz2``).

Every entry carries the public address of its files and, where known, the SHA-256 of the file
served there, which :func:`onlinear.data.fetch` checks.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import lru_cache
from importlib.resources import files
from pathlib import Path


from .formats import FORMATS, _libsvm_split

__all__ = ["DataFile", "Dataset", "DATASETS", "list_datasets", "find_dataset", "load",
           "load_letter"]

ENVIRONMENT_VARIABLE = "ONLINEAR_DATA"

_LIBSVM = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/"
_UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases/"
_MNIST = ("http://yann.lecun.com/exdb/mnist/", "https://ossci-datasets.s3.amazonaws.com/mnist/",
          "https://storage.googleapis.com/cvdf-datasets/mnist/")


@dataclass(frozen=True)
class DataFile:
    """One file of a data set.

    Parameters
    ----------
    path : str
        Where it sits in a data directory, e.g. ``"libsvm/letter.scale"``.
    url : str or None, default=None
        Public address, or None if there is no direct download (see ``note``).
    sha256 : str or None, default=None
        SHA-256 of the file served at ``url`` (None: no published digest known).
    mirrors : tuple of str, default=()
        Other addresses of the same file, tried in order if ``url`` fails.
    note : str, default=""
        How to obtain the file when there is no direct download, or other remarks.
    """

    path: str
    """Where it sits in a data directory, e.g. ``"libsvm/letter.scale"``."""
    url: str | None = None
    """Public address, or None if there is no direct download (see ``note``)."""
    sha256: str | None = None
    """SHA-256 of the file served at ``url`` (None: no published digest known)."""
    mirrors: tuple = ()
    """Other addresses of the same file, tried in order if ``url`` fails."""
    note: str = ""

    @property
    def name(self):
        return self.path.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class Dataset:
    """A catalogue entry.

    Parameters
    ----------
    name : str
        Catalogue name (``load(name)``).
    description : str
        One line: what the data is and where it comes from.
    format : str
        How the files are read: a name of :data:`onlinear.data.formats.FORMATS` ("libsvm",
        "idx", "csv", "news20" or "reuters").
    files : tuple of DataFile
        The files, training file(s) first.
    n_train : int
        Training examples.
    n_test : int or None
        Test examples, or None when there is no test split.
    n_features : int or None
        Features (None when the reader determines them, e.g. from a vocabulary).
    n_classes : int
        Classes.
    options : dict, default={}
        Keyword arguments of the reader (e.g. ``n_features`` for LIBSVM files).
    packaged : tuple of str, default=()
        Names of copies shipped in ``onlinear/data/packaged`` (same order as ``files``).
    """

    name: str
    description: str
    format: str
    """How the files are read: a name of :data:`onlinear.data.formats.FORMATS`."""
    files: tuple
    """The :class:`DataFile` s, training file(s) first."""
    n_train: int
    n_test: int | None
    n_features: int | None
    n_classes: int
    options: dict = field(default_factory=dict)
    packaged: tuple = ()
    """Names of copies shipped in ``onlinear/data/packaged`` (same order as ``files``)."""


def _libsvm(name, description, train, test, sha_train, sha_test, n_train, n_test, n_features,
            n_classes, folder="", **options):
    data = [DataFile(f"libsvm/{train}", _LIBSVM + folder + train, sha_train)]
    if test is not None:
        data.append(DataFile(f"libsvm/{test}", _LIBSVM + folder + test, sha_test))
    return Dataset(name, description, "libsvm", tuple(data), n_train, n_test, n_features,
                   n_classes, dict(n_features=n_features, **options))


def _mnist_file(name, sha256):
    return DataFile(f"mnist/{name}", _MNIST[0] + name, sha256, tuple(m + name for m in _MNIST[1:]))


# SHA-256 digests: LIBSVM and UCI files are those of the copies in the project's shared data
# folder (for letter.scale, letter.scale.t, letter-recognition.data and shuttle.tst the same
# digests are published elsewhere); MNIST's are the published digests of LeCun's .gz files
# (the shared copies are re-compressed: same content, other bytes); 20 Newsgroups' is the one
# scikit-learn publishes for the same tarball.
_ENTRIES = [
    Dataset("usps", "USPS handwritten digits (Hull 1994), LIBSVM copy; labels 1..10 = digit + 1",
            "libsvm", (
                DataFile("libsvm/usps.bz2", _LIBSVM + "usps.bz2",
                         "08bea8f0ff55b6a6a252fa63e6ea1bf699837f814ffaef28504fbef317efee4f"),
                DataFile("libsvm/usps.t.bz2", _LIBSVM + "usps.t.bz2",
                         "01b71bd6e2e7e769f365e2335bae146e3d943a7f65d9e5d8249ceb656eb56b60")),
            7291, 2007, 256, 10, dict(n_features=256), packaged=("usps.bz2", "usps.t.bz2")),
    Dataset("letter", "UCI Letter recognition, LIBSVM scaled copy (features in [-1, 1]), "
            "LIBSVM split; labels 1..26", "libsvm", (
                DataFile("libsvm/letter.scale", _LIBSVM + "letter.scale",
                         "ce2c7df15cc5742dc4382d59079181c97c21e0beaa0af53c84cc5745c69f1020"),
                DataFile("libsvm/letter.scale.t", _LIBSVM + "letter.scale.t",
                         "07522ccbf54187fae6d560d1712b88c41ea1f7e8d19491c5adcc22ee37a075da")),
            15000, 5000, 16, 26, dict(n_features=16),
            packaged=("letter.scale.bz2", "letter.scale.t.bz2")),
    Dataset("letter-uci", "UCI Letter recognition, original integer features; first 16,000 "
            "rows train, last 4,000 test (Crammer & Singer's split); labels 'A'..'Z'", "csv", (
                DataFile("uci/letter-recognition.data",
                         _UCI + "letter-recognition/letter-recognition.data",
                         "2b89f3602cf768d3c8355267d2f13f2417809e101fc2b5ceee10db19a60de6e2"),),
            16000, 4000, 16, 26, dict(label_column=0, split_at=16000)),
    Dataset("mnist", "MNIST handwritten digits (LeCun), IDX; pixel values 0..255 as stored, "
            "labels 0..9", "idx", (
                _mnist_file("train-images-idx3-ubyte.gz",
                            "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609"),
                _mnist_file("train-labels-idx1-ubyte.gz",
                            "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c"),
                _mnist_file("t10k-images-idx3-ubyte.gz",
                            "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6"),
                _mnist_file("t10k-labels-idx1-ubyte.gz",
                            "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6")),
            60000, 10000, 784, 10),
    _libsvm("satimage", "Statlog Landsat satellite, LIBSVM scaled copy", "satimage.scale",
            "satimage.scale.t",
            "b7150252d3117712588d9d5dfeb1a409234340313a93b458f66449a2678d5542",
            "b04c60323488f5a7f571d40be5d750b279e8f3bd43729b4c109b8c013fcd8196",
            4435, 2000, 36, 6),
    _libsvm("segment", "Statlog image segmentation, LIBSVM scaled copy (no test split)",
            "segment.scale", None,
            "7c25c4529b8c84d047bc546e1e1f9a3f671c36d77f5469fb845b6e4a15bdd629", None,
            2310, None, 19, 7),
    _libsvm("glass", "Glass identification, LIBSVM scaled copy (no test split)", "glass.scale",
            None, "7c847cf67bc3dceda40890c37044cc569b2603c2ca4508e01faeaa0d521e52e5", None,
            214, None, 9, 6),
    _libsvm("wine", "Wine recognition, LIBSVM scaled copy (no test split)", "wine.scale", None,
            "36c20cc5a687694cce444e01c0cc6d2957ab73fbdea7ba33aae414f86183e927", None,
            178, None, 13, 3),
    _libsvm("vowel", "Vowel recognition (Deterding), LIBSVM scaled copy, training part",
            "vowel.scale", None,
            "89ecbd4590cabc23b001cbd2d90128efe3c8ad02540ce1a08ef367b98d765585", None,
            528, None, 10, 11),
    _libsvm("sector", "Industry sector web pages, LIBSVM scaled tf-idf (sparse)",
            "sector.scale.bz2", "sector.t.scale.bz2",
            "cba3d66eed97803665eeb76379fe9d9955712ea0e5c61d7003f644713ed842b5",
            "c8c26e073abd92dda9e2a7903546fbe3c783a8d6141ec3fad360de4c0a572cbc",
            6412, 3207, 55197, 105, folder="sector/", sparse=True),
    Dataset("iris", "Fisher's Iris, UCI (no test split); labels are the species names", "csv", (
                DataFile("uci/iris.data", _UCI + "iris/iris.data", None,
                         note="no published digest known for UCI's file"),),
            150, None, 4, 3, dict(label_column=-1)),
    Dataset("shuttle", "Statlog Shuttle, UCI; labels 1..7", "csv", (
                DataFile("uci/shuttle.trn", None, None, note=(
                    "UCI serves the training file only compressed with Unix compress, as "
                    + _UCI + "statlog/shuttle/shuttle.trn.Z: download it, run `uncompress "
                    "shuttle.trn.Z` (or `gzip -d`), and put shuttle.trn in the data directory")),
                DataFile("uci/shuttle.tst", _UCI + "statlog/shuttle/shuttle.tst",
                         "f776934a628d9b94c482cb058a76ddaa63823e0f74aec065813c9dff3b89d661")),
            43500, 14500, 9, 7, dict(label_column=-1, delimiter=None)),
    Dataset("news20", "20 Newsgroups, 'bydate' split, tf-idf of the raw messages; labels are "
            "the newsgroup names", "news20", (
                DataFile("text/20news-bydate.tar.gz",
                         "https://ndownloader.figshare.com/files/5975967",
                         "8f1b2514ca22a5ade8fbb9cfa5727df95fa587f4c87b786e15c759fa66d95610",
                         ("http://qwone.com/~jason/20Newsgroups/20news-bydate.tar.gz",)),),
            11314, 7532, None, 20),
    Dataset("reuters21578", "Reuters-21578, ModApte split, documents with exactly one topic, "
            "tf-idf; labels are the topic names (see onlinear.data.load_reuters21578 for the "
            "multilabel version)", "reuters", (
                DataFile("text/reuters21578.tar.gz", _UCI + "reuters21578-mld/reuters21578.tar.gz",
                         None, note="no published SHA-256 known"),),
            6552, 2581, None, 66),
]

DATASETS = {entry.name: entry for entry in _ENTRIES}
"""The catalogue: name → :class:`Dataset`."""


def list_datasets() -> list[str]:
    """The names in the catalogue, sorted.

    Examples
    --------
    >>> from onlinear.data import list_datasets
    >>> list_datasets()  # doctest: +NORMALIZE_WHITESPACE
    ['glass', 'iris', 'letter', 'letter-uci', 'mnist', 'news20', 'reuters21578', 'satimage',
     'sector', 'segment', 'shuttle', 'usps', 'vowel', 'wine']
    """
    return sorted(DATASETS)


def _entry(name):
    try:
        return DATASETS[name]
    except KeyError:
        raise ValueError(
            f"unknown data set {name!r}; the catalogue has {list_datasets()}") from None


def _variants(name):
    """File names under which a file may be found: compressed or not, or an unpacked folder."""
    names = [name]
    for suffix in (".tar.gz", ".gz", ".bz2", ".xz"):
        if name.endswith(suffix):
            names.append(name[: -len(suffix)])
            break
    else:
        names += [name + ".bz2", name + ".gz", name + ".xz"]
    return names


def _locate(data_file, directory):
    sub = data_file.path.rsplit("/", 1)[0] if "/" in data_file.path else ""
    for variant in _variants(data_file.name):
        for candidate in (directory / sub / variant, directory / variant):
            if candidate.exists():
                return candidate
    return None


def _directories(data_dir):
    if data_dir is not None:
        return [Path(data_dir)]
    value = os.environ.get(ENVIRONMENT_VARIABLE, "")
    return [Path(part) for part in value.split(os.pathsep) if part]


def _packaged(names):
    folder = files("onlinear.data") / "packaged"
    return tuple(Path(str(folder / name)) for name in names)


def find_dataset(name: str, data_dir: str | os.PathLike | None = None) -> list[Path]:
    """The paths of a data set's files, in the order of ``DATASETS[name].files``.

    Looks in ``data_dir`` if given, otherwise in the directories of the environment variable
    ``ONLINEAR_DATA``; sets shipped in the package (usps, letter) are found there as a last
    resort.  In a directory, a file ``libsvm/letter.scale`` is looked for as
    ``libsvm/letter.scale`` and ``letter.scale``, each also compressed (``.bz2``, ``.gz``,
    ``.xz``) or, for a compressed name, uncompressed (an unpacked folder for a tarball).

    Raises
    ------
    ValueError
        If the name is not in the catalogue.
    FileNotFoundError
        Naming the set, the directories searched and the files expected.

    Examples
    --------
    >>> from onlinear.data import find_dataset
    >>> [path.name for path in find_dataset("letter", data_dir="/nonexistent")]
    ['letter.scale.bz2', 'letter.scale.t.bz2']
    >>> find_dataset("wine", data_dir="/nonexistent")
    Traceback (most recent call last):
    ...
    FileNotFoundError: data set 'wine' not found: /nonexistent does not exist. Expected files: libsvm/wine.scale ...
    """
    entry = _entry(name)
    directories = _directories(data_dir)
    for directory in directories:
        found = [_locate(data_file, directory) for data_file in entry.files]
        if all(found):
            return tuple(found)
    if entry.packaged:
        return _packaged(entry.packaged)
    expected = (", ".join(f.path for f in entry.files)
                + " (each may also sit at the top of the directory, compressed or not)")
    if not directories:
        raise FileNotFoundError(
            f"data set {name!r}: no data directory: pass data_dir=... or set the environment "
            f"variable {ENVIRONMENT_VARIABLE} to a directory holding {expected}")
    places = []
    for directory in directories:
        if directory.is_dir():
            missing = [f.path for f in entry.files if _locate(f, directory) is None]
            places.append(f"{directory} lacks {', '.join(missing)}")
        else:
            places.append(f"{directory} does not exist")
    notes = "".join(f" {f.path}: {f.note}." for f in entry.files if f.note)
    raise FileNotFoundError(
        f"data set {name!r} not found: {'; '.join(places)}. Expected files: {expected}; "
        f"onlinear.data.fetch({name!r}, {str(directories[0])!r}) downloads them.{notes}")


def load(name: str, data_dir: str | os.PathLike | None = None) -> tuple:
    """Load a data set of the catalogue as ``X_train, y_train, X_test, y_test``.

    ``X`` is a dense float64 array, except for the sparse sets (sector, news20,
    reuters21578: CSR); labels are integers where the files hold numbers, else strings.
    Sets without a test split (segment, glass, wine, vowel, iris) give ``None`` for
    ``X_test`` and ``y_test``.  Files are looked up as by :func:`find_dataset`.

    Examples
    --------
    >>> from onlinear.data import load
    >>> X, y, X_test, y_test = load("letter")  # shipped in the package
    >>> X.shape, X_test.shape, sorted(set(y.tolist()))[:3]
    ((15000, 16), (5000, 16), [1, 2, 3])
    """
    entry = _entry(name)
    return FORMATS[entry.format].load_split(find_dataset(name, data_dir), entry.options)


def load_usps() -> tuple:
    """USPS handwritten digits (Hull 1994), LIBSVM copy shipped in the package: 7,291 training
    and 2,007 test rows, 256 features in [−1, 1], labels 1..10 (= digit + 1) as in the LIBSVM
    file.

    Returns ``X_train, y_train, X_test, y_test`` with dense float64 ``X`` and integer labels,
    fresh arrays on every call (the files are parsed once per process).

    Examples
    --------
    >>> from onlinear.data import load_usps
    >>> X, y, X_test, y_test = load_usps()
    >>> X.shape, X_test.shape, int(y.min()), int(y.max())
    ((7291, 256), (2007, 256), 1, 10)
    """
    return tuple(array.copy() for array in _parsed_usps())


@lru_cache(maxsize=1)
def _parsed_usps():
    # parsing costs a second, and examples, tests and the CLI load the same files again and again
    train, test = _packaged(DATASETS["usps"].packaged)
    options = DATASETS["usps"].options
    return _libsvm_split((train, test), options)


def load_letter() -> tuple:
    """Letter recognition (UCI), LIBSVM scaled copy shipped in the package: 15,000 training
    and 5,000 test rows, 16 features in [−1, 1], labels 1..26 (= letter A..Z).

    Returns ``X_train, y_train, X_test, y_test`` with dense float64 ``X`` and integer labels.
    The LIBSVM split is not Crammer & Singer's (first 16,000 / last 4,000 of the UCI file):
    for theirs, ``load("letter-uci")`` with the UCI file.

    Examples
    --------
    >>> from onlinear.data.catalogue import load_letter
    >>> X, y, X_test, y_test = load_letter()
    >>> X.shape, X_test.shape, int(y.min()), int(y.max())
    ((15000, 16), (5000, 16), 1, 26)
    """
    train, test = _packaged(DATASETS["letter"].packaged)
    options = DATASETS["letter"].options
    return _libsvm_split((train, test), options)
