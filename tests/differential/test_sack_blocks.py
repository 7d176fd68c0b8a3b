"""ns-2's one-way SACK flows on Qiu's T1 (drop-tail 260, the ``Q-sack-goodput`` set-up):
the window outside recovery, the partial ACK, the receiver's SACK blocks and their bytes
on the wire (``sack_recovery`` "ns2_sack1", ``sack_blocks`` and ``sack_option_bytes``
"ns2_sink").

Outside recovery ``Agent/TCP/Sack1`` tests its window against every segment sent and not
cumulatively acknowledged, SACKed ones included, so without limited transmit the first two
duplicate ACKs send nothing; ns-3 takes SACKed segments out of its flight and sent a new
segment on each (100 flows, seed 1: flow 41 at 1.58 s). ns-2's sink reports at most three
blocks, the newest first, from a stack of earlier ACKs' first blocks; ns-3's receiver sends
up to four from its merged list, and with many holes its sender learnt a segment ns-2.35
never heard of (30 flows, seed 1: flow 15 skipped segment 280 at 5.51 s where ns-2.35
resent it). ns-2's sink adds 8 bytes per block to an ACK, ns-3's option 8n + 4: a SACK
ACK took 4 bytes longer per link and reached its sender 27 us late (seed 2: flow 6's
duplicate ACKs at 1.5847 s). At a partial ACK Sack1 sends what its pipe counter allows,
maybe nothing; ns-3 always resent the next hole (seed 2: flow 46's segment 18 at
2.3825 s).
"""

from __future__ import annotations

import numpy as np
import pytest

from aqmlab.engines.flow_trace import flow_trace
from tests.differential.packets import data_packets, partings
from tests.differential.scenarios import MARKS, qiu_flows

pytestmark = MARKS


def sack_flows(n: int, duration: float, engine: str, seed: int = 1, **tcp: str):
    return qiu_flows(n, duration, engine, **{"run.seed": seed, "tcp.variant": "sack",
                                             "topology.forward_queue.limit": "260p",
                                             **{f"tcp.{k}": v for k, v in tcp.items()}})


def test_the_first_two_dupacks_send_nothing():
    """100 flows, 2 s: flow 41's first loss (segment 16) is resent at the third dupack, and
    between the first dupack and that retransmission neither engine sends; every flow
    sends ns-2.35's packets until 1.6 s."""
    flows = range(100)
    ev2 = flow_trace(sack_flows(100, 2.0, "ns2"), flows)[1]
    ev3 = flow_trace(sack_flows(100, 2.0, "ns3"), flows)[1]
    for ev in (ev2, ev3):
        d = data_packets(ev, 41)
        retx = d[d.event == "retx"].iloc[0]
        assert retx.seg == 16
        acks = ev[(ev.flow == 41) & (ev.event == "ack") & (ev.seg == 16) & (ev.t < retx.t)]
        assert len(acks) >= 3  # the new ACK and two dupacks before the third
        first_dup = acks.t.iloc[1]
        between = d[(d.t > first_dup + 1e-9) & (d.t < retx.t - 1e-9)]
        assert between.empty, between
    assert min(partings(ev2, ev3, flows)) > 1.6


@pytest.fixture(scope="module")
def thirty():
    flows = range(30)
    return (flows, flow_trace(sack_flows(30, 8.0, "ns2"), flows)[1],
            {v: flow_trace(sack_flows(30, 8.0, "ns3", sack_blocks=v), flows)[1]
             for v in ("ns2_sink", "ns3")})


def test_ns2s_three_blocks_send_ns2s_packets(thirty):
    """30 flows, 8 s: with ns-2's sink every flow sends ns-2.35's packets."""
    flows, ev2, ev3 = thirty
    assert np.isinf(min(partings(ev2, ev3["ns2_sink"], flows)))


def test_a_fourth_block_spares_a_retransmission(thirty):
    """With ns-3's blocks flow 15 parts from ns-2.35 at 5.51 s: ns-2.35 resends segment 280,
    which the receiver holds and ns-3's fourth SACK block had reported."""
    flows, ev2, ev3 = thirty
    p = np.array(partings(ev2, ev3["ns3"], flows))
    assert int(p.argmin()) == 15 and 5.5 < p.min() < 5.52
    resent = {name: set(data_packets(ev, 15).query("event == 'retx' and t < 5.52").seg)
              for name, ev in (("ns2", ev2), ("ns3", ev3["ns3"]))}
    assert 280 in resent["ns2"] and 280 not in resent["ns3"]


@pytest.fixture(scope="module")
def seed2():
    flows = range(100)
    runs = {"ns2": flow_trace(sack_flows(100, 2.5, "ns2", seed=2), flows)}
    for v in ("ns2_sink", "padded"):
        runs[v] = flow_trace(sack_flows(100, 2.5, "ns3", seed=2, sack_option_bytes=v), flows)
    return flows, runs


def _reverse_bytes(res) -> int:
    links = res.links.set_index("link")
    return int(links.loc["R1->R0", "bytes_tx"])


def test_sack_acks_take_ns2s_bytes(seed2):
    """100 flows, seed 2, 2.5 s: with ns-2's 8 bytes per block the reverse bottleneck
    carries ns-2.35's bytes and every flow sends ns-2.35's packets; with ns-3's padded
    option 4 bytes more per SACK ACK, and flow 6's duplicate ACKs arrive 27 us late."""
    flows, runs = seed2
    (r2, ev2), (r3, ev3), (rp, evp) = runs["ns2"], runs["ns2_sink"], runs["padded"]
    assert _reverse_bytes(r3) == _reverse_bytes(r2)
    extra = _reverse_bytes(rp) - _reverse_bytes(r2)
    assert extra > 0 and extra % 4 == 0
    assert np.isinf(min(partings(ev2, ev3, flows)))

    def dupacks(ev):
        a = ev[(ev.flow == 6) & (ev.event == "ack") & (ev.seg == 23)]
        return a.t.to_numpy()[1:4]

    assert np.allclose(dupacks(ev3), dupacks(ev2), atol=1e-6)
    late = dupacks(evp) - dupacks(ev2)
    assert np.all((late > 2.5e-5) & (late < 3e-5))


def test_a_partial_ack_sends_what_the_pipe_allows(seed2):
    """Flow 46's partial ACK at 2.3825 s leaves Sack1's pipe at int(cwnd): no segment
    leaves on either engine."""
    _, runs = seed2
    for name in ("ns2", "ns2_sink"):
        d = data_packets(runs[name][1], 46)
        assert d[(d.t > 2.38) & (d.t < 2.385)].empty, name
