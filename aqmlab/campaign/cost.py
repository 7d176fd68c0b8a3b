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
from aqmlab.kinds.traffic.packmime import PACKMIME_PER_CONNECTION
from aqmlab.scenario import Scenario

__all__ = ["BULK_PER_MBPS", "MAH_PER_MBPS", "PACKMIME_PER_CONNECTION", "PER_FLOW", "estimate_cost"]

#: CPU-s per simulated second per Mb/s of a bulk-traffic bottleneck, and per flow.
BULK_PER_MBPS = 0.004
PER_FLOW = 4e-6

def estimate_cost(scenario: Scenario) -> float:
    """Expected CPU-seconds of a run on this machine class (2-core KVM, ns-3.44 wheel, two
    workers on mimalloc, aqmlab's speed-ups on), used to order runs longest-first and to
    estimate CPU-hours. Three terms per simulated second, refitted on 2026-11-25 to the
    side-by-side runs of ``bench/bench_vs_ns2.py`` (the same machine class varies from day
    to day by up to 1.9x; ``aqmlab figures --dry-run`` prints measured against modelled CPU
    for stored runs):

    * **web**: each web traffic kind's own ``cpu_per_s`` (PackMime per connection/s offered,
      Mah's users per Mb/s offered, a quarter more per extra hop of a parking lot);
    * **link**: bulk flows, ``0.004`` per Mb/s of bottleneck (an uncongested one as if 10
      Mb/s), times the topology's hops factor (Qiu's T1 0.0044-0.0057, the bulk parking lot
      0.0051, Pentikousis 0.0015);
    * **flows**: ``4e-6`` per flow (Qiu's T1 from 300 to 1000 flows; before the socket
      tables and route indexes, ns-3's per-socket and per-interface scans made it 2e-4).

    A run with ``stop_after_responses`` ends about when the web groups' connection rates
    complete that many responses after the warm-up; one with ``stop_when_done`` when its
    transfers could have crossed the link at 1/1.2 of its rate. The bottleneck queue scales
    the terms by its kind's ``COST`` (the costliest forward queue of a parking lot); the
    pile-up of sockets in an overloaded AQM run is not modelled. A run on another engine
    scales each term by its engine's ``RELATIVE_COST`` (ns-2.35 against ns-3, measured side
    by side)."""
    factor = max(q.COST for q in scenario.topology.bottleneck_queues())
    relative = engines.get(scenario.run.engine).RELATIVE_COST
    terms = _cost_terms(scenario.resolve())
    return 1.0 + factor * sum(cpu * relative[term] for term, cpu in terms.items())


def _cost_terms(scenario: Scenario) -> dict[str, float]:
    """CPU-seconds of the run's web, link and flow terms on ns-3."""
    topo = scenario.topology
    mbps = topo.bottleneck_rate_bps / 1e6
    groups = scenario.traffic
    own = [c for g in groups if (c := g.cpu_per_s(topo.hops_factor)) is not None]
    duration = scenario.run.duration_s
    rate = sum(g.connection_rate for g in groups)
    if scenario.run.stop_after_responses and rate > 0:
        duration = min(duration, scenario.run.warmup_s + scenario.run.stop_after_responses / rate)
    finite = [g.finite_bytes() for g in groups]
    if scenario.run.stop_when_done and all(b is not None for b in finite):
        total = sum(b for b in finite if b is not None)  # ends when the last one completes
        duration = min(duration, 1.2 * total * 8 / topo.bottleneck_rate_bps)
    link = 0.0 if own else BULK_PER_MBPS * (10.0 if mbps > 20 else mbps) * topo.hops_factor
    return {"web": duration * sum(own), "link": duration * link,
            "flows": duration * PER_FLOW * scenario.n_flows}
