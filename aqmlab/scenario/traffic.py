"""Traffic groups, polymorphic by ``kind`` (registry :data:`TRAFFIC`).

Common fields: ``path`` "e2e" or "cross:<hop>" (parking lot; checked against the topology
by :class:`~aqmlab.scenario.spec.Scenario`); ``senders``/``receivers`` optional host indices
of that path (None = all), flows spread round-robin over them; ``tcp`` optional dict of
:class:`~aqmlab.scenario.tcp.Tcp` overrides for this group; flow ``i`` starts at
``start + U(0, start_spread)``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from aqmlab.errors import ScenarioError
from aqmlab.scenario.tcp import Tcp
from aqmlab.units import (
    Spec,
    check_bool,
    check_float,
    check_int,
    check_kind,
    check_list,
    check_str,
    check_time,
    parse_bytes,
    parse_time,
    prefixed,
    set_attr,
)

__all__ = ["TrafficBase", "Bulk", "Transfers", "PackMime", "Mah", "Traffic", "TRAFFIC",
           "traffic_from_dict"]

_CROSS_RE = re.compile(r"^cross:(\d+)$")
_ELEPHANT_BEFORE = "1000s"  # PackMime.elephant_before's default
CALIBRATION_BASES = ("expected", "measured")  # PackMime.calibrate_on


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


@dataclass(frozen=True, kw_only=True)
class TrafficBase(Spec):
    """Fields and checks shared by every traffic group (see the module docstring)."""

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
        raise NotImplementedError


@dataclass(frozen=True, kw_only=True)
class Bulk(TrafficBase):
    """``flows`` long-lived flows; ``processing_time`` is the bound of a per-sender random
    processing delay drawn uniformly from [0, value] (Qiu, Zhang & Keshav, §4)."""

    KIND: ClassVar[str] = "bulk"
    kind: str = "bulk"
    flows: int = 1
    processing_time: str | float = "0s"

    def __post_init__(self) -> None:
        super().__post_init__()
        check_int(self.flows, "flows", ge=1)
        check_time(self.processing_time, "processing_time")

    @property
    def n_flows(self) -> int:
        return self.flows

    @property
    def processing_time_s(self) -> float:
        return parse_time(self.processing_time, "processing_time")


@dataclass(frozen=True, kw_only=True)
class Transfers(TrafficBase):
    """``count`` finite transfers of ``size`` bytes each (or a list of ``count`` sizes)."""

    KIND: ClassVar[str] = "transfers"
    kind: str = "transfers"
    count: int = 1
    size: str | int | tuple[str | int, ...] = "20MiB"

    def __post_init__(self) -> None:
        super().__post_init__()
        check_int(self.count, "count", ge=1)
        if isinstance(self.size, (list, tuple)):
            sizes = tuple(self.size)
            if len(sizes) != self.count:
                raise ScenarioError(
                    "size", self.size, f"a list of sizes must have count = {self.count} entries"
                )
            for i, s in enumerate(sizes):
                parse_bytes(s, f"size[{i}]")
            set_attr(self, "size", sizes)
        else:
            parse_bytes(self.size, "size")

    @property
    def n_flows(self) -> int:
        return self.count

    @property
    def sizes_bytes(self) -> tuple[int, ...]:
        """The size of each of the ``count`` transfers, in bytes."""
        if isinstance(self.size, tuple):
            return tuple(parse_bytes(s, "size") for s in self.size)
        return (parse_bytes(self.size, "size"),) * self.count


@dataclass(frozen=True, kw_only=True)
class PackMime(TrafficBase):
    """PackMime-HTTP (Cao et al. 2004): open-loop HTTP/1.0, one TCP connection per
    request/response, ``rate`` new connections per second from the clients (the group's
    receivers) to the servers (its senders), which send the responses. Give ``rate``, or
    ``load`` (fraction of the bottleneck) with a ``calibration`` table written by
    ``aqmlab calibrate`` (a path relative to the scenario file); the rate is then read
    from the table when the scenario is made, and ``load`` stays as its label.
    ``calibrate_on`` chooses the table's load column: "expected" (default; the model's mean
    payload times the measured overhead, unbiased by heavy tails) or "measured" (the
    utilisation the calibration runs measured, as the papers calibrated: heavy tails bias
    it low, so it gives higher rates, more so the shorter the calibration runs). ``rtt`` "packmime" gives each connection a base RTT drawn from
    PackMime's RTT distribution (added in both directions on the client's access link);
    "none" uses only the topology's delays. ``lrd`` adds FARIMA long-range dependence.
    ``direction`` "reverse" swaps the roles: servers on the receivers' side, so responses
    cross the reverse bottleneck (two-way traffic = one forward and one reverse group).

    ``elephant`` (a size such as "10MB"; default None = no rule) asks for at least one
    response of that size or more that starts before ``elephant_before`` (default "1000s")
    after the warm-up, and before the end of the run: Weigle et al.'s rule that every run
    has a 10 MB response starting before 1000 s after the warm-up. It is enforced by seed
    selection with common random numbers: the planner keeps the first draw k = 0, 1, ...,
    1000 of the group that satisfies it (draw 0 is the workload without the rule; a
    response starting before the warm-up also counts), so the choice depends only
    on seed, run, group index and the workload fields, never on queues or TCP, and every
    arm of a comparison sees the same workload. The number of draws skipped is the
    summary's ``workload_redraws``. ``elephant_before`` needs ``elephant``; both are left
    out of ``to_dict`` while ``elephant`` is None, so hashes without the rule are unchanged.
    """

    KIND: ClassVar[str] = "packmime"
    kind: str = "packmime"
    rate: float | None = None
    load: float | None = None
    calibration: str | None = None
    calibrate_on: str = "expected"
    rtt: str = "packmime"
    lrd: bool = False
    direction: str = "forward"
    elephant: str | int | None = None
    elephant_before: str | float = _ELEPHANT_BEFORE

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.load is not None:
            set_attr(self, "load", check_float(self.load, "load", gt=0))
            if self.calibration is None and self.rate is None:
                raise ScenarioError("calibration", None, "load needs a calibration table",
                                    "run `aqmlab calibrate` first, or give rate")
        if self.calibrate_on not in CALIBRATION_BASES:
            raise ScenarioError("calibrate_on", self.calibrate_on,
                                "one of " + ", ".join(repr(b) for b in CALIBRATION_BASES))
        if self.calibrate_on != "expected" and (self.load is None or self.calibration is None):
            raise ScenarioError("calibrate_on", self.calibrate_on,
                                "calibrate_on needs load and a calibration table",
                                "give load and calibration, or leave calibrate_on out")
        if self.load is not None and self.calibration is not None:
            from aqmlab.workload.calibration import rate_for_load  # noqa: PLC0415

            try:
                set_attr(self, "rate", rate_for_load(self.calibration, self.load,
                                                     basis=self.calibrate_on))
            except (OSError, ValueError, KeyError) as err:
                columns = "load, rate" + (", measured_load" if self.calibrate_on == "measured"
                                          else "")
                raise ScenarioError("calibration", self.calibration,
                                    f"a readable calibration table ({columns}): {err}") from None
        if self.rate is None:
            raise ScenarioError("rate", None, "give rate, or load with a calibration table")
        set_attr(self, "rate", check_float(self.rate, "rate", gt=0))
        if self.rtt not in ("packmime", "none"):
            raise ScenarioError("rtt", self.rtt, "one of 'packmime', 'none'")
        check_bool(self.lrd, "lrd")
        if self.direction not in ("forward", "reverse"):
            raise ScenarioError("direction", self.direction, "one of 'forward', 'reverse'")
        if self.elephant is not None:
            parse_bytes(self.elephant, "elephant")
        before = check_time(self.elephant_before, "elephant_before", positive=True)
        if self.elephant is None:
            if before != parse_time(_ELEPHANT_BEFORE, "elephant_before"):
                raise ScenarioError("elephant_before", self.elephant_before,
                                    "elephant_before needs elephant (the response size)",
                                    'e.g. elephant = "10MB"')
            set_attr(self, "elephant_before", _ELEPHANT_BEFORE)  # omitted from to_dict

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        if d["elephant"] is None:  # no rule: keep the hashes of older scenarios
            del d["elephant"], d["elephant_before"]
        if d["calibrate_on"] == "expected":  # the default: keep the hashes of older scenarios
            del d["calibrate_on"]
        return d

    @property
    def n_flows(self) -> int:
        """Connections are drawn when the run is planned: 0 here (variable)."""
        return 0

    @property
    def elephant_bytes(self) -> int | None:
        """``elephant`` in bytes (None = no rule)."""
        return None if self.elephant is None else parse_bytes(self.elephant, "elephant")

    @property
    def elephant_before_s(self) -> float:
        return parse_time(self.elephant_before, "elephant_before")


@dataclass(frozen=True, kw_only=True)
class Mah(TrafficBase):
    """Browsing users (Mah 1997 as modified by the UNC generator; Christiansen 2001 §3.4):
    ``users`` users spread over the clients (the group's receivers), each fetching pages
    from servers (its senders) chosen ``server_choice``; a page is a primary object alone,
    then its secondary objects over at most two concurrent connections, one TCP connection
    per object; think times are capped at ``think_cap``. ``primary_reply_quirk`` and
    ``no_think_on_switch`` keep the UNC generator's two quirks. ``rtt`` "pairs" gives each
    (client, server) pair the thesis' measured RTT (Table 4.1, 7 x 7); "none" uses only
    the topology's delays. Users start within ``start_spread`` (default 1 s)."""

    KIND: ClassVar[str] = "mah"
    kind: str = "mah"
    users: int = 100
    start_spread: str | float = "1s"
    server_choice: str = "uniform"
    think_cap: str | float | None = "600s"
    primary_reply_quirk: bool = True
    no_think_on_switch: bool = True
    rtt: str = "pairs"

    def __post_init__(self) -> None:
        super().__post_init__()
        check_int(self.users, "users", ge=1)
        if self.server_choice not in ("uniform", "zipf"):
            raise ScenarioError("server_choice", self.server_choice, "one of 'uniform', 'zipf'")
        if self.think_cap is not None:
            check_time(self.think_cap, "think_cap", positive=True)
        check_bool(self.primary_reply_quirk, "primary_reply_quirk")
        check_bool(self.no_think_on_switch, "no_think_on_switch")
        if self.rtt not in ("pairs", "none"):
            raise ScenarioError("rtt", self.rtt, "one of 'pairs', 'none'")

    @property
    def n_flows(self) -> int:
        """Connections depend on the users' scripts: 0 here (variable)."""
        return 0

    @property
    def think_cap_s(self) -> float | None:
        return None if self.think_cap is None else parse_time(self.think_cap, "think_cap")


Traffic = Bulk | Transfers | PackMime | Mah
TRAFFIC: dict[str, type[TrafficBase]] = {
    c.KIND: c for c in (Bulk, Transfers, PackMime, Mah)}


def traffic_from_dict(d: Mapping[str, Any] | TrafficBase, field: str = "") -> Traffic:
    """Build a traffic group from a dict; a missing ``kind`` means "bulk"."""
    if isinstance(d, TrafficBase):
        return d  # type: ignore[return-value]
    if not isinstance(d, Mapping):
        raise ScenarioError(field or "traffic", d, "must be a traffic group or a table/dict")
    with prefixed(field):
        cls = TRAFFIC[check_kind(d.get("kind", "bulk"), "kind", TRAFFIC)]
    return cls.from_dict(d, field)  # type: ignore[return-value]
