"""Scenario specs (aqmlab.scenario): validation, serialisation, hashing, replace()."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from aqmlab.errors import ScenarioError, UnknownKindError
from aqmlab.scenario import (
    QUEUES,
    TOPOLOGIES,
    TRAFFIC,
    Ared,
    Bulk,
    CoDel,
    DropTail,
    Dumbbell,
    FqCoDel,
    HopQueues,
    Link,
    ParkingLot,
    Pie,
    Red,
    RunControl,
    Scenario,
    Tcp,
    Transfers,
    queue_from_dict,
    topology_from_dict,
    traffic_from_dict,
)


def bad(d: dict[str, Any], match: str) -> ScenarioError:
    """Scenario.from_dict(d) must raise a ScenarioError whose message matches ``match``."""
    with pytest.raises(ScenarioError, match=match) as info:
        Scenario.from_dict(d)
    return info.value


def fq(**queue: Any) -> dict[str, Any]:
    """A scenario dict with ``queue`` as the dumbbell's forward queue."""
    return {"topology": {"forward_queue": queue}}


def red_dumbbell_scenario() -> Scenario:
    return Scenario(
        name="red-dumbbell",
        description="RED with two traffic groups",
        topology=Dumbbell(
            senders=4,
            receivers=2,
            bottleneck=Link("15Mbps", "30ms"),
            sender_delays=["1ms", "5ms", 0.01, "40ms"],
            forward_queue=Red(
                limit="200p", min_th=20, max_th=60, max_p=0.05, ecn=True, mode="byte"
            ),
            reverse_queue=CoDel(),
            rate_scale=1.04,
        ),
        tcp=Tcp(variant="newreno", delayed_ack=True),
        traffic=[
            Bulk(flows=8, start_spread="2s", tcp={"ecn": True}, processing_time="1ms"),
            Transfers(
                count=3, size=["1MB", "2MiB", 5000], senders=[0, 3], receivers=[1], start="10s"
            ),
        ],
        run=RunControl(duration="60s", warmup="10s", seed=7, run=2, max_wall_time=600),
    )


def parking_lot_scenario() -> Scenario:
    return Scenario(
        name="parking",
        topology=ParkingLot(
            routers=4,
            links=[
                Link("10Mbps", "5ms"),
                Link("5Mbps", "10ms"),
                {"rate": "20Mbps", "delay": "2ms"},
            ],
            senders=3,
            cross_senders=2,
            cross_receivers=1,
            queues=[
                {"forward": {"kind": "ared", "target_delay": "10ms"}},
                HopQueues(reverse=Pie(target="20ms")),
                {"forward": FqCoDel(flows=64), "reverse": {"kind": "droptail", "limit": "50p"}},
            ],
            forward_queue=Red(),
        ),
        traffic=[Bulk(flows=6), Bulk(path="cross:1", flows=2, senders=[1]), Bulk(path="cross:2")],
        run=RunControl(sample_interval=None),
    )


# --- queues ----------------------------------------------------------------------------------


def test_queue_defaults_and_registry() -> None:
    assert {"droptail", "red", "ared", "codel", "fq_codel", "pie", "fq_pie"} <= set(QUEUES)
    assert list(QUEUES)[:2] == ["droptail", "red"]  # the classic kinds lead menus
    assert DropTail().limit == "100p" and DropTail().ecn is False
    assert Red().to_dict()["kind"] == "red"
    assert FqCoDel().ecn is True and CoDel().ecn is False
    assert Red(min_th=5).min_th == 5.0 and isinstance(Red(min_th=5).min_th, float)
    assert CoDel(target="5ms").target_s == pytest.approx(0.005)


@pytest.mark.parametrize("cls", [DropTail, Red, Ared, CoDel, FqCoDel, Pie])
def test_queue_dict_round_trip(cls: type) -> None:
    q = cls()
    d = q.to_dict()
    assert d["kind"] == cls.KIND
    assert queue_from_dict(json.loads(json.dumps(d))) == q


def test_ared_byte_mode_round_trips() -> None:
    q = Ared(mode="byte", mean_pkt_size=1250)
    assert queue_from_dict(json.loads(json.dumps(q.to_dict()))) == q
    assert queue_from_dict({"kind": "ared"}).mode == "packet"


def test_limit_packets() -> None:
    assert DropTail(limit="100p").limit_packets(500) == 100
    assert DropTail(limit="100KB").limit_packets(500) == 200
    assert DropTail(limit=50).limit_size == (50, "p")


