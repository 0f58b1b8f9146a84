"""Test statistics and p-values for the answer benchmark's reference answers (pure Python).

The p-values come from the regularized incomplete beta function (Student's t) and the
regularized upper incomplete gamma function (chi-square), evaluated with the continued
fractions of Numerical Recipes (modified Lentz) and the gamma series, to about 1e-13
relative; ``tests/benchmarks/test_answers_stats.py`` pins them against published values.
"""
from __future__ import annotations

import math
from typing import Iterable, Sequence

__all__ = ["welch_t_test", "chi2_independence", "student_t_sf", "chi2_sf",
           "regularized_beta", "regularized_gamma_q"]

_EPS = 1e-15
_TINY = 1e-300
_MAX_ITER = 10_000


def _beta_fraction(a: float, b: float, x: float) -> float:
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, _MAX_ITER):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                   -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + aa / c
            c = c if abs(c) > _TINY else _TINY
            step = d * c
            h *= step
        if abs(step - 1.0) < _EPS:
            return h
    raise ArithmeticError(f"incomplete beta did not converge (a={a}, b={b}, x={x})")


def regularized_beta(x: float, a: float, b: float) -> float:
    """I_x(a, b) for 0 <= x <= 1 and a, b > 0."""
    if a <= 0 or b <= 0:
        raise ValueError("a and b must be positive")
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, 1.0 - x) / b


def regularized_gamma_q(s: float, x: float) -> float:
    """Q(s, x) = Γ(s, x) / Γ(s) for s > 0 and x >= 0."""
    if s <= 0 or x < 0:
        raise ValueError("s must be positive and x not negative")
    if x == 0.0:
        return 1.0
    log_front = -x + s * math.log(x) - math.lgamma(s)
    if x < s + 1.0:                  # the series for P(s, x) converges fast here
        term = total = 1.0 / s
        a = s
        for _ in range(_MAX_ITER):
            a += 1.0
            term *= x / a
            total += term
            if abs(term) < abs(total) * _EPS:
                return 1.0 - total * math.exp(log_front)
        raise ArithmeticError(f"gamma series did not converge (s={s}, x={x})")
    b = x + 1.0 - s
    c, d = 1.0 / _TINY, 1.0 / b
    h = d
    for i in range(1, _MAX_ITER):
        an = -i * (i - s)
        b += 2.0
        d = an * d + b
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = b + an / c
        c = c if abs(c) > _TINY else _TINY
        step = d * c
        h *= step
        if abs(step - 1.0) < _EPS:
            return math.exp(log_front) * h
    raise ArithmeticError(f"gamma fraction did not converge (s={s}, x={x})")


def student_t_sf(t: float, df: float) -> float:
    """P(T > t) for Student's t with ``df`` degrees of freedom."""
    tail = 0.5 * regularized_beta(df / (df + t * t), df / 2.0, 0.5)
    return tail if t >= 0 else 1.0 - tail


def chi2_sf(stat: float, dof: float) -> float:
    """P(X > stat) for the chi-square distribution with ``dof`` degrees of freedom."""
    return regularized_gamma_q(dof / 2.0, max(stat, 0.0) / 2.0)


def _mean_var(values: Sequence[float]) -> tuple[int, float, float]:
    n = len(values)
    if n < 2:
        raise ValueError("each group needs at least two values")
    mean = math.fsum(values) / n
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    return n, mean, var


def welch_t_test(a: Iterable[float], b: Iterable[float]) -> tuple[float, float, float]:
    """Welch's two-sample t-test (unequal variances): (t, degrees of freedom, two-sided p)."""
    n1, m1, v1 = _mean_var([float(v) for v in a])
    n2, m2, v2 = _mean_var([float(v) for v in b])
    se1, se2 = v1 / n1, v2 / n2
    t = (m1 - m2) / math.sqrt(se1 + se2)
    df = (se1 + se2) ** 2 / (se1 ** 2 / (n1 - 1) + se2 ** 2 / (n2 - 1))
    return t, df, min(1.0, 2.0 * student_t_sf(abs(t), df))


def chi2_independence(table: Sequence[Sequence[float]]) -> tuple[float, int, float]:
    """Pearson's chi-square test of independence on a contingency table (no continuity
    correction): (statistic, degrees of freedom, p)."""
    rows = [[float(v) for v in row] for row in table]
    if len(rows) < 2 or len(rows[0]) < 2 or any(len(r) != len(rows[0]) for r in rows):
        raise ValueError("a contingency table needs at least 2x2 cells in equal-length rows")
    row_sums = [math.fsum(r) for r in rows]
    col_sums = [math.fsum(col) for col in zip(*rows)]
    total = math.fsum(row_sums)
    stat = 0.0
    for i, row in enumerate(rows):
        for j, observed in enumerate(row):
            expected = row_sums[i] * col_sums[j] / total
            if expected <= 0:
                raise ValueError("a row or column of the table is empty")
            stat += (observed - expected) ** 2 / expected
    dof = (len(rows) - 1) * (len(rows[0]) - 1)
    return stat, dof, chi2_sf(stat, dof)
