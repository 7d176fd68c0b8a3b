"""Web connections on ns-2: aqmlab's planned PackMime connections replayed by Full-TCP.

Replay (generator "aqmlab", the default) gives ns-2 the very connections ns-3 gets: the
plan's start times, request and response sizes, client/server nodes and extra one-way
delays (web_replay.tcl says how). Per connection, as the ns-3 engine's web rows:

- ``start``: the planned start, when the client sends its SYN; ``completion``: when the
  client's TcpApp has the last response byte; ``target``/``request``: the sizes.
- Sender counters are the server agent's (it sends the response): ``ndatapack_``,
  ``ndatabytes_``, ``nrexmitpack_``, ``nrexmit_`` (every retransmission timeout of the
  server, a SYN/ACK's included), ECN reductions and fast recoveries as for bulk flows;
  read when the connection's agents are recycled (the client's close completed) or at
  the end of the run.
- ``bytes_received``: the whole response once complete; for a connection still open at
  the warm-up or at the end, the bytes the server has seen acknowledged (ns-2 exposes
  no receive counter of a Full-TCP agent), at most one window behind the client.
- Extra delays: a DelayBox on every client node of a group with PackMime RTTs; each
  connection's own delay is set in the rule's constant right before its SYN passes.
  DelayBox stops delaying a direction once its FIN has passed (ns-2's own rule).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from aqmlab.engines.ns2 import mapping
from aqmlab.engines.raw import FLOW_COLUMNS
from aqmlab.plan import Plan, PlanWeb
from aqmlab.scenario import Scenario, Tcp

DATA = "web.dat"


def _lib(name: str) -> str:
    return resources.files("aqmlab.engines.ns2").joinpath(name).read_text()


@dataclass
class WebPart:
    """The web part of a script: Tcl library, DelayBox nodes, setup lines, data files."""

    library: str = ""
    delay_nodes: list[int] = field(default_factory=list)
    setup: list[str] = field(default_factory=list)
    data: dict[str, str] = field(default_factory=dict)
    webs: list[PlanWeb] = field(default_factory=list)

    def write_data(self, workdir: Path) -> None:
        for name, text in self.data.items():
            (workdir / name).write_text(text)

    def results(self, workdir: Path, plan: Plan) -> WebResult | None:
        """The web connections' columns (None without web traffic)."""
        if not self.webs:
            return None
        return WebResult.read(workdir / "web.txt", self.webs, plan)


def _profile_proc(k: int, tcp: Tcp) -> str:
    cfg = mapping.full_tcp_config(tcp)
    body = "".join(f"; $t set {v} {x}" for v, x in cfg.settings)
    return f"proc aq_fulltcp_{k} {{}} {{ set t [new {cfg.agent}]{body}; return $t }}"


def connections(webs: list[PlanWeb]) -> pd.DataFrame:
    """All planned connections of the replayed groups, in start order; ``k`` numbers them
    as the plan does (group after group), the ns-3 engine's web flow order."""
    frames = []
    offset = 0
    for w in webs:
        n = len(w)
        frames.append(pd.DataFrame({
            "k": np.arange(offset, offset + n), "client": w.client.astype(np.int64),
            "server": w.server.astype(np.int64), "start": w.start_s,
            "request": w.request.astype(np.int64), "response": w.response.astype(np.int64),
            "delay_ms": w.delay_s * 1000.0}))
        offset += n
    if not frames:
        return pd.DataFrame(columns=["k", "client", "server", "start", "request",
                                     "response", "delay_ms", "profile"])
    df = pd.concat(frames, ignore_index=True)
    return df.sort_values(["start", "k"], kind="stable").reset_index(drop=True)