@pytest.mark.parametrize(
    ("queue", "match"),
    [
        ({"kind": "droptail", "limit": 2}, r"topology\.forward_queue\.limit = 2 .*>= 3 packets"),
        ({"kind": "droptail", "limit": "2999B"}, r"topology\.forward_queue\.limit .*3000 bytes"),
        ({"kind": "droptail", "limit": "big"}, r"topology\.forward_queue\.limit = 'big'"),
        ({"kind": "codel", "limit": "2p"}, r"topology\.forward_queue\.limit"),
        (
            {"kind": "red", "min_th": 15, "max_th": 15},
            r"topology\.forward_queue\.min_th .*min_th must be < max_th",
        ),
        ({"kind": "red", "min_th": -1}, r"topology\.forward_queue\.min_th .*>= 0"),
        ({"kind": "red", "max_th": 0, "min_th": 0}, r"topology\.forward_queue\.max_th"),
        ({"kind": "red", "max_p": 0}, r"topology\.forward_queue\.max_p .*> 0 and <= 1"),
        ({"kind": "red", "max_p": 1.5}, r"topology\.forward_queue\.max_p"),
        ({"kind": "red", "w_q": 1.5}, r"topology\.forward_queue\.w_q .*0, -1, -2"),
        ({"kind": "red", "w_q": -3}, r"topology\.forward_queue\.w_q"),
        ({"kind": "red", "w_q": -0.5}, r"topology\.forward_queue\.w_q"),
        ({"kind": "red", "limit": "10p"}, r"topology\.forward_queue\.limit .*limit < max_th"),
        ({"kind": "red", "limit": "7000B"}, r"topology\.forward_queue\.limit .*limit < max_th"),
        ({"kind": "red", "mean_pkt_size": 0}, r"topology\.forward_queue\.mean_pkt_size .*>= 1"),
        ({"kind": "red", "mode": "bytes"}, r"topology\.forward_queue\.mode .*packet, byte"),
        ({"kind": "ared", "mode": "pkt"}, r"topology\.forward_queue\.mode .*packet, byte"),
        ({"kind": "red", "gentle": "yes"}, r"topology\.forward_queue\.gentle .*true or false"),
        ({"kind": "red", "ecn": 1}, r"topology\.forward_queue\.ecn"),
        ({"kind": "red", "adaptive": None}, r"topology\.forward_queue\.adaptive"),
        ({"kind": "red", "min_th": "5"}, r"topology\.forward_queue\.min_th .*number"),
        ({"kind": "ared", "target_delay": "0ms"}, r"topology\.forward_queue\.target_delay .*> 0"),
        ({"kind": "ared", "alpha": 0}, r"topology\.forward_queue\.alpha .*> 0"),
        ({"kind": "ared", "beta": 0}, r"topology\.forward_queue\.beta .*> 0 and < 1"),
        ({"kind": "ared", "beta": 1}, r"topology\.forward_queue\.beta"),
        ({"kind": "ared", "interval": 0}, r"topology\.forward_queue\.interval .*> 0"),
        ({"kind": "ared", "bottom": 0}, r"topology\.forward_queue\.bottom .*> 0"),
        ({"kind": "ared", "bottom": 0.6, "top": 0.5}, r"topology\.forward_queue\.bottom .*<= 0.5"),
        ({"kind": "ared", "top": 1.5}, r"topology\.forward_queue\.top .*<= 1"),
        (
            {"kind": "ared", "min_th": 10, "max_th": 10},
            r"topology\.forward_queue\.min_th .*min_th must be < max_th",
        ),
        ({"kind": "ared", "max_th": 300}, r"topology\.forward_queue\.limit .*limit < max_th"),
        ({"kind": "ared", "w_q": 0}, r"topology\.forward_queue\.w_q"),
        ({"kind": "ared", "mean_pkt_size": -1}, r"topology\.forward_queue\.mean_pkt_size"),
        ({"kind": "codel", "target": "0s"}, r"topology\.forward_queue\.target .*> 0"),
        ({"kind": "codel", "interval": "-1ms"}, r"topology\.forward_queue\.interval"),
        ({"kind": "fq_codel", "flows": 0}, r"topology\.forward_queue\.flows .*>= 1"),
        ({"kind": "fq_codel", "target": 0}, r"topology\.forward_queue\.target"),
        ({"kind": "pie", "target": 0}, r"topology\.forward_queue\.target"),
        ({"kind": "pie", "tupdate": "0ms"}, r"topology\.forward_queue\.tupdate"),
        ({"kind": "pie", "alpha": 0}, r"topology\.forward_queue\.alpha"),
        ({"kind": "pie", "beta": -1}, r"topology\.forward_queue\.beta"),
        ({"kind": "pie", "ecn": "no"}, r"topology\.forward_queue\.ecn"),
        (
            {"kind": "red", "bogus": 1},
            r"topology\.forward_queue\.bogus .*unknown key; allowed keys: kind, limit",
        ),
        ({"kind": "droptail", "ecn": True}, r"topology\.forward_queue\.ecn .*unknown key"),
        ({"limit": "100p"}, r"topology\.forward_queue\.kind .*required"),
    ],
)
def test_queue_validation_errors(queue: dict[str, Any], match: str) -> None:
    bad(fq(**queue), match)


def test_red_valid_edge_values() -> None:
    for w_q in (0, -1, -2, 1, 0.5):
        assert Red(w_q=w_q).w_q == float(w_q)
    assert Red(min_th=0, max_th=1, limit="3p").min_th == 0.0
    assert Red(limit="7500B", mean_pkt_size=500).limit_packets(500) == 15.0  # == max_th is fine


def test_unknown_queue_kind_lists_known_kinds() -> None:
    err = bad(fq(kind="rde"), r"topology\.forward_queue\.kind = 'rde'")
    assert isinstance(err, UnknownKindError)
    for kind in QUEUES:
        assert kind in str(err)
    assert "did you mean 'red'?" in str(err)


def test_queue_kind_mismatch() -> None:
    with pytest.raises(ScenarioError, match=r"kind = 'red' .*'droptail'"):
        DropTail(kind="red")


