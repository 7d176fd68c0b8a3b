"""The bbr TCP variant: BBR v1."""

from __future__ import annotations

from aqmlab.kinds.tcp.base import TCP_VARIANTS, Variant

BBR = TCP_VARIANTS.register(Variant(
    name="bbr", label="BBR", congestion="ns3::TcpBbr", sack=True, classic=False,
    aqmlab_reno=False, needs_ecn=False,
    doc="BBR v1: model-based, largely ignores losses"))
