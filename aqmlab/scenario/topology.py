"""Topologies, polymorphic by ``kind`` (registry :data:`TOPOLOGIES`): a dumbbell or a
parking lot, with a queue discipline (:mod:`aqmlab.kinds.queues`) on every link direction.

``rate_scale`` multiplies every link rate given to ns-3 (to emulate ns-2's header-less
packets); ``bottleneck_rate_bps`` and ``Link.rate_bps`` are the nominal, unscaled rates.

``tx_time`` says how ns-3 puts a packet's transmission time (8 size / rate) on its clock
(a femtosecond step in aqmlab, 1 ns in stock ns-3: ``aqmlab.engines.ns3.native``), on every
link of the topology:

- "ns3" (ns-3's ``DataRate::CalculateBytesTxTime``): rounded to the nearest time step.
  A busy link's departures then run ahead of or behind exact arithmetic by up to half a
  step per packet, always the same way for one size and rate.
- "ns2": rounded towards the side on which ns-2.35 errs. ns-2 computes in doubles: a link
  busy with back-to-back packets advances its clock by 8 size / rate rounded to a multiple
  of the current time's ulp (``clock_ + txt`` in ``Scheduler::schedule``), so its departures
  too run ahead of or behind exact arithmetic, by ~1e-15 s per packet, the way given by
  that rounding at the current time (it can change each time the simulated time doubles).
  Finer than 1 ns (the femtosecond default, or ps) each device keeps ns-2's double clock
  of its busy period: a transmission that starts as the last one ends ends at that one's
  double end plus txt, in doubles, and ns-3 ends it at that double rounded to the nearest
  step (an idle link starts from the double nearest ns-3's time), so a busy link's
  departures are ns-2's to half a step however long it stays busy. aqmlab 0.7.0-0.7.2
  rounded each double step instead, which kept a fraction of a femtosecond per packet
  (on the T1, 0.46 fs late a slot before 16 s, 0.23 after): 0.4 ps over a 2.5-s timer
  turned a tie that ns-2.35 ordered by 0.27 ps (Qiu's 100 flows, seed 6, 16.51 s;
  tests/differential/test_tx_clock_drift.py). At a 1-ns step
  (``AQMLAB_TIME_RESOLUTION=ns``) aqmlab can only round each time up to the next
  nanosecond where ns-2's step is longer than exact, down where it is shorter, to the
  nearest where it is exact: the right side, but by up to 0.8 ns where
  ns-2 errs by 1e-15 s, so a timer spanning the 16-s binade (Qiu's 100 flows, a 4 s RTO
  from 13.08 s) summed to the other side of a tie with the ACK clock
  (tests/differential/test_fs_clock.py).

What it changes is the order of events that coincide in exact arithmetic. Qiu's T1 sends
500-byte packets at 1.544 Mb/s x 1.004: exactly 386 per second, so a retransmission timer
of a multiple of 0.5 s (ticks of 100 ms) expires exactly when the ACK clock of the
bottleneck lets another flow's packet out, and both reach the full drop-tail queue at the
same instant. ns-3's nearest rounding (2,590,674 ns for 2,590,673.575) makes the ACK clock
slow: the retransmission arrives 82 ns per 0.5 s of timer earlier and takes the one free
place; ns-2.35's doubles (from 16 s of simulated time on) make it fast by 0.68 ps a second,
and drop the retransmission, which backs its timer off again. Without random processing
time (drop-tail's phase effect) that alone separated the engines' timeouts by 10 % and
Jain's index by 0.05 at 300 flows. Transmissions still reach the far end after ns-3's own
(nearest) time: only when the next one starts moves (the device's ``InterframeGap``, set
per packet to the difference). ns-2 runs always have ns-2's clock: the field only chooses
ns-3's. Serialised only when "ns2".

``queue_wake`` says when a link's queue hands on its next packet as a transmission ends:

- "ns3": ns-3's device takes the packet waiting in its 1-packet device queue at once, but
  the queue disc refills the device queue in an event at the same instant, after every
  event already due then (``NetDeviceQueue::PacketDequeued``'s ``ScheduleNow``).
- "ns2": the disc refills it as the transmission starts, as ns-2.35's link dequeues its
  next packet within the event that ends the last one (cpp/queue_wake.h).

It decides a packet that arrives at the very instant a transmission ends at a full queue:
with "ns3" it meets the disc still full and is dropped, with "ns2" (and on ns-2.35) it
takes the place just freed. Such exact ties come from ACK-clocked slow start over a
bottleneck whose service time paces both the departures and, one RTT later, the arrivals:
Pentikousis' five downloads through a 4-packet drop-tail queue tie at 0.22 s (flow 3's
first segment of the pair is lost on ns-3 "ns3", its second on ns-2.35), and the two
engines' 600-s runs part from there (tests/differential/test_queue_wake.py). ns-2 runs
always dequeue at once: the field only chooses ns-3's. Serialised only when "ns2".

``link_header`` says what a frame adds to its IP packet on the wire:

- "ppp": ns-3's point-to-point frames carry a 2-byte PPP header, so a 1,000-byte segment
  with 40 bytes of headers takes 1,042 bytes' time on every link, a bare SYN or ACK 42.
- "none": ns-2's links have no link layer; a packet takes its IP size's time (1,040 and
  40). ns-3 still puts the PPP header on the frame, but starts the next transmission and
  delivers the frame 2 bytes' time sooner (cpp/link_header.h); queue and link byte counts
  leave the header out.

With "ppp" the ns-2 engine gives its agents 42-byte headers, so that a data packet takes
the same time on both engines. That cannot hold for a web connection's SYN and SYN/ACK:
ns-2.35's DelayBox takes a new connection only from a 40-byte SYN, so they stay 40 bytes
on ns-2 against 42 on ns-3 (46 with the window-scale option), and the 2-6 bytes' time each
such frame takes longer on ns-3 reorders packets at the bottleneck (a web run's packets
keep ns-2.35's order only for the first 0.02-0.2 s). With "none" every packet, the SYN
included, takes ns-2's 40-byte header time on both engines. Serialised only when "none".

``delay_box`` says how ns-3 gives each web connection its own extra delay (PackMime's
RTTs) on a client cloud's access link; ns-2 runs always use ns-2.35's DelayBox:

- "channel": the link's channel adds the connection's delay to each of its packets on
  delivery, both ways (aqmlab's FlowDelayChannel).
- "ns2": as ns-2.35's DelayBox, a classifier in the client's node
  (cpp/delay_box.h). A client's outgoing packets wait their delay in the node *before*
  the link, so two connections' packets meet the link in the order their delays end, not
  the order they were sent: with "channel", two connections 0.5 and 20 ms from their
  servers whose packets left the client within 0.1 ms of each other took the 100 Mb/s
  link in the other order, and one response ended 1.7 ms apart from ns-2.35 (Weigle's
  80 % load, seed 1, 0.55 s). And a direction's entry in the DelayBox ends when its FIN
  leaves the box: packets queued behind the FIN are lost with the box's queue, later ones
  (the FIN's retransmission, the ACKs after it) pass undelayed. Serialised only when "ns2".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from aqmlab.errors import ScenarioError
from aqmlab.kinds.queues import DropTail, QueueBase, queue_from_dict
from aqmlab.kinds.registry import Registry
from aqmlab.units import (
    Spec,
    check_choice,
    check_float,
    check_int,
    check_list,
    check_time,
    coerce,
    parse_rate,
    parse_time,
    set_attr,
)

Queue = QueueBase

__all__ = [
    "Link",
    "HopQueues",
    "Dumbbell",
    "ParkingLot",
    "Topology",
    "TOPOLOGIES",
    "topology_from_dict",
    "MAX_HOSTS",
    "TX_TIMES",
    "QUEUE_WAKES",
    "LINK_HEADERS",
    "DELAY_BOXES",
]

#: ``tx_time``: how ns-3 rounds transmission times to its nanosecond clock (module doc).
TX_TIMES = ("ns3", "ns2")
#: ``queue_wake``: when ns-3's queue disc refills a device queue (module doc).
QUEUE_WAKES = ("ns3", "ns2")
#: ``link_header``: what a frame adds to its IP packet on the wire (module doc).
LINK_HEADERS = ("ppp", "none")
#: ``delay_box``: how ns-3 gives web connections their own extra delay (module doc).
DELAY_BOXES = ("channel", "ns2")

MAX_HOSTS = 1000
MAX_ROUTERS = 64


@dataclass(frozen=True)
class Link(Spec):
    """A point-to-point link: ``rate`` > 0 (e.g. "10Mbps"), one-way ``delay`` >= 0."""

    rate: str | int | float
    delay: str | float

    def __post_init__(self) -> None:
        parse_rate(self.rate, "rate")
        parse_time(self.delay, "delay")

    @property
    def rate_bps(self) -> int:
        return parse_rate(self.rate, "rate")

    @property
    def delay_s(self) -> float:
        return parse_time(self.delay, "delay")


def _queue(value: Any, name: str) -> Queue:
    if value is None:
        raise ScenarioError(name, value, f"{name} must be a queue")
    return queue_from_dict(value, name)


def _without_default_tx_time(d: dict[str, Any]) -> dict[str, Any]:
    """``tx_time``, ``queue_wake`` and ``delay_box`` are serialised only when "ns2",
    ``link_header`` only when "none": older scenarios keep their hashes."""
    for name, default in (("tx_time", "ns3"), ("queue_wake", "ns3"), ("link_header", "ppp"),
                          ("delay_box", "channel")):
        if d.get(name) == default:
            del d[name]
    return d


def _hosts(value: Any, name: str, ge: int = 1) -> int:
    return check_int(value, name, ge=ge, le=MAX_HOSTS)


def _delays(value: Any, name: str, n: int, what: str) -> tuple[str | float, ...] | None:
    if value is None:
        return None
    delays = tuple(check_list(value, name))
    if len(delays) != n:
        raise ScenarioError(name, value, f"{name} must have one delay per host ({what} = {n})")
    for i, d in enumerate(delays):
        check_time(d, f"{name}[{i}]")
    return delays


@dataclass(frozen=True, kw_only=True)
class HopQueues(Spec):
    """Per-hop queue override of a parking lot; None falls back to the topology-wide queue."""

    forward: Queue | None = None
    reverse: Queue | None = None

    def __post_init__(self) -> None:
        for name in ("forward", "reverse"):
            if getattr(self, name) is not None:
                set_attr(self, name, queue_from_dict(getattr(self, name), name))


@dataclass(frozen=True, kw_only=True)
class Dumbbell(Spec):
    """``senders`` hosts -> router -> ``bottleneck`` -> router -> ``receivers`` hosts.

    ``receivers`` None means as many as ``senders``. ``sender_delays``/``receiver_delays``
    optionally give each host's one-way access delay (RTT classes), overriding
    ``access.delay``. ``forward_queue`` feeds the bottleneck towards the receivers,
    ``reverse_queue`` the opposite direction, ``access_queue`` every access link.
    """

    KIND: ClassVar[str] = "dumbbell"
    kind: str = "dumbbell"
    senders: int = 1
    receivers: int | None = None
    bottleneck: Link = dataclasses.field(default_factory=lambda: Link(rate="10Mbps", delay="20ms"))
    access: Link = dataclasses.field(default_factory=lambda: Link(rate="100Mbps", delay="1ms"))
    sender_delays: tuple[str | float, ...] | None = None
    receiver_delays: tuple[str | float, ...] | None = None
    forward_queue: Queue = dataclasses.field(default_factory=lambda: DropTail(limit="100p"))
    reverse_queue: Queue = dataclasses.field(default_factory=lambda: DropTail(limit="1000p"))
    access_queue: Queue = dataclasses.field(default_factory=lambda: DropTail(limit="1000p"))
    rate_scale: float = 1.0
    tx_time: str = "ns3"
    queue_wake: str = "ns3"
    link_header: str = "ppp"
    delay_box: str = "channel"

    def __post_init__(self) -> None:
        self._check_kind()
        _hosts(self.senders, "senders")
        if self.receivers is not None:
            _hosts(self.receivers, "receivers")
        set_attr(self, "bottleneck", coerce(self.bottleneck, Link, "bottleneck"))
        set_attr(self, "access", coerce(self.access, Link, "access"))
        set_attr(
            self,
            "sender_delays",
            _delays(self.sender_delays, "sender_delays", self.senders, "senders"),
        )
        set_attr(
            self,
            "receiver_delays",
            _delays(self.receiver_delays, "receiver_delays", self.n_receivers, "receivers"),
        )
        for name in ("forward_queue", "reverse_queue", "access_queue"):
            set_attr(self, name, _queue(getattr(self, name), name))
        set_attr(self, "rate_scale", check_float(self.rate_scale, "rate_scale", gt=0))
        check_choice(self.tx_time, "tx_time", TX_TIMES)
        check_choice(self.queue_wake, "queue_wake", QUEUE_WAKES)
        check_choice(self.link_header, "link_header", LINK_HEADERS)
        check_choice(self.delay_box, "delay_box", DELAY_BOXES)

    def to_dict(self) -> dict[str, Any]:
        return _without_default_tx_time(super().to_dict())

    @property
    def n_receivers(self) -> int:
        return self.senders if self.receivers is None else self.receivers

    @property
    def bottleneck_rate_bps(self) -> int:
        return self.bottleneck.rate_bps

    @property
    def hops_factor(self) -> float:
        """How much more a connection costs than on one bottleneck (cost model): 1."""
        return 1.0

    def bottleneck_queues(self) -> list[Queue]:
        """The queues feeding the bottleneck(s) in the forward direction."""
        return [self.forward_queue]

    def queue_links(self) -> list[tuple[str, Queue, Link]]:
        """``(field name, queue, link it feeds)`` for every queue."""
        return [
            ("forward_queue", self.forward_queue, self.bottleneck),
            ("reverse_queue", self.reverse_queue, self.bottleneck),
            ("access_queue", self.access_queue, self.access),
        ]


@dataclass(frozen=True, kw_only=True)
class ParkingLot(Spec):
    """A chain of ``routers``; ``senders`` -> router 0 ... router n-1 -> ``receivers`` (e2e).

    Hop ``i`` links router i to i+1 (``link``, or ``links[i]``); ``cross_senders`` hosts at
    router i send to ``cross_receivers`` hosts at router i+1 (per hop; 0 = no cross hosts).
    ``queues[i]`` optionally overrides ``forward_queue``/``reverse_queue`` on hop i.
    """

    KIND: ClassVar[str] = "parking_lot"
    kind: str = "parking_lot"
    routers: int = 3
    link: Link = dataclasses.field(default_factory=lambda: Link(rate="10Mbps", delay="10ms"))
    links: tuple[Link, ...] | None = None
    senders: int = 1
    receivers: int | None = None
    cross_senders: int = 1
    cross_receivers: int | None = None
    access: Link = dataclasses.field(default_factory=lambda: Link(rate="100Mbps", delay="1ms"))
    forward_queue: Queue = dataclasses.field(default_factory=lambda: DropTail(limit="100p"))
    reverse_queue: Queue = dataclasses.field(default_factory=lambda: DropTail(limit="100p"))
    queues: tuple[HopQueues, ...] | None = None
    access_queue: Queue = dataclasses.field(default_factory=lambda: DropTail(limit="1000p"))
    rate_scale: float = 1.0
    tx_time: str = "ns3"
    queue_wake: str = "ns3"
    link_header: str = "ppp"
    delay_box: str = "channel"

    def __post_init__(self) -> None:
        self._check_kind()
        check_int(self.routers, "routers", ge=2, le=MAX_ROUTERS)
        set_attr(self, "link", coerce(self.link, Link, "link"))
        if self.links is not None:
            links = check_list(self.links, "links")
            if len(links) != self.hops:
                raise ScenarioError(
                    "links", self.links, f"links must have routers - 1 = {self.hops} entries"
                )
            set_attr(
                self, "links", tuple(coerce(v, Link, f"links[{i}]") for i, v in enumerate(links))
            )
        _hosts(self.senders, "senders")
        if self.receivers is not None:
            _hosts(self.receivers, "receivers")
        _hosts(self.cross_senders, "cross_senders", ge=0)
        if self.cross_receivers is not None:
            _hosts(self.cross_receivers, "cross_receivers", ge=0)
        if (self.cross_senders == 0) != (self.n_cross_receivers == 0):
            raise ScenarioError(
                "cross_receivers",
                self.cross_receivers,
                "cross_senders and cross_receivers must both be 0 or both be >= 1",
            )
        set_attr(self, "access", coerce(self.access, Link, "access"))
        for name in ("forward_queue", "reverse_queue", "access_queue"):
            set_attr(self, name, _queue(getattr(self, name), name))
        if self.queues is not None:
            queues = check_list(self.queues, "queues")
            if len(queues) != self.hops:
                raise ScenarioError(
                    "queues", self.queues, f"queues must have routers - 1 = {self.hops} entries"
                )
            set_attr(
                self,
                "queues",
                tuple(coerce(v, HopQueues, f"queues[{i}]") for i, v in enumerate(queues)),
            )
        set_attr(self, "rate_scale", check_float(self.rate_scale, "rate_scale", gt=0))
        check_choice(self.tx_time, "tx_time", TX_TIMES)
        check_choice(self.queue_wake, "queue_wake", QUEUE_WAKES)
        check_choice(self.link_header, "link_header", LINK_HEADERS)
        check_choice(self.delay_box, "delay_box", DELAY_BOXES)

    def to_dict(self) -> dict[str, Any]:
        return _without_default_tx_time(super().to_dict())

    @property
    def hops(self) -> int:
        return self.routers - 1

    @property
    def n_receivers(self) -> int:
        return self.senders if self.receivers is None else self.receivers

    @property
    def n_cross_receivers(self) -> int:
        return self.cross_senders if self.cross_receivers is None else self.cross_receivers

    def _check_hop(self, i: int) -> None:
        if not 0 <= i < self.hops:
            raise IndexError(f"hop {i} out of range 0..{self.hops - 1}")

    def hop_link(self, i: int) -> Link:
        """The link of hop ``i`` (router i -> i+1)."""
        self._check_hop(i)
        return self.links[i] if self.links is not None else self.link

    def hop_queues(self, i: int) -> tuple[Queue, Queue]:
        """``(forward, reverse)`` queues of hop ``i``, per-hop overrides applied."""
        self._check_hop(i)
        hq = self.queues[i] if self.queues is not None else HopQueues()
        return (hq.forward or self.forward_queue, hq.reverse or self.reverse_queue)

    @property
    def bottleneck_rate_bps(self) -> int:
        """The smallest inter-router link rate."""
        return min(self.hop_link(i).rate_bps for i in range(self.hops))

    @property
    def hops_factor(self) -> float:
        """How much more a connection costs than on one bottleneck (cost model): a quarter
        more per extra hop (Vembar's 5-hop lot: 2x the dumbbell's events per connection)."""
        return 1 + (self.hops - 1) / 4

    def bottleneck_queues(self) -> list[Queue]:
        """The queues feeding the bottleneck(s) in the forward direction."""
        return [self.hop_queues(i)[0] for i in range(self.hops)]

    def queue_links(self) -> list[tuple[str, Queue, Link]]:
        """``(field path, queue, link it feeds)`` for every queue, hop by hop."""
        out: list[tuple[str, Queue, Link]] = []
        for i in range(self.hops):
            hq = self.queues[i] if self.queues is not None else HopQueues()
            for direction, own, default in (
                ("forward", hq.forward, "forward_queue"),
                ("reverse", hq.reverse, "reverse_queue"),
            ):
                path = f"queues[{i}].{direction}" if own is not None else default
                out.append((path, own or getattr(self, default), self.hop_link(i)))
        out.append(("access_queue", self.access_queue, self.access))
        return out


Topology = Dumbbell | ParkingLot
TOPOLOGIES: Registry[type[Spec]] = Registry("topologies", "topology",
                                            not_a_spec="must be a topology or a table/dict")
for _cls in (Dumbbell, ParkingLot):
    TOPOLOGIES.register(_cls)


def topology_from_dict(d: Mapping[str, Any] | Dumbbell | ParkingLot, field: str = "") -> Topology:
    """Build a topology from a dict; a missing ``kind`` means "dumbbell"."""
    if isinstance(d, (Dumbbell, ParkingLot)):
        return d
    return TOPOLOGIES.build(d, field, default="dumbbell")
