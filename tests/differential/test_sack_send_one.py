"""The parking lot's 25 one-way SACK flows (Sack1, limited transmit), seed 6, the first
2.3 s: two mechanisms that separated the engines there.

* Outside recovery Sack1 counts every segment out once (``t_seqno_ <= last_ack_ + win``),
  and answers the first two duplicate ACKs with one segment each at most (``send_one()``).
  ns-3's flight counted the twelve segments flow 19 had resent in its recovery, and still
  outstanding, twice: at the ACK ending that recovery (1.033 s, cwnd 86.5, 85 segments out)
  and at the next two duplicate ACKs it sent nothing, ns-2.35 segments 490, 491 and 492.
* ``run.event_clock = "ns2"`` (the example's default): the lot's link times fall on one
  lattice, and with ns-3's exact clock two coinciding events at the middle hop ran in the
  other order: at 2.126 s ns-2.35 resent flow 15's segment 717, which ns-3 had delivered.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from aqmlab.engines.flow_trace import flow_trace
from aqmlab.scenario import Scenario
from tests.differential.packets import data_packets, partings
from tests.differential.scenarios import MARKS

pytestmark = MARKS

LOT = Path(__file__).resolve().parents[2] / "examples" / "parking_lot.toml"
FLOWS = range(25)


@functools.cache
def _events(engine: str, clock: str = "ns2"):
    sc = Scenario.load(LOT).replace(**{
        "run.duration": "2.3s", "run.warmup": "0s", "run.seed": 6, "run.sample_interval": None,
        "run.engine": engine, "run.event_clock": clock})
    return flow_trace(sc, FLOWS)[1]


def test_every_flow_sends_ns2s_packets():
    assert np.isinf(min(partings(_events("ns2"), _events("ns3"), FLOWS)))


def test_leaving_recovery_sends_one_segment_per_ack():
    for ev in (_events("ns2"), _events("ns3")):
        d = data_packets(ev, 19)
        sent = d[(d.t > 1.033) & (d.t < 1.0350)]
        assert sent.seg.tolist() == [490, 491, 492]
        assert sent.t.diff().dropna().gt(5e-4).all()  # one per ACK: 1.0330, 1.0339, 1.0347


def test_the_exact_clock_orders_a_tie_otherwise():
    p = np.array(partings(_events("ns2"), _events("ns3", clock="exact"), FLOWS))
    assert int(p.argmin()) == 15 and abs(p.min() - 2.125064) < 1e-5
    resent = data_packets(_events("ns2"), 15)
    assert resent[(resent.t > 2.1267) & (resent.t < 2.1268)].seg.tolist() == [717]