def test_ared_automatic_parameters() -> None:
    a = Ared()
    rate = 15_000_000  # 3750 pkts/s of 500 B
    assert a.auto_bottom(rate) == pytest.approx(80000 / rate)
    assert a.auto_bottom(1_000_000) == 0.01
    assert Ared(bottom=0.02).auto_bottom(rate) == 0.02
    c = rate / (8 * 500)
    min_th, max_th = a.auto_thresholds(rate)
    assert min_th == pytest.approx(0.005 * c / 2)  # 9.375 > 5
    assert max_th == pytest.approx(3 * min_th)
    assert a.auto_thresholds(1_000_000) == (5.0, 15.0)  # floor of 5 packets
    assert Ared(min_th=4, max_th=40).auto_thresholds(rate) == (4.0, 40.0)
    assert Ared(min_th=4).auto_thresholds(rate) == (4.0, 12.0)
    assert a.auto_w_q(rate) == pytest.approx(1 - math.exp(-1 / c))
    assert Ared(w_q=0.01).auto_w_q(rate) == 0.01
    with pytest.raises(ScenarioError, match=r"max_th .*automatic min_th"):
        Ared(max_th=6).auto_thresholds(rate)


def test_ared_max_th_below_auto_min_th_is_rejected_by_scenario() -> None:
    bad(
        {
            "topology": {
                "bottleneck": {"rate": "100Mbps", "delay": "1ms"},
                "forward_queue": {"kind": "ared", "max_th": 20},
            }
        },
        r"topology\.forward_queue\.max_th .*automatic min_th",
    )
    # the same queue on a slow link is fine
    Scenario.from_dict({"topology": {"forward_queue": {"kind": "ared", "max_th": 20}}})


# --- tcp -------------------------------------------------------------------------------------


def test_tcp_defaults_and_properties() -> None:
    t = Tcp()
    assert (t.variant, t.mss, t.initial_cwnd, t.delayed_ack) == ("reno", 1000, 2, False)
    assert t.min_rto_s == pytest.approx(0.2) and t.initial_rto_s == 3.0
    assert t.rcv_window_bytes == 1_000_000 and t.snd_buffer_bytes == 4_000_000
    assert not t.sack and t.effective_recovery == "classic"
    assert Tcp(variant="sack").sack and Tcp(variant="sack").effective_recovery == "classic"
    assert Tcp(variant="cubic").sack and Tcp(variant="cubic").effective_recovery == "prr"
    assert not Tcp(variant="newreno").sack
    assert Tcp(variant="reno", recovery="prr").effective_recovery == "prr"
    assert Tcp(variant="dctcp", ecn=True).effective_recovery == "prr"


@pytest.mark.parametrize(
    ("tcp", "match"),
    [
        (
            {"variant": "cubik"},
            r"^tcp\.variant = 'cubik' .*known kinds: bbr, cubic.*did you mean 'cubic'",
        ),
        ({"mss": 99}, r"tcp\.mss .*>= 100 and <= 9000"),
        ({"mss": 9001}, r"tcp\.mss"),
        ({"mss": 1460.0}, r"tcp\.mss .*integer"),
        ({"initial_cwnd": 0}, r"tcp\.initial_cwnd .*>= 1"),
        ({"delack_timeout": 0}, r"tcp\.delack_timeout .*> 0"),
        ({"min_rto": "-1ms"}, r"tcp\.min_rto"),
        ({"initial_rto": "0s"}, r"tcp\.initial_rto"),
        ({"clock_granularity": 0}, r"tcp\.clock_granularity"),
        ({"rcv_window": "999B"}, r"tcp\.rcv_window .*>= mss"),
        ({"snd_buffer": 500}, r"tcp\.snd_buffer .*>= mss"),
        ({"rcv_window": "10p"}, r"tcp\.rcv_window .*bytes"),
        ({"recovery": "fast"}, r"tcp\.recovery .*auto, classic, prr"),
        ({"dupack_threshold": 0}, r"tcp\.dupack_threshold .*>= 1"),
        ({"rtt_alpha": 0}, r"tcp\.rtt_alpha .*> 0 and <= 1"),
        ({"rtt_beta": 1.5}, r"tcp\.rtt_beta"),
        ({"max_retries": 0}, r"tcp\.max_retries .*>= 1"),
        ({"variant": "dctcp"}, r"tcp\.ecn = False .*dctcp"),
        ({"timestamps": "no"}, r"tcp\.timestamps"),
        ({"sack": True}, r"tcp\.sack .*unknown key; allowed keys: variant, ecn, mss"),
    ],
)
def test_tcp_validation_errors(tcp: dict[str, Any], match: str) -> None:
    err = bad({"tcp": tcp}, match)
    if "variant" in tcp and tcp["variant"] == "cubik":
        assert isinstance(err, UnknownKindError)


def test_tcp_with_overrides() -> None:
    t = Tcp()
    assert t.with_overrides(None) is t
    t2 = t.with_overrides({"variant": "sack", "mss": 1460})
    assert (t2.variant, t2.mss, t.mss) == ("sack", 1460, 1000)
    with pytest.raises(ScenarioError, match=r"^mss = 50"):
        t.with_overrides({"mss": 50})
    with pytest.raises(ScenarioError, match=r"^colour .*unknown key"):
        t.with_overrides({"colour": "red"})


