"""Web-traffic workloads as arrays, for the C++ applications to replay (numpy/scipy only).

This package never imports ns-3. It turns the published models into tables of work:

- :class:`PackMimeWorkload` — PackMime-HTTP/1.0 (Cao et al. 2004, ns-2.35 tables): one row
  per connection, open loop (``start_s, request_bytes, response_bytes, validation, rtt_s``).
- :class:`MahWorkload` — Mah (1997) browsing users as run by the UNC generator (Christiansen
  2001): closed-loop per-user page scripts in CSR arrays (:class:`MahScripts`).
- :mod:`~aqmlab.workload.delays` — per-connection base RTTs: :class:`PackMimeRtt`,
  :class:`EmpiricalRtt`, :class:`PairRtt` (the thesis' 49 pair delays).
- :mod:`~aqmlab.workload.tables` — the package data (``data/<model>/``: CSV + MODEL.md with
  provenance) and the two interpolation rules.

Every quantity has its own keyed random stream (:mod:`~aqmlab.workload.streams`), so the same
seed gives the same connections under every queue and TCP configuration.
"""

from __future__ import annotations

from aqmlab.workload.delays import (
    EmpiricalRtt,
    PackMimeRtt,
    PairRtt,
    RttModel,
    christiansen_pair_rtt_ms,
)
from aqmlab.workload.farima import farima_acvf, farima_series, gaussian_driver
from aqmlab.workload.mah import MahScripts, MahWorkload
from aqmlab.workload.packmime import (
    MAX_BYTES,
    PackMimeWorkload,
    arrival_weibull,
    expected_bytes_per_connection,
    expected_offered_load_bps,
    mean_request_bytes,
    mean_response_bytes,
    mean_run_length,
    request_quantile,
    response_quantile,
    run_weibull,
    validation_fraction,
)
from aqmlab.workload.streams import child, generator, stream
from aqmlab.workload.tables import (
    Curve,
    EmpiricalCdf,
    logit2,
    mah_table,
    packmime_constants,
    packmime_curve,
    read_table,
)

__all__ = [
    "PackMimeWorkload",
    "MahWorkload",
    "MahScripts",
    "RttModel",
    "PackMimeRtt",
    "EmpiricalRtt",
    "PairRtt",
    "christiansen_pair_rtt_ms",
    "expected_offered_load_bps",
    "expected_bytes_per_connection",
    "mean_request_bytes",
    "mean_response_bytes",
    "validation_fraction",
    "arrival_weibull",
    "run_weibull",
    "mean_run_length",
    "request_quantile",
    "response_quantile",
    "MAX_BYTES",
    "Curve",
    "EmpiricalCdf",
    "logit2",
    "mah_table",
    "packmime_constants",
    "packmime_curve",
    "read_table",
    "gaussian_driver",
    "farima_series",
    "farima_acvf",
    "stream",
    "child",
    "generator",
]
