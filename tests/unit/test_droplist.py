"""DropTail.drop_packets: validation, serialisation and the ns-3 mapping (no ns-3 needed)."""

from __future__ import annotations

import pytest

from aqmlab.errors import ScenarioError
from aqmlab.scenario import DropTail, Dumbbell, Scenario


def queue_config(q, rate_bps, delay_s):
    """The ns-3 queue disc a queue kind maps to (its ``ns3`` method)."""
    return q.ns3(rate_bps, delay_s)


def test_drop_packets_defaults_to_none_and_plain_fifo():
    q = DropTail(limit="50p")
    assert q.drop_packets is None
    assert queue_config(q, 1.5e6, 0.05).type_id == "ns3::FifoQueueDisc"


def test_drop_packets_list_is_stored_as_a_tuple_in_given_order():
    assert DropTail(drop_packets=[26, 14, 28]).drop_packets == (26, 14, 28)
    assert DropTail(drop_packets=()).drop_packets == ()


@pytest.mark.parametrize(
    ("value", "field", "why"),
    [
        ((14, 0), "drop_packets[1]", ">= 1"),
        ((-3,), "drop_packets[0]", ">= 1"),
        ((14, 2.0), "drop_packets[1]", "integer"),
        ((True,), "drop_packets[0]", "integer"),
        (("14",), "drop_packets[0]", "integer"),
        (14, "drop_packets", "list"),
        ("14,26", "drop_packets", "list"),
        ((14, 26, 14), "drop_packets", "unique"),
    ],
)
def test_bad_drop_packets_are_rejected_naming_the_field(value, field, why):
    with pytest.raises(ScenarioError, match=why) as err:
        DropTail(drop_packets=value)
    assert err.value.field == field


def test_drop_packets_needs_a_packet_limit():
    with pytest.raises(ScenarioError, match="limit in packets") as err:
        DropTail(limit="100KB", drop_packets=(5,))
    assert err.value.field == "drop_packets"


def test_nested_error_carries_the_full_path():
    d = Scenario().to_dict()
    d["topology"]["forward_queue"] = {"kind": "droptail", "drop_packets": [3, 0]}
    with pytest.raises(ScenarioError) as err:
        Scenario.from_dict(d)
    assert err.value.field == "topology.forward_queue.drop_packets[1]"


def test_serialisation_omits_none_and_round_trips():
    assert "drop_packets" not in DropTail().to_dict()  # hashes of older scenarios unchanged
    s = Scenario(topology=Dumbbell(forward_queue=DropTail(limit="30p", drop_packets=(14, 26))))
    assert s.to_dict()["topology"]["forward_queue"]["drop_packets"] == [14, 26]
    for back in (Scenario.from_json(s.to_json()), Scenario.from_toml(s.to_toml())):
        assert back == s and back.hash == s.hash
    assert s.hash != s.replace(**{"topology.forward_queue.drop_packets": [14, 28]}).hash
    plain = s.replace(**{"topology.forward_queue": DropTail(limit="30p")})
    assert plain.hash == Scenario(topology=Dumbbell(forward_queue=DropTail(limit="30p"))).hash


def test_mapping_selects_the_drop_list_queue_disc():
    cfg = queue_config(DropTail(limit="50p", drop_packets=(14, 26, 28)), 1.5e6, 0.05)
    assert cfg.type_id == "aqmlab::DropListQueueDisc"
    # ns-2 accounting as for MaxSize: 1 packet in the device queue + 1 in transmission.
    assert cfg.attributes == (("Limit", "48"), ("Drops", "14,26,28"), ("Count", "data"))
    assert cfg.flat() == ["Limit", "48", "Drops", "14,26,28", "Count", "data"]
    assert cfg.red_wq == 0.0


def test_mapping_of_an_empty_drop_list():
    cfg = queue_config(DropTail(limit="3p", drop_packets=()), 10e6, 0.01)
    assert cfg.type_id == "aqmlab::DropListQueueDisc"
    assert dict(cfg.attributes) == {"Limit": "1", "Drops": "", "Count": "data"}