# --- traffic ---------------------------------------------------------------------------------


def test_traffic_basics() -> None:
    assert set(TRAFFIC) == {"bulk", "transfers", "packmime", "mah"}
    assert Bulk(flows=5).n_flows == 5
    t = Transfers(count=3, size="1KiB")
    assert t.n_flows == 3 and t.sizes_bytes == (1024, 1024, 1024)
    t = Transfers(count=2, size=["1MB", 10])
    assert t.size == ("1MB", 10) and t.sizes_bytes == (1_000_000, 10)
    assert Bulk(path="cross:3").cross_hop == 3 and Bulk().cross_hop is None
    assert Bulk(senders=[2, 0]).senders == (2, 0)
    assert traffic_from_dict({"flows": 2}) == Bulk(flows=2)  # kind defaults to bulk
    # a dctcp override without ecn is only checked against the scenario's Tcp
    assert Bulk(tcp={"variant": "dctcp"}).tcp == {"variant": "dctcp"}


@pytest.mark.parametrize(
    ("group", "match"),
    [
        ({"flows": 0}, r"^traffic\[0\]\.flows = 0 is invalid: flows must be >= 1"),
        ({"flows": "10"}, r"traffic\[0\]\.flows .*integer"),
        ({"processing_time": "-1ms"}, r"traffic\[0\]\.processing_time"),
        ({"kind": "transfers", "count": 0}, r"traffic\[0\]\.count .*>= 1"),
        ({"kind": "transfers", "size": 0}, r"traffic\[0\]\.size .*> 0"),
        ({"kind": "transfers", "size": "10p"}, r"traffic\[0\]\.size .*bytes"),
        ({"kind": "transfers", "count": 2, "size": ["1MB"]}, r"traffic\[0\]\.size .*count = 2"),
        ({"kind": "transfers", "count": 2, "size": ["1MB", "0B"]}, r"traffic\[0\]\.size\[1\]"),
        ({"path": "middle"}, r"traffic\[0\]\.path .*'e2e' or 'cross:<hop index>'"),
        ({"path": "cross:-1"}, r"traffic\[0\]\.path"),
        ({"senders": [-1]}, r"traffic\[0\]\.senders\[0\] .*>= 0"),
        ({"senders": []}, r"traffic\[0\]\.senders .*non-empty"),
        ({"receivers": [0, 0]}, r"traffic\[0\]\.receivers .*repeat"),
        ({"receivers": 0}, r"traffic\[0\]\.receivers .*list"),
        ({"tcp": {"bogus": 1}}, r"traffic\[0\]\.tcp\.bogus .*unknown key"),
        ({"tcp": {"mss": 5}}, r"traffic\[0\]\.tcp\.mss"),
        ({"tcp": {"variant": "dctcp", "ecn": False}}, r"traffic\[0\]\.tcp\.ecn"),
        ({"tcp": "ecn"}, r"traffic\[0\]\.tcp .*table"),
        ({"start": "-1s"}, r"traffic\[0\]\.start"),
        ({"start_spread": "x"}, r"traffic\[0\]\.start_spread"),
        ({"kind": "bulk", "count": 3}, r"traffic\[0\]\.count .*unknown key"),
        ({"kind": "web"}, r"traffic\[0\]\.kind = 'web' .*known kinds: bulk, mah, packmime, transfers"),
    ],
)
def test_traffic_validation_errors(group: dict[str, Any], match: str) -> None:
    bad({"traffic": [group]}, match)


def test_traffic_error_index_is_the_group_index() -> None:
    bad({"traffic": [{}, {"flows": 0}]}, r"^traffic\[1\]\.flows")


# --- topology --------------------------------------------------------------------------------


def test_link_and_dumbbell_defaults() -> None:
    link = Link("10Mbps", "20ms")
    assert link.rate_bps == 10_000_000 and link.delay_s == pytest.approx(0.02)
    d = Dumbbell()
    assert d.n_receivers == 1 and d.bottleneck_rate_bps == 10_000_000
    assert d.forward_queue == DropTail(limit="100p") and d.reverse_queue == DropTail(limit="1000p")
    assert Dumbbell(senders=3, receivers=2).n_receivers == 2
    assert set(TOPOLOGIES) == {"dumbbell", "parking_lot"}
    assert topology_from_dict({"senders": 2}) == Dumbbell(senders=2)


def test_parking_lot_helpers() -> None:
    p = parking_lot_scenario().topology
    assert isinstance(p, ParkingLot)
    assert p.hops == 3 and p.n_receivers == 3 and p.n_cross_receivers == 1
    assert p.hop_link(1) == Link("5Mbps", "10ms")
    assert p.bottleneck_rate_bps == 5_000_000
    fwd0, rev0 = p.hop_queues(0)
    assert isinstance(fwd0, Ared) and rev0 == DropTail(limit="100p")
    fwd1, rev1 = p.hop_queues(1)
    assert fwd1 == Red() and rev1 == Pie(target="20ms")
    assert p.hop_queues(2) == (FqCoDel(flows=64), DropTail(limit="50p"))
    with pytest.raises(IndexError):
        p.hop_link(3)
    plain = ParkingLot(routers=3)
    assert plain.hop_link(0) == plain.link and plain.hop_queues(1) == (
        plain.forward_queue,
        plain.reverse_queue,
    )
    names = [name for name, _, _ in p.queue_links()]
    assert names[:2] == ["queues[0].forward", "reverse_queue"] and names[-1] == "access_queue"


