"""What every traffic group shares: where it runs (path, hosts), its TCP overrides, when it
starts; and the hooks a traffic kind implements for the planner, the cost model and the
explorer.

Common fields: ``path`` "e2e" or "cross:<hop>" (parking lot; checked against the topology
by :class:`~aqmlab.scenario.spec.Scenario`); ``senders``/``receivers`` optional host indices
of that path (None = all), flows spread round-robin over them; ``tcp`` optional dict of
:class:`~aqmlab.kinds.tcp.Tcp` overrides for this group; flow ``i`` starts at
``start + U(0, start_spread)``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

import numpy as np

from aqmlab.errors import ScenarioError
from aqmlab.kinds.controls import Control
from aqmlab.kinds.registry import Registry
from aqmlab.kinds.tcp import Tcp
from aqmlab.units import (
    Spec,
    check_int,
    check_list,
    check_str,
    check_time,
    parse_time,
    prefixed,
    set_attr,
)

__all__ = ["TRAFFIC", "TrafficBase", "PlanContext", "ExplorerTraffic"]

_CROSS_RE = re.compile(r"^cross:(\d+)$")


def _check_hosts(value: Any, field: str) -> tuple[int, ...] | None:
    if value is None:
        return None
    hosts = tuple(
        check_int(h, f"{field}[{i}]", ge=0) for i, h in enumerate(check_list(value, field))
    )
    if not hosts:
        raise ScenarioError(field, value, f"{field} must be None (all hosts) or a non-empty list")
    if len(set(hosts)) != len(hosts):
        raise ScenarioError(field, value, f"{field} must not repeat a host index")
    return hosts


class PlanContext(Protocol):
    """What the planner gives a traffic kind to turn one group into connections
    (:meth:`TrafficBase.plan`); node indices are the plan's."""

    group: int  # the group's index in scenario.traffic
    seed: int
    run: int
    duration_s: float
    warmup_s: float
    tcp: Tcp  # the scenario's Tcp with the group's overrides
    senders: list[int]  # the group's sender hosts (its ``senders`` selection applied)
    receivers: list[int]

    def path_delay(self, src: int, dst: int) -> float:
        """One-way propagation delay from ``src`` to ``dst``."""
        ...

    def propagation(self, server: np.ndarray, client: np.ndarray) -> np.ndarray:
        """Round-trip propagation delay of each (server, client) pair."""
        ...

    def add_flow(self, src: int, dst: int, start_s: float, size_bytes: float,
                 processing_s: float) -> None:
        """A bulk flow (size 0) or finite transfer from ``src`` to ``dst``."""
        ...

    def add_web(self, **arrays: Any) -> None:
        """Request/response connections (see :class:`aqmlab.plan.PlanWeb`)."""
        ...

    def add_browsing(self, **arrays: Any) -> None:
        """Browsing users' scripts (see :class:`aqmlab.plan.PlanBrowsing`)."""
        ...

    def delay_per_connection(self, clients: list[int]) -> None:
        """Give each connection its own extra delay on the links of ``clients`` (DelayBox)."""
        ...


@dataclass(frozen=True)
class ExplorerTraffic:
    """How the explorer offers a traffic kind: its key in the traffic dropdown (``key``,
    e.g. "web"), the label, and the one control that sizes it."""

    key: str
    label: str
    control: Control


