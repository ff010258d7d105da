"""Confidence intervals with the deal as the statistical unit (no SciPy needed).

| function          | returns                                                              |
|-------------------|----------------------------------------------------------------------|
| ``t_cdf(t, df)``  | Student-t cumulative distribution (regularised incomplete beta)       |
| ``t_quantile(p, df)`` | its inverse, e.g. ``t_quantile(0.975, 9) = 2.2622`` (bisection)  |
| ``mean_ci(x)``    | ``Interval``: mean of per-deal values with a two-sided t interval     |
| ``ratio_ci(num, den)`` | ``Interval``: ``sum(num) / sum(den)`` with a delta-method t interval |
| ``wilson_ci(k, n)`` | ``Interval``: Wilson score interval of ``k`` successes in ``n`` trials, inside [0, 1] |
| ``proportion_ci(num, den)`` | ``Interval``: a proportion over deals, Wilson with the deals' effective sample size |
| ``format_interval(iv)`` | the one printed format of a figure: ``mean [low, high]`` (``[n/a]``: one deal; ``n/a``: undefined) |

Why a ratio: "reward per hand" is total reward over total hands. Episodes can hold a
different number of hands (a Pigugnìn game lasts until two players reach 10 busche), so the
per-hand figure is a ratio estimator; its standard error comes from the per-deal residuals
``num_d - r * den_d`` (the delta method), with ``n - 1`` degrees of freedom like the mean.
When every deal has the same denominator it reduces exactly to ``mean_ci(num / den)``.

Why Wilson for proportions (win rate, share of hands as caller, contracts made ...): a
symmetric ``mean ± half-width`` leaves [0, 1] near 0 and 1 (``0.000 ± 0.001``, ``0.997 ±
0.004``) and is zero-width when every trial failed. The Wilson score interval stays inside
[0, 1] and is not degenerate at 0 or 1. Trials of one deal are not independent (the same
cards, replayed at every seat), so ``proportion_ci`` feeds Wilson the *effective* number of
trials ``p (1 - p) / se^2`` (Kish's design effect), with ``se`` the delta-method standard error
over deals above, capped at the real number of trials, and the t quantile with ``n - 1``
degrees of freedom in place of the normal one; with ``p`` at 0 or 1 (no spread to measure) it
uses the real number of trials.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

__all__ = ["Interval", "format_interval", "mean_ci", "proportion_ci", "ratio_ci", "t_cdf", "t_quantile", "wilson_ci"]


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz; Numerical Recipes 6.4)."""
    tiny, eps = 1e-300, 1e-15
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < eps:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta ``I_x(a, b)``."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """``P(T <= t)`` for Student's t with ``df`` degrees of freedom."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be > 0, got {df}")
    tail = 0.5 * _betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t (``df`` may be fractional; ``inf`` gives the normal)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if math.isinf(df):
        return NormalDist().inv_cdf(p)
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    if p == 0.5:
        return 0.0
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:  # widen until the quantile is bracketed (df=1 has heavy tails)
        lo, hi = hi, hi * 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


@dataclass(frozen=True)
class Interval:
    """A point estimate with its two-sided 95% interval over ``n`` deals (NaN bounds when n < 2)."""

    mean: float
    low: float
    high: float
    ci95: float  # half-width
    n: int

    def excludes_zero(self) -> bool:
        return bool(self.low > 0.0 or self.high < 0.0)

    def to_dict(self) -> dict[str, float | int]:
        return {"mean": self.mean, "low": self.low, "high": self.high, "ci95": self.ci95, "n": self.n}

    def __str__(self) -> str:
        return format_interval(self.to_dict(), signed=True)


def format_interval(iv: dict | None, signed: bool = False, digits: int = 3) -> str:
    """The one format of every figure the evaluation prints: ``mean [low, high]`` (``+0.680 [+0.518, +0.842]``
    with ``signed``, for rewards and margins); ``mean [n/a]`` without an interval (one deal); ``n/a`` when
    undefined. ``iv``: a dict with ``mean``, ``low``, ``high`` (None or NaN where missing)."""

    def missing(x: float | None) -> bool:
        return x is None or (isinstance(x, float) and math.isnan(x))

    if iv is None or missing(iv["mean"]):
        return "n/a"
    spec = f"{'+' if signed else ''}.{digits}f"
    if missing(iv["low"]) or missing(iv["high"]):
        return f"{iv['mean']:{spec}} [n/a]"
    return f"{iv['mean']:{spec}} [{iv['low']:{spec}}, {iv['high']:{spec}}]"


