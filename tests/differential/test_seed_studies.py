"""Each seed study's set-up (Christiansen's browsing users aside: ns-2 has no Mah model) on
both engines with identical settings. Each test checks something about the ns-2.35 side
that could fail, and records the engines' distance (``record``)."""

from __future__ import annotations

import numpy as np
import pytest

from aqmlab.studies import multiple_bottlenecks as vembar
from aqmlab.studies.common import example
from aqmlab.studies.setups.qiu import sync_loss

pytestmark = [pytest.mark.ns3, pytest.mark.ns2]


def test_weigle_two_way_web_responses_take_two_base_rtts(both, record):
    """Weigle's two-way PackMime at 80 % (40 s): every response ns-2 completes takes at
    least two base RTTs (SYN + request/response), as on ns-3, both engines completing the
    same planned connections."""
    sc = example("weigle_droptail_80").replace(**{
        "run.duration": "40s", "run.warmup": "10s", "run.stop_after_responses": None,
        "run.sample_interval": None})
    a, b = both(sc)
    for res in (a, b):
        done = res.requests[res.requests.completed]
        assert len(done) > 1000
        assert (done.response_time_s >= 2 * done.base_rtt_s - 1e-6).all()
    assert len(a.requests) == len(b.requests)  # the same planned connections, opened
    record(a, b)


def test_qiu_ten_flows_lose_as_the_synchronised_loss_formula_says(both, record):
    """Qiu's T1 dumbbell, 10 Reno flows (large pipe): ns-2's loss rate is within 30 % of
    the synchronised-loss law 8 / (3W^2 + 21W + 8), W the per-flow pipe in packets."""
    sc = example("qiu_t1_dumbbell").replace(**{
        "topology.senders": 10, "traffic[0].flows": 10, "run.duration": "120s",
        "run.warmup": "30s", "run.sample_interval": None})
    a, b = both(sc)
    loss = float(b.summary.iloc[0].loss_rate)
    s = b.summary.iloc[0]
    pkt = sc.tcp.mss + 40
    rtt = float(b.flows.base_rtt_s.mean())
    w = (sc.topology.bottleneck.rate_bps * rtt / (8 * pkt)
         + sc.topology.forward_queue.limit_packets(pkt)) / 10
    assert loss == pytest.approx(float(sync_loss(w)), rel=0.3)
    assert s.utilisation > 0.95
    record(a, b, w=round(w, 1))


def test_pentikousis_downloads_complete_and_ecn_marks_replace_drops(both, record):
    """Pentikousis' five downloads (2 MiB each, aggressive RED+ECN, QL 64, classic recovery
    on both engines): on ns-2 all five complete, the link is kept busy (efficiency > 95 %)
    and RED marks more than it drops."""
    sc = example("pentikousis_ecn_5clients").replace(**{
        "traffic[0].size": "2MiB", "tcp.recovery": "classic"})
    a, b = both(sc)
    q = b.queues.iloc[0]
    assert b.flows.completed.all()
    payload = b.flows.total_bytes_delivered.sum() * 8
    assert payload / (1.5e6 * b.flows.completion_time_s.max()) > 0.95
    assert q.marks > q.drops
    record(a, b, ns2_marks=int(q.marks), ns3_marks=int(a.queues.iloc[0].marks))


def test_parking_lot_end_to_end_flows_get_less_than_cross_flows(both, record):
    """The three-hop parking lot (bulk, SACK, drop-tail 100): on ns-2 every hop is busy and
    an end-to-end flow, crossing three congested hops, gets less than a one-hop cross
    flow (the parking-lot bias)."""
    sc = example("parking_lot").replace(**{"run.sample_interval": None})
    a, b = both(sc)
    forward = b.links[b.links.link.isin(["R0->R1", "R1->R2", "R2->R3"])]
    assert len(forward) == 3 and (forward.utilisation > 0.9).all()
    per_flow = b.flows.groupby("group").goodput_mbps.mean()
    assert per_flow[0] < per_flow[1:].min()
    record(a, b, ns2_e2e_over_cross=round(float(per_flow[0] / per_flow[1:].mean()), 3),
           ns3_e2e_over_cross=round(float(a.flows.groupby("group").goodput_mbps.mean()[0]
                                         / a.flows.groupby("group").goodput_mbps.mean()[1:]
                                         .mean()), 3))


def test_packets_are_conserved_at_every_probed_queue_on_ns2(both):
    """Queue accounting on ns-2 is complete: at each probed queue, arrivals after the
    warm-up equal departures plus drops plus the change of the queue length (at most the
    queue's limit), on a congested bulk and web mix."""
    sc = example("weigle_droptail_80").replace(**{
        "run.duration": "20s", "run.warmup": "5s", "run.stop_after_responses": None,
        "traffic[0].load": 1.05, "traffic[1].load": 1.05, "run.sample_interval": None})
    _, b = both(sc)
    for _, q in b.queues.iterrows():
        gap = q.arrivals - q.departures - q.drops
        assert abs(gap) <= 148, q.queue
    assert np.isfinite(b.queues.avg_qlen_pkts).all()


def test_vembar_parking_lot_web_responses_end_at_the_same_time(both, record):
    """Vembar's six-router parking lot (the study's own scenario: two-way PackMime end to end
    and across hops 1 and 3, Reno over drop-tail 340, 75 %, 20 s): with Weigle's links and
    event clock on both engines, every response ends at the same time to the microsecond and
    every router queue counts the same arrivals and drops. (Before the study took them, ns-3
    framed packets with a PPP header and delayed clients on the channel: about every
    response ended apart, by up to seconds.)"""
    sc = vembar.base(20.0, 5.0, None).replace(**{
        **vembar.scheme("reno-dt").changes, "traffic[0].load": 0.75,
        "traffic[1].load": 0.75, "run.sample_interval": None})
    a, b = both(sc)
    assert len(a.requests) == len(b.requests) > 3000
    done = a.requests.completed.to_numpy()
    assert done.sum() > 0.95 * len(done)
    assert (a.requests.completed == b.requests.completed).all()
    assert np.abs(a.requests.end_s[done] - b.requests.end_s[done]).max() < 1e-6
    cols = ["queue", "arrivals", "drops"]
    assert a.queues[cols].sort_values("queue").to_numpy().tolist() == \
        b.queues[cols].sort_values("queue").to_numpy().tolist()
    record(a, b, drops=int(b.queues.drops.sum()))