@pytest.mark.parametrize(
    ("topology", "match"),
    [
        ({"bottleneck": {"rate": 0, "delay": "1ms"}}, r"^topology\.bottleneck\.rate = 0 .*> 0"),
        (
            {"bottleneck": {"rate": "10Mbps", "delay": "-1ms"}},
            r"topology\.bottleneck\.delay .*>= 0",
        ),
        ({"bottleneck": {"rate": "10Mbps"}}, r"topology\.bottleneck\.delay .*required"),
        (
            {"bottleneck": {"rate": "1Mbps", "delay": 0, "mtu": 1}},
            r"topology\.bottleneck\.mtu .*unknown",
        ),
        ({"bottleneck": "10Mbps"}, r"topology\.bottleneck .*Link"),
        ({"access": {"rate": "fast", "delay": 0}}, r"topology\.access\.rate"),
        ({"senders": 0}, r"topology\.senders .*>= 1 and <= 1000"),
        ({"senders": 1001}, r"topology\.senders"),
        ({"receivers": 0}, r"topology\.receivers"),
        (
            {"senders": 2, "sender_delays": ["1ms"]},
            r"^topology\.sender_delays = .*one delay per host",
        ),
        ({"senders": 2, "sender_delays": ["1ms", "x"]}, r"topology\.sender_delays\[1\]"),
        (
            {"senders": 2, "receivers": 3, "receiver_delays": [0, 0]},
            r"topology\.receiver_delays .*= 3",
        ),
        ({"sender_delays": "1ms"}, r"topology\.sender_delays .*list"),
        ({"rate_scale": 0}, r"topology\.rate_scale .*> 0"),
        ({"forward_queue": {"kind": "red", "min_th": 20}}, r"topology\.forward_queue\.min_th"),
        ({"reverse_queue": {"kind": "droptail", "limit": 1}}, r"topology\.reverse_queue\.limit"),
        ({"access_queue": None}, r"topology\.access_queue"),
        ({"access_queue": "droptail"}, r"topology\.access_queue"),
        ({"color": "blue"}, r"topology\.color .*allowed keys: kind, senders"),
        ({"kind": "star"}, r"topology\.kind = 'star' .*known kinds: dumbbell, parking_lot"),
        ({"kind": "parking_lot", "routers": 1}, r"topology\.routers .*>= 2"),
        ({"kind": "parking_lot", "link": {"rate": -1, "delay": 0}}, r"topology\.link\.rate"),
        (
            {"kind": "parking_lot", "links": [{"rate": "1Mbps", "delay": 0}]},
            r"topology\.links .*= 2 entries",
        ),
        (
            {
                "kind": "parking_lot",
                "links": [{"rate": "1Mbps", "delay": 0}, {"rate": 0, "delay": 0}],
            },
            r"topology\.links\[1\]\.rate",
        ),
        ({"kind": "parking_lot", "queues": [{}]}, r"topology\.queues .*= 2 entries"),
        (
            {"kind": "parking_lot", "queues": [{}, {"forward": {"kind": "red", "min_th": 99}}]},
            r"^topology\.queues\[1\]\.forward\.min_th",
        ),
        (
            {"kind": "parking_lot", "queues": [{}, {"middle": {}}]},
            r"topology\.queues\[1\]\.middle .*unknown",
        ),
        (
            {"kind": "parking_lot", "cross_senders": 0, "cross_receivers": 2},
            r"topology\.cross_receivers",
        ),
        ({"kind": "parking_lot", "cross_senders": -1}, r"topology\.cross_senders"),
        ({"kind": "parking_lot", "receivers": 0}, r"topology\.receivers"),
        ({"kind": "parking_lot", "rate_scale": -1.0}, r"topology\.rate_scale"),
        ({"tx_time": "exact"}, r"topology\.tx_time = 'exact' .*one of ns3, ns2"),
        ({"kind": "parking_lot", "tx_time": 2}, r"topology\.tx_time"),
        ({"queue_wake": "now"}, r"topology\.queue_wake = 'now' .*one of ns3, ns2"),
        ({"kind": "parking_lot", "queue_wake": None}, r"topology\.queue_wake"),
        ({"link_header": "eth"}, r"topology\.link_header = 'eth' .*one of ppp, none"),
        ({"kind": "parking_lot", "delay_box": "node"},
         r"topology\.delay_box = 'node' .*one of channel, ns2"),
        ({"kind": "parking_lot", "bottleneck": {}}, r"topology\.bottleneck .*unknown key"),
    ],
)
def test_topology_validation_errors(topology: dict[str, Any], match: str) -> None:
    bad({"topology": topology}, match)


def test_topology_must_be_a_table() -> None:
    bad({"topology": "dumbbell"}, r"^topology = 'dumbbell' .*table")


