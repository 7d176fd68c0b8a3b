"""Expand a Scenario into a network plan: nodes, links, queues, connections. Pure Python.

The plan is what every engine builds its simulation from (ns-3's C++ Experiment, ns-2's
Tcl script), so both simulate the very same connections. Keeping it separate makes the
topology logic (who connects to whom, which queue sits where, each flow's base RTT and
start time) testable without a simulator. Each traffic kind plans its own connections
(:meth:`aqmlab.kinds.traffic.TrafficBase.plan`) through a :class:`GroupPlanner`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from aqmlab.kinds.queues import QueueBase as Queue
from aqmlab.kinds.tcp import Tcp
from aqmlab.kinds.traffic.base import TrafficBase
from aqmlab.scenario import Dumbbell, Link, ParkingLot, Scenario
from aqmlab.workload.tick_phase import boot_seed


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
    delay_node: int = -1  # per-connection extra delay (DelayBox): the client end, or -1

    @property
    def flow_delay(self) -> bool:
        """Whether connections get their own extra delay on this link (DelayBox)."""
        return self.delay_node >= 0


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
    boot_seed: int = 1  # seed of its RTO clock's tick phase (aqmlab.workload.tick_phase)


@dataclass
class PlanWeb:
    """Request/response connections of one web traffic group, as arrays (one per connection):
    the server sends ``response`` bytes ``server_delay_s`` after reading ``request`` bytes
    from the client, which opens the connection at ``start_s``; ``delay_s`` is its extra
    one-way delay."""

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
    #: seconds the server waits between the whole request and its response (None: none)
    server_delay_s: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.start_s)

    @property
    def server_delays(self) -> np.ndarray:
        """``server_delay_s``, zeros when there is none."""
        if self.server_delay_s is None:
            return np.zeros(len(self))
        return self.server_delay_s


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
    #: Frames carry ns-3's PPP header on the wire (topology ``link_header`` "ppp").
    ppp_frames: bool = True
    _adj: dict[int, list[tuple[int, float]]] = field(default_factory=dict)
    _tree: tuple | None = field(default=None, repr=False, compare=False)

    def add_node(self, label: str) -> int:
        self.nodes.append(label)
        return len(self.nodes) - 1

    def add_link(self, a: int, b: int, link: Link, scale: float, queues, probes=(None, None)):
        """A link at ``scale`` times its rate, in whole bits per second: ns-3's DataRate is
        an integer, and ns-2 gets the same rate (Pentikousis' 1.5 Mb/s x 1.028767 is
        1,543,150.5 b/s: half a bit per second apart, the engines' clocks drifted 1.6 us
        every 5 s)."""
        rate = float(round(link.rate_bps * scale))
        self.links.append(PlanLink(a, b, rate, link.delay_s, tuple(queues), tuple(probes)))
        self._adj.setdefault(a, []).append((b, link.delay_s))
        self._adj.setdefault(b, []).append((a, link.delay_s))
        return len(self.links) - 1

    def path_delay(self, src: int, dst: int) -> float:
        """One-way propagation delay along the (unique, tree) path from src to dst, summed
        from src's end. Answered from a rooted copy of the tree, built once per set of
        links: a walk to the common ancestor, not a search through a hub's ~1000
        neighbours per flow."""
        if self._tree is None or self._tree[0] != len(self.links):
            self._tree = (len(self.links), *self._root_tree())
        _, parent, up_delay, depth = self._tree
        if src == dst:
            return 0.0
        if src not in depth or dst not in depth:
            raise ValueError(f"no path from {self.nodes[src]} to {self.nodes[dst]}")
        ups, downs = [], []
        a, b = src, dst
        while a != b:
            if depth[a] >= depth[b]:
                ups.append(up_delay[a])
                a = parent[a]
            else:
                downs.append(up_delay[b])
                b = parent[b]
        d = 0.0
        for w in ups + downs[::-1]:
            d += w
        return d

    def round_trips(self, server: np.ndarray, client: np.ndarray) -> np.ndarray:
        """Twice the path delay of each (server, client) pair, asked once per distinct pair."""
        pairs = list(zip(server, client, strict=True))
        rtt = {(s, c): 2 * self.path_delay(int(s), int(c)) for s, c in set(pairs)}
        return np.array([rtt[pair] for pair in pairs])

    def _root_tree(self) -> tuple[dict[int, int], dict[int, float], dict[int, int]]:
        """Parent, delay to the parent and depth of every node reachable from the first
        linked node (the root)."""
        root = next(iter(self._adj), 0)
        parent, up_delay, depth = {root: -1}, {root: 0.0}, {root: 0}
        stack = [root]
        while stack:
            node = stack.pop()
            for n, w in self._adj.get(node, []):
                if n not in depth:
                    parent[n], up_delay[n], depth[n] = node, w, depth[node] + 1
                    stack.append(n)
        return parent, up_delay, depth

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


_TOPOLOGIES = {"dumbbell": _dumbbell, "parking_lot": _parking_lot}


@dataclass
class GroupPlanner:
    """The :class:`~aqmlab.kinds.traffic.PlanContext` of one traffic group: where its
    connections go and how they are added to the plan."""

    plan: Plan
    group: int
    seed: int
    run: int
    duration_s: float
    warmup_s: float
    tcp: Tcp
    senders: list[int]
    receivers: list[int]

    def path_delay(self, src: int, dst: int) -> float:
        return self.plan.path_delay(src, dst)

    def propagation(self, server: np.ndarray, client: np.ndarray) -> np.ndarray:
        return self.plan.round_trips(server, client)

    def add_flow(self, src: int, dst: int, start_s: float, size_bytes: float,
                 processing_s: float) -> None:
        self.plan.flows.append(PlanFlow(self.group, src, dst, self.tcp, start_s, size_bytes,
                                        processing_s, 2 * self.plan.path_delay(src, dst),
                                        boot_seed(self.seed, self.run, len(self.plan.flows))))

    def add_web(self, **arrays) -> None:
        self.plan.web.append(PlanWeb(group=self.group, tcp=self.tcp, **arrays))

    def add_browsing(self, **arrays) -> None:
        self.plan.web.append(PlanBrowsing(group=self.group, tcp=self.tcp, **arrays))

    def delay_per_connection(self, clients: list[int]) -> None:
        for link in self.plan.links:
            if link.a in clients or link.b in clients:
                link.delay_node = link.a if link.a in clients else link.b


def group_hosts(plan: Plan, group: TrafficBase) -> tuple[list[int], list[int]]:
    """A traffic group's (sender, receiver) nodes: its path's hosts, narrowed to the
    group's ``senders`` / ``receivers`` indices when it gives them."""
    senders = plan.hosts[f"{group.path}.senders"]
    receivers = plan.hosts[f"{group.path}.receivers"]
    if group.senders is not None:
        senders = [senders[i] for i in group.senders]
    if group.receivers is not None:
        receivers = [receivers[i] for i in group.receivers]
    return list(senders), list(receivers)


def make_plan(scenario: Scenario) -> Plan:
    """Expand ``scenario`` (resolved first) into nodes, links and connections (start times
    and workloads drawn from the seed)."""
    scenario = scenario.resolve()
    topo = scenario.topology
    plan = Plan(ppp_frames=topo.link_header == "ppp")
    _TOPOLOGIES[topo.kind](topo, plan)
    run = scenario.run
    for g, group in enumerate(scenario.traffic):
        senders, receivers = group_hosts(plan, group)
        tcp = scenario.tcp.with_overrides(group.tcp) if group.tcp else scenario.tcp
        group.plan(GroupPlanner(plan, g, run.seed, run.run, run.duration_s, run.warmup_s, tcp,
                                senders, receivers))
    if any(f.processing_s > 0 for f in plan.flows):
        holders = {f.src for f in plan.flows if f.processing_s > 0}
        for link in plan.links:
            link.hold = (link.a in holders, link.b in holders)
    return plan
