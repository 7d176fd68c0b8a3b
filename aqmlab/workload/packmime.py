"""PackMime-HTTP (HTTP/1.0) workload as arrays: one row per connection (numpy + scipy).

Implements packmime ``MODEL.md`` (the ns-2.35 model of Cao, Cleveland, Gao, Jeffay, Smith and
Weigle, INFOCOM 2004) for the generator spec of the seed-000/004 digest, Part C:

- **arrivals** (open loop): gap ``λ (-ln(1-u))^(1/k)``, Weibull shape
  ``k = g(0.352 + 0.388 log2 r)``, scale ``λ = 1/(r Γ(1+1/k))`` so the mean rate is ``r``;
  ``u = Φ(z)`` of the FARIMA driver (d = 0.33, K = 1000, noise ``g(0.333 + 0.414 log2 r)``).
- **request sizes**: two-part mixture split at u = 0.5 (body table / log2 tail table), driver
  d = 0.31, K = 5000, noise ``g(0.123 + 0.494 log2 r)``.
- **response sizes**: alternating runs, first run a download (D) run [ns-2 quirk]; run
  lengths ``ceil(Weibull)``, V shape ``g(0.718 + 0.357 log2 r)`` scale 0.775, D shape
  ``g(1.293 + 0.316 log2 r)`` scale 3.11; sizes i.i.d. within a run (no FARIMA, as ns-2).
- **RTT** per connection from :mod:`aqmlab.workload.delays` (default: the server-side,
  type-1 ``rtt_long_invcdf`` table, full RTT).
- optional ns-2.35 **server delay** ``1/max(Weibull(0.63, 305), 10)`` s (off by default: the
  seed-000 paper has none, digest §A.4.2 item 5).

Sizes are floored, capped (default ``2**31 - 1``, ns-2's 32-bit int), and 0 becomes 1 byte.

**Common random numbers.** Arrivals, requests, responses (run lengths, V sizes, D sizes) and
RTTs each have their own keyed stream, ``(seed, run, instance, quantity, sub)``, consumed in
connection order, so the k-th connection's draws do not depend on the run length, the queue or
the other quantities. The rate still enters the rate-dependent shapes (run lengths, noise
shares); pass ``reference_rate`` to freeze those, which makes every connection's request,
response and RTT identical across rates (only the arrival times change).

The HTTP/1.1 (persistent connection) extension of MODEL.md is not implemented.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from functools import cache
from typing import Literal

import numpy as np
import pandas as pd
from scipy.special import log_ndtr, ndtr, ndtri

from aqmlab.workload.delays import PackMimeRtt, RttModel
from aqmlab.workload.farima import gaussian_driver
from aqmlab.workload.streams import PACKMIME, child, generator, stream
from aqmlab.workload.tables import logit2, packmime_constants, packmime_curve

__all__ = [
    "PackMimeWorkload",
    "arrival_weibull",
    "arrival_noise_share",
    "request_noise_share",
    "run_weibull",
    "mean_run_length",
    "validation_fraction",
    "request_quantile",
    "response_quantile",
    "mean_request_bytes",
    "mean_response_bytes",
    "expected_bytes_per_connection",
    "expected_offered_load_bps",
    "MAX_BYTES",
]

MAX_BYTES = 2**31 - 1
_LN2 = math.log(2.0)
# Stream keys below (seed, PACKMIME, run, instance).
_ARRIVALS, _REQUESTS, _RESPONSES, _RTT, _SERVER_DELAY = range(5)


def _c(name: str) -> float:
    return packmime_constants()[name]


# ---------------------------------------------------------------- rate-dependent parameters


def arrival_weibull(rate: float) -> tuple[float, float]:
    """(shape k, scale λ in s) of the connection inter-arrival Weibull at ``rate`` conn/s."""
    _check_rate(rate)
    k = logit2(
        _c("arrival_weibull_shape_intercept") + _c("arrival_weibull_shape_slope") * math.log2(rate)
    )
    return k, 1.0 / (rate * math.gamma(1.0 + 1.0 / k))


def arrival_noise_share(rate: float) -> float:
    """White-noise share ``v`` of the inter-arrival driver."""
    return logit2(
        _c("arrival_noise_varratio_intercept")
        + _c("arrival_noise_varratio_slope") * math.log2(rate)
    )


def request_noise_share(rate: float) -> float:
    """White-noise share ``v`` of the request-size driver."""
    return logit2(
        _c("request_noise_varratio_intercept")
        + _c("request_noise_varratio_slope") * math.log2(rate)
    )


def run_weibull(rate: float) -> dict[str, tuple[float, float]]:
    """``{"validation": (shape, scale), "download": (shape, scale)}`` of the run lengths."""
    _check_rate(rate)
    lr = math.log2(rate)
    return {
        "validation": (
            logit2(_c("response_run_validation_shape_intercept")
                   + _c("response_run_validation_shape_slope") * lr),
            _c("response_run_validation_scale"),
        ),
        "download": (
            logit2(_c("response_run_download_shape_intercept")
                   + _c("response_run_download_shape_slope") * lr),
            _c("response_run_download_scale"),
        ),
    }


def mean_run_length(shape: float, scale: float) -> float:
    """``E[ceil W] = Σ_{k>=0} exp(-(k/scale)^shape)`` for W ~ Weibull(shape, scale)."""
    k = np.arange(0, 200_000, dtype=float)
    return float(np.sum(np.exp(-((k / scale) ** shape))))


def validation_fraction(rate: float) -> float:
    """Stationary share of responses in the cache-validation state, ``π_V``."""
    w = run_weibull(rate)
    ev, ed = mean_run_length(*w["validation"]), mean_run_length(*w["download"])
    return ev / (ev + ed)


def _check_rate(rate: float) -> None:
    try:
        ok = math.isfinite(float(rate)) and float(rate) > 0
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(f"rate must be a positive number of connections per second, got {rate!r}")


# ---------------------------------------------------------------- quantile functions


def _request_from_z(z: np.ndarray) -> np.ndarray:
    """Request size (bytes, unfloored) at driver value z, u = Φ(z), precise in both tails."""
    z = np.asarray(z, dtype=float)
    out = np.empty_like(z)
    body = z <= 0.0
    out[body] = packmime_curve("request_body_invcdf")(2.0 * ndtr(z[body]))  # q = u/0.5
    # tail: q = (u-0.5)/0.5, log2(1-q) = log2(2 (1-u)) = 1 + log2 Φ(-z)
    x = 1.0 + log_ndtr(-z[~body]) / _LN2
    out[~body] = np.exp2(packmime_curve("request_tail_invcdf")(x))
    return out


def _validation_from_u(u: np.ndarray) -> np.ndarray:
    return packmime_curve("response_validation_invcdf")(u)


def _download_from_u(u: np.ndarray) -> np.ndarray:
    return np.exp2(packmime_curve("response_download_tail_invcdf")(np.log1p(-u) / _LN2))


def request_quantile(u: np.ndarray | float) -> np.ndarray:
    """Marginal request size (bytes, unfloored) at probability ``u``."""
    return _request_from_z(ndtri(np.asarray(u, dtype=float)))


def response_quantile(u: np.ndarray | float, validation: bool) -> np.ndarray:
    """Response size (bytes, unfloored) at ``u`` in the validation (V) or download (D) state."""
    u = np.asarray(u, dtype=float)
    return _validation_from_u(u) if validation else _download_from_u(u)


def _to_bytes(x: np.ndarray, cap: int) -> np.ndarray:
    """ns-2's rule: floor, store as int (here capped at ``cap``), 0 bytes sent as 1."""
    return np.maximum(np.floor(np.minimum(x, cap)), 1).astype(np.int64)


