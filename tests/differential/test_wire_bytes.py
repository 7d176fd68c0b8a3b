"""Bytes on the wire: ns-3's point-to-point frames carry IP + TCP + 2 PPP bytes, and ns-2's
replayed web agents send 42-byte headers too (after the handshake's 40-byte SYN and
SYN/ACK, which DelayBox needs), so every data packet and ACK of a web connection takes as
long on a link of the same rate on both engines. With ns-2's own 40-byte headers the
bottleneck served ns-2 0.4 % faster at Weigle's packet mix, and ns-2.35 lost 5-7 % fewer
packets than ns-3 on drop-tail 148 at 105 % load."""

from __future__ import annotations

import numpy as np
import pytest

from aqmlab import engines
from aqmlab.engines import ns2
from aqmlab.studies.common import example
from tests.differential.planned import MSS, forward_drops, run, scenario

pytestmark = [pytest.mark.ns3, pytest.mark.ns2,
              pytest.mark.skipif(not ns2.available(), reason="ns-2 (`ns`) is not installed")]

N = 4


def _run(engine: str, response: list[int]):
    df, raw = run(scenario(), engine, [300] * len(response), response)
    assert df.completed.all(), engine
    sent = {n: (int(a), b) for n, a, b in zip(raw.probe_names, raw.queues["arrivals"],
                                               raw.link_bytes, strict=True)}
    return df.response_time_s.to_numpy(), sent


def test_the_same_packets_carry_the_same_bytes():
    """Four one-segment exchanges (300 B request, 1000 B response): the same packets each
    way on both engines (5 per connection client to server, 3 back), and the same bytes
    but for the handshake's options (ns-3's SYN and SYN/ACK carry window scaling, 4 B with
    padding; ns-2's are 40 B). With 40-byte headers ns-2 sent 2 B less per packet.
    Responses of two or more whole segments send a bare FIN on both (``tcp.fin_rule``,
    test_fin_rule.py)."""
    (_, s3), (_, s2) = _run("ns3", [1000] * N), _run("ns2", [1000] * N)
    for link, (pkts3, bytes3) in s3.items():
        pkts2, bytes2 = s2[link]
        assert pkts3 == pkts2, link
        assert 0 <= bytes3 - bytes2 <= 8 * N, (link, bytes3, bytes2)


def test_a_long_response_takes_as_long_on_both_engines():
    """A 400-segment response on an idle 50 ms path ends within 20 us on both engines
    (ns-3's SYN options cost about 11 us); with 40-byte headers ns-2 ended it 0.58 ms
    earlier (400 x 2 B at 10 Mb/s, less the handshake)."""
    (t3, _), (t2, _) = _run("ns3", [400 * MSS]), _run("ns2", [400 * MSS])
    assert abs(t3[0] - t2[0]) < 2e-5


def test_sack_acks_carry_ns3s_option_bytes():
    """A SACK response losing two of its segments: the client's seven SACK ACKs take as
    many bytes on both engines (ns-2's Full-TCP is given ns-3's padded option,
    sack_option_size_ 4; with its own 2 they were 14 bytes fewer). What still differs is
    the handshake's options, exactly as without losses."""
    def excess(sc):
        sent = {}
        for engine in ("ns3", "ns2"):
            df, raw = run(sc, engine, [300], [40 * MSS + 500])
            assert df.completed.all(), engine
            sent[engine] = {n: (int(a), b) for n, a, b in zip(
                raw.probe_names, raw.queues["arrivals"], raw.link_bytes, strict=True)}
        for link, (pkts3, _) in sent["ns3"].items():
            assert pkts3 == sent["ns2"][link][0], link
        return {link: b - sent["ns2"][link][1] for link, (_, b) in sent["ns3"].items()}

    lossy = excess(forward_drops((8, 12), {"variant": "sack"}))
    clean = excess(scenario({"variant": "sack"}))
    assert lossy == clean
    assert all(0 < v <= 16 for v in clean.values())


def _headerless(engine: str, response: list[int]):
    sc = scenario({"syn_options": "none"}).replace(**{"topology.link_header": "none"})
    df, raw = run(sc, engine, [300] * len(response), response, gap=0.0004)
    assert df.completed.all(), engine
    return df.response_time_s.to_numpy(), raw.link_bytes


def test_headerless_frames_take_ns2s_time_from_the_syn_on():
    """``link_header = "none"`` with bare SYNs: every frame, the SYN and SYN/ACK included,
    takes its 40-byte-header time on both engines, so two overlapping connections (a
    40-segment and a 2-segment response, 0.4 ms apart) end at the same instant (to a
    picosecond) and the links carry the same bytes. With ns-3's PPP header the bytes differ
    by 2 per packet and the responses by about 8 us."""
    (t3, b3), (t2, b2) = _headerless("ns3", [40 * MSS + 500, 2000]), \
        _headerless("ns2", [40 * MSS + 500, 2000])
    assert abs(t3 - t2).max() < 1e-12, (t3, t2)
    assert list(b3) == list(b2)
    df, raw = run(scenario(), "ns3", [300, 300], [40 * MSS + 500, 2000], gap=0.0004)
    assert abs(df.response_time_s.to_numpy() - t2).min() > 3e-6
    assert all(b > c for b, c in zip(raw.link_bytes, b2, strict=True))


def test_headerless_frames_keep_bulk_flows_identical_on_ns2s_clocks():
    """Qiu's T1 (ns-2's event and transmission clocks) with ``link_header = "none"``: 500-byte
    frames instead of 502 on both engines, and every flow still delivers, retransmits and
    times out as on ns-2.35 over 20 s, in a run that differs from the one with PPP frames."""
    def flows(engine: str, hdr: str):
        sc = example("qiu_t1_dumbbell").replace(**{
            "run.duration": "20s", "run.warmup": "0s", "run.engine": engine,
            "topology.link_header": hdr})
        return engines.simulate(sc).flows

    f3, f2 = flows("ns3", "none"), flows("ns2", "none")
    for col in ("bytes_delivered", "retransmitted_packets", "timeouts"):
        assert np.array_equal(f3[col].to_numpy(), f2[col].to_numpy()), col
    ppp = flows("ns3", "ppp")
    assert not np.array_equal(f3.bytes_delivered.to_numpy(), ppp.bytes_delivered.to_numpy())


def test_headerless_sack_acks_carry_ns3s_option_bytes():
    """SACK web connections with ``link_header = "none"``: ns-2's replay still takes ns-3's
    SACK option size (kind and length padded to 4 bytes), so a response losing three
    segments of one flight ends at the same instant with the same bytes each way (with
    ns-2's own 2 bytes the client's ACKs carried 34 bytes less)."""
    out = {}
    for engine in ("ns3", "ns2"):
        sc = forward_drops((18, 20, 22), {"variant": "sack", "syn_options": "none"}).replace(
            **{"topology.link_header": "none"})
        df, raw = run(sc, engine, [300], [40 * MSS + 500])
        assert df.completed.all(), engine
        out[engine] = (float(df.response_time_s.iloc[0]), list(raw.link_bytes))
    assert abs(out["ns3"][0] - out["ns2"][0]) < 1e-12
    assert out["ns3"][1] == out["ns2"][1]
