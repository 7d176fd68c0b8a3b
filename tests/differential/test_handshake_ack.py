"""The opener's ACK of the SYN/ACK (``tcp.handshake_ack``), traced on both engines.

ns-2's one-way agents have no handshake: a header-only packet 0, acknowledged, then data.
ns-3's opener answers the SYN/ACK with a pure ACK and sends its first segment right
behind it ("separate"); with "with_data" (the default for bulk flows and transfers) the
first data segment carries that ACK and no packet of its own goes.

Pentikousis' five Reno downloads of one server (2 MiB each) through drop-tail at limit 8:
with "separate" the five pure ACKs and five first segments reach the bottleneck within 1
ms and overflow it; flow 4 loses its first segment and resends it at its 1-s timeout
(1.04 s), where ns-2.35 loses nothing and sends its segment 1 at 0.23 s. With "with_data"
every data packet of every flow leaves within 12 us of ns-2.35's until the first download
ends at 46.5 s (ns-2.35's last packet is a whole one, ns-3's 592 bytes), through the same
drops and timeouts.
"""

from __future__ import annotations

import functools

from aqmlab.engines.flow_trace import flow_trace
from aqmlab.studies.setups import pentikousis
from tests.differential.packets import data_packets, partings
from tests.differential.scenarios import MARKS

pytestmark = MARKS
FLOWS = [0, 1, 2, 3, 4]


@functools.cache
def _run(engine: str, ack: str = "auto"):
    sc = pentikousis.base("2MiB").replace(**dict(pentikousis.scheme_arm("dt", 8).changes))
    sc = sc.replace(**{"run.engine": engine, "tcp.handshake_ack": ack})
    return flow_trace(sc, FLOWS)




def test_with_data_sends_what_ns235_sends_until_a_download_ends():
    _, ev2 = _run("ns2")
    _, ev3 = _run("ns3", "with_data")
    parted = partings(ev2, ev3, FLOWS)
    assert min(parted) > 45, parted
    early = [(ev[(ev.t < 45) & (ev.event == "timeout")]).shape[0] for ev in (ev2, ev3)]
    assert early[0] == early[1] > 50


def test_separate_acks_overflow_the_queue_at_the_start():
    res2, ev2 = _run("ns2")
    res3, ev3 = _run("ns3", "separate")
    first = partings(ev2, ev3, FLOWS)
    assert min(first) < 0.5, first
    lost = data_packets(ev3, 4)
    assert lost.event[1] == "retx" and lost.seg[1] == 0 and 1.0 < lost.t[1] < 1.1
    assert data_packets(ev2, 4).event[1] == "send" and data_packets(ev2, 4).t[1] < 0.3
