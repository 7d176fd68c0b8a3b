"""The cost model (aqmlab/campaign/cost.py): expected CPU-seconds of a run from its scenario."""

from __future__ import annotations

import pytest

from aqmlab.campaign import estimate_cost
from aqmlab.scenario import QUEUES
from aqmlab.studies.common import example


def test_cost_model_orders_web_above_bulk():
    web = example("weigle_droptail_80")
    bulk = example("pentikousis_ecn_5clients")
    assert estimate_cost(web) > estimate_cost(bulk) > 1.0
    assert estimate_cost(bulk) < 60  # ends when the transfers complete, not at run.duration


def test_cost_model_ends_a_web_run_at_its_response_count():
    """A run with stop_after_responses costs the simulated time its web groups need to
    complete that many responses after the warm-up (the Vembar runs end within 1 % of it)."""
    from aqmlab.scenario import PackMime
    long = example("weigle_droptail_80").replace(**{"run.duration": "2400s",
                                                     "run.warmup": "120s"})
    rate = sum(g.rate for g in long.traffic if isinstance(g, PackMime))
    n = int(500 * rate)
    stop = long.replace(**{"run.stop_after_responses": n})
    assert (estimate_cost(stop) - 1) / (estimate_cost(long) - 1) == pytest.approx((120 + n / rate) / 2400)
    never = long.replace(**{"run.stop_after_responses": int(1e9)})
    assert estimate_cost(never) == estimate_cost(long)  # the duration still bounds it


def test_cost_model_charges_web_runs_by_the_traffic_offered_not_the_link():
    """PackMime and Mah runs cost what their connections or users offer: the same on a
    10 Mb/s bottleneck as on the 100 Mb/s uncongested reference, in proportion to the
    connection rate and the number of users (measured: 463 and 480 CPU-s for the uncongested 80/105 % Weigle runs, 2,728 and
    2,105 s; 195-640 CPU-s per Christiansen run from 50 to 110 %)."""
    w = example("weigle_droptail_80").replace(**{"run.duration": "1000s"})
    fast = w.replace(**{"topology.bottleneck.rate": "100Mbps"})
    assert estimate_cost(fast) == estimate_cost(w)
    over = w.replace(**{"traffic[0].load": 1.05, "traffic[1].load": 1.05})
    ratio = sum(g.rate for g in over.traffic) / sum(g.rate for g in w.traffic)
    assert ratio > 1.25  # the calibrated rates, not the label
    assert (estimate_cost(over) - 1) == pytest.approx(ratio * (estimate_cost(w) - 1))
    assert 300 < estimate_cost(w.replace(**{"run.duration": "2728s"})) < 650  # measured 463
    mah = example("christiansen_taildrop_90")
    more = mah.replace(**{"traffic[0].users": 2 * mah.traffic[0].users})
    assert (estimate_cost(more) - 1) == pytest.approx(2 * (estimate_cost(mah) - 1))


@pytest.mark.parametrize("kind", list(QUEUES))
def test_cost_model_scales_the_traffic_by_the_bottleneck_queue(kind):
    """Each queue kind's COST (bench/bench_queues.py on the same browsing traffic: ARED and
    CoDel ~1.15x tail-drop's CPU, FQ-CoDel ~1.35x, RED 0.96-1.09x) scales the traffic's
    cost; the constant second of start-up is not."""
    factor = QUEUES[kind].COST
    assert {k: QUEUES[k].COST for k in ("ared", "codel", "fq_codel", "red", "pie")} == {
        "ared": 1.15, "codel": 1.15, "fq_codel": 1.35, "red": 1.0, "pie": 1.0}
    w = example("weigle_droptail_80")
    q = w.replace(**{"topology.forward_queue": {"kind": kind}})
    assert estimate_cost(q) - 1 == pytest.approx(factor * (estimate_cost(w) - 1))


def test_cost_model_charges_a_parking_lot_its_costliest_hop_queue():
    lot = example("parking_lot")
    hop = {"topology.queues": [{}, {"forward": {"kind": "fq_codel"}}]
           + [{}] * (lot.topology.hops - 2)}
    assert estimate_cost(lot.replace(**hop)) - 1 == pytest.approx(1.35 * (estimate_cost(lot) - 1))


def test_a_run_on_ns2_costs_its_engine_s_measured_share():
    """The same scenario on ns-2.35 is costed at ns-2's measured CPU relative to ns-3's, web
    (Full-TCP) and one-way bulk agents each with their own factor."""
    from aqmlab.engines import ns2

    for name, kind in (("weigle_droptail_80", "web"), ("pentikousis_ecn_5clients", "bulk")):
        sc = example(name)
        on_ns2 = sc.replace(**{"run.engine": "ns2"})
        assert estimate_cost(on_ns2) == pytest.approx(
            ns2.RELATIVE_COST[kind] * estimate_cost(sc))
