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

The t quantile is computed here (Student's t CDF through the regularised incomplete beta
function, inverted by bisection), so that scipy is not needed.
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
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1 - p, dof)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, dof) < p:
        lo, hi = hi, 2 * hi
    for _ in range(200):  # bisection: the CDF is monotone, and 200 halvings reach any precision
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        if t_cdf(mid, dof) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def t_cdf(t: float, dof: float) -> float:
    """Student's t cumulative distribution function.

    >>> t_cdf(0.0, 3), round(t_cdf(2.776445105, 4), 6)
    (0.5, 0.975)
    """
    x = dof / (dof + t * t)
    tail = 0.5 * regularized_incomplete_beta(x, dof / 2, 0.5)
    return 1 - tail if t > 0 else tail


def regularized_incomplete_beta(x: float, a: float, b: float) -> float:
    """I_x(a, b), by the continued fraction of Numerical Recipes (§6.4), modified Lentz."""
    if not 0 <= x <= 1:
        raise ValueError(f"x must be between 0 and 1, not {x}")
    if x in (0.0, 1.0):
        return x
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    front = math.exp(log_front)
    # The continued fraction converges fast for x < (a + 1) / (a + b + 2); use the symmetry
    # I_x(a, b) = 1 - I_{1-x}(b, a) on the other side.
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(x, a, b) / a
    return 1 - front * _beta_fraction(1 - x, b, a) / b


def _beta_fraction(x: float, a: float, b: float) -> float:
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 1000):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= d * c
        if abs(d * c - 1) < 1e-16:
            break
    return result
