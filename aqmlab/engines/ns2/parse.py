"""ns-2's output files -> :class:`~aqmlab.results.raw.RawRun` columns (NumPy, no per-line
Python loops over traces).

Column meanings follow the ns-3 engine (aqmlab/engines/ns3/cpp/flow_stats.h, probes.h); where
ns-2 counts differently the module docstring of :mod:`aqmlab.engines.ns2` says how.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np
import pandas as pd

from aqmlab.engines.ns2 import mapping
from aqmlab.plan import Plan
from aqmlab.results.raw import FLOW_COLUMNS, QUEUE_COLUMNS, RawRun

TRACE_COLUMNS = ["ev", "time", "src", "dst", "ptype", "size", "flags", "fid", "saddr",
                 "daddr", "seqno", "uid", "ackno", "tcpflags", "hlen", "salen"]
TH_SYN = 0x02
_HEX_SYN = {f"{d:x}": bool(d & TH_SYN) for d in range(16)}


def read_rows(path: Path, ncols: int) -> np.ndarray:
    """A whitespace-separated numeric file as a (rows, ncols) array (0 rows if empty)."""
    if not path.exists() or path.stat().st_size == 0:
        return np.zeros((0, ncols))
    a = np.loadtxt(path, ndmin=2)
    return a.reshape(-1, ncols) if a.size else np.zeros((0, ncols))


def read_trace(path: Path, tcp_header: bool = True) -> pd.DataFrame:
    """An ns-2 packet trace (drop or dequeue events), with ``show_tcphdr_ 1`` or without
    (then the TCP columns are absent: no SYN flag)."""
    names = TRACE_COLUMNS if tcp_header else TRACE_COLUMNS[:12]
    if not path.exists() or path.stat().st_size == 0:
        tr = pd.DataFrame({c: [] for c in names})
    else:
        tr = pd.read_csv(path, sep=" ", header=None, names=names, usecols=range(len(names)),
                         engine="c", dtype={"ptype": str, "flags": str, "saddr": str,
                                            "daddr": str, "tcpflags": str})
    if not tcp_header:
        tr = tr.assign(ackno=0, tcpflags="0x0", hlen=0, salen=0)
    return tr


def read_ave(path: Path) -> np.ndarray:
    """RED's variable trace ``a <time> <ave>`` as (time, ave) rows."""
    if not path.exists() or path.stat().st_size == 0:
        return np.zeros((0, 2))
    return pd.read_csv(path, sep=" ", header=None, usecols=[1, 2], engine="c",
                       dtype=float).to_numpy()


@dataclass
class Meta:
    warm_s: float | None
    end_s: float


def read_meta(path: Path) -> Meta:
    warm, end = None, 0.0
    for line in path.read_text().split("\n"):
        parts = line.split()
        if len(parts) == 2:
            if parts[0] == "warm":
                warm = float(parts[1])
            elif parts[0] == "end":
                end = float(parts[1])
    return Meta(warm, end)


