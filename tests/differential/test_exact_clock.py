"""Both engines' flow traces carry exact times, and on ns-2's event clock
(``run.event_clock = "ns2"``) ns-3's are ns-2.35's doubles bit for bit.

``flow_trace`` reads ns-2.35's clock for each line of its trace (the trace itself rounds to
1 us) and ns-3's running event's double. Qiu's T1 with ten flows, 6 s, seeds 1 and 2: every
data packet leaves at the same double on both engines. Before aqmlab 0.8.33 a bulk flow
started at ns-3's femtosecond step nearest its start time, up to half a femtosecond off
ns-2.35's ``$ns at start``, and its every time with it: 63 of 2,296 packets (seed 1) left
0.07-0.5 fs apart. That decides exact ties: at 1000 flows with 40-byte ACKs (buffer 160,
seed 3) flows 127 and 660 time out at one instant in exact arithmetic, 20.2772746854 s;
ns-2.35's doubles put flow 127 3 fs first, and the half-femtosecond start put both on one
double, where ns-3 ran flow 660 first (``bench/qiu_ack_header.py``). With a random
processing time at the senders (a T1 packet time, seed 1) 909 of 3,145 packets were
bit-equal before 0.8.34: the hold's release was due at the femtosecond step of its draw,
where ns-2.35's ``delsnd_timer_`` is due at fl(now + the draw's own double).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from aqmlab.engines.flow_trace import flow_trace
from aqmlab.studies.setups import qiu
from tests.differential.packets import data_packets
from tests.differential.scenarios import MARKS

pytestmark = MARKS
FLOWS = range(10)


@functools.cache
def _events(engine: str, seed: int, processing: bool = False):
    sc = qiu.base(6.0, 0.0).replace(**{
        "topology.senders": len(FLOWS), "traffic[0].flows": len(FLOWS),
        "run.sample_interval": None, "run.seed": seed, "run.engine": engine})
    if processing:
        sc = sc.replace(**{"traffic[0].processing_time": f"{qiu.SERVICE_S:.5f}s"})
    assert sc.run.event_clock == "ns2"
    return flow_trace(sc, list(FLOWS))[1]


@pytest.mark.parametrize(("seed", "processing"), [(1, False), (2, False), (1, True)])
def test_every_data_packet_leaves_at_ns2s_double(seed, processing):
    ev2, ev3 = _events("ns2", seed, processing), _events("ns3", seed, processing)
    sent = 0
    for f in FLOWS:
        a, b = data_packets(ev2, f), data_packets(ev3, f)
        assert list(a.seg) == list(b.seg)
        assert (a.t.to_numpy() == b.t.to_numpy()).all(), (f, np.abs(a.t - b.t).max())
        sent += len(a)
    assert sent > 2000


def test_ns2_times_are_its_doubles_not_the_traces_microseconds():
    t = _events("ns2", 1).t.to_numpy()
    off_grid = np.abs(t * 1e6 - np.round(t * 1e6)) > 1e-3
    assert off_grid.mean() > 0.9
