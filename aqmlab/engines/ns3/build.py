"""Plan -> the C++ ``aqmlab::Experiment``: a few dozen calls, no per-packet Python."""

from __future__ import annotations

from typing import Any

import numpy as np

from aqmlab.kinds.tcp import Tcp
from aqmlab.plan import Plan, PlanBrowsing
from aqmlab.scenario import Scenario
from aqmlab.workload.tick_phase import first_uniform, ns2_seed

HOLD_QUEUE = "aqmlab::HoldQueueDisc"


def build(cpp: Any, scenario: Scenario, plan: Plan) -> Any:
    """Create and return a built (not yet run) ``aqmlab::Experiment`` (after
    ``ResetGlobals``: the simulator is started here, on ``run.event_clock``'s clock)."""
    cpp.UseEventClock(scenario.run.event_clock)
    exp = cpp.Experiment()
    exp.AddNodes(len(plan.nodes))
    for i, link in enumerate(plan.links):
        exp.AddLink(link.a, link.b, f"{int(round(link.rate_bps))}bps",
                    f"{link.delay_s * 1e9:.0f}ns")
        for d in (0, 1):
            queue = link.queues[d]
            if link.hold[d]:
                exp.SetQueue(i, d, HOLD_QUEUE, [])
            elif queue is not None:
                cfg = queue.ns3(link.rate_bps, link.delay_s)
                exp.SetQueue(i, d, cfg.type_id, cfg.flat())
                if link.probes[d]:
                    exp.ProbeQueue(i, d, link.probes[d], cfg.red_wq, cfg.red_ptc)
    profiles: dict[tuple[Tcp, bool], int] = {}

    def profile(tcp: Tcp, one_way: bool) -> int:
        """``one_way``: bulk flows and transfers (ns-2's one-way agents), not web traffic."""
        if (tcp, one_way) not in profiles:
            cfg = tcp.ns3(one_way=one_way)
            profiles[tcp, one_way] = exp.AddTcpProfile(cfg.congestion, cfg.recovery, cfg.reno,
                                                       cfg.rtt_alpha, cfg.rtt_beta, cfg.flat())
        return profiles[tcp, one_way]

    for flow in plan.flows:
        exp.AddFlow(flow.src, flow.dst, profile(flow.tcp, True), flow.start_s,
                    flow.size_bytes, flow.processing_s, first_uniform(flow.boot_seed))
    for web in plan.web:
        if isinstance(web, PlanBrowsing):
            _add_browsing(exp, web, profile(web.tcp, False))
            continue
        arrays = [_f64(a) for a in (
            web.server, web.client, np.full(len(web), profile(web.tcp, False), dtype=float),
            web.start_s, web.request, web.response, web.delay_s, web.server_delays)]
        if len(web):
            exp.AddWebFlows(len(web), *arrays)
    for i, link in enumerate(plan.links):
        if link.flow_delay:
            box = scenario.topology.delay_box == "ns2"
            exp.SetFlowDelay(i, link.delay_node if box else -1)
    exp.SetTxTime(scenario.topology.tx_time)
    exp.SetQueueWake(scenario.topology.queue_wake)
    exp.SetLinkHeader(scenario.topology.link_header)
    run = scenario.run
    exp.SetRandomStream(run.random_stream, ns2_seed(run.seed), run.run)
    sample = run.sample_interval_s if run.sample_interval is not None else 0.0
    exp.SetRunControl(run.duration_s, run.warmup_s, sample, run.stop_when_done)
    if run.stop_after_responses:
        exp.SetStopAfter(run.stop_after_responses)
    exp.Build()
    return exp


def _f64(a) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float64)


def _add_browsing(exp: Any, b: PlanBrowsing, profile: int) -> None:
    users = [_f64(x) for x in (b.user_client, b.user_first_page, b.user_n_pages,
                               b.user_start_s)]
    pages = [_f64(x) for x in (b.page_server, b.page_first_object, b.page_n_objects,
                               b.page_think_s)]
    objs = [_f64(x) for x in (b.request, b.response, b.delay_s)]
    exp.AddBrowsing(len(users[0]), *users, len(pages[0]), *pages, len(objs[0]), *objs, profile)
