"""Distances between runs (aqmlab.studies.distances) on synthetic tables."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from aqmlab.studies.distances import distance, distance_of, distance_of_means, run_metrics, within


def fake(rt: np.ndarray | None = None, loss=0.01, util=0.9, queue=10.0, timeouts=(1, 2),
         goodput=(4.0, 4.0)) -> SimpleNamespace:
    n = 0 if rt is None else len(rt)
    requests = pd.DataFrame({"response_time_s": rt if rt is not None else [],
                             "after_warmup": np.ones(n, bool), "completed": np.ones(n, bool),
                             "timeout": np.zeros(n, bool)})
    flows = pd.DataFrame({"timeouts": list(timeouts), "goodput_mbps": list(goodput)})
    g = np.asarray(goodput)
    summary = pd.DataFrame([{"loss_rate": loss, "utilisation": util, "avg_qlen_pkts": queue,
                             "jain_fairness": g.sum() ** 2 / (len(g) * (g**2).sum())}])
    return SimpleNamespace(requests=requests, flows=flows, summary=summary,
                           links=pd.DataFrame({"rate_bps": [10e6]}))


def test_identical_runs_are_at_distance_zero():
    rng = np.random.default_rng(1)
    a = fake(rng.lognormal(-2, 1, 500))
    d = distance(a, a)
    assert d["ks"] == 0 and all(v == 0 for k, v in d.items() if k != "ks")


def test_ks_of_shifted_samples_and_relative_differences():
    rng = np.random.default_rng(2)
    x = rng.uniform(0, 1, 4000)
    d = distance(fake(x, loss=0.010), fake(x + 0.5, loss=0.012, queue=11.0))
    assert d["ks"] == pytest.approx(0.5, abs=0.03)
    assert d["loss_rel"] == pytest.approx(0.002 / 0.012)
    assert d["queue_rel"] == pytest.approx(1 / 11)
    assert d["goodput_abs"] == 0


def test_bounds_follow_issue_30():
    between = {"ks": 0.05, "loss_rel": 0.09, "utilisation_rel": 0.11, "queue_rel": 0.0,
               "timeouts_rel": math.nan, "goodput_abs": 0.031, "jain_abs": 0.05}
    ok = within(between, floor_ks=0.04)
    assert ok == {"ks": True, "loss_rel": True, "utilisation_rel": False, "queue_rel": True,
                  "timeouts_rel": None, "goodput_abs": False, "jain_abs": True}
    assert within({"ks": 0.061}, floor_ks=0.04)["ks"] is False


def test_bulk_runs_use_flow_counters():
    m = run_metrics(fake(None, timeouts=(3, 5), goodput=(2.0, 6.0)))
    assert m["timeouts"] == 4 and m["goodput"] == pytest.approx(0.8)
    assert m["jain"] == pytest.approx(64 / (2 * 40))


def _seeds(**columns: list[float]) -> pd.DataFrame:
    base = {m: [1.0] * len(next(iter(columns.values())))
            for m in ("loss", "utilisation", "queue", "timeouts", "goodput", "jain")}
    return pd.DataFrame({**base, **columns})


def test_distance_of_means_compares_means_not_seed_pairs():
    """Seed pairs 40 % apart whose means agree: a per-seed distance says 40 %, the distance
    of the means 0, with a standard error from the seed spread."""
    a = _seeds(loss=[0.010, 0.006], goodput=[0.90, 0.94])
    b = _seeds(loss=[0.006, 0.010], goodput=[0.92, 0.92])
    per_seed = distance_of(np.zeros(0), a.iloc[0], np.zeros(0), b.iloc[0])
    assert per_seed["loss_rel"] == pytest.approx(0.4)
    d = distance_of_means(a, b)
    assert d["loss_rel"] == 0 and d["goodput_abs"] == pytest.approx(0.0, abs=1e-12)
    # se of each mean: std 0.002828 / sqrt(2) = 0.002; both: 0.002 * sqrt(2), over 0.008
    assert d["loss_rel_se"] == pytest.approx(0.002 * math.sqrt(2) / 0.008)
    assert d["timeouts_rel"] == 0 and d["timeouts_rel_se"] == 0


def test_distance_of_means_with_one_seed_has_no_standard_error():
    d = distance_of_means(_seeds(loss=[0.01]), _seeds(loss=[0.02]))
    assert d["loss_rel"] == pytest.approx(0.5) and math.isnan(d["loss_rel_se"])


def _runs(loss_ns3: list[float], loss_ns2: list[float]) -> pd.DataFrame:
    """One bulk configuration's runs on both engines, seeds 1..n, only loss varying."""
    rows = []
    for engine, losses in (("ns3", loss_ns3), ("ns2", loss_ns2)):
        for seed, loss in enumerate(losses, start=1):
            rows.append({"family": "qiu", "config": "10 flows", "engine": engine, "seed": seed,
                         "loss": loss, "utilisation": 0.99, "queue": 50.0, "timeouts": 1.0,
                         "goodput": 0.95, "jain": 0.9, "cpu_s": 1.0})
    return pd.DataFrame(rows)


def test_cross_study_judges_the_means_and_keeps_the_seed_pairs():
    """The cross-simulator study's loss distance is that of the engines' means over seeds
    (within the bound where the means agree, though every seed pair is 40 % apart), and its
    per-seed-pair distance stays beside it; means 20 % apart are outside."""
    from aqmlab.studies.ns2_vs_ns3 import distances

    rt = pd.DataFrame(columns=["family", "config", "engine", "seed", "response_time_s"])
    agree = distances(_runs([0.010, 0.006, 0.010, 0.006], [0.006, 0.010, 0.006, 0.010]), rt)
    row = agree.iloc[0]
    assert row["seeds"] == 4
    assert row["loss_rel"] == 0 and row["ok_loss_rel"]
    assert row["pairs_loss_rel"] == pytest.approx(0.4)
    assert row["loss_rel_se"] > 0
    apart = distances(_runs([0.010, 0.010, 0.011], [0.008, 0.008, 0.0088, 0.008]), rt)
    assert apart.iloc[0]["seeds"] == 3  # seed 4 ran on one engine only
    assert apart.iloc[0]["loss_rel"] == pytest.approx(0.2, rel=0.01)
    assert not apart.iloc[0]["ok_loss_rel"]


def test_cross_study_bulk_families_run_more_seeds():
    """The full profile runs its families without web traffic on six seeds, the web
    family on its three; overriding ``seeds`` adds to the bulk seeds, never removes."""
    from aqmlab.studies.ns2_vs_ns3 import profile

    p = profile("full")
    assert p.seeds == (1, 2, 3) and p.bulk_run_seeds == (1, 2, 3, 4, 5, 6)
    assert profile("full", seeds=[7, 8]).bulk_run_seeds == (1, 2, 3, 4, 5, 6, 7, 8)
    assert profile("tiny").bulk_run_seeds == profile("tiny").seeds
