"""Learning-curve figures of a comparison, LIBOL style: cumulative mistake rate, cumulative
updates and learning time against the number of examples seen, one line per algorithm.

matplotlib is imported only when a figure is drawn, and the figure is drawn on its own Agg
canvas (no pyplot, so the global backend of a notebook or an application is left alone).
"""

_PANELS = (
    ("mistake_rate", "Cumulative mistake rate", "mistake rate"),
    ("updates", "Cumulative updates", "updates"),
    ("seconds", "Learning time", "seconds"),
)
_LINE_STYLES = ("-", "--", "-.", ":")


def plot_curves(evaluation, path=None, *, title=None, dpi=120):
    """Draw the three panels of ``evaluation`` (an :class:`onlinear.harness.Evaluation`).

    Each algorithm's line is the mean over its permutations, with a shaded band of ± one
    standard deviation when there are several.  Saves the figure to ``path`` when given (the
    format follows the suffix: ``.png``, ``.svg``, ``.pdf``) and returns the
    ``matplotlib.figure.Figure``.
    """
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.ticker import PercentFormatter
    except ImportError as error:  # matplotlib is needed only here
        raise ImportError("plotting needs matplotlib: pip install matplotlib") from error

    curves = evaluation.mean_curves()
    n_lines = len(curves)
    legend_columns = min(n_lines, 6)
    legend_rows = -(-n_lines // legend_columns)
    figure = Figure(figsize=(15, 4.6 + 0.28 * legend_rows), dpi=dpi, layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(1, 3)
    colors = _colors(n_lines)
    for i, (name, curve) in enumerate(curves.items()):
        style = {"color": colors[i], "linestyle": _LINE_STYLES[(i // 10) % len(_LINE_STYLES)],
                 "linewidth": 1.6}
        x = curve["examples"]
        for ax, (key, _, _) in zip(axes, _PANELS):
            mean, std = curve[key], curve[f"{key}_std"]
            ax.plot(x, mean, label=name if ax is axes[0] else None, **style)
            if evaluation.permutations > 1:
                ax.fill_between(x, mean - std, mean + std, color=colors[i], alpha=0.15,
                                linewidth=0)
    for ax, (key, heading, label) in zip(axes, _PANELS):
        ax.set_title(heading)
        ax.set_xlabel("examples seen")
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
        ax.set_xlim(left=0)
        ax.set_ylim(bottom=0)
        if key == "mistake_rate":
            ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        for epoch in range(1, evaluation.epochs):
            ax.axvline(epoch * evaluation.n_examples, color="0.6", linewidth=0.8, zorder=0)
    spread = ", mean ± std" if evaluation.permutations > 1 else ""
    figure.suptitle(title or f"{evaluation.describe()}{spread}", fontsize=12)
    figure.legend(loc="outside lower center", ncols=legend_columns, frameon=False)
    if path is not None:
        figure.savefig(path)
    return figure


def _colors(n):
    from matplotlib import colormaps

    palette = colormaps["tab10"].colors  # the line style changes every ten lines
    return [palette[i % len(palette)] for i in range(n)]
