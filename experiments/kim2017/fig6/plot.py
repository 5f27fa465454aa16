"""Figures of kim2017-fig6: Fig. 5's rate and delivery ratio plots (`../fig5/plot.py`) for LOS
periods of 100 s and NLOS periods of 1 to 20 s (Kim et al. Fig. 6),
and `results.md`, the README's "Results" tables."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

_FIG5 = Path(__file__).parent.parent / "fig5" / "plot.py"
_spec = importlib.util.spec_from_file_location("kim2017_fig5_plot", _FIG5)
if _spec is None or _spec.loader is None:
    raise ImportError(f"cannot load {_FIG5}")
_fig5 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fig5)


def plot(points: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Draws the two figures and the results tables into `out_dir`; returns their paths."""
    paths = _fig5.draw(points, out_dir, "LOS 100 s, server capped at 100 Mbit/s")
    paths.append(_fig5.write_results(points, out_dir))
    return paths
