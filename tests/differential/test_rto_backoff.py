"""The RTO back-off after a timeout, packet by packet (``rto_backoff_reset``).

Segments 29 and 40 are lost (arrivals 30 and 41), then the fast retransmission of 29
(arrival 61): the flow times out at 0.351 s and goes back to 29. Its ACK asks for 40, so
go-back-N resends 40 and 41 (arrivals 167, 168) at 0.376 s, and 40 is lost again. ns-2's
one-way agents keep the doubled RTO until a segment sent after the timeout is acknowledged
(t_backoff_ = 1 only for the timed segment), so the second timeout comes 2 x 200 ms later,
and backs off to 4; ns-3 restores the RTO at every new ACK and times out after 200 ms.
"""

from __future__ import annotations

import pytest

from tests.differential.scenarios import MARKS, arrivals, events, one_flow, trace

pytestmark = MARKS

DROPS = (30, 41, 61, 167)


@pytest.fixture(scope="module")
def runs():
    out = {}
    for name, engine, tcp in (("ns2", "ns2", {}), ("ns3", "ns3", {}),
                              ("new_ack", "ns3", {"rto_backoff_reset": "new_ack"})):
        res, ev = trace(one_flow(DROPS, **tcp), engine)
        out[name] = (res, ev)
    return out


@pytest.mark.parametrize("name", ["ns2", "ns3"])
def test_go_back_n_runs_under_the_doubled_timer(runs, name):
    res, ev = runs[name]
    to = events(ev, "timeout")
    sent = arrivals(ev).set_index("arrival")
    assert list(sent.loc[[166, 167, 168], "seg"]) == [29, 40, 41]  # the same go-back-N
    assert len(to) == 2 and list(to.seg) == [29, 40]
    assert to.t[0] == pytest.approx(0.351, abs=1e-3)
    assert to.t[1] - sent.t[167] == pytest.approx(0.400, abs=1e-4)
    assert to.backoff[1] == 4  # after the second timeout
    assert res.flows.iloc[0].timeouts == 2


def test_the_engines_agree_within_microseconds(runs):
    t2, t3 = (events(runs[n][1], "timeout").t for n in ("ns2", "ns3"))
    assert abs(t3 - t2).max() < 5e-5


def test_ns3s_rule_restores_the_rto_at_the_next_new_ack(runs):
    ev = runs["new_ack"][1]
    to = events(ev, "timeout")
    sent = arrivals(ev).set_index("arrival")
    assert to.t[1] - sent.t[167] == pytest.approx(0.200, abs=1e-4)
