"""DataRate's string constructor answered from a memo of the strings already parsed
(AQMLAB_RATE_PARSE_MEMO, cpp/per_packet_memo.cc in the socket-tables library) changes speed,
never results: every new TCP socket builds its rates from "0bps" inside the wheel
(TcpRateLinux), and those calls go through the memo; a rate built from a string is the same
whether parsed or remembered; and a process with AQMLAB_RATE_PARSE_MEMO=0 simulates the same
two-way web run, table for table."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aqmlab.scenario import Scenario
from tests.sim.identical import assert_same, simulate_in_child

pytestmark = pytest.mark.ns3
EXAMPLES = Path(__file__).parents[2] / "examples"


def two_way_web() -> Scenario:
    return Scenario.load(EXAMPLES / "weigle_droptail_80.toml").replace(
        **{"traffic[0].rate": 107.0, "traffic[1].rate": 107.0, "run.duration": "12s",
           "run.warmup": "4s", "run.stop_after_responses": None, "run.sample_interval": "1s"})


def _library_or_skip():
    from aqmlab.engines.ns3 import native, socket_tables

    native.load()
    if not socket_tables.active():
        pytest.skip("socket-tables library not loaded (no g++ or AQMLAB_SOCKET_TABLES=0)")
    if os.environ.get("AQMLAB_RATE_PARSE_MEMO") == "0":
        pytest.skip("AQMLAB_RATE_PARSE_MEMO=0 in this process")
    return socket_tables


def test_parsed_and_remembered_rates_agree():
    from aqmlab.engines.ns3 import loader

    socket_tables = _library_or_skip()
    ns3 = loader.gbl().ns3
    texts = ["0bps", "10Mbps", "1.5Mb/s", "155.52Mbps", "64kbps", "1GB/s", "12345bps"]
    first = [int(ns3.DataRate(t).GetBitRate()) for t in texts]
    before = socket_tables.per_packet_memo_calls()["rates"]
    again = [int(ns3.DataRate(t).GetBitRate()) for t in texts]
    assert socket_tables.per_packet_memo_calls()["rates"] - before == len(texts)
    assert again == first
    assert first[1] == 10_000_000 and first[2] == 1_500_000 and first[0] == 0


def test_two_way_web_identical_without_the_memo(simulate, tmp_path):
    socket_tables = _library_or_skip()
    before = socket_tables.per_packet_memo_calls()["rates"]
    fast = simulate(two_way_web())
    # at least one remembered rate per socket (its TcpRateLinux), two sockets per connection
    assert socket_tables.per_packet_memo_calls()["rates"] - before > len(fast.requests)
    slow, _ = simulate_in_child(two_way_web(), tmp_path, "off", {"AQMLAB_RATE_PARSE_MEMO": "0"})
    assert slow.meta["rate_parse_memo"] is False and fast.meta["rate_parse_memo"] is True
    assert len(fast.requests) > 1000
    assert_same(slow, fast)
