"""Browsing users (Mah 1997, as the UNC generator of Christiansen's thesis runs them):
closed-loop users fetching pages of objects, one TCP connection per object."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from aqmlab.errors import ScenarioError
from aqmlab.kinds.controls import Control
from aqmlab.kinds.traffic.base import TRAFFIC, ExplorerTraffic, PlanContext, TrafficBase
from aqmlab.units import check_bool, check_int, check_time, parse_time
from aqmlab.workload.delays import PairRtt
from aqmlab.workload.mah import MahWorkload

__all__ = ["Mah", "MAH_PER_MBPS", "USER_KBPS", "USER_KBPS_SHORT_THINK"]

#: CPU-s per simulated second per Mb/s the users offer (cost model: refitted on 2026-11-29,
#: aqmlab 0.8.32: four full-profile Christiansen runs of 5,400 s took 0.82-0.97x the 0.0039
#: of 2026-11-25; 0.0087 on aqmlab 0.2.2).
MAH_PER_MBPS = 0.0035
#: kb/s a user offers with the thesis' 10-minute think cap, and with caps of 2 min or less.
USER_KBPS = 3.70
USER_KBPS_SHORT_THINK = 13.6


@TRAFFIC.register
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
    EXPLORER: ClassVar[ExplorerTraffic | None] = ExplorerTraffic(
        "browsing", "web users (Mah/UNC)",
        Control("users", "browsing users", 50, 5, 400, 5, integer=True))
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

    @property
    def offered_mbps(self) -> float:
        """The load the users offer (Mb/s), as measured on an unconstrained network."""
        short = self.think_cap_s is not None and self.think_cap_s <= 120
        return self.users * (USER_KBPS_SHORT_THINK if short else USER_KBPS) / 1e3

    def cpu_per_s(self, hops_factor: float) -> float | None:
        return MAH_PER_MBPS * self.offered_mbps

    def explorer_describe(self) -> tuple[str, str]:
        return "users", str(self.users)

    @classmethod
    def explorer_group(cls, value: float, rate_bps: float) -> dict[str, Any]:
        return {"kind": "mah", "users": int(value), "rtt": "none"}

    def plan(self, ctx: PlanContext) -> None:
        """Users' scripts for the whole run; user u browses from client u mod len(clients)."""
        servers, clients = ctx.senders, ctx.receivers
        model = MahWorkload(n_servers=len(servers), server_choice=self.server_choice,
                            think_cap_s=self.think_cap_s,
                            primary_reply_quirk=self.primary_reply_quirk,
                            no_think_on_switch=self.no_think_on_switch,
                            start_spread_s=self.start_spread_s)
        sc = model.generate(self.users, ctx.duration_s, seed=ctx.seed,
                            run=ctx.run + 1000 * ctx.group)
        a = sc.arrays()
        user_machine = np.arange(sc.n_users) % len(clients)
        page_machine = user_machine[a["page_user"]]
        obj_page = np.repeat(np.arange(sc.n_pages), a["page_n_objects"])
        obj_server_idx = a["page_server"][obj_page]
        obj_client_idx = page_machine[obj_page]
        server = np.asarray(servers, float)[obj_server_idx]
        client = np.asarray(clients, float)[obj_client_idx]
        if self.rtt == "pairs":
            pairs = PairRtt()
            rtt = pairs.lookup(obj_client_idx % pairs.n_clients, obj_server_idx % pairs.n_servers)
            ctx.delay_per_connection(clients)
        else:
            rtt = np.zeros(len(server))
        ctx.add_browsing(
            user_client=np.asarray(clients, float)[user_machine],
            user_first_page=a["user_first_page"][:-1].astype(float),
            user_n_pages=np.diff(a["user_first_page"]).astype(float),
            user_start_s=a["user_start_s"] + self.start_s,
            page_server=np.asarray(servers, float)[a["page_server"]],
            page_first_object=a["page_first_object"].astype(float),
            page_n_objects=a["page_n_objects"].astype(float),
            page_think_s=a["page_think_s"].astype(float),
            request=a["object_request_bytes"].astype(float),
            response=a["object_reply_bytes"].astype(float),
            server=server, client=client, delay_s=rtt / 2,
            base_rtt_s=ctx.propagation(server, client) + rtt,
            is_primary=a["object_is_primary"])
