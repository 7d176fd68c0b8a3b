"""Offered-load calibration, as the papers do it: run the network with an unconstrained
(100 Mb/s) bottleneck, measure the average utilisation for several connection rates, fit
throughput = slope x rate, and invert it for the loads wanted ("load 0.8" = 80 % of the
nominal bottleneck). The table is a CSV (load, rate, measured_load) that scenarios name in
``PackMime.calibration``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

CALIBRATION_RATE = "100Mbps"


def rate_for_load(table: str | Path, load: float) -> float:
    """Connection rate giving ``load`` according to a calibration table (linear in between,
    the fitted slope outside)."""
    df = pd.read_csv(table).sort_values("load")
    if len(df) == 1 or not (df.load.min() <= load <= df.load.max()):
        slope = float((df.rate * df.load).sum() / (df.load**2).sum())
        return slope * load
    return float(np.interp(load, df.load, df.rate))


def fit_slope(rates: Sequence[float], loads: Sequence[float]) -> float:
    """Least-squares slope of load = slope x rate through the origin."""
    r, y = np.asarray(rates, float), np.asarray(loads, float)
    return float((r * y).sum() / (r * r).sum())


def unconstrained(scenario, group: int = 0, rate: float | None = None):
    """The calibration version of ``scenario``: bottleneck(s) at 100 Mb/s with huge FIFO
    queues, group ``group`` at ``rate`` connections/s (other web groups unchanged)."""
    from aqmlab.scenario import Dumbbell  # noqa: PLC0415

    changes: dict = {}
    topo = scenario.topology
    if isinstance(topo, Dumbbell):
        changes["topology.bottleneck.rate"] = CALIBRATION_RATE
        for q in ("forward_queue", "reverse_queue"):
            changes[f"topology.{q}"] = {"kind": "droptail", "limit": "100000p"}
    else:
        changes["topology.link.rate"] = CALIBRATION_RATE
        changes["topology.links"] = None
        changes["topology.queues"] = None
        for q in ("forward_queue", "reverse_queue"):
            changes[f"topology.{q}"] = {"kind": "droptail", "limit": "100000p"}
    if rate is not None:
        changes[f"traffic[{group}].rate"] = rate
        changes[f"traffic[{group}].load"] = None
        changes[f"traffic[{group}].calibration"] = None
    return scenario.replace(**changes)


def calibrate(scenario, loads: Sequence[float], group: int = 0, engine=None,
              out: str | Path | None = None) -> pd.DataFrame:
    """Measure and invert the load-vs-rate curve of web group ``group``; returns the table
    (load, rate, measured_load) and writes it to ``out`` if given."""
    from aqmlab.run.engine import LocalEngine  # noqa: PLC0415

    nominal = scenario.topology.bottleneck_rate_bps
    own = engine is None
    engine = engine or LocalEngine()
    try:
        # 1. probe with a first guess: mean PackMime connection ~ 9 kB -> 72 kb per rate unit
        guesses = [max(load, 0.05) * nominal / 72e3 for load in loads]
        probe = _measure(engine, scenario, group, guesses, nominal)
        slope = fit_slope(guesses, probe)
        # 2. run at the inverted rates and report what they give
        rates = [load / slope for load in loads]
        measured = _measure(engine, scenario, group, rates, nominal)
    finally:
        if own:
            engine.close()
    table = pd.DataFrame({"load": list(loads), "rate": rates, "measured_load": measured})
    if out is not None:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(out, index=False)
    return table


def _measure(engine, scenario, group: int, rates: Sequence[float], nominal: float) -> list:
    jobs = []
    for r in rates:
        sc = unconstrained(scenario, group, r)
        jobs.append((sc, *engine.submit(sc)))
    out = []
    for sc, fut, log in jobs:
        res = engine.result(sc, fut, log)
        link = res.links.iloc[0]
        out.append(float(link.bytes_tx * 8 / res.summary.iloc[0].measured_s / nominal))
    return out
