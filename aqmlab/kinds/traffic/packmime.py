"""PackMime-HTTP (Cao et al. 2004) as Weigle et al. ran it: open-loop HTTP/1.0 web traffic,
one TCP connection per request/response, each with its own base RTT."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from aqmlab.errors import ScenarioError
from aqmlab.kinds.controls import Control
from aqmlab.kinds.tcp import FULL_TCP
from aqmlab.kinds.traffic.base import TRAFFIC, ExplorerTraffic, PlanContext, TrafficBase
from aqmlab.units import check_bool, check_float, check_time, parse_bytes, parse_time, set_attr
from aqmlab.workload.calibration import rate_for_load
from aqmlab.workload.packmime import PackMimeWorkload

__all__ = ["PackMime", "CALIBRATION_BASES", "GENERATORS", "MAX_REDRAWS",
           "PACKMIME_PER_CONNECTION", "BITS_PER_WEB_CONNECTION"]

_ELEPHANT_BEFORE = "1000s"  # PackMime.elephant_before's default
CALIBRATION_BASES = ("expected", "measured")  # PackMime.calibrate_on
#: Who draws the connections: aqmlab's generator (both engines replay the same planned
#: connections) or ns-2.35's own PackMimeHTTP (the ns-2 engine only).
GENERATORS = ("aqmlab", "ns2")
#: Most redraws tried for PackMime.elephant before giving up.
MAX_REDRAWS = 1000
#: CPU-s per simulated second per connection/s offered, whatever the link (cost model:
#: refitted on 2026-11-29 to aqmlab 0.8.32 on the Intel Xeon VM, bench/README.md "The
#: cost model refitted": Vembar's parking lot at 57 % took 1.42x the 0.00023 of
#: 2026-11-25, fitted on the AMD EPYC VM, Weigle's 80 % drop-tail 1.52x; 0.00089 in 0.2.2).
PACKMIME_PER_CONNECTION = 0.00033
#: The explorer's offered web load -> connection rate: one connection carries about 10 kB
#: (80 kbit) across the bottleneck on average, so rate = load * bottleneck_bps / 80e3.
BITS_PER_WEB_CONNECTION = 80e3


@TRAFFIC.register
@dataclass(frozen=True, kw_only=True)
class PackMime(TrafficBase):
    """PackMime-HTTP (Cao et al. 2004): open-loop HTTP/1.0, one TCP connection per
    request/response, ``rate`` new connections per second from the clients (the group's
    receivers) to the servers (its senders), which send the responses. Give ``rate``, or
    ``load`` (fraction of the bottleneck) with a ``calibration`` table written by
    ``aqmlab calibrate`` (a path relative to the scenario file); the rate is then read
    from the table when the scenario is resolved (:meth:`aqmlab.scenario.Scenario.resolve`,
    before it is hashed, planned or run), and ``load`` stays as its label; a ``rate``
    beside them is replaced (so changing ``load`` re-reads it): to run at a rate of your
    own, set ``load`` and ``calibration`` to None.
    ``calibrate_on`` chooses the table's load column: "expected" (default; the model's mean
    payload times the measured overhead, unbiased by heavy tails) or "measured" (the
    utilisation the calibration runs measured, as the papers calibrated: heavy tails bias
    it low, so it gives higher rates, more so the shorter the calibration runs). ``rtt``
    "packmime" gives each connection a base RTT drawn from PackMime's RTT distribution
    (added in both directions on the client's access link); "none" uses only the
    topology's delays. ``lrd`` adds FARIMA long-range dependence. ``direction`` "reverse"
    swaps the roles: servers on the receivers' side, so responses cross the reverse
    bottleneck (two-way traffic = one forward and one reverse group). ``generator``
    "aqmlab" (default: aqmlab draws the connections, every engine replays them) or "ns2"
    (ns-2.35's own PackMimeHTTP draws them; the ns-2 engine only). ``server_delay`` adds
    ns-2.35 PackMime's server think time between the whole request and its response
    (1/max(W, 10) s, W ~ Weibull(shape 0.63, scale 305): at most 0.1 s, which 11 % of the
    responses wait; median 6 ms), which the papers' PackMime (UNC's, before ns-2.30) did
    not have (default off). With generator "aqmlab" the delays are drawn from their own
    keyed stream into the plan and both engines' servers wait them; with "ns2" ns-2's
    PackMimeHTTP draws its own.

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
    EXPLORER: ClassVar[ExplorerTraffic | None] = ExplorerTraffic(
        "web", "web (PackMime-HTTP)",
        Control("load", "offered web load", 0.8, 0.05, 1.2, 0.05))
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
    generator: str = "aqmlab"
    server_delay: bool = False

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
        if self.rate is None and (self.load is None or self.calibration is None):
            raise ScenarioError("rate", None, "give rate, or load with a calibration table")
        if self.rate is not None:
            set_attr(self, "rate", check_float(self.rate, "rate", gt=0))
        if self.rtt not in ("packmime", "none"):
            raise ScenarioError("rtt", self.rtt, "one of 'packmime', 'none'")
        check_bool(self.lrd, "lrd")
        if self.direction not in ("forward", "reverse"):
            raise ScenarioError("direction", self.direction, "one of 'forward', 'reverse'")
        if self.generator not in GENERATORS:
            raise ScenarioError("generator", self.generator,
                                "one of " + ", ".join(repr(g) for g in GENERATORS))
        check_bool(self.server_delay, "server_delay")
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
        if d["generator"] == "aqmlab":  # the default: keep the hashes of older scenarios
            del d["generator"]
        if not d["server_delay"]:
            del d["server_delay"]
        return d

    def resolved(self) -> PackMime:
        """With ``load`` and ``calibration``: ``rate`` read from the table (the load stays
        as its label); unreadable tables raise ScenarioError naming ``calibration``."""
        if self.load is None or self.calibration is None:
            return self
        try:
            rate = rate_for_load(self.calibration, self.load, basis=self.calibrate_on)
        except (OSError, ValueError, KeyError) as err:
            columns = "load, rate" + (", measured_load" if self.calibrate_on == "measured"
                                      else "")
            raise ScenarioError("calibration", self.calibration,
                                f"a readable calibration table ({columns}): {err}") from None
        if not rate > 0:
            raise ScenarioError("calibration", self.calibration,
                                f"a table giving a rate > 0 for load {self.load:g} (got {rate:g})")
        return dataclasses.replace(self, rate=rate)

    @property
    def n_flows(self) -> int:
        """Connections are drawn when the run is planned: 0 here (variable)."""
        return 0

    @property
    def connection_rate(self) -> float:
        return float(self.rate or 0.0)

    @property
    def elephant_bytes(self) -> int | None:
        """``elephant`` in bytes (None = no rule)."""
        return None if self.elephant is None else parse_bytes(self.elephant, "elephant")

    @property
    def elephant_before_s(self) -> float:
        return parse_time(self.elephant_before, "elephant_before")

    def cpu_per_s(self, hops_factor: float) -> float | None:
        return PACKMIME_PER_CONNECTION * self.connection_rate * hops_factor

    def explorer_describe(self) -> tuple[str, str]:
        return "load", f"{self.load:g}" if self.load is not None else f"{self.rate:g}/s"

    @classmethod
    def explorer_group(cls, value: float, rate_bps: float) -> dict[str, Any]:
        if not value > 0:
            raise ScenarioError("load", value, "the offered web load must be > 0")
        rate = value * rate_bps / BITS_PER_WEB_CONNECTION
        # ns-2's Full-TCP semantics, as the studies with PackMime set them: the same web
        # connections on either engine (the ns-2 engine runs web traffic only with them)
        return {"kind": "packmime", "rate": round(rate, 6), "load": value, "rtt": "none",
                "tcp": dict(FULL_TCP)}

    # -- planning ------------------------------------------------------------------------------

    def plan(self, ctx: PlanContext) -> None:
        """Draw the group's connections for the whole run (common random numbers: the
        draws depend on seed, run and group index only), spread round-robin over
        clients/servers."""
        servers, clients = ctx.senders, ctx.receivers
        if self.direction == "reverse":
            servers, clients = clients, servers
        model = PackMimeWorkload(lrd=self.lrd, rtt="server" if self.rtt == "packmime" else None,
                                 server_delay=self.server_delay)
        conns, redraws = self._draw(model, ctx)
        n = len(conns)
        k = np.arange(n)
        server = np.asarray(servers, dtype=float)[k % len(servers)]
        client = np.asarray(clients, dtype=float)[k % len(clients)]
        rtt = conns["rtt_s"].to_numpy(dtype=float) if self.rtt == "packmime" else np.zeros(n)
        if self.rtt == "packmime":
            ctx.delay_per_connection(clients)
        ctx.add_web(server=server, client=client,
                    start_s=conns["start_s"].to_numpy(dtype=float),
                    request=conns["request_bytes"].to_numpy(dtype=float),
                    response=conns["response_bytes"].to_numpy(dtype=float),
                    delay_s=rtt / 2, base_rtt_s=ctx.propagation(server, client) + rtt,
                    redraws=redraws,
                    server_delay_s=conns["server_delay_s"].to_numpy(dtype=float)
                    if self.server_delay else None)

    def _draw(self, model: PackMimeWorkload, ctx: PlanContext):
        """The group's connections and the number of draws skipped. Draw k uses the stream
        instance ``g + 100 k``, so draw 0 is the workload without the ``elephant`` rule;
        with it, the first draw having a response >= ``elephant`` that starts before
        warm-up + ``elephant_before`` is kept (Weigle et al.'s seed selection); runs that
        end before that time are not subject to the rule (draw 0). The choice depends only
        on seed, run, group index and the group's workload fields."""
        g = ctx.group
        size = self.elephant_bytes
        deadline = ctx.warmup_s + self.elephant_before_s
        if deadline > ctx.duration_s:
            size = None  # a run shorter than the rule's window (tests, quick profiles): no rule
        for k in range(MAX_REDRAWS + 1 if size is not None else 1):
            conns = model.generate(self.rate, ctx.duration_s - self.start_s, seed=ctx.seed,
                                   run=ctx.run, instance=g + 100 * k, t0=self.start_s)
            if size is None or ((conns["response_bytes"].to_numpy() >= size)
                                & (conns["start_s"].to_numpy() < deadline)).any():
                return conns, k
        raise ScenarioError(
            f"traffic[{g}].elephant", self.elephant,
            f"no draw of the workload (k = 0..{MAX_REDRAWS}) has a response >= {size} B that "
            f"starts before {deadline:g} s (warm-up + elephant_before)",
            "raise rate, elephant_before or the duration, or lower elephant")