@dataclass(frozen=True, kw_only=True)
class TrafficBase(Spec):
    """A traffic group (see the module docstring). A kind is a frozen dataclass subclass
    that sets ``KIND`` and implements :meth:`plan`; ``EXPLORER`` offers it in the explorer."""

    KIND: ClassVar[str]
    EXPLORER: ClassVar[ExplorerTraffic | None] = None

    kind: str = ""
    path: str = "e2e"
    senders: tuple[int, ...] | None = None
    receivers: tuple[int, ...] | None = None
    tcp: dict[str, Any] | None = None
    start: str | float = "0s"
    start_spread: str | float = "0s"

    def __post_init__(self) -> None:
        self._check_kind()
        path = check_str(self.path, "path")
        if path != "e2e" and not _CROSS_RE.match(path):
            raise ScenarioError("path", path, "path must be 'e2e' or 'cross:<hop index>'")
        set_attr(self, "senders", _check_hosts(self.senders, "senders"))
        set_attr(self, "receivers", _check_hosts(self.receivers, "receivers"))
        if self.tcp is not None:
            if not isinstance(self.tcp, Mapping):
                raise ScenarioError("tcp", self.tcp, "tcp must be a table/dict of Tcp fields")
            set_attr(self, "tcp", dict(self.tcp))
            with prefixed("tcp"):
                try:
                    Tcp().with_overrides(self.tcp)
                except ScenarioError as err:
                    # Cross-field errors on fields not overridden here (e.g. dctcp needs ecn)
                    # depend on the scenario's Tcp; the Scenario re-checks them.
                    if err.field in self.tcp:
                        raise
        check_time(self.start, "start")
        check_time(self.start_spread, "start_spread")

    @property
    def cross_hop(self) -> int | None:
        """The hop index of a "cross:<i>" path, None for "e2e"."""
        m = _CROSS_RE.match(self.path)
        return int(m.group(1)) if m else None

    @property
    def start_s(self) -> float:
        return parse_time(self.start, "start")

    @property
    def start_spread_s(self) -> float:
        return parse_time(self.start_spread, "start_spread")

    @property
    def n_flows(self) -> int:
        """Connections known before planning (0 when they are drawn: web traffic)."""
        raise NotImplementedError

    @property
    def connection_rate(self) -> float:
        """New connections per second (open-loop web traffic; 0 otherwise)."""
        return 0.0

    def finite_bytes(self) -> int | None:
        """Total bytes when the group is a set of finite transfers; None otherwise."""
        return None

    def cpu_per_s(self, hops_factor: float) -> float | None:
        """Expected CPU-s per simulated second of this group's own traffic (the cost model
        of :mod:`aqmlab.campaign.cost`), or None when its cost is the bottleneck's (bulk
        flows fill the link whatever their number). ``hops_factor`` grows with the hops a
        connection crosses (1 for a dumbbell)."""
        return None

    def resolved(self) -> TrafficBase:
        """This group with values read from files filled in (see
        :meth:`aqmlab.scenario.Scenario.resolve`); itself by default."""
        return self

    def plan(self, ctx: PlanContext) -> None:
        """Turn the group into connections through ``ctx`` (see :class:`PlanContext`)."""
        raise NotImplementedError(f"traffic kind {self.KIND!r} cannot be planned")

    def explorer_describe(self) -> tuple[str, str]:
        """``(name, value)`` that sizes this group in the explorer's legends and tables."""
        return self.KIND, str(self.n_flows)

    @classmethod
    def explorer_group(cls, value: float, rate_bps: float) -> dict[str, Any]:
        """The group the explorer builds for its control's ``value`` on a bottleneck of
        ``rate_bps``."""
        raise NotImplementedError


#: The traffic kinds by ``kind``.
TRAFFIC: Registry[type[TrafficBase]] = Registry("traffic", "traffic",
                                                not_a_spec="must be a traffic group or a table/dict")
TRAFFIC.base = TrafficBase


def plan_flows(ctx: PlanContext, group: TrafficBase, sizes: list[float],
               processing_s: float) -> None:
    """One flow per size, spread round-robin over the group's senders and receivers, each
    starting at ``start + U(0, start_spread)``. Common random numbers: the draws depend only
    on seed, run and group index."""
    rng = np.random.default_rng([ctx.seed, ctx.run, ctx.group])
    starts = group.start_s + rng.uniform(0.0, group.start_spread_s, size=len(sizes))
    senders, receivers = ctx.senders, ctx.receivers
    for k, size in enumerate(sizes):
        ctx.add_flow(senders[k % len(senders)], receivers[k % len(receivers)],
                     float(starts[k]), float(size), processing_s)
