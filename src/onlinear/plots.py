"""Learning-curve figures of a comparison, LIBOL style: cumulative mistake rate, cumulative
updates, learning time and (with a test set) test error against the number of examples seen,
one line per algorithm.

Every line has its own colour, dash pattern and marker, the markers of line ``i`` placed at
its own offset along the curve, so that two algorithms with identical curves (e.g. ``pa`` and
``spa`` on a stream where they coincide) both stay visible.  The mistake-rate, update and time
panels can be drawn on a logarithmic scale (``log=``).

matplotlib is imported only when a figure is drawn, and the figure is drawn on its own Agg
canvas (no pyplot, so the global backend of a notebook or an application is left alone).
"""
from __future__ import annotations

import os
from collections.abc import Iterable

import numpy as np

#: the panels: key of the curve, title, axis label
PANELS = {
    "mistake_rate": ("Cumulative mistake rate", "online mistake rate"),
    "updates": ("Cumulative updates", "updates"),
    "seconds": ("Learning time", "seconds"),
    "test_error": ("Test error", "test error"),
}
#: names of the panels accepted by ``log=`` (and the CLI's ``--plot-log``)
LOG_PANELS = {"mistakes": "mistake_rate", "mistake_rate": "mistake_rate", "updates": "updates",
              "time": "seconds", "seconds": "seconds", "test": "test_error",
              "test_error": "test_error"}
