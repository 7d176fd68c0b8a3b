"""TCP variants: what a ``tcp.variant`` name means, as a registered :class:`Variant`."""

from __future__ import annotations

from dataclasses import dataclass

from aqmlab.kinds.registry import Registry

__all__ = ["TCP_VARIANTS", "Variant"]


@dataclass(frozen=True)
class Variant:
    """One TCP variant.

    ``name`` the ``tcp.variant`` value; ``label`` the explorer's name; ``congestion`` the
    ns-3 congestion-control TypeId; ``sack`` whether it negotiates SACK; ``classic``
    whether ``recovery = "auto"`` means classic (RFC 6582/6675) recovery rather than PRR;
    ``aqmlab_reno`` aqmlab's ns-2-style Reno recovery in its socket; ``needs_ecn`` it only
    works with ``tcp.ecn``; ``doc`` one line for listings."""

    name: str
    label: str
    congestion: str
    sack: bool
    classic: bool
    aqmlab_reno: bool = False
    needs_ecn: bool = False
    doc: str = ""


#: The TCP variants by name.
TCP_VARIANTS: Registry[Variant] = Registry("tcp", "tcp variant", name_attr="name")
