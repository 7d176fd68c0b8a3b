"""The top-level :class:`Scenario`, its :class:`RunControl`, TOML/JSON io and identity hash."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomli_w

from aqmlab.errors import ScenarioError
from aqmlab.kinds.tcp import Tcp
from aqmlab.kinds.traffic import Bulk, TrafficBase, traffic_from_dict
from aqmlab.scenario import limits
from aqmlab.scenario.files import read_table_file
from aqmlab.scenario.topology import Dumbbell, ParkingLot, Topology, topology_from_dict
from aqmlab.units import (
    Spec,
    canonical_units,
    check_bool,
    check_choice,
    check_int,
    check_list,
    check_str,
    check_time,
    coerce,
    parse_time,
    plain,
    prefixed,
    set_attr,
)

__all__ = ["ENGINE_NAMES", "RunControl", "Scenario", "as_scenario", "parse_path"]

#: The simulator engines a scenario can name in ``run.engine`` (aqmlab.engines).
ENGINE_NAMES = ("ns3", "ns2")

#: ``run.random_stream``: where ns-3's RED early-drop tests and sender processing times draw.
RANDOM_STREAMS = ("ns2", "ns3")
#: ``run.event_clock``: how ns-3 puts each scheduled event's time on its integer clock.
EVENT_CLOCKS = ("exact", "ns2")


@dataclass(frozen=True, kw_only=True)
class RunControl(Spec):
    """How a run is driven.

    ``duration`` simulated time > 0; statistics ignore the first ``warmup`` (< duration);
    ``seed``/``run`` select the ns-3 RNG stream; ``sample_interval`` the queue-length
    sampling period (None = no time series; written ``false`` in TOML); ``stop_when_done``
    ends the run early once every finite transfer completed; ``max_wall_time`` a wall-clock
    limit in seconds (None = none); ``stop_after_responses`` ends the run once that many web
    responses that started after the warm-up have completed (None = run for ``duration``);
    ``engine`` the simulator: "ns3" (default) or "ns2" (ns-2.35, the papers' simulator, for
    the set-ups it supports; left out of ``to_dict`` when "ns3", so older hashes hold).
    ``force`` skips the soft limits of :mod:`aqmlab.scenario.limits` (the deliberate giant
    run; not in the hash, written only when true).
    ``random_stream`` (ns-3 engine): "ns2" (default) draws RED's early-drop tests and the
    senders' random processing times from one stream per run, ns-2.35's default generator
    (MRG32k3a) seeded as the ns-2 engine seeds it, in event order as ns-2.35 does, so that
    both engines draw the same numbers. Replayed web connections also take their RTO clock
    phases from it where ns-2.35's pooled Full-TCP agents draw them, DelayBox's per-packet
    draws counted in between (0.8.19, cpp/web.h "WebBootPhases"; with "ns3" a hash of the
    connection's ports). "ns3": each queue disc its own ns-3 stream (aqmlab
    before 0.7.0). Other AQMs (CoDel, PIE, ...) keep ns-3's streams; the ns-2 engine always
    uses its generator. Written only when "ns3", so older hashes hold.
    ``event_clock`` (ns-3 engine): "exact" (default) adds integer time steps exactly, as
    ns-3 does; "ns2" schedules every event at the step nearest ns-2.35's double
    fl(now + delay), now being ns-2's double of the current event, starts a bulk flow at
    its start time's own double (``$ns at`` from the set-up; 0.8.33) and a replayed web
    connection where ns-2's chain of ``$ns at`` puts it, releases a sender's processing
    hold at fl(now + the draw) (ns-2's ``delsnd_timer_``; 0.8.34), and times each link's
    transmission end and arrival as ns-2's ``LinkDelay`` does (it supersedes
    ``topology.tx_time``; cpp/ns2_event_clock.h). The two differ only where events coincide
    in exact arithmetic, which deterministic set-ups (every time on one lattice of link
    times and timer periods) make common: there ns-2.35's roundings, not the order of
    scheduling, decide which runs first (Pentikousis' 10 clients at QL 4: a retransmission
    timer and another flow's ACK at 514.055 s; with "ns2" all 12,180 drops of that run are
    ns-2.35's). On this clock a listener's fork runs inside the SYN's event, as ns-2's
    Full-TCP answers a SYN there (ns-3 forks in an event of its own, after every other event
    due at that instant; 0.8.29). The ns-2 engine is this clock. Written only when "ns2", so
    older hashes hold.
    """

    duration: str | float = "100s"
    warmup: str | float = "0s"
    seed: int = 1
    run: int = 1
    sample_interval: str | float | None = "100ms"
    stop_when_done: bool = True
    max_wall_time: str | float | None = None
    stop_after_responses: int | None = None
    engine: str = "ns3"
    force: bool = False
    random_stream: str = "ns2"
    event_clock: str = "exact"

    def __post_init__(self) -> None:
        duration = check_time(self.duration, "duration", positive=True)
        if check_time(self.warmup, "warmup") >= duration:
            raise ScenarioError(
                "warmup", self.warmup, f"warmup must be < duration ({self.duration})"
            )
        check_int(self.seed, "seed", ge=1, le=2**32 - 1)
        check_int(self.run, "run", ge=1)
        if self.sample_interval is False:
            set_attr(self, "sample_interval", None)
        if self.sample_interval is not None:
            check_time(self.sample_interval, "sample_interval", positive=True)
        check_bool(self.stop_when_done, "stop_when_done")
        if self.max_wall_time is not None:
            check_time(self.max_wall_time, "max_wall_time", positive=True)
        if self.stop_after_responses is not None:
            check_int(self.stop_after_responses, "stop_after_responses", ge=1)
        check_choice(self.engine, "engine", ENGINE_NAMES)
        check_bool(self.force, "force")
        check_choice(self.random_stream, "random_stream", RANDOM_STREAMS)
        check_choice(self.event_clock, "event_clock", EVENT_CLOCKS)

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        if d["engine"] == "ns3":  # the default: older scenarios keep their hashes
            del d["engine"]
        if not d["force"]:  # written only when true: older scenarios keep their form
            del d["force"]
        if d["random_stream"] == "ns2":  # the default: older scenarios keep their hashes
            del d["random_stream"]
        if d["event_clock"] == "exact":  # the default: older scenarios keep their hashes
            del d["event_clock"]
        return d

    @property
    def duration_s(self) -> float:
        return parse_time(self.duration, "duration")

    @property
    def warmup_s(self) -> float:
        return parse_time(self.warmup, "warmup")

    @property
    def sample_interval_s(self) -> float | None:
        si = self.sample_interval
        return None if si is None else parse_time(si, "sample_interval")

    @property
    def max_wall_time_s(self) -> float | None:
        mw = self.max_wall_time
        return None if mw is None else parse_time(mw, "max_wall_time")


@dataclass(frozen=True, kw_only=True)
class Scenario(Spec):
    """A complete, validated study configuration.

    ``traffic`` is a non-empty tuple of groups (a list is accepted). Nested dicts are
    converted to specs, so ``Scenario(topology={"kind": "parking_lot"})`` works too.
    """

    name: str = "scenario"
    description: str = ""
    topology: Topology = dataclasses.field(default_factory=Dumbbell)
    tcp: Tcp = dataclasses.field(default_factory=Tcp)
    traffic: tuple[TrafficBase, ...] = dataclasses.field(default_factory=lambda: (Bulk(),))
    run: RunControl = dataclasses.field(default_factory=RunControl)

    def __post_init__(self) -> None:
        if not check_str(self.name, "name"):
            raise ScenarioError("name", self.name, "name must not be empty")
        check_str(self.description, "description")
        set_attr(self, "topology", topology_from_dict(self.topology, "topology"))
        set_attr(self, "tcp", coerce(self.tcp, Tcp, "tcp"))
        groups = check_list(self.traffic, "traffic")
        if not groups:
            raise ScenarioError("traffic", self.traffic, "traffic must have at least one group")
        set_attr(
            self,
            "traffic",
            tuple(traffic_from_dict(g, f"traffic[{k}]") for k, g in enumerate(groups)),
        )
        set_attr(self, "run", coerce(self.run, RunControl, "run"))
        self._cross_validate()
        limits.check(self)  # what a machine can do (run.force skips the soft limits)

    def _cross_validate(self) -> None:
        topo = self.topology
        for path, queue, link in topo.queue_links():
            with prefixed(f"topology.{path}"):
                queue.check_link(link.rate_bps)
        for k, group in enumerate(self.traffic):
            p = f"traffic[{k}]"
            hop = group.cross_hop
            if hop is None:
                n_s, n_r, what = topo.senders, topo.n_receivers, "senders/receivers"
            elif not isinstance(topo, ParkingLot):
                raise ScenarioError(
                    f"{p}.path", group.path, "a 'cross:<i>' path needs a parking_lot topology"
                )
            elif hop >= topo.hops:
                raise ScenarioError(
                    f"{p}.path", group.path, f"hop index must be < hops = {topo.hops}"
                )
            elif topo.cross_senders == 0:
                raise ScenarioError(
                    f"{p}.path", group.path, "cross traffic needs cross_senders >= 1"
                )
            else:
                n_s, n_r, what = (
                    topo.cross_senders,
                    topo.n_cross_receivers,
                    "cross_senders/receivers",
                )
            for name, hosts, n in (
                ("senders", group.senders, n_s),
                ("receivers", group.receivers, n_r),
            ):
                if hosts is not None and max(hosts) >= n:
                    raise ScenarioError(
                        f"{p}.{name}",
                        list(hosts),
                        f"host indices must be < {n}",
                        f"topology {what}",
                    )
            with prefixed(f"{p}.tcp"):
                self.tcp.with_overrides(group.tcp)

    def tcp_for(self, k: int) -> Tcp:
        """The Tcp of traffic group ``k``: ``tcp`` with the group's overrides applied."""
        return self.tcp.with_overrides(self.traffic[k].tcp)

    @property
    def n_flows(self) -> int:
        return sum(g.n_flows for g in self.traffic)

    # -- identity ----------------------------------------------------------------------------

    def resolve(self) -> Scenario:
        """This scenario with every value read from a file filled in (a PackMime ``rate``
        from its ``calibration`` table and ``load``); itself when there is none. Hashing,
        planning and running use the resolved scenario; an unreadable table raises a
        ScenarioError naming the group's ``calibration``."""
        return self._resolved

    @functools.cached_property
    def _resolved(self) -> Scenario:
        groups = []
        for k, g in enumerate(self.traffic):
            with prefixed(f"traffic[{k}]"):
                groups.append(g.resolved())
        if all(a is b for a, b in zip(groups, self.traffic, strict=True)):
            return self
        return dataclasses.replace(self, traffic=tuple(groups))

    @functools.cached_property
    def hash(self) -> str:
        """First 16 hex digits of the sha256 of the canonical JSON of the resolved
        scenario's ``to_dict()`` without ``run.seed``/``run.run``, ``run.force`` and
        ``description`` (prose, not what is simulated: a sweep point and the same scenario
        run by hand share their stored run), with quantities in one spelling
        (:func:`~aqmlab.units.canonical_units`: "10 Mbps", "10Mbps" and 10000000 agree, as
        do "1000ms", "1s" and 1). Stable across processes; changes if any other field
        (including name) changes. Calibration table paths are left out; the rate they give
        is in."""
        d = self.resolve().to_dict()
        del d["run"]["seed"], d["run"]["run"], d["description"]
        d["run"].pop("force", None)
        d = canonical_units(d)
        for group in d["traffic"]:  # a machine-specific path: its effect is in ``rate``
            group.pop("calibration", None)
        text = json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def key(self) -> str:
        """``f"{hash}-s{seed}-r{run}"``: identifies one replication."""
        return f"{self.hash}-s{self.run.seed}-r{self.run.run}"

    def __hash__(self) -> int:
        return hash(self.key)

    # -- derived scenarios -------------------------------------------------------------------

    def replace(self, **dotted: Any) -> Scenario:
        """A new validated Scenario with dotted-path overrides, e.g.
        ``s.replace(**{"tcp.variant": "sack", "traffic[0].flows": 50, "run.seed": 3})``.

        Values may be specs (converted with ``to_dict``). Overrides apply in order, so a
        ``...kind`` change may be followed by the new kind's fields. The result is resolved
        (:meth:`resolve`), so a changed ``load`` comes with its ``rate``.
        """
        d = self.to_dict()
        for path, value in dotted.items():
            _set_path(d, path, plain(value))
        return Scenario.from_dict(d).resolve()

    # -- io ----------------------------------------------------------------------------------

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_json(cls, text: str) -> Scenario:
        try:
            d = json.loads(text)
        except json.JSONDecodeError as err:
            raise ScenarioError("json", text[:80], f"invalid JSON: {err}") from None
        return cls.from_dict(d)

    def to_toml(self) -> str:
        """TOML text; None values are omitted (``run.sample_interval = None`` becomes false)."""
        d = self.to_dict()
        if d["run"]["sample_interval"] is None:
            d["run"]["sample_interval"] = False
        return tomli_w.dumps(_drop_none(d))

    @classmethod
    def from_toml(cls, text: str) -> Scenario:
        """Parse TOML; missing keys take their defaults."""
        try:
            d = tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            raise ScenarioError("toml", text[:80], f"invalid TOML: {err}") from None
        return cls.from_dict(d)

    @classmethod
    def load(cls, path: str | Path) -> Scenario:
        """Read a ``.toml`` or ``.json`` file, resolved (:meth:`resolve`: calibration tables
        are read too, relative to the file)."""
        path = Path(path)
        d = read_table_file(path)  # one clear error for a missing, empty or unreadable file
        for group in d.get("traffic", []) if isinstance(d.get("traffic"), list) else []:
            cal = group.get("calibration") if isinstance(group, dict) else None
            if isinstance(cal, str) and not Path(cal).is_absolute():
                group["calibration"] = str((path.parent / cal).resolve())  # file-relative
        return cls.from_dict(d).resolve()

    def save(self, path: str | Path) -> Path:
        """Write a ``.toml`` or ``.json`` file (by suffix); returns the path."""
        path = Path(path)
        text = self.to_toml() if _suffix(path) == ".toml" else self.to_json() + "\n"
        path.write_text(text, encoding="utf-8")
        return path


def as_scenario(scenario: Scenario | dict | str | Path) -> Scenario:
    """Accept a Scenario, its dict form, or the path of a .toml/.json file."""
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, dict):
        return Scenario.from_dict(scenario)
    return Scenario.load(scenario)


