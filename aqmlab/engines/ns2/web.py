"""Web connections on ns-2: aqmlab's planned PackMime connections replayed by Full-TCP, or
ns-2.35's own PackMimeHTTP generator.

Replay (a group's ``generator`` "aqmlab", the default) gives ns-2 the very connections
ns-3 gets: the plan's start times, request and response sizes, client/server nodes, extra
one-way delays and server delays (web_replay.tcl says how). Native (``generator`` "ns2") runs
PackMimeHTTP at the group's ``rate`` between its clients and servers (PackMime pairs
client i with server i), with DelayBox and ``PackMimeHTTPXmit`` delays on both sides when
the group has PackMime RTTs, and ns-2.35's server delay unless the group says
``server_delay = false``; its logs become the group's connections, and :func:`simulate`
puts them in ``plan.web`` in place of aqmlab's draw, so the shared tables describe what
ns-2 ran.

Per connection, as the ns-3 engine's web rows:

- ``start``: when the client sends its SYN (replay: the planned start; native: PackMime's
  request time); ``completion``: when the client has the last response byte (the TcpApp /
  PackMime client app counts it); ``target``/``request``: the sizes.
- Sender counters are the server agent's (it sends the response): ``ndatapack_``,
  ``ndatabytes_``, ``nrexmitpack_``, ``nrexmit_`` (every retransmission timeout of the
  server, a SYN/ACK's included), ECN reductions and fast recoveries as for bulk flows;
  read when the connection closes or at the end of the run.
- ``bytes_received``: the whole response once complete; for a connection still open at
  the warm-up or at the end, the bytes the server has seen acknowledged (ns-2 exposes
  no receive counter of a Full-TCP agent), at most one window behind the client.
- Packets carry flow id ``FID_STRIDE * (1 + web group) + connection`` (bulk flows: their
  index), which joins drops and marks to connections.
- Replay delays: a DelayBox on every client node of a group with PackMime RTTs; each
  connection's own delay is set in the rule's constant right before its SYN passes.
  DelayBox stops delaying a direction once its FIN has passed (ns-2's own rule).
- Replay headers: 42 bytes (ns-3's IP + TCP + PPP) after the handshake's 40-byte SYN and
  SYN/ACK, as the one-way agents' (:mod:`aqmlab.engines.ns2.mapping`); 40 throughout with
  ``topology.link_header = "none"``; native: 40 bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from aqmlab.engines.ns2 import mapping
from aqmlab.engines.ns2.support import generator
from aqmlab.plan import Plan, PlanWeb, group_hosts
from aqmlab.results.raw import FLOW_COLUMNS
from aqmlab.scenario import PackMime, Scenario, Tcp

DATA = "web.dat"
#: Flow ids of web group g are FID_STRIDE * (1 + g) + connection number.
FID_STRIDE = 1 << 24
PM_VARIANT = {"reno": "Reno", "newreno": "Newreno", "sack": "Sack"}


def _lib(name: str) -> str:
    return resources.files("aqmlab.engines.ns2").joinpath(name).read_text()


def fid_base(g: int) -> int:
    return FID_STRIDE * (1 + g)


@dataclass
class WebPart:
    """The web part of a script: Tcl library, DelayBox nodes, setup lines, data files;
    after the run, :meth:`results` reads what the web connections did."""

    library: str = ""
    delay_nodes: list[int] = field(default_factory=list)
    setup: list[str] = field(default_factory=list)
    data: dict[str, str] = field(default_factory=dict)
    native: dict[int, PackMime] = field(default_factory=dict)  # plan.web index -> group

    def write_data(self, workdir: Path) -> None:
        for name, text in self.data.items():
            (workdir / name).write_text(text)

    def results(self, workdir: Path, plan: Plan) -> WebResult | None:
        """The web connections' columns (None without web traffic). Native groups' entries
        of ``plan.web`` are replaced by the connections ns-2 made."""
        if not plan.web:
            return None
        for g, group in self.native.items():
            plan.web[g] = native_connections(workdir, plan, g, plan.web[g], group)
        return WebResult.read(workdir, plan, tuple(self.native))


def _profile_proc(k: int, tcp: Tcp) -> str:
    cfg = mapping.full_tcp_config(tcp)
    body = "".join(f"; $t set {v} {x}" for v, x in cfg.settings)
    return f"proc aq_fulltcp_{k} {{}} {{ set t [new {cfg.agent}]{body}; return $t }}"


def _tcl_list(items) -> str:
    return "{" + " ".join(str(int(x)) for x in items) + "}"


def replay_data(webs: list[tuple[int, PlanWeb, int]]) -> str:
    """web.dat: every replayed connection, in start order (ties: plan order)."""
    frames = [pd.DataFrame({
        "fid": fid_base(g) + np.arange(len(w)), "client": w.client.astype(np.int64),
        "server": w.server.astype(np.int64), "profile": prof, "start": w.start_s,
        "request": w.request.astype(np.int64), "response": w.response.astype(np.int64),
        "delay_ms": w.delay_s * 1000.0, "server_delay": w.server_delays})
        for g, w, prof in webs]
    df = pd.concat(frames, ignore_index=True).sort_values(["start", "fid"], kind="stable")
    return df.to_csv(sep=" ", header=False, index=False, float_format="%.17g")


def web_part(scenario: Scenario, plan: Plan) -> WebPart:
    """Library, DelayBox nodes, set-up lines and web.dat for the plan's web groups."""
    if not plan.web:
        return WebPart()
    profiles: dict[Tcp, int] = {}
    part = WebPart(library=_lib("web_replay.tcl"))
    replay = []
    delay_nodes: set[int] = set()
    run = scenario.run
    for g, w in enumerate(plan.web):
        if w.tcp not in profiles:
            profiles[w.tcp] = len(profiles)
            part.setup.append(_profile_proc(profiles[w.tcp], w.tcp))
        prof = profiles[w.tcp]
        group = scenario.traffic[w.group]
        if isinstance(group, PackMime) and generator(group) == "ns2":
            part.native[g] = group
            clients, servers = _hosts(plan, group)
            if group.rtt == "packmime":
                delay_nodes |= set(clients) | set(servers)
                part.setup.append(f"aq_pm_delays {group.rate!r} {run.run} "
                                  f"{_tcl_list(clients)} {_tcl_list(servers)}")
            server_delay = int(group.server_delay)
            part.setup.append(
                f"aq_pm_group {g} {prof} {PM_VARIANT[w.tcp.variant]} {group.rate!r} "
                f"{run.run} {group.start_s!r} {_tcl_list(clients)} {_tcl_list(servers)} "
                f"{fid_base(g)} {server_delay}")
            continue
        replay.append((g, w, prof))
        if np.any(w.delay_s > 0):
            pairs = sorted({(int(c), int(s)) for c, s in zip(w.client, w.server, strict=True)})
            delay_nodes |= {c for c, _ in pairs}
            part.setup += [f"aq_web_rule {c} {s}" for c, s in pairs
                           if f"aq_web_rule {c} {s}" not in part.setup]
    if part.native:
        part.library += "\n" + _lib("web_native.tcl")
    if replay:
        part.data[DATA] = replay_data(replay)
        stop = run.stop_after_responses or 0
        part.setup.append(f"aq_web_start {DATA} {run.warmup_s!r} {stop} "
                          f"{mapping.base_header_bytes(plan.ppp_frames)}")
    part.delay_nodes = sorted(delay_nodes)
    return part


