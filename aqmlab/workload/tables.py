"""The workload models' numeric tables and the two ways they are evaluated (pure numpy).

Tables ship as package data in ``aqmlab/workload/data/<model>/`` (CSV + ``MODEL.md`` with
provenance) and are read with :mod:`importlib.resources`.

- :class:`Curve` — PackMime's rule (ns-2.35 ``FX::LinearInterpolate``, packmime ``MODEL.md``
  §2): piecewise linear in the table's own coordinates, extended along the first segment
  below the first knot and along the last segment at or beyond the last knot; never clamped.
- :class:`EmpiricalCdf` — Mah's rule (GloMoSim ``http_distribution.c``, mah1997 ``MODEL.md``):
  inverse CDF with linear interpolation between (value, cdf) points; ``u < cdf[0]`` gives
  ``value[0]``; never extrapolates; integral tables take the ceiling.

Nothing here imports ns-3.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from functools import cache
from importlib.resources import files

import numpy as np

__all__ = [
    "Curve",
    "EmpiricalCdf",
    "logit2",
    "read_table",
    "model_text",
    "packmime_constants",
    "packmime_curve",
    "mah_table",
    "MAH_TABLES",
    "PACKMIME_CURVES",
]

PACKMIME_CURVES = (
    "response_validation_invcdf",
    "response_download_tail_invcdf",
    "request_body_invcdf",
    "request_tail_invcdf",
    "rtt_short_invcdf",
    "rtt_long_invcdf",
)
MAH_TABLES = {  # name -> integral (ceil) or continuous
    "consecutive_docs_per_server": True,
    "files_per_document": True,
    "primary_request_size": True,
    "secondary_request_size": True,
    "primary_reply_size": True,
    "secondary_reply_size": True,
    "think_time": False,
}


def _data(model: str, name: str):
    return files("aqmlab.workload") / "data" / model / name


@cache
def _read_rows(model: str, name: str) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    text = _data(model, name).read_text(encoding="utf-8")
    rows = list(csv.reader(io.StringIO(text)))
    return tuple(rows[0]), tuple(tuple(r) for r in rows[1:] if r)


def read_table(model: str, name: str) -> dict[str, np.ndarray]:
    """Read ``data/<model>/<name>.csv``; numeric columns as float64, others as str arrays."""
    header, rows = _read_rows(model, name if name.endswith(".csv") else f"{name}.csv")
    out: dict[str, np.ndarray] = {}
    for j, col in enumerate(header):
        cells = [r[j] for r in rows]
        try:
            out[col] = np.array([float(c) for c in cells])
        except ValueError:
            out[col] = np.array(cells)
    return out


def model_text(model: str) -> str:
    """The ``MODEL.md`` of a data directory (provenance and formulas)."""
    return _data(model, "MODEL.md").read_text(encoding="utf-8")


def logit2(z: np.ndarray | float) -> np.ndarray | float:
    """PackMime's inverse logit, base 2: ``g(z) = 2**z / (1 + 2**z)`` (MODEL.md §1)."""
    r = 1.0 / (1.0 + np.exp2(-np.asarray(z, dtype=float)))
    return float(r) if r.ndim == 0 else r


@cache
def packmime_constants() -> dict[str, float]:
    """Every scalar of ``packmime/constants.csv`` by name."""
    header, rows = _read_rows("packmime", "constants.csv")
    i, j = header.index("name"), header.index("value")
    return {r[i]: float(r[j]) for r in rows}


@dataclass(frozen=True, eq=False)
class Curve:
    """A piecewise-linear curve through knots (x, y), extended along its end segments.

    Evaluation follows packmime ``MODEL.md`` §2 exactly: with ``i`` the largest index such
    that ``x[i] <= q``, clipped to ``0..n-2``, return
    ``y[i] + (y[i+1] - y[i]) * (q - x[i]) / (x[i+1] - x[i])``.
    """

    x: np.ndarray
    y: np.ndarray

    def __post_init__(self) -> None:
        x, y = np.asarray(self.x, float), np.asarray(self.y, float)
        if x.ndim != 1 or x.shape != y.shape or len(x) < 2 or np.any(np.diff(x) <= 0):
            raise ValueError("Curve needs >= 2 knots with strictly increasing x")
        x.setflags(write=False)
        y.setflags(write=False)
        object.__setattr__(self, "x", x)
        object.__setattr__(self, "y", y)

    @property
    def slopes(self) -> np.ndarray:
        """Slope of each of the n-1 segments."""
        return np.diff(self.y) / np.diff(self.x)

    def __call__(self, q: np.ndarray | float) -> np.ndarray:
        q = np.asarray(q, dtype=float)
        i = np.clip(np.searchsorted(self.x, q, side="right") - 1, 0, len(self.x) - 2)
        x0, y0 = self.x[i], self.y[i]
        return y0 + (self.y[i + 1] - y0) * (q - x0) / (self.x[i + 1] - x0)


