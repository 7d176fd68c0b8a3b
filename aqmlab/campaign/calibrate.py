"""Measuring a calibration table: the load a web group offers against its connection rate,
on the same network with an unconstrained bottleneck (see :mod:`aqmlab.workload.calibration`
for the table and why the fit uses the expected load)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from aqmlab.scenario import Dumbbell, Scenario
from aqmlab.workers import Runner
from aqmlab.workload.calibration import fit_slope
from aqmlab.workload.packmime import mean_response_bytes

__all__ = ["CALIBRATION_RATE", "calibrate", "unconstrained"]

CALIBRATION_RATE = "100Mbps"


def unconstrained(scenario: Scenario, group: int = 0, rate: float | None = None) -> Scenario:
    """The calibration version of ``scenario``: bottleneck(s) at 100 Mb/s with huge FIFO
    queues, group ``group`` at ``rate`` connections/s, and so are groups that name the same
    calibration table and load (two-way traffic); other web groups are unchanged."""
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
        # the group, and the groups calibrated by the same table (the other direction of
        # two-way traffic), at the rate probed
        own = scenario.traffic[group]
        for g, t in enumerate(scenario.traffic):
            if g == group or (getattr(t, "calibration", None) is not None
                              and t.calibration == getattr(own, "calibration", None)
                              and t.load == own.load):
                changes[f"traffic[{g}].rate"] = rate
                changes[f"traffic[{g}].load"] = None
                changes[f"traffic[{g}].calibration"] = None
                changes[f"traffic[{g}].calibrate_on"] = "expected"
                if getattr(t, "elephant", None) is not None:
                    changes[f"traffic[{g}].elephant"] = None  # the papers calibrate without
    return scenario.replace(**changes)


def calibrate(scenario: Scenario, loads: Sequence[float], group: int = 0,
              runner: Runner | None = None, workers: int | None = None,
              out: str | Path | None = None) -> pd.DataFrame:
    """Measure and invert the load-vs-rate curve of web group ``group``; returns the table
    (load, rate, measured_load, expected_load) and writes it to ``out`` if given. Runs go
    to ``runner``, or to a new one of ``workers`` processes (all cores by default)."""
    nominal = scenario.topology.bottleneck_rate_bps
    own = runner is None
    runner = runner or Runner(workers=workers)
    try:
        # 1. probe with a first guess: mean PackMime connection ~ 9 kB -> 72 kb per rate unit
        guesses = [max(load, 0.05) * nominal / 72e3 for load in loads]
        probe = _measure(runner, scenario, group, guesses, nominal)
        slope = fit_slope(guesses, [e for _, e in probe])
        # 2. run at the inverted rates and report what they give
        rates = [load / slope for load in loads]
        runs = _measure(runner, scenario, group, rates, nominal)
    finally:
        if own:
            runner.close()
    table = pd.DataFrame({"load": list(loads), "rate": rates,
                          "measured_load": [m for m, _ in runs],
                          "expected_load": [e for _, e in runs]})
    if out is not None:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(out, index=False)
    return table


def _measure(runner: Runner, scenario: Scenario, group: int, rates: Sequence[float],
             nominal: float) -> list[tuple[float, float]]:
    """(measured, expected) load of the link carrying group ``group``'s responses, per rate."""
    jobs = [(r, runner.submit(unconstrained(scenario, group, r))) for r in rates]
    reverse = getattr(scenario.traffic[group], "direction", "forward") == "reverse"
    out = []
    for rate, fut in jobs:
        res = fut.result()
        link = res.links.iloc[1 if reverse and len(res.links) > 1 else 0]
        seconds = res.summary.iloc[0].measured_s
        measured = float(link.bytes_tx * 8 / seconds / nominal)
        req = res.requests[res.requests.group == group]
        payload = float(req.response_bytes_measured.sum())
        overhead = link.bytes_tx / payload if payload > 0 else float("nan")
        expected = overhead * rate * mean_response_bytes(rate) * 8 / nominal
        out.append((measured, float(expected)))
    return out
