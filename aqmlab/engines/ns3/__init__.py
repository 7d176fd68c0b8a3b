"""The ns-3 engine: the only package that imports cppyy or the ns-3 wheel.

``loader`` imports the wheel's module subset; ``native`` JIT-compiles ``cpp/`` (aqmlab's
per-packet C++: sockets, applications, probes, queue discs); ``build`` drives the C++
Experiment from a plan; ``session`` runs one simulation in this process and pulls its
columns; ``socket_tables`` and ``object_memo`` interpose O(1) socket bookkeeping and memos of
ns-3's own per-object and per-packet work (``interposer`` builds such libraries);
``speedups`` lists every speed-up and its ``AQMLAB_...=0`` off-switch. Importing this package does
not import ns-3: :func:`simulate` (or :func:`warm_up`) does, once per process.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _dist_version
from typing import Any

from aqmlab.engines.ns3 import loader, native, session, socket_tables, speedups
from aqmlab.errors import ScenarioError
from aqmlab.plan import Plan
from aqmlab.results.raw import RawRun
from aqmlab.scenario import Scenario

__all__ = ["NAME", "available", "check", "run_meta", "simulate", "test_abort", "version",
           "warm_up"]

NAME = "ns3"
#: The cost model is fitted to ns-3 runs: each of its terms counts once.
RELATIVE_COST = {"web": 1.0, "link": 1.0, "flows": 1.0}


def version() -> str:
    """The ns-3 wheel's version, e.g. "3.44.post0"."""
    try:
        return _dist_version("ns3")
    except PackageNotFoundError:
        return "unknown"


def available() -> bool:
    return version() != "unknown"


def check(scenario: Scenario) -> None:
    """Refuse what only the ns-2 engine can do, ns-2.35's own PackMimeHTTP generator, and
    runs longer than the time step allows. Every kind aqmlab defines maps onto ns-3."""
    run = scenario.run
    limit = native.max_duration_s()
    if run.duration_s > limit:
        raise ScenarioError("run.duration", run.duration,
                            f"at most {limit:.0f} s on ns-3 at its {native.resolution()} time "
                            "step (int64 steps)",
                            "split the run, or set AQMLAB_TIME_RESOLUTION=ps (or ns)")
    for k, group in enumerate(scenario.traffic):
        if getattr(group, "generator", "aqmlab") != "aqmlab":
            raise ScenarioError(f"traffic[{k}].generator", group.generator,
                                "ns-3 replays aqmlab's generator only; 'ns2' is ns-2.35's own "
                                "PackMimeHTTP", 'use run.engine = "ns2", or generator = "aqmlab"')


def simulate(scenario: Scenario, plan: Plan, **options: Any) -> RawRun:
    """One simulation in this process (see :mod:`aqmlab.engines.ns3.session`; ``options``:
    ``trace_flows``, ``trace_path``)."""
    return session.simulate(scenario, plan, **options)


def warm_up() -> None:
    """Import ns-3 and JIT aqmlab's C++ now (a worker's start-up, not a run's cost)."""
    native.load()


def run_meta() -> dict[str, object]:
    """Speed-ups in use (they change speed, never results; :mod:`.speedups`)."""
    return {"socket_tables": socket_tables.active(), **speedups.active(native.load())}


def test_abort() -> None:
    """Make ns-3 itself abort (``NS_FATAL_ERROR``): the tests' proof of crash isolation."""
    native.load()
    ns = loader.gbl().ns3
    ns.Config.SetDefault("ns3::AqmlabTestAbort::Trigger", ns.StringValue("1"))
