"""TCP: the :class:`Tcp` settings of a scenario and its variants, one module per variant,
registered in :data:`TCP_VARIANTS` by name. Importing this package imports every module in
it (a new variant is one new module); other packages add variants through the
``aqmlab.tcp`` entry-point group."""

from __future__ import annotations

from aqmlab.kinds.registry import import_kinds
from aqmlab.kinds.tcp.base import TCP_VARIANTS, Variant
from aqmlab.kinds.tcp.spec import FULL_TCP, Ns3Tcp, Tcp

import_kinds(__name__, __path__)
TCP_VARIANTS.lead("reno", "newreno", "sack", "cubic", "bbr", "dctcp", "linux-reno")

__all__ = ["FULL_TCP", "TCP_VARIANTS", "Ns3Tcp", "Tcp", "Variant"]
