"""What the ns-2.35 engine can honour: :func:`check` refuses the rest before anything runs.

Each refusal is a :class:`~aqmlab.errors.ScenarioError` naming the dotted field, the value
and why ns-2.35 cannot do it, so a sweep fails at validation, not after hours of runs.
"""

from __future__ import annotations

from aqmlab.engines.ns2.mapping import gain_bits
from aqmlab.engines.ns2.runner import available
from aqmlab.errors import ScenarioError
from aqmlab.kinds.queues import Ared, DropTail, Red
from aqmlab.kinds.tcp import mechanisms
from aqmlab.scenario import Mah, PackMime, Scenario, Tcp

#: TCP variants with an ns-2.35 agent (one-way and Full-TCP).
VARIANTS = ("reno", "newreno", "sack")
#: Web workload generators: aqmlab's planned connections replayed, or ns-2's PackMimeHTTP.
GENERATORS = ("aqmlab", "ns2")
_DEFAULT_TCP = Tcp()


def generator(group: PackMime) -> str:
    """The group's web workload generator ("aqmlab" replay unless the model says "ns2")."""
    return group.generator


def _one_flow(scenario: Scenario) -> bool:
    """Exactly one bulk flow or transfer and no web traffic."""
    web = any(isinstance(g, (PackMime, Mah)) for g in scenario.traffic)
    return not web and sum(g.n_flows for g in scenario.traffic) == 1


def _queue(path: str, q, one_flow: bool) -> None:
    if isinstance(q, DropTail):
        if q.drop_packets is not None and q.drop_count != "all" and not one_flow:
            raise ScenarioError(f"{path}.drop_count", q.drop_count,
                                "ns-2's ErrorModel/List numbers every packet of the link, so "
                                "the ns-2 engine numbers data packets only in a scenario of "
                                "one bulk flow or transfer (whose packet 0 is its header-only SYN)",
                                'set drop_count = "all" (every packet arriving is numbered)')
        if q.limit_size[1] != "p":
            raise ScenarioError(f"{path}.limit", q.limit,
                                "the ns-2 engine needs a drop-tail limit in packets",
                                "ns-2's byte-mode DropTail counts differently")
        return
    if isinstance(q, (Red, Ared)):
        adaptive = isinstance(q, Ared) or q.adaptive
        if q.ecn and q.ecn_above_max_th == "drop" and adaptive:
            raise ScenarioError(
                f"{path}.ecn_above_max_th", q.ecn_above_max_th,
                "ns-2.35 marks while RED's probability is below a fixed mark_p_, which "
                "cannot follow an adaptive max_p: 'drop' (mark only below max_th) is not "
                "available with ARED", 'use "mark" (or ns-2.35\'s own rule, "mark_p")')
        if q.forced_region == "drop" and q.ecn and q.ecn_above_max_th != "mark":
            raise ScenarioError(
                f"{path}.forced_region", q.forced_region,
                f"ns-2.35's ECN rule for {q.ecn_above_max_th!r} needs use_mark_p_ 1, which "
                "has no forced region", 'use "early_test" (ns-2.35\'s own), or '
                'ecn_above_max_th = "mark"')
        if q.measured_queue != "waiting":
            raise ScenarioError(
                f"{path}.measured_queue", q.measured_queue,
                "ns-2.35's REDQueue measures the packets waiting for the link (\"waiting\"); "
                "\"disc\" is ns-3's RedQueueDisc alone", 'use "waiting"')
        if isinstance(q, Red) and q.ecn and not q.hard_drop:
            raise ScenarioError(f"{path}.hard_drop", q.hard_drop,
                                "ns-2.35's RED always drops in the forced region")
        return
    raise ScenarioError(f"{path}.kind", q.kind,
                        "the ns-2 engine supports droptail, red and ared queues")


def _tcp_field(k: int | None, group_tcp: dict | None, name: str) -> str:
    if k is not None and group_tcp and name in group_tcp:
        return f"traffic[{k}].tcp.{name}"
    return f"tcp.{name}"


