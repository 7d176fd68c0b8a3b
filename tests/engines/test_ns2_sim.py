"""Bulk flows and transfers on ns-2.35: checks of the ns-2 side that could fail.

Measured values (Debian ns-2.35) are in the docstrings; tolerances are not tuned to them.
"""

from __future__ import annotations

import numpy as np
import pytest

from aqmlab.engines import ns2
from aqmlab.engines.ns2 import parse, runner
from aqmlab.errors import SimulationCrashed, SimulationTimeout
from aqmlab.scenario import (
    Bulk,
    DropTail,
    Dumbbell,
    Link,
    ParkingLot,
    Red,
    RunControl,
    Scenario,
    Tcp,
    Transfers,
)
from tests.engines.ns2run import run

pytestmark = [pytest.mark.ns2,
              pytest.mark.skipif(not ns2.available(), reason="ns-2 (`ns`) is not installed")]


def dumbbell(queue, flows: int, tcp: Tcp | None = None, duration: str = "30s",
             warmup: str = "5s", rate: str = "10Mbps", delay: str = "20ms") -> Scenario:
    return Scenario(
        name="ns2-bulk",
        topology=Dumbbell(senders=flows, receivers=1, bottleneck=Link(rate=rate, delay=delay),
                          access=Link(rate="100Mbps", delay="1ms"), forward_queue=queue),
        tcp=tcp or Tcp(), traffic=[Bulk(flows=flows, start_spread="1s")],
        run=RunControl(duration=duration, warmup=warmup, sample_interval="100ms"))


def test_packets_are_conserved_at_every_probed_queue(tmp_path):
    """Arrivals = departures + drops + waiting packets, at the warm-up snapshot and at the
    end, for a RED bottleneck with early and forced drops and its reverse queue; every
    drop the monitor counts is in the drop trace; every packet 0 (resends included: no
    data packets in the tables) and data segment the senders sent reached the bottleneck, but those still on an access link at the end
    (no warm-up here, no access losses)."""
    sc = dumbbell(Red(limit="40p", min_th=5, max_th=15, w_q=0.01), flows=20, warmup="0s")
    sc = sc.replace(**{"run.warmup": "0s"})
    res = run(sc, workdir=tmp_path, keep=True)
    rows = parse.read_rows(tmp_path / "queues.txt", 14)
    for phase, p, arr, dep, drops, _ed, _mk, *_b, _a1, _a2, pkts, _sz, _bd in rows:
        assert arr == dep + drops + pkts, (phase, p)
    q = res.queues.iloc[0]
    assert q.drops > 100 and q.unforced_drops > 0
    trace = parse.read_trace(tmp_path / "drops.tr")
    assert len(trace) == int(res.queues.drops.sum())
    resent_syn = parse.read_syn_retries(tmp_path, len(res.flows), None)[0]
    in_flight = int((res.flows.data_packets_sent + 1 + resent_syn).sum()) - int(q.arrivals)
    assert 0 <= in_flight <= 20  # 1 ms at 100 Mb/s holds 12 packets per access link


def test_one_uncongested_reno_flow_fills_the_link():
    """One Reno flow whose window (200 segments) fits in BDP + buffer never loses a packet
    and, after the warm-up, uses the whole 10 Mb/s: goodput = C x 1000/1040 (ns-2 adds a
    40-byte header). Measured: 9.6154 Mb/s, utilisation 1.0000, no drops."""
    res = run(dumbbell(DropTail(limit="1000p"), flows=1, tcp=Tcp(rcv_window="200kB")))
    s = res.summary.iloc[0]
    assert s.drops == 0 and s.timeouts == 0
    assert s.utilisation == pytest.approx(1.0, abs=0.005)
    assert s.goodput_mbps == pytest.approx(10 * 1000 / 1040, rel=0.005)


def slow_start_time(w0: int, d: float, packets: int, c: float = 10e6, ca: float = 100e6,
                    size: int = 1040) -> float:
    """Completion of a loss-free transfer: one round for packet 0 (ns-2's SYN model,
    ``syn_``), slow start from w0 doubling per RTT until the window covers the pipe, then
    the rest at the bottleneck rate, plus the last packet's one-way trip. Access links
    1 ms each way; serialisations of data (size B) and ACKs (40 B) included."""
    tau = size * 8 / c
    rtt = 2 * (d + 0.002) + tau + 2 * size * 8 / ca + 3 * 40 * 8 / ca + 40 * 8 / c
    syn = 2 * (d + 0.002) + 4 * 40 * 8 / ca + 2 * 40 * 8 / c
    rounds, window, sent = 0, w0, 0
    while window < rtt / tau:
        sent, window, rounds = sent + window, window * 2, rounds + 1
    return syn + rounds * rtt + (packets + 1 - sent) * tau + d + 0.002 + 2 * size * 8 / ca


@pytest.mark.parametrize("w0,delay", [(2, "20ms"), (4, "50ms")])
def test_transfer_completes_at_the_slow_start_time(w0, delay):
    """1 MB (1000 segments) over 10 Mb/s: the completion time follows slow start from
    windowInit_ after the SYN round. Measured 1.0718 s (model 1.0727) and 1.4103 s (model
    1.4111); an initial window of 2 vs 4 moves it by 4-7 %. Tolerance 1 %."""
    sc = Scenario(
        name="ns2-transfer",
        topology=Dumbbell(senders=1, bottleneck=Link(rate="10Mbps", delay=delay),
                          access=Link(rate="100Mbps", delay="1ms"),
                          forward_queue=DropTail(limit="1000p")),
        tcp=Tcp(initial_cwnd=w0), traffic=[Transfers(count=1, size=1_000_000)],
        run=RunControl(duration="60s", sample_interval=None))
    res = run(sc)
    f = res.flows.iloc[0]
    assert f.completed and f.bytes_delivered == 1_000_000
    assert res.summary.iloc[0].end_s == pytest.approx(f.completion_time_s)  # stop_when_done
    expected = slow_start_time(w0, float(delay[:-2]) / 1000, 1000)
    assert f.completion_time_s == pytest.approx(expected, rel=0.01)


