"""bench/cost_residuals.py: a stored campaign's runs grouped against the cost model (the
grouping and the ratios it prints; reading a store is ``aqmlab figures --dry-run``'s path)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).parents[2]


def _module():
    spec = importlib.util.spec_from_file_location("aqmlab_bench_cost_residuals",
                                                  ROOT / "bench" / "cost_residuals.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(family, engine, measured, model, load=0.0, length=500.0):
    return {"study": "s", "family": family, "engine": engine, "measured": measured,
            "model": model, "load": load, "length": length, "terms": {}}


def test_a_run_s_configuration_drops_only_the_engine_suffix():
    m = _module()
    assert m.family("x-web-dt148-ns3") == "x-web-dt148"
    assert m.family("x-qiu-1000 flows-ns2") == "x-qiu-1000 flows"
    assert m.family("reno-dt148") == "reno-dt148"


def test_groups_sum_measured_and_model_before_dividing():
    """A group's ratio is Σ measured / Σ model (not a mean of ratios); min and max are one
    run's; web runs group by offered load, bulk ones under "bulk"."""
    m = _module()
    runs = [_run("a", "ns3", 30.0, 10.0, load=0.8), _run("a", "ns3", 10.0, 10.0, load=0.8),
            _run("b", "ns2", 5.0, 10.0)]
    by_family = m.table(runs, "family").splitlines()
    row = next(line for line in by_family if line.split()[2] == "a")
    assert row.split()[3:] == ["2", "40.0", "20.0", "2.00", "1.00", "3.00"]
    by_load = m.table(runs, "load")
    assert any(line.split()[2] == "0.80" for line in by_load.splitlines()[1:])
    assert any(line.split()[2] == "bulk" for line in by_load.splitlines()[1:])
    assert by_load.splitlines()[-1].split()[-1] == "1.50"  # 45 / 30
