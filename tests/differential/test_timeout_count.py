"""The ns-2 engine's timeout count: a timeout at a window below one segment counts when data
is outstanding, not when the sender only waits for its timer.

ns-2.35's ``TcpAgent::timeout`` traces TIMEOUT with int(cwnd_) before it sets cwnd_ 1. An
ECN echo that halves cwnd below one segment with nothing outstanding makes the sender wait
for the timer, which then sends the next new segment and keeps the back-off (RFC 3168
6.1.2; ``ecn_cwnd_floor``): no timeout on either engine. But when the echo halves a
timeout's window (1 -> 0.5) while older segments are still unacknowledged, the next expiry
is a real timeout: the back-off doubles and the oldest segment is resent. The ns-2 engine
counted TIMEOUT events at int(cwnd_) >= 1 only and missed it: Pentikousis' five 20-MiB
downloads through aggressive RED+ECN at limit 16, identical packet for packet on both
engines, had 69 and 82 timeouts on ns-2.35 against 70 and 83 on ns-3 (seeds 2 and 5). Now
such an event counts when the segment sent after it had been seen at a probed queue before.
"""

from __future__ import annotations

import pandas as pd
import pytest

from aqmlab import engines
from aqmlab.engines.flow_trace import flow_trace
from tests.differential.scenarios import MARKS, aggressive_ecn_clients

pytestmark = MARKS


def _q16_seed2(engine: str):
    from aqmlab.studies.setups import pentikousis

    sc = pentikousis.base("20MiB").replace(**dict(pentikousis.scheme_arm("aggr-ecn", 16).changes))
    return sc.replace(**{"run.engine": engine, "run.seed": 2, "run.duration": "153s"})


def _timeout_events(workdir, fid: int) -> pd.DataFrame:
    ev = pd.read_csv(workdir / "events.tr", sep=r"\s+", header=None, usecols=[1, 5, 6, 7, 8],
                     names=["time", "event", "fid", "seqno", "cwnd"])
    return ev[(ev.event == "TIMEOUT") & (ev.fid == fid)]


def test_a_timeout_below_one_segment_with_data_outstanding_counts(tmp_path):
    res2, ev = flow_trace(_q16_seed2("ns2"), [2], workdir=tmp_path)
    f2 = ev[(ev.t > 150.2) & (ev.t < 152.4)].reset_index(drop=True)
    assert list(f2.event) == ["timeout", "retx", "ack", "timeout", "retx"]
    assert list(f2.seg) == [3962, 3962, 3963, 3963, 3963]  # 3963 had been sent before
    assert f2.cwnd[2] == pytest.approx(0.5) and list(f2.backoff[3:]) == [4, 4]
    late = _timeout_events(tmp_path, 2)
    assert list(late[late.time > 152].cwnd[:1]) == [0]  # traced at int(cwnd_) 0
    res3 = engines.simulate(_q16_seed2("ns3"))
    assert list(res2.flows.timeouts) == list(res3.flows.timeouts)
    assert int(res2.flows.timeouts[2]) == 10


def test_waiting_for_the_timer_with_nothing_outstanding_is_no_timeout(tmp_path):
    """Ten 2-MiB downloads at limit 32, seed 1, flow 6: an echo at 15.351 s halved cwnd
    1.803 -> 0.902 on the ACK of its only segment in flight; the timer sent segment 135 at
    16.351 s (test_ecn_cwnd_floor.py). ns-2.35 traced TIMEOUT there; neither engine counts
    it."""
    sc = aggressive_ecn_clients("17s", "ns2", **{"run.seed": 1})
    res2, _ = flow_trace(sc, [6], workdir=tmp_path)
    wait = _timeout_events(tmp_path, 6)
    wait = wait[(wait.time > 16.3) & (wait.time < 16.4)]
    assert list(wait.cwnd) == [0]
    res3 = engines.simulate(sc.replace(**{"run.engine": "ns3"}))
    assert list(res2.flows.timeouts) == list(res3.flows.timeouts)
