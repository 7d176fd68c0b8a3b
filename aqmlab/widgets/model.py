"""The explorer's model, without widgets: control values -> Scenario, labels, summary rows.

Everything here is pure Python (no ipywidgets, no ns-3), so it is unit-tested directly.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from aqmlab.errors import ScenarioError
from aqmlab.scenario import Dumbbell, Mah, PackMime, Scenario

__all__ = [
    "ACCESS_DELAY_MS",
    "BITS_PER_WEB_CONNECTION",
    "QUEUE_KINDS",
    "QUEUE_PARAMS",
    "SACK_ALWAYS",
    "TCP_CHOICES",
    "TRAFFIC_KINDS",
    "Check",
    "Settings",
    "build_scenario",
    "check",
    "describe",
    "diff_labels",
    "summary_row",
]

#: Offered web load -> PackMime connection rate: one connection carries about 10 kB
#: (80 kbit) across the bottleneck on average, so rate = load * bottleneck_bps / 80e3.
BITS_PER_WEB_CONNECTION = 80e3
#: One-way delay of every access link (ms); the bottleneck delay makes up the rest of the RTT.
ACCESS_DELAY_MS = 1.0
MAX_SENDERS = 20
WEB_HOSTS = 4

TRAFFIC_KINDS = {
    "bulk": "bulk (long-lived flows)",
    "web": "web (PackMime-HTTP)",
    "browsing": "web users (Mah/UNC)",
}
TCP_CHOICES = ("reno", "newreno", "sack", "cubic", "bbr", "dctcp")
#: Variants that always negotiate SACK (reno/newreno never do; "sack" is Reno + SACK).
SACK_ALWAYS = frozenset({"sack", "cubic", "bbr", "dctcp"})
QUEUE_KINDS = {
    "droptail": "drop-tail",
    "red": "RED",
    "ared": "Adaptive RED",
    "codel": "CoDel",
    "fq_codel": "FQ-CoDel",
    "pie": "PIE",
}
#: The Settings fields that parameterise each queue kind (besides ``limit``).
QUEUE_PARAMS: dict[str, tuple[str, ...]] = {
    "droptail": (),
    "red": ("min_th", "max_th", "max_p", "w_q"),
    "ared": ("ared_target_ms",),
    "codel": ("codel_target_ms", "codel_interval_ms"),
    "fq_codel": ("codel_target_ms", "codel_interval_ms"),
    "pie": ("pie_target_ms",),
}
#: The Settings field that sizes each traffic kind.
TRAFFIC_PARAM = {"bulk": "flows", "web": "load", "browsing": "users"}


@dataclass(frozen=True)
class Settings:
    """The explorer's control values (plain numbers, as the widgets hold them)."""

    rate_mbps: float = 10.0
    rtt_ms: float = 50.0
    traffic: str = "bulk"
    flows: int = 10
    load: float = 0.8
    users: int = 50
    variant: str = "reno"
    ecn: bool = False
    queue: str = "droptail"
    limit: int = 100
    min_th: float = 5.0
    max_th: float = 15.0
    max_p: float = 0.1
    w_q: float = 0.002
    ared_target_ms: float = 5.0
    codel_target_ms: float = 5.0
    codel_interval_ms: float = 100.0
    pie_target_ms: float = 15.0
    duration_s: float = 20.0
    seed: int = 1

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)

    @property
    def sack(self) -> bool:
        return self.variant in SACK_ALWAYS

    @property
    def warmup_s(self) -> float:
        """Statistics skip the start-up: a quarter of the run, at most 5 s."""
        return min(5.0, self.duration_s / 4)


def _num(x: float) -> str:
    return f"{x:g}"


