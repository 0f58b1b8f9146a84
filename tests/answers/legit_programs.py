"""Analyst programs that must pass the check and print the right values: (label, source,
expected stdout). The data is :func:`sales_frames`; every expected value was worked out by
hand from it (the scipy ones are compared with scipy called directly in the test)."""
from __future__ import annotations

import pandas as pd


def sales_frames() -> dict[str, pd.DataFrame]:
    sales = pd.DataFrame({
        "region": ["North", "South", "North", "East", "South", "East", "North", "West"],
        "sales": [120.0, 80.5, 95.25, 60.0, 150.0, 45.5, 110.0, 300.0],
        "units": [3, 2, 5, 1, 7, 2, 4, 9],
        "price_text": ["$1,200", "$80.50", "$95.25", "$60", "$1,500.00", "$45.5", "$110",
                       "$3,000"],
        "when": ["2023-03-01 08:15", "2023-03-01 13:40", "2023-03-02 09:05",
                 "2023-03-02 19:30", "2023-03-03 11:00", "2023-03-03 22:10",
                 "2023-03-04 07:45", "2023-03-04 15:20"],
        "segment": ["A", "B", "A", "B", "A", "B", "A", "B"],
    })
    sales["stock"] = pd.array([5, None, 7, 1, 0, 2, None, 9], dtype="Int64")
    sales["kind"] = pd.Categorical(["x", "y", "x", "x", "y", "y", "x", "y"])
    sales["at"] = pd.to_datetime(sales["when"]).dt.tz_localize("UTC")
    sales["thin"] = pd.arrays.SparseArray([0, 0, 3.0, 0, 5.0, 0, 0, 1.0])
    sales.attrs["source"] = {"file": "sales.csv"}
    sales.index.name = "row"
    targets = pd.DataFrame({"region": ["North", "South", "East", "West"],
                            "manager": ["Ann", "Bo", "Cy", "Di"],
                            "target": [300, 200, 100, 250]})
    return {"df": sales, "targets": targets}


LEGIT: list[tuple[str, str, str]] = [
    ("groupby agg round", """
g = df.groupby('region')['sales'].agg(['sum', 'mean']).round(2)
for region, row in g.iterrows():
    print(f"@{region}[{row['sum']:.2f}|{row['mean']:.2f}]")
""", "@East[105.50|52.75]\n@North[325.25|108.42]\n@South[230.50|115.25]\n@West[300.00|300.00]\n"),
    ("value_counts", """
vc = df['segment'].value_counts()
print(f"@A[{vc['A']}] @B[{vc['B']}]")
""", "@A[4] @B[4]\n"),
    ("hour buckets", """
import pandas as pd
t = pd.to_datetime(df['when'])
bucket = pd.cut(t.dt.hour, [0, 12, 18, 24], right=False,
                labels=['morning', 'afternoon', 'evening'])
print(bucket.value_counts().sort_index().to_dict())
""", "{'morning': 4, 'afternoon': 2, 'evening': 2}\n"),
    ("text numbers", """
import pandas as pd
price = pd.to_numeric(df['price_text'].str.replace(r'[$,]', '', regex=True))
print(f"@total[{price.sum():.2f}]")
""", "@total[6091.25]\n"),
    ("zscore outliers", """
from scipy import stats
z = stats.zscore(df['sales'])
print(df.loc[abs(z) > 2, 'region'].tolist())
""", "['West']\n"),
    ("iqr outliers", """
q1, q3 = df['sales'].quantile([0.25, 0.75])
iqr = q3 - q1
out = df[(df['sales'] < q1 - 1.5 * iqr) | (df['sales'] > q3 + 1.5 * iqr)]
print(f"@q1[{q1:.3f}] @q3[{q3:.2f}] @outliers[{', '.join(out['region'])}]")
""", "@q1[75.375] @q3[127.50] @outliers[West]\n"),
    ("quantile", "print(f\"@p90[{df['sales'].quantile(0.9):.2f}]\")", "@p90[195.00]\n"),
    ("merge two frames", """
m = df.groupby('region', as_index=False)['sales'].sum().merge(targets, on='region')
m['gap'] = m['target'] - m['sales']
for _, row in m.iterrows():
    print(f"@{row['manager']}[{row['gap']:.2f}]")
""", "@Cy[-5.50]\n@Ann[-25.25]\n@Bo[-30.50]\n@Di[-50.00]\n"),
    ("np.where on a copy", """
import numpy as np
d = df.copy()
d['big'] = np.where(d['sales'] > 100, 'yes', 'no')
d.loc[d['units'] > 8, 'big'] = 'huge'
print(d['big'].value_counts().sort_index().to_dict())
""", "{'huge': 1, 'no': 4, 'yes': 3}\n"),
    ("assign", """
r = df.assign(revenue=df['sales'] * df['units'])
print(f"@revenue[{r['revenue'].sum():.2f}]")
""", "@revenue[5338.25]\n"),
    ("rebinding the given name to a copy", """
df = df.copy()
df['double'] = df['units'] * 2
df.loc[0, 'double'] = 0
print(df['double'].sum())
""", "60\n"),
    ("pivot table", """
pv = df.pivot_table(index='segment', values='units', aggfunc='sum')
for seg, row in pv.iterrows():
    print(f"@{seg}[{row['units']}]")
""", "@A[19]\n@B[14]\n"),
    ("helper that copies", """
def top(d, n):
    d = d.copy()
    d['rank'] = d['sales'].rank(ascending=False)
    return d.nsmallest(n, 'rank')
print(top(df, 2)['region'].tolist())
""", "['West', 'South']\n"),
    ("statistics and math", """
import math
import statistics
print(statistics.median(df['units'].tolist()), math.floor(df['sales'].mean()))
""", "3.5 120\n"),
    ("try a missing column", """
try:
    x = df['nope']
except KeyError:
    print('missing')
""", "missing\n"),
    ("counter and lists", """
from collections import Counter
c = Counter(df['region'])
rows = []
for seg, part in df.groupby('segment'):
    rows.append((seg, len(part)))
rows.sort()
print(c.most_common(1), rows)
""", "[('North', 3)] [('A', 4), ('B', 4)]\n"),
    ("agg with a dict and a lambda", """
spec = {'sales': 'max', 'units': lambda s: s.max() - s.min()}
print(df.groupby('segment').agg(spec).to_dict())
""", "{'sales': {'A': 150.0, 'B': 300.0}, 'units': {'A': 4, 'B': 8}}\n"),
    ("csv text printed", "print(df[['region', 'units']].head(2).to_csv(index=False))",
     "region,units\nNorth,3\nSouth,2\n\n"),
    ("seeded sample", """
import numpy as np
rng = np.random.default_rng(0)
s = df.sample(3, random_state=1)
print(len(s), len(rng.integers(0, 10, 5)))
""", "3 5\n"),
]
