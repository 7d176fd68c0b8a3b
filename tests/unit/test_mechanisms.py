"""The sender mechanisms where ns-2.35 and ns-3 part ways (aqmlab.kinds.tcp.mechanisms):
"auto" resolves to ns-2's agent behaviour for reno/newreno/sack and to ns-3's otherwise,
the fields stay out of scenario hashes at "auto", and the ns-2 engine refuses values its
agents do not have."""

from __future__ import annotations

import pytest

from aqmlab.engines.ns2 import check
from aqmlab.errors import ScenarioError
from aqmlab.kinds.tcp import FULL_TCP, mechanisms
from aqmlab.scenario import Bulk, Dumbbell, PackMime, RunControl, Scenario, Tcp


def attrs(tcp: Tcp, one_way: bool = True) -> dict[str, str]:
    return dict(tcp.ns3(one_way=one_way).attributes)


@pytest.mark.parametrize("variant", ["reno", "newreno", "sack"])
def test_auto_is_ns2_for_the_variants_ns2_has(variant):
    t = Tcp(variant=variant)
    for m in mechanisms.MECHANISMS:
        assert t.mechanism(m.field) == m.ns2
        assert t.mechanism(m.field, one_way=False) == m.ns2_full
    a = attrs(t)
    assert a["RttTimed"] == a["RtoTicks"] == a["RtoBackoffUntilSample"] == "true"
    assert attrs(t, one_way=False)["RtoBackoffUntilSample"] == "false"  # Full-TCP's rule


@pytest.mark.parametrize("variant", ["cubic", "bbr", "linux-reno"])
def test_auto_is_ns3_for_the_others(variant):
    t = Tcp(variant=variant)
    assert all(t.mechanism(m.field) == m.modern for m in mechanisms.MECHANISMS)
    a = attrs(t)
    assert {a[k] for k in ("RttTimed", "RtoTicks", "RtoBackoffUntilSample",
                           "RtoRestartOnFastRetransmit", "TimeoutHalvesWindow")} == {"false"}
    assert t.ns3().congestion == t.variant_info.congestion


def test_ns2_samples_every_ack_with_timestamps():
    assert Tcp(timestamps=True).mechanism("rtt_sampling") == "every_ack"
    assert Tcp().mechanism("rtt_sampling") == "timed"


def test_explicit_values_win_and_enter_the_hash():
    t = Tcp(rtt_sampling="every_ack", ca_increase="whole_bytes", increase_per_ack="split")
    assert t.mechanism("rtt_sampling") == "every_ack"
    assert t.ns3().congestion == "ns3::TcpNewReno"
    d = t.to_dict()
    assert d["rtt_sampling"] == "every_ack" and "rto_clock" not in d
    assert Tcp().to_dict().keys().isdisjoint(mechanisms.FIELDS)


def test_unknown_values_are_refused():
    with pytest.raises(ScenarioError, match="rto_restart"):
        Tcp(rto_restart="never")


def _scenario(traffic, **tcp) -> Scenario:
    return Scenario(name="m", topology=Dumbbell(senders=1), tcp=Tcp(**tcp), traffic=traffic,
                    run=RunControl(duration="5s", engine="ns2"))


def test_ns2_refuses_what_its_agents_do_not_do():
    check(_scenario([Bulk(flows=1)]))
    for field, value in (("rtt_sampling", "every_ack"), ("rto_clock", "exact"),
                         ("rto_backoff_reset", "new_ack"), ("rto_restart", "new_ack"),
                         ("timeout_ssthresh", "flight"), ("ca_increase", "whole_bytes"),
                         ("fast_retransmit_guard", "timeout"), ("reno_window", "ns3"),
                         ("dupacks_after_timeout", "ignored")):
        with pytest.raises(ScenarioError, match=f"tcp.{field}"):
            check(_scenario([Bulk(flows=1)], **{field: value}))
    # Reno-only mechanisms do not matter to SACK; web connections are Full-TCP
    check(_scenario([Bulk(flows=1)], variant="sack", reno_window="ns3"))
    web = [PackMime(rate=1, tcp=FULL_TCP)]  # the ns-2 engine runs web groups as Full-TCP
    check(_scenario(web, reno_window="full_tcp"))
    with pytest.raises(ScenarioError, match="reno_window"):
        check(_scenario(web, reno_window="ns3"))
    with pytest.raises(ScenarioError, match="rto_backoff_reset"):
        check(_scenario(web, rto_backoff_reset="rtt_sample"))