# --- run control -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("run", "match"),
    [
        ({"duration": 0}, r"run\.duration .*> 0"),
        ({"duration": "10s", "warmup": "10s"}, r"^run\.warmup = '10s' .*warmup must be < duration"),
        ({"warmup": "-1s"}, r"run\.warmup"),
        ({"seed": 0}, r"run\.seed .*>= 1"),
        ({"seed": 2**32}, r"run\.seed"),
        ({"run": 0}, r"run\.run .*>= 1"),
        ({"sample_interval": "0ms"}, r"run\.sample_interval .*> 0"),
        ({"max_wall_time": 0}, r"run\.max_wall_time .*> 0"),
        ({"stop_when_done": "yes"}, r"run\.stop_when_done"),
        ({"repeat": 3}, r"run\.repeat .*unknown key"),
    ],
)
def test_run_validation_errors(run: dict[str, Any], match: str) -> None:
    bad({"run": run}, match)


def test_run_control_properties() -> None:
    r = RunControl(duration="2min", warmup="10s", sample_interval=False, max_wall_time="1h")
    assert r.duration_s == 120 and r.warmup_s == 10 and r.max_wall_time_s == 3600
    assert r.sample_interval is None and r.sample_interval_s is None
    assert RunControl().sample_interval_s == pytest.approx(0.1)


# --- scenario cross-validation ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("d", "match"),
    [
        ({"traffic": []}, r"^traffic = .*at least one group"),
        ({"traffic": {"flows": 1}}, r"^traffic .*list"),
        ({"name": ""}, r"^name .*empty"),
        ({"name": 3}, r"^name .*string"),
        ({"tpology": {}}, r"^tpology .*unknown key.*did you mean 'topology'"),
        ({"traffic": [{"path": "cross:0"}]}, r"^traffic\[0\]\.path = 'cross:0' .*parking_lot"),
        (
            {
                "topology": {"kind": "parking_lot", "routers": 3},
                "traffic": [{}, {"path": "cross:2"}],
            },
            r"^traffic\[1\]\.path .*< hops = 2",
        ),
        (
            {
                "topology": {"kind": "parking_lot", "cross_senders": 0},
                "traffic": [{"path": "cross:0"}],
            },
            r"^traffic\[0\]\.path .*cross_senders >= 1",
        ),
        (
            {"topology": {"senders": 2}, "traffic": [{"senders": [2]}]},
            r"^traffic\[0\]\.senders .*< 2",
        ),
        (
            {"topology": {"senders": 4, "receivers": 2}, "traffic": [{"receivers": [0, 2]}]},
            r"^traffic\[0\]\.receivers .*< 2",
        ),
        (
            {
                "topology": {"kind": "parking_lot", "senders": 3, "cross_senders": 1},
                "traffic": [{"senders": [2]}, {"path": "cross:1", "senders": [1]}],
            },
            r"^traffic\[1\]\.senders .*< 1 .*cross",
        ),
        (
            {
                "topology": {"kind": "parking_lot", "cross_senders": 2, "cross_receivers": 1},
                "traffic": [{"path": "cross:0", "receivers": [1]}],
            },
            r"^traffic\[0\]\.receivers .*< 1",
        ),
        (
            {"tcp": {"variant": "dctcp", "ecn": True}, "traffic": [{}, {"tcp": {"ecn": False}}]},
            r"^traffic\[1\]\.tcp\.ecn = False .*dctcp",
        ),
        (
            {"tcp": {"mss": 9000}, "traffic": [{"tcp": {"rcv_window": "8KB"}}]},
            r"^traffic\[0\]\.tcp\.rcv_window",
        ),
    ],
)
def test_scenario_cross_validation_errors(d: dict[str, Any], match: str) -> None:
    bad(d, match)


def test_scenario_accepts_valid_cross_references() -> None:
    s = Scenario.from_dict(
        {
            "topology": {"kind": "parking_lot", "senders": 3, "cross_senders": 2},
            "tcp": {"variant": "dctcp", "ecn": True},
            "traffic": [
                {"senders": [2], "receivers": [0, 2]},
                {"path": "cross:1", "senders": [1], "flows": 4},
            ],
        }
    )
    assert s.n_flows == 5
    assert s.tcp_for(0).variant == "dctcp"


def test_group_tcp_overrides_apply_to_scenario_tcp() -> None:
    s = Scenario(tcp=Tcp(variant="cubic", mss=1460), traffic=[Bulk(), Bulk(tcp={"ecn": True})])
    assert s.tcp_for(0) == s.tcp
    t1 = s.tcp_for(1)
    assert (t1.variant, t1.mss, t1.ecn) == ("cubic", 1460, True)
    # dctcp override is fine when the scenario TCP has ecn on
    s = Scenario(tcp=Tcp(ecn=True), traffic=[Bulk(tcp={"variant": "dctcp"})])
    assert s.tcp_for(0).variant == "dctcp"


def test_ecn_queue_without_ecn_tcp_is_allowed() -> None:
    s = Scenario(topology=Dumbbell(forward_queue=Red(ecn=True)))
    assert s.topology.forward_queue.ecn and not s.tcp.ecn


def test_constructor_converts_lists_and_dicts() -> None:
    s = Scenario(
        topology={"kind": "parking_lot"},
        tcp={"variant": "sack"},
        traffic=[{"flows": 2}],
        run={"seed": 4},
    )
    assert isinstance(s.topology, ParkingLot) and s.tcp.variant == "sack"
    assert s.traffic == (Bulk(flows=2),) and s.run.seed == 4