def qiu(conn: int, buffer: int) -> Scenario:
    """Qiu et al.'s T1 setting (as tests/sim/test_validation.py runs it on ns-3)."""
    return Scenario(
        name=f"qiu-{conn}-{buffer}",
        topology=Dumbbell(senders=conn, receivers=1, rate_scale=1.004,
                          bottleneck=Link(rate="1.544Mbps", delay="50ms"),
                          access=Link(rate="10Mbps", delay="0.1ms"),
                          forward_queue=DropTail(limit=f"{buffer}p")),
        tcp=Tcp(variant="reno", mss=460, initial_cwnd=1, min_rto="1s",
                clock_granularity="100ms", limited_transmit=False),
        traffic=[Bulk(flows=conn, start_spread="1s")],
        run=RunControl(duration="200s", warmup="20s", sample_interval=None))


def test_qiu_synchronised_loss_at_10_flows():
    """Qiu, Zhang & Keshav §3.1 on their own simulator: 10 Reno flows, B = 6 Conn = 60,
    W = (40 + 60) / 10 = 10, P = 8 / (3W^2 + 21W + 8) = 1.54 %; losses recovered by fast
    retransmit, link full. Measured on ns-2.35: 1.59 %, 0 timeouts. Within 30 % (the
    formula's own approximation, as for ns-3)."""
    s = run(qiu(10, 60)).summary.iloc[0]
    w = 10.0
    assert s.loss_rate == pytest.approx(8 / (3 * w * w + 21 * w + 8), rel=0.30)
    assert s.timeouts <= 0.05 * s.drops
    assert s.utilisation > 0.97


def test_ecn_flows_are_marked_not_dropped_and_react():
    """ECN Reno over RED (10 flows, min_th 10, max_th 30): the average stays below max_th,
    so ECN-capable data are marked, not dropped; each flow's marks come from the dequeue
    trace and add up to the queue's; senders cut their windows on the echoes. Measured:
    0 drops, 677 marks, 630 ECN reductions."""
    sc = dumbbell(Red(limit="100p", min_th=10, max_th=30, ecn=True), flows=10,
                  tcp=Tcp(ecn=True))
    res = run(sc)
    q = res.queues.iloc[0]
    assert q.marks > 100 and q.drops == 0
    assert int(res.flows.marks.sum()) == int(q.marks)
    assert res.flows.ecn_reductions.sum() > 0.5 * q.marks / 10


def test_parking_lot_routes_cross_traffic_over_one_hop_only():
    """Cross flows of hop h enter at router h and leave at h+1: hop 0's queue sees the
    e2e and cross:0 packets (but those still on an access link at the end), hop 1's the
    e2e packets hop 0 did not drop and the cross:1 ones, never cross:0's."""
    sc = Scenario(name="pl", topology=ParkingLot(routers=3, senders=2, cross_senders=2),
                  traffic=[Bulk(flows=2), Bulk(path="cross:0", flows=2),
                           Bulk(path="cross:1", flows=2)],
                  run=RunControl(duration="10s", sample_interval=None))
    res = run(sc)
    sent = res.flows.groupby("group").data_packets_sent.sum() + 2
    q = res.queues.set_index("queue")
    assert sent.min() > 500
    assert 0 <= sent[0] + sent[1] - q.loc["R0->R1"].arrivals <= 20
    lost_before = q.loc["R0->R1"].drops
    assert 0 <= sent[0] + sent[2] - q.loc["R1->R2"].arrivals <= lost_before + 40


def test_crash_and_timeout_are_reported_with_the_script(tmp_path):
    """A failing script raises SimulationCrashed with ns's message; an overrun run
    raises SimulationTimeout; both name the kept script."""
    bad = tmp_path / "bad.tcl"
    bad.write_text("set ns [new Simulator]\nno_such_command 1\n")
    with pytest.raises(SimulationCrashed, match="no_such_command") as err:
        runner.run_ns(bad, tmp_path)
    assert str(bad) in str(err.value)
    slow = tmp_path / "slow.tcl"
    slow.write_text("while 1 {}\n")
    with pytest.raises(SimulationTimeout, match="slow.tcl"):
        runner.run_ns(slow, tmp_path, timeout=0.5)


def test_series_and_snapshot_columns():
    """Samples every 100 ms from 0 (the queue in packets and bytes, RED's average), and
    the measured interval from the warm-up to the end."""
    res = run(dumbbell(Red(limit="60p", min_th=5, max_th=20), flows=5, duration="3s",
                       warmup="1s"))
    ts = res.queue_ts[res.queue_ts.queue == "R0->R1"]
    assert np.allclose(ts.time_s.to_numpy()[:5], [0, 0.1, 0.2, 0.3, 0.4])
    assert len(ts) == 30
    assert (ts.red_avg_pkts > 0).any() and (ts.qlen_bytes >= ts.qlen_pkts * 40).all()
    assert res.summary.iloc[0].measured_s == pytest.approx(2.0)
