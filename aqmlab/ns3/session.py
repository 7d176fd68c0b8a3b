"""One simulation in this process: reset ns-3, build, run, pull columns, tear down.

Returns plain NumPy arrays and numbers (a :class:`RawRun`), so the caller (a worker
process) can send them to the parent without any ns-3 object crossing the boundary.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from aqmlab.ns3 import native, socket_tables
from aqmlab.ns3.build import build
from aqmlab.plan import make_plan
from aqmlab.scenario import Scenario


@dataclass
class RawRun:
    """Columns exactly as the C++ side produced them, plus run statistics."""

    flows: dict[str, np.ndarray] = field(default_factory=dict)
    flows_warm: dict[str, np.ndarray] = field(default_factory=dict)
    flow_info: dict[str, np.ndarray] = field(default_factory=dict)
    queues: dict[str, np.ndarray] = field(default_factory=dict)
    queues_warm: dict[str, np.ndarray] = field(default_factory=dict)
    probe_names: list[str] = field(default_factory=list)
    link_bytes: np.ndarray | None = None
    link_bytes_warm: np.ndarray | None = None
    link_rates: np.ndarray | None = None
    sample_times: np.ndarray | None = None
    series: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=dict)
    stats: dict[str, float] = field(default_factory=dict)


#: ns3::TcpSocket::TcpStates_t, in order.
TCP_STATES = ("CLOSED", "LISTEN", "SYN_SENT", "SYN_RCVD", "ESTABLISHED", "CLOSE_WAIT",
              "LAST_ACK", "FIN_WAIT_1", "FIN_WAIT_2", "CLOSING", "TIME_WAIT")


def _arr(vec: Any) -> np.ndarray:
    n = int(vec.size())
    if n == 0:
        return np.zeros(0)
    return np.frombuffer(vec.data(), dtype=np.float64, count=n).copy()


def simulate(scenario: Scenario) -> RawRun:
    """Run ``scenario`` in this process (ns-3 is imported on first use)."""
    t0 = time.perf_counter()
    cpp = native.load()
    plan = make_plan(scenario)
    cpp.ResetGlobals(scenario.run.seed, scenario.run.run)
    exp = build(cpp, scenario, plan)
    t_built = time.perf_counter()
    exp.Run()
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
