"""Tiny web scenarios with hand-planned connections, run on either engine in this process:
the shared fixture of the differential tests (one client, one server, an idle 10 Mb/s
dumbbell unless a test asks otherwise)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd

from aqmlab import engines
from aqmlab.kinds.tcp import FULL_TCP
from aqmlab.plan import make_plan
from aqmlab.results import tables
from aqmlab.results.raw import RawRun
from aqmlab.scenario import DropTail, Dumbbell, Link, PackMime, RunControl, Scenario, Tcp

#: Weigle et al.'s web TCP with ns-2's Full-TCP semantics.
WEB_TCP = {"mss": 1420, "min_rto": "1s", "initial_rto": "6s", "rcv_window": 105080,
           **FULL_TCP}
MSS = 1420


def scenario(tcp: dict[str, Any] | None = None, *, delay: str = "25ms", limit: str = "1000p",
             queue: Any = None, duration: str = "20s", rtt: str = "none") -> Scenario:
    """One web group (client D0, server S0) over a 10 Mb/s bottleneck of one-way ``delay``
    (base RTT 2 x delay) with 100 Mb/s, zero-delay access links; ``tcp`` overrides
    :data:`WEB_TCP`; ``queue`` replaces both drop-tail bottleneck queues; ``rtt``
    "packmime": connections get their own extra delay on the client's link (DelayBox;
    :func:`run`'s ``extra_delay``)."""
    q = queue if queue is not None else DropTail(limit=limit)
    return Scenario(
        name="differential",
        topology=Dumbbell(senders=1, receivers=1, bottleneck=Link(rate="10Mbps", delay=delay),
                          access=Link(rate="100Mbps", delay="0ms"),
                          forward_queue=q, reverse_queue=q),
        tcp=Tcp(**{**WEB_TCP, **(tcp or {})}), traffic=[PackMime(rate=1, rtt=rtt)],
        run=RunControl(duration=duration, warmup="0s", sample_interval=None))


def forward_drops(drops: tuple[int, ...], tcp: dict[str, Any] | None = None, *,
                  duration: str = "20s") -> Scenario:
    """:func:`scenario` whose forward (server -> client) bottleneck queue drops arrivals
    ``drops`` (numbered from 1, every packet counted), the same ones on both engines."""
    return scenario(tcp, duration=duration).replace(**{"topology.forward_queue": DropTail(
        limit="1000p", drop_packets=drops, drop_count="all")})


def reverse_drops(drops: tuple[int, ...], tcp: dict[str, Any] | None = None, *,
                  duration: str = "20s") -> Scenario:
    """:func:`scenario` whose reverse (client -> server) bottleneck queue drops arrivals
    ``drops`` (numbered from 1, every packet counted: SYNs, requests, ACKs)."""
    return scenario(tcp, duration=duration).replace(**{"topology.reverse_queue": DropTail(
        limit="1000p", drop_packets=drops, drop_count="all")})


def run(sc: Scenario, engine: str, request, response, *, start=None, gap: float = 1.0,
        server_delay=None, extra_delay=None) -> tuple[pd.DataFrame, RawRun]:
    """``sc`` on ``engine`` with these connections in place of the group's draw: request and
    response sizes, starts (default 1 s, then every ``gap`` s), optional server delays and
    extra one-way delays (s; the scenario's ``rtt`` must be "packmime").
    Returns the requests table and the engine's raw columns."""
    sc = engines.check(sc.replace(**{"run.engine": engine}))
    plan = make_plan(sc)
    w = plan.web[0]
    n = len(response)
    start = np.asarray(start if start is not None else 1.0 + gap * np.arange(n), float)
    prop = 2 * plan.path_delay(int(w.server[0]), int(w.client[0]))
    extra = np.zeros(n) if extra_delay is None else np.asarray(extra_delay, float)
    plan.web = [dataclasses.replace(
        w, server=np.full(n, w.server[0]), client=np.full(n, w.client[0]), start_s=start,
        request=np.asarray(request, float), response=np.asarray(response, float),
        delay_s=extra, base_rtt_s=prop + 2 * extra,
        server_delay_s=None if server_delay is None else np.asarray(server_delay, float))]
    raw = engines.get(engine).simulate(sc, plan)
    return tables.requests_table(sc, plan, raw), raw


def arrivals(raw: RawRun) -> dict[str, int]:
    """Packets that arrived at each probed bottleneck queue (the whole run)."""
    return {name: int(raw.queues["arrivals"][i]) for i, name in enumerate(raw.probe_names)}
