"""Queue disciplines: one module per kind, registered in :data:`QUEUES` by ``kind``.

Importing this package imports every module in it, and each registers its kind: a new
queue discipline is one new module here with a ``@QUEUES.register``-ed :class:`QueueBase`
subclass (or one in another package, through the ``aqmlab.queues`` entry-point group).
The classic kinds are imported first, by name, so that they lead listings and menus.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aqmlab.kinds.queues.ared import Ared
from aqmlab.kinds.queues.base import QUEUES, Ns3Queue, QueueBase
from aqmlab.kinds.queues.codel import CoDel
from aqmlab.kinds.queues.droptail import DropTail
from aqmlab.kinds.queues.fq_codel import FqCoDel
from aqmlab.kinds.queues.pie import Pie
from aqmlab.kinds.queues.red import Red
from aqmlab.kinds.registry import import_kinds

__all__ = ["QUEUES", "Ared", "CoDel", "DropTail", "FqCoDel", "Ns3Queue", "Pie", "QueueBase",
           "Red", "queue_from_dict"]


import_kinds(__name__, __path__)
QUEUES.lead("droptail", "red", "ared", "codel", "fq_codel", "pie")


def queue_from_dict(d: Mapping[str, Any] | QueueBase, field: str = "") -> QueueBase:
    """Build a queue from a dict with a ``kind`` key (a queue instance is returned as is)."""
    return QUEUES.build(d, field)