def test_one_increase_per_ack_needs_aqmlabs_newreno():
    """ns-2's per-ACK increase lives in TcpNs2NewReno, also with TcpNewReno's truncation."""
    t = Tcp(ca_increase="whole_bytes")
    assert t.ns3().congestion == "aqmlab::TcpNs2NewReno"
    assert attrs(t)["ExactCaIncrease"] == "false" and attrs(t)["OneIncreasePerAck"] == "true"
    assert attrs(Tcp())["ExactCaIncrease"] == attrs(Tcp())["OneIncreasePerAck"] == "true"
    assert attrs(Tcp(variant="cubic"))["OneIncreasePerAck"] == "false"


def test_ecn_window_is_ns2s_half_for_the_classic_variants():
    assert attrs(Tcp(ecn=True))["EcnHalvesWindow"] == "true"
    assert attrs(Tcp(ecn=True, ecn_window="flight"))["EcnHalvesWindow"] == "false"
    assert attrs(Tcp(variant="cubic", ecn=True))["EcnHalvesWindow"] == "false"


def test_delack_sink_is_ns2s_for_one_way_agents_only():
    """ns-2's DelAck sink for bulk flows and transfers of the classic variants; web
    connections (Full-TCP, which acknowledges by its ack_rule) and the other variants keep
    ns-3's receiver; the socket's copy for accepted connections carries it (tcp_socket.h)."""
    assert attrs(Tcp(delayed_ack=True))["Ns2DelAckSink"] == "true"
    assert attrs(Tcp(delayed_ack=True), one_way=False)["Ns2DelAckSink"] == "false"
    assert attrs(Tcp(delayed_ack=True, delack_sink="ns3"))["Ns2DelAckSink"] == "false"
    assert attrs(Tcp(variant="cubic", delayed_ack=True))["Ns2DelAckSink"] == "false"
    assert Tcp(delack_sink="ns3").to_dict()["delack_sink"] == "ns3"
    with pytest.raises(ScenarioError, match="delack_sink"):
        Tcp(delack_sink="hold")


def test_ns2_refuses_ns3s_delack_sink_only_with_delayed_acks():
    check(_scenario([Bulk(flows=1)], delack_sink="ns3"))  # TCPSink: nothing is held
    with pytest.raises(ScenarioError, match="tcp.delack_sink"):
        check(_scenario([Bulk(flows=1)], delayed_ack=True, delack_sink="ns3"))
    check(_scenario([PackMime(rate=1, tcp={**FULL_TCP, "delayed_ack": True})],
                    delack_sink="ns3"))


def test_handshake_ack_rides_on_data_for_one_way_agents_only():
    assert attrs(Tcp())["HandshakeAckWithData"] == "true"
    assert attrs(Tcp(), one_way=False)["HandshakeAckWithData"] == "false"
    assert attrs(Tcp(handshake_ack="separate"))["HandshakeAckWithData"] == "false"
    assert attrs(Tcp(variant="bbr"))["HandshakeAckWithData"] == "false"
    with pytest.raises(ScenarioError, match="tcp.handshake_ack"):
        check(_scenario([Bulk(flows=1)], handshake_ack="separate"))
    check(_scenario([PackMime(rate=1, tcp=FULL_TCP)], handshake_ack="with_data"))


def test_bare_syn_for_one_way_agents_only():
    assert attrs(Tcp())["BareSyn"] == "true"
    assert attrs(Tcp(), one_way=False)["BareSyn"] == "false"
    assert attrs(Tcp(syn_options="ns3"))["BareSyn"] == "false"
    assert attrs(Tcp(variant="cubic"))["BareSyn"] == "false"
    with pytest.raises(ScenarioError, match="tcp.syn_options"):
        check(_scenario([Bulk(flows=1)], syn_options="ns3"))
    with pytest.raises(ScenarioError, match="syn_options"):
        Tcp(syn_options="bare")
    check(_scenario([PackMime(rate=1, tcp=FULL_TCP)], syn_options="none"))


