"""Comparing two engines' traces of the same flow packet by packet (``flow_trace`` events)."""

from __future__ import annotations

import tempfile
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
