"""The Full-TCP options of ``Tcp`` (ack_rule, dup_syn, ect_retransmissions), the
drop list's ``drop_count`` and PackMime's planned server delay: validation, what each
serialises (older hashes kept at the defaults), the ns-3 attributes and the ns-2 mapping."""

from __future__ import annotations

import numpy as np
import pytest

from aqmlab.engines.ns2 import mapping
from aqmlab.errors import ScenarioError
from aqmlab.kinds.tcp import FULL_TCP
from aqmlab.plan import make_plan
from aqmlab.scenario import DropTail, Dumbbell, PackMime, RunControl, Scenario, Tcp


@pytest.mark.parametrize("field,value", [("ack_rule", "bytes"), ("dup_syn", "drop"),
                                         ("ect_retransmissions", 1)])
def test_bad_values_name_the_field(field, value):
    with pytest.raises(ScenarioError) as err:
        Tcp(**{field: value})
    assert err.value.field == field


def test_defaults_serialise_nothing_new_so_older_hashes_stay():
    d = Tcp().to_dict()
    for name in ("ack_rule", "dup_syn", "ect_retransmissions"):
        assert name not in d
    assert Tcp(**FULL_TCP).to_dict()["ack_rule"] == "full_tcp"
    assert {"ack_rule", "dup_syn", "nagle"} <= set(Tcp(**FULL_TCP).to_dict())
    # ECT on retransmissions is ns-2's, the default; it is part of every ECN scenario
    assert Tcp(ecn=True).to_dict()["ect_retransmissions"] is True


def test_ns3_attributes_carry_each_option():
    attrs = dict(Tcp(**FULL_TCP).ns3().attributes)
    assert attrs["TcpNoDelay"] == "false"
    assert attrs["FullTcpAcks"] == attrs["IgnoreDupSyn"] == "true"
    plain = dict(Tcp().ns3().attributes)
    assert plain["FullTcpAcks"] == plain["IgnoreDupSyn"] == "false"
    assert dict(Tcp(ect_retransmissions=False).ns3().attributes)["EctRetransmissions"] == "false"


def test_full_tcp_mapping_keeps_segsperack_and_the_tick():
    cfg = dict(mapping.full_tcp_config(Tcp(**FULL_TCP, delack_timeout="200ms")).settings)
    assert cfg["segsperack_"] == "1" and cfg["interval_"] == "0.2" and cfg["nodelay_"] == "0"


def test_drop_count_needs_a_drop_list_and_maps_to_a_zero_based_error_model_on_ns2():
    with pytest.raises(ScenarioError) as err:
        DropTail(drop_count="all")
    assert err.value.field == "drop_count"
    q = DropTail(limit="20p", drop_packets=(1, 5), drop_count="all")
    assert q.to_dict()["drop_count"] == "all"
    assert "drop_count" not in DropTail(limit="20p", drop_packets=(1,)).to_dict()
    assert dict(q.ns3(10e6, 0.0).attributes)["Count"] == "all"
    assert mapping.queue_config(q, 10e6).drop_list == (0, 4)


def test_planned_server_delays_follow_ns2s_distribution():
    """The plan draws 1/max(W, 10) s, W ~ Weibull(0.63, 305), per connection: at most
    0.1 s, about 11 % exactly 0.1 s, median 1/(305 ln(2)^(1/0.63)) = 5.9 ms; none
    without ``server_delay``."""
    def plan(server_delay: bool):
        sc = Scenario(topology=Dumbbell(senders=1, receivers=1),
                      traffic=[PackMime(rate=50, rtt="none", server_delay=server_delay)],
                      run=RunControl(duration="200s", warmup="0s"))
        return make_plan(sc).web[0]

    d = plan(True).server_delay_s
    assert len(d) > 9000 and d.max() == 0.1
    assert (d == 0.1).mean() == pytest.approx(0.11, abs=0.01)
    assert np.median(d) == pytest.approx(1 / (305 * np.log(2) ** (1 / 0.63)), rel=0.05)
    assert plan(False).server_delay_s is None and not plan(False).server_delays.any()