def test_no_synack_timer_for_one_way_agents_only():
    assert attrs(Tcp())["SynAckTimer"] == "false"
    assert attrs(Tcp(), one_way=False)["SynAckTimer"] == "true"
    assert attrs(Tcp(synack_retry="timer"))["SynAckTimer"] == "true"
    assert attrs(Tcp(variant="cubic"))["SynAckTimer"] == "true"
    # ignoring a duplicate SYN (Full-TCP) leaves the timer the only repair of a lost SYN/ACK
    assert attrs(Tcp(dup_syn="ignore", synack_retry="none"))["SynAckTimer"] == "true"
    with pytest.raises(ScenarioError, match="tcp.synack_retry"):
        check(_scenario([Bulk(flows=1)], synack_retry="timer"))
    with pytest.raises(ScenarioError, match="synack_retry"):
        Tcp(synack_retry="never")
    check(_scenario([PackMime(rate=1, tcp=FULL_TCP)], synack_retry="none"))
    assert Tcp(synack_retry="none").to_dict()["synack_retry"] == "none"
    assert "synack_retry" not in Tcp().to_dict()


def test_cwr_flag_is_ns2s_next_segment_for_one_way_agents_only():
    """ns-2's one-way agents put CWR on the first segment after any window cut, a
    retransmission too (cong_action_, SetCWRonRetransmit_); web connections (Full-TCP, not
    traced) and the other variants keep ns-3's (first new data after an ECN echo)."""
    assert attrs(Tcp(ecn=True))["CwrOnNextSegment"] == "true"
    assert attrs(Tcp(ecn=True), one_way=False)["CwrOnNextSegment"] == "false"
    assert attrs(Tcp(ecn=True, cwr_flag="new_data"))["CwrOnNextSegment"] == "false"
    assert attrs(Tcp(variant="cubic", ecn=True))["CwrOnNextSegment"] == "false"
    assert Tcp(cwr_flag="new_data").to_dict()["cwr_flag"] == "new_data"
    assert "cwr_flag" not in Tcp(ecn=True).to_dict()  # "auto": hashes kept
    with pytest.raises(ScenarioError, match="cwr_flag"):
        Tcp(cwr_flag="retransmissions")
    with pytest.raises(ScenarioError, match="tcp.cwr_flag"):
        check(_scenario([Bulk(flows=1)], ecn=True, cwr_flag="new_data"))
    check(_scenario([PackMime(rate=1, tcp=FULL_TCP)], ecn=True, cwr_flag="new_data"))
    check(_scenario([PackMime(rate=1, tcp=FULL_TCP)], ecn=True, cwr_flag="next_segment"))


@pytest.mark.parametrize(("field", "attr", "ns2", "ns3"), [
    ("ecn_cwnd_floor", "EcnWindowBelowOne", "none", "one_segment"),
    ("ecn_response", "EcnPastRecover", "past_recover", "outside_cwr"),
    ("ecn_dupack", "EcnOnDupAck", "answered", "ignored"),
    ("ecn_ce_marks", "EveryCeMark", "every", "newer_only")])
def test_ecn_floor_and_response_are_ns2s_for_one_way_agents_only(field, attr, ns2, ns3):
    """ns-2's one-way agents let an ECN cut go below one segment (then wait for the timer),
    answer no echo up to the last fast retransmit's highest segment, and their sink echoes
    every CE-marked segment; web connections (Full-TCP, not traced) and the other variants
    keep ns-3's."""
    assert attrs(Tcp(ecn=True))[attr] == "true"
    assert attrs(Tcp(ecn=True), one_way=False)[attr] == "false"
    assert attrs(Tcp(ecn=True, **{field: ns3}))[attr] == "false"
    assert attrs(Tcp(variant="cubic", ecn=True))[attr] == "false"
    assert field not in Tcp(ecn=True).to_dict()  # "auto": hashes kept
    with pytest.raises(ScenarioError, match=field):
        Tcp(**{field: "sometimes"})
    with pytest.raises(ScenarioError, match=f"tcp.{field}"):
        check(_scenario([Bulk(flows=1)], ecn=True, **{field: ns3}))
    check(_scenario([Bulk(flows=1)], ecn=True, **{field: ns2}))
    check(_scenario([PackMime(rate=1, tcp=FULL_TCP)], ecn=True, **{field: ns2}))