def _queue_dict(s: Settings) -> dict[str, Any]:
    q: dict[str, Any] = {"kind": s.queue, "limit": f"{int(s.limit)}p"}
    if s.queue != "droptail":
        q["ecn"] = bool(s.ecn)
    if s.queue == "red":
        q.update(min_th=s.min_th, max_th=s.max_th, max_p=s.max_p, w_q=s.w_q)
    elif s.queue == "ared":
        q["target_delay"] = f"{_num(s.ared_target_ms)}ms"
    elif s.queue in ("codel", "fq_codel"):
        q.update(target=f"{_num(s.codel_target_ms)}ms",
                 interval=f"{_num(s.codel_interval_ms)}ms")
    elif s.queue == "pie":
        q["target"] = f"{_num(s.pie_target_ms)}ms"
    return q


def _traffic_dict(s: Settings) -> dict[str, Any]:
    if s.traffic == "bulk":
        return {"kind": "bulk", "flows": int(s.flows), "start_spread": "1s"}
    if s.traffic == "web":
        if not s.load > 0:
            raise ScenarioError("load", s.load, "the offered web load must be > 0")
        rate = s.load * s.rate_mbps * 1e6 / BITS_PER_WEB_CONNECTION
        return {"kind": "packmime", "rate": round(rate, 6), "load": s.load, "rtt": "none"}
    if s.traffic == "browsing":
        return {"kind": "mah", "users": int(s.users), "rtt": "none"}
    raise ScenarioError("traffic", s.traffic, f"one of {', '.join(TRAFFIC_KINDS)}")


def build_scenario(s: Settings) -> Scenario:
    """The Scenario of the control values ``s``; raises ScenarioError naming the field.

    Dumbbell with ``rate_mbps`` bottleneck; access links of max(100 Mb/s, 10 x bottleneck)
    and 1 ms; bottleneck delay = RTT/2 - 2 ms so that the base RTT is ``rtt_ms``. Bulk
    flows are spread over min(flows, 20) senders; web traffic uses 4 servers and 4 clients.
    """
    min_rtt = 4 * ACCESS_DELAY_MS
    if not s.rtt_ms > min_rtt:
        raise ScenarioError("rtt_ms", s.rtt_ms,
                            f"the base RTT must be > {min_rtt:g} ms (the access links' delay)")
    if not s.rate_mbps > 0:
        raise ScenarioError("rate_mbps", s.rate_mbps, "the bottleneck rate must be > 0")
    if not s.duration_s > 0:
        raise ScenarioError("duration_s", s.duration_s, "the duration must be > 0")
    delay_ms = s.rtt_ms / 2 - 2 * ACCESS_DELAY_MS
    hosts = min(int(s.flows), MAX_SENDERS) if s.traffic == "bulk" else WEB_HOSTS
    hosts = max(hosts, 1)
    sample = max(0.01, s.duration_s / 1000)
    return Scenario(
        name="explorer",
        description="aqmlab.explore()",
        topology={
            "kind": "dumbbell",
            "senders": hosts,
            "bottleneck": {"rate": f"{_num(s.rate_mbps)}Mbps", "delay": f"{_num(delay_ms)}ms"},
            "access": {"rate": f"{_num(max(100.0, 10 * s.rate_mbps))}Mbps",
                       "delay": f"{_num(ACCESS_DELAY_MS)}ms"},
            "forward_queue": _queue_dict(s),
        },
        tcp={"variant": s.variant, "ecn": bool(s.ecn)},
        traffic=[_traffic_dict(s)],
        run={"duration": f"{_num(s.duration_s)}s", "warmup": f"{_num(s.warmup_s)}s",
             "seed": int(s.seed), "sample_interval": f"{_num(round(sample, 4))}s"},
    )


@dataclass
class Check:
    """The outcome of checking control values: a scenario, or an error; plus notes."""

    scenario: Scenario | None
    error: str = ""
    field: str = ""
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.scenario is not None


