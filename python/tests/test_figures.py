"""`mmtcp.figures.grouped_bars`, the grouped bar chart the Wu et al. reproductions draw."""

from __future__ import annotations

from matplotlib.figure import Figure

from mmtcp.figures import grouped_bars


def _point(group: str, scheme: str, mean: float | None) -> dict:
    stats = {"n": 3, "mean": mean, "ci95": 1.0}
    return {
        "overrides": {"g": group, "scheme": scheme},
        "metrics": {"m": stats, "lo": {"mean": 1.0}, "hi": {"mean": 9.0}},
    }


def test_one_tick_per_group_one_bar_per_series_in_the_styles_order():
    points = [_point("a", "y", 4.0), _point("a", "x", 2.0), _point("b", "x", 6.0)]
    points.append(_point("b", "y", None))  # no mean: no bar
    axes = Figure().subplots()
    styles = {"x": ("X", "red"), "y": ("Y", "blue"), "z": ("Z", "green")}
    grouped_bars(
        axes,
        points,
        group=lambda o: o["g"],
        series=lambda o: o["scheme"],
        styles=styles,
        metric="m",
        scale=0.5,
        spread=("lo", "hi"),
    )
    assert [t.get_text() for t in axes.get_xticklabels()] == ["a", "b"]
    bars = [(round(b.get_x() + b.get_width() / 2, 3), b.get_height()) for b in axes.patches]
    # x first (left of each tick), y second; heights scaled; "z" has no point, "b"/"y" no mean.
    assert bars == [(-0.2, 1.0), (0.8, 3.0), (0.2, 2.0)]
    assert [line.get_ydata().tolist() for line in axes.lines if len(line.get_xdata()) == 2][:1] == [
        [0.5, 4.5]
    ]
    assert [h.get_label() for h in axes.get_legend_handles_labels()[0]] == ["X", "Y"]