def _hosts(plan: Plan, group: PackMime) -> tuple[list[int], list[int]]:
    """A group's (client, server) nodes, as make_plan selects them."""
    senders, receivers = group_hosts(plan, group)
    if group.direction == "reverse":
        senders, receivers = receivers, senders
    return list(receivers), list(senders)


def native_connections(workdir: Path, plan: Plan, g: int, planned: PlanWeb,
                       group: PackMime) -> PlanWeb:
    """The connections ns-2's PackMimeHTTP made for plan.web[g], as a PlanWeb (connection
    number order); its extra delay is the sum of both DelayBoxes' per-direction delays."""
    clients, servers = _hosts(plan, group)
    req = _read_pm(workdir / f"pm{g}.req", ["start", "request", "response", "server"])
    n = len(req)
    # PackMime pairs client i with server i; the log names the server (node.port)
    server = req.server.str.split(".", n=1).str[0].astype(np.int64).to_numpy()
    pair = pd.Series(range(len(servers)), index=servers).reindex(server).to_numpy()
    client = np.asarray(clients, float)[pair.astype(np.int64)] if n else np.zeros(0)
    server = server.astype(float)
    delay = np.zeros(n)
    base = fid_base(g)
    for f in sorted(workdir.glob("db*.dly")):
        d = pd.read_csv(f, sep=r"\s+", header=None, names=["src", "dst", "fid", "ms", "u"])
        d = d[(d.fid >= base) & (d.fid < base + n)].drop_duplicates("fid")
        np.add.at(delay, d.fid.to_numpy(np.int64) - base, d.ms.to_numpy(float) / 1000.0)
    prop = plan.round_trips(server, client)
    return replace(planned, server=server, client=client,
                   start_s=req.start.to_numpy(float), request=req.request.to_numpy(float),
                   response=req.response.to_numpy(float), delay_s=delay,
                   base_rtt_s=prop + 2 * delay, redraws=0)