def test_processing_timing_at_the_release_for_ns2s_agents():
    """ns-2's agents time a held segment and arm an idle timer when it leaves the processing
    hold ("output", the default of reno/newreno/sack); "socket" (ns-3) is refused by ns-2."""
    assert attrs(Tcp())["TimingAtRelease"] == "true"
    assert attrs(Tcp(), one_way=False)["TimingAtRelease"] == "true"
    assert attrs(Tcp(processing_timing="socket"))["TimingAtRelease"] == "false"
    assert attrs(Tcp(variant="cubic"))["TimingAtRelease"] == "false"
    with pytest.raises(ScenarioError, match="tcp.processing_timing"):
        check(_scenario([Bulk(flows=1, processing_time="1ms")], processing_timing="socket"))
    with pytest.raises(ScenarioError, match="processing_timing"):
        Tcp(processing_timing="device")
    assert Tcp(processing_timing="socket").to_dict()["processing_timing"] == "socket"
    assert "processing_timing" not in Tcp().to_dict()


@pytest.mark.parametrize("field,attr,ns2,other", [
    ("held_acked", "AckedHeldDropped", "dropped", "sent"),
    ("held_beyond_window", "HeldBeyondWindowUnsent", "unsent", "sent"),
])
def test_held_segments_follow_ns2s_delayed_send_for_ns2s_agents(field, attr, ns2, other):
    """ns-2 picks the segments when its delayed send fires: a held segment acknowledged
    meanwhile ("held_acked") or no longer in the window ("held_beyond_window") does not
    leave (the ns-2 value, the default of reno/newreno/sack, one-way and Full-TCP); the
    other value (aqmlab's hold until 0.8.10 / 0.8.11, the modern default) is refused by
    ns-2."""
    assert attrs(Tcp())[attr] == "true"
    assert attrs(Tcp(), one_way=False)[attr] == "true"
    assert attrs(Tcp(**{field: other}))[attr] == "false"
    assert attrs(Tcp(variant="cubic"))[attr] == "false"
    with pytest.raises(ScenarioError, match=f"tcp.{field}"):
        check(_scenario([Bulk(flows=1, processing_time="1ms")], **{field: other}))
    with pytest.raises(ScenarioError, match=field):
        Tcp(**{field: "kept"})
    assert Tcp(**{field: other}).to_dict()[field] == other
    assert field not in Tcp().to_dict()
    assert ns2 != other


def test_a_lost_syn_halves_ssthresh_for_one_way_agents_only():
    """ns-2's one-way agents time their packet 0 out as any segment (TcpAgent::timeout:
    ssthresh 2); web connections follow ``syn_timeout`` (Full-TCP's, the same slowdown)."""
    assert attrs(Tcp())["FullTcpSynTimeout"] == "true"
    assert attrs(Tcp(), one_way=False)["FullTcpSynTimeout"] == "false"
    assert attrs(Tcp(syn_timeout="full_tcp"), one_way=False)["FullTcpSynTimeout"] == "true"
    assert attrs(Tcp(syn_timeout_ssthresh="keep"))["FullTcpSynTimeout"] == "false"
    assert attrs(Tcp(variant="cubic"))["FullTcpSynTimeout"] == "false"
    with pytest.raises(ScenarioError, match="tcp.syn_timeout_ssthresh"):
        check(_scenario([Bulk(flows=1)], syn_timeout_ssthresh="keep"))
    with pytest.raises(ScenarioError, match="syn_timeout_ssthresh"):
        Tcp(syn_timeout_ssthresh="two")
    check(_scenario([PackMime(rate=1, tcp=FULL_TCP)], syn_timeout_ssthresh="halve"))
    assert Tcp(syn_timeout_ssthresh="keep").to_dict()["syn_timeout_ssthresh"] == "keep"
    assert "syn_timeout_ssthresh" not in Tcp().to_dict()


@pytest.mark.parametrize(("field", "attr", "ns2", "ns3"), [
    ("last_segment", "FullLastSegment", "full", "short"),
    ("transfer_close", "NoFinAfterTransfer", "none", "fin")])
