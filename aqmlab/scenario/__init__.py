"""Validated, serialisable, hashable scenario specifications (pure Python; never imports a
simulator): the :class:`Scenario`, its topology and run control. The kinds it is made of
(queues, TCP, traffic) live in :mod:`aqmlab.kinds` and are re-exported here."""

from aqmlab.kinds.queues import (
    QUEUES,
    Ared,
    CoDel,
    DropTail,
    FqCoDel,
    Pie,
    QueueBase,
    Red,
    queue_from_dict,
)
from aqmlab.kinds.tcp import TCP_VARIANTS, Tcp
from aqmlab.kinds.traffic import (
    TRAFFIC,
    Bulk,
    Mah,
    PackMime,
    TrafficBase,
    Transfers,
    traffic_from_dict,
)
from aqmlab.scenario.spec import ENGINE_NAMES, RunControl, Scenario, as_scenario, parse_path
from aqmlab.scenario.topology import (
    TOPOLOGIES,
    Dumbbell,
    HopQueues,
    Link,
    ParkingLot,
    Topology,
    topology_from_dict,
)

__all__ = [
    "ENGINE_NAMES",
    "QUEUES",
    "TCP_VARIANTS",
    "TOPOLOGIES",
    "TRAFFIC",
    "Ared",
    "Bulk",
    "CoDel",
    "DropTail",
    "Dumbbell",
    "FqCoDel",
    "HopQueues",
    "Link",
    "Mah",
    "PackMime",
    "ParkingLot",
    "Pie",
    "QueueBase",
    "Red",
    "RunControl",
    "Scenario",
    "Tcp",
    "Topology",
    "TrafficBase",
    "Transfers",
    "as_scenario",
    "parse_path",
    "queue_from_dict",
    "topology_from_dict",
    "traffic_from_dict",
]