def _read_pm(path: Path, names: list[str]) -> pd.DataFrame:
    if not path.exists() or path.stat().st_size == 0:
        return pd.DataFrame({c: [] for c in names})
    return pd.read_csv(path, sep=r"\s+", header=None, names=names, usecols=range(len(names)),
                       dtype={names[-1]: str} if names[-1] == "server" else None)


def native_completions(workdir: Path, g: int, req: pd.DataFrame) -> np.ndarray:
    """Completion time per connection of native group g from PackMime's response log,
    joined on the server agent's node.port (unique per connection: PackMime attaches the
    agents anew, on a new port, for every connection)."""
    rsp = _read_pm(workdir / f"pm{g}.rsp", ["end", "request", "response", "rt_ms", "server"])
    done = np.full(len(req), -1.0)
    if len(rsp):
        index = pd.Series(np.arange(len(req)), index=req.server.to_numpy())
        k = index.reindex(rsp.server.to_numpy()).to_numpy()
        ok = ~np.isnan(k)
        done[k[ok].astype(int)] = rsp.end.to_numpy(float)[ok]
    return done


@dataclass
class WebResult:
    """Per-connection columns (plan.web order), appended after the bulk flows'."""

    end: dict[str, np.ndarray]
    warm: dict[str, np.ndarray]
    info: dict[str, np.ndarray]
    offsets: np.ndarray  # first row (after the bulk flows) of each web group
    native: tuple[int, ...] = ()  # plan.web groups ns-2's own PackMimeHTTP ran

    @classmethod
    def read(cls, workdir: Path, plan: Plan, native: tuple[int, ...] = ()) -> WebResult:
        webs = plan.web
        sizes = np.array([len(w) for w in webs], np.int64)
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        n = int(sizes.sum())
        response = np.concatenate([w.response for w in webs]).astype(float)
        path = workdir / "web.txt"
        cols = ["tag", "fid", *range(7)]
        rec = pd.read_csv(path, sep=" ", header=None, names=cols, engine="c") \
            if path.exists() and path.stat().st_size else pd.DataFrame(columns=cols)
        row = _rows(rec.fid.to_numpy(np.int64), offsets, sizes) if len(rec) else np.zeros(0, int)
        rec = rec.assign(row=row)[row >= 0]
        done = np.full(n, -1.0)
        r = rec[rec.tag == "R"]
        done[r.row.to_numpy(int)] = r[0].to_numpy(float)
        for g in range(len(webs)):
            pm = workdir / f"pm{g}.req"
            if pm.exists():
                req = _read_pm(pm, ["start", "request", "response", "server"])
                done[offsets[g]: offsets[g] + sizes[g]] = native_completions(workdir, g, req)
        end = {c: np.zeros(n) for c in FLOW_COLUMNS}
        s = rec[rec.tag == "S"]
        k = s.row.to_numpy(int)
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
        warm_s = _warm_time(workdir / "meta.txt")
        if warm_s is not None:
            w = rec[rec.tag == "W"]
            wk = w.row.to_numpy(int)
            warm["bytes_received"][wk] = np.clip(w[0].to_numpy(float), 0, response[wk])
            before = (done >= 0) & (done <= warm_s)
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
        return cls(end, warm, info, offsets, native)

    def append(self, end, warm, info):
        """The bulk flows' (end, warm, info) columns followed by the web connections'."""
        cat = lambda a, b: {c: np.concatenate([a[c], b[c]]) for c in a}  # noqa: E731
        return cat(end, self.end), cat(warm, self.warm), cat(info, self.info)

    def rows_of_fids(self, fid: np.ndarray, nbulk: int) -> np.ndarray:
        """Flow row (bulk flows first) of packets' flow ids; -1 if none."""
        sizes = np.diff(np.concatenate([self.offsets, [len(self.info["src"])]]))
        out = np.where((fid >= 0) & (fid < nbulk), fid, -1)
        web = _rows(fid, self.offsets, sizes)
        return np.where(web >= 0, nbulk + web, out)


def _rows(fid: np.ndarray, offsets: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Row among the web connections of flow ids FID_STRIDE * (1 + g) + j; -1 if none."""
    g = fid // FID_STRIDE - 1
    j = fid % FID_STRIDE
    ok = (g >= 0) & (g < len(sizes))
    gc = np.clip(g, 0, max(len(sizes) - 1, 0))
    ok &= j < sizes[gc] if len(sizes) else False
    return np.where(ok, offsets[gc] + j if len(sizes) else -1, -1)


def _warm_time(meta: Path) -> float | None:
    for line in meta.read_text().split("\n") if meta.exists() else []:
        parts = line.split()
        if len(parts) == 2 and parts[0] == "warm":
            return float(parts[1])
    return None