_DASHES = ("-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)))
_MARKERS = ("o", "s", "^", "v", "D", "P", "X", "<", ">", "*", "h", "p")


#: formats drawn by matplotlib alone: vector formats and those of its own Agg canvas
_SELF_CONTAINED = {"png", "raw", "rgba", "pdf", "svg", "svgz", "eps", "ps"}
#: raster formats Pillow encodes, each with the Pillow feature its encoder needs (None: Pillow's
#: own code); a Pillow built without the library would fail only after the training
_PILLOW = {"jpg": ("codec", "jpg"), "jpeg": ("codec", "jpg"), "tif": None, "tiff": None,
           "gif": None, "webp": ("module", "webp"), "avif": ("module", "avif")}
#: formats drawn as pixels, whose memory the pixel bound protects
RASTER = {"png", "raw", "rgba", *_PILLOW}
#: the largest raster image drawn: the Agg canvas holds 4 bytes a pixel (400 MB at this bound),
#: and a canvas beyond the memory aborts the process (std::bad_alloc) rather than raising
MAX_PIXELS = 100_000_000
#: the longest side Agg draws, in pixels
MAX_SIDE = 65_535
#: the largest default size (four panels), by which the pixel bound is checked before the
#: number of panels is known
_LARGEST_DEFAULT_SIZE = (20.0, 5.0)


def _pillow_writes(feature) -> bool:
    if feature is None:
        return True
    try:
        from PIL import features
    except ImportError:  # (a dependency of matplotlib: not expected)
        return False
    kind, name = feature
    try:
        return bool(features.check_codec(name) if kind == "codec" else features.check_module(name))
    except (ValueError, ImportError):  # a Pillow too old to know the feature
        return False


def image_formats() -> list[str]:
    """The file formats a figure can be written in here (``png``, ``pdf``, ``svg``, ...):
    those matplotlib lists that it draws without an external program — not ``pgf``, which
    needs a LaTeX installation — and, for the raster formats Pillow encodes, only those its
    build can encode."""
    from matplotlib.backend_bases import FigureCanvasBase

    listed = FigureCanvasBase.get_supported_filetypes()
    return sorted(f for f in listed
                  if f in _SELF_CONTAINED or (f in _PILLOW and _pillow_writes(_PILLOW[f])))


class OptionError(ValueError):
    """A bad option of :func:`plot_curves`; ``option`` names it (``"log"``, ``"size"``,
    ``"dpi"``, ``"format"``, ``"path"``, or ``"size,dpi"`` for too many pixels)."""

    def __init__(self, message, option):
        super().__init__(message)
        self.option = option


def check_options(path: str | None = None, *, log: Iterable[str] = (),
                  size: tuple[float, float] | None = None, format: str | None = None,
                  dpi: float = 120) -> tuple[set[str], str | None]:
    """Check the options of :func:`plot_curves` before anything is trained.

    Returns the set of panel keys drawn on a log scale and the image format (from ``format``,
    else from the suffix of ``path``).  Raises :class:`OptionError` (a ``ValueError``) naming
    the bad option: an unknown panel, a size or dpi out of range, a format that cannot be
    written here (:func:`image_formats`), or a raster image of more than :data:`MAX_PIXELS`
    pixels (or :data:`MAX_SIDE` a side) — checked at the default size for four panels when
    ``size`` is not given.

    >>> logs, format = check_options("curves.pdf", log=["time", "mistakes"])
    >>> sorted(logs), format
    (['mistake_rate', 'seconds'], 'pdf')
    >>> check_options("curves.bmpx")
    Traceback (most recent call last):
    ...
    onlinear.plots.OptionError: unknown image format 'bmpx' (the suffix of 'curves.bmpx'); ...
    """
    logs = set()
    for name in log:
        if name not in LOG_PANELS:
            raise OptionError(f"unknown panel {name!r} for a log scale; use "
                              f"{', '.join(sorted(k for k in LOG_PANELS if '_' not in k))}.",
                              "log")
        logs.add(LOG_PANELS[name])
    if size is not None:
        if len(size) != 2 or not all(np.isfinite(s) and 1 <= s <= 100 for s in size):
            raise OptionError(f"the figure size must be two numbers of inches from 1 to 100 "
                              f"(width, height); got {size!r}.", "size")
    if not (np.isfinite(dpi) and 10 <= dpi <= 2000):
        raise OptionError(f"dpi must be from 10 to 2000; got {dpi!r}.", "dpi")
    known = image_formats()
    if format is not None:
        format = format.lower().lstrip(".")
        if format not in known:
            raise OptionError(f"{_not_written(format)}; use one of {', '.join(known)}.",
                              "format")
    elif path is not None:
        suffix = os.path.splitext(str(path))[1].lower().lstrip(".")
        if suffix not in known:
            what = (_not_written(suffix, f" (the suffix of {str(path)!r})") if suffix else
                    f"cannot tell the image format of {str(path)!r} from its suffix")
            raise OptionError(f"{what}; use one of {', '.join('.' + k for k in known)} (or "
                              "give the format).", "path")
        format = suffix
    if format is None or format in RASTER:  # (a figure returned undrawn may yet be rasterized)
        _check_pixels(size, dpi)
    return logs, format


def _not_written(format, where=""):
    """Why the image format ``format`` is refused (``where``: where it was read)."""
    from matplotlib.backend_bases import FigureCanvasBase

    if format not in FigureCanvasBase.get_supported_filetypes():
        return f"unknown image format {format!r}{where}"
    if format == "pgf":
        return (f"the image format 'pgf'{where} needs LaTeX (matplotlib runs xelatex, an "
                "external program)")
    return f"the image format {format!r}{where} cannot be encoded by this installation of Pillow"


def _check_pixels(size, dpi):
    width, height = size if size is not None else _LARGEST_DEFAULT_SIZE
    pixels = (round(width * dpi), round(height * dpi))
    if max(pixels) > MAX_SIDE or pixels[0] * pixels[1] > MAX_PIXELS:
        at = (f"the size {width:g} x {height:g} inches" if size is not None else
              f"the default size (up to {width:g} x {height:g} inches)")
        raise OptionError(
            f"{pixels[0]:,} x {pixels[1]:,} pixels ({dpi:g} dpi at {at}) is too large an "
            f"image: at most {MAX_PIXELS:,} pixels and {MAX_SIDE:,} a side; lower the dpi or "
            "the size (or write a vector format: pdf, svg, eps).", "size,dpi")


def plot_curves(evaluation, path=None, *, title: str | None = None, dpi: float = 120,
                log: Iterable[str] = (), size: tuple[float, float] | None = None,
                format: str | None = None):
    """Draw the panels of ``evaluation`` (an :class:`onlinear.harness.Evaluation`).

    Parameters
    ----------
    evaluation : onlinear.harness.Evaluation
        The result of :func:`onlinear.harness.compare` or :func:`~onlinear.harness.evaluate`.
    path : str or path-like, optional
        Where to save the figure; the format follows ``format``, else the suffix
        (``.png``, ``.svg``, ``.pdf``, ``.eps``, ...).
    title : str, optional
        The figure's title (default: the data and the protocol).
    dpi : float, default=120
        Resolution of raster formats (at most :data:`MAX_PIXELS` pixels in all).
    log : iterable of str, default=()
        Panels drawn on a logarithmic y axis: ``"mistakes"``, ``"updates"``, ``"time"``,
        ``"test"``; a panel with no value above 0 (a stream without a mistake) stays linear,
        its title saying so.
    size : (float, float), optional
        Width and height in inches (default: 5 inches per panel by about 5).
    format : str, optional
        The image format, overriding the suffix of ``path``.

    Returns
    -------
    matplotlib.figure.Figure
        The figure: three panels (mistake rate, updates, time), four with a test set.  Each
        algorithm's line is the mean over its permutations, with a shaded band of ± one
        standard deviation when there are several; the test error is marked at the end of
        every epoch.
    """
    logs, format = check_options(path, log=log, size=size, format=format, dpi=dpi)
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.ticker import PercentFormatter
    except ImportError as error:  # matplotlib is needed only here
        raise ImportError("plotting needs matplotlib: pip install matplotlib") from error

    curves = evaluation.mean_curves()
    tests = _test_errors(evaluation)
    keys = ["mistake_rate", "updates", "seconds"] + ["test_error"] * bool(tests)
    # a log axis with nothing above 0 to show cannot be scaled (matplotlib raises, after the
    # training): such a panel is drawn on a linear scale and says so
    flat = {key for key in logs if key in keys and not any(
        np.any(np.asarray(tests[name][1] if key == "test_error" else curve[key]) > 0)
        for name, curve in curves.items())}
    logs = logs - flat
    n_lines = len(curves)
    legend_columns = min(n_lines, 6)
    legend_rows = -(-n_lines // legend_columns)
    if size is None:
        size = (5 * len(keys), 4.6 + 0.28 * legend_rows)
        if format is None or format in RASTER:  # (many algorithms: taller than checked)
            _check_pixels(size, dpi)
    figure = Figure(figsize=size, dpi=dpi, layout="constrained")
    FigureCanvasAgg(figure)
    axes = dict(zip(keys, np.atleast_1d(figure.subplots(1, len(keys)))))
    for i, (name, curve) in enumerate(curves.items()):
        style = line_style(i, n_lines, len(curve["examples"]))
        x = curve["examples"]
        for key in keys[:3]:
            ax = axes[key]
            mean, std = curve[key], curve[f"{key}_std"]
            shown = x, mean
            if key in logs:  # zeros (no update yet) have no place on a log axis
                keep = mean > 0
                shown = x[keep], mean[keep]
            ax.plot(*shown, label=name if key == "mistake_rate" else None, **style)
            if evaluation.permutations > 1:
                low = mean - std
                if key in logs:  # a band reaching 0 or below would swamp a log axis
                    low = np.maximum(low, 0.5 * mean)
                ax.fill_between(x, low, mean + std, color=style["color"], alpha=0.15,
                                linewidth=0)
        if tests:
            ends, mean, std = tests[name]
            ax = axes["test_error"]
            ax.errorbar(ends, mean, yerr=std if evaluation.permutations > 1 else None,
                        color=style["color"], linestyle=style["linestyle"],
                        marker=style["marker"], markersize=6, linewidth=1.2, capsize=3)
    for key, ax in axes.items():
        heading, label = PANELS[key]
        ax.set_title(heading + (" (log scale)" if key in logs else
                                " (all 0: no log scale)" if key in flat else ""))
        ax.set_xlabel("examples seen")
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3, which="both" if key in logs else "major")
        ax.set_xlim(left=0)
        if key in logs:
            ax.set_yscale("log")
        else:
            ax.set_ylim(bottom=0)
        if key in ("mistake_rate", "test_error") and key not in logs:
            ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        for epoch in range(1, evaluation.epochs):
            ax.axvline(epoch * evaluation.n_examples, color="0.6", linewidth=0.8, zorder=0,
                       gid="epoch")
    spread = ", mean ± std" if evaluation.permutations > 1 else ""
    figure.suptitle(title or f"{evaluation.describe()}{spread}", fontsize=12)
    figure.legend(loc="outside lower center", ncols=legend_columns, frameon=False)
    if path is not None:
        figure.savefig(path, format=format)
    return figure


def line_style(i: int, n_lines: int, n_points: int) -> dict:
    """The style of line ``i`` of ``n_lines``: colour, dash pattern and marker all change from
    one line to the next (no two lines of a figure share all three), and the markers of line
    ``i`` sit at their own offset, so identical curves show each other's markers.

    >>> a, b = line_style(0, 2, 100), line_style(1, 2, 100)
    >>> (a["linestyle"], a["marker"]) != (b["linestyle"], b["marker"]), a["markevery"] != b["markevery"]
    (True, True)
    """
    from matplotlib import colormaps

    palette = colormaps["tab10"].colors
    every = max(1, n_points // 8)
    return {"color": palette[i % len(palette)], "linestyle": _DASHES[i % len(_DASHES)],
            "marker": _MARKERS[i % len(_MARKERS)], "markersize": 4.5,
            "markevery": (int(i * every / max(n_lines, 1)) % every, every), "linewidth": 1.4}


def _test_errors(evaluation):
    """``{name: (epoch ends, mean, std)}`` of the test error after each epoch, or {}."""
    out = {}
    for name in evaluation.algorithms:
        runs = [r for r in evaluation.runs if r.algorithm == name and r.test_errors]
        if not runs:
            return {}
        stack = np.vstack([np.asarray(r.test_errors, dtype=float) for r in runs])
        ends = evaluation.n_examples * np.arange(1, stack.shape[1] + 1)
        std = stack.std(axis=0, ddof=1) if len(runs) > 1 else np.zeros(stack.shape[1])
        out[name] = (ends, stack.mean(axis=0), std)
    return out
