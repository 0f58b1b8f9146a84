"""The vocabulary of the typed operations: kinds, measures, tests, date parts (pure constants)."""
from __future__ import annotations

__all__ = ["OPS", "SQL_OPS", "SCIPY_OPS", "MEASURES", "NUMERIC_MEASURES", "DATE_PARTS", "DERIVED", "FILTER_OPS",
           "TESTS", "CORRELATIONS", "TIME_OF_DAY", "MEASURE_NAMES"]

#: every operation kind, in the order the schema lists them
OPS = ("aggregate", "distribution", "correlation", "test", "outliers", "regression", "missing", "duplicates")
#: kinds compiled to one DuckDB statement (their cell is that statement)
SQL_OPS = frozenset({"aggregate", "distribution", "outliers", "regression", "missing", "duplicates"})
#: kinds computed by SciPy on rows one statement reads
SCIPY_OPS = frozenset({"correlation", "test"})

MEASURES = ("count", "count_distinct", "sum", "mean", "median", "min", "max", "std", "var")
#: measures that read numbers only
NUMERIC_MEASURES = frozenset({"sum", "mean", "median", "std", "var"})
#: a measure's name in results; std and var are named for their ddof
MEASURE_NAMES = {"count": "count", "count_distinct": "count_distinct", "sum": "sum", "mean": "mean",
                 "median": "median", "min": "min", "max": "max"}

DATE_PARTS = ("year", "quarter", "month", "year_month", "date", "weekday", "hour", "time_of_day")
#: the time-of-day buckets: name, first hour, hour it ends before
TIME_OF_DAY = (("night", 0, 6), ("morning", 6, 12), ("afternoon", 12, 18), ("evening", 18, 24))

DERIVED = ("sum", "difference", "ratio", "product")

FILTER_OPS = ("=", "!=", "<", "<=", ">", ">=", "in", "not_in", "between", "contains", "is_null", "not_null")

TESTS = ("welch", "student", "paired", "one_sample", "chi_square", "anova", "shapiro", "normaltest")

CORRELATIONS = ("pearson", "spearman", "kendall")
