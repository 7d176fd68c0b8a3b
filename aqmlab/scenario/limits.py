"""What one run may ask of a machine, checked when a Scenario is made (pure Python, no ns-3).

Two kinds of limits:

* **Hard**: what ns-3 can represent at all (32-bit TCP windows and counters, a link rate
  times ``rate_scale`` within :data:`~aqmlab.units.MAX_RATE_BPS`, start times within
  ns-3's 64-bit nanosecond clock). Values beyond abort ns-3 or overflow silently, so they
  are always refused. (Single values are bounded in :mod:`aqmlab.units` already.)
* **Soft**: what a machine can do in a working day: the run's duration, hosts, flows, web
  users and connection rates, link rates, queue limits, and the estimated cost of the run
  (ns-3 events and memory, :func:`estimate`). A deliberate giant run sets
  ``run.force = true`` in the scenario (``{"run.force": True}`` in ``replace`` or a sweep's
  ``[set]``): the soft limits are then skipped. ``force`` is not part of the scenario hash
  (it changes nothing that is simulated) and is written only when true.

Each violation is a :class:`~aqmlab.errors.ScenarioError` naming the field, its value, the
estimate and what is allowed. The checks touch only parsed fields (tens of microseconds),
since every Scenario (every sweep point) runs them.

The cost model counts events from measured runs (the 193 runs of the quick profile,
aqmlab 0.2.3, ns-3.44): a link-filling TCP data packet costs 20-23 events on a dumbbell
(its ACK and the access hops included), a PackMime connection 180-260 (210 at 10 Mb/s,
256 uncongested at 100 Mb/s), Mah browsing 2,400-2,830 events per simulated second per
offered Mb/s; a parking lot's extra hops add ~20 % each (5 hops: 1.8x). Events took 1.1-3 us
of CPU each. On those 193 runs the model gives 1.00-1.48x the measured events (never
fewer; ``tests/unit/test_limits.py``). Memory beyond the worker's own (~0.6 GiB: ns-3, cppyy, aqmlab's C++) was
measured with VmHWM: 12-18 KiB per bulk flow (2,000 and 10,000 flows), ~30 KiB per node
(1,000 senders + 1,000 receivers), 2.2 KiB per PackMime connection drawn (40,000
connections at 200/s, uncongested), ~20 KiB per connection left open in an overloaded run
(2,000 connections/s into 10 Mb/s: 0.8 GiB in 20 s).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from aqmlab.errors import ScenarioError
from aqmlab.units import MAX_RATE_BPS, MAX_TIME_S, parse_time

__all__ = ["Estimate", "check", "estimate", "LIMITS"]

# -- soft limits (run.force = true skips them) -------------------------------------------------
MAX_DURATION_S = 1e6  # 11.6 simulated days; the papers' longest runs are 5,400 s
MAX_NODES = 5000  # hosts and routers; ns-3 builds and routes every one
MAX_FLOWS = 100_000  # bulk flows and finite transfers of all groups
MAX_USERS = 100_000  # Mah browsing users of all groups
MAX_CONNECTION_RATE = 100_000.0  # PackMime connections per second, all groups
MAX_LINK_RATE_BPS = 100 * 10**9  # at 100 Gb/s a 40-B ACK takes 3.2 ns on ns-3's 1-ns clock
MAX_QUEUE_PACKETS = 10**6
MAX_QUEUE_BYTES = 10**9
MAX_EVENTS = 1e10  # ~3-8 CPU-hours at 1-3 us per event; the papers' runs need < 5e8
MAX_MEMORY_BYTES = 8 * 2**30  # beyond the worker's own ~0.6 GiB
#: The limits in one table, for documentation and messages.
LIMITS = {
    "run.duration (s)": MAX_DURATION_S, "hosts and routers": MAX_NODES,
    "flows": MAX_FLOWS, "Mah users": MAX_USERS,
    "PackMime connections/s": MAX_CONNECTION_RATE, "link rate (bits/s)": MAX_LINK_RATE_BPS,
    "queue limit (packets)": MAX_QUEUE_PACKETS, "queue limit (bytes)": MAX_QUEUE_BYTES,
    "events": MAX_EVENTS, "memory (bytes)": MAX_MEMORY_BYTES,
}
# -- hard limits -----------------------------------------------------------------------------
UINT32 = 2**32 - 1  # ns-3 TCP attributes (windows, buffers, counters) are 32-bit
_TCP_UINT32 = ("initial_cwnd", "dupack_threshold", "max_retries")
_TCP_BYTES = ("rcv_window", "snd_buffer")

# -- the cost model (see the module docstring) -----------------------------------------------
EVENTS_PER_DATA_PACKET = 23.0
EVENTS_PER_CONNECTION = 260.0
EVENTS_PER_MAH_MBPS_S = 2830.0
EVENTS_PER_FLOW = 50.0  # handshake, start and stop
HOP_FACTOR = 0.2  # extra events per extra parking-lot hop
US_PER_EVENT = 2.5  # for the message's CPU-hours only
HEADER_BYTES = 40
BYTES_PER_NODE = 32 * 2**10
BYTES_PER_FLOW = 20 * 2**10
BYTES_PER_CONNECTION = 2.5 * 2**10
BYTES_PER_OPEN_CONNECTION = 20 * 2**10
OPEN_CONNECTION_S = 60.0  # how long an overloaded run's connections pile up (FIN_WAIT_2 60 s)
BYTES_PER_QUEUED_PACKET = 300  # ns-3 packet metadata; payloads are virtual
BYTES_PER_SAMPLE = 120  # one queue-length sample, arrays and table
MAH_KBPS = {True: 13.6, False: 3.70}  # per user: think times capped at <= 2 min, or 10 min
MAH_REQUESTS_PER_KB = 2.34 / 60 / 3.70  # requests per second per offered kb/s


@dataclass
class Estimate:
    """The expected cost of one run: ns-3 events and memory (bytes beyond the worker's own),
    with the share of each part, keyed by the field that drives it."""

    events: float = 0.0
    memory: float = 0.0
    event_parts: dict[str, float] = field(default_factory=dict)
    memory_parts: dict[str, float] = field(default_factory=dict)

    def add(self, what: str, events: float = 0.0, memory: float = 0.0) -> None:
        self.events += events
        self.memory += memory
        self.event_parts[what] = self.event_parts.get(what, 0.0) + events
        self.memory_parts[what] = self.memory_parts.get(what, 0.0) + memory

    @property
    def cpu_hours(self) -> float:
        return self.events * US_PER_EVENT * 1e-6 / 3600

    def text(self) -> str:
        return f"~{self.events:.2g} events (~{_cpu(self.cpu_hours)}), ~{_bytes(self.memory)}"


def check(scenario: Any) -> None:
    """Raise ScenarioError for the first limit ``scenario`` exceeds (soft limits only
    without ``run.force``)."""
    _check_hard(scenario)
    if getattr(scenario.run, "force", False):
        return
    _check_soft(scenario)
    est = estimate(scenario)
    if est.events > MAX_EVENTS:
        what = max(est.event_parts, key=est.event_parts.get)
        where = "run.sample_interval" if what == "run.sample_interval" else "run.duration"
        value = getattr(scenario.run, where.split(".")[1])
        _soft(where, value, f"the run is estimated at {est.events:.2g} ns-3 events "
              f"(~{_cpu(est.cpu_hours)} at ~{US_PER_EVENT:g} us each; most from {what}); at "
              f"most {MAX_EVENTS:.0e} events are allowed")
    if est.memory > MAX_MEMORY_BYTES:
        what = max(est.memory_parts, key=est.memory_parts.get)
        _soft(what, _value_at(scenario, what),
              f"the run is estimated to need {_bytes(est.memory)} of memory (most for "
              f"{what}: {_bytes(est.memory_parts[what])}); at most "
              f"{_bytes(MAX_MEMORY_BYTES)} are allowed")


def estimate(scenario: Any) -> Estimate:
    """Expected ns-3 events and memory of one run (see the module docstring)."""
    topo, run = scenario.topology, scenario.run
    est = Estimate()
    hops = int(getattr(topo, "hops", 1))
    h = 1.0 + HOP_FACTOR * (hops - 1)
    duration = _effective_duration(scenario)
    est.add("topology", memory=_nodes(topo) * BYTES_PER_NODE)

    mss = scenario.tcp.mss + HEADER_BYTES
    link_pps = topo.bottleneck_rate_bps * float(getattr(topo, "rate_scale", 1.0)) / (8 * mss)
    window_pps, transfer_pkts, all_transfers, last_start = 0.0, 0.0, True, 0.0
    rtt = _min_rtt(topo)
    for k, g in enumerate(scenario.traffic):
        kind = getattr(g, "kind", "")
        name = f"traffic[{k}]"
        if kind == "packmime":
            rate = g.connection_rate  # 0 until resolved (Scenario.resolve checks again)
            est.add(f"{name}.rate", events=EVENTS_PER_CONNECTION * h * rate * duration,
                    memory=rate * (duration * BYTES_PER_CONNECTION
                                   + min(duration, OPEN_CONNECTION_S) * BYTES_PER_OPEN_CONNECTION))
        elif kind == "mah":
            cap = g.think_cap_s
            kbps = g.users * MAH_KBPS[cap is not None and cap <= 120]
            est.add(f"{name}.users", events=EVENTS_PER_MAH_MBPS_S * h * kbps / 1e3 * duration,
                    memory=kbps * MAH_REQUESTS_PER_KB * duration * BYTES_PER_CONNECTION
                    + g.users * 2 * BYTES_PER_OPEN_CONNECTION)
        n = int(g.n_flows)
        if n:
            tcp = scenario.tcp_for(k)
            window = min(tcp.rcv_window_bytes, tcp.snd_buffer_bytes)
            window_pps += n * window / mss / rtt
            field_name = "count" if kind == "transfers" else "flows"
            est.add(f"{name}.{field_name}", events=EVENTS_PER_FLOW * n,
                    memory=n * BYTES_PER_FLOW)
        if kind == "transfers":
            transfer_pkts += sum(math.ceil(b / scenario.tcp_for(k).mss) for b in g.sizes_bytes)
            last_start = max(last_start, float(g.start_s) + float(g.start_spread_s))
        elif n or kind not in ("packmime", "mah"):
            all_transfers = False
    if window_pps:
        pps = min(link_pps, window_pps)
        packets = pps * duration
        if all_transfers:
            packets = min(packets, transfer_pkts)
            if run.stop_when_done:  # the run ends with its transfers (twice the time, to be safe)
                duration = min(duration, last_start + 2 * transfer_pkts / pps)
        est.add("the link-filling flows", events=EVENTS_PER_DATA_PACKET * h * packets)

    for path, queue, _link in topo.queue_links():
        if path.startswith("access"):
            continue  # access links are faster than the bottleneck: their queues stay short
        amount, unit = queue.limit_size
        packets = amount if unit == "p" else amount / mss
        est.add(f"topology.{path}.limit", memory=packets * BYTES_PER_QUEUED_PACKET)

    interval = run.sample_interval_s
    if interval:
        samples = duration / interval * 2 * hops
        est.add("run.sample_interval", events=samples, memory=samples * BYTES_PER_SAMPLE)
    return est


# -- checks ----------------------------------------------------------------------------------


def _check_hard(sc: Any) -> None:
    topo = sc.topology
    scale = float(getattr(topo, "rate_scale", 1.0))
    for path, _queue, link in topo.queue_links():
        if link.rate_bps * scale > MAX_RATE_BPS:
            where = "access" if path.startswith("access") else _link_path(topo, path)
            raise ScenarioError(f"topology.{where}.rate", link.rate,
                                f"rate x rate_scale ({scale:g}) must be <= 1000Tbps: ns-3 could "
                                "not time a packet at such a rate")
    for k in range(len(sc.traffic)):
        tcp = sc.tcp_for(k)
        where = "tcp" if not sc.traffic[k].tcp else f"traffic[{k}].tcp"
        for name in _TCP_UINT32:
            value = getattr(tcp, name, None)
            if isinstance(value, int) and value > UINT32:
                raise ScenarioError(f"{where}.{name}", value,
                                    f"{name} must be <= {UINT32:,}: ns-3 holds it in 32 bits")
        for name in _TCP_BYTES:
            nbytes = getattr(tcp, f"{name}_bytes", 0)
            if nbytes > UINT32:
                raise ScenarioError(f"{where}.{name}", getattr(tcp, name),
                                    f"{name} must be <= 4GiB ({UINT32:,} bytes): ns-3 holds "
                                    "it in 32 bits")
    for k, g in enumerate(sc.traffic):
        end = float(g.start_s) + float(g.start_spread_s)
        if end > MAX_TIME_S:
            raise ScenarioError(f"traffic[{k}].start_spread", g.start_spread,
                                f"start + start_spread must be <= 9.2e9 s (ns-3's clock); "
                                f"here {end:.3g} s")


def _check_soft(sc: Any) -> None:
    run, topo = sc.run, sc.topology
    if run.duration_s > MAX_DURATION_S:
        _soft("run.duration", run.duration, f"duration must be <= {MAX_DURATION_S:.0e} s "
              f"(11.6 simulated days); this run is estimated at {estimate(sc).text()}")
    nodes = _nodes(topo)
    if nodes > MAX_NODES:
        _soft("topology", _hosts_text(topo), f"the topology has {nodes:,} hosts and routers; "
              f"at most {MAX_NODES:,} are allowed")
    scale = float(getattr(topo, "rate_scale", 1.0))
    for path, queue, link in topo.queue_links():
        where = "access" if path.startswith("access") else _link_path(topo, path)
        if link.rate_bps * scale > MAX_LINK_RATE_BPS:
            _soft(f"topology.{where}.rate", link.rate, "link rates must be <= 100Gbps: "
                  "ns-3 times packets in whole nanoseconds (a 40-B ACK takes 3.2 ns at 100 Gb/s)")
        amount, unit = queue.limit_size
        top = MAX_QUEUE_PACKETS if unit == "p" else MAX_QUEUE_BYTES
        if amount > top:
            _soft(f"topology.{path}.limit", queue.limit,
                  f"queue limits must be <= {top:,} {'packets' if unit == 'p' else 'bytes'}")
    flows = sum(int(g.n_flows) for g in sc.traffic)
    if flows > MAX_FLOWS:
        k = max(range(len(sc.traffic)), key=lambda i: sc.traffic[i].n_flows)
        name = "count" if sc.traffic[k].kind == "transfers" else "flows"
        _soft(f"traffic[{k}].{name}", getattr(sc.traffic[k], name, flows),
              f"the scenario has {flows:,} flows; at most {MAX_FLOWS:,} are allowed "
              f"(~{BYTES_PER_FLOW // 1024} KiB of memory each)")
    users = [(k, g.users) for k, g in enumerate(sc.traffic) if g.kind == "mah"]
    if sum(u for _, u in users) > MAX_USERS:
        k, u = max(users, key=lambda x: x[1])
        _soft(f"traffic[{k}].users", u, f"at most {MAX_USERS:,} browsing users in all are "
              "allowed")
    rates = [(k, g.connection_rate) for k, g in enumerate(sc.traffic) if g.kind == "packmime"]
    if sum(r for _, r in rates) > MAX_CONNECTION_RATE:
        k, r = max(rates, key=lambda x: x[1])
        _soft(f"traffic[{k}].rate", r, f"at most {MAX_CONNECTION_RATE:,.0f} new connections "
              "per second in all are allowed")


def _soft(field_name: str, value: Any, allowed: str) -> None:
    raise ScenarioError(field_name, value, allowed,
                        "set run.force = true to run it anyway")


# -- helpers ---------------------------------------------------------------------------------


def _effective_duration(sc: Any) -> float:
    """The simulated time the run will last: ``duration``, or less when it stops after
    ``stop_after_responses`` responses at the web groups' connection rates."""
    run = sc.run
    duration = run.duration_s
    rate = sum(g.connection_rate for g in sc.traffic)
    if run.stop_after_responses and rate > 0:
        duration = min(duration, run.warmup_s + run.stop_after_responses / rate)
    return duration


def _nodes(topo: Any) -> int:
    hosts = int(topo.senders) + int(topo.n_receivers)
    if hasattr(topo, "hops"):  # a parking lot: its routers and cross hosts per hop
        cross = int(getattr(topo, "cross_senders", 0)) + int(getattr(topo, "n_cross_receivers", 0))
        return hosts + int(topo.routers) + int(topo.hops) * cross
    return hosts + 2


def _hosts_text(topo: Any) -> str:
    names = ("senders", "receivers", "routers", "cross_senders", "cross_receivers")
    return ", ".join(f"{n} = {getattr(topo, n)}" for n in names
                     if getattr(topo, n, None) is not None)


def _min_rtt(topo: Any) -> float:
    """A lower bound of the base RTT (floored at 1 ms), for window-limited flows."""
    delays = [link.delay_s for path, _q, link in topo.queue_links()
              if not path.startswith("access")]
    access = [topo.access.delay_s]
    for name in ("sender_delays", "receiver_delays"):
        own = getattr(topo, name, None)
        if own:
            access.extend(parse_time(d, name) for d in own)
    return max(2 * (min(delays, default=0.0) + 2 * min(access)), 1e-3)


def _link_path(topo: Any, queue_path: str) -> str:
    """The link field a queue feeds: ``bottleneck`` (dumbbell), ``link`` or ``links[i]``."""
    if hasattr(topo, "bottleneck"):
        return "bottleneck"
    if getattr(topo, "links", None) is not None and queue_path.startswith("queues["):
        return "links[" + queue_path[len("queues["):].split("]")[0] + "]"
    return "link"


def _value_at(sc: Any, path: str) -> Any:
    """The value at a dotted path of the scenario's dict (None if there is none)."""
    cur: Any = sc.to_dict()
    for tok in re.findall(r"[A-Za-z_]\w*|\[\d+\]", path):
        if tok.startswith("["):
            idx = int(tok[1:-1])
            cur = cur[idx] if isinstance(cur, list) and idx < len(cur) else None
        else:
            cur = cur.get(tok) if isinstance(cur, dict) else None
    return cur


def _cpu(hours: float) -> str:
    return f"{hours:,.1f} CPU-hours" if hours >= 0.1 else f"{hours * 3600:,.0f} CPU-s"


def _bytes(n: float) -> str:
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20)):
        if n >= size:
            return f"{n / size:,.1f} {unit}"
    return f"{n / 2**10:,.0f} KiB"
