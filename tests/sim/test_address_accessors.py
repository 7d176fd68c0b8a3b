"""IPv4 addresses', headers' and routes' accessors without their log tests (aqmlab/engines/ns3/
cpp/address_accessors.cc, socket-tables library: Ipv4Address(), Ipv4Address::Get,
Address(type, bytes, len), Ipv4Header::GetDestination and GetSource, Ipv4Route::GetGateway
and GetOutputDevice) change cost, never results: they are ns-3's bodies without the log
line, so a process with AQMLAB_ADDRESS_ACCESSORS=0 (ns-3's functions) simulates the same
run."""

from __future__ import annotations

from pathlib import Path

import pytest

from aqmlab.scenario import Scenario
from tests.sim.identical import assert_same, simulate_in_child

pytestmark = pytest.mark.ns3
EXAMPLES = Path(__file__).parents[2] / "examples"


def test_parking_lot_identical_without_them(tmp_path):
    """Four routers in a chain: routes, gateways and forwarding at every hop."""
    sc = Scenario.load(EXAMPLES / "parking_lot.toml").replace(
        **{"run.duration": "10s", "run.warmup": "2s"})
    fast, on = simulate_in_child(sc, tmp_path, "on", {})
    slow, off = simulate_in_child(sc, tmp_path, "off", {"AQMLAB_ADDRESS_ACCESSORS": "0"})
    if not on["active"]:
        pytest.skip("socket-tables library not loaded (no g++)")
    assert on["address_accessors_on"] == 1 and on["header_destinations"] > 100_000
    assert off["address_accessors_on"] == 0 and off["header_destinations"] == 0
    assert fast.meta["address_accessors"] is True and slow.meta["address_accessors"] is False
    assert_same(slow, fast)
