"""The dctcp TCP variant: DCTCP (RFC 8257)."""

from __future__ import annotations

from aqmlab.kinds.tcp.base import TCP_VARIANTS, Variant

DCTCP = TCP_VARIANTS.register(Variant(
    name="dctcp", label="DCTCP", congestion="ns3::TcpDctcp", sack=True, classic=False,
    aqmlab_reno=False, needs_ecn=True,
    doc="DCTCP (RFC 8257): reacts to the fraction of ECN-marked packets; needs ecn = true"))
