"""RED above its forced threshold, on both engines (``forced_region``).

ns-2.35's RED (``use_mark_p_ 1``, its default since December 2005) has no forced region:
at or above max_th (2 max_th with gentle) an arrival still takes the early branches, so the
first one after the queue held at most one waiting packet passes (``old == 0``) and the
others are dropped by ``drop_early`` with p = 1, each drawing a random number. ns-3's
``RedQueueDisc``, and ns-2 with ``use_mark_p_ 0``, drop them all as forced, drawing none.

1. Packet by packet: one Reno flow through RED with w_q 1 (the average is the queue an
   arrival finds), min_th 1.5, max_th 2, no gentle, for 2 s. "early_test": both engines
   deliver 1306 data packets, lose segments 11, 12, 19-24 alike and count 7 early drops;
   "drop": 1285 packets, segments 10, 12, 18-22, 6 forced drops.
2. Qiu's T1 through RED-3 (min_th 5, max_th 15, gentle, limit 560), 100 flows, seed 1:
   with "drop" on ns-3 flow 56's first segment is dropped at 0.890565 s (an average of
   37.65, two packets waiting after one), where ns-2.35 lets it pass, and the run parts
   from ns-2.35's; with "early_test" both send the same packets (measured for 100 s).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from aqmlab.engines.flow_trace import flow_trace
from aqmlab.scenario import Red
from aqmlab.studies.setups import qiu
from tests.differential.packets import partings
from tests.differential.scenarios import MARKS, arrivals, events, one_flow, trace

pytestmark = MARKS
FLOWS = range(100)


@functools.cache
def _one_flow(engine: str, region: str):
    q = Red(limit="20p", min_th=1.5, max_th=2.0, gentle=False, w_q=1.0, max_p=0.1,
            forced_region=region)
    sc = one_flow((), duration="2s").replace(**{"topology.forward_queue": q})
    res, ev = trace(sc, engine)
    return res.queues.iloc[0], ev


def _lost(ev) -> list[int]:
    return sorted(int(s) for s in set(events(ev, "retx").seg) - {-1})


def test_without_a_forced_region_both_engines_drop_the_same_packets_as_early_drops():
    """"early_test": the same arrivals (segments, times within 50 us), the same lost
    segments and the same number of drops on both engines, all of them early drops."""
    (q2, ev2), (q3, ev3) = _one_flow("ns2", "early_test"), _one_flow("ns3", "early_test")
    a2, a3 = arrivals(ev2), arrivals(ev3)
    assert len(a2) == len(a3) > 1000
    assert (a2.seg.to_numpy() == a3.seg.to_numpy()).all()
    assert np.abs(a2.t.to_numpy() - a3.t.to_numpy()).max() < 50e-6
    assert _lost(ev2) == _lost(ev3)
    assert int(q2.drops) == int(q3.drops) == int(q3.unforced_drops) >= 5
    assert int(q3.forced_drops) == 0


def test_the_forced_region_drops_the_first_arrival_early_test_lets_pass():
    """On ns-3, "drop" loses segment 10 first where "early_test" lets it through (its
    first arrival above max_th after a short queue) and loses 11; its drops are forced."""
    (qd, evd), (_, eve) = _one_flow("ns3", "drop"), _one_flow("ns3", "early_test")
    assert _lost(evd)[0] == 10 and _lost(eve)[0] == 11
    assert int(qd.forced_drops) == int(qd.drops) >= 5 and int(qd.unforced_drops) == 0


@functools.cache
def _qiu(engine: str, region: str):
    q = {f"topology.forward_queue.{k}": v for k, v in qiu.red_config("red3", 560).items()}
    sc = qiu.base(3, 0.0).replace(**{
        **q, "topology.forward_queue.forced_region": region, "traffic[0].flows": 100,
        "topology.senders": 100, "run.sample_interval": None, "run.seed": 1,
        "run.engine": engine})
    return flow_trace(sc, FLOWS)[1]


def test_qiu_red3_parts_from_ns2_at_0_89_s_only_with_a_forced_region():
    """With "early_test" the 100 flows send ns-2.35's packets for 3 s; with "drop" they
    part before 1.1 s, after flow 56's first segment (sent at 0.890065 s) is lost."""
    ev2 = _qiu("ns2", "early_test")
    assert not np.isfinite(partings(ev2, _qiu("ns3", "early_test"), FLOWS)).any()
    evd = _qiu("ns3", "drop")
    parted = np.array(partings(ev2, evd, FLOWS))
    assert 0.88 < parted.min() < 1.1
    first = evd[(evd.flow == 56) & (evd.event == "send") & (evd.seg == 0)]
    assert float(first.t.iloc[0]) == pytest.approx(0.890065, abs=1e-6)
    assert not ((evd.flow == 56) & (evd.event == "ack") & (evd.t < 1.3)).any()
    assert ((ev2.flow == 56) & (ev2.event == "ack") & (ev2.seg == 1)).any()
