"""The ns-2 engine without ns: what check() refuses, and what the Tcl script says."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from aqmlab.engines.ns2 import check, mapping, tcl, web
from aqmlab.errors import ScenarioError
from aqmlab.kinds.queues import CoDel
from aqmlab.kinds.tcp import FULL_TCP
from aqmlab.kinds.traffic import Mah, PackMime
from aqmlab.plan import make_plan
from aqmlab.scenario import (
    Ared,
    Bulk,
    DropTail,
    Dumbbell,
    ParkingLot,
    Red,
    RunControl,
    Scenario,
    Tcp,
    Transfers,
)


def base(**kw) -> Scenario:
    args = {"topology": Dumbbell(senders=2), "traffic": [Bulk(flows=2)],
            "run": RunControl(duration="5s")}
    args.update(kw)
    return Scenario(**args)


@pytest.mark.parametrize("scenario,field", [
    (base(tcp=Tcp(variant="cubic")), "tcp.variant"),
    (base(tcp=Tcp(recovery="prr")), "tcp.recovery"),
    (base(tcp=Tcp(rtt_alpha=0.2)), "tcp.rtt_alpha"),
    (base(tcp=Tcp(max_retries=6)), "tcp.max_retries"),
    (base(tcp=Tcp(snd_buffer="64kB")), "tcp.snd_buffer"),
    (base(traffic=[Bulk(flows=1), Bulk(flows=1, tcp={"variant": "bbr"})]),
     "traffic[1].tcp.variant"),
    (base(topology=Dumbbell(forward_queue=CoDel())), "topology.forward_queue.kind"),
    (base(topology=Dumbbell(reverse_queue=DropTail(limit="30000B"))),
     "topology.reverse_queue.limit"),
    (base(topology=Dumbbell(forward_queue=DropTail(limit="20p", drop_packets=(3,)))),
     "topology.forward_queue.drop_count"),
    (base(topology=Dumbbell(forward_queue=Ared(ecn=True))),
     "topology.forward_queue.ecn_above_max_th"),
    (base(topology=Dumbbell(forward_queue=Red(ecn=True, adaptive=True))),
     "topology.forward_queue.ecn_above_max_th"),
    (base(topology=Dumbbell(forward_queue=Red(ecn=True, hard_drop=False,
                                              ecn_above_max_th="mark"))),
     "topology.forward_queue.hard_drop"),
    (base(topology=ParkingLot(queues=[{}, {"forward": {"kind": "pie"}}])),
     "topology.queues[1].forward.kind"),
    (base(traffic=[Mah(users=3)]), "traffic[0].kind"),
    (base(traffic=[PackMime(rate=5)]), "tcp.limited_transmit"),
    (base(tcp=Tcp(limited_transmit=False, timestamps=True), traffic=[PackMime(rate=5)]),
     "tcp.timestamps"),
    (base(tcp=Tcp(limited_transmit=False), traffic=[PackMime(rate=5)]), "tcp.ack_rule"),
    (base(tcp=Tcp(limited_transmit=False, ack_rule="full_tcp"), traffic=[PackMime(rate=5)]),
     "tcp.syn_timeout"),
    (base(tcp=Tcp(limited_transmit=False, ack_rule="full_tcp", syn_timeout="full_tcp"),
          traffic=[PackMime(rate=5)]), "tcp.fin_retransmit"),
    (base(tcp=Tcp(limited_transmit=False, ack_rule="full_tcp", syn_timeout="full_tcp",
                  fin_retransmit="rto"), traffic=[PackMime(rate=5)]), "tcp.dup_syn"),
    (base(tcp=Tcp(limited_transmit=False, ack_rule="full_tcp", syn_timeout="full_tcp",
                  fin_retransmit="rto", dup_syn="ignore"), traffic=[PackMime(rate=5)]),
     "tcp.dup_synack"),
    (base(tcp=Tcp(ecn=True, ect_retransmissions=False)), "tcp.ect_retransmissions"),
    (base(tcp=Tcp(ack_rule="full_tcp", delayed_ack=True)), "tcp.ack_rule"),
])
def test_check_refuses_what_ns2_cannot_honour_naming_the_field(scenario, field):
    with pytest.raises(ScenarioError) as err:
        check(scenario)
    assert err.value.field == field


def test_check_accepts_the_papers_settings():
    check(base(topology=Dumbbell(forward_queue=Ared(ecn=True, ecn_above_max_th="mark")),
               tcp=Tcp(variant="sack", ecn=True, delayed_ack=True)))
    check(base(topology=Dumbbell(forward_queue=Red(ecn=True)), tcp=Tcp(ecn=True)))
    check(base(tcp=Tcp(variant="newreno", **FULL_TCP),
               traffic=[PackMime(rate=5), PackMime(rate=5, direction="reverse")]))
    check(base(topology=Dumbbell(forward_queue=Ared(ecn=True, ecn_above_max_th="mark_p")),
               tcp=Tcp(variant="sack", ecn=True, **FULL_TCP), traffic=[PackMime(rate=5)]))
    check(base(topology=ParkingLot(), traffic=[Bulk(), Bulk(path="cross:1")]))


def test_red_drop_rule_marks_only_below_max_th():
    """aqmlab's "drop" rule is ns-2.35's mark_p_ test with mark_p_ = max_p: RED's p is below
    max_p exactly while the average is below max_th; "mark" marks up to the forced
    threshold (mark_p_ 1), or with a forced region (``forced_region = "drop"``) switches
    the test off."""
    drop = dict(mapping.queue_config(Red(ecn=True, max_p=0.02), 1e7).settings)
    assert (drop["setbit_"], drop["use_mark_p_"], float(drop["mark_p_"])) == ("1", "1", 0.02)
    assert float(drop["linterm_"]) == pytest.approx(50)
    mark = dict(mapping.queue_config(Red(ecn=True, ecn_above_max_th="mark"), 1e7).settings)
    assert (mark["use_mark_p_"], float(mark["mark_p_"])) == ("1", 1.0)
    forced = Red(ecn=True, ecn_above_max_th="mark", forced_region="drop")
    assert dict(mapping.queue_config(forced, 1e7).settings)["use_mark_p_"] == "0"
    native = Ared(ecn=True, ecn_above_max_th="mark")
    object.__setattr__(native, "ecn_above_max_th", "mark_p")  # ns-2.35's rule, if offered
    own = dict(mapping.queue_config(native, 1e7).settings)
    assert (own["use_mark_p_"], float(own["mark_p_"])) == ("1", 0.1)


def test_ared_gets_aqmlabs_automatic_values():
    """ARED at 10 Mb/s, 500-byte mean packets, 5 ms target: thresholds (6.25, 18.75),
    w_q = 1 - exp(-1/2500), bottom = min(0.01, 80000 / 1e7) = 0.008."""
    s = dict(mapping.queue_config(Ared(ecn=True, ecn_above_max_th="mark"), 1e7).settings)
    assert float(s["thresh_"]) == pytest.approx(6.25)
    assert float(s["maxthresh_"]) == pytest.approx(18.75)
    assert float(s["q_weight_"]) == pytest.approx(0.00039992, rel=1e-4)
    assert float(s["bottom_"]) == pytest.approx(0.008)
    assert s["adaptive_"] == "1"


def test_tcp_fields_become_ns2_variables():
    t = Tcp(mss=1420, rcv_window=105080, initial_cwnd=2, min_rto="1s", initial_rto="6s",
            clock_granularity="10ms", limited_transmit=False, dupack_threshold=4)
    one = dict(mapping.one_way_config(t).agent_settings)
    assert one["packetSize_"] == "1420" and one["window_"] == "74"
    assert (one["minrto_"], one["rtxcur_init_"], one["tcpTick_"]) == ("1.0", "6.0", "0.01")
    assert (one["singledup_"], one["numdupacks_"]) == ("0", "4")
    assert (one["T_SRTT_BITS"], one["T_RTTVAR_BITS"]) == ("3", "2")
    full = dict(mapping.full_tcp_config(t).settings)
    assert full["segsize_"] == "1420" and full["tcprexmtthresh_"] == "4"
    assert full["nodelay_"] == "1"  # aqmlab's default: no Nagle
    assert dict(mapping.full_tcp_config(Tcp(nagle=True)).settings)["nodelay_"] == "0"
    assert mapping.rcv_window_segments(Tcp(rcv_window="1MB", window_scaling=False)) == 65
    assert mapping.one_way_config(Tcp(variant="sack", delayed_ack=True)).sink == \
        "Agent/TCPSink/Sack1/DelAck"


def test_transfer_target_counts_ns2_packets_and_headers():
    """20 MiB in 1460-byte segments: 14,365 packets of 1502 B after the 42-byte packet 0
    (one-way agents carry ns-3's 2 PPP bytes in their header)."""
    packets, sink_bytes = tcl.transfer_target(Tcp(mss=1460), 20 * 2**20)
    assert packets == 14365
    assert sink_bytes == 42 + 14365 * 1502


def test_routes_send_every_host_through_the_right_neighbour():
    """Parking lot R0-R1-R2: R1 reaches the e2e sender behind R0 and the receiver behind
    R2, and its own cross hosts directly; hosts use a default route."""
    sc = base(topology=ParkingLot(routers=3, senders=1, cross_senders=1),
              traffic=[Bulk(), Bulk(path="cross:0")])
    plan = make_plan(sc)
    idx = {name: i for i, name in enumerate(plan.nodes)}
    lines = tcl.routes(plan)
    r1 = next(x for x in lines if x.startswith(f"aq_route_table {idx['R1']} "))
    table = dict(re.findall(r"(\d+) \{([\d ]*)\}", r1.split(" ", 2)[2]))
    assert idx["S0"] in map(int, table[str(idx["R0"])].split())
    assert idx["D0"] in map(int, table[str(idx["R2"])].split())
    assert table[str(idx["X0D0"])] == str(idx["X0D0"])
    assert f"aq_route_default {idx['S0']} {idx['R0']}" in lines


def test_script_probes_queues_in_plan_order_and_sets_run_control():
    sc = base(topology=ParkingLot(routers=3), traffic=[Transfers(count=2, size="1MB")],
              run=RunControl(duration="7s", warmup="2s", sample_interval="50ms"))
    text = tcl.script_text(sc, make_plan(sc))
    probes = re.findall(r"^aq_probe (\d+) (\d+) (\d+) (\d)$", text, re.M)
    plan = make_plan(sc)
    idx = {name: i for i, name in enumerate(plan.nodes)}
    expected = [(idx[a], idx[b]) for a, b in (("R0", "R1"), ("R1", "R0"), ("R1", "R2"),
                                              ("R2", "R1"))]
    assert [(int(a), int(b)) for _, a, b, _ in probes] == expected
    assert '$ns at 2.0 "aq_snapshot 0"' in text
    assert "$ns at 7.0 aq_finish" in text
    assert "set AQ(stop_when_done) 1" in text and "set AQ(sample) 0.05" in text
    assert len(re.findall(r"^aq_flow ", text, re.M)) == 2


def test_queue_limits_keep_ns2_accounting():
    """aqmlab's limits are ns-2's: drop-tail and RED get `limit` unchanged."""
    dt = dict(mapping.queue_config(DropTail(limit="148p"), 1e7).settings)
    red = dict(mapping.queue_config(Red(limit="64p", min_th=20, max_th=60), 1e7).settings)
    assert dt["limit_"] == "148" and red["limit_"] == "64"


def _native(group: PackMime) -> PackMime:
    return dataclasses.replace(group, generator="ns2")


@pytest.mark.parametrize("group,field", [
    (PackMime(rate=5, lrd=True), "traffic[0].lrd"),
    (PackMime(rate=5, elephant="10MB"), "traffic[0].elephant"),
    (PackMime(rate=5, receivers=[0, 1]), "traffic[0].receivers"),
])
def test_check_refuses_what_ns2_packmime_cannot_draw(group, field):
    sc = base(topology=Dumbbell(senders=3, receivers=3), tcp=Tcp(**FULL_TCP),
              traffic=[_native(group)])
    with pytest.raises(ScenarioError) as err:
        check(sc)
    assert err.value.field == field


def test_flow_ids_map_to_rows_bulk_first_then_web_groups():
    """Bulk flow i carries fid i; web group g's connection j carries FID_STRIDE (1+g) + j,
    which lands on row nbulk + (connections of the groups before g) + j."""
    res = web.WebResult(end={}, warm={}, info={"src": np.zeros(5)}, offsets=np.array([0, 3]))
    fids = np.array([0, 1, web.fid_base(0) + 2, web.fid_base(1) + 1, web.fid_base(1) + 2,
                     web.fid_base(0) + 3, -1])
    assert res.rows_of_fids(fids, nbulk=2).tolist() == [0, 1, 4, 6, -1, -1, -1]
