"""The newreno TCP variant: NewReno recovery (RFC 6582), no SACK."""

from __future__ import annotations

from aqmlab.kinds.tcp.base import TCP_VARIANTS, Variant

NEWRENO = TCP_VARIANTS.register(Variant(
    name="newreno", label="NewReno", congestion="ns3::TcpNewReno", sack=False, classic=True,
    aqmlab_reno=False, needs_ecn=False,
    doc="NewReno recovery (RFC 6582), no SACK"))
