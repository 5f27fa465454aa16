"""Statistics over the seeds of a sweep point: mean, sample standard deviation, and the half-width
of a Student-t confidence interval for the mean.

With n values x₁…xₙ (one per seed), mean m and sample standard deviation s (n - 1 in the
denominator), the 95 % confidence interval of the mean is m ± t₀.₉₇₅,ₙ₋₁ · s / √n, where
t₀.₉₇₅,ₙ₋₁ is the 0.975 quantile of Student's t distribution with n - 1 degrees of freedom. It
assumes the per-seed values are independent draws from a roughly normal distribution; with one
value there is no interval.

    >>> round(t_quantile(0.975, 4), 3)
    2.776
    >>> s = describe([1.0, 2.0, 3.0, 4.0, 5.0])
    >>> s.n, s.mean, round(s.std, 4), round(s.ci95, 4)
    (5, 3.0, 1.5811, 1.9632)

The t quantile comes from scipy.stats, imported when the first interval is computed, so that
commands which compute none (`mmtcp run`) do not pay for loading scipy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Stats:
    """Summary statistics of one metric over the runs of one point.

    Attributes:
        n: number of values (runs that produced the metric).
        mean: arithmetic mean; None if n = 0.
        std: sample standard deviation (n - 1 in the denominator); None if n < 2.
        ci95: half-width of the 95 % Student-t confidence interval of the mean; None if n < 2.
        min, max: extremes; None if n = 0.
    """

    n: int
    mean: float | None
    std: float | None
    ci95: float | None
    min: float | None
    max: float | None

    def as_dict(self) -> dict[str, float | int | None]:
        return asdict(self)


FIELDS = ("n", "mean", "std", "ci95", "min", "max")
"""The fields of `Stats`, in the order of the columns of points.csv."""


def describe(values: Sequence[float]) -> Stats:
    """n, mean, sample standard deviation, 95 % CI half-width, min and max of `values`.

    >>> describe([])
    Stats(n=0, mean=None, std=None, ci95=None, min=None, max=None)
    >>> describe([7])
    Stats(n=1, mean=7.0, std=None, ci95=None, min=7.0, max=7.0)
    """
    xs = [float(v) for v in values]
    n = len(xs)
    if n == 0:
        return Stats(0, None, None, None, None, None)
    mean = math.fsum(xs) / n
    if n == 1:
        return Stats(1, mean, None, None, xs[0], xs[0])
    std = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1))
    return Stats(n, mean, std, ci_half_width(std, n), min(xs), max(xs))


def ci_half_width(std: float, n: int, level: float = 0.95) -> float:
    """Half-width of the two-sided `level` Student-t confidence interval of a mean of `n` values
    with sample standard deviation `std`: t_{(1+level)/2, n-1} · std / √n."""
    if n < 2:
        raise ValueError(f"a confidence interval needs at least 2 values, not {n}")
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, not {level}")
    return t_quantile((1 + level) / 2, n - 1) * std / math.sqrt(n)


def t_quantile(p: float, dof: float) -> float:
    """The `p` quantile of Student's t distribution with `dof` degrees of freedom.

    >>> [round(t_quantile(0.975, k), 3) for k in (1, 2, 9, 29)]
    [12.706, 4.303, 2.262, 2.045]
    """
    if not 0 < p < 1:
        raise ValueError(f"p must be between 0 and 1, not {p}")
    if not dof > 0:
        raise ValueError(f"degrees of freedom must be positive, not {dof}")
    from scipy.stats import t

    return float(t.ppf(p, dof))