@cache
def packmime_curve(name: str) -> Curve:
    """One of :data:`PACKMIME_CURVES` as a :class:`Curve` (columns x, y of the CSV)."""
    if name not in PACKMIME_CURVES:
        raise ValueError(f"unknown PackMime table {name!r}; known: {', '.join(PACKMIME_CURVES)}")
    t = read_table("packmime", name)
    cols = list(t)
    return Curve(t[cols[0]], t[cols[1]])


@dataclass(frozen=True, eq=False)
class EmpiricalCdf:
    """Mah's tabulated CDF, sampled by inverse transform with linear interpolation.

    ``quantile(u)``: ``u < cdf[0]`` gives ``value[0]``; otherwise, with ``cdf[i] <= u <
    cdf[i+1]``, ``value[i] + (value[i+1] - value[i]) * (u - cdf[i]) / (cdf[i+1] - cdf[i])``,
    rounded up (``ceil``) when ``integral``. ``u`` lies in [0, 1), so the last value is never
    exceeded. For integral tables the mass ``cdf[i+1] - cdf[i]`` is spread evenly over the
    integers in ``(value[i], value[i+1]]``.
    """

    values: np.ndarray
    cdf: np.ndarray
    integral: bool

    def __post_init__(self) -> None:
        v, c = np.asarray(self.values, float), np.asarray(self.cdf, float)
        if v.shape != c.shape or v.ndim != 1 or len(v) < 2:
            raise ValueError("EmpiricalCdf needs matching 1-d values and cdf, >= 2 points")
        if np.any(np.diff(c) <= 0) or np.any(np.diff(v) < 0) or not math.isclose(c[-1], 1.0):
            raise ValueError("cdf must rise strictly to 1 and values must not decrease")
        v.setflags(write=False)
        c.setflags(write=False)
        object.__setattr__(self, "values", v)
        object.__setattr__(self, "cdf", c)

    def quantile(self, u: np.ndarray | float) -> np.ndarray:
        """Inverse CDF at ``u`` in [0, 1) (float64; whole numbers when ``integral``)."""
        u = np.asarray(u, dtype=float)
        v, c = self.values, self.cdf
        i = np.clip(np.searchsorted(c, u, side="right") - 1, 0, len(c) - 2)
        x = v[i] + (v[i + 1] - v[i]) * (u - c[i]) / (c[i + 1] - c[i])
        x = np.where(u < c[0], v[0], np.minimum(x, v[-1]))
        return np.ceil(x) if self.integral else x

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` draws from ``rng.random`` through :meth:`quantile`."""
        return self.quantile(rng.random(n))

    def mean(self, *, cap: float | None = None, floor: float | None = None) -> float:
        """Exact mean of the sampler, optionally of ``min(X, cap)`` and ``max(X, floor)``.

        ``floor`` applies only to the point mass at ``value[0]`` (e.g. 0-byte messages sent as
        1 byte); ``cap`` needs a continuous table.
        """
        v, c = self.values, self.cdf
        first = max(v[0], floor) if floor is not None else v[0]
        m = np.diff(c)
        lo, hi = v[:-1], v[1:]
        if self.integral:
            if cap is not None:
                raise ValueError("cap is only supported for continuous tables")
            gap = hi - lo
            seg = np.where(gap > 0, lo + (gap + 1) / 2, hi)  # mean of ceil(U(lo, hi))
            return float(c[0] * first + np.sum(m * seg))
        if cap is None:
            return float(c[0] * first + np.sum(m * (lo + hi) / 2))
        width = hi - lo
        f = np.clip((cap - lo) / np.where(width > 0, width, 1.0), 0.0, 1.0)
        seg = f * (2 * lo + f * width) / 2 + (1 - f) * cap  # E[min(X, cap)], X ~ U(lo, hi)
        seg = np.where(width > 0, seg, np.minimum(lo, cap))
        return float(c[0] * min(first, cap) + np.sum(m * seg))

    def pmf(self) -> tuple[np.ndarray, np.ndarray]:
        """Integral tables only: the support and probability of every value."""
        if not self.integral:
            raise ValueError("pmf() needs an integral table")
        v, c = self.values.astype(np.int64), self.cdf
        vals = [np.array([v[0]])]
        probs = [np.array([c[0]])]
        for i in range(len(v) - 1):
            k = np.arange(v[i] + 1, v[i + 1] + 1)
            vals.append(k)
            probs.append(np.full(len(k), (c[i + 1] - c[i]) / max(len(k), 1)))
        return np.concatenate(vals), np.concatenate(probs)


@cache
def mah_table(name: str) -> EmpiricalCdf:
    """One of :data:`MAH_TABLES` (mah1997 data) as an :class:`EmpiricalCdf`."""
    if name not in MAH_TABLES:
        raise ValueError(f"unknown Mah table {name!r}; known: {', '.join(MAH_TABLES)}")
    t = read_table("mah1997", name)
    return EmpiricalCdf(t["value"], t["cdf"], MAH_TABLES[name])