def _suffix(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in (".toml", ".json"):
        raise ScenarioError("path", str(path), "a scenario file must end in .toml or .json")
    return suffix


def _drop_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_none(v) for v in value]
    return value


_SEGMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)((?:\[\d+\])*)$")


def parse_path(path: str) -> list[str | int]:
    tokens: list[str | int] = []
    for seg in path.split("."):
        m = _SEGMENT.match(seg)
        if m is None:
            raise ScenarioError(path, seg, "not a dotted field path such as 'traffic[0].flows'")
        tokens.append(m.group(1))
        tokens.extend(int(i) for i in re.findall(r"\[(\d+)\]", m.group(2)))
    return tokens


def _set_path(d: dict[str, Any], path: str, value: Any) -> None:
    """Set ``value`` at dotted ``path`` in a nested dict/list; intermediate keys must exist
    (a None intermediate becomes a dict); the last key of a dict may be new (from_dict
    rejects unknown keys with the full path)."""
    tokens = parse_path(path)
    cur: Any = d
    for depth, tok in enumerate(tokens):
        last = depth == len(tokens) - 1
        here = path if last else _render(tokens[: depth + 1])
        if isinstance(tok, int):
            if not isinstance(cur, list) or not 0 <= tok < len(cur):
                size = len(cur) if isinstance(cur, list) else "not a list"
                raise ScenarioError(
                    here, value, f"unknown field path: index {tok} out of range ({size})"
                )
        elif not isinstance(cur, dict) or (not last and tok not in cur):
            keys = ", ".join(cur) if isinstance(cur, dict) else "none"
            raise ScenarioError(here, value, f"unknown field path; keys here: {keys}")
        if last:
            cur[tok] = value
        else:
            nxt = cur[tok]
            if nxt is None and isinstance(tokens[depth + 1], str):
                nxt = cur[tok] = {}
            cur = nxt


def _render(tokens: list[str | int]) -> str:
    out = ""
    for tok in tokens:
        out += f"[{tok}]" if isinstance(tok, int) else (f".{tok}" if out else tok)
    return out
