"""Spec -> ns-3 attribute mapping: the ns-2 semantics are set explicitly."""

from __future__ import annotations

import pytest

from aqmlab.scenario import Ared, CoDel, DropTail, FqCoDel, Pie, Red, Tcp


def queue_config(q, rate_bps, delay_s):
    """The ns-3 queue disc a queue kind maps to (its ``ns3`` method)."""
    return q.ns3(rate_bps, delay_s)


def attrs(cfg):
    return dict(cfg.attributes)


def test_droptail_limit_uses_ns2_accounting():
    cfg = queue_config(DropTail(limit="39p"), 1.5e6, 0.02)
    assert cfg.type_id == "ns3::FifoQueueDisc"
    assert attrs(cfg)["MaxSize"] == "37p"  # + 1 in the device queue + 1 in transmission


def test_red_packet_mode_sets_every_ns2_parameter():
    cfg = queue_config(Red(limit="200p", min_th=30, max_th=90, max_p=0.1, w_q=0.002), 10e6, 0.02)
    a = attrs(cfg)
    # ns-2's REDQueue holds `limit` waiting packets; one of them is in ns-3's device queue:
    # disc limit - 1. With ns-2's measure ("waiting", the default) the child averages disc
    # + device queue and takes ns-2's thresholds; measuring the disc alone ("disc"), they
    # are one packet lower.
    assert a["MaxSize"] == "199p"
    assert float(a["MinTh"]) == 30 and float(a["MaxTh"]) == 90
    d = attrs(queue_config(Red(limit="200p", min_th=30, max_th=90, measured_queue="disc", forced_region="drop"),
                           10e6, 0.02))
    assert float(d["MinTh"]) == 29 and float(d["MaxTh"]) == 89 and d["MaxSize"] == "199p"
    assert float(a["LInterm"]) == pytest.approx(10)  # max_p = 1 / LInterm
    assert float(a["QW"]) == 0.002
    assert a["LinkBandwidth"] == "10000000bps" and a["LinkDelay"] == "20000000ns"
    assert a["ARED"] == "false" and a["UseEcn"] == "false" and a["Gentle"] == "true"
    assert cfg.red_wq == 0.002 and cfg.red_ptc == pytest.approx(10e6 / 8 / 500)


def test_red_byte_mode_scales_thresholds_by_mean_packet_size():
    a = attrs(queue_config(Red(limit="100p", min_th=5, max_th=15, mode="byte",
                               mean_pkt_size=1000), 10e6, 0.01))
    assert a["MaxSize"] == "99000B"
    assert float(a["MinTh"]) == 5000 and float(a["MaxTh"]) == 15000


def test_ared_works_around_the_bottom_bug_and_keeps_explicit_thresholds():
    a = attrs(queue_config(Ared(limit="370p", target_delay="5ms", mean_pkt_size=1250), 10e6, 0))
    assert float(a["Bottom"]) == pytest.approx(0.008)  # ns-2: min(0.01, 80000 / bw)
    assert float(a["MinTh"]) == 5 and float(a["MaxTh"]) == 15  # 5 ms at 1000 pkts/s
    assert a["MaxSize"] == "369p"
    assert float(a["QW"]) == pytest.approx(0.0009995, rel=1e-3)
    assert a["ARED"] == "false" and a["AdaptMaxP"] == "true"
    a60 = attrs(queue_config(Ared(limit="370p", target_delay="60ms", mean_pkt_size=1250), 10e6, 0))
    assert float(a60["MinTh"]) == 30 and float(a60["MaxTh"]) == 90


def test_ared_byte_mode_scales_limit_and_thresholds_and_keeps_packet_hashes():
    a = attrs(queue_config(Ared(limit="340p", mean_pkt_size=1250, mode="byte"), 10e6, 0))
    assert a["MaxSize"] == f"{339 * 1250}B"  # the unit selects ns-3's byte mode
    assert float(a["MinTh"]) == 5 * 1250 and float(a["MaxTh"]) == 15 * 1250
    assert float(a["Bottom"]) == pytest.approx(0.008) and a["AdaptMaxP"] == "true"
    # the default is left out of the dict, so scenarios stored before `mode` keep their hash
    assert "mode" not in Ared().to_dict() and Ared(mode="byte").to_dict()["mode"] == "byte"


def test_red_threshold_below_one_packet_maps_to_zero():
    a = attrs(queue_config(Red(limit="4p", min_th=0.5, max_th=3.75, max_p=0.1,
                               measured_queue="disc", forced_region="drop"), 1.5e6, 0.02))
    assert a["MaxSize"] == "3p"
    assert float(a["MinTh"]) == 0 and float(a["MaxTh"]) == 2.75


@pytest.mark.parametrize("spec,type_id", [
    (CoDel(), "ns3::CoDelQueueDisc"),
    (FqCoDel(), "ns3::FqCoDelQueueDisc"),
    (Pie(), "ns3::PieQueueDisc"),
])
def test_modern_aqms_map_to_their_ns3_types(spec, type_id):
    assert queue_config(spec, 10e6, 0.01).type_id == type_id


def test_tcp_defaults_are_ns2_like():
    cfg = Tcp().ns3()
    a = attrs(cfg)
    assert cfg.congestion == "aqmlab::TcpNs2NewReno" and cfg.reno  # ca_increase "exact"
    assert cfg.recovery == "ns3::TcpClassicRecovery"
    assert a["SegmentSize"] == "1000" and a["InitialCwnd"] == "2"
    assert a["DelAckCount"] == "1" and a["Timestamp"] == "false" and a["Sack"] == "false"
    assert a["MinRto"] == "200000000ns" and a["ClockGranularity"] == "10000000ns"
    assert a["UseEcn"] == "Off"


@pytest.mark.parametrize("variant,cc,sack", [
    ("sack", "aqmlab::TcpNs2NewReno", "true"), ("newreno", "aqmlab::TcpNs2NewReno", "false"),
    ("cubic", "ns3::TcpCubic", "true"), ("bbr", "ns3::TcpBbr", "true"),
])
def test_tcp_variants(variant, cc, sack):
    cfg = Tcp(variant=variant).ns3()
    assert cfg.congestion == cc and attrs(cfg)["Sack"] == sack and not cfg.reno
