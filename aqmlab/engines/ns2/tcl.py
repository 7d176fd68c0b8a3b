"""Scenario + plan -> one self-contained ns-2 Tcl script (the library procs inlined).

The script builds the plan's nodes and links (node i of the plan is ns-2 node i), one
queue per link direction, Manual routes on the tree, probes on the plan's probed queues,
one agent pair per bulk flow or transfer, the web connections (web.tcl), and the run
control: warm-up and end snapshots, queue samples, stop rules. Everything it prints goes
to small files in the working directory (see lib.tcl) that :mod:`.parse` reads.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from aqmlab.engines.ns2 import mapping
from aqmlab.engines.ns2.web import WebPart, web_part
from aqmlab.plan import Plan
from aqmlab.scenario import Scenario, Tcp
from aqmlab.workload.tick_phase import ns2_seed

SCRIPT = "script.tcl"


def _lib(name: str) -> str:
    return resources.files("aqmlab.engines.ns2").joinpath(name).read_text()


def _num(x: float) -> str:
    """A float as Tcl reads it back exactly."""
    return repr(float(x))


def _tcl_list(items) -> str:
    return "{" + " ".join(str(x) for x in items) + "}"


def _settings(pairs) -> str:
    return _tcl_list(f"{k} {v}" for k, v in pairs)


def _adjacency(plan: Plan) -> dict[int, list[int]]:
    adj: dict[int, list[int]] = {i: [] for i in range(len(plan.nodes))}
    for link in plan.links:
        adj[link.a].append(link.b)
        adj[link.b].append(link.a)
    return adj


def _behind(adj: dict[int, list[int]], start: int, parent: int) -> list[int]:
    """Leaves (hosts) of the subtree entered from ``parent`` at ``start``."""
    out, stack = [], [(start, parent)]
    while stack:
        node, par = stack.pop()
        children = [n for n in adj[node] if n != par]
        if not children:
            out.append(node)
        stack.extend((c, node) for c in children)
    return sorted(out)


def routes(plan: Plan) -> list[str]:
    """Manual routing lines: hosts default to their only neighbour; routers map every host
    to the neighbour it lies behind (the plan's topologies are trees)."""
    adj = _adjacency(plan)
    lines = []
    for node, nbs in adj.items():
        if len(nbs) == 1:
            lines.append(f"aq_route_default {node} {nbs[0]}")
        elif nbs:
            table = " ".join(f"{nb} {_tcl_list(_behind(adj, nb, node))}" for nb in nbs)
            lines.append(f"aq_route_table {node} {{{table}}}")
    return lines


def _profile_procs(k: int, tcp: Tcp, full: bool, ppp: bool = True) -> list[str]:
    if full:
        cfg = mapping.full_tcp_config(tcp)
        body = "".join(f"; $t set {v} {x}" for v, x in cfg.settings)
        return [f"proc aq_fulltcp_{k} {{}} {{ set t [new {cfg.agent}]{body}; return $t }}"]
    cfg1 = mapping.one_way_config(tcp, ppp)
    agent = "".join(f"; $t set {v} {x}" for v, x in cfg1.agent_settings)
    sink = "".join(f"; $t set {v} {x}" for v, x in cfg1.sink_settings)
    return [f"proc aq_agent_{k} {{}} {{ set t [new {cfg1.agent}]{agent}; return $t }}",
            f"proc aq_sink_{k} {{}} {{ set t [new {cfg1.sink}]{sink}; return $t }}"]


def transfer_target(tcp: Tcp, nbytes: float, ppp: bool = True) -> tuple[int, int]:
    """(packets, sink bytes) of a transfer: ns-2's one-way TCP sends whole ``mss`` segments
    after a header-only packet 0 (``syn_``), and its sink counts header bytes too."""
    packets = math.ceil(nbytes / tcp.mss)
    hdr = mapping.base_header_bytes(ppp)
    return packets, hdr + packets * (tcp.mss + mapping.header_bytes(tcp, ppp))


def _seed(seed: int, run: int) -> list[str]:
    """Seed the default generator with the run's stream, now and (``aq_seed_run``) after the
    bulk agents' tick phases are drawn."""
    lines = [f"$defaultRNG seed {ns2_seed(seed)}"]
    if run > 1:
        lines.append(f"for {{set i 1}} {{$i < {run}}} {{incr i}} {{ $defaultRNG next-substream }}")
    body = "; ".join(lines)
    return [*lines, f"proc aq_seed_run {{}} {{ global defaultRNG; {body} }}"]


def flow_traces(plan: Plan, flows: Sequence[int]) -> list[str]:
    """Trace bulk flows/transfers ``flows``: every packet on both directions of each one's
    first link into flows.tr (``trace-queue``, filtered by flow id when read), each line's
    exact clock into flows.clock (flows.tr rounds to 1 us), and its agent's window,
    ssthresh, back-off and ACK variables into vars<i>.tr (:mod:`aqmlab.engines.flow_trace`
    reads them)."""
    adj = _adjacency(plan)
    lines = ["set AQ(fd,flowtr) [aq_open flows.tr]", "set AQ(fd,flowclock) [aq_open flows.clock]"]
    links = set()
    for i in flows:
        src = plan.flows[i].src
        nb = adj[src][0]
        for a, b in ((src, nb), (nb, src)):
            if (a, b) not in links:
                links.add((a, b))
                lines += [f"$ns trace-queue $N({a}) $N({b}) $AQ(fd,flowtr)",
                          f"aq_exact_clock $N({a}) $N({b})"]
        lines += [f"set AQ(fd,var{i}) [aq_open vars{i}.tr]", f"$AQ(tcp,{i}) attach $AQ(fd,var{i})"]
        lines += [f"$AQ(tcp,{i}) trace {v}" for v in ("cwnd_", "ssthresh_", "backoff_", "ack_")]
    return lines


def script_text(scenario: Scenario, plan: Plan, web: WebPart | None = None,
                trace_flows: Sequence[int] = ()) -> str:
    """The whole Tcl script for ``scenario`` (``plan = make_plan(scenario)``);
    ``trace_flows``: see :func:`flow_traces`."""
    run = scenario.run
    queues = [[mapping.queue_config(link.queues[d], link.rate_bps) for d in (0, 1)]
              for link in plan.links]
    ecn = any(link.probes[d] and queues[i][d].ecn
              for i, link in enumerate(plan.links) for d in (0, 1))
    finite = [f for f in plan.flows if f.size_bytes > 0]
    all_finite = bool(plan.flows) and len(finite) == len(plan.flows) and not plan.web
    web = web if web is not None else web_part(scenario, plan)
    out = [
        "# aqmlab ns-2 engine: generated script, one run",
        f"# scenario {scenario.name} {scenario.key}",
        f"set AQ(ecn) {int(ecn)}",
        f"set AQ(sample) {_num(run.sample_interval_s or 0.0)}",
        f"set AQ(stop_when_done) {int(run.stop_when_done and all_finite)}",
        f"set AQ(nfinite) {len(finite)}",
        _lib("lib.tcl"),
        web.library,
        "set ns [new Simulator]",
        "$ns rtproto Manual",
        *_seed(run.seed, run.run),
        "aq_init",
        f"aq_nodes {len(plan.nodes)} {_tcl_list(web.delay_nodes)}",
    ]
    for i, link in enumerate(plan.links):
        for d, (a, b) in enumerate(((link.a, link.b), (link.b, link.a))):
            q = queues[i][d]
            out.append(f"aq_link {a} {b} {_num(link.rate_bps)} {_num(link.delay_s)} "
                       f"{q.qtype} {_tcl_list(q.flat())}")
            if q.drop_list:
                out.append(f"aq_drop_list {a} {b} {_tcl_list(q.drop_list)}")
    out += routes(plan)
    probe = 0
    for i, link in enumerate(plan.links):
        for d, (a, b) in enumerate(((link.a, link.b), (link.b, link.a))):
            if link.probes[d]:
                out.append(f"aq_probe {probe} {a} {b} {int(queues[i][d].red)}")
                probe += 1
    profiles: dict[Tcp, int] = {}
    for f in plan.flows:
        if f.tcp not in profiles:
            profiles[f.tcp] = len(profiles)
            out += _profile_procs(profiles[f.tcp], f.tcp, full=False, ppp=plan.ppp_frames)
    for i, f in enumerate(plan.flows):
        target = (transfer_target(f.tcp, f.size_bytes, plan.ppp_frames)[1]
                  if f.size_bytes > 0 else 0)
        out.append(f"aq_flow {i} {f.src} {f.dst} {profiles[f.tcp]} {_num(f.start_s)} "
                   f"{int(f.size_bytes)} {target} {_num(f.processing_s)} {f.boot_seed}")
    out += web.setup
    if trace_flows:
        out += flow_traces(plan, trace_flows)
    if run.warmup_s > 0:
        out.append(f'$ns at {_num(run.warmup_s)} "aq_snapshot 0"')
    if run.sample_interval_s:
        out.append("$ns at 0.0 aq_sample")
    out += [f"$ns at {_num(run.duration_s)} aq_finish", "$ns run", "aq_finish", "exit 0", ""]
    return "\n".join(out)


def write_script(scenario: Scenario, plan: Plan, workdir: Path,
                 trace_flows: Sequence[int] = ()) -> tuple[Path, WebPart]:
    """Write the script and the web part's data files into ``workdir``."""
    web = web_part(scenario, plan)
    path = Path(workdir) / SCRIPT
    path.write_text(script_text(scenario, plan, web, trace_flows))
    web.write_data(Path(workdir))
    return path, web
