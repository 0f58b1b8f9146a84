"""The answer benchmark's generated files: deterministic, and as messy as the module promises."""
from __future__ import annotations

import csv
import io
import re

import pandas as pd
import pytest

from benchmarks.answers_data import FILES, MISSING, file_spec, parse_number, read_reference, render_csv, write_files


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    return {spec.name: render_csv(spec) for spec in FILES}


@pytest.fixture(scope="module")
def tables(texts) -> dict[str, list[list[str]]]:
    return {name: list(csv.reader(io.StringIO(text))) for name, text in texts.items()}


def test_writing_twice_gives_the_same_bytes_and_leaves_right_files_alone(tmp_path, texts):
    first = write_files(tmp_path / "a")
    second = write_files(tmp_path / "b")
    assert [p.name for p in first] == [s.name for s in FILES]
    for a, b in zip(first, second):
        assert a.read_bytes() == b.read_bytes() == texts[a.name].encode("utf-8")
    stamps = [p.stat().st_mtime_ns for p in first]
    write_files(tmp_path / "a")
    assert [p.stat().st_mtime_ns for p in first] == stamps


def test_only_the_named_files_are_written(tmp_path):
    paths = write_files(tmp_path, ["housing", "sales_orders.csv"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["housing.csv", "sales_orders.csv"]
    assert [p.name for p in paths] == ["housing.csv", "sales_orders.csv"]
    with pytest.raises(KeyError, match="no benchmark file"):
        file_spec("nope")


def test_ten_files_of_thousands_of_rows_from_different_domains(tables):
    assert len(FILES) >= 8
    assert len({s.domain for s in FILES}) == len(FILES)
    for name, rows in tables.items():
        assert 2000 <= len(rows) - 1 <= 5000, name
        assert all(len(r) == len(rows[0]) for r in rows), name


def test_column_names_carry_dots_spaces_brackets_unicode_and_leading_digits(tables):
    names = [n for rows in tables.values() for n in rows[0]]
    for expected in ("Mar.2020", "No. of cases", "Q3. importance.score", "Price (USD)", "Größe (cm)", "2019 total",
                     "Temp.max (°C)", "Satisfaction (1–10)", "Returned?", "Pages/visit"):
        assert expected in names
    assert any(n[0].isdigit() for n in names)
    assert any(not n.isascii() for n in names)


def _cells(tables, file: str, column: str) -> list[str]:
    rows = tables[file]
    index = rows[0].index(column)
    return [r[index] for r in rows[1:]]


def test_numbers_are_stored_as_text_with_separators_signs_and_footnotes(tables):
    assert all(re.fullmatch(r"\$[\d,]+\.\d\d", v) for v in _cells(tables, "sales_orders.csv", "Unit Price (USD)"))
    assert any("," in v for v in _cells(tables, "housing.csv", "Living area (sq ft)"))
    assert any(re.fullmatch(r"\d+(\.\d+)?%", v) for v in _cells(tables, "employees.csv", "Bonus %"))
    assert all(re.fullmatch(r"\d+\[\d+-\d+\]", v) for v in _cells(tables, "malaria_estimates.csv", "No. of cases"))
    assert any(v.endswith("*") for v in _cells(tables, "malaria_estimates.csv", "Incidence per 1000"))
    assert any(v.endswith("*") and "," in v for v in _cells(tables, "district_cases_wide.csv", "Mar.2020"))


def test_missing_values_are_written_every_way(tables):
    seen = {v for rows in tables.values() for r in rows[1:] for v in r if v in MISSING}
    assert seen == set(MISSING)
    assert {"-", ""} <= set(_cells(tables, "sales_orders.csv", "Discount"))
    assert {"NA", "n/a", ""} <= set(_cells(tables, "clinical_trial.csv", "week12.sbp"))
    assert "null" in _cells(tables, "employees.csv", "Annual salary")


@pytest.mark.parametrize("file, column, pattern", [
    ("clinical_trial.csv", "enrolled", r"\d{4}-\d\d-\d\d"),
    ("sales_orders.csv", "Order Date", r"\d\d/\d\d/\d{4}"),
    ("housing.csv", "Sold on", r"\d\d\.\d\d\.\d{4}"),
    ("web_sessions.csv", "Start time", r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"),
])
def test_dates_come_in_several_formats(tables, file, column, pattern):
    assert all(re.fullmatch(pattern, v) for v in _cells(tables, file, column) if v)


def test_flags_are_yes_or_no_and_some_rows_are_duplicated(tables):
    assert set(_cells(tables, "housing.csv", "Garage")) == {"Yes", "No"}
    duplicated = {name for name, rows in tables.items() if len({tuple(r) for r in rows}) < len(rows)}
    assert {"sales_orders.csv", "web_sessions.csv", "survey_responses.csv", "district_cases_wide.csv"} <= duplicated


@pytest.mark.parametrize("text, value", [("$1,234.50", 1234.5), ("630308[495000-801000]", 630308.0),
                                         ("12.5%", 12.5), ("1,234*", 1234.0), ("€45.00", 45.0), ("-3.5", -3.5)])
def test_the_reference_reads_text_numbers(text, value):
    assert parse_number(text) == value


def test_the_reference_reading_types_every_column(tmp_path):
    (path,) = write_files(tmp_path, ["shipments"])
    frame = read_reference(path)
    assert frame["Cost"].dtype == "float64" and frame["Cost"].notna().all()
    assert pd.api.types.is_datetime64_any_dtype(frame["Delivered"]) and frame["Delivered"].isna().any()
    assert frame["On time"].dtype == "boolean"
    assert frame["Carrier"].notna().all()