def check(s: Settings) -> Check:
    """Validate ``s``: build its Scenario (error message naming the field on failure) and
    explain combinations that run but may surprise (ECN on drop-tail, overload, ...)."""
    notes: list[str] = []
    if s.ecn and s.queue == "droptail":
        notes.append("drop-tail never marks packets: with ECN on, flows still only see drops.")
    if s.variant == "dctcp" and s.queue == "droptail":
        notes.append("DCTCP reacts to ECN marks; a drop-tail queue gives it none.")
    if s.traffic == "web" and s.load >= 1:
        notes.append("offered load >= 1: the bottleneck is overloaded, response times grow "
                     "with the run.")
    if s.queue in ("red", "ared", "codel", "fq_codel", "pie") and s.variant == "bbr":
        notes.append("BBR largely ignores losses; AQM drops affect it little.")
    try:
        sc = build_scenario(s)
    except ScenarioError as err:
        return Check(None, str(err), err.field, tuple(notes))
    return Check(sc, "", "", tuple(notes))


# -- describing runs -----------------------------------------------------------------------------

def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3g} ms"


def describe(sc: Scenario) -> dict[str, str]:
    """The explorer-level parameters of a scenario, with short names, for legends/tables.

    Only the parameters that matter for this run are included (e.g. RED's thresholds
    only for a RED queue), so a difference in kind shows as the kind itself.
    """
    d: dict[str, str] = {}
    topo = sc.topology
    d["rate"] = f"{topo.bottleneck_rate_bps / 1e6:g} Mb/s"
    if isinstance(topo, Dumbbell):
        rtt = 2 * (topo.bottleneck.delay_s + 2 * topo.access.delay_s)
        d["RTT"] = _ms(rtt)
        q = topo.forward_queue
    else:
        q = topo.forward_queue
    g = sc.traffic[0]
    d["traffic"] = {"packmime": "web", "mah": "browsing"}.get(g.kind, g.kind)
    if g.kind == "bulk":
        d["flows"] = str(sc.n_flows)
    elif isinstance(g, PackMime):
        d["load"] = f"{g.load:g}" if g.load is not None else f"{g.rate:g}/s"
    elif isinstance(g, Mah):
        d["users"] = str(g.users)
    elif g.kind == "transfers":
        d["transfers"] = str(sc.n_flows)
    tcp = sc.tcp
    d["tcp"] = tcp.variant
    d["ECN"] = "on" if tcp.ecn else "off"
    d["queue"] = q.kind
    d["limit"] = str(q.limit)
    if q.kind == "red":
        d.update(min_th=f"{q.min_th:g}", max_th=f"{q.max_th:g}", max_p=f"{q.max_p:g}",
                 w_q=f"{q.w_q:g}")
    elif q.kind == "ared":
        d["target"] = _ms(q.target_delay_s)
    elif q.kind in ("codel", "fq_codel"):
        d["target"] = _ms(q.target_s)
        d["interval"] = _ms(q.interval_s)
    elif q.kind == "pie":
        d["target"] = _ms(q.target_s)
    d["duration"] = f"{sc.run.duration_s:g} s"
    d["seed"] = str(sc.run.seed)
    return d


def short_label(desc: dict[str, str]) -> str:
    """A one-run label: queue, TCP and load, e.g. ``droptail 100p, reno, 10 flows``."""
    load = next((f"{desc[k]} {k}" for k in ("flows", "load", "users", "transfers")
                 if k in desc), desc.get("traffic", ""))
    ecn = "+ECN" if desc.get("ECN") == "on" else ""
    return f"{desc.get('queue', '?')} {desc.get('limit', '')}, {desc.get('tcp', '?')}{ecn}, {load}"


