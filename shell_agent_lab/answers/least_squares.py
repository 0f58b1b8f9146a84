"""Ordinary least squares in the shape of scikit-learn's ``LinearRegression`` and its common
metrics, in numpy alone.

A code model asked for a regression writes ``from sklearn.linear_model import
LinearRegression`` more often than anything else. scikit-learn is not a dependency, and the
program runner allows pandas, numpy and scipy only; so those imports are taken out of the
program (:func:`stand_ins`) and these stand-ins are handed to it under the same names. Its cell
in the notebook imports them from here, so Run All computes the same numbers.
"""
from __future__ import annotations

import re
from typing import Any

import numpy as np

__all__ = ["LinearRegression", "r2_score", "mean_squared_error", "mean_absolute_error", "STAND_INS",
           "STAND_INS_BY_NAME", "stand_ins", "import_line"]


def _matrix(X: Any) -> np.ndarray:
    a = np.asarray(X, dtype=float)
    if a.ndim == 1:
        raise ValueError("Expected a 2D array of features, got a 1D one: use df[['column']] (a list of columns)")
    if a.ndim != 2:
        raise ValueError(f"Expected a 2D array of features, got {a.ndim} dimensions")
    return a


def _vector(y: Any) -> np.ndarray:
    a = np.asarray(y, dtype=float)
    return a.reshape(-1) if a.ndim == 2 and 1 in a.shape else a


def _finite(*arrays: np.ndarray) -> None:
    if any(not np.all(np.isfinite(a)) for a in arrays):
        raise ValueError("Input contains NaN or infinity: drop the rows with missing values first (dropna)")


class LinearRegression:
    """``y ≈ intercept_ + X @ coef_`` by ordinary least squares (as scikit-learn's)."""

    def __init__(self, *, fit_intercept: bool = True) -> None:
        self.fit_intercept = fit_intercept
        self.coef_: np.ndarray = np.empty(0)
        self.intercept_: float = 0.0

    def fit(self, X: Any, y: Any) -> LinearRegression:
        features, target = _matrix(X), _vector(y)
        if len(features) != len(target):
            raise ValueError(f"X has {len(features)} rows but y has {len(target)}")
        _finite(features, target)
        design = np.column_stack([np.ones(len(features)), features]) if self.fit_intercept else features
        solution = np.linalg.lstsq(design, target, rcond=None)[0]
        self.intercept_ = float(solution[0]) if self.fit_intercept else 0.0
        self.coef_ = solution[1:] if self.fit_intercept else solution
        return self

    def predict(self, X: Any) -> np.ndarray:
        features = _matrix(X)
        if features.shape[1] != len(self.coef_):
            raise ValueError(f"X has {features.shape[1]} features; the model was fitted on {len(self.coef_)}")
        return features @ self.coef_ + self.intercept_

    def score(self, X: Any, y: Any) -> float:
        """R squared of the prediction."""
        return r2_score(y, self.predict(X))


def _pair(y_true: Any, y_pred: Any) -> tuple[np.ndarray, np.ndarray]:
    truth, guess = _vector(y_true), _vector(y_pred)
    _finite(truth, guess)
    return truth, guess


def r2_score(y_true: Any, y_pred: Any) -> float:
    truth, guess = _pair(y_true, y_pred)
    total = float(((truth - truth.mean()) ** 2).sum())
    return 1.0 - float(((truth - guess) ** 2).sum()) / total if total else 0.0


def mean_squared_error(y_true: Any, y_pred: Any) -> float:
    truth, guess = _pair(y_true, y_pred)
    return float(((truth - guess) ** 2).mean())


def mean_absolute_error(y_true: Any, y_pred: Any) -> float:
    truth, guess = _pair(y_true, y_pred)
    return float(np.abs(truth - guess).mean())


#: scikit-learn's module → the names it has a stand-in for here
STAND_INS: dict[str, dict[str, Any]] = {
    "sklearn.linear_model": {"LinearRegression": LinearRegression},
    "sklearn.metrics": {"r2_score": r2_score, "mean_squared_error": mean_squared_error,
                        "mean_absolute_error": mean_absolute_error},
}
#: every stand-in by its own name (how the sandbox is told which to hand a program)
STAND_INS_BY_NAME: dict[str, Any] = {name: obj for names in STAND_INS.values() for name, obj in names.items()}
_IMPORT = re.compile(r"^[ \t]*from[ \t]+(sklearn\.[\w.]+)[ \t]+import[ \t]+\(?([\w ,\t]+?)\)?[ \t]*(?:#.*)?$", re.M)


def stand_ins(code: str) -> tuple[str, dict[str, Any]]:
    """``code`` without its scikit-learn imports that have stand-ins here, and those stand-ins
    by the names the code uses. An import of anything else from scikit-learn stays (and is
    refused by the runner)."""
    found: dict[str, Any] = {}

    def replace(m: re.Match[str]) -> str:
        offered = STAND_INS.get(m.group(1), {})
        pairs = [re.fullmatch(r"(\w+)(?:\s+as\s+(\w+))?", n.strip()) for n in m.group(2).split(",") if n.strip()]
        if not pairs or any(p is None or p.group(1) not in offered for p in pairs):
            return m.group(0)
        for p in pairs:
            assert p is not None
            found[p.group(2) or p.group(1)] = offered[p.group(1)]
        return ""

    rewritten = _IMPORT.sub(replace, code)
    return (rewritten if found else code), found


def import_line(names: dict[str, Any]) -> str:
    """The import a cell needs for ``names`` (stand-ins by the name the program uses)."""
    parts = sorted(f"{obj.__name__} as {alias}" if obj.__name__ != alias else alias for alias, obj in names.items())
    return f"from shell_agent_lab.answers.least_squares import {', '.join(parts)}" if parts else ""
