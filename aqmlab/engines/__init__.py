"""Simulator engines behind one boundary; only these packages import or run a simulator.

An engine is a module (``aqmlab.engines.ns3``, ``aqmlab.engines.ns2``) with:

* ``NAME``; ``version() -> str`` (recorded in each run's provenance);
  ``available() -> bool``;
* ``check(scenario)``: raise :class:`~aqmlab.errors.ScenarioError` naming the field for
  anything the engine cannot honour, before anything runs;
* ``simulate(scenario, plan) -> RawRun``: one simulation of the planned network, its
  results as engine-neutral columns (:class:`~aqmlab.results.raw.RawRun`);
* ``run_meta() -> dict``: engine facts to record with each run (speed-ups in use, ...);
* ``RELATIVE_COST``: its CPU per term of the cost model ("web", "link", "flows") relative
  to ns-3's (:mod:`aqmlab.campaign.cost`).

:func:`simulate` is the one path from a scenario to its Results: resolve, check, plan once,
simulate, tables.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import Any

from aqmlab.errors import ScenarioError
from aqmlab.plan import make_plan
from aqmlab.results.results import Results, provenance
from aqmlab.results.tables import to_results
from aqmlab.scenario import Scenario

__all__ = ["ENGINES", "get", "check", "simulate", "peak_rss_mb"]

#: Engine name -> module. Imported on first use, so that naming one engine never loads the
#: other's simulator (ns-3's import alone takes seconds and hundreds of MB).
ENGINES = {"ns3": "aqmlab.engines.ns3", "ns2": "aqmlab.engines.ns2"}


def get(name: str) -> ModuleType:
    """The engine module called ``name``."""
    if name not in ENGINES:
        raise ScenarioError("run.engine", name, f"one of {', '.join(ENGINES)}")
    return importlib.import_module(ENGINES[name])


def check(scenario: Scenario) -> Scenario:
    """``scenario`` resolved and accepted by its engine (ScenarioError otherwise)."""
    sc = scenario.resolve()
    get(sc.run.engine).check(sc)
    return sc


def simulate(scenario: Scenario, **options: Any) -> Results:
    """Simulate ``scenario`` in this process on its ``run.engine``; an engine that aborts
    takes the process with it (workers run this: :mod:`aqmlab.workers`). ``options`` go to
    the engine's ``simulate`` (ns-2: ``workdir``, ``keep`` to inspect its files)."""
    sc = check(scenario)
    engine = get(sc.run.engine)
    plan = make_plan(sc)
    raw = engine.simulate(sc, plan, **options)
    meta = {**provenance(), "engine": engine.NAME, "engine_version": engine.version(),
            "key": sc.key, "seed": sc.run.seed, "run": sc.run.run, **raw.stats,
            "pid": os.getpid(), "peak_rss_mb": peak_rss_mb(), **engine.run_meta()}
    return to_results(sc, plan, raw, meta)


def peak_rss_mb() -> float:
    """High-water mark of this process's resident memory (VmHWM), in MiB; 0 if unknown."""
    try:
        for line in open("/proc/self/status", encoding="ascii"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0
