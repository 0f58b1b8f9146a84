"""Analysis engine vs pandas, polars and a bare DuckDB connection on a generated ~1 GB CSV
(not a test; prints a Markdown table).

    .venv/bin/python benchmarks/analysis.py            # full run (~1 GB CSV, several minutes)
    .venv/bin/python benchmarks/analysis.py --small    # quick smoke run (~15 MB)
    .venv/bin/python benchmarks/analysis.py --first-only --runs 5   # (a) only, five rounds

Each side runs in its own subprocess so peak RSS is measured per side, each starting with the
file in the OS page cache:

(a) time to first answer: load the file + one GROUP BY (engine.load + engine.query vs
    pandas.read_csv + groupby, polars' lazy scan_csv + group_by, and a bare DuckDB connection
    querying a view over read_csv). A file this large is queryable when engine.load returns
    and is stored into the session database in the background; the time until that store is
    done is reported too;
(b) a suite of typical analyst queries on the stored table vs the same pandas and polars
    operations on a DataFrame read from the file and the same SQL on a bare DuckDB table, the
    engine's through AnalysisEngine.query (read-only gate, stable order) as the tools run them;
(c) peak RSS of each process;
(d) the same file loaded, queried and stored by an engine whose memory_limit is well below the
    file size.

With ``--runs N`` every side runs N times, the sides interleaved (engine, pandas, polars,
DuckDB, engine, …), and the table shows each figure's median; the machine may be shared, so
only ratios from one invocation are comparable.

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

def generate(rows: int, data: Path = DATA) -> tuple[Path, Path]:
    import duckdb

    data.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    orders = data / f"orders_{rows}.csv"
    products = data / "products.csv"
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


def _cpu_seconds() -> float:
    """CPU time of this process so far (user + system, every thread): steadier than wall time
    on a shared machine, and what a side needs of the machine's cores."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _timed(fn):
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def worker_engine(orders: Path, products: Path, memory_limit: str, queries: bool) -> dict:
    from shell_agent_lab.analysis import AnalysisEngine, AnalysisSettings

    out: dict = {}
    with tempfile.TemporaryDirectory(dir=orders.parent) as tmp:
        settings = AnalysisSettings(query_timeout=0, memory_limit=memory_limit,
                                    max_file_bytes=64 * 1024 ** 3)
        engine = AnalysisEngine(Path(tmp) / "analysis.duckdb", settings=settings)
        try:
            start, cpu = time.perf_counter(), _cpu_seconds()
            load_s, info = _timed(lambda: engine.load(str(orders), "orders"))
            first_s, first = _timed(lambda: engine.query(QUERIES[FIRST_ANSWER], path="analyze"))
            out["first_cpu"] = _cpu_seconds() - cpu
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
    prods = pd.read_csv(products)
    cpu = _cpu_seconds()
    load_s, df = _timed(load)
    first_s, first = _timed(lambda: ops[FIRST_ANSWER](df, prods))
    out["first_cpu"] = _cpu_seconds() - cpu
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


def _polars_ops(pl):
    revenue = (pl.col("quantity") * pl.col("unit_price") * (1 - pl.col("discount"))).alias("revenue")

    def month_region(lf, products):
        return (lf.group_by("region", pl.col("order_date").dt.truncate("1mo").alias("month"))
                .agg(revenue.sum()).sort("region", "month"))

    def top_products(lf, products):
        return lf.group_by("product").agg(revenue.sum()).sort("revenue", descending=True).head(10)

    def distinct_customers(lf, products):
        return lf.group_by("region").agg(pl.col("customer_id").n_unique().alias("customers")).sort("region")

    def running_total(lf, products):
        return (lf.group_by("region", "order_date").agg(revenue.sum()).sort("region", "order_date")
                .with_columns(pl.col("revenue").cum_sum().over("region").alias("running")))

    def top3(lf, products):
        g = lf.group_by("region", "product").agg(revenue.sum())
        return (g.filter(pl.col("revenue").rank("min", descending=True).over("region") <= 3)
                .sort(["region", "revenue"], descending=[False, True]))

    def join_category(lf, products):
        return (lf.join(products, on="product").group_by("category")
                .agg(revenue.sum(), (pl.col("unit_price") - pl.col("cost")).mean().alias("margin")).sort("category"))

    def filtered(lf, products):
        mask = ((pl.col("discount") > 0.2) & (pl.col("channel") == "online")
                & (pl.col("order_date") >= pl.date(2022, 1, 1)))
        return lf.filter(mask).select(pl.len().alias("n"), revenue.mean().alias("mean_revenue"))

    def year_quarter(lf, products):
        return (lf.group_by(pl.col("order_date").dt.year().alias("y"), pl.col("order_date").dt.quarter().alias("q"),
                            "channel").agg(revenue.sum(), pl.len().alias("n")).sort("y", "q", "channel"))

    def weekday(lf, products):
        return (lf.group_by(pl.col("order_date").dt.weekday().alias("dow"))
                .agg(pl.col("quantity").mean().alias("mean_qty"), pl.col("unit_price").median().alias("median_price"))
                .sort("dow"))

    def customers(lf, products):
        return (lf.group_by("customer_id").agg(pl.len().alias("n"), pl.col("product").n_unique().alias("products"))
                .sort(["n", "customer_id"], descending=[True, False]).head(20))

    return dict(zip(QUERIES, [month_region, top_products, distinct_customers, running_total, top3,
                              join_category, filtered, year_quarter, weekday, customers]))


