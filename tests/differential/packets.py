"""Comparing two engines' traces of the same flow packet by packet (``flow_trace`` events)."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from aqmlab.engines.flow_trace import flow_trace

#: Columns of ns-2's trace-queue lines (``flows.tr``): the packet flags are in ``flags``.
NS2_TRACE = ["op", "t", "a", "b", "ptype", "size", "flags", "fid", "src", "dst", "seq", "uid"]


def ns2_events_and_raw(scenario, flows) -> tuple[pd.DataFrame, pd.DataFrame]:
    """ns-2.35's ``flow_trace`` events of ``flows`` and its raw trace of their first links
    (one row per queue event, with the packet flags such as ECN-Echo and CWR)."""
    with tempfile.TemporaryDirectory(prefix="aqmlab-ns2trace-") as tmp:
        ev = flow_trace(scenario, flows, workdir=tmp)[1]
        raw = pd.read_csv(Path(tmp) / "flows.tr", sep=r"\s+", header=None, names=NS2_TRACE,
                          usecols=range(len(NS2_TRACE)))
    return ev, raw


def data_packets(ev: pd.DataFrame, flow: int) -> pd.DataFrame:
    """The data segments ``flow`` sent (first sends and retransmissions), in order."""
    d = ev[(ev.flow == flow) & ev.event.isin(["send", "retx"]) & (ev.seg >= 0)]
    return d.reset_index(drop=True)


def parting_index(a: pd.DataFrame, b: pd.DataFrame, *, shift: float = 0.0, tol: float = 1e-3,
                  skip: int = 0) -> int:
    """Index of the first packet from ``skip`` on that differs: another segment, or a time
    more than ``tol`` apart once ``b`` is moved ``shift`` later; the shorter length if none."""
    n = min(len(a), len(b))
    bad = (a.seg.to_numpy()[skip:n] != b.seg.to_numpy()[skip:n]) | (
        np.abs(a.t.to_numpy()[skip:n] - b.t.to_numpy()[skip:n] - shift) > tol)
    i = np.nonzero(bad)[0]
    return skip + int(i[0]) if len(i) else n


def parting_time(a: pd.DataFrame, b: pd.DataFrame, **kwargs: float) -> float:
    """``a``'s time of the first packet that differs (:func:`parting_index`); inf if none."""
    i = parting_index(a, b, **kwargs)  # type: ignore[arg-type]
    return float(a.t.to_numpy()[i]) if i < min(len(a), len(b)) else np.inf


def partings(ev2: pd.DataFrame, ev3: pd.DataFrame, flows, **kwargs: float) -> list[float]:
    """Each flow's :func:`parting_time` between two engines' events (inf: none parted)."""
    return [parting_time(data_packets(ev2, f), data_packets(ev3, f), **kwargs) for f in flows]


def data_counts(ev: pd.DataFrame, flows) -> list[int]:
    """How many data segments each flow sent (first sends and retransmissions)."""
    return [len(data_packets(ev, f)) for f in flows]


class EngineTraces:
    """Both engines' ``flow_trace`` of one scenario, each run at most once: ns-2.35's events
    and raw trace, and ns-3's results and events for each value of the option under test.

    ``scenario(engine)`` builds the faithful scenario, ``scenario("ns3", value)`` ns-3's with
    the option at ``value``."""

    def __init__(self, scenario: Callable[..., object], flows: list[int]) -> None:
        self._scenario, self.flows = scenario, flows
        self._ns2: tuple[pd.DataFrame, pd.DataFrame] | None = None
        self._ns3: dict[str, tuple] = {}

    def raw(self) -> pd.DataFrame:
        """ns-2.35's trace of the flows' first links (:func:`ns2_events_and_raw`)."""
        return self._ns2_run()[1]

    def ns3(self, value: str = "auto") -> tuple:
        """ns-3's ``flow_trace`` (results, events) with the option at ``value``."""
        if value not in self._ns3:
            self._ns3[value] = flow_trace(self._scenario("ns3", value), self.flows)
        return self._ns3[value]

    def events(self, engine: str, value: str = "auto") -> pd.DataFrame:
        """The flows' events on ``engine`` (ns-3's with the option at ``value``)."""
        return self._ns2_run()[0] if engine == "ns2" else self.ns3(value)[1]

    def _ns2_run(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        if self._ns2 is None:
            self._ns2 = ns2_events_and_raw(self._scenario("ns2"), self.flows)
        return self._ns2
