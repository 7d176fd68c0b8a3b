"""The window an ECN echo leaves (``ecn_window``), traced on both engines.

One Reno + ECN flow over a 1 Mb/s bottleneck with RED marking (min_th 3, max_th 30, w_q
0.02, max_p 0.2) for 10 s: about 13 echoes, each cutting the window once. ns-2's ecn()
halves cwnd exactly (slowdown with precisionReduce_: 13.60 -> 6.80, ssthresh 6); ns-3's
CWR sets cwnd = ssthresh = half the flight (13.60 with 13 in flight -> 6.5). RED draws
its own random numbers on each engine, so the echoes come at different instants: the rule
is checked at every cut. (Below 2 segments ns-2 still halves, to at least 1 segment; ns-3
keeps 2.)
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aqmlab.scenario import Red
from tests.differential.scenarios import MARKS, one_flow, trace

pytestmark = MARKS


def ecn_cuts(ev: pd.DataFrame) -> pd.DataFrame:
    """ACKs that lowered cwnd with no retransmission or timeout at that instant."""
    ev = ev.reset_index(drop=True)
    prev = ev.cwnd.shift()
    loss_t = ev[ev.event.isin(["retx", "timeout"])].t.to_numpy()
    near = np.array([np.abs(loss_t - t).min() < 1e-6 if len(loss_t) else False
                     for t in ev.t])
    cut = (ev.event == "ack") & (ev.cwnd < prev - 1e-9) & ~near
    return pd.DataFrame({"before": prev[cut], "after": ev.cwnd[cut],
                         "ssthresh": ev.ssthresh[cut]})


@pytest.fixture(scope="module")
def marked():
    out = {}
    for name, engine, tcp in (("ns2", "ns2", {}), ("ns3", "ns3", {}),
                              ("flight", "ns3", {"ecn_window": "flight"})):
        sc = one_flow((), duration="10s", ecn=True, **tcp).replace(**{
            "topology.bottleneck.rate": "1Mbps",
            "topology.forward_queue": Red(limit="100p", min_th=3, max_th=30, w_q=0.02,
                                          max_p=0.2, ecn=True)})
        res, ev = trace(sc, engine)
        out[name] = (res, ecn_cuts(ev))
    return out


@pytest.mark.parametrize("name", ["ns2", "ns3"])
def test_an_ecn_echo_halves_the_window_exactly(marked, name):
    res, cuts = marked[name]
    assert int(res.queues.iloc[0].marks) >= 15
    assert len(cuts) >= 10
    assert np.allclose(cuts.after, cuts.before / 2, atol=2e-3)
    assert (cuts.ssthresh == np.maximum(2, np.floor(cuts.after + 1e-3))).all()


def test_ns3s_cwr_cuts_to_half_the_flight(marked):
    _, cuts = marked["flight"]
    assert len(cuts) >= 10
    assert (cuts.after == cuts.ssthresh).all()
    assert np.allclose(2 * cuts.after, np.round(2 * cuts.after))  # whole flight / 2
    assert (cuts.after < cuts.before / 2 - 0.2).sum() >= len(cuts) // 2
