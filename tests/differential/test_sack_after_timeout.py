"""After a timeout, ns-2's one-way SACK agents (the parking lot's 25 Sack1 flows, limited
transmit on, initial window 2), seed 1, the first 4 s.

* ``dupacks_after_timeout = "limited_transmit"`` for Sack1: once a new ACK has cleared
  ``timeout_``, a duplicate ACK whose SACK blocks add to the rebuilt scoreboard is counted,
  and each of the first two lets the next go-back-N segment out (``singledup_``:
  ``send_one()``). Flow 14 at 1.535 s: ns-2.35 resent segment 366; aqmlab's loss state had
  ignored the duplicate ACK.
* ``syn_timeout_ssthresh = "halve"`` also sets the initial window to one segment (a lost
  packet 0: ``wnd_init_ = 1``, RFC 3390). Flow 23's SYN was lost; at 3.42 s ns-2.35 sent
  segment 0 alone, ns-3 segments 0 and 1.
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
def _events(engine: str, **tcp: str):
    sc = Scenario.load(LOT).replace(**{
        "run.duration": "4s", "run.warmup": "0s", "run.seed": 1, "run.sample_interval": None,
        "run.engine": engine, **{f"tcp.{k}": v for k, v in tcp.items()}})
    return flow_trace(sc, FLOWS)[1]


def test_every_flow_sends_ns2s_packets():
    assert np.isinf(min(partings(_events("ns2"), _events("ns3"), FLOWS)))


def test_a_sack_informative_dupack_sends_the_next_resend():
    p = np.array(partings(_events("ns2"), _events("ns3", dupacks_after_timeout="ignored"),
                          FLOWS))
    assert int(p.argmin()) == 14 and abs(p.min() - 1.535181) < 1e-5
    d = data_packets(_events("ns2"), 14)
    assert d[(d.t > 1.535) & (d.t < 1.5353)].seg.tolist() == [366]


def test_a_lost_syn_leaves_a_window_of_one():
    for ev in (_events("ns2"), _events("ns3")):
        d = data_packets(ev, 23)
        first = d[d.seg >= 0].iloc[0].t
        assert d[(d.t - first).abs() < 1e-9].seg.tolist() == [0]
        assert 3.42 < first < 3.421


def test_ns3s_rule_keeps_the_initial_window():
    d = data_packets(_events("ns3", syn_timeout_ssthresh="keep"), 23)
    first = d[d.seg >= 0].iloc[0].t
    assert d[(d.t - first).abs() < 1e-9].seg.tolist() == [0, 1]
