"""Calibration tables: offered load against connection rate (a CSV of load, rate,
measured_load, expected_load that scenarios name in ``PackMime.calibration``), read and
inverted here; :mod:`aqmlab.campaign.calibrate` measures them, as the papers do: run the
network with an unconstrained (100 Mb/s) bottleneck, measure the average utilisation for
several connection rates, fit load = slope x rate, and invert it for the loads wanted
("load 0.8" = 80 % of the nominal bottleneck).

Heavy tails. PackMime's response sizes are so heavy-tailed that the mean of a few minutes
of traffic is usually well below the model's mean (a 240-s run at 132 conn/s measured
0.78 of 10 Mb/s where the model's mean payload alone is 0.88). Fitting raw measurements
therefore overestimates the rate for a load, by ~20 % with 240-s runs (the papers' 40-min
runs shrink, but do not remove, this bias). The fit uses ``expected_load`` instead: the
measured overhead factor (link bytes / response bytes received in the same window, which
converges in seconds) times the model's expected response payload at that rate
(``packmime.mean_response_bytes``). ``measured_load`` is reported beside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd


def rate_for_load(table: str | Path, load: float, basis: str = "expected") -> float:
    """Connection rate giving ``load`` according to a calibration table (linear in between,
    the fitted slope outside). ``basis`` "expected": the table's ``load`` column (the rates
    were fitted on the expected load); "measured": its ``measured_load`` column, the papers'
    procedure (rates for the load the calibration runs measured)."""
    df = pd.read_csv(table)
    column = {"expected": "load", "measured": "measured_load"}[basis]
    if column not in df.columns:
        raise KeyError(f"no column {column!r}")
    df = df[["rate", column]].dropna().sort_values(column)
    if df.empty or (df[column] <= 0).any():
        raise ValueError(f"column {column!r} needs positive values")
    x = df[column].to_numpy(float)
    if len(df) == 1 or not (x.min() <= load <= x.max()) or (np.diff(x) <= 0).any():
        return float((df.rate * x).sum() / (x**2).sum()) * load
    return float(np.interp(load, x, df.rate))


def fit_slope(rates: Sequence[float], loads: Sequence[float]) -> float:
    """Least-squares slope of load = slope x rate through the origin."""
    r, y = np.asarray(rates, float), np.asarray(loads, float)
    return float((r * y).sum() / (r * r).sum())
