"""Who sends what when: per-packet sender events of chosen bulk flows or transfers, on either
engine, in one table, for tracing a mechanism on both simulators with the same planned
workload.

:func:`flow_trace` runs a scenario in this process on its ``run.engine`` and returns its
Results and the events of ``flows``, one row each, ordered by time:

- ``t`` (s), ``flow`` (index of the bulk flow/transfer), ``event``: "send" (a data segment
  sent for the first time), "retx" (sent again), "ack" (an ACK arrived at the sender),
  "timeout" (the retransmission timer expired with data outstanding; ns-2: its back-off
  grew), "syn_retry" (ns-3: the SYN timer expired; ns-2's SYN-like packet 0 shows as a
  "retx" of segment -1);
- ``seg``: data segment index from 0 (send, retx, timeout: the segment concerned; ack: the
  number of segments acknowledged in order);
- ``cwnd`` and ``ssthresh`` (segments) and ``backoff`` (the RTO multiplier) after the
  event (ns-3: a retransmission shows them as the socket sent it, before aqmlab's Reno
  corrections of that ACK or timeout; ``backoff`` only when aqmlab computes the timer,
  i.e. a mechanism of :mod:`aqmlab.kinds.tcp.mechanisms` at ns-2's value; else 1).

Times are exact on both engines, so ties and their order can be read: ns-3's clock (its
1 ns steps; with ``run.event_clock = "ns2"`` the running event's ns-2 double) and ns-2.35's
doubles (its trace rounds them to 1 us; a callback on the traced links writes each line's
clock). ns-3: aqmlab's socket writes the events (``TcpTrace`` in tcp_socket.h); a segment
held by a sender processing time (``processing_time``) when it leaves the hold, where
ns-2's trace sees it. ns-2: the
``trace-queue`` of each flow's first link gives sends and ACK arrivals, its agent's traced
variables the window and back-off (cwnd for an ns-2 event is the last value traced at or
before it; those are printed to 10 us).
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from aqmlab import engines
from aqmlab.plan import make_plan
from aqmlab.scenario import Scenario

__all__ = ["COLUMNS", "flow_trace"]

COLUMNS = ["t", "flow", "event", "seg", "cwnd", "ssthresh", "backoff"]
_NS3_COLUMNS = ["t", "port", "ev", "seg", "cwnd", "ssthresh", "state", "rto", "srtt", "rttvar",
                "backoff"]
_NS3_EVENTS = {"S": "send", "R": "retx", "A": "ack", "T": "timeout", "Y": "syn_retry"}
_TRACE_COLUMNS = ["op", "t", "a", "b", "ptype", "size", "flags", "fid", "src", "dst", "seq",
                  "uid"]
PORT_BASE = 10000  # flow i's sender binds PORT_BASE + i (experiment.h)


def flow_trace(scenario: Scenario, flows: Sequence[int],
               workdir: str | Path | None = None) -> tuple[Any, pd.DataFrame]:
    """(Results, events) of ``scenario`` on its engine, tracing bulk flows/transfers
    ``flows`` (indices into the scenario's bulk flows and transfers, in plan order).
    ``workdir``: where the traces go (default: a temporary folder)."""
    flows = [int(i) for i in flows]
    with tempfile.TemporaryDirectory(prefix="aqmlab-trace-") as tmp:
        wd = Path(workdir) if workdir is not None else Path(tmp)
        wd.mkdir(parents=True, exist_ok=True)
        if scenario.run.engine == "ns2":
            res = engines.simulate(scenario, workdir=wd, keep=True, trace_flows=flows)
            events = _read_ns2(wd, make_plan(scenario.resolve()), flows)
        else:
            path = wd / "ns3_flows.tr"
            res = engines.simulate(scenario, trace_flows=flows, trace_path=str(path))
            events = _read_ns3(path)
    return res, events


def _read_ns3(path: Path) -> pd.DataFrame:
    if not path.exists() or path.stat().st_size == 0:
        return pd.DataFrame({c: [] for c in COLUMNS})
    tr = pd.read_csv(path, sep=" ", header=None, names=_NS3_COLUMNS)
    out = pd.DataFrame({
        "t": tr.t, "flow": tr.port - PORT_BASE, "event": tr.ev.map(_NS3_EVENTS),
        "seg": tr.seg.where(tr.ev != "Y", np.nan), "cwnd": tr.cwnd, "ssthresh": tr.ssthresh,
        "backoff": tr.backoff})
    return _ordered(out)


def _ordered(ev: pd.DataFrame) -> pd.DataFrame:
    """By time; at one instant a timeout before the retransmission it sends, ACKs last."""
    order = ev.event.map({"timeout": 0, "syn_retry": 0, "retx": 1, "send": 1, "ack": 2})
    ev = ev.assign(_order=order).sort_values(["t", "_order"], kind="stable")
    return ev.drop(columns="_order").reset_index(drop=True)


def _read_ns2(wd: Path, plan, flows: list[int]) -> pd.DataFrame:
    path = wd / "flows.tr"
    tr = pd.read_csv(path, sep=r"\s+", header=None, names=_TRACE_COLUMNS,
                     usecols=range(len(_TRACE_COLUMNS)))
    clock = np.loadtxt(wd / "flows.clock", ndmin=1)
    if len(clock) != len(tr):
        raise RuntimeError(f"ns-2 flow trace: {len(tr)} lines but {len(clock)} exact times")
    tr["t"] = clock
    parts = []
    for i in flows:
        src = plan.flows[i].src
        mine = tr[tr.fid == i]
        sent = mine[(mine.op == "+") & (mine.a == src) & (mine.ptype == "tcp")]
        first = ~sent.seq.duplicated()
        sends = pd.DataFrame({"t": sent.t, "event": np.where(first, "send", "retx"),
                              "seg": sent.seq - 1})
        got = mine[(mine.op == "r") & (mine.b == src) & (mine.ptype == "ack")]
        acks = pd.DataFrame({"t": got.t, "event": "ack", "seg": got.seq})
        var = _read_vars(wd / f"vars{i}.tr")
        back = var[var["var"] == "backoff_"]
        grew = back[back.val.diff() > 0].t.to_numpy()
        # a timeout retransmits at once: it takes that packet's time (the variables are
        # printed to 5 decimals only) and segment
        k = np.searchsorted(sent.t.to_numpy(), grew - 1e-5)
        k = np.minimum(k, max(len(sent) - 1, 0))
        near = len(sent) > 0 and np.abs(sent.t.to_numpy()[k] - grew) <= 1e-5
        timeouts = pd.DataFrame({
            "t": np.where(near, sent.t.to_numpy()[k] if len(sent) else grew, grew),
            "event": "timeout",
            "seg": np.where(near, sent.seq.to_numpy()[k] - 1 if len(sent) else np.nan, np.nan)})
        ev = _ordered(pd.concat([sends, acks, timeouts], ignore_index=True))
        for name, col in (("cwnd_", "cwnd"), ("ssthresh_", "ssthresh"), ("backoff_", "backoff")):
            ev[col] = _as_of(var[var["var"] == name], ev.t.to_numpy())
        ev["flow"] = i
        parts.append(ev)
    out = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=COLUMNS)
    return _ordered(out[COLUMNS])


def _read_vars(path: Path) -> pd.DataFrame:
    """An agent's variable trace: ``time saddr sport daddr dport name value``."""
    v = pd.read_csv(path, sep=r"\s+", header=None, usecols=[0, 5, 6],
                    names=["t", "var", "val"])
    return v.astype({"t": float, "val": float})


def _as_of(var: pd.DataFrame, t: np.ndarray, slack: float = 1e-5) -> np.ndarray:
    """The last value traced at or before each time (ns-2 prints times to 5 decimals)."""
    if not len(var):
        return np.full(len(t), np.nan)
    vt, vv = var.t.to_numpy(), var.val.to_numpy()
    idx = np.searchsorted(vt, t + slack, side="right") - 1
    return np.where(idx >= 0, vv[np.maximum(idx, 0)], np.nan)