# --- serialisation ---------------------------------------------------------------------------


@pytest.mark.parametrize("make", [red_dumbbell_scenario, parking_lot_scenario, Scenario])
def test_toml_round_trip(make: Any) -> None:
    s = make()
    text = s.to_toml()
    assert "null" not in text and "None" not in text
    back = Scenario.from_toml(text)
    assert back == s
    assert back.to_toml() == text
    assert back.hash == s.hash


def test_toml_layout() -> None:
    text = red_dumbbell_scenario().to_toml()
    lines = text.splitlines()
    assert lines[0] == 'name = "red-dumbbell"'
    for header in (
        "[topology]",
        "[topology.bottleneck]",
        "[topology.forward_queue]",
        "[tcp]",
        "[run]",
    ):
        assert header in lines
    assert lines.count("[[traffic]]") == 2
    assert "receiver_delays" not in text  # None omitted
    pl = parking_lot_scenario().to_toml()
    assert "[[topology.queues]]" in pl and "sample_interval = false" in pl


def test_toml_missing_keys_are_defaults() -> None:
    text = textwrap.dedent(
        """
        name = "short"
        [topology.forward_queue]
        kind = "red"
        min_th = 10
        max_th = 30
        [[traffic]]
        flows = 10
        """
    )
    s = Scenario.from_toml(text)
    assert s.topology == Dumbbell(forward_queue=Red(min_th=10.0, max_th=30.0))
    assert s.tcp == Tcp() and s.run == RunControl() and s.traffic == (Bulk(flows=10),)


def test_toml_errors() -> None:
    with pytest.raises(ScenarioError, match="invalid TOML"):
        Scenario.from_toml("name = ")
    with pytest.raises(ScenarioError, match=r"^traffic\[0\]\.flows"):
        Scenario.from_toml("[[traffic]]\nflows = 0\n")


@pytest.mark.parametrize("make", [red_dumbbell_scenario, parking_lot_scenario])
def test_json_round_trip(make: Any) -> None:
    s = make()
    text = s.to_json()
    assert Scenario.from_json(text) == s
    d = json.loads(text)
    assert d["topology"]["kind"] in ("dumbbell", "parking_lot")
    assert Scenario.from_dict(d) == s
    with pytest.raises(ScenarioError, match="invalid JSON"):
        Scenario.from_json("{")


def test_to_dict_is_complete_and_plain() -> None:
    d = Scenario().to_dict()
    assert set(d) == {"name", "description", "topology", "tcp", "traffic", "run"}
    assert (
        d["topology"]["receivers"] is None and d["topology"]["forward_queue"]["kind"] == "droptail"
    )
    assert d["traffic"] == [Bulk().to_dict()] and d["traffic"][0]["kind"] == "bulk"
    assert d["run"]["max_wall_time"] is None
    json.dumps(d)  # JSON-able


@pytest.mark.parametrize(("field", "default", "other"), [
    ("tx_time", "ns3", "ns2"), ("queue_wake", "ns3", "ns2"), ("link_header", "ppp", "none"),
    ("delay_box", "channel", "ns2")])
@pytest.mark.parametrize("kind", ["dumbbell", "parking_lot"])
def test_engine_choices_are_serialised_only_when_ns2(kind: str, field: str, default: str,
                                                     other: str) -> None:
    """``topology.tx_time``, ``queue_wake``, ``link_header`` and ``delay_box`` at their
    defaults leave the topology's dict, TOML and hash as they were before the field; ns-2's
    value is kept, round-trips and makes another run."""
    s = Scenario(topology={"kind": kind})
    assert getattr(s.topology, field) == default and field not in s.to_dict()["topology"]
    assert field not in s.to_toml()
    assert s.replace(**{f"topology.{field}": default}).hash == s.hash
    t = s.replace(**{f"topology.{field}": other})
    assert getattr(t.topology, field) == other and t.to_dict()["topology"][field] == other
    assert t.hash != s.hash
    assert Scenario.from_toml(t.to_toml()) == t


def test_qiu_example_has_ns2_tx_time() -> None:
    """Qiu's T1 (the studies' base) rounds transmission times as ns-2.35 does."""
    s = Scenario.load(Path(__file__).resolve().parents[2] / "examples" / "qiu_t1_dumbbell.toml")
    assert s.topology.tx_time == "ns2"


def test_event_clock_is_serialised_only_when_ns2() -> None:
    """``run.event_clock`` at "exact" (the default) leaves the run's dict, TOML and hash as
    they were before the field; "ns2" is kept, round-trips and makes another run; anything
    else is refused naming the field and the choices."""
    s = Scenario()
    assert s.run.event_clock == "exact" and "event_clock" not in s.to_dict()["run"]
    assert "event_clock" not in s.to_toml()
    assert s.replace(**{"run.event_clock": "exact"}).hash == s.hash
    t = s.replace(**{"run.event_clock": "ns2"})
    assert t.to_dict()["run"]["event_clock"] == "ns2" and t.hash != s.hash
    assert Scenario.from_toml(t.to_toml()) == t
    bad({"run": {"event_clock": "ns3"}}, r"run\.event_clock = 'ns3' .*one of exact, ns2")


