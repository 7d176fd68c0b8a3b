"""The cost model: expected CPU-seconds of a run, from its scenario alone.

Sweeps start the runs longest-expected-first with it (scaled by the measured times of the
same scenarios when the store has them), ``aqmlab figures`` prefetches in its order, and
``aqmlab figures --dry-run`` sums it into CPU-hours per study. Its constants were fitted to
runs on this machine class; ``--dry-run`` prints measured against modelled CPU for the
runs already stored, so the model can be judged (and refitted) on another machine.
"""

from __future__ import annotations

from aqmlab import engines
from aqmlab.kinds.traffic.mah import MAH_PER_MBPS
from aqmlab.kinds.traffic.packmime import BITS_PER_WEB_CONNECTION, PACKMIME_PER_CONNECTION
from aqmlab.scenario import Scenario
from aqmlab.scenario.limits import HEADER_BYTES

__all__ = ["BULK_PER_SEGMENT", "MAH_PER_MBPS", "OVERLOAD", "PACKMIME_PER_CONNECTION",
           "PER_FLOW", "cost_of_terms", "estimate_cost", "ns3_cpu_terms", "web_load"]

#: CPU-s per TCP segment (data or ACK) a full bulk-traffic bottleneck carries, and per flow
#: per simulated second.
BULK_PER_SEGMENT = 1.4e-5
PER_FLOW = 7e-6
#: (knee, slope): web traffic offered above ``knee`` of the bottleneck costs ``1 + slope *
#: (load - knee)`` times as much per connection (PackMime's connection rate in 80-kbit
#: connections against the narrowest bottleneck link; Weigle's calibrated 105 % is 1.007,
#: 1.8x as measured on full-profile runs, 90 % 0.86).
OVERLOAD = (0.9, 7.5)


def estimate_cost(scenario: Scenario) -> float:
    """Expected CPU-seconds of a run on this machine class (2-core KVM, ns-3.44 wheel, two
    workers on mimalloc, aqmlab's speed-ups on), used to order runs longest-first and to
    estimate CPU-hours. Three terms per simulated second (``aqmlab figures --dry-run``
    prints measured against modelled CPU for stored runs, ``bench/cost_residuals.py`` per
    configuration):

    * **web**: each web traffic kind's own ``cpu_per_s`` (PackMime per connection/s offered,
      Mah's users per Mb/s offered, a quarter more per extra hop of a parking lot), times
      the overload factor (:data:`OVERLOAD`);
    * **link**: bulk flows, :data:`BULK_PER_SEGMENT` per TCP segment (data and ACKs) that
      the full bottleneck carries, on every hop of a parking lot (an uncongested link as if
      10 Mb/s);
    * **flows**: :data:`PER_FLOW` per flow (Qiu's T1 from 1 to 1000 flows; before the
      socket tables and route indexes, ns-3's per-socket and per-interface scans made it
      2e-4).

    Refitted on 2026-11-29 (aqmlab 0.8.32) to 23 full-profile runs drawn at random and run
    one at a time on a quiet machine (``bench/cost_sample.py``, seed 31; bench/README.md,
    "The cost model refitted"), on the Intel Xeon VM. The same binaries run about 1.6x
    faster on the AMD EPYC VM this machine class also is (ns-2.35's web-dt148, 480 s:
    20.3 CPU-s there, 32.7 here), so on such a day the model over-predicts by that much.
    The 2026-11-25 fit (on the AMD VM) had become 1.4-2x low for PackMime and bulk runs,
    1.1x high for Mah's. PackMime at 105 % of a drop-tail or ARED bottleneck, run to
    500,000 responses (~2,100 s), took 1.75-1.89x the linear web term (2026-11-25);
    400-s runs at 90/100/105 % differed by only 7-9 % per connection, so the excess builds
    up during a long overloaded run (connections and sockets piling up). :data:`OVERLOAD`
    is fitted to those 105 % runs; between the knee and 105 % it is interpolated, and
    long runs at Weigle's 95 % took 1.2-1.4x more than it gives. What stays over-predicted
    is the constant second per run of very short bulk runs (ns-3 ``Run`` of 1-3 CPU-s): it
    stands for a worker's per-run set-up and tables, which ``run_cpu_s`` leaves out.

    A run with ``stop_after_responses`` ends about when the web groups' connection rates
    complete that many responses after the warm-up; one with ``stop_when_done`` when its
    transfers could have crossed the link at 1/1.2 of its rate. The bottleneck queue scales
    the terms by its kind's ``COST`` (the costliest forward queue of a parking lot). A run
    on another engine scales each term by its engine's ``RELATIVE_COST`` (ns-2.35 against
    ns-3, measured side by side)."""
    return cost_of_terms(scenario, ns3_cpu_terms(scenario))


