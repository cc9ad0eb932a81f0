"""Figures a researcher would publish: log scales, the test-error panel, lines that stay
visible when two curves coincide, size and format options, bad options refused up front."""
import numpy as np
import pytest

from onlinear.harness import compare
from onlinear.plots import OptionError, check_options, image_formats, line_style, plot_curves

rng = np.random.default_rng(0)
X = np.vstack([rng.normal(c, 0.3, size=(20, 3)) for c in np.eye(3) * 3])
Y = np.repeat([1, 2, 3], 20)
ORDER = rng.permutation(60)
X, Y = X[ORDER], Y[ORDER]


@pytest.fixture(scope="module")
def evaluation():
    # pa1 with a cap C that never binds is pa: two identical curves, which the figure must
    # keep apart
    return compare(X, Y, ["pa", "pa1", "mira"], params={"pa1": {"C": 1e9}}, X_test=X[:15],
                   y_test=Y[:15], epochs=2, tick=10)


def test_four_panels_with_a_test_set_and_log_scales_on_request(evaluation, tmp_path):
    figure = plot_curves(evaluation, tmp_path / "c.svg", log=["time", "mistakes"])
    titles = [ax.get_title() for ax in figure.axes]
    assert titles == ["Cumulative mistake rate (log scale)", "Cumulative updates",
                      "Learning time (log scale)", "Test error"]
    assert [ax.get_yscale() for ax in figure.axes] == ["log", "linear", "log", "linear"]
    test_panel = figure.axes[3]
    curves = [line for line in test_panel.get_lines() if line.get_gid() != "epoch"]
    assert len(curves) == 3  # one per algorithm, a point per epoch
    ends = curves[0].get_xdata()
    assert list(ends) == [60, 120]
    assert (tmp_path / "c.svg").read_text().lstrip().startswith("<?xml")


def test_identical_curves_get_different_dashes_markers_and_marker_offsets(evaluation):
    pa, spa = (evaluation.mean_curves()[name]["mistake_rate"] for name in ("pa", "pa1"))
    np.testing.assert_array_equal(pa, spa)  # the case the styles exist for
    figure = plot_curves(evaluation)
    lines = [line for line in figure.axes[0].get_lines() if line.get_gid() != "epoch"]
    styles = {(line.get_linestyle(), line.get_marker(), str(line.get_markevery()))
              for line in lines}
    assert len(styles) == len(lines) == 3
    twelve = [line_style(i, 12, 100) for i in range(12)]
    assert len({(str(s["linestyle"]), s["marker"], str(s["color"])) for s in twelve}) == 12


def test_size_dpi_and_format_override_the_suffix(evaluation, tmp_path):
    path = tmp_path / "figure.png"
    figure = plot_curves(evaluation, path, size=(8, 3), dpi=50, format="pdf")
    assert tuple(figure.get_size_inches()) == (8, 3)
    assert path.read_bytes()[:5] == b"%PDF-"


@pytest.mark.parametrize("kwargs, phrase", [
    ({"log": ["speed"]}, "unknown panel 'speed'"),
    ({"size": (0.5, 3)}, "two numbers of inches"),
    ({"size": (4, 3, 2)}, "two numbers of inches"),
    ({"format": "bmpx"}, "unknown image format"),
    ({"dpi": 5}, "dpi must be"),
])
def test_bad_options_raise_before_drawing(kwargs, phrase):
    with pytest.raises(ValueError, match=phrase):
        check_options("figure.png", **kwargs)


def test_formats_that_need_an_external_program_are_refused_up_front():
    """pgf is drawn by LaTeX (xelatex), which matplotlib runs only as it saves: after the
    training, a raw RuntimeError where LaTeX is missing."""
    assert "pgf" not in image_formats() and {"png", "pdf", "svg", "eps"} <= set(image_formats())
    with pytest.raises(OptionError, match="needs LaTeX") as refused:
        check_options("figure.pgf")
    assert refused.value.option == "path"
    with pytest.raises(OptionError, match="needs LaTeX") as refused:
        check_options("figure.png", format="pgf")
    assert refused.value.option == "format"


def test_a_raster_image_beyond_the_pixel_bound_is_refused_up_front():
    # 200,000 pixels a side would abort the process (std::bad_alloc) as it saves
    with pytest.raises(OptionError, match="200,000 x 200,000 pixels") as refused:
        check_options("figure.png", size=(100, 100), dpi=2000)
    assert refused.value.option == "size,dpi"
    with pytest.raises(OptionError, match="default size"):  # (checked at four panels' size)
        check_options("figure.jpg", dpi=2000)
    check_options("figure.png", size=(20, 5), dpi=600)  # 12,000 x 3,000: drawn
    check_options("figure.pdf", size=(100, 100), dpi=2000)  # a vector format has no pixels


def test_a_log_panel_with_no_value_above_zero_is_drawn_linear(tmp_path):
    # the first prediction (score 0) is right and the stream is separable: not one mistake
    stream = np.array([[-1.0], [1.0], [-1.0], [1.0]])
    labels = np.array([-1, 1, -1, 1])
    perfect = compare(stream, labels, ["perceptron"], X_test=stream, y_test=labels)
    assert perfect.mean_curves()["perceptron"]["mistake_rate"].max() == 0
    figure = plot_curves(perfect, tmp_path / "f.png", log=["mistakes", "updates", "test"])
    assert [ax.get_yscale() for ax in figure.axes] == ["linear", "log", "linear", "linear"]
    assert figure.axes[0].get_title() == "Cumulative mistake rate (all 0: no log scale)"
    assert figure.axes[1].get_title() == "Cumulative updates (log scale)"
    assert (tmp_path / "f.png").read_bytes()[:4] == b"\x89PNG"