# ---------------------------------------------------------------- exact means


def _mean_log2_tail(curve_name: str, cap: float | None) -> float:
    """∫ min(2^Q(x), cap) dP over x = log2(1-u) in (-inf, 0]; density ln2 · 2^x."""
    x = np.linspace(-200.0, 0.0, 800_001)
    size = np.exp2(packmime_curve(curve_name)(x))
    if cap is not None:
        size = np.minimum(size, cap)
    return float(np.trapezoid(size * _LN2 * np.exp2(x), x))


def _mean_linear(curve_name: str) -> float:
    u = np.linspace(0.0, 1.0, 200_001)
    return float(np.trapezoid(packmime_curve(curve_name)(u), u))


@cache
def mean_request_bytes(max_bytes: float | None = MAX_BYTES) -> float:
    """Population mean request size in bytes (unfloored; ``max_bytes=None``: no cap)."""
    body = _mean_linear("request_body_invcdf")
    return 0.5 * body + 0.5 * _mean_log2_tail("request_tail_invcdf", max_bytes)


@cache
def _mean_state_bytes(validation: bool, max_bytes: float | None) -> float:
    if validation:
        return _mean_linear("response_validation_invcdf")
    return _mean_log2_tail("response_download_tail_invcdf", max_bytes)


def mean_response_bytes(rate: float, max_bytes: float | None = MAX_BYTES) -> float:
    """Population mean response size in bytes at ``rate`` (mixes V and D by ``π_V``)."""
    pv = validation_fraction(rate)
    return pv * _mean_state_bytes(True, max_bytes) + (1 - pv) * _mean_state_bytes(False, max_bytes)


