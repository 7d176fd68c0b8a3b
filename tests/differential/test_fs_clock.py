"""A tie that ns-2.35 orders by the size of its floating-point errors, which ns-3's clock of
whole nanoseconds cannot follow; at femtoseconds, aqmlab's default time step, it can
(``AQMLAB_TIME_RESOLUTION``, aqmlab/engines/ns3/native.py and cpp/ns2_tx_clock.h).

Qiu's phase-locked 100-flow T1 (seed 1): flow 47's 4 s retransmission timer, set by an ACK
at 13.08 s, expires at 17.082252 s when flow 80's ACK arrives, 1544 T1 slots of exactly
1/386 s later: the two packets (47's retransmission of 72, 80's new 34) reach the
bottleneck at the same instant in exact arithmetic. ns-2.35's clock runs 1.8e-15 s per
slot fast after 16 s and 9e-18 s slow before, -7e-13 s over the timer: 80's packet comes
first. The "ns2" tx_time clock at 1 ns rounds each step the same way but by +0.8 ns
before 16 s and -0.2 ns after: ns-3's ACK arrives 279 ns after the timeout, 47's packet
comes first, 80's 34 leaves the bottleneck one slot later and its fifth duplicate ACK
for 29 (18.071887 s on ns-2) comes at 18.074478 s. At 1 fs each departure of a busy link
is ns-2's double time rounded to the femtosecond (test_tx_clock_drift.py), and every data
packet of the 100 flows leaves at ns-2's time (to the traces' microsecond) for the 20 s.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from aqmlab.engines.flow_trace import flow_trace
from aqmlab.studies.setups import qiu
from tests.differential.packets import data_packets, parting_index
from tests.differential.scenarios import MARKS

pytestmark = MARKS

FLOWS = 100
REPO = Path(__file__).resolve().parents[2]
TOL = 1.5e-6  # both engines print times to the microsecond
NS_TOL = 5e-6  # at 1 ns the "ns2" clock also drifts from ns-2's, +2.5 us by 16 s


def scenario(engine: str):
    return qiu.base(20, 0.0).replace(**{
        "traffic[0].flows": FLOWS, "run.sample_interval": None, "run.engine": engine,
        "run.event_clock": "exact"})  # the time resolution matters on the exact clock


_CHILD = """
import sys
from aqmlab.engines.flow_trace import flow_trace
from tests.differential.test_fs_clock import FLOWS, scenario
flow_trace(scenario("ns3"), range(FLOWS))[1].to_csv(sys.argv[1], index=False)
"""


@pytest.fixture(scope="module")
def ns2_events() -> pd.DataFrame:
    return flow_trace(scenario("ns2"), range(FLOWS))[1]


def _ns3_at(resolution: str, workdir: Path) -> pd.DataFrame:
    """ns-3's events in a process of its own (ns-3 sets its resolution once a process)."""
    out = workdir / "events.csv"
    env = {**os.environ, "AQMLAB_TIME_RESOLUTION": resolution,
           "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    subprocess.run([sys.executable, "-c", _CHILD, str(out)], cwd=workdir, env=env,
                   check=True, timeout=600)
    return pd.read_csv(out)


def _partings(a: pd.DataFrame, b: pd.DataFrame, tol: float = TOL) -> dict[int, float]:
    """Flow -> ns-2's time of its first data packet that differs."""
    out = {}
    for f in range(FLOWS):
        x, y = data_packets(a, f), data_packets(b, f)
        i = parting_index(x, y, tol=tol)
        if i < min(len(x), len(y)) or len(x) != len(y):
            out[f] = float(x.t.iloc[i]) if i < len(x) else float("inf")
    return out


def test_nanoseconds_order_the_tie_the_other_way(ns2_events, tmp_path):
    ns3 = _ns3_at("ns", tmp_path)
    parted = _partings(ns2_events, ns3, NS_TOL)
    assert min(parted.values()) == pytest.approx(18.071887, abs=TOL)
    assert min(parted, key=parted.get) == 80
    x, y = data_packets(ns2_events, 80), data_packets(ns3, 80)
    i = parting_index(x, y, tol=NS_TOL)
    assert x.seg.iloc[i] == y.seg.iloc[i] == 36
    assert y.t.iloc[i] - x.t.iloc[i] == pytest.approx(1 / 386, abs=NS_TOL)  # one T1 slot


def test_femtoseconds_follow_ns2_packet_for_packet(ns2_events):
    if os.environ.get("AQMLAB_TIME_RESOLUTION", "") not in ("", "fs"):
        pytest.skip("this process runs ns-3 at another time step")
    ns3 = flow_trace(scenario("ns3"), range(FLOWS))[1]
    assert _partings(ns2_events, ns3) == {}
    assert (data_packets(ns3, 80).t > 18.08).any()  # past the tie's consequence
