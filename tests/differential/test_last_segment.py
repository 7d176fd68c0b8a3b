"""A transfer's last segment is a whole segment, held like any other by a packet-counted
window (``tcp.last_segment = "full"``), packet by packet.

Pentikousis' ten aggressive RED+ECN downloads (limit 32, seed 1), flow 2. 2 MiB are 1437
segments of 1460 B, the last (segment 1436) 592 B. The ACK of segment 1432 at 89.199836 s
leaves segments 1433 and 1434 in flight at cwnd 3.635. ns-2.35's one-way agent has no byte
stream: sendmsg() adds ceil(nbytes / size_) packets to curseq_, output() sends size_ bytes
each, and send_much() lets out `int(cwnd_)` = 3 packets past highest_ack_ (tcp.cc), so
only segment 1435 goes out; segment 1436 follows at the next ACK (89.310076 s, cwnd 3.911)
as a 1502-byte packet. ns-3's byte-counted window had 5307 - 4380 = 927 B free: it sent
the 592-byte tail with segment 1435 at 89.199836 s (``last_segment = "short"``), where the
runs first parted (with ``ecn_response``, at 89.2 s). The next parting, a FIN, is in
test_transfer_close.py.
"""

from __future__ import annotations

import pandas as pd
import pytest

from tests.differential.packets import (
    EngineTraces,
    data_packets,
    parting_time,
    partings,
)
from tests.differential.scenarios import MARKS, aggressive_ecn_clients

pytestmark = MARKS

FLOWS = list(range(10))
DURATION = "90s"


def _scenario(engine: str, last: str = "auto"):
    return aggressive_ecn_clients(DURATION, engine, **{"tcp.last_segment": last})


TRACES = EngineTraces(_scenario, FLOWS)


def _flow2(ev: pd.DataFrame) -> pd.DataFrame:
    return ev[(ev.flow == 2) & (ev.t > 89.19) & (ev.t < 89.65)].reset_index(drop=True)


def test_ns2s_last_segment_is_a_full_packet():
    raw = TRACES.raw()
    last = raw[(raw.fid == 2) & (raw.op == "+") & (raw.ptype == "tcp") & (raw.seq == 1437)]
    # ns-2 numbers the data from 1: its 1437th is segment 1436, 1460 + 42 bytes
    assert list(last["size"]) == [1502]
    assert last.t.iloc[0] == pytest.approx(89.310076, abs=1e-5)


@pytest.mark.parametrize("engine", ["ns2", "ns3"])
def test_the_last_segment_waits_for_a_whole_segment_of_window(engine):
    ev = _flow2(TRACES.events(engine))
    ack = ev[(ev.event == "ack") & (ev.seg == 1433)]
    assert ack.t.iloc[0] == pytest.approx(89.199836, abs=1e-5)
    assert ack.cwnd.iloc[0] == pytest.approx(3.635, abs=2e-3)  # 1433, 1434 in flight
    sends = ev[ev.event == "send"]
    assert list(sends.seg) == [1435, 1436]
    assert list(sends.t.round(6)) == [89.199836, 89.310076]
    acks = ev[ev.event == "ack"]
    assert acks.seg.iloc[-1] == pytest.approx(1437)  # a whole segment


def test_ns3s_byte_counted_window_lets_the_short_tail_out():
    ev = _flow2(TRACES.events("ns3", "short"))
    sends = ev[ev.event == "send"]
    assert list(sends.seg) == [1435, 1436]
    assert list(sends.t.round(6)) == [89.199836, 89.199836]
    acks = ev[ev.event == "ack"]
    assert acks.seg.iloc[-1] == pytest.approx(1436 + 592 / 1460, abs=1e-3)


def test_the_runs_send_the_same_packets_for_90_s():
    ev2, ev3 = TRACES.events("ns2"), TRACES.events("ns3")
    parted = partings(ev2, ev3, FLOWS, tol=1e-5)
    assert parted == [float("inf")] * len(FLOWS), parted


def test_with_ns3s_short_tail_they_part_at_89_2_s():
    ev2, ev3 = TRACES.events("ns2"), TRACES.events("ns3", "short")
    parted = [parting_time(data_packets(ev3, f), data_packets(ev2, f), tol=1e-5) for f in FLOWS]
    assert min(parted) == pytest.approx(89.199836, abs=1e-6)
    assert parted.index(min(parted)) == 2