def expected_bytes_per_connection(
    rate: float,
    *,
    max_request_bytes: float | None = MAX_BYTES,
    max_response_bytes: float | None = MAX_BYTES,
) -> dict[str, float]:
    """Mean request and response bytes per connection and the validation share at ``rate``.

    Payload bytes only (no TCP/IP headers, handshakes or ACKs); unfloored sizes (flooring
    lowers each mean by about 0.5 B).
    """
    return {
        "request_bytes": mean_request_bytes(max_request_bytes),
        "response_bytes": mean_response_bytes(rate, max_response_bytes),
        "validation_fraction": validation_fraction(rate),
    }


def expected_offered_load_bps(
    rate: float,
    *,
    include_requests: bool = True,
    max_request_bytes: float | None = MAX_BYTES,
    max_response_bytes: float | None = MAX_BYTES,
) -> float:
    """Expected application payload in bits/s of one PackMime instance at ``rate`` conn/s.

    ``8 · rate · (E[response] + E[request])`` (responses flow server → client, requests the
    other way; ``include_requests=False`` gives the response direction alone). A calibration
    sanity check only: link load adds headers, handshakes and ACKs (about +10 % for
    1420-B segments), and a finite run's mean response varies by ±15 % with the heavy tail.
    """
    b = expected_bytes_per_connection(
        rate, max_request_bytes=max_request_bytes, max_response_bytes=max_response_bytes
    )
    per_conn = b["response_bytes"] + (b["request_bytes"] if include_requests else 0.0)
    return 8.0 * rate * per_conn


# ---------------------------------------------------------------- the generator