def test_pentikousis_example_has_ns2_event_clock() -> None:
    """Pentikousis' downloads (the ECN study's base) run on ns-2.35's event clock."""
    root = Path(__file__).resolve().parents[2]
    s = Scenario.load(root / "examples" / "pentikousis_ecn_5clients.toml")
    assert s.run.event_clock == "ns2"


def test_save_and_load(tmp_path: Path) -> None:
    s = red_dumbbell_scenario()
    for name in ("s.toml", "s.json"):
        path = s.save(tmp_path / name)
        assert Scenario.load(path) == s
    assert (tmp_path / "s.toml").read_text().startswith('name = "red-dumbbell"')
    assert json.loads((tmp_path / "s.json").read_text())["name"] == "red-dumbbell"
    with pytest.raises(ScenarioError, match=r"\.toml or \.json"):
        s.save(tmp_path / "s.yaml")


# --- identity --------------------------------------------------------------------------------


def test_hash_is_stable_and_sensitive() -> None:
    s = red_dumbbell_scenario()
    assert len(s.hash) == 16 and int(s.hash, 16) >= 0
    assert s.hash == red_dumbbell_scenario().hash
    assert s.key == f"{s.hash}-s7-r2"
    assert s.replace(**{"run.seed": 99, "run.run": 5}).hash == s.hash
    assert s.replace(**{"run.seed": 99}).key != s.key
    assert s.replace(description="other prose").hash == s.hash  # prose is not the run
    for change in (
        {"topology.forward_queue.max_p": 0.06},
        {"tcp.mss": 1460},
        {"traffic[1].start": "11s"},
        {"run.duration": "61s"},
        {"name": "other"},
    ):
        assert s.replace(**change).hash != s.hash, change
    assert hash(s) == hash(red_dumbbell_scenario())


def test_hash_stable_across_processes() -> None:
    code = (
        "from aqmlab.scenario import Scenario, Dumbbell, Red;"
        "print(Scenario(topology=Dumbbell(forward_queue=Red())).hash)"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "123", "PYTHONPATH": str(root)},
    )
    assert out.stdout.strip() == Scenario(topology=Dumbbell(forward_queue=Red())).hash


# --- replace ---------------------------------------------------------------------------------


def test_replace_dotted_paths() -> None:
    s = Scenario(topology=Dumbbell(forward_queue=Red()), traffic=[Bulk(), Transfers()])
    r = s.replace(
        **{
            "topology.forward_queue.min_th": 10,
            "tcp.variant": "sack",
            "traffic[0].flows": 50,
            "run.seed": 3,
        }
    )
    assert r.topology.forward_queue.min_th == 10.0
    assert r.tcp.variant == "sack" and r.traffic[0].flows == 50 and r.run.seed == 3
    assert r.traffic[1] == Transfers()
    assert s.tcp.variant == "reno" and s.traffic[0].flows == 1  # original untouched


def test_replace_whole_subtrees_kind_changes_and_new_keys() -> None:
    s = Scenario()
    r = s.replace(**{"topology.forward_queue": Pie(target="10ms"), "name": "pie"})
    assert r.topology.forward_queue == Pie(target="10ms") and r.name == "pie"
    r = s.replace(**{"topology.forward_queue.kind": "red", "topology.forward_queue.max_p": 0.2})
    assert r.topology.forward_queue == Red(max_p=0.2)
    r = s.replace(**{"traffic[0].tcp.ecn": True})  # tcp overrides start as None
    assert r.traffic[0].tcp == {"ecn": True}
    r = s.replace(traffic=[Bulk(flows=2), {"kind": "transfers", "count": 2}])
    assert r.n_flows == 4


def test_replace_list_element_in_nested_list() -> None:
    s = parking_lot_scenario()
    r = s.replace(**{"topology.links[1].rate": "2Mbps", "topology.queues[2].forward.flows": 8})
    assert r.topology.hop_link(1).rate_bps == 2_000_000
    assert r.topology.hop_queues(2)[0] == FqCoDel(flows=8)


@pytest.mark.parametrize(
    ("path", "match"),
    [
        ("topolgy.senders", r"^topolgy = .*unknown field path"),
        ("topology.bottleneck.speed", r"^topology\.bottleneck\.speed .*unknown key"),
        ("traffic[3].flows", r"^traffic\[3\] = .*out of range"),
        ("tcp[0]", r"^tcp\[0\] .*out of range"),
        ("traffic[0]..flows", r"not a dotted field path"),
        ("topology.forward_queue.min_th", r"^topology\.forward_queue\.min_th .*unknown key"),
        ("run.seed.x", r"^run\.seed\.x .*unknown field path"),
    ],
)
def test_replace_unknown_paths(path: str, match: str) -> None:
    with pytest.raises(ScenarioError, match=match):
        Scenario().replace(**{path: 1})


def test_replace_validates() -> None:
    with pytest.raises(ScenarioError, match=r"^traffic\[0\]\.flows = 0"):
        Scenario().replace(**{"traffic[0].flows": 0})


# --- isolation from ns-3 ---------------------------------------------------------------------


def test_import_does_not_load_ns3() -> None:
    code = (
        "import sys, aqmlab.scenario, aqmlab.units;"
        "bad = [m for m in sys.modules if m in ('ns', 'cppyy') or m.startswith(('ns.', 'cppyy.'))];"
        "print(bad)"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(root)},
    )
    assert out.stdout.strip() == "[]"
