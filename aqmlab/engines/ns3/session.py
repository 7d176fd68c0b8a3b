"""One simulation in this process: reset ns-3, build, run, pull columns, tear down.

Returns plain NumPy arrays and numbers (a :class:`~aqmlab.results.raw.RawRun`), so no
ns-3 object leaves the engine.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from aqmlab.engines.ns3 import native, socket_tables
from aqmlab.engines.ns3.build import build
from aqmlab.plan import Plan
from aqmlab.results.raw import TCP_STATES, RawRun
from aqmlab.scenario import Scenario


def _arr(vec: Any) -> np.ndarray:
    n = int(vec.size())
    if n == 0:
        return np.zeros(0)
    return np.frombuffer(vec.data(), dtype=np.float64, count=n).copy()


def simulate(scenario: Scenario, plan: Plan, trace_flows: Sequence[int] = (),
             trace_path: str | None = None) -> RawRun:
    """Run ``scenario`` (expanded into ``plan``) in this process (ns-3 is imported on first
    use). ``trace_flows``: bulk flows/transfers whose senders write their events to
    ``trace_path`` (:mod:`aqmlab.engines.flow_trace`)."""
    t0 = time.perf_counter()
    cpp = native.load()
    cpp.ResetGlobals(scenario.run.seed, scenario.run.run)
    exp = build(cpp, scenario, plan)
    t_built = time.perf_counter()
    if trace_flows:
        ports = ",".join(str(int(cpp.PORT_BASE) + int(i)) for i in trace_flows)
        cpp.TcpTrace.Configure(str(trace_path), ports)
    try:
        exp.Run()
    finally:
        if trace_flows:
            cpp.TcpTrace.Configure("", "")
    raw = RawRun()
    for i, name in enumerate(exp.FlowColumns()):
        raw.flows[str(name)] = _arr(exp.FlowColumn(i, False))
        raw.flows_warm[str(name)] = _arr(exp.FlowColumn(i, True))
    for name in ("src", "dst", "start", "target", "completion", "first_rx", "request", "delay",
                 "kind"):
        raw.flow_info[name] = _arr(exp.FlowInfoColumn(name))
    for i, name in enumerate(exp.QueueColumns()):
        raw.queues[str(name)] = _arr(exp.QueueColumn(i, False))
        raw.queues_warm[str(name)] = _arr(exp.QueueColumn(i, True))
    raw.probe_names = [str(n) for n in exp.ProbeNames()]
    raw.link_bytes = _arr(exp.LinkBytes(False))
    raw.link_bytes_warm = _arr(exp.LinkBytes(True))
    raw.link_rates = _arr(exp.LinkRates())
    raw.sample_times = _arr(exp.SampleTimes())
    for i, name in enumerate(raw.probe_names):
        raw.series[name] = tuple(_arr(exp.Series(i, w)) for w in (0, 1, 2))
    raw.stats = {
        "run_cpu_s": float(exp.CpuSeconds()),
        "events": float(exp.Events()),
        "end_s": float(exp.EndTime()),
        "warmup_s": float(exp.WarmupTime()),
        "build_wall_s": t_built - t0,
    }
    census = _arr(exp.SocketCensus())
    for state, count in zip(TCP_STATES, census, strict=True):
        if state != "LISTEN":
            raw.stats[f"sockets_{state.lower()}"] = float(count)
    del exp
    cpp.ResetGlobals(scenario.run.seed, scenario.run.run)  # free the simulation's objects
    socket_tables.reset()
    raw.stats["wall_s"] = time.perf_counter() - t0
    return raw