def cost_of_terms(scenario: Scenario, terms: dict[str, float]) -> float:
    """:func:`estimate_cost` from the run's :func:`ns3_cpu_terms`, for callers that keep
    the terms too (``bench/cost_residuals.py``)."""
    factor = max(q.COST for q in scenario.topology.bottleneck_queues())
    relative = engines.get(scenario.run.engine).RELATIVE_COST
    return 1.0 + factor * sum(cpu * relative[term] for term, cpu in terms.items())


def ns3_cpu_terms(scenario: Scenario) -> dict[str, float]:
    """The model's CPU-seconds of a run on ns-3, per term (``"web"``, ``"link"``,
    ``"flows"``; see :func:`estimate_cost`), before the bottleneck queue's ``COST`` factor,
    the engine's ``RELATIVE_COST`` and the constant second: what a refit of the model
    regresses measured CPU on. ``scenario`` is resolved first (PackMime rates from their
    calibration tables)."""
    scenario = scenario.resolve()
    topo = scenario.topology
    groups = scenario.traffic
    own = [c for g in groups if (c := g.cpu_per_s(topo.hops_factor)) is not None]
    knee, slope = OVERLOAD
    overload = 1.0 + slope * max(0.0, web_load(scenario) - knee)
    duration = scenario.run.duration_s
    rate = sum(g.connection_rate for g in groups)
    if scenario.run.stop_after_responses and rate > 0:
        duration = min(duration, scenario.run.warmup_s + scenario.run.stop_after_responses / rate)
    finite = [g.finite_bytes() for g in groups]
    if scenario.run.stop_when_done and all(b is not None for b in finite):
        total = sum(b for b in finite if b is not None)  # ends when the last one completes
        duration = min(duration, 1.2 * total * 8 / topo.bottleneck_rate_bps)
    link = 0.0 if own else BULK_PER_SEGMENT * _segments_per_s(scenario)
    return {"web": duration * sum(own) * overload, "link": duration * link,
            "flows": duration * PER_FLOW * scenario.n_flows}


def web_load(scenario: Scenario) -> float:
    """The largest web traffic group's offered load on the narrowest bottleneck link, for
    the cost model: its connection rate in 80-kbit connections against the link's rate
    (0 without web traffic). ``scenario`` resolved."""
    rate = scenario.topology.bottleneck_rate_bps
    return max((g.connection_rate * BITS_PER_WEB_CONNECTION / rate for g in scenario.traffic),
               default=0.0)


def _segments_per_s(scenario: Scenario) -> float:
    """TCP segments per second that bulk flows filling the bottleneck(s) carry: full-sized
    data segments and their ACKs (one per two segments with delayed ACKs), on every hop
    of a parking lot (each is full). An uncongested link (over 20 Mb/s) counts as 10 Mb/s."""
    topo = scenario.topology
    bps = topo.bottleneck_rate_bps * float(getattr(topo, "rate_scale", 1.0))
    bps = 10e6 if bps > 20e6 else bps
    tcp = scenario.tcp_for(0) if scenario.traffic else scenario.tcp
    data = bps / (8 * (tcp.mss + HEADER_BYTES))
    return data * (1.5 if tcp.delayed_ack else 2.0) * len(topo.bottleneck_queues())
