"""Full-TCP's SACK receiver (``tcp.sack_blocks = "full_tcp"``, the web default with
``variant = "sack"``): at most three blocks, the reassembly queue's in the order they were
created, newest first (``ReassemblyQueue::gensack``; cpp/full_tcp_sacker.h).

ns-3's receiver sends up to four, the block of the segment just received first. With four
holes or more the client's ACKs carried a fourth block, 8 bytes more per ACK than
ns-2.35's: a response losing five segments of one flight sent 88 bytes more on ns-3.
"""

from __future__ import annotations

import functools

import pytest

from aqmlab.engines import ns2
from tests.differential.planned import MSS, forward_drops, run, scenario

pytestmark = [pytest.mark.ns3, pytest.mark.ns2,
              pytest.mark.skipif(not ns2.available(), reason="ns-2 (`ns`) is not installed")]

DROPS = (18, 20, 22, 24, 26)  # five holes in one flight of a 40-segment response
RESPONSE = 40 * MSS + 500


@functools.cache
def _sent(engine: str, drops: tuple[int, ...], blocks: str = "auto") -> dict[str, tuple]:
    tcp = {"variant": "sack", **({"sack_blocks": blocks} if blocks != "auto" else {})}
    sc = forward_drops(drops, tcp) if drops else scenario(tcp)
    df, raw = run(sc, engine, [300], [RESPONSE])
    assert df.completed.all(), engine
    return {n: (int(a), float(b)) for n, a, b in zip(
        raw.probe_names, raw.queues["arrivals"], raw.link_bytes, strict=True)}


def _excess(drops: tuple[int, ...], blocks: str = "auto") -> dict[str, tuple[int, float]]:
    """ns-3's packets and bytes per link beyond ns-2.35's."""
    s3, s2 = _sent("ns3", drops, blocks), _sent("ns2", drops)
    return {link: (p - s2[link][0], b - s2[link][1]) for link, (p, b) in s3.items()}


def test_sack_acks_carry_ns2s_blocks():
    """The same packets each way, and the same bytes but for the handshake's options, as
    on a loss-free run: every SACK ACK carries as many blocks on both engines."""
    assert _excess(DROPS) == _excess(())


def test_ns3s_receiver_sends_a_fourth_block():
    """With ns-3's receiver the client sends the same ACKs, 11 of them with a fourth
    block: 88 bytes more towards the server."""
    clean, ns3 = _excess(()), _excess(DROPS, "ns3")
    back = [link for link in ns3 if ns3[link][1] != clean[link][1]]
    assert len(back) == 1
    assert ns3[back[0]][0] == clean[back[0]][0] == 0
    assert ns3[back[0]][1] - clean[back[0]][1] == 88


CREATION_ORDER = r"""
namespace aqmlab_test_full_tcp_sacker
{
/// Segments of 10 bytes received at the given starts (cumulative ACK point 0 throughout):
/// the blocks an ACK would carry, flattened.
inline std::vector<uint32_t> Blocks(const std::vector<uint32_t>& starts)
{
    aqmlab::FullTcpSacker s;
    for (uint32_t x : starts)
    {
        s.Received(ns3::SequenceNumber32(x), ns3::SequenceNumber32(x + 10),
                   ns3::SequenceNumber32(0));
    }
    std::vector<uint32_t> out;
    for (const auto& [l, r] : s.Blocks(ns3::SequenceNumber32(0)))
    {
        out.push_back(l.GetValue());
        out.push_back(r.GetValue());
    }
    return out;
}
} // namespace aqmlab_test_full_tcp_sacker
"""


@pytest.mark.parametrize("starts,blocks", [
    ([20, 40, 60], [60, 70, 40, 50, 20, 30]),        # newest first
    ([20, 50, 70, 30], [70, 80, 50, 60, 20, 40]),    # 30 extends [20, 30): it keeps its place
    ([20, 50, 70, 40], [70, 80, 40, 60, 20, 30]),    # 40 extends [50, 60) leftwards: the same
    ([20, 40, 60, 80, 50], [80, 90, 40, 70, 20, 30]),  # 50 joins [40, 50) and [60, 70)
    ([20, 40, 60, 80], [80, 90, 60, 70, 40, 50]),    # three of four
    ([20, 40, 30], [20, 50]),                        # 30 fills the hole: one block
])
def test_blocks_keep_the_order_they_were_created_in(starts, blocks):
    """ReassemblyQueue::add keeps a block's place on its stack when a segment extends it
    (and the left one's when a segment joins two); RFC 2018 would put the block of the
    segment just received first."""
    from aqmlab.engines.ns3 import loader, native

    native.load()
    if not hasattr(loader.gbl(), "aqmlab_test_full_tcp_sacker"):
        loader.cppdef(CREATION_ORDER)
    probe = loader.gbl().aqmlab_test_full_tcp_sacker
    assert list(probe.Blocks(starts)) == blocks
