"""The sack TCP variant: Reno congestion control with SACK-based loss recovery (RFC 6675)."""

from __future__ import annotations

from aqmlab.kinds.tcp.base import TCP_VARIANTS, Variant

SACK = TCP_VARIANTS.register(Variant(
    name="sack", label="Reno + SACK", congestion="ns3::TcpNewReno", sack=True, classic=True,
    aqmlab_reno=False, needs_ecn=False,
    doc="Reno congestion control with SACK-based loss recovery (RFC 6675)"))
