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

__all__ = ["MAH_PER_MBPS", "PACKMIME_PER_CONNECTION", "estimate_cost"]

def estimate_cost(scenario: Scenario) -> float:
    """Expected CPU-seconds of a run on this machine class (2-core KVM, ns-3.44 wheel),
    used to order runs longest-first and to estimate CPU-hours. Measured orders of
    magnitude per simulated second (aqmlab 0.2.2: RFC 793 closing, FastTcpDemux, socket
    tables, workers on mimalloc, two workers on the 2 cores): Mah browsing ``0.0087`` per
    Mb/s the users offer (users x 3.70 kb/s with the thesis' 10-minute think cap, x 13.6
    with 60-s caps; 2,460 events per simulated second and Mb/s at 3.0-4.5 us each): 195-640
    CPU-s for the thesis' 5,400 s from 50 to 110 % (fit through the origin to the 27
    tail-drop runs of 2026-11-23; the 90/98 % runs of the day before, beside benchmarks,
    took 30-40 % longer); PackMime ``0.00089`` per connection/s offered, whatever the link
    (two-way at 10 Mb/s, 96 and 126 connections/s each way for 80 and 105 %: 463 and 480
    CPU-s for 2,728 and 2,105 s uncongested, i.e. 0.0107 per offered Mb/s; an overloaded
    AQM run costs more, as its open sockets pile up and each event costs more with them,
    from 1.8-1.9 us with 600 sockets open to 4.0-4.2 us with 25,000-27,000: at 105 %
    ARED+ECN 5 ms took 1.6-1.8x what drop-tail did on the same day, 2.4x the model on
    glibc beside other runs), bulk ~0.004 per Mb/s of bottleneck plus 2e-4 per flow; a parking
    lot counts a quarter more per extra hop (Vembar's 5-hop lot, 2x the dumbbell's events
    per connection: 0.34-0.53 per simulated second on glibc). A run with
    ``stop_after_responses`` ends about when the web groups' connection rates complete that
    many responses after the warm-up (measured: within 1 % for the Vembar runs). The
    bottleneck queue scales the traffic's cost by its kind's ``COST`` (the costliest forward
    queue of a parking lot); the pile-up of an overloaded AQM run is not modelled. Each
    traffic kind gives its own CPU-s per simulated second (``cpu_per_s``; bulk flows cost
    what the link carries). A run on another engine is scaled by its engine's
    ``relative_cost`` (ns-2.35's measured CPU against ns-3's)."""
    factor = max(q.COST for q in scenario.topology.bottleneck_queues())
    engine = engines.get(scenario.run.engine).relative_cost(scenario)
    return engine * (1.0 + (_traffic_cost(scenario.resolve()) - 1.0) * factor)


def _traffic_cost(scenario: Scenario) -> float:
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
    if own:  # web: the traffic offered, whatever the link
        per = sum(own)
    else:  # bulk flows fill the link; an uncongested one as if it were 10 Mb/s
        per = 0.004 * (10.0 if mbps > 20 else mbps)
    return duration * (per + 2e-4 * scenario.n_flows) + 1.0
