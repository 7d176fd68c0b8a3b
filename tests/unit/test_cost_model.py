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
    connection rate and the number of users (measured side by side on 2026-11-25, speed-ups
    on: two-way PackMime at 107 connections/s each way, 480 s, 22.5 CPU-s through drop-tail
    148 and 25.5 uncongested), more per connection when they overload the link
    (bench/cost_sample.py: 1.75-1.89x at 105 % in full-profile runs)."""
    from aqmlab.campaign import cost
    w = example("weigle_droptail_80").replace(**{"run.duration": "1000s"})
    fast = w.replace(**{"topology.bottleneck.rate": "100Mbps"})
    assert estimate_cost(fast) == estimate_cost(w)
    over = w.replace(**{"traffic[0].load": 1.05, "traffic[1].load": 1.05})
    ratio = sum(g.rate for g in over.traffic) / sum(g.rate for g in w.traffic)
    assert ratio > 1.25  # the calibrated rates, not the label
    knee, slope = cost.OVERLOAD  # 105 % of the link: the measured overload factor (~1.8)
    load = over.traffic[0].rate * cost.BITS_PER_WEB_CONNECTION / 10e6
    assert 1.7 < 1 + slope * (load - knee) < 1.9
    assert (estimate_cost(over) - 1) == pytest.approx(
        ratio * (1 + slope * (load - knee)) * (estimate_cost(w) - 1))
    fast_over = over.replace(**{"topology.bottleneck.rate": "100Mbps"})  # not overloaded
    assert (estimate_cost(fast_over) - 1) == pytest.approx(ratio * (estimate_cost(w) - 1))
    web = example("weigle_droptail_80").replace(**{"run.duration": "480s"})
    at107 = web.replace(**{k: v for i in range(2) for k, v in (
        (f"traffic[{i}].rate", 107.0), (f"traffic[{i}].load", None),
        (f"traffic[{i}].calibration", None))})
    assert 22.5 / 1.5 < estimate_cost(at107) < 25.5 * 1.5
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
    """The same scenario on ns-2.35 is costed term by term at ns-2's measured CPU relative
    to ns-3's: web traffic by the web factor, bulk flows by the link and per-flow factors."""
    from aqmlab.engines import ns2

    web = example("weigle_droptail_80")
    f = ns2.RELATIVE_COST
    assert estimate_cost(web.replace(**{"run.engine": "ns2"})) - 1 == pytest.approx(
        f["web"] * (estimate_cost(web) - 1))
    few, many = (example("parking_lot").replace(**{"traffic[0].flows": n}) for n in (10, 1010))
    d3 = estimate_cost(many) - estimate_cost(few)
    d2 = (estimate_cost(many.replace(**{"run.engine": "ns2"}))
          - estimate_cost(few.replace(**{"run.engine": "ns2"})))
    assert d3 > 0 and d2 == pytest.approx(f["flows"] * d3)
    assert estimate_cost(few.replace(**{"run.engine": "ns2"})) < estimate_cost(few)


def test_a_bulk_link_costs_the_segments_it_carries():
    """Bulk flows cost per TCP segment (data and ACKs) of a full bottleneck, not per Mb/s:
    Pentikousis' 1.5 Mb/s with 1460-byte segments and delayed ACKs carries ~4x fewer than
    Qiu's T1 with 460-byte segments and an ACK each (measured: ecn_bulk ran at ~0.27x a
    per-Mb/s model, bench/cost_sample.py); a parking lot's every hop is full."""
    from aqmlab.campaign import cost

    qiu, pent = example("qiu_t1_dumbbell"), example("pentikousis_ecn_5clients")
    per_s = {k: cost.ns3_cpu_terms(sc)["link"] / sc.run.duration_s
             for k, sc in (("qiu", qiu), ("pent", pent.replace(**{"run.stop_when_done": False})))}
    segs = {"qiu": 1.544e6 * 1.004 / (8 * 500) * 2, "pent": 1.5e6 * 1.028767 / (8 * 1500) * 1.5}
    for k in per_s:
        assert per_s[k] == pytest.approx(cost.BULK_PER_SEGMENT * segs[k])
    assert 3.5 < per_s["qiu"] / per_s["pent"] < 4.5
    lot = example("parking_lot")
    one = cost.ns3_cpu_terms(lot)["link"]
    assert one == pytest.approx(lot.topology.hops * cost.BULK_PER_SEGMENT * lot.run.duration_s
                                * 10e6 / (8 * (lot.tcp.mss + 40)) * 2)


def test_web_load_is_the_offered_load_the_overload_factor_reads():
    """``web_load``: PackMime's calibrated connection rate in 80-kbit connections against
    the bottleneck (Weigle's 105 % label is ~1.0 of the link by this measure), 0 for bulk
    traffic; the overload factor charges exactly the excess over its knee."""
    from aqmlab.campaign import cost
    w = example("weigle_droptail_80").replace(**{"traffic[0].load": 1.05,
                                                  "traffic[1].load": 1.05}).resolve()
    load = cost.web_load(w)
    assert load == pytest.approx(w.traffic[0].rate * cost.BITS_PER_WEB_CONNECTION / 10e6)
    assert 0.95 < load < 1.1
    assert cost.web_load(example("pentikousis_ecn_5clients").resolve()) == 0.0
    knee, slope = cost.OVERLOAD
    base = w.replace(**{"topology.bottleneck.rate": "100Mbps"})  # the same traffic, no overload
    assert cost.ns3_cpu_terms(w)["web"] == pytest.approx(
        cost.ns3_cpu_terms(base)["web"] * (1 + slope * (load - knee)))