def _tcp(t: Tcp, k: int | None, group_tcp: dict | None, full_tcp: bool) -> None:
    def fail(name: str, allowed: str, hint: str = "") -> None:
        raise ScenarioError(_tcp_field(k, group_tcp, name), getattr(t, name), allowed, hint)

    if t.variant not in VARIANTS:
        fail("variant", f"the ns-2 engine runs {', '.join(VARIANTS)}")
    if t.effective_recovery != "classic":
        fail("recovery", "ns-2.35's Reno/NewReno/SACK agents have classic recovery only")
    for name in ("rtt_alpha", "rtt_beta"):
        if gain_bits(getattr(t, name)) is None:
            fail(name, "ns-2 takes RTT gains as powers of 1/2 (T_SRTT_BITS, T_RTTVAR_BITS)")
    if t.max_retries != _DEFAULT_TCP.max_retries:
        fail("max_retries", "ns-2 TCP never gives up on a connection")
    if t.ecn and t.loss_in_cwr != "fast_retransmit":
        fail("loss_in_cwr", "ns-2's Reno fast-retransmits a loss found in CWR")
    if t.snd_buffer_bytes < t.rcv_window_bytes:
        fail("snd_buffer", "ns-2 senders have an unlimited send buffer",
             f"give snd_buffer >= rcv_window ({t.rcv_window_bytes} B)")
    if full_tcp and t.limited_transmit:
        fail("limited_transmit", "ns-2's Full-TCP (web connections) has no limited "
             "transmit", "set limited_transmit = false for web traffic")
    if full_tcp and t.timestamps:
        fail("timestamps", "ns-2's DelayBox recognises only 40-byte SYNs, so web "
             "connections cannot carry the timestamp option")
    if t.ecn and not t.ect_retransmissions:
        fail("ect_retransmissions", "ns-2's agents send every data packet ECN-capable, "
             "retransmissions included")
    if full_tcp and t.ack_rule != "full_tcp":
        fail("ack_rule", "ns-2's Full-TCP (web connections) acknowledges by bytes, holding "
             "a short segment's ACK for the delayed-ACK tick", 'set ack_rule = "full_tcp" '
             "for web traffic")
    if full_tcp and t.syn_timeout != "full_tcp":
        fail("syn_timeout", "ns-2's Full-TCP handles a SYN or SYN/ACK timeout as any "
             "timeout", 'set syn_timeout = "full_tcp" for web traffic')
    if full_tcp and t.fin_retransmit != "rto":
        fail("fin_retransmit", "ns-2's Full-TCP resends a FIN on its retransmission timer",
             'set fin_retransmit = "rto" for web traffic')
    if full_tcp and t.dup_syn != "ignore":
        fail("dup_syn", "ns-2's Full-TCP ignores a duplicate SYN and resends its SYN/ACK on "
             "its own timer", 'set dup_syn = "ignore" for web traffic')
    if full_tcp and t.dup_synack != "ack":
        fail("dup_synack", "ns-2's Full-TCP acknowledges a duplicate SYN/ACK once "
             "established", 'set dup_synack = "ack" for web traffic')
    if not full_tcp and t.ack_rule == "full_tcp" and t.delayed_ack:
        fail("ack_rule", "ns-2's one-way DelAck sink times a held ACK from its segment, "
             "not on a clock tick", 'use ack_rule = "segments" with delayed_ack')
    _mechanisms(t, full_tcp, fail)


#: Mechanisms that only aqmlab's Reno recovery reads (other variants ignore them).
_RENO_ONLY = ("fast_retransmit_guard", "reno_window")


