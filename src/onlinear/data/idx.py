"""The IDX format of MNIST (LeCun): a typed n-dimensional array behind a small big-endian header.

Header: two zero bytes, a type code (0x08 unsigned byte, 0x09 signed byte, 0x0B int16,
0x0C int32, 0x0D float32, 0x0E float64), the number of dimensions, then each dimension as a
big-endian 32-bit integer; the values follow in C order, big-endian.  MNIST's image files start
with the magic number 0x00000803 (unsigned bytes, 3 dimensions), its label files with 0x00000801.
"""
import math
import struct

import numpy as np

from ._files import FileFormatError, open_binary, reading

__all__ = ["load_idx", "load_idx_pair"]

_TYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}


def load_idx(path):
    """Read an IDX file, gzip-compressed or plain, into a numpy array.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    ndarray
        Shape and type from the header, native byte order.

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    FileFormatError
        (a ``ValueError``) naming the file if the magic number is not an IDX one or the data
        do not have the size the header announces.

    Examples
    --------
    >>> import os, tempfile
    >>> from onlinear.data import load_idx
    >>> path = os.path.join(tempfile.mkdtemp(), "labels-idx1-ubyte")
    >>> with open(path, "wb") as f:
    ...     _ = f.write(bytes([0, 0, 0x08, 1, 0, 0, 0, 3, 7, 2, 1]))
    >>> load_idx(path)
    array([7, 2, 1], dtype=uint8)
    """
    with reading(path), open_binary(path) as handle:
        data = handle.read()
    head = data[:4]
    if len(head) < 4 or head[0] != 0 or head[1] != 0 or head[2] not in _TYPES or head[3] == 0:
        raise FileFormatError(
            path, f"not an IDX file: magic number 0x{head.hex().upper():0>8} (expected "
            "0x0000TTDD: two zero bytes, a type code 08/09/0B/0C/0D/0E and the number of "
            "dimensions; MNIST images are 0x00000803, labels 0x00000801)")
    n_dims = head[3]
    end = 4 + 4 * n_dims
    if len(data) < end:
        raise FileFormatError(path, f"truncated IDX header ({n_dims} dimensions announced)")
    shape = struct.unpack(f">{n_dims}I", data[4:end])
    dtype = np.dtype(_TYPES[head[2]])
    expected = math.prod(shape) * dtype.itemsize
    if len(data) - end != expected:
        raise FileFormatError(
            path, f"the header announces an array of shape {shape} and type {dtype.name} "
            f"({expected} bytes) but the file holds {len(data) - end} bytes of data")
    array = np.frombuffer(data, dtype=dtype, count=math.prod(shape), offset=end)
    return array.astype(dtype.newbyteorder("="), copy=True).reshape(shape)


def load_idx_pair(images_path, labels_path):
    """An IDX image file and its IDX label file as ``X, y`` (MNIST's layout).

    Each image becomes one row of ``X`` (pixels in row-major order, values as stored: 0–255 for
    MNIST); ``y`` holds the labels.

    Raises
    ------
    FileFormatError
        If either file is not IDX, or the files hold different numbers of examples.

    Examples
    --------
    >>> import os, tempfile
    >>> from onlinear.data import load_idx_pair
    >>> folder = tempfile.mkdtemp()
    >>> images, labels = os.path.join(folder, "images"), os.path.join(folder, "labels")
    >>> with open(images, "wb") as f:  # two 2x2 images
    ...     _ = f.write(bytes([0, 0, 8, 3, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2, 0, 255, 9, 0,
    ...                        1, 2, 3, 4]))
    >>> with open(labels, "wb") as f:
    ...     _ = f.write(bytes([0, 0, 8, 1, 0, 0, 0, 2, 5, 0]))
    >>> X, y = load_idx_pair(images, labels)
    >>> X
    array([[  0, 255,   9,   0],
           [  1,   2,   3,   4]], dtype=uint8)
    >>> y
    array([5, 0], dtype=uint8)
    """
    images = load_idx(images_path)
    labels = load_idx(labels_path)
    if labels.ndim != 1:
        raise FileFormatError(labels_path,
                              f"labels must be one-dimensional; got shape {labels.shape}")
    if images.shape[0] != labels.shape[0]:
        raise FileFormatError(
            labels_path,
            f"{labels.shape[0]} labels for {images.shape[0]} examples in {images_path}")
    return images.reshape(images.shape[0], -1), labels
