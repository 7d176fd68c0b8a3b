"""The Full-TCP options of ``Tcp`` (ack_rule, dup_syn, dup_synack, syn_timeout, fin_retransmit,
ect_retransmissions), the drop list's ``drop_count`` and PackMime's planned server delay:
validation, what each serialises (older hashes kept at the defaults), the ns-3 attributes
and the ns-2 mapping; and how a web socket resolves the timer mechanisms' "auto"."""

from __future__ import annotations

import numpy as np
import pytest

from aqmlab.engines.ns2 import check, mapping
from aqmlab.errors import ScenarioError
from aqmlab.kinds.tcp import FULL_TCP
from aqmlab.plan import make_plan
from aqmlab.scenario import Bulk, DropTail, Dumbbell, PackMime, RunControl, Scenario, Tcp


@pytest.mark.parametrize("field,value", [("ack_rule", "bytes"), ("dup_syn", "drop"),
                                         ("dup_synack", "answer"),
                                         ("syn_timeout", "halves"), ("fin_retransmit", "fast"),
                                         ("ect_retransmissions", 1)])
def test_bad_values_name_the_field(field, value):
    with pytest.raises(ScenarioError) as err:
        Tcp(**{field: value})
    assert err.value.field == field and err.value.value == value


@pytest.mark.parametrize("field,allowed", [
    ("ack_rule", "segments, full_tcp"), ("dup_syn", "answer, ignore"),
    ("dup_synack", "ignore, ack"),
    ("syn_timeout", "ns3, full_tcp"), ("fin_retransmit", "rtt, rto")])
def test_the_message_names_field_value_and_what_is_allowed(field, allowed):
    with pytest.raises(ScenarioError, match=f"{field} = 'x' is invalid: .*{allowed}"):
        Tcp(**{field: "x"})


def test_no_syn_ack_option():
    """The handshake has two options, ``dup_syn`` and ``syn_timeout``; none for the
    SYN/ACK's RTT sample: ns-2's Full-TCP opener takes it (SYN_SENT -> process_ACK ->
    newack) as ns-3 does, so ``syn_rtt_sample`` was removed as a non-mechanism and no
    ``syn_ack`` replaces it."""
    for name in ("syn_ack", "syn_rtt_sample", "syn_timeout_halves"):
        with pytest.raises(ScenarioError) as err:
            Tcp.from_dict({name: "sample"})
        assert name in str(err.value)


def test_defaults_serialise_nothing_new_so_older_hashes_stay():
    d = Tcp().to_dict()
    for name in ("ack_rule", "dup_syn", "dup_synack", "syn_timeout", "fin_retransmit",
                 "ect_retransmissions"):
        assert name not in d
    assert {"syn_timeout", "fin_retransmit"} <= set(Tcp(**FULL_TCP).to_dict())
    assert Tcp(**FULL_TCP).to_dict()["ack_rule"] == "full_tcp"
    assert {"ack_rule", "dup_syn", "dup_synack", "nagle"} <= set(Tcp(**FULL_TCP).to_dict())
    # ECT on retransmissions is ns-2's, the default; it is part of every ECN scenario
    assert Tcp(ecn=True).to_dict()["ect_retransmissions"] is True


def test_ns3_attributes_carry_each_option():
    attrs = dict(Tcp(**FULL_TCP).ns3().attributes)
    assert attrs["TcpNoDelay"] == "false"
    assert attrs["FullTcpAcks"] == attrs["IgnoreDupSyn"] == attrs["AckDupSynAck"] == "true"
    plain = dict(Tcp().ns3().attributes)
    assert plain["FullTcpAcks"] == plain["IgnoreDupSyn"] == plain["AckDupSynAck"] == "false"
    assert dict(Tcp(ect_retransmissions=False).ns3().attributes)["EctRetransmissions"] == "false"
    assert attrs["FullTcpSynTimeout"] == attrs["FinOnRto"] == "true"
    web = dict(Tcp().ns3(one_way=False).attributes)  # a bulk flow's: syn_timeout_ssthresh
    assert web["FullTcpSynTimeout"] == plain["FinOnRto"] == "false"


@pytest.mark.parametrize("variant", ["reno", "newreno", "sack"])
def test_a_web_socket_is_ns2s_full_tcp_with_both_sets_of_options(variant):
    """A web connection's socket (``one_way=False``) with FULL_TCP: the connection options
    as set, and the timer/recovery mechanisms' "auto" resolved to Full-TCP's (tcp-full.cc):
    one timed segment, RTO in ticks, back-off ended by every new ACK (newack(): t_backoff_
    = 1), timer restarted at a fast retransmit, ssthresh halved at every timeout,
    bugFix_ only after a timeout (Reno), exact 1/cwnd growth, cwnd = ssthresh in recovery
    with every dupack freeing a segment (no one-way dupwnd_), no limited transmit after a
    timeout (Full-TCP has none), Full-TCP's SACK recovery."""
    t = Tcp(variant=variant, **FULL_TCP)
    a = dict(t.ns3(one_way=False).attributes)
    assert a["TcpNoDelay"] == "false" and a["LimitedTransmit"] == "false"
    assert a["FullTcpAcks"] == a["IgnoreDupSyn"] == a["FullTcpSynTimeout"] == "true"
    assert a["FinOnRto"] == a["EctRetransmissions"] == "true"
    assert a["RttTimed"] == a["RtoTicks"] == a["RtoRestartOnFastRetransmit"] == "true"
    assert a["TimeoutHalvesWindow"] == a["RenoFullTcpWindow"] == "true"
    assert a["RtoBackoffUntilSample"] == a["RenoHalfCwnd"] == "false"
    assert a["RenoFastRetransmitGuard"] == "false"
    assert a["SackFullTcp"] == a["Sack1Recovery"] == "true"  # acts only with SACK
    assert a["LimitedTransmitAfterTimeout"] == "false"
    assert t.ns3(one_way=False).congestion == "aqmlab::TcpNs2NewReno"
    # the same Tcp for a bulk flow: ns-2's one-way agents
    b = dict(t.ns3(one_way=True).attributes)
    assert b["RtoBackoffUntilSample"] == b["RenoHalfCwnd"] == "true"


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


def test_ns2_numbers_data_packets_only_with_one_flow():
    """ErrorModel/List numbers every packet of the link from 0. drop_count "all": aqmlab's
    k-th arrival is number k - 1, in any scenario. "data" (the default): only with one
    bulk flow or transfer, whose packet 0 is its SYN, so data packet k is number k;
    otherwise the engine refuses, naming drop_count."""
    data = DropTail(limit="20p", drop_packets=(5, 1))
    assert mapping.queue_config(data, 10e6).drop_list == (1, 5)

    def scenario(flows: int, q: DropTail) -> Scenario:
        return Scenario(topology=Dumbbell(senders=1, forward_queue=q),
                        traffic=[Bulk(flows=flows)], run=RunControl(duration="5s"))

    check(scenario(1, data))
    check(scenario(2, DropTail(limit="20p", drop_packets=(5,), drop_count="all")))
    with pytest.raises(ScenarioError) as err:
        check(scenario(2, data))
    assert err.value.field == "topology.forward_queue.drop_count"
    assert 'drop_count = "all"' in str(err.value)


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
