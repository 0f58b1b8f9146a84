"""The computed profile each window of rows carries: columns, then the rows that stand out."""
from __future__ import annotations

import datetime as dt
import decimal

from shell_agent_lab.analysis.window_profile import MAX_POINTERS, window_profile

COLUMNS = ["order_id", "order_date", "customer", "channel", "amount", "status"]


def _orders(n: int = 40) -> list[tuple]:
    rows = []
    for i in range(n):
        rows.append((1000 + i, dt.date(2024, 3, 1) + dt.timedelta(days=i // 3), f"C{i % 11:03d}",
                     ("web", "phone", "store")[i % 3], decimal.Decimal(f"{50 + (i * 37) % 120}.25"), "paid"))
    return rows


def _standing_out(profile: str) -> list[str]:
    return profile.split("Rows that stand out:\n", 1)[1].splitlines()


def test_planted_anomalies_are_pointed_at_by_row_and_id():
    rows = _orders()
    rows[3] = (1003, rows[3][1], None, "web", None, "paid")                       # missing values
    rows[9] = rows[9][:4] + (decimal.Decimal("-12.50"), "paid")                   # negative amount
    rows[20] = rows[20][:4] + (decimal.Decimal("9999.00"), "paid")                # huge outlier
    rows[25] = (1025, dt.date(2031, 1, 1)) + rows[25][2:]                         # far in the future
    rows[11] = rows[10]                                                           # the same order twice
    for i in range(30, 34):
        rows[i] = rows[i][:5] + ("refunded",)                                     # a run of refunds
    profile = window_profile(COLUMNS, rows)
    out = _standing_out(profile)
    assert "- row 4 (order_id 1003): customer is missing; amount is missing" in out
    assert any(line.startswith("- row 10 (order_id 1009): amount -12.5 is negative (typical ") for line in out)
    assert any(line.startswith("- row 21 (order_id 1020): amount 9999.0 is far above the typical ") for line in out)
    assert any(line.startswith("- row 26 (order_id 1025): order_date 2031-01-01 is far later than the typical ")
               for line in out)
    assert "- row 12 (order_id 1010): identical to row 11 (order_id 1010): 1010, 2024-03-04, C010, " \
        "phone, 60.25, paid" in out
    assert "- rows 31-34: status is refunded in every row of this run (4 rows) and nowhere else" in out
    assert len(out) == 6  # nothing else is flagged
    assert "- status (text): paid 36, refunded 4" in profile
    assert "- amount (number): -12.5 to 9999.0, typical " in profile and ", 1 missing" in profile


def test_a_clean_window_has_nothing_standing_out():
    profile = window_profile(COLUMNS, _orders())
    assert profile.startswith("Columns:\n- order_id (number): 1000 to 1039")
    assert _standing_out(profile) == ["- none"]


def test_rows_are_numbered_from_the_window_start():
    rows = _orders()
    rows[5] = rows[5][:4] + (decimal.Decimal("-3"), "paid")
    out = _standing_out(window_profile(COLUMNS, rows, first_row=90))
    assert out[0].startswith("- row 96 (order_id 1005): amount -3.0 is negative")


def test_a_repeated_id_on_different_rows_and_a_rare_category():
    rows = _orders()
    rows[7] = (1002,) + rows[7][1:]
    rows[15] = rows[15][:3] + ("fax",) + rows[15][4:]
    out = _standing_out(window_profile(COLUMNS, rows))
    assert "- row 3 (order_id 1002) and row 8 (order_id 1002): order_id 1002 appears 2 times" in out
    assert "- row 16 (order_id 1015): channel fax is rare (1 of 40)" in out


def test_small_windows_get_ranges_but_no_outlier_guesses():
    rows = _orders(5)
    rows[2] = rows[2][:4] + (decimal.Decimal("100000"), "paid")
    profile = window_profile(COLUMNS, rows)
    assert "typical" not in profile and _standing_out(profile) == ["- none"]


def test_many_missing_values_are_counted_not_listed():
    rows = [(i, None if i % 2 else float(i)) for i in range(30)]
    profile = window_profile(["id", "score"], rows)
    assert "15 missing" in profile and "score is missing" not in profile


def test_pointers_are_capped_and_cell_text_is_flattened_and_cut():
    rows = [(i, float(i % 5 + 10) * (-1 if i % 5 == 0 else 1), "ok") for i in range(100)]   # 20 negatives
    out = _standing_out(window_profile(["id", "v", "note"], rows))
    assert len(out) == MAX_POINTERS + 1 and out[-1] == f"- … and {20 - MAX_POINTERS} more"
    profile = window_profile(["id", "v", "note"], [(1, 1.0, "a\nb " + "y" * 100)] * 2)
    assert "\nb " not in profile and "y" * 41 not in profile


def test_no_rows_no_profile():
    assert window_profile(COLUMNS, []) == ""