@dataclass
class Probes:
    """Probed queues in plan order: names, link rates, their ns-2 configuration."""

    names: list[str]
    rates: np.ndarray
    nodes: list[tuple[int, int]]
    configs: list[mapping.QueueConfig]
    limits: list[float]

    @classmethod
    def of(cls, plan: Plan) -> Probes:
        names, rates, nodes, configs, limits = [], [], [], [], []
        for link in plan.links:
            for d, (a, b) in enumerate(((link.a, link.b), (link.b, link.a))):
                if link.probes[d]:
                    cfg = mapping.queue_config(link.queues[d], link.rate_bps)
                    names.append(link.probes[d])
                    rates.append(link.rate_bps)
                    nodes.append((a, b))
                    configs.append(cfg)
                    limits.append(float(dict(cfg.settings)["limit_"]))
        return cls(names, np.asarray(rates, float), nodes, configs, limits)

    def index(self, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
        """Probe index of trace rows by their link's end nodes (-1 if none)."""
        out = np.full(len(src), -1)
        for p, (a, b) in enumerate(self.nodes):
            out[(src == a) & (dst == b)] = p
        return out


@dataclass
class Events:
    """Per-packet facts of a trace, as arrays aligned with its rows."""

    time: np.ndarray
    probe: np.ndarray
    fid: np.ndarray  # the flow's row (bulk flows, then web connections), -1 if none
    data: np.ndarray  # carries payload
    syn: np.ndarray
    ect: np.ndarray
    ce: np.ndarray
    early: np.ndarray
    uid: np.ndarray
    seqno: np.ndarray

    @classmethod
    def of(cls, tr: pd.DataFrame, probes: Probes, rows_of, hdr_of_row: np.ndarray) -> Events:
        """``rows_of(fids)``: flow rows of flow ids (-1 if none)."""
        fid = rows_of(tr["fid"].to_numpy(dtype=np.int64))
        known = fid >= 0
        hdr = np.full(len(fid), float(mapping.HEADER_BYTES))
        hdr[known] = hdr_of_row[fid[known]]
        size = tr["size"].to_numpy(dtype=np.int64)
        flags = tr["flags"].astype(str)
        # TCP flags are printed in hex; SYN (0x02) lives in the last digit
        last = tr["tcpflags"].astype(str).str[-1].map(_HEX_SYN).fillna(False)
        ptype = tr["ptype"].astype(str).to_numpy()
        one_way_syn = (ptype == "tcp") & (tr["seqno"].to_numpy() == 0) & (size <= hdr)
        return cls(
            time=tr["time"].to_numpy(dtype=float),
            probe=probes.index(tr["src"].to_numpy(), tr["dst"].to_numpy()),
            fid=fid,
            data=size > hdr,
            syn=last.to_numpy(dtype=bool) | one_way_syn,
            ect=flags.str[6].to_numpy() == "N",
            ce=flags.str[4].to_numpy() == "E",
            early=tr["ev"].astype(str).to_numpy() == "e",
            uid=tr["uid"].to_numpy(dtype=np.int64),
            seqno=tr["seqno"].to_numpy(dtype=np.int64),
        )


def count_by(keys: np.ndarray, n: int, mask: np.ndarray) -> np.ndarray:
    """How many rows with ``mask`` have each key 0..n-1."""
    k = keys[mask & (keys >= 0)]
    return np.bincount(k, minlength=n)[:n].astype(float)


def split_time(ev: Events, warm: float | None):
    """(all rows, rows up to the warm-up snapshot) masks."""
    everything = np.ones(len(ev.time), bool)
    before = ev.time <= warm if warm is not None else np.zeros(len(ev.time), bool)
    return everything, before


def joined(*evs: Events) -> Events:
    """The rows of several traces as one."""
    return Events(**{f.name: np.concatenate([getattr(e, f.name) for e in evs])
                     for f in fields(Events)})


def probe_sightings(deque: Events, drops: Events) -> Events:
    """Departures from the probed queues and drops at them, in one (with ECN, when the
    departures are traced). A packet RED marks and the full queue then drops (red.cc
    ``enque``: ``drop_early()`` sets CE, then ``qlen >= qlim`` makes the drop forced) is
    seen CE-marked only in the drop trace."""
    at_probe = drops.probe >= 0
    return joined(deque, Events(**{f.name: getattr(drops, f.name)[at_probe]
                                   for f in fields(Events)}))


def first_marks(deque: Events) -> np.ndarray:
    """Rows where a packet is seen CE-marked for the first time (the marking probe)."""
    ce = np.flatnonzero(deque.ce)
    if not len(ce):
        return np.zeros(len(deque.time), bool)
    order = ce[np.lexsort((deque.time[ce], deque.uid[ce]))]
    first = np.ones(len(order), bool)
    first[1:] = deque.uid[order][1:] != deque.uid[order][:-1]
    out = np.zeros(len(deque.time), bool)
    out[order[first]] = True
    return out


def queue_columns(workdir: Path, probes: Probes, meta: Meta, drops: Events,
                  seen: Events | None, marked: np.ndarray | None, samples: np.ndarray,
                  ecn: bool):
    """(end, warm) dicts of QUEUE_COLUMNS arrays, and (end, warm) departed bytes; ``seen``:
    the probed queues' departures and drops (:func:`probe_sightings`), with ECN, and
    ``marked`` its rows of first CE sightings (:func:`first_marks`)."""
    n = len(probes.names)
    rows = read_rows(workdir / "queues.txt", 14)
    end = {c: np.zeros(n) for c in QUEUE_COLUMNS}
    warm = {c: np.zeros(n) for c in QUEUE_COLUMNS}
    bdep = [np.zeros(n), np.zeros(n)]
    for phase, out in ((1, end), (0, warm)):
        r = rows[rows[:, 0] == phase]
        p = r[:, 1].astype(int)
        for col, j in (("arrivals", 2), ("departures", 3), ("drops", 4),
                       ("unforced_drops", 5), ("marks", 6), ("arrival_bytes", 7),
                       ("drop_bytes", 8), ("area_pkts", 9), ("area_bytes", 10)):
            out[col][p] = r[:, j]
        bdep[phase][p] = r[:, 13]
        red = np.array([c.red for c in probes.configs], bool)
        forced = out["drops"] - out["unforced_drops"]
        out["forced_drops"] = np.where(red, forced, 0.0)
        out["overflow_drops"] = np.where(red, 0.0, forced)
    for out, mask in zip((end, warm), split_time(drops, meta.warm_s), strict=True):
        out["syn_drops"] = count_by(drops.probe, n, mask & drops.syn)
        out["ack_only_drops"] = count_by(drops.probe, n, mask & ~drops.data & ~drops.syn)
        out["ect_drops"] = count_by(drops.probe, n, mask & drops.ect)
        out["ect_unforced_drops"] = count_by(drops.probe, n, mask & drops.ect & drops.early)
    if ecn and marked is not None:  # marked: None exactly when seen is
        for out, mask in zip((end, warm), split_time(seen, meta.warm_s), strict=True):
            out["marks"] = count_by(seen.probe, n, mask & marked)
    for p, cfg in enumerate(probes.configs):
        if cfg.red:
            ave = read_ave(workdir / f"ave{p}.tr")
            scale = cfg.mean_pkt_size if cfg.byte_mode else 1.0
            end["red_avg_sum"][p] = ave[:, 1].sum() / scale
            end["red_avg_n"][p] = len(ave)
            if meta.warm_s is not None:
                w = ave[:, 0] <= meta.warm_s
                warm["red_avg_sum"][p] = ave[w, 1].sum() / scale
                warm["red_avg_n"][p] = w.sum()
    end["max_pkts"] = max_queue(probes, meta, samples, end, warm)
    return end, warm, bdep


def max_queue(probes: Probes, meta: Meta, samples: np.ndarray, end, warm) -> np.ndarray:
    """Largest queue over the measured interval: the sampled maximum, or limit - 1 for a
    drop-tail queue that overflowed then (ns-2 keeps no running maximum)."""
    n = len(probes.names)
    out = np.full(n, np.nan)
    t0 = meta.warm_s or 0.0
    if len(samples):
        after = samples[:, 0] >= t0
        if after.any():
            out = samples[after][:, 1::3][:, :n].max(axis=0)
    for p, cfg in enumerate(probes.configs):
        if not cfg.red and end["drops"][p] - warm["drops"][p] > 0:
            out[p] = np.fmax(out[p], probes.limits[p] - 1)
    return out


def series(probes: Probes, samples: np.ndarray):
    times = samples[:, 0] if len(samples) else np.zeros(0)
    out = {}
    for p, name in enumerate(probes.names):
        cfg = probes.configs[p]
        scale = cfg.mean_pkt_size if cfg.byte_mode else 1.0
        cols = samples[:, 1 + 3 * p: 4 + 3 * p] if len(samples) else np.zeros((0, 3))
        out[name] = (cols[:, 0].copy(), cols[:, 1].copy(), cols[:, 2] / scale)
    return times, out


def read_timeouts(workdir: Path, n: int, warm_s: float | None, seen: Events | None = None,
                  rows: pd.DataFrame | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Retransmission timeouts per bulk flow/transfer, (all, up to the warm-up), from the
    agents' event trace: every expiry, also those ns-2's ``nrexmit_`` leaves out (during
    recovery from an ECN echo), but not those with nothing outstanding: a finished
    transfer's timer keeps expiring every RTO, and an ECN echo that halves cwnd below one
    segment makes the sender wait for the timer before it sends again (RFC 3168; the
    event's window field, int(cwnd_), is then 0). A timeout at int(cwnd_) 0 with data
    outstanding (an echo halved a timeout's window 1 -> 0.5 while older segments were
    unacknowledged, then the timer expired again) is one: ``seen`` (data departures and
    drops at the probed queues, :func:`probe_sightings`) tells them apart, as such a
    timeout resends a segment seen before, where the wait sends a new one."""
    to = _timeout_rows(workdir, n) if rows is None else rows
    if to.empty:
        return np.zeros(n), np.zeros(n)
    to = to[(to.cwnd >= 1).to_numpy() | _resends(to, seen)]
    done = read_done(workdir, n)[to.fid.to_numpy(dtype=np.int64)]
    to = to[(done < 0) | (to.time.to_numpy(dtype=float) <= done)]
    return _per_flow(to, n, warm_s)


def read_syn_retries(workdir: Path, n: int, warm_s: float | None,
                     rows: pd.DataFrame | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Resends of packet 0 (ns-2's one-way SYN) per bulk flow/transfer, (all, up to the
    warm-up): the timeouts traced while only packet 0 was out (t_seqno_ 1, never
    acknowledged). ns-2 counts each in ``ndatapack_`` and ``nrexmitpack_``; aqmlab's tables
    count data segments, and ns-3 counts no SYN there."""
    to = _timeout_rows(workdir, n) if rows is None else rows
    return _per_flow(to[to.seqno == 1], n, warm_s)


def _timeout_rows(workdir: Path, n: int) -> pd.DataFrame:
    """The agents' TIMEOUT events of flows 0..n-1 (``events.tr``): time, fid, t_seqno_ and
    int(cwnd_)."""
    path = workdir / "events.tr"
    if not path.exists() or path.stat().st_size == 0:
        return pd.DataFrame({"time": [], "event": [], "fid": [], "seqno": [], "cwnd": []})
    ev = pd.read_csv(path, sep=r"\s+", header=None, usecols=[1, 5, 6, 7, 8],
                     names=["time", "event", "fid", "seqno", "cwnd"])
    return ev[(ev.event == "TIMEOUT") & (ev.fid >= 0) & (ev.fid < n)]


def _per_flow(to: pd.DataFrame, n: int, warm_s: float | None) -> tuple[np.ndarray, np.ndarray]:
    """Rows per flow, (all, up to ``warm_s``; zeros without it)."""
    fid = to.fid.to_numpy(dtype=np.int64)
    end = np.bincount(fid, minlength=n)[:n].astype(float)
    warm = np.zeros(n)
    if warm_s is not None:
        early = to.time.to_numpy(dtype=float) <= warm_s
        warm = np.bincount(fid[early], minlength=n)[:n].astype(float)
    return end, warm


def _resends(to: pd.DataFrame, seen: Events | None) -> np.ndarray:
    """Per TIMEOUT row: at int(cwnd_) 0, whether the flow's first data packet seen at a
    probed queue after it carries a seqno seen there before it (a retransmission: data was
    outstanding); False where nothing tells (no probed queue, no packet after)."""
    out = np.zeros(len(to), bool)
    rows = np.flatnonzero(~(to.cwnd.to_numpy() >= 1))
    if seen is None or not len(rows):
        return out
    data = np.flatnonzero(seen.data)
    by = data[np.lexsort((seen.time[data], seen.fid[data]))]  # per flow, in time (stable)
    fids, times, seqnos = seen.fid[by], seen.time[by], seen.seqno[by]
    t_row, fid_row = to.time.to_numpy(dtype=float), to.fid.to_numpy(dtype=np.int64)
    for k in rows:
        lo, hi = np.searchsorted(fids, fid_row[k], "left"), np.searchsorted(fids, fid_row[k], "right")
        first = lo + int(np.searchsorted(times[lo:hi], t_row[k], "right"))  # first after t
        if first < hi:
            out[k] = bool((seqnos[lo:first] == seqnos[first]).any())
    return out


def flow_columns(workdir: Path, plan: Plan, warm_s: float | None = None,
                 seen: Events | None = None):
    """(end, warm) dicts of the bulk/transfer flows' sender and sink counters; ``seen``:
    see :func:`read_timeouts`."""
    nb = len(plan.flows)
    rows = read_rows(workdir / "flows.txt", 9)
    events = _timeout_rows(workdir, nb)  # events.tr, read once for both
    timeouts = read_timeouts(workdir, nb, warm_s, seen, events)
    syn_retries = read_syn_retries(workdir, nb, warm_s, events)
    mss = np.array([f.tcp.mss for f in plan.flows], float)
    ppp = plan.ppp_frames
    wire = mss + np.array([mapping.header_bytes(f.tcp, ppp) for f in plan.flows], float)
    size = np.array([f.size_bytes for f in plan.flows], float)
    result = []
    for phase in (1, 0):
        r = rows[rows[:, 0] == phase]
        i = r[:, 1].astype(int)
        col = {c: np.zeros(nb) for c in FLOW_COLUMNS}
        ndata, nbytes, nrex, _nrexmit, cuts, necn, sink = (r[:, j] for j in range(2, 9))
        nto = timeouts[1 - phase][i]
        syn = syn_retries[1 - phase][i]
        # packet 0 has no payload: neither it nor its resends are data segments
        col["data_packets_sent"][i] = np.maximum(ndata - 1 - syn, 0)
        col["data_bytes_sent"][i] = nbytes
        col["retrans_packets"][i] = np.maximum(nrex - syn, 0)
        col["timeouts"][i] = nto
        col["fast_recoveries"][i] = np.maximum(cuts - necn - nto, 0)
        col["ecn_reductions"][i] = necn
        segs = np.floor(np.maximum(sink - mapping.base_header_bytes(ppp), 0) / wire[i])
        got = segs * mss[i]
        col["bytes_received"][i] = np.where(size[i] > 0, np.minimum(got, size[i]), got)
        result.append(col)
    return result[0], result[1]


def read_done(workdir: Path, n: int) -> np.ndarray:
    """Completion time of each finite transfer (-1: not completed)."""
    out = np.full(n, -1.0)
    rows = read_rows(workdir / "done.txt", 2)
    out[rows[:, 0].astype(int)] = rows[:, 1]
    return out


def hdr_by_row(plan: Plan, native: Collection[int] = ()) -> np.ndarray:
    """Header bytes of a data packet, by flow row (bulk flows, then web connections);
    ``native``: the plan.web groups ns-2's own PackMimeHTTP ran (40-byte headers)."""
    bulk = [mapping.header_bytes(f.tcp, plan.ppp_frames) for f in plan.flows]
    web = [np.full(len(w), mapping.header_bytes(w.tcp, ppp=plan.ppp_frames and g not in native))
           for g, w in enumerate(plan.web)]
    return np.concatenate([np.asarray(bulk, float), *web])


def parse_run(workdir: Path, plan: Plan, web_result=None) -> RawRun:
    """Everything the run wrote, as a RawRun (stats other than times filled by the caller).
    ``web_result`` supplies the web connections' columns (rows nb.. of every flow array)."""
    probes = Probes.of(plan)
    meta = read_meta(workdir / "meta.txt")
    nprobe = len(probes.names)
    samples = read_rows(workdir / "samples.txt", 1 + 3 * nprobe)
    nb = len(plan.flows)
    if web_result is not None:
        rows_of = lambda fid: web_result.rows_of_fids(fid, nb)  # noqa: E731
    else:
        rows_of = lambda fid: np.where((fid >= 0) & (fid < nb), fid, -1)  # noqa: E731
    hdr = hdr_by_row(plan, web_result.native if web_result is not None else ())
    drops = Events.of(read_trace(workdir / "drops.tr"), probes, rows_of, hdr)
    ecn = any(c.ecn for c in probes.configs)
    deque = Events.of(read_trace(workdir / "deque.tr", tcp_header=False), probes, rows_of,
                      hdr) if ecn else None
    seen = probe_sightings(deque, drops) if deque is not None else None
    marked = first_marks(seen) if seen is not None else None
    qend, qwarm, bdep = queue_columns(workdir, probes, meta, drops, seen, marked, samples, ecn)
    end, warm = flow_columns(workdir, plan, meta.warm_s, seen)
    info = {
        "src": np.array([f.src for f in plan.flows], float),
        "dst": np.array([f.dst for f in plan.flows], float),
        "start": np.array([f.start_s for f in plan.flows], float),
        "target": np.array([f.size_bytes for f in plan.flows], float),
        "completion": read_done(workdir, nb),
        "first_rx": np.full(nb, -1.0),
        "request": np.zeros(nb),
        "delay": np.zeros(nb),
        "kind": np.zeros(nb),
    }
    if web_result is not None:
        end, warm, info = web_result.append(end, warm, info)
    n = len(info["src"])
    for out, mask in zip((end, warm), split_time(drops, meta.warm_s), strict=True):
        out["drops"] = count_by(drops.fid, n, mask & drops.data & (drops.probe >= 0))
        out["ack_drops"] = count_by(drops.fid, n, mask & ~drops.data & (drops.probe >= 0))
        # nrexmit_ also counts the timeouts of a lost packet 0 (the one-way agents' SYN);
        # aqmlab counts data timeouts only: one per packet-0 drop of a bulk flow.
        syn = count_by(drops.fid, n, mask & drops.syn & (drops.probe >= 0))[:nb]
        out["timeouts"][:nb] = np.maximum(out["timeouts"][:nb] - syn, 0)
    if marked is not None:
        for out, mask in zip((end, warm), split_time(seen, meta.warm_s), strict=True):
            out["marks"] = count_by(seen.fid, n, mask & marked & seen.data)
    times, ser = series(probes, samples)
    raw = RawRun(flows=end, flows_warm=warm, flow_info=info, queues=qend, queues_warm=qwarm,
                 probe_names=probes.names, link_bytes=bdep[1], link_bytes_warm=bdep[0],
                 link_rates=probes.rates, sample_times=times, series=ser)
    raw.stats = {"end_s": meta.end_s, "warmup_s": meta.warm_s or 0.0, "events": 0.0}
    return raw
