"""Pushed down vs pulled: the analyst suite over one table in PostgreSQL and in Spark (not a test;
prints a Markdown table).

    .venv/bin/python benchmarks/engines.py                  # 10 M rows, both engines
    .venv/bin/python benchmarks/engines.py --rows 1000000 --engines pg

Each engine's table ``orders`` is answered two ways, each side in its own subprocess so its peak
RSS is its own:

(a) pushed down: every query through the engine interface (:class:`shell_agent_lab.engines.Sources`
    beside a session DuckDB, read-only check, row cap), the way the tools run it; only results
    come back, as Arrow;
(b) pulled, the way it is done without us: the whole table into pandas (``pandas.read_sql`` for
    PostgreSQL, ``toPandas()`` for Spark), then the same questions in pandas.

Reported per engine: the suite's wall time (b includes the pull), bytes moved into the kernel
(a: the results' Arrow bytes; b: the DataFrame's memory), peak RSS, and whether every answer is
equal. Throw-away servers are started as the tests start them (PostgreSQL's binaries, Java 17);
``--pg URL`` / ``--spark URL`` use servers of your own holding ``orders`` already.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

REVENUE = "quantity * unit_price"
#: a warehouse is tuned for scans; Debian's defaults (128 MB of shared buffers, 4 MB of work
#: memory, JIT on) are not: these are the settings the recorded figures were measured with
PG_SETTINGS = "-c shared_buffers=2GB -c work_mem=256MB -c jit=off -c max_parallel_workers_per_gather=2"

#: name -> (PostgreSQL SQL, Spark SQL); both over the connection's table ``orders``
QUERIES: dict[str, tuple[str, str]] = {
    "revenue by region": (
        f"SELECT region, sum({REVENUE}) AS revenue, count(*) AS n FROM {{t}} GROUP BY region ORDER BY region",) * 2,
    "top 10 products": (
        f"SELECT product, sum({REVENUE}) AS revenue FROM {{t}} GROUP BY product ORDER BY revenue DESC, product "
        "LIMIT 10",) * 2,
    "distinct customers per region": (
        "SELECT region, count(DISTINCT customer_id) AS customers FROM {t} GROUP BY region ORDER BY region",) * 2,
    "filtered count and mean": (
        f"SELECT count(*) AS n, avg({REVENUE}) AS mean_revenue FROM {{t}} WHERE discount > 0.2 AND channel = 'online'",
    ) * 2,
    "revenue by year and month": (
        f"SELECT CAST(extract(year FROM order_date) AS int) AS y, CAST(extract(month FROM order_date) AS int) AS m, "
        f"sum({REVENUE}) AS revenue FROM {{t}} GROUP BY 1, 2 ORDER BY 1, 2",
        f"SELECT year(order_date) AS y, month(order_date) AS m, sum({REVENUE}) AS revenue FROM {{t}} "
        "GROUP BY 1, 2 ORDER BY 1, 2"),
    "channel x region mean quantity": (
        "SELECT channel, region, avg(quantity) AS mean_qty, max(unit_price) AS max_price FROM {t} "
        "GROUP BY channel, region ORDER BY channel, region",) * 2,
}


def _pandas_ops():
    def by_region(df):
        g = df.assign(r=df.quantity * df.unit_price).groupby("region")
        return g.agg(revenue=("r", "sum"), n=("r", "size")).reset_index().sort_values("region")

    def top_products(df):
        g = df.assign(r=df.quantity * df.unit_price).groupby("product")["r"].sum().reset_index(name="revenue")
        return g.sort_values(["revenue", "product"], ascending=[False, True]).head(10)

    def customers(df):
        return df.groupby("region")["customer_id"].nunique().reset_index(name="customers").sort_values("region")

    def filtered(df):
        sub = df[(df.discount > 0.2) & (df.channel == "online")]
        import pandas as pd
        return pd.DataFrame({"n": [len(sub)], "mean_revenue": [(sub.quantity * sub.unit_price).mean()]})

    def year_month(df):
        d = df.assign(y=df.order_date.dt.year, m=df.order_date.dt.month, r=df.quantity * df.unit_price)
        return d.groupby(["y", "m"])["r"].sum().reset_index(name="revenue").sort_values(["y", "m"])

    def channel_region(df):
        g = df.groupby(["channel", "region"]).agg(mean_qty=("quantity", "mean"), max_price=("unit_price", "max"))
        return g.reset_index().sort_values(["channel", "region"])

    return dict(zip(QUERIES, (by_region, top_products, customers, filtered, year_month, channel_region)))


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _rows(values: list[list]) -> list[list]:
    """Rows made comparable: numbers rounded to 9 significant digits, everything else as text."""
    def norm(v):
        if v is None:
            return None
        if isinstance(v, bool):
            return v
        if isinstance(v, (int, float)) or type(v).__name__ in ("Decimal", "int64", "float64", "int32"):
            f = float(v)
            return 0.0 if f == 0 else round(f, 8 - int(math.floor(math.log10(abs(f)))))
        return str(v)
    return [[norm(v) for v in row] for row in values]


# ---- workers (one per side, each in its own process) --------------------------------------------
def worker_pushed(kind: str, url: str) -> dict:
    from shell_agent_lab.analysis.engine import AnalysisEngine
    from shell_agent_lab.engines import Connections, Sources

    connections = Connections()
    connections.add("src", url)
    with tempfile.TemporaryDirectory() as tmp:
        sources = Sources(AnalysisEngine(Path(tmp) / "bench.duckdb"), connections)
        out: dict = {"times": {}, "results": {}, "bytes": 0}
        started = time.perf_counter()
        for name, sqls in QUERIES.items():
            sql = sqls[0 if kind == "pg" else 1].format(t="src.orders")
            t0 = time.perf_counter()
            result = sources.query(sql, timeout=0)
            out["times"][name] = time.perf_counter() - t0
            out["bytes"] += result.table.nbytes
            out["results"][name] = _rows([list(r) for r in result.rows])
        out["total"] = time.perf_counter() - started
        connections.close()
        sources.local.close()
    out["peak_rss_mb"] = _peak_rss_mb()
    return out


def worker_pulled(kind: str, url: str) -> dict:
    import pandas as pd

    started = time.perf_counter()
    if kind == "pg":
        import psycopg
        from shell_agent_lab.engines.urls import parse_url
        with psycopg.connect(parse_url("src", url).secret_url) as conn:
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)      # pandas prefers SQLAlchemy; a DBAPI connection works
                df = pd.read_sql("SELECT * FROM orders", conn)
        df["order_date"] = pd.to_datetime(df["order_date"])
        for column in ("unit_price", "discount"):
            df[column] = df[column].astype(float)
    else:
        from pyspark.sql import SparkSession
        from shell_agent_lab.engines.urls import parse_url
        spark = SparkSession.builder.remote(parse_url("src", url).secret_url).create()
        df = spark.table("orders").toPandas()
        df["order_date"] = pd.to_datetime(df["order_date"])
        for column in ("unit_price", "discount"):
            df[column] = df[column].astype(float)
        spark.stop()
    out: dict = {"load": time.perf_counter() - started, "times": {}, "results": {},
                 "bytes": int(df.memory_usage(deep=True).sum())}
    for name, op in _pandas_ops().items():
        t0 = time.perf_counter()
        frame = op(df)
        out["times"][name] = time.perf_counter() - t0
        out["results"][name] = _rows(frame.astype(object).where(frame.notna(), None).values.tolist())
    out["total"] = time.perf_counter() - started
    out["peak_rss_mb"] = _peak_rss_mb()
    return out


def _run_worker(side: str, kind: str, url: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, __file__, "--worker", side, "--kind", kind, "--url", url],
                          capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"the {side} worker for {kind} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ---- data -----------------------------------------------------------------------------------------
def fill_postgres(server, rows: int) -> None:
    with server.admin("postgres") as conn:
        conn.execute("CREATE DATABASE warehouse")
        conn.execute(f"CREATE ROLE analyst LOGIN PASSWORD '{server.analyst_password}'")
    with server.admin() as conn:
        conn.execute("CREATE TABLE orders (order_id bigint, customer_id int, product text, region text, "
                     "channel text, order_date date, quantity int, unit_price numeric(10,2), discount numeric(4,2))")
        conn.execute(
            "INSERT INTO orders SELECT g, (g * 7919) % 200000, 'product_' || (g * 31 % 500), "
            "(ARRAY['north','south','east','west','central'])[1 + g % 5], "
            "(ARRAY['online','store','partner'])[1 + (g / 7) % 3], DATE '2021-01-01' + ((g * 13) % 1461)::int, "
            "1 + g % 9, ((g * 17) % 10000) / 100.0 + 1, ((g * 11) % 40) / 100.0 "
            f"FROM generate_series(1::bigint, {rows}) g")
        conn.execute("VACUUM ANALYZE orders")
        conn.execute("GRANT SELECT ON orders TO analyst")


def fill_spark(server, rows: int) -> None:
    client = server.client()
    client.range(1, rows + 1).selectExpr(
        "id AS order_id", "CAST((id * 7919) % 200000 AS INT) AS customer_id",
        "concat('product_', CAST(id * 31 % 500 AS STRING)) AS product",
        "element_at(array('north','south','east','west','central'), CAST(1 + id % 5 AS INT)) AS region",
        "element_at(array('online','store','partner'), CAST(1 + (id DIV 7) % 3 AS INT)) AS channel",
        "date_add(DATE'2021-01-01', CAST(id * 13 % 1461 AS INT)) AS order_date",
        "CAST(1 + id % 9 AS INT) AS quantity",
        "CAST(((id * 17) % 10000) / 100.0 + 1 AS DECIMAL(10,2)) AS unit_price",
        "CAST(((id * 11) % 40) / 100.0 AS DECIMAL(4,2)) AS discount",
    ).write.mode("overwrite").saveAsTable("orders")
    client.stop()


def _same(a, b) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)
    return a == b


def compare(pushed: dict, pulled: dict) -> list[str]:
    """The queries whose answers differ (numbers equal to 6 significant digits count as equal)."""
    return [name for name in QUERIES if not _same(pushed["results"][name], pulled["results"][name])]


def report(rows: int, measured: dict[str, tuple[dict, dict]]) -> str:
    lines = [f"Pushed down vs pulled, {rows:,} rows ({os.cpu_count()} cores)", "",
             "| engine | side | suite time | bytes into the kernel | peak RSS | answers equal |",
             "|---|---|---:|---:|---:|---|"]
    for kind, (pushed, pulled) in measured.items():
        label = {"pg": "PostgreSQL", "spark": "Spark"}[kind]
        wrong = compare(pushed, pulled)
        equal = "yes" if not wrong else "no: " + ", ".join(wrong)
        lines.append(f"| {label} | (a) pushed down | {pushed['total']:.2f} s | {pushed['bytes']:,} B | "
                     f"{pushed['peak_rss_mb']:,.0f} MiB | {equal} |")
        lines.append(f"| {label} | (b) pulled + pandas | {pulled['total']:.2f} s (pull {pulled['load']:.2f} s) | "
                     f"{pulled['bytes']:,} B | {pulled['peak_rss_mb']:,.0f} MiB | |")
        lines.append(f"| {label} | **(b) / (a)** | **{pulled['total'] / pushed['total']:.1f}× faster** | "
                     f"**{pulled['bytes'] / max(1, pushed['bytes']):,.0f}× fewer bytes** | "
                     f"**{pulled['peak_rss_mb'] / pushed['peak_rss_mb']:.1f}× less memory** | |")
    lines += ["", "| query | engine | (a) pushed down | (b) pandas, after the pull |", "|---|---|---:|---:|"]
    for kind, (pushed, pulled) in measured.items():
        for name in QUERIES:
            lines.append(f"| {name} | {kind} | {pushed['times'][name]:.3f} s | {pulled['times'][name]:.3f} s |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--engines", default="pg,spark", help="comma-separated: pg, spark")
    parser.add_argument("--pg", help="postgresql:// URL of a server holding orders (default: start one)")
    parser.add_argument("--spark", help="sc:// URL of a Spark Connect server holding orders (default: start one)")
    parser.add_argument("--pg-settings", default=PG_SETTINGS,
                        help="server settings of the throw-away PostgreSQL (postgres -c options)")
    parser.add_argument("--spark-memory", default="8g",
                        help="driver memory of the local Spark server (pulling the whole table needs it)")
    parser.add_argument("--worker", choices=["pushed", "pulled"], help=argparse.SUPPRESS)
    parser.add_argument("--kind", choices=["pg", "spark"], help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        fn = worker_pushed if args.worker == "pushed" else worker_pulled
        print(json.dumps(fn(args.kind, args.url), default=str))
        return

    sys.path.insert(0, str(ROOT / "tests" / "engines"))
    from servers import PostgresServer, SparkServer  # the tests' throw-away servers

    measured: dict[str, tuple[dict, dict]] = {}
    for kind in [k.strip() for k in args.engines.split(",") if k.strip()]:
        server = None
        try:
            t0 = time.perf_counter()
            if kind == "pg":
                url = args.pg
                if url is None:
                    server = PostgresServer(options=args.pg_settings).start()
                    fill_postgres(server, args.rows)
                    url = server.url(password=server.analyst_password)
            else:
                url = args.spark
                if url is None:
                    server = SparkServer(driver_memory=args.spark_memory).start()
                    fill_spark(server, args.rows)
                    url = server.url
            print(f"{kind}: data ready in {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
            pushed = _run_worker("pushed", kind, url)
            print(f"{kind}: pushed down {pushed['total']:.1f} s", file=sys.stderr, flush=True)
            pulled = _run_worker("pulled", kind, url)
            print(f"{kind}: pulled {pulled['total']:.1f} s", file=sys.stderr, flush=True)
            measured[kind] = (pushed, pulled)
            print(report(args.rows, {kind: (pushed, pulled)}), file=sys.stderr, flush=True)
        finally:
            if server is not None:
                server.cleanup()
    print(report(args.rows, measured))


if __name__ == "__main__":
    main()
