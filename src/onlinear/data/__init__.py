"""Data for online learners: file readers, a catalogue of benchmark sets, downloads, generators.

* Readers: :func:`load_libsvm` and :func:`iter_libsvm_chunks` (LIBSVM/SVMlight, streamed for
  files larger than memory), :func:`load_idx` (MNIST's IDX), :func:`load_csv` (a table with a
  label column; :func:`iter_csv_chunks` streamed), :func:`load_20newsgroups` and
  :func:`load_reuters21578` (raw text → tf-idf).
* Formats: :data:`FORMATS`, one entry per format the library reads (the catalogue, the command
  line and the Dask shards read through it); :func:`read_file` and :func:`read_chunks` read a
  file by its suffix or a named format.
* Catalogue: :data:`DATASETS`, :func:`find_dataset` and :func:`load` for the papers' benchmark
  sets, found in a data directory (argument or ``ONLINEAR_DATA``); :func:`fetch` downloads them
  with SHA-256 verification.
* Generators: :func:`make_chessboard`, :func:`make_separable`, :func:`make_simplex_blocks`
  (whose ``.blocks()`` gives the trials in the block engine's format, :class:`Blocks`).

Malformed files raise :class:`FileFormatError` (a ``ValueError``) naming the file and line.
"""
from ._files import FileFormatError, display_name
from .catalogue import (DATASETS, DataFile, Dataset, find_dataset, list_datasets, load, load_letter,
                        load_usps)
from .csv import iter_csv_chunks, load_csv
from .formats import FORMATS, FileFormat, format_of, read_chunks, read_file
from .fetch import ChecksumError, DownloadError, fetch
from .idx import load_idx, load_idx_pair
from .libsvm import iter_libsvm_chunks, libsvm_labels, load_libsvm, whole_number_labels
from .located import LocatedSource
from .synthetic import (
    BlockData,
    Blocks,
    SeparableData,
    make_chessboard,
    make_separable,
    make_simplex_blocks,
)
from .text import (
    ReutersDocument,
    TextDataset,
    load_20newsgroups,
    load_reuters21578,
    read_20newsgroups,
    read_reuters21578,
)

__all__ = [
    "FileFormatError", "display_name", "load_libsvm", "iter_libsvm_chunks", "libsvm_labels",
    "whole_number_labels", "LocatedSource", "load_idx", "load_idx_pair",
    "load_csv", "iter_csv_chunks", "FORMATS", "FileFormat", "format_of", "read_file",
    "read_chunks", "read_20newsgroups", "load_20newsgroups", "read_reuters21578",
    "load_reuters21578", "TextDataset", "ReutersDocument", "DATASETS", "DataFile", "Dataset",
    "list_datasets", "find_dataset", "load", "load_letter", "load_usps", "fetch", "DownloadError",
    "ChecksumError", "make_chessboard", "make_separable", "make_simplex_blocks",
    "SeparableData", "BlockData", "Blocks",
]