@dataclass(frozen=True)
class PackMimeWorkload:
    """PackMime-HTTP/1.0 connection workload of one generator instance (one cloud pair).

    Parameters
    ----------
    lrd
        Long-range dependence (FARIMA driver) in inter-arrivals, request sizes and PackMime
        RTTs, as ns-2.35 always does. ``False``: i.i.d. with the same marginals.
    rtt
        ``"server"`` (default, type-1 long table), ``"client"``, ``"both"`` (sum of the two
        sides) — a :class:`~aqmlab.workload.delays.PackMimeRtt` with this ``lrd`` — or any
        :class:`~aqmlab.workload.delays.RttModel`, or ``None`` for no ``rtt_s`` column.
    reference_rate
        If set, the rate used for every rate-dependent shape except the arrivals (run
        lengths, request and RTT noise shares): sizes and RTTs then do not change with the
        rate at all (exact common random numbers across calibrated loads).
    max_request_bytes, max_response_bytes
        Caps on the extended heavy tails (default ``2**31 - 1``, ns-2's int range; about 4e-8
        of downloads exceed it).
    server_delay
        Add ``server_delay_s`` from ns-2.35's Weibull(0.63, 305) rule (at most 0.1 s).
    """

    lrd: bool = True
    rtt: RttModel | Literal["server", "client", "both"] | None = "server"
    reference_rate: float | None = None
    max_request_bytes: int = MAX_BYTES
    max_response_bytes: int = MAX_BYTES
    server_delay: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.rtt, str):
            PackMimeRtt(self.rtt)  # validates the side
        elif self.rtt is not None and not isinstance(self.rtt, RttModel):
            raise ValueError(f"rtt must be a side name, an RttModel or None, got {self.rtt!r}")
        if self.reference_rate is not None:
            _check_rate(self.reference_rate)
        for name in ("max_request_bytes", "max_response_bytes"):
            if not 1 <= getattr(self, name) <= 2**53:
                raise ValueError(f"{name} must be in [1, 2**53], got {getattr(self, name)}")

    # -- streams and parameters

    @staticmethod
    def root(seed: int = 1, run: int = 0, instance: int = 0) -> np.random.SeedSequence:
        """The instance's root stream ``(seed, PACKMIME, run, instance)``."""
        return stream(seed, PACKMIME, run, instance)

    def _size_rate(self, rate: float) -> float:
        return self.reference_rate if self.reference_rate is not None else rate

    def rtt_model(self) -> RttModel | None:
        """The RTT model in use (a side name becomes ``PackMimeRtt(side, lrd=self.lrd)``)."""
        if isinstance(self.rtt, str):
            return PackMimeRtt(self.rtt, lrd=self.lrd)
        return self.rtt

    # -- per-quantity samplers (connection order; each from its own stream)

    def interarrivals(
        self, n: int, rate: float, seed: int = 1, *, run: int = 0, instance: int = 0
    ) -> np.ndarray:
        """``n`` gaps in seconds between connection starts (mean ``1/rate``)."""
        k, scale = arrival_weibull(rate)
        z = gaussian_driver(
            n, d=_c("arrival_farima_d"), K=int(_c("arrival_farima_ar_truncation")),
            noise_share=arrival_noise_share(rate), seed=child(self.root(seed, run, instance),
                                                              _ARRIVALS),
            lrd=self.lrd,
        )
        return scale * (-log_ndtr(-z)) ** (1.0 / k)  # -ln(1-u), u = Φ(z)

    def request_sizes(
        self, n: int, rate: float, seed: int = 1, *, run: int = 0, instance: int = 0
    ) -> np.ndarray:
        """``n`` request sizes in bytes (int64)."""
        z = gaussian_driver(
            n, d=_c("request_farima_d"), K=int(_c("request_farima_ar_truncation")),
            noise_share=request_noise_share(self._size_rate(rate)),
            seed=child(self.root(seed, run, instance), _REQUESTS), lrd=self.lrd,
        )
        return _to_bytes(_request_from_z(z), self.max_request_bytes)

    def response_sizes(
        self, n: int, rate: float, seed: int = 1, *, run: int = 0, instance: int = 0
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(sizes int64, validation bool)`` of ``n`` responses.

        Streams (sub-keys of the responses stream): 0 run lengths, 1 validation sizes,
        2 download sizes; the i-th download response always uses the i-th download draw.
        """
        ss = child(self.root(seed, run, instance), _RESPONSES)
        w = run_weibull(self._size_rate(rate))
        runs = np.arange(n)
        is_v_run = runs % 2 == 1  # run 0 is a download run [ns-2 quirk]
        shape = np.where(is_v_run, w["validation"][0], w["download"][0])
        scale = np.where(is_v_run, w["validation"][1], w["download"][1])
        u = generator(ss, 0).random(n)
        length = np.maximum(np.ceil(scale * (-np.log1p(-u)) ** (1.0 / shape)), 1).astype(np.int64)
        m = int(np.searchsorted(np.cumsum(length), n)) + 1  # runs needed to cover n
        validation = np.repeat(is_v_run[:m], length[:m])[:n]
        sizes = np.empty(n)
        nv = int(validation.sum())
        sizes[validation] = _validation_from_u(generator(ss, 1).random(nv))
        sizes[~validation] = _download_from_u(generator(ss, 2).random(n - nv))
        return _to_bytes(sizes, self.max_response_bytes), validation

    def rtts(
        self, n: int, rate: float, seed: int = 1, *, run: int = 0, instance: int = 0
    ) -> np.ndarray | None:
        """``n`` base RTTs in seconds from :meth:`rtt_model` (``None`` without a model)."""
        model = self.rtt_model()
        if model is None:
            return None
        return model.sample(n, child(self.root(seed, run, instance), _RTT), self._size_rate(rate))

    def server_delays(
        self, n: int, seed: int = 1, *, run: int = 0, instance: int = 0
    ) -> np.ndarray:
        """ns-2.35 server delay in seconds: ``1/max(W, 10)``, W ~ Weibull(0.63, 305)."""
        u = generator(child(self.root(seed, run, instance), _SERVER_DELAY), 0).random(n)
        w = _c("server_delay_weibull_scale") * (-np.log1p(-u)) ** (
            1.0 / _c("server_delay_weibull_shape")
        )
        return 1.0 / np.maximum(w, _c("server_delay_min_w"))

    # -- the workload

    def generate(
        self,
        rate: float,
        duration_s: float,
        seed: int = 1,
        *,
        run: int = 0,
        instance: int = 0,
        t0: float = 0.0,
    ) -> pd.DataFrame:
        """Every connection that starts in ``[t0, t0 + duration_s)``, in start order.

        Parameters
        ----------
        rate
            Mean new connections per second (PackMime's λ) of this instance.
        duration_s
            Length of the generation window in seconds.
        seed, run, instance
            Stream key: the same triple always gives the same workload; use ``instance`` to
            tell apart several generators of one simulation (e.g. the two directions).
        t0
            Time of the window start; the first connection starts one gap after it.

        Returns
        -------
        pandas.DataFrame
            One row per connection (index ``connection`` = 0..n-1): ``start_s`` float64,
            ``request_bytes`` int64, ``response_bytes`` int64, ``validation`` bool (the
            response is a cache validation), ``rtt_s`` float64 (full base RTT; absent when
            ``rtt=None``), ``server_delay_s`` float64 (only with ``server_delay=True``).
            ``df.attrs`` holds the parameters.
        """
        _check_rate(rate)
        if not (math.isfinite(duration_s) and duration_s > 0):
            raise ValueError(f"duration_s must be a positive number, got {duration_s!r}")
        key = {"seed": seed, "run": run, "instance": instance}
        mean_n = rate * duration_s
        n_try = int(mean_n * 1.05 + 6 * math.sqrt(mean_n) + 16)
        while True:
            gaps = self.interarrivals(n_try, rate, **key)
            start = t0 + np.cumsum(gaps)
            if start[-1] >= t0 + duration_s:
                break
            n_try *= 2
        n = int(np.searchsorted(start, t0 + duration_s, side="left"))
        cols: dict[str, np.ndarray] = {"start_s": start[:n]}
        cols["request_bytes"] = self.request_sizes(n, rate, **key)
        cols["response_bytes"], cols["validation"] = self.response_sizes(n, rate, **key)
        rtt = self.rtts(n, rate, **key)
        if rtt is not None:
            cols["rtt_s"] = rtt
        if self.server_delay:
            cols["server_delay_s"] = self.server_delays(n, **key)
        df = pd.DataFrame(cols)
        df.index.name = "connection"
        rtt_desc = self.rtt_model()
        df.attrs.update(
            model="packmime-http-1.0", rate=float(rate), duration_s=float(duration_s),
            t0=float(t0), **key,
            **{f.name: getattr(self, f.name) for f in fields(self) if f.name != "rtt"},
            rtt=repr(rtt_desc),
        )
        return df