def worker_polars(orders: Path, products: Path, queries: bool) -> dict:
    """polars as its users reach for speed: a lazy ``scan_csv`` for the first answer, then a
    DataFrame read once and queried lazily (each query optimised as a whole)."""
    import polars as pl

    ops = _polars_ops(pl)
    out: dict = {"polars": pl.__version__}
    prods = pl.read_csv(products).lazy()
    cpu = _cpu_seconds()
    load_s, scan = _timed(lambda: pl.scan_csv(orders, try_parse_dates=True))
    first_s, first = _timed(lambda: ops[FIRST_ANSWER](scan, prods).collect())
    out["first_cpu"] = _cpu_seconds() - cpu
    out.update(load=load_s, first_query=first_s, first_rows=len(first))
    if queries:
        stored_s, df = _timed(lambda: pl.read_csv(orders, try_parse_dates=True))
        out.update(stored=stored_s, rows=len(df), queries={})
        for name, op in ops.items():
            best = math.inf
            for _ in range(REPEATS):
                seconds, result = _timed(lambda: op(df.lazy(), prods).collect())
                best = min(best, seconds)
            out["queries"][name] = {"seconds": best, "rows": len(result)}
    out["peak_rss_mb"] = _peak_rss_mb()
    return out


def worker_duckdb(orders: Path, products: Path, queries: bool) -> dict:
    """A bare DuckDB connection (in memory, default settings): a view over ``read_csv`` for the
    first answer, then the file stored as a table and the suite's SQL run on it as written."""
    import duckdb

    con = duckdb.connect()
    out: dict = {"duckdb": duckdb.__version__}

    def sql(text: str):
        return con.sql(text).to_arrow_table()

    cpu = _cpu_seconds()
    load_s, _ = _timed(lambda: con.execute(f"CREATE VIEW orders AS SELECT * FROM read_csv('{orders}')"))
    first_s, first = _timed(lambda: sql(QUERIES[FIRST_ANSWER]))
    out["first_cpu"] = _cpu_seconds() - cpu
    out.update(load=load_s, first_query=first_s, first_rows=first.num_rows)
    if queries:
        stored_s, _ = _timed(lambda: con.execute(
            f"DROP VIEW orders; CREATE TABLE orders AS SELECT * FROM read_csv('{orders}')"))
        con.execute(f"CREATE TABLE products AS SELECT * FROM read_csv('{products}')")
        out.update(stored=stored_s, rows=con.execute("SELECT count(*) FROM orders").fetchall()[0][0], queries={})
        for name, text in QUERIES.items():
            best = math.inf
            for _ in range(REPEATS):
                seconds, result = _timed(lambda: sql(text))
                best = min(best, seconds)
            out["queries"][name] = {"seconds": best, "rows": result.num_rows}
    con.close()
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

PEERS = ("pandas", "polars", "duckdb")
LABELS = {"engine": "engine", "pandas": "pandas", "polars": "polars", "duckdb": "DuckDB"}


def _gmean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def first_answer(run: dict) -> float:
    return run["load"] + run["first_query"]


def suite_ratios(engine: dict, peer: dict) -> list[float]:
    """peer time / engine time per suite query (above 1: the engine is faster)."""
    return [peer["queries"][n]["seconds"] / engine["queries"][n]["seconds"] for n in QUERIES]


def _cell(values: list[float], fmt: str) -> str:
    """The median, with the range when there are several runs."""
    if not values:
        return ""
    text = format(_median(values), fmt)
    return text if len(values) == 1 else f"{text} ({format(min(values), fmt)}–{format(max(values), fmt)})"