def diff_labels(descs: list[dict[str, str]]) -> list[str]:
    """One legend label per run, naming only the parameters that differ between runs.

    A parameter that some runs lack (RED's ``max_p`` next to a CoDel run) is left out of
    the label when the kind already differs. With one run, or runs that do not differ,
    :func:`short_label` is used (identical runs get ``#k`` appended).
    """
    if not descs:
        return []
    keys: list[str] = []
    for d in descs:
        keys.extend(k for k in d if k not in keys)
    differing = [k for k in keys if len({d.get(k) for d in descs}) > 1]
    if len(descs) == 1 or not differing:
        labels = [short_label(d) for d in descs]
        if len(descs) > 1:
            labels = [f"{lab} #{i + 1}" for i, lab in enumerate(labels)]
        return labels
    # a parameter only some runs have is implied by a differing kind: skip it then
    parent = {"flows": "traffic", "load": "traffic", "users": "traffic", "transfers": "traffic",
              "min_th": "queue", "max_th": "queue", "max_p": "queue", "w_q": "queue",
              "target": "queue", "interval": "queue"}
    shown = []
    for k in differing:
        partial = any(k not in d for d in descs)
        if partial and parent.get(k) in differing:
            runs_with = [d for d in descs if k in d]
            if len({d[k] for d in runs_with}) <= 1:
                continue
        shown.append(k)
    labels = []
    for d in descs:
        parts = [f"{k}={d[k]}" for k in shown if k in d]
        labels.append(", ".join(parts) if parts else short_label(d))
    return labels


# -- summary ---------------------------------------------------------------------------------

def _f(x: Any) -> float:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return math.nan
    return v


def response_times(res: Any) -> np.ndarray:
    """Completed response times (s) of requests that started after the warm-up."""
    req = res.requests
    if req is None or len(req) == 0 or "response_time_s" not in req:
        return np.array([])
    sel = req[req["completed"].astype(bool) & req["after_warmup"].astype(bool)]
    return np.sort(sel["response_time_s"].to_numpy(dtype=float))


def summary_row(res: Any) -> dict[str, Any]:
    """The headline numbers of one run (Results) for the explorer's table."""
    s = res.summary.iloc[0].to_dict() if len(res.summary) else {}
    q = res.queues.iloc[0].to_dict() if len(res.queues) else {}
    row: dict[str, Any] = {
        "goodput (Mb/s)": _f(s.get("goodput_mbps")),
        "utilisation": _f(s.get("utilisation")),
        "loss (%)": 100 * _f(s.get("loss_rate")),
        "marks (%)": 100 * _f(s.get("mark_rate")),
        "avg queue (pkts)": _f(s.get("avg_qlen_pkts")),
        "avg queue delay (ms)": 1e3 * _f(q.get("avg_delay_s")),
        "timeouts": _f(s.get("timeouts")),
        "fairness (Jain)": _f(s.get("jain_fairness")),
    }
    rt = response_times(res)
    if len(rt) or res.scenario.traffic[0].kind in ("packmime", "mah"):
        req = res.requests
        n_after = int(req["after_warmup"].sum()) if len(req) else 0
        row["goodput (Mb/s)"] = math.nan  # web: bytes are in requests, not flows
        row["timeouts"] = math.nan  # counted per response below
        after = req[req["after_warmup"].astype(bool)] if len(req) else req
        row.update({
            "responses": float(n_after),
            "median response (ms)": 1e3 * float(np.median(rt)) if len(rt) else math.nan,
            "p90 response (ms)": 1e3 * float(np.quantile(rt, 0.9)) if len(rt) else math.nan,
            "responses with loss (%)": 100 * _f(s.get("share_responses_with_loss")),
            "responses with timeout (%)": (100 * float(after["timeout"].mean())
                                           if n_after else math.nan),
            "incomplete (%)": 100 * (1 - len(rt) / n_after) if n_after else math.nan,
        })
    return row


#: Decimals kept by :func:`summary_frame` (others: 2).
_DECIMALS = {"utilisation": 3, "fairness (Jain)": 3, "loss (%)": 3, "marks (%)": 3}


def summary_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Rows -> a DataFrame, rounded for reading, without all-NaN columns."""
    df = pd.DataFrame(rows).dropna(axis=1, how="all")
    for col in df.columns:
        if pd.api.types.is_float_dtype(df[col]):
            df[col] = df[col].round(_DECIMALS.get(col, 2))
    return df