def _interval(mean: float, se: float, n: int, level: float) -> Interval:
    if n < 2 or not math.isfinite(se):
        return Interval(mean, math.nan, math.nan, math.nan, n)
    half = t_quantile(0.5 + level / 2.0, n - 1) * se
    return Interval(mean, mean - half, mean + half, half, n)


def mean_ci(values: np.ndarray | list[float], level: float = 0.95) -> Interval:
    """Mean of per-deal values with a Student-t interval (``n - 1`` degrees of freedom)."""
    x = np.asarray(values, dtype=np.float64)
    n = int(x.size)
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, math.nan, 0)
    mean = float(x.mean())
    se = float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    return _interval(mean, se, n, level)


def ratio_ci(num: np.ndarray | list[float], den: np.ndarray | list[float], level: float = 0.95) -> Interval:
    """``sum(num) / sum(den)`` over deals with a delta-method Student-t interval.

    Deals with ``den == 0`` contribute nothing to the ratio but still count as deals (a
    figure such as "contracts made per contract called" is undefined for a deal without a
    call). NaN when the total denominator is 0.
    """
    a = np.asarray(num, dtype=np.float64)
    b = np.asarray(den, dtype=np.float64)
    n = int(a.size)
    total = float(b.sum())
    if n == 0 or total == 0.0:
        return Interval(math.nan, math.nan, math.nan, math.nan, n)
    r = float(a.sum()) / total
    if n < 2:
        return Interval(r, math.nan, math.nan, math.nan, n)
    return _interval(r, _ratio_se(a, b, r), n, level)


def _ratio_se(a: np.ndarray, b: np.ndarray, r: float) -> float:
    """Delta-method standard error of the ratio ``r = sum(a) / sum(b)`` over ``n >= 2`` deals."""
    n = a.size
    resid = a - r * b
    return math.sqrt(float((resid * resid).sum()) / (n * (n - 1))) / (float(b.sum()) / n)


def wilson_ci(successes: float, trials: float, level: float = 0.95, z: float | None = None) -> Interval:
    """Wilson score interval of ``successes`` in ``trials`` independent trials (always inside [0, 1]).

    ``z`` defaults to the normal quantile of ``level`` (1.95996 for 95%). ``mean`` is the observed
    proportion, ``ci95`` half the interval's width (the interval is not symmetric around ``mean``),
    ``n`` the trials. NaN everywhere when there are no trials.

    >>> iv = wilson_ci(5, 10); round(iv.low, 4), round(iv.high, 4)
    (0.2366, 0.7634)
    """
    k, n = float(successes), float(trials)
    if not 0.0 <= k <= n:
        raise ValueError(f"a proportion needs 0 <= successes <= trials; got {successes} of {trials}")
    if n == 0.0:
        return Interval(math.nan, math.nan, math.nan, math.nan, 0)
    if z is None:
        z = NormalDist().inv_cdf(0.5 + level / 2.0)
    p = k / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denom
    low = 0.0 if k == 0.0 else max(0.0, centre - half)  # exact ends (no rounding just outside [0, 1])
    high = 1.0 if k == n else min(1.0, centre + half)
    return Interval(p, low, high, (high - low) / 2.0, int(round(n)))


def proportion_ci(num: np.ndarray | list[float], den: np.ndarray | list[float], level: float = 0.95) -> Interval:
    """``sum(num) / sum(den)`` over deals, a proportion (``0 <= num <= den`` on every deal), with a Wilson
    interval for the deals' effective number of trials (see the module docstring); ``n`` is the deals.

    NaN bounds with fewer than two deals (like every interval over deals); NaN everywhere when the
    total denominator is 0.
    """
    a = np.asarray(num, dtype=np.float64)
    b = np.asarray(den, dtype=np.float64)
    if np.any(a < 0) or np.any(a > b):
        raise ValueError("a proportion needs 0 <= num <= den on every deal")
    n = int(a.size)
    k, trials = float(a.sum()), float(b.sum())
    if n == 0 or trials == 0.0:
        return Interval(math.nan, math.nan, math.nan, math.nan, n)
    p = k / trials
    if n < 2:
        return Interval(p, math.nan, math.nan, math.nan, n)
    se = _ratio_se(a, b, p)
    effective = trials
    if 0.0 < p < 1.0 and se > 0.0:
        effective = min(trials, p * (1.0 - p) / (se * se))
    iv = wilson_ci(p * effective, effective, level, z=t_quantile(0.5 + level / 2.0, n - 1))
    return Interval(p, iv.low, iv.high, iv.ci95, n)
