"""Analysis engine vs pandas on a generated ~1 GB CSV (not a test; prints a Markdown table).

    .venv/bin/python benchmarks/analysis.py            # full run (~1 GB CSV, several minutes)
    .venv/bin/python benchmarks/analysis.py --small    # quick smoke run (~15 MB)

Each side runs in its own subprocess so peak RSS is measured per side, each starting with the
file in the OS page cache:

(a) time to first answer: load the file + one GROUP BY (engine.load + engine.query vs
    pandas.read_csv + groupby). A file this large is queryable when engine.load returns and is
    stored into the session database in the background; the time until that store is done is
    reported too;
(b) a suite of typical analyst queries on the stored table vs the same pandas operations, each
    through AnalysisEngine.query (read-only gate, stable order) as the tools run them;
(c) peak RSS of each process;
(d) the same file loaded, queried and stored by an engine whose memory_limit is well below the
    file size.

The data is generated once under benchmarks/_data/ (gitignored) with DuckDB's COPY.
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
DATA = HERE / "_data"

FULL_ROWS = 12_600_000      # ~1 GB of CSV
SMALL_ROWS = 200_000

REVENUE = "quantity * unit_price * (1 - discount)"

# name -> SQL over the session tables ``orders`` and ``products``
QUERIES: dict[str, str] = {
    "revenue by region and month": f"""
        SELECT region, date_trunc('month', order_date) AS month, sum({REVENUE}) AS revenue
        FROM orders GROUP BY ALL ORDER BY ALL""",
    "top 10 products": f"""
        SELECT product, sum({REVENUE}) AS revenue FROM orders
        GROUP BY product ORDER BY revenue DESC LIMIT 10""",
    "distinct customers per region": """
        SELECT region, count(DISTINCT customer_id) AS customers FROM orders GROUP BY region ORDER BY region""",
    "running daily total (window)": f"""
        WITH d AS (SELECT region, order_date, sum({REVENUE}) AS revenue FROM orders GROUP BY ALL)
        SELECT region, order_date, sum(revenue) OVER (PARTITION BY region ORDER BY order_date) AS running
        FROM d ORDER BY region, order_date""",
    "top 3 products per region (QUALIFY)": f"""
        SELECT region, product, revenue FROM (
            SELECT region, product, sum({REVENUE}) AS revenue FROM orders GROUP BY ALL)
        QUALIFY rank() OVER (PARTITION BY region ORDER BY revenue DESC) <= 3
        ORDER BY region, revenue DESC""",
    "join: margin by category": f"""
        SELECT p.category, sum({REVENUE}) AS revenue, avg(o.unit_price - p.cost) AS margin
        FROM orders AS o JOIN products AS p USING (product) GROUP BY p.category ORDER BY p.category""",
    "filtered count and mean": f"""
        SELECT count(*) AS n, avg({REVENUE}) AS mean_revenue FROM orders
        WHERE discount > 0.2 AND channel = 'online' AND order_date >= DATE '2022-01-01'""",
    "year x quarter x channel": f"""
        SELECT year(order_date) AS y, quarter(order_date) AS q, channel, sum({REVENUE}) AS revenue,
               count(*) AS n
        FROM orders GROUP BY ALL ORDER BY ALL""",
    "weekday mean and median": """
        SELECT dayofweek(order_date) AS dow, avg(quantity) AS mean_qty, median(unit_price) AS median_price
        FROM orders GROUP BY dow ORDER BY dow""",
    "top 20 customers, distinct products": """
        SELECT customer_id, count(*) AS n, count(DISTINCT product) AS products FROM orders
        GROUP BY customer_id ORDER BY n DESC, customer_id LIMIT 20""",
}

FIRST_ANSWER = "revenue by region and month"
#: each suite query runs this often per side; the best time counts (the machine is shared)
REPEATS = 3


# ---- data ------------------------------------------------------------------------------------

def generate(rows: int) -> tuple[Path, Path]:
    import duckdb

    DATA.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    orders = DATA / f"orders_{rows}.csv"
    products = DATA / "products.csv"
    if not products.exists():
        con.execute(f"""COPY (SELECT 'product_' || i AS product, 'category_' || (i % 12) AS category,
                              round(1 + (hash(i * 29) % 50000) / 100.0, 2) AS cost
                       FROM range(500) t(i)) TO '{products}' (HEADER)""")
    if not orders.exists():
        print(f"generating {orders.name} ({rows:,} rows) …", file=sys.stderr, flush=True)
        tmp = orders.with_suffix(".tmp")
        con.execute(f"""COPY (SELECT i AS order_id,
                   DATE '2019-01-01' + CAST(hash(i) % 2191 AS INTEGER) AS order_date,
                   'region_' || lpad(CAST(hash(i * 3) % 12 AS VARCHAR), 2, '0') AS region,
                   'product_' || CAST(hash(i * 7) % 500 AS VARCHAR) AS product,
                   CAST(hash(i * 11) % 200000 AS BIGINT) AS customer_id,
                   CAST(1 + hash(i * 13) % 20 AS INTEGER) AS quantity,
                   round(1 + (hash(i * 17) % 100000) / 100.0, 2) AS unit_price,
                   round((hash(i * 19) % 31) / 100.0, 2) AS discount,
                   ['online', 'store', 'phone', 'partner'][1 + CAST(hash(i * 23) % 4 AS INTEGER)] AS channel,
                   md5(CAST(i AS VARCHAR))[1:12] AS ref
               FROM range({rows}) t(i)) TO '{tmp}' (HEADER, FORMAT csv)""")
        tmp.rename(orders)
    con.close()
    return orders, products


# ---- workers (each in its own process) -------------------------------------------------------

def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _timed(fn):
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def worker_engine(orders: Path, products: Path, memory_limit: str, queries: bool) -> dict:
    from shell_agent_lab.analysis import AnalysisEngine, AnalysisSettings

    out: dict = {}
    with tempfile.TemporaryDirectory(dir=DATA) as tmp:
        settings = AnalysisSettings(query_timeout=0, memory_limit=memory_limit,
                                    max_file_bytes=64 * 1024 ** 3)
        engine = AnalysisEngine(Path(tmp) / "analysis.duckdb", settings=settings)
        try:
            start = time.perf_counter()
            load_s, info = _timed(lambda: engine.load(str(orders), "orders"))
            first_s, first = _timed(lambda: engine.query(QUERIES[FIRST_ANSWER], path="analyze"))
            engine.wait_loaded()
            stored_s = time.perf_counter() - start
            out.update(load=load_s, first_query=first_s, stored=stored_s, rows=engine.row_count("orders"),
                       first_rows=first.row_count, background=info.loading)
            if queries:
                engine.load(str(products), "products")
                engine.wait_loaded()
                out["queries"] = {}
                for name, sql in QUERIES.items():
                    best = math.inf
                    for _ in range(REPEATS):
                        seconds, result = _timed(lambda: engine.query(sql, path="analyze"))
                        best = min(best, seconds)
                    out["queries"][name] = {"seconds": best, "rows": result.row_count}
        finally:
            engine.close()
    out["peak_rss_mb"] = _peak_rss_mb()
    return out


def _pandas_ops(pd):
    def month_region(df, products):
        return df.groupby(["region", df["order_date"].dt.to_period("M")])["revenue"].sum().reset_index()

    def top_products(df, products):
        return df.groupby("product")["revenue"].sum().nlargest(10).reset_index()

    def distinct_customers(df, products):
        return df.groupby("region")["customer_id"].nunique().reset_index()

    def running_total(df, products):
        d = df.groupby(["region", "order_date"])["revenue"].sum().reset_index()
        d["running"] = d.groupby("region")["revenue"].cumsum()
        return d

    def top3(df, products):
        g = df.groupby(["region", "product"])["revenue"].sum().reset_index()
        keep = g.groupby("region")["revenue"].rank(ascending=False, method="min") <= 3
        return g[keep].sort_values(["region", "revenue"], ascending=[True, False])

    def join_category(df, products):
        m = df[["product", "revenue", "unit_price"]].merge(products, on="product")
        m["margin"] = m["unit_price"] - m["cost"]
        return m.groupby("category").agg(revenue=("revenue", "sum"), margin=("margin", "mean")).reset_index()

    def filtered(df, products):
        mask = (df["discount"] > 0.2) & (df["channel"] == "online") & (df["order_date"] >= "2022-01-01")
        sel = df.loc[mask, "revenue"]
        return pd.DataFrame({"n": [len(sel)], "mean_revenue": [sel.mean()]})

    def year_quarter(df, products):
        keys = [df["order_date"].dt.year.rename("y"), df["order_date"].dt.quarter.rename("q"), df["channel"]]
        return df.groupby(keys).agg(revenue=("revenue", "sum"), n=("revenue", "size")).reset_index()

    def weekday(df, products):
        return df.groupby(df["order_date"].dt.dayofweek.rename("dow")).agg(
            mean_qty=("quantity", "mean"), median_price=("unit_price", "median")).reset_index()

    def customers(df, products):
        g = df.groupby("customer_id").agg(n=("product", "size"), products=("product", "nunique")).reset_index()
        return g.sort_values(["n", "customer_id"], ascending=[False, True]).head(20)

    return dict(zip(QUERIES, [month_region, top_products, distinct_customers, running_total, top3,
                              join_category, filtered, year_quarter, weekday, customers]))


def worker_pandas(orders: Path, products: Path, queries: bool) -> dict:
    import pandas as pd

    ops = _pandas_ops(pd)

    def load():
        df = pd.read_csv(orders, parse_dates=["order_date"])
        df["revenue"] = df["quantity"] * df["unit_price"] * (1 - df["discount"])
        return df

    out: dict = {"pandas": pd.__version__}
    load_s, df = _timed(load)
    prods = pd.read_csv(products)
    first_s, first = _timed(lambda: ops[FIRST_ANSWER](df, prods))
    out.update(load=load_s, first_query=first_s, rows=len(df), first_rows=len(first))
    if queries:
        out["queries"] = {}
        for name, op in ops.items():
            best = math.inf
            for _ in range(REPEATS):
                seconds, result = _timed(lambda: op(df, prods))
                best = min(best, seconds)
            out["queries"][name] = {"seconds": best, "rows": len(result)}
    out["peak_rss_mb"] = _peak_rss_mb()
    return out


def _warm(path: Path) -> None:
    """Read the file once so every side starts with it in the OS page cache (a side that ran
    after another would otherwise be the only one to read it from the page cache)."""
    with open(path, "rb") as fh:
        while fh.read(8 * 1024 ** 2):
            pass


def _run_worker(kind: str, orders: Path, products: Path, *, memory_limit: str = "", queries: bool = True) -> dict:
    _warm(orders)
    cmd = [sys.executable, __file__, "--worker", kind, "--orders", str(orders), "--products", str(products),
           "--memory-limit", memory_limit] + ([] if queries else ["--no-queries"])
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{kind} worker failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# ---- report ----------------------------------------------------------------------------------

def _gmean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def report(orders: Path, engine: dict, pandas: dict, limited: dict, limit: str) -> str:
    size_mb = orders.stat().st_size / 1024 ** 2
    lines = [f"Data: {orders.name}, {size_mb:,.0f} MiB, {engine['rows']:,} rows; "
             f"pandas {pandas['pandas']}, {os.cpu_count()} CPUs.", ""]
    e_first = engine["load"] + engine["first_query"]
    p_first = pandas["load"] + pandas["first_query"]
    lines += ["| measure | engine | pandas | speed-up |", "|---|---:|---:|---:|",
              f"| (a) load returns | {engine['load']:.2f} s | {pandas['load']:.2f} s | {pandas['load'] / engine['load']:.2f}× |",
              f"| (a) first GROUP BY | {engine['first_query']:.3f} s | {pandas['first_query']:.3f} s | "
              f"{pandas['first_query'] / engine['first_query']:.1f}× |",
              f"| **(a) time to first answer** | {e_first:.2f} s | {p_first:.2f} s | **{p_first / e_first:.2f}×** |",
              f"| (a) stored in the session database (from the start of the load) | {engine['stored']:.2f} s | "
              f"{pandas['load']:.2f} s | {pandas['load'] / engine['stored']:.2f}× |"]
    ratios = []
    for name in QUERIES:
        e, p = engine["queries"][name], pandas["queries"][name]
        ratio = p["seconds"] / e["seconds"]
        ratios.append(ratio)
        check = "" if e["rows"] == p["rows"] else f" (rows {e['rows']} vs {p['rows']})"
        lines.append(f"| (b) {name}{check} | {e['seconds']:.3f} s | {p['seconds']:.3f} s | {ratio:.1f}× |")
    lines += [f"| **(b) geometric mean of {len(ratios)} queries** | | | **{_gmean(ratios):.2f}×** (min {min(ratios):.1f}×) |",
              f"| **(c) peak RSS** | {engine['peak_rss_mb']:,.0f} MiB | {pandas['peak_rss_mb']:,.0f} MiB | "
              f"**{engine['peak_rss_mb'] / pandas['peak_rss_mb']:.2f}× of pandas** |",
              f"| (d) memory_limit={limit}: load + GROUP BY | {limited['load'] + limited['first_query']:.2f} s; "
              f"stored after {limited['stored']:.2f} s, {limited['rows']:,} rows, peak RSS "
              f"{limited['peak_rss_mb']:,.0f} MiB | | |"]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="quick smoke run on ~15 MB")
    parser.add_argument("--rows", type=int, default=0, help="generate this many rows instead")
    parser.add_argument("--worker", choices=["engine", "pandas"])
    parser.add_argument("--orders")
    parser.add_argument("--products")
    parser.add_argument("--memory-limit", default="")
    parser.add_argument("--no-queries", action="store_true")
    args = parser.parse_args()
    if args.worker:
        orders, products = Path(args.orders), Path(args.products)
        if args.worker == "engine":
            result = worker_engine(orders, products, args.memory_limit, not args.no_queries)
        else:
            result = worker_pandas(orders, products, not args.no_queries)
        print(json.dumps(result))
        return
    orders, products = generate(args.rows or (SMALL_ROWS if args.small else FULL_ROWS))
    size = orders.stat().st_size
    limit_mb = max(64, size // (3 * 1024 ** 2))
    limit = f"{limit_mb}MiB"
    print("running the engine …", file=sys.stderr, flush=True)
    engine = _run_worker("engine", orders, products)
    print("running pandas …", file=sys.stderr, flush=True)
    pandas = _run_worker("pandas", orders, products)
    print(f"running the engine with memory_limit={limit} …", file=sys.stderr, flush=True)
    limited = _run_worker("engine", orders, products, memory_limit=limit, queries=False)
    text = report(orders, engine, pandas, limited, limit)
    print(text)
    (DATA / f"analysis-{orders.stem}.json").write_text(
        json.dumps({"engine": engine, "pandas": pandas, "limited": limited, "limit": limit}, indent=2))


if __name__ == "__main__":
    main()
