"""Validated, serialisable scenario specifications (pure Python; never imports ns-3)."""

from aqmlab.scenario.queues import (
    QUEUES,
    Ared,
    CoDel,
    DropTail,
    FqCoDel,
    Pie,
    Queue,
    QueueBase,
    Red,
    queue_from_dict,
)
from aqmlab.scenario.spec import RunControl, Scenario
from aqmlab.scenario.tcp import TCP_VARIANTS, Tcp
from aqmlab.scenario.topology import (
    TOPOLOGIES,
    Dumbbell,
    HopQueues,
    Link,
    ParkingLot,
    Topology,
    topology_from_dict,
)
from aqmlab.scenario.traffic import (
    TRAFFIC,
    Bulk,
    Mah,
    PackMime,
    Traffic,
    TrafficBase,
    Transfers,
    traffic_from_dict,
)

__all__ = [
    "QUEUES",
    "TCP_VARIANTS",
    "TOPOLOGIES",
    "TRAFFIC",
    "Ared",
    "Bulk",
    "Mah",
    "PackMime",
    "CoDel",
    "DropTail",
    "Dumbbell",
    "FqCoDel",
    "HopQueues",
    "Link",
    "ParkingLot",
    "Pie",
    "Queue",
    "QueueBase",
    "Red",
    "RunControl",
    "Scenario",
    "Tcp",
    "Topology",
    "Traffic",
    "TrafficBase",
    "Transfers",
    "queue_from_dict",
    "topology_from_dict",
    "traffic_from_dict",
]
