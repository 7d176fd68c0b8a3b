"""The linux-reno TCP variant: Reno as Linux implements it (ns-3's TcpLinuxReno) with SACK and PRR."""

from __future__ import annotations

from aqmlab.kinds.tcp.base import TCP_VARIANTS, Variant

LINUX_RENO = TCP_VARIANTS.register(Variant(
    name="linux-reno", label="Linux Reno", congestion="ns3::TcpLinuxReno", sack=True, classic=False,
    aqmlab_reno=False, needs_ecn=False,
    doc="Reno as Linux implements it (ns-3's TcpLinuxReno) with SACK and PRR"))
