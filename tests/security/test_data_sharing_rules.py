"""The pure rules behind data sharing: which SQL is an aggregate, what the model reads of a
labelled or unlabelled result at each level, how code and errors are blanked, and the answer
composed from results at "schema"."""
from __future__ import annotations

import pandas as pd
import pytest

from shell_agent_lab.agent._sharing import compose_from_results
from shell_agent_lab.analysis.aggregation import is_aggregate_sql, sharing_label
from shell_agent_lab.sharing import label, model_view, record_meta, scrub_code, scrub_error


@pytest.mark.parametrize("sql", [
    "SELECT count(*) FROM t",
    "SELECT city, sum(amount) AS s FROM t GROUP BY city",
    "SELECT upper(city), avg(amount) FROM t GROUP BY upper(city)",
    "SELECT city AS c, round(avg(x), 2) FROM t GROUP BY c ORDER BY 2 DESC LIMIT 5",
    "WITH a AS (SELECT sum(x) AS s FROM t) SELECT * FROM a",
    "SELECT * FROM (SELECT median(x) AS m, quantile_cont(x, 0.9) AS p90 FROM t)",
    "SELECT sum(x) / count(*) AS mean FROM t WHERE y > 3",
])
def test_aggregates(sql):
    assert is_aggregate_sql(sql)


@pytest.mark.parametrize("sql", [
    "SELECT * FROM t",
    "SELECT name, amount FROM t WHERE amount > 5",
    "SELECT DISTINCT name FROM t",
    "SELECT city FROM t GROUP BY city",                      # distinct values, no aggregate
    "SELECT list(name) FROM t",                              # one row holding every name
    "SELECT string_agg(name, ',') FROM t",
    "SELECT arg_max(name, amount) FROM t",
    "SELECT max(amount) FROM t",                             # one record's value
    "SELECT name, sum(amount) OVER () FROM t",               # a window keeps every row
    "SELECT name, count(*) FROM t",                          # not valid SQL either: unsure → records
    "not sql at all",
])
def test_records(sql):
    assert not is_aggregate_sql(sql)


def test_more_rows_than_the_cap_are_records():
    assert sharing_label("SELECT id, count(*) FROM t GROUP BY id", 26, ["id", "n"], 25)["kind"] == "records"
    assert sharing_label("SELECT id, count(*) FROM t GROUP BY id", 25, ["id", "n"], 25)["kind"] == "aggregate"


def test_views_by_level():
    rows = "| name | amount |\n| CANARY | 1.5 |"
    meta = record_meta({"sharing": label("records", rows=1, columns=["name", "amount"])})
    assert model_view("query_sql", rows, meta, "rows") == rows
    aggregates = model_view("query_sql", rows, meta, "aggregates")
    assert "CANARY" not in aggregates and "1 row with columns name, amount" in aggregates
    schema = model_view("query_sql", rows, meta, "schema")
    assert "CANARY" not in schema and "1 row" not in schema and "name, amount" in schema
    total = record_meta({"sharing": label("aggregate", rows=1, columns=["total"])})
    assert model_view("query_sql", "total = 9", total, "aggregates") == "total = 9"
    assert "9" not in model_view("query_sql", "total = 9", total, "schema")
    described = record_meta({"sharing": label("records", views={"aggregates": "a", "schema": "s"})})
    assert model_view("describe_data", "x", described, "aggregates") == "a"
    assert model_view("describe_data", "x", described, "schema") == "s"


def test_an_unlabelled_result_is_withheld_and_errors_are_blanked():
    for level in ("aggregates", "schema"):
        assert "CANARY" not in model_view("my_tool", "CANARY", None, level)
        assert "CANARY" not in model_view("my_tool", "CANARY", {"sharing": {"kind": "unknown"}}, level)
    error = "Error: Could not convert string 'CANARY' to INT32 in column \"amount\""
    assert model_view("query_sql", error, None, "aggregates", status="error") == \
        "Error: Could not convert string '…' to INT32 in column \"amount\""
    assert scrub_error("KeyError: 'Jane Doe'") == "KeyError: '…'"


def test_code_keeps_names_and_blanks_values():
    code = "df[df['name'] == 'Jane Doe'].head(10)\nx = 987654.321 + 12345"
    assert scrub_code(code, {"name"}) == "df[df['name'] == '…'].head(10)\nx = … + …"


def test_the_answer_at_schema_comes_from_the_results():
    tables = [pd.DataFrame({"total": [993086.9197], "n": [6]}),
              pd.DataFrame({"city": ["Oslo", "Bergen"], "spend": [10.5, 20.25]})]
    text = compose_from_results("The total is 12,345.6 over the customers.", tables)
    assert "12,345.6" not in text                   # a number no result holds is dropped
    assert "total: 993,086.9197" in text and "n: 6" in text
    assert "| Oslo | 10.5 |" in text


def test_summaries_read_the_view_of_tool_records():
    from types import SimpleNamespace

    from shell_agent_lab.context.summaries import transcript

    tool = SimpleNamespace(role="tool", content="| CANARY | 1.5 |", tool_name="query_sql", status="success",
                           meta={"sharing": label("records", rows=1, columns=["name", "amount"])}, created_at=None)
    user = SimpleNamespace(role="user", content="show the rows", created_at=None)
    assert "CANARY" in transcript([user, tool])
    for level in ("aggregates", "schema"):
        text = transcript([user, tool], sharing=level)
        assert "CANARY" not in text and "show the rows" in text
