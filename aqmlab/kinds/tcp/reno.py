"""The reno TCP variant: ns-2's Agent/TCP/Reno."""

from __future__ import annotations

from aqmlab.kinds.tcp.base import TCP_VARIANTS, Variant

RENO = TCP_VARIANTS.register(Variant(
    name="reno", label="Reno (ns-2)", congestion="ns3::TcpNewReno", sack=False, classic=True,
    aqmlab_reno=True, needs_ecn=False,
    doc="ns-2's Agent/TCP/Reno: slow start, congestion avoidance, fast retransmit; the first new ACK ends fast recovery (aqmlab's recovery)"))
