"""The cubic TCP variant: CUBIC (RFC 9438) with SACK and PRR, Linux's default."""

from __future__ import annotations

from aqmlab.kinds.tcp.base import TCP_VARIANTS, Variant

CUBIC = TCP_VARIANTS.register(Variant(
    name="cubic", label="CUBIC", congestion="ns3::TcpCubic", sack=True, classic=False,
    aqmlab_reno=False, needs_ecn=False,
    doc="CUBIC (RFC 9438) with SACK and PRR, Linux's default"))