def web_part(scenario: Scenario, plan: Plan) -> WebPart:
    """Library, DelayBox nodes, set-up lines and web.dat for the plan's web groups."""
    webs = [w for w in plan.web if isinstance(w, PlanWeb)]
    if not webs:
        return WebPart()
    profiles: dict[Tcp, int] = {}
    setup = []
    prof_of_group = []
    for w in webs:
        if w.tcp not in profiles:
            profiles[w.tcp] = len(profiles)
            setup.append(_profile_proc(profiles[w.tcp], w.tcp))
        prof_of_group.append(profiles[w.tcp])
    conns = connections(webs)
    sizes = np.cumsum([0] + [len(w) for w in webs])
    conns["profile"] = np.searchsorted(sizes, conns["k"].to_numpy(), side="right") - 1
    conns["profile"] = np.asarray(prof_of_group)[conns["profile"].to_numpy()]
    delayed = [w for w in webs if np.any(w.delay_s > 0)]
    pairs = sorted({(int(c), int(s)) for w in delayed
                    for c, s in zip(w.client, w.server, strict=True)})
    delay_nodes = sorted({c for c, _ in pairs})
    setup += [f"aq_web_rule {c} {s}" for c, s in pairs]
    run = scenario.run
    stop = run.stop_after_responses or 0
    setup.append(f"aq_web_start {DATA} {len(plan.flows)} {run.warmup_s!r} {stop}")
    cols = ["k", "client", "server", "profile", "start", "request", "response", "delay_ms"]
    text = conns[cols].to_csv(sep=" ", header=False, index=False, float_format="%.17g")
    return WebPart(library=_lib("web_replay.tcl"), delay_nodes=delay_nodes, setup=setup,
                   data={DATA: text}, webs=webs)


@dataclass
class WebResult:
    """Per-connection columns read from web.txt, appended after the bulk flows'."""

    end: dict[str, np.ndarray]
    warm: dict[str, np.ndarray]
    info: dict[str, np.ndarray]

    @classmethod
    def read(cls, path: Path, webs: list[PlanWeb], plan: Plan) -> WebResult:
        n = sum(len(w) for w in webs)
        response = np.concatenate([w.response for w in webs]).astype(float)
        cols = ["tag", "k", *range(7)]
        rec = pd.read_csv(path, sep=" ", header=None, names=cols, engine="c") \
            if path.exists() and path.stat().st_size else pd.DataFrame(columns=cols)
        done = np.full(n, -1.0)
        r = rec[rec.tag == "R"]
        done[r.k.to_numpy(int)] = r[0].to_numpy(float)
        end = {c: np.zeros(n) for c in FLOW_COLUMNS}
        s = rec[rec.tag == "S"]
        k = s.k.to_numpy(int)
        ndata, nbytes, nrex, nto, cuts, necn, acked = (s[j].to_numpy(float) for j in range(7))
        end["data_packets_sent"][k] = ndata
        end["data_bytes_sent"][k] = nbytes
        end["retrans_packets"][k] = nrex
        end["timeouts"][k] = nto
        end["fast_recoveries"][k] = np.maximum(cuts - necn - nto, 0)
        end["ecn_reductions"][k] = necn
        got = np.zeros(n)
        got[k] = np.clip(acked, 0, response[k])
        end["bytes_received"] = np.where(done >= 0, response, got)
        warm = {c: np.zeros(n) for c in FLOW_COLUMNS}
        meta_warm = _warm_time(path.parent / "meta.txt")
        if meta_warm is not None:
            w = rec[rec.tag == "W"]
            wk = w.k.to_numpy(int)
            warm["bytes_received"][wk] = np.clip(w[0].to_numpy(float), 0, response[wk])
            before = (done >= 0) & (done <= meta_warm)
            warm["bytes_received"][before] = response[before]
        info = {
            "src": np.concatenate([w.server for w in webs]).astype(float),
            "dst": np.concatenate([w.client for w in webs]).astype(float),
            "start": np.concatenate([w.start_s for w in webs]).astype(float),
            "target": response,
            "completion": done,
            "first_rx": np.full(n, -1.0),
            "request": np.concatenate([w.request for w in webs]).astype(float),
            "delay": np.concatenate([w.delay_s for w in webs]).astype(float),
            "kind": np.ones(n),
        }
        return cls(end, warm, info)

    def append(self, end, warm, info):
        """The bulk flows' (end, warm, info) columns followed by the web connections'."""
        cat = lambda a, b: {c: np.concatenate([a[c], b[c]]) for c in a}  # noqa: E731
        return cat(end, self.end), cat(warm, self.warm), cat(info, self.info)


def _warm_time(meta: Path) -> float | None:
    for line in meta.read_text().split("\n") if meta.exists() else []:
        parts = line.split()
        if len(parts) == 2 and parts[0] == "warm":
            return float(parts[1])
    return None
