"""A bulk flow's SYN and SYN/ACK carry no option bytes (``tcp.syn_options = "none"``).

ns-2.35's one-way agents have no handshake: a 40-byte packet 0 and its 40-byte ACK go
first. ns-3's SYN and SYN/ACK carry the window-scale option (Qiu's 1-MB receive window
needs it): 4 bytes each, 8 bytes over a T1 and two 10 Mb/s access links, so every flow's
first data segment left 54 us later than on ns-2.35. With 100 flows starting within a
second, each later flow's first packets then met another queue: at seed 1 the engines'
data packets parted at 0.39 s (flow 62's first segment, 2.5 ms apart). With bare SYNs
(and the tick phases of ``test_tick_phase.py``) every flow sends the same segments at the
same instants (within 5 us: ns-2 traces microseconds); with ns-3's old 1-ns clock until
18.07 s, where a tie went the other way (``test_fs_clock.py``).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from aqmlab.engines.flow_trace import flow_trace
from aqmlab.studies.setups import qiu
from tests.differential.packets import data_packets, parting_time
from tests.differential.scenarios import MARKS

pytestmark = MARKS
TOL = 5e-6


@functools.cache
def _run(engine: str, flows: int, duration: float, syn: str = "auto"):
    sc = qiu.base(duration, 0.0).replace(**{
        "topology.senders": flows, "traffic[0].flows": flows, "run.sample_interval": None,
        "run.engine": engine, "tcp.syn_options": syn})
    return flow_trace(sc, list(range(flows)))[1]


def _first_data(ev) -> float:
    return float(data_packets(ev, 0).t[0])


def test_the_first_data_segment_leaves_when_ns235s_does():
    t2 = _first_data(_run("ns2", 1, 2.0))
    assert _first_data(_run("ns3", 1, 2.0)) == pytest.approx(t2, abs=1e-6)
    # ns-3's options: 8 bytes, 54 us over T1 (1.550176 Mb/s) and the two 10 Mb/s links
    late = _first_data(_run("ns3", 1, 2.0, "ns3")) - t2
    assert late == pytest.approx(8 * 8 * (1 / 1.550176e6 + 2 / 10e6), abs=2e-6)


def test_a_hundred_flows_send_the_same_packets_for_fifteen_seconds():
    ev2, ev3 = _run("ns2", 100, 16.0), _run("ns3", 100, 16.0)
    parting = np.array([parting_time(data_packets(ev2, f), data_packets(ev3, f), tol=TOL)
                        for f in range(100)])
    assert parting.min() > 15.0, (parting.argmin(), parting.min())
    assert sum(len(data_packets(ev2, f)) for f in range(100)) > 5000
