"""Expand a Scenario into a network plan: nodes, links, queues, flows. Pure Python, no ns-3.

The plan is what ``aqmlab.ns3.build`` hands to the C++ Experiment. Keeping it separate
makes the topology logic (who connects to whom, which queue sits where, each flow's base
RTT and start time) testable without the simulator.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from aqmlab.errors import ScenarioError
from aqmlab.scenario import Bulk, Dumbbell, Link, Mah, PackMime, ParkingLot, Scenario, Tcp
from aqmlab.scenario.queues import Queue


@dataclass
class PlanLink:
    """A point-to-point link ``a <-> b``; ``queues[0]`` serves a->b, ``queues[1]`` b->a."""

    a: int
    b: int
    rate_bps: float
    delay_s: float
    queues: tuple[Queue | None, Queue | None]
    probes: tuple[str | None, str | None] = (None, None)
    hold: tuple[bool, bool] = (False, False)  # random processing time on this direction
    flow_delay: bool = False  # per-connection extra delay (DelayBox) on this link


@dataclass
class PlanFlow:
    """One TCP connection from node ``src`` to node ``dst``."""

    group: int
    src: int
    dst: int
    tcp: Tcp
    start_s: float
    size_bytes: float  # 0 = unlimited (bulk)
    processing_s: float
    base_rtt_s: float


@dataclass
class PlanWeb:
    """Request/response connections of one web traffic group, as arrays (one per connection):
    the server sends ``response`` bytes after reading ``request`` bytes from the client,
    which opens the connection at ``start_s``; ``delay_s`` is its extra one-way delay."""

    group: int
    tcp: Tcp
    server: np.ndarray
    client: np.ndarray
    start_s: np.ndarray
    request: np.ndarray
    response: np.ndarray
    delay_s: np.ndarray
    base_rtt_s: np.ndarray
    redraws: int = 0  # draws skipped to satisfy PackMime.elephant (0 = the first draw)

    def __len__(self) -> int:
        return len(self.start_s)


@dataclass
class PlanBrowsing:
    """Browsing users of one Mah group: the users' scripts (CSR arrays, node indices
    already resolved) and, per object (= connection, in flow order), its server, client,
    extra one-way delay and base RTT."""

    group: int
    tcp: Tcp
    user_client: np.ndarray
    user_first_page: np.ndarray
    user_n_pages: np.ndarray
    user_start_s: np.ndarray
    page_server: np.ndarray
    page_first_object: np.ndarray
    page_n_objects: np.ndarray
    page_think_s: np.ndarray
    request: np.ndarray
    response: np.ndarray
    server: np.ndarray
    client: np.ndarray
    delay_s: np.ndarray
    base_rtt_s: np.ndarray
    is_primary: np.ndarray

    def __len__(self) -> int:
        return len(self.request)


@dataclass
class Plan:
    """Everything the simulator needs, in simulator-neutral terms."""

    nodes: list[str] = field(default_factory=list)
    links: list[PlanLink] = field(default_factory=list)
    flows: list[PlanFlow] = field(default_factory=list)
    hosts: dict[str, list[int]] = field(default_factory=dict)  # role -> node indices
    web: list[PlanWeb | PlanBrowsing] = field(default_factory=list)
    _adj: dict[int, list[tuple[int, float]]] = field(default_factory=dict)

    def add_node(self, label: str) -> int:
        self.nodes.append(label)
        return len(self.nodes) - 1

    def add_link(self, a: int, b: int, link: Link, scale: float, queues, probes=(None, None)):
        self.links.append(PlanLink(a, b, link.rate_bps * scale, link.delay_s, tuple(queues),
                                   tuple(probes)))
        self._adj.setdefault(a, []).append((b, link.delay_s))
        self._adj.setdefault(b, []).append((a, link.delay_s))
        return len(self.links) - 1

    def path_delay(self, src: int, dst: int) -> float:
        """One-way propagation delay along the (unique, tree) path from src to dst."""
        stack = [(src, -1, 0.0)]
        while stack:
            node, parent, d = stack.pop()
            if node == dst:
                return d
            stack.extend((n, node, d + w) for n, w in self._adj.get(node, []) if n != parent)
        raise ValueError(f"no path from {self.nodes[src]} to {self.nodes[dst]}")

    def probe_names(self) -> list[str]:
        return [p for link in self.links for p in link.probes if p]


def _delays(explicit: list | tuple | None, n: int, default: Link) -> list[Link]:
    if explicit is None:
        return [default] * n
    return [Link(rate=default.rate, delay=d) for d in explicit]


def _dumbbell(t: Dumbbell, plan: Plan) -> None:
    s, r = t.senders, t.receivers if t.receivers is not None else t.senders
    senders = [plan.add_node(f"S{i}") for i in range(s)]
    left, right = plan.add_node("R0"), plan.add_node("R1")
    receivers = [plan.add_node(f"D{j}") for j in range(r)]
    plan.hosts = {"e2e.senders": senders, "e2e.receivers": receivers}
    for i, link in zip(senders, _delays(t.sender_delays, s, t.access), strict=False):
        plan.add_link(i, left, link, t.rate_scale, (t.access_queue, t.access_queue))
    plan.add_link(left, right, t.bottleneck, t.rate_scale, (t.forward_queue, t.reverse_queue),
                  ("R0->R1", "R1->R0"))
    for j, link in zip(receivers, _delays(t.receiver_delays, r, t.access), strict=False):
        plan.add_link(right, j, link, t.rate_scale, (t.access_queue, t.access_queue))


def _parking_lot(t: ParkingLot, plan: Plan) -> None:
    routers = [plan.add_node(f"R{i}") for i in range(t.routers)]
    r = t.receivers if t.receivers is not None else t.senders
    cr = t.cross_receivers if t.cross_receivers is not None else t.cross_senders
    senders = [plan.add_node(f"S{i}") for i in range(t.senders)]
    receivers = [plan.add_node(f"D{j}") for j in range(r)]
    plan.hosts = {"e2e.senders": senders, "e2e.receivers": receivers}
    for i in senders:
        plan.add_link(i, routers[0], t.access, t.rate_scale, (t.access_queue, t.access_queue))
    for j in receivers:
        plan.add_link(routers[-1], j, t.access, t.rate_scale, (t.access_queue, t.access_queue))
    for h in range(t.hops):
        fwd, rev = t.hop_queues(h)
        plan.add_link(routers[h], routers[h + 1], t.hop_link(h), t.rate_scale, (fwd, rev),
                      (f"R{h}->R{h + 1}", f"R{h + 1}->R{h}"))
        cs = [plan.add_node(f"X{h}S{i}") for i in range(t.cross_senders)]
        cd = [plan.add_node(f"X{h}D{j}") for j in range(cr)]
        plan.hosts[f"cross:{h}.senders"], plan.hosts[f"cross:{h}.receivers"] = cs, cd
        for i in cs:
            plan.add_link(i, routers[h], t.access, t.rate_scale, (t.access_queue, t.access_queue))
        for j in cd:
            plan.add_link(routers[h + 1], j, t.access, t.rate_scale,
                          (t.access_queue, t.access_queue))


def make_plan(scenario: Scenario) -> Plan:
    """Expand ``scenario`` into nodes, links and flows (start times drawn from the seed)."""
    plan = Plan()
    topo = scenario.topology
    if isinstance(topo, Dumbbell):
        _dumbbell(topo, plan)
    elif isinstance(topo, ParkingLot):
        _parking_lot(topo, plan)
    else:  # pragma: no cover - the scenario model rejects other kinds
        raise TypeError(f"unsupported topology {type(topo).__name__}")
    run = scenario.run
    for g, group in enumerate(scenario.traffic):
        senders = plan.hosts[f"{group.path}.senders"]
        receivers = plan.hosts[f"{group.path}.receivers"]
        if group.senders is not None:
            senders = [senders[i] for i in group.senders]
        if group.receivers is not None:
            receivers = [receivers[i] for i in group.receivers]
        tcp = scenario.tcp.with_overrides(group.tcp) if group.tcp else scenario.tcp
        if isinstance(group, Mah):
            plan.web.append(_mah(plan, scenario, g, group, tcp, senders, receivers))
            continue
        if isinstance(group, PackMime):
            if group.direction == "reverse":
                senders, receivers = receivers, senders
            plan.web.append(_packmime(plan, scenario, g, group, tcp, senders, receivers))
            continue
        # Common random numbers: the draws depend only on seed, run and group index.
        rng = np.random.default_rng([run.seed, run.run, g])
        n = group.n_flows
        starts = group.start_s + rng.uniform(0.0, group.start_spread_s, size=n)
        if isinstance(group, Bulk):
            sizes, processing = [0.0] * n, group.processing_time_s
        else:
            sizes, processing = list(group.sizes_bytes), 0.0
        for k in range(n):
            src, dst = senders[k % len(senders)], receivers[k % len(receivers)]
            plan.flows.append(PlanFlow(g, src, dst, tcp, float(starts[k]), float(sizes[k]),
                                       processing, 2 * plan.path_delay(src, dst)))
    if any(f.processing_s > 0 for f in plan.flows):
        holders = {f.src for f in plan.flows if f.processing_s > 0}
        for link in plan.links:
            link.hold = (link.a in holders, link.b in holders)
    return plan


def _mark_delay_links(plan: Plan, clients: list[int]) -> None:
    for link in plan.links:
        if link.a in clients or link.b in clients:
            link.flow_delay = True


def _propagation(plan: Plan, server: np.ndarray, client: np.ndarray) -> np.ndarray:
    prop = {(s, c): 2 * plan.path_delay(int(s), int(c)) for s in set(server) for c in set(client)}
    return np.array([prop[(s, c)] for s, c in zip(server, client, strict=True)])


def _packmime(plan: Plan, scenario: Scenario, g: int, group: PackMime, tcp: Tcp,
              servers: list[int], clients: list[int]) -> PlanWeb:
    """Draw the group's connections for the whole run (common random numbers: the draws
    depend on seed, run and group index only), spread round-robin over clients/servers."""
    from aqmlab.workload.packmime import PackMimeWorkload  # noqa: PLC0415

    model = PackMimeWorkload(lrd=group.lrd, rtt="server" if group.rtt == "packmime" else None)
    conns, redraws = _packmime_draw(model, scenario, g, group)
    n = len(conns)
    k = np.arange(n)
    server = np.asarray(servers, dtype=float)[k % len(servers)]
    client = np.asarray(clients, dtype=float)[k % len(clients)]
    rtt = conns["rtt_s"].to_numpy(dtype=float) if group.rtt == "packmime" else np.zeros(n)
    if group.rtt == "packmime":
        _mark_delay_links(plan, clients)
    return PlanWeb(g, tcp, server, client, conns["start_s"].to_numpy(dtype=float),
                   conns["request_bytes"].to_numpy(dtype=float),
                   conns["response_bytes"].to_numpy(dtype=float), rtt / 2,
                   _propagation(plan, server, client) + rtt, redraws)


#: Most redraws tried for PackMime.elephant before giving up.
MAX_REDRAWS = 1000


def _packmime_draw(model, scenario: Scenario, g: int, group: PackMime):
    """The group's connections and the number of draws skipped. Draw k uses the stream
    instance ``g + 100 k``, so draw 0 is the workload without the ``elephant`` rule; with
    it, the first draw having a response >= ``elephant`` that starts before warm-up +
    ``elephant_before`` is kept (Weigle et al.'s seed selection); runs that end before that
    time are not subject to the rule (draw 0). The choice depends only on seed, run, group
    index and the group's workload fields."""
    run = scenario.run
    size = group.elephant_bytes
    deadline = run.warmup_s + group.elephant_before_s
    if deadline > run.duration_s:
        size = None  # a run shorter than the rule's window (tests, quick profiles): no rule
    for k in range(MAX_REDRAWS + 1 if size is not None else 1):
        conns = model.generate(group.rate, run.duration_s - group.start_s, seed=run.seed,
                               run=run.run, instance=g + 100 * k, t0=group.start_s)
        if size is None or ((conns["response_bytes"].to_numpy() >= size)
                            & (conns["start_s"].to_numpy() < deadline)).any():
            return conns, k
    raise ScenarioError(
        f"traffic[{g}].elephant", group.elephant,
        f"no draw of the workload (k = 0..{MAX_REDRAWS}) has a response >= {size} B that "
        f"starts before {deadline:g} s (warm-up + elephant_before)",
        "raise rate, elephant_before or the duration, or lower elephant")


def _mah(plan: Plan, scenario: Scenario, g: int, group: Mah, tcp: Tcp,
         servers: list[int], clients: list[int]) -> PlanBrowsing:
    """Users' scripts for the whole run; user u browses from client u mod len(clients)."""
    from aqmlab.workload.delays import PairRtt  # noqa: PLC0415
    from aqmlab.workload.mah import MahWorkload  # noqa: PLC0415

    run = scenario.run
    model = MahWorkload(n_servers=len(servers), server_choice=group.server_choice,
                        think_cap_s=group.think_cap_s,
                        primary_reply_quirk=group.primary_reply_quirk,
                        no_think_on_switch=group.no_think_on_switch,
                        start_spread_s=group.start_spread_s)
    sc = model.generate(group.users, run.duration_s, seed=run.seed, run=run.run + 1000 * g)
    a = sc.arrays()
    user_machine = np.arange(sc.n_users) % len(clients)
    page_machine = user_machine[a["page_user"]]
    obj_page = np.repeat(np.arange(sc.n_pages), a["page_n_objects"])
    obj_server_idx = a["page_server"][obj_page]
    obj_client_idx = page_machine[obj_page]
    server = np.asarray(servers, float)[obj_server_idx]
    client = np.asarray(clients, float)[obj_client_idx]
    if group.rtt == "pairs":
        pairs = PairRtt()
        rtt = pairs.lookup(obj_client_idx % pairs.n_clients, obj_server_idx % pairs.n_servers)
        _mark_delay_links(plan, clients)
    else:
        rtt = np.zeros(len(server))
    return PlanBrowsing(
        g, tcp, np.asarray(clients, float)[user_machine], a["user_first_page"][:-1].astype(float),
        np.diff(a["user_first_page"]).astype(float), a["user_start_s"] + group.start_s,
        np.asarray(servers, float)[a["page_server"]], a["page_first_object"].astype(float),
        a["page_n_objects"].astype(float), a["page_think_s"].astype(float),
        a["object_request_bytes"].astype(float), a["object_reply_bytes"].astype(float),
        server, client, rtt / 2, _propagation(plan, server, client) + rtt,
        a["object_is_primary"])
