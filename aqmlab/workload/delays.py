"""Per-connection base round-trip times (pure numpy + scipy.special; never ns-3).

Three models, all returning the **full** base RTT in seconds (a DelayBox-like element
would add ``rtt/2`` in each direction, as ns-2 does):

- :class:`PackMimeRtt` — ns-2.35 ``PackMimeHTTPXmit`` tables (packmime ``MODEL.md``, "RTTs"):
  ``side="client"`` is type 0 (``rtt_short_invcdf``, power 5, d = 0.31), ``side="server"``
  is type 1 (``rtt_long_invcdf``, power 3, d = 0.32), ``side="both"`` their sum (two
  independent streams, as ns-2's two DelayBoxes). ``x = -log10(1-u)``,
  ``RTT_ms = interp(table, x) ** power``. Optional FARIMA dependence across connections.
- :class:`EmpiricalRtt` — a user's quantile table ``(p, rtt_s)``, linear between points.
- :class:`PairRtt` — a matrix of per (client machine, server machine) RTTs; by default the
  49 laboratory values of Christiansen's thesis, Table 4.1 (``data/christiansen2001``).

Each model has ``sample(n, seed, rate=None) -> ndarray`` drawing from its own keyed stream
(``seed`` is a :class:`numpy.random.SeedSequence` or an int).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Literal, Protocol, runtime_checkable

import numpy as np
from scipy.special import log_ndtr

from aqmlab.workload.farima import gaussian_driver
from aqmlab.workload.streams import SeedLike, child, generator, stream
from aqmlab.workload.tables import logit2, packmime_constants, packmime_curve, read_table

__all__ = ["RttModel", "PackMimeRtt", "EmpiricalRtt", "PairRtt", "christiansen_pair_rtt_ms"]

_LN10 = math.log(10.0)


@runtime_checkable
class RttModel(Protocol):
    """Anything that draws ``n`` per-connection base RTTs in seconds."""

    def sample(self, n: int, seed: SeedLike, rate: float | None = None) -> np.ndarray: ...


def _ss(seed: SeedLike) -> np.random.SeedSequence:
    return seed if isinstance(seed, np.random.SeedSequence) else stream(seed)


_SIDES = {  # side -> (table, power, constant prefix)
    "client": ("rtt_short_invcdf", "rtt_short_power", "rtt_short"),
    "server": ("rtt_long_invcdf", "rtt_long_power", "rtt_long"),
}


@dataclass(frozen=True)
class PackMimeRtt:
    """PackMime-HTTP RTT per connection, ns-2.35 tables.

    Parameters
    ----------
    side
        ``"server"`` (type 1, long table: median 58 ms, mean 81 ms, p90 114 ms — the
        marginal the seed-000 paper's RTT statistics resemble), ``"client"`` (type 0, short
        table: median 1.5 ms, mean 26.7 ms) or ``"both"`` (client + server, independent).
    lrd
        FARIMA dependence between consecutive connections (d = 0.31 client, 0.32 server,
        K = 1000, noise share ``g(c0 + c1 log2 rate)``); needs ``rate``. Off: i.i.d.
    scale
        Multiplier on every RTT (e.g. to rescale the mean to a paper's value).
    max_s
        Optional cap on the (scaled) RTT in seconds; the tables' linear extension is
        otherwise unbounded (p = 1 - 1e-15 gives ~100 s on the server side).
    """

    side: Literal["client", "server", "both"] = "server"
    lrd: bool = False
    scale: float = 1.0
    max_s: float | None = None

    def __post_init__(self) -> None:
        if self.side not in ("client", "server", "both"):
            raise ValueError(f"side must be 'client', 'server' or 'both', got {self.side!r}")
        if not self.scale > 0:
            raise ValueError(f"scale must be > 0, got {self.scale}")
        if self.max_s is not None and not self.max_s > 0:
            raise ValueError(f"max_s must be > 0, got {self.max_s}")

    @staticmethod
    def noise_share(side: Literal["client", "server"], rate: float) -> float:
        """White-noise share ``v = g(c0 + c1 log2 rate)`` of that side's driver."""
        c = packmime_constants()
        p = _SIDES[side][2]
        return logit2(
            c[f"{p}_noise_varratio_intercept"] + c[f"{p}_noise_varratio_slope"] * math.log2(rate)
        )

    @staticmethod
    def quantile_ms(side: Literal["client", "server"], log_sf: np.ndarray) -> np.ndarray:
        """RTT in ms of one side at ``log(1 - u)`` (natural log of the survival prob.)."""
        table, power, _ = _SIDES[side]
        x = -np.asarray(log_sf, dtype=float) / _LN10
        return packmime_curve(table)(x) ** packmime_constants()[power]

    def _side(self, side: str, n: int, ss: np.random.SeedSequence, rate: float | None):
        c = packmime_constants()
        p = _SIDES[side][2]
        if self.lrd:
            if rate is None:
                raise ValueError("PackMimeRtt(lrd=True) needs the connection rate")
            z = gaussian_driver(
                n, d=c[f"{p}_farima_d"], K=int(c["rtt_farima_ar_truncation"]),
                noise_share=self.noise_share(side, rate), seed=ss, lrd=True,
            )
        else:  # the driver's noise stream alone (its v = 1 limit)
            z = generator(ss, 1).standard_normal(n)
        return self.quantile_ms(side, log_ndtr(-z)) / 1000.0

    def sample(self, n: int, seed: SeedLike, rate: float | None = None) -> np.ndarray:
        """``n`` RTTs in seconds. Stream keys: client side ``child(seed, 0)``, server side
        ``child(seed, 1)`` (each with sub-streams 0 = FARIMA, 1 = noise)."""
        ss = _ss(seed)
        sides = ("client", "server") if self.side == "both" else (self.side,)
        rtt = np.zeros(n)
        for side in sides:
            rtt += self._side(side, n, child(ss, 0 if side == "client" else 1), rate)
        rtt *= self.scale
        return rtt if self.max_s is None else np.minimum(rtt, self.max_s)

    def quantile_s(self, u: np.ndarray | float) -> np.ndarray:
        """Marginal quantile in seconds (one side only; ``side="both"`` has no closed form)."""
        if self.side == "both":
            raise ValueError("quantile_s is defined per side; use sample() for 'both'")
        u = np.asarray(u, dtype=float)
        r = self.scale * self.quantile_ms(self.side, np.log1p(-u)) / 1000.0
        return r if self.max_s is None else np.minimum(r, self.max_s)

    def mean_s(self) -> float:
        """Population mean in seconds (numerical integral over x = -log10(1-u))."""
        sides = ("client", "server") if self.side == "both" else (self.side,)
        if self.side == "both" and self.max_s is not None:
            raise ValueError("mean_s with max_s is not available for side='both'")
        x = np.linspace(0.0, 40.0, 400_001)
        w = _LN10 * np.exp(-_LN10 * x)  # density of x
        total = 0.0
        for side in sides:
            r = self.scale * self.quantile_ms(side, -x * _LN10) / 1000.0
            if self.max_s is not None:
                r = np.minimum(r, self.max_s)
            total += float(np.trapezoid(r * w, x))
        return total


@dataclass(frozen=True, eq=False)
class EmpiricalRtt:
    """RTTs from a user-given quantile table, i.i.d. per connection.

    ``p`` rises strictly within [0, 1]; ``rtt_s`` does not decrease. The inverse CDF is
    linear between points and holds the end values outside ``[p[0], p[-1]]`` (no
    extrapolation). Example: ``EmpiricalRtt([0, .5, .9, 1], [.001, .054, .117, 3.5])``.
    """

    p: np.ndarray
    rtt_s: np.ndarray

    def __post_init__(self) -> None:
        p, r = np.asarray(self.p, float), np.asarray(self.rtt_s, float)
        if p.ndim != 1 or p.shape != r.shape or len(p) < 2:
            raise ValueError("EmpiricalRtt needs >= 2 (p, rtt_s) points of equal length")
        if np.any(np.diff(p) <= 0) or p[0] < 0 or p[-1] > 1:
            raise ValueError("p must rise strictly within [0, 1]")
        if np.any(np.diff(r) < 0) or r[0] < 0:
            raise ValueError("rtt_s must be >= 0 and must not decrease")
        object.__setattr__(self, "p", p)
        object.__setattr__(self, "rtt_s", r)

    def quantile_s(self, u: np.ndarray | float) -> np.ndarray:
        return np.interp(u, self.p, self.rtt_s)

    def mean_s(self) -> float:
        """Exact mean (trapezoids, end values held outside the table)."""
        p, r = self.p, self.rtt_s
        return float(p[0] * r[0] + np.sum(np.diff(p) * (r[1:] + r[:-1]) / 2) + (1 - p[-1]) * r[-1])

    def sample(self, n: int, seed: SeedLike, rate: float | None = None) -> np.ndarray:
        """``n`` i.i.d. RTTs in seconds from sub-stream 1 of ``seed``; ``rate`` is ignored."""
        return self.quantile_s(generator(_ss(seed), 1).random(n))


@cache
def christiansen_pair_rtt_ms() -> np.ndarray:
    """Christiansen (2001) Table 4.1 as a 7 × 7 int array in ms (rows = client machines,
    columns = servers: aqmlab's convention, the thesis does not say)."""
    t = read_table("christiansen2001", "pair_rtt_ms")
    m = np.zeros((int(t["row"].max()) + 1, int(t["col"].max()) + 1), dtype=np.int64)
    m[t["row"].astype(int), t["col"].astype(int)] = t["rtt_ms"].astype(np.int64)
    m.setflags(write=False)
    return m


@dataclass(frozen=True, eq=False)
class PairRtt:
    """A fixed RTT per (client machine, server machine) pair.

    Default matrix: :func:`christiansen_pair_rtt_ms` (mean 78.8 ms, median 85 ms,
    7–147 ms). :meth:`lookup` gives the RTT of given pairs (what the Mah/UNC executor needs:
    the user's client machine and the page's server); :meth:`sample` draws pairs uniformly,
    i.e. every matrix entry equally likely, as in the thesis.
    """

    rtt_ms: np.ndarray | None = None

    def __post_init__(self) -> None:
        m = christiansen_pair_rtt_ms() if self.rtt_ms is None else np.asarray(self.rtt_ms, float)
        if m.ndim != 2 or m.size == 0 or np.any(m < 0):
            raise ValueError("rtt_ms must be a non-empty 2-d array of non-negative values")
        object.__setattr__(self, "rtt_ms", m)

    @property
    def n_clients(self) -> int:
        return self.rtt_ms.shape[0]

    @property
    def n_servers(self) -> int:
        return self.rtt_ms.shape[1]

    def lookup(self, client: np.ndarray | int, server: np.ndarray | int) -> np.ndarray:
        """RTT in seconds of each (client machine, server machine) pair."""
        return np.asarray(self.rtt_ms, float)[client, server] / 1000.0

    def mean_s(self) -> float:
        return float(np.mean(self.rtt_ms)) / 1000.0

    def sample(self, n: int, seed: SeedLike, rate: float | None = None) -> np.ndarray:
        """``n`` RTTs of uniformly drawn pairs (sub-stream 1 of ``seed``)."""
        k = generator(_ss(seed), 1).integers(self.rtt_ms.size, size=n)
        return np.asarray(self.rtt_ms, float).ravel()[k] / 1000.0

