"""Comparing two engines' traces of the same flow packet by packet (``flow_trace`` events)."""

from __future__ import annotations

import numpy as np
import pandas as pd


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