def _mechanisms(t: Tcp, full_tcp: bool, fail) -> None:
    """ns-2's agents have one behaviour per mechanism (mechanisms.MECHANISMS): its
    one-way agents' (bulk flows, transfers) or Full-TCP's (web); with timestamps, ns-2
    samples the RTT at every ACK."""
    agent = "Full-TCP (web connections)" if full_tcp else "one-way agents"
    for m in mechanisms.MECHANISMS:
        if m.field in _RENO_ONLY and t.variant != "reno":
            continue
        if m.field == "dupacks_after_timeout" and not t.limited_transmit:
            continue  # only with limited transmit
        if (m.field in ("sack_recovery", "sack_timeout", "sack_blocks", "sack_option_bytes")
                and t.variant != "sack"):
            continue  # Sack1's or Full-TCP SACK's
        if m.field == "sack_option_bytes" and full_tcp:
            continue  # Full-TCP is given ns-3's padding (sack_option_size_ 4)
        if m.field == "delack_sink" and (full_tcp or not t.delayed_ack):
            continue  # the DelAck sink's; Full-TCP acknowledges by its ack_rule
        if m.field in ("handshake_ack", "syn_options", "synack_retry",
                       "syn_timeout_ssthresh") and full_tcp:
            continue  # Full-TCP's handshake is not modelled either way
        if m.field in ("ecn_cwnd_floor", "ecn_response", "ecn_dupack",
                       "ecn_ce_marks") and full_tcp:
            continue  # Full-TCP's is not traced: web keeps ns-3's
        if m.field == "cwr_flag" and full_tcp:
            continue  # Full-TCP's (foutput: next_segment) is not traced: web keeps ns-3's
        want = m.ns2_full if full_tcp else m.ns2
        if m.field == "rtt_sampling" and t.timestamps:
            want = "every_ack"
        if t.mechanism(m.field, one_way=not full_tcp) != want:
            fail(m.field, f"ns-2.35's {agent} have {m.field} = {want!r}"
                 + (" with these timestamps" if m.field == "rtt_sampling" else ""))


def _native_hosts(scenario: Scenario, k: int, group: PackMime) -> None:
    """ns-2's PackMimeHTTP pairs client i with server i: it needs as many of each."""
    topo = scenario.topology
    if group.cross_hop is None:
        n_s, n_r = topo.senders, topo.n_receivers
    else:
        n_s, n_r = topo.cross_senders, topo.n_cross_receivers
    n_s = len(group.senders) if group.senders is not None else n_s
    n_r = len(group.receivers) if group.receivers is not None else n_r
    if n_s != n_r:
        raise ScenarioError(f"traffic[{k}].receivers", group.receivers,
                            f"ns-2's PackMimeHTTP needs as many clients as servers ({n_s})",
                            "select hosts with senders/receivers")


def check(scenario: Scenario) -> None:
    """Raise ScenarioError for the first thing the ns-2 engine cannot honour (or when ns-2
    is not installed)."""
    if not available():
        raise ScenarioError("run.engine", "ns2", "ns-2.35 (`ns`) is not installed here",
                            "`make ns2` or `apt-get install ns2`, or set AQMLAB_NS2 to an ns "
                            "binary")
    one_flow = _one_flow(scenario)
    for path, queue, _link in scenario.topology.queue_links():
        _queue(f"topology.{path}", queue, one_flow)
    native = False
    for k, group in enumerate(scenario.traffic):
        p = f"traffic[{k}]"
        if isinstance(group, Mah):
            raise ScenarioError(f"{p}.kind", group.kind,
                                "the ns-2 engine runs bulk, transfers and packmime traffic")
        web = isinstance(group, PackMime)
        _tcp(scenario.tcp_for(k), k, group.tcp, full_tcp=web)
        if not web:
            continue
        gen = generator(group)
        if gen not in GENERATORS:
            raise ScenarioError(f"{p}.generator", gen, "one of 'aqmlab', 'ns2'")
        if gen == "ns2":
            native = True
            _native_hosts(scenario, k, group)
            if group.lrd:
                raise ScenarioError(f"{p}.lrd", group.lrd,
                                    "ns-2's PackMimeHTTP has no long-range dependence")
            if group.elephant is not None:
                raise ScenarioError(f"{p}.elephant", group.elephant,
                                    "ns-2's PackMimeHTTP draws its own workload; the "
                                    "elephant rule needs aqmlab's generator")
    if native and scenario.run.stop_after_responses:
        raise ScenarioError("run.stop_after_responses", scenario.run.stop_after_responses,
                            "ns-2's PackMimeHTTP cannot stop after a number of responses",
                            "set a duration instead")