def report(orders: Path, runs: dict[str, list[dict]], limited: dict | None, limit: str) -> str:
    """A Markdown table of medians over the rounds; each ratio is the median of the ratios
    measured within one round (rounds interleave the sides, so each ratio compares like with
    like)."""
    engine_runs = runs["engine"]
    peers = [p for p in PEERS if runs.get(p)]
    rounds = len(engine_runs)
    size_mb = orders.stat().st_size / 1024 ** 2
    versions = ", ".join(f"{p} {runs[p][0][p]}" for p in peers)
    lines = [f"Data: {orders.name}, {size_mb:,.0f} MiB, {engine_runs[0]['first_rows']} groups in the first answer; "
             f"{versions}; {os.cpu_count()} CPUs; {rounds} round(s), medians (range).", ""]
    head = ["measure", "engine"] + [LABELS[p] for p in peers] + [f"speed-up vs {LABELS[p]}" for p in peers]
    lines += ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]

    def row(label: str, key, fmt: str, ratio=None, unit: str = "×") -> None:
        """``key(run)`` gives each side's figure (None: no figures), ``ratio(engine run, peer run)``
        the comparison."""
        sides = [engine_runs] + [runs[p] for p in peers]
        cells = [_cell([key(r) for r in side], fmt) if key is not None else "" for side in sides]
        cells += [_cell([ratio(e, r) for e, r in zip(engine_runs, runs[p])], ".2f") + unit if ratio else ""
                  for p in peers]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")

    row("(a) load returns (s)", lambda r: r["load"], ".2f")
    row("(a) first GROUP BY (s)", lambda r: r["first_query"], ".3f")
    row("**(a) time to first answer (s)**", first_answer, ".2f", lambda e, p: first_answer(p) / first_answer(e))
    row("(a) CPU time of the first answer (s)", lambda r: r["first_cpu"], ".2f", lambda e, p: p["first_cpu"] / e["first_cpu"])
    if "queries" in engine_runs[0]:
        row("(a) stored: engine from the start of the load, others a DataFrame / table (s)",
            lambda r: r.get("stored", r["load"]), ".2f")
        for name in QUERIES:
            row(f"(b) {name} (s)", lambda r, n=name: r["queries"][n]["seconds"], ".3f",
                lambda e, p, n=name: p["queries"][n]["seconds"] / e["queries"][n]["seconds"])
        row(f"**(b) geometric mean of {len(QUERIES)} queries**", None, "", lambda e, p: _gmean(suite_ratios(e, p)))
        mismatched = [f"{n}: {p} {runs[p][0]['queries'][n]['rows']} rows vs {engine_runs[0]['queries'][n]['rows']}"
                      for p in peers for n in QUERIES
                      if runs[p][0]["queries"][n]["rows"] != engine_runs[0]["queries"][n]["rows"]]
    else:
        mismatched = []
    mismatched += [f"first answer: {p} {runs[p][0]['first_rows']} rows vs {engine_runs[0]['first_rows']}"
                   for p in peers if runs[p][0]["first_rows"] != engine_runs[0]["first_rows"]]
    row("**(c) peak RSS (MiB)**", lambda r: r["peak_rss_mb"], ",.0f", lambda e, p: e["peak_rss_mb"] / p["peak_rss_mb"],
        unit="× of it")
    if limited is not None:
        lines.append(f"| (d) memory_limit={limit}: load + GROUP BY {first_answer(limited):.2f} s; stored after "
                     f"{limited['stored']:.2f} s, {limited['rows']:,} rows, peak RSS {limited['peak_rss_mb']:,.0f} MiB |"
                     + " |" * (len(head) - 1))
    if mismatched:
        lines += ["", "Row counts that differ: " + "; ".join(mismatched)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="quick smoke run on ~15 MB")
    parser.add_argument("--rows", type=int, default=0, help="generate this many rows instead")
    parser.add_argument("--runs", type=int, default=1, help="rounds of every side (medians are reported)")
    parser.add_argument("--first-only", action="store_true", help="(a) and (c) only: no suite, no memory limit")
    parser.add_argument("--sides", default="engine,pandas,polars,duckdb",
                        help="comma-separated sides to run (the engine always runs)")
    parser.add_argument("--data", default=str(DATA), help="where the generated files are kept")
    parser.add_argument("--worker", choices=["engine", *PEERS])
    parser.add_argument("--orders")
    parser.add_argument("--products")
    parser.add_argument("--memory-limit", default="")
    parser.add_argument("--no-queries", action="store_true")
    args = parser.parse_args(argv)
    if args.worker:
        orders, products = Path(args.orders), Path(args.products)
        queries = not args.no_queries
        if args.worker == "engine":
            result = worker_engine(orders, products, args.memory_limit, queries)
        else:
            result = {"pandas": worker_pandas, "polars": worker_polars, "duckdb": worker_duckdb}[args.worker](
                orders, products, queries)
        print(json.dumps(result))
        return
    data = Path(args.data)
    orders, products = generate(args.rows or (SMALL_ROWS if args.small else FULL_ROWS), data)
    sides = ["engine"] + [s for s in PEERS if s in args.sides.split(",")]
    queries = not args.first_only
    runs: dict[str, list[dict]] = {side: [] for side in sides}
    for round_ in range(max(1, args.runs)):
        for side in sides:
            print(f"round {round_ + 1}: {side} …", file=sys.stderr, flush=True)
            runs[side].append(_run_worker(side, orders, products, queries=queries))
    limited, limit = None, ""
    if queries:
        limit = f"{max(64, orders.stat().st_size // (3 * 1024 ** 2))}MiB"
        print(f"running the engine with memory_limit={limit} …", file=sys.stderr, flush=True)
        limited = _run_worker("engine", orders, products, memory_limit=limit, queries=False)
    text = report(orders, runs, limited, limit)
    print(text)
    (data / f"analysis-{orders.stem}.json").write_text(
        json.dumps({"runs": runs, "limited": limited, "limit": limit}, indent=2))


if __name__ == "__main__":
    main()