def test_transfer_ends_are_ns2s_for_one_way_agents_only(field, attr, ns2, ns3):
    """ns-2's one-way agents send a transfer as whole segments (no byte stream) and end it
    without a FIN; web connections (Full-TCP, a byte stream with FINs) and the other
    variants keep ns-3's."""
    assert attrs(Tcp())[attr] == "true"
    assert attrs(Tcp(), one_way=False)[attr] == "false"
    assert attrs(Tcp(**{field: ns3}))[attr] == "false"
    assert attrs(Tcp(variant="cubic"))[attr] == "false"
    assert field not in Tcp().to_dict()  # "auto": hashes kept
    assert Tcp(**{field: ns3}).to_dict()[field] == ns3
    with pytest.raises(ScenarioError, match=field):
        Tcp(**{field: "padded"})
    with pytest.raises(ScenarioError, match=f"tcp.{field}"):
        check(_scenario([Bulk(flows=1)], **{field: ns3}))
    check(_scenario([Bulk(flows=1)], **{field: ns2}))
    check(_scenario([PackMime(rate=1, tcp=FULL_TCP)], **{field: ns3}))
    with pytest.raises(ScenarioError, match=f"tcp.{field}"):
        check(_scenario([PackMime(rate=1, tcp=FULL_TCP)], **{field: ns2}))


def test_sack_timeout_holes_for_full_tcp_only():
    """After a timeout Full-TCP's SACK resends holes (web connections), the one-way Sack1
    goes back N (bulk flows); the ns-2 engine refuses the other value for SACK web groups
    and ignores the field without SACK."""
    t = Tcp(variant="sack")
    assert attrs(t, one_way=False)["SackTimeoutHoles"] == "true"
    assert attrs(t)["SackTimeoutHoles"] == "false"
    assert attrs(Tcp(variant="sack", sack_timeout="holes"))["SackTimeoutHoles"] == "true"
    web = [PackMime(rate=1, tcp=FULL_TCP)]
    check(_scenario(web, variant="sack"))
    with pytest.raises(ScenarioError, match="tcp.sack_timeout"):
        check(_scenario(web, variant="sack", sack_timeout="go_back_n"))
    check(_scenario(web, sack_timeout="go_back_n"))  # Reno: not read


def test_sack_option_bytes_are_the_one_way_sinks_for_one_way_sack_flows():
    """ns-2's one-way SACK sink spends 8 bytes per block for bulk flows and transfers; web
    connections keep ns-3's padded option (Full-TCP is given it), so the ns-2 engine
    refuses ns-3's value for one-way SACK flows only and ignores the field without SACK."""
    field, attr, modern = "sack_option_bytes", "Ns2SackOptionBytes", "padded"
    t = Tcp(variant="sack")
    assert attrs(t)[attr] == "true"
    assert attrs(t, one_way=False)[attr] == "false"
    assert attrs(Tcp(variant="cubic"))[attr] == "false"
    assert attrs(Tcp(variant="sack", **{field: modern}))[attr] == "false"
    with pytest.raises(ScenarioError, match=f"tcp.{field}"):
        check(_scenario([Bulk(flows=1)], variant="sack", **{field: modern}))
    check(_scenario([Bulk(flows=1)], **{field: modern}))  # Reno: not read
    check(_scenario([PackMime(rate=1, tcp=FULL_TCP)], variant="sack", **{field: modern}))
    with pytest.raises(ScenarioError, match=field):
        Tcp(**{field: "four"})
    assert field not in Tcp().to_dict()


def test_sack_blocks_are_each_ns2_agents_own():
    """The one-way sink's blocks for bulk flows and transfers, Full-TCP's for web
    connections, ns-3's for modern variants; the ns-2 engine refuses any other value for
    SACK traffic of either kind and ignores the field without SACK."""
    t = Tcp(variant="sack")
    assert (attrs(t)["Ns2SackBlocks"], attrs(t)["FullTcpSackBlocks"]) == ("true", "false")
    web = attrs(t, one_way=False)
    assert (web["Ns2SackBlocks"], web["FullTcpSackBlocks"]) == ("false", "true")
    modern = attrs(Tcp(variant="cubic"), one_way=False)
    assert (modern["Ns2SackBlocks"], modern["FullTcpSackBlocks"]) == ("false", "false")
    for other in ("ns3", "full_tcp"):
        with pytest.raises(ScenarioError, match="tcp.sack_blocks"):
            check(_scenario([Bulk(flows=1)], variant="sack", sack_blocks=other))
    for other in ("ns3", "ns2_sink"):
        with pytest.raises(ScenarioError, match="tcp.sack_blocks"):
            check(_scenario([PackMime(rate=1, tcp=FULL_TCP)], variant="sack",
                            sack_blocks=other))
    check(_scenario([Bulk(flows=1)], sack_blocks="ns3"))  # Reno: not read
    with pytest.raises(ScenarioError, match="sack_blocks"):
        Tcp(sack_blocks="four")
    assert "sack_blocks" not in Tcp().to_dict()
