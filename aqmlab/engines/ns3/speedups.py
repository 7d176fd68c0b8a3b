"""The speed-ups of aqmlab's ns-3 runs that change no result, and their off-switches.

Each one is on by default and off in a process started with its environment variable set
to ``0``; ``bench/check_identical.py`` runs scenarios with all of them off and on and
compares every table, and each has a test in ``tests/sim/`` that does the same on a small
case. The C++ ones read their variable once per process, at first use. The switches
(:data:`SWITCHES`; ``bench/README.md`` lists them too):

* in the JIT-compiled headers (``cpp/*.h``): ``AQMLAB_FAST_ROUTING``,
  ``AQMLAB_ROUTE_INDEX`` (also ``verify``), ``AQMLAB_DIRECT_RX``,
  ``AQMLAB_FAST_ATTRIBUTES``, ``AQMLAB_RAW_HEADERS``, ``AQMLAB_FILL_ONCE``,
  ``AQMLAB_EVENT_HEAP``, ``AQMLAB_RTO_MEMO``, ``AQMLAB_PROBE_CLOCK``,
  ``AQMLAB_SOCKET_PROTOTYPE``, ``AQMLAB_PROBE_NOW_MEMO``, ``AQMLAB_APP_CALLBACKS``,
  ``AQMLAB_EVENT_BUCKETS``, ``AQMLAB_ONE_WAKE`` (with ``topology.queue_wake = "ns2"``);
* in the interposed libraries loaded before the wheel (``cpp/*.cc``):
  ``AQMLAB_SOCKET_TABLES`` (the socket-tables library; with it ``AQMLAB_FORK_INDEX``,
  ``AQMLAB_SPF_INDEX``, ``AQMLAB_FAST_OPTIONS``, ``AQMLAB_TX_TIME_MEMO``,
  ``AQMLAB_RATE_PARSE_MEMO``, ``AQMLAB_NEXT_SEG``, ``AQMLAB_CHECKSUM_FLAG``,
  ``AQMLAB_QUEUE_ACCESSORS``, ``AQMLAB_BUFFER_CHECKS``, ``AQMLAB_ADDRESS_ACCESSORS``),
  ``AQMLAB_FAST_CONSTRUCT``,
  ``AQMLAB_TRACE_MEMO`` and ``AQMLAB_QUIET_TCB`` (the object-memo library,
  :mod:`~aqmlab.engines.ns3.object_memo`);
* in how the headers' code gets into the process: ``AQMLAB_PRECOMPILED`` (g++'s library
  of them, :mod:`~aqmlab.engines.ns3.precompiled`, instead of Cling's JIT; run meta
  ``precompiled_layer``).

Run meta records which were on (:func:`active`).
"""

from __future__ import annotations

import os
from typing import Any

from aqmlab.engines.ns3 import native, object_memo, socket_tables

#: Environment variable -> what it switches off when set to "0".
SWITCHES: dict[str, str] = {
    "AQMLAB_ONE_WAKE": "with topology queue_wake \"ns2\" (which wakes the device queue as each "
                       "transmission starts), ns-3's own wake, an event per packet sent that "
                       "then finds nothing to do, is not scheduled (cpp/queue_wake.h)",
    "AQMLAB_SOCKET_TABLES": "O(1) socket and endpoint bookkeeping (cpp/socket_tables.cc)",
    "AQMLAB_PRECOMPILED": "the C++ layer's code from its g++-compiled library, which Cling "
                          "reuses instead of generating its own at a process's first run "
                          "(precompiled.py)",
    "AQMLAB_FORK_INDEX": "a forked server socket's duplicate-endpoint test from an index of "
                         "(local port, peer), not a scan of the node's endpoints "
                         "(cpp/socket_tables.cc, socket-tables library)",
    "AQMLAB_FAST_ROUTING": "memoised local-address test and routes per destination at each "
                           "node (cpp/fast_routing.h)",
    "AQMLAB_ROUTE_INDEX": "a node's first route to a destination from hash indexes of the "
                          "static and global route lists, not a scan (cpp/route_index.h; "
                          "'verify' asks both and counts disagreements)",
    "AQMLAB_DIRECT_RX": "point-to-point devices hand IPv4 packets straight to IPv4, "
                        "without the node's and traffic control's handler scans "
                        "(cpp/direct_rx.h)",
    "AQMLAB_FAST_ATTRIBUTES": "a TCP profile's socket attributes parsed once, not per socket "
                              "(cpp/tcp_socket.h)",
    "AQMLAB_RAW_HEADERS": "aqmlab's code reads TCP ports, flags and header length from the "
                          "header's bytes instead of deserializing it (cpp/tcp_peek.h)",
    "AQMLAB_FAST_CONSTRUCT": "ns-3 Objects built from a per-TypeId memo of their attributes "
                             "(cpp/object_memo.cc)",
    "AQMLAB_TRACE_MEMO": "trace sources found by name once per TypeId (cpp/object_memo.cc)",
    "AQMLAB_SPF_INDEX": "O(1) link records while global routing computes the routes "
                        "(cpp/spf_index.cc, in the socket-tables library)",
    "AQMLAB_FILL_ONCE": "applications fill a send buffer with one Send, not a loop of "
                        "small ones (cpp/apps.h, cpp/web.h)",
    "AQMLAB_EVENT_HEAP": "pending events in a 4-ary heap array, not ns-3's std::map "
                         "(cpp/event_heap.h; same (time, uid) order)",
    "AQMLAB_FAST_OPTIONS": "TCP options of deserialized headers built without an "
                           "ObjectFactory (cpp/per_packet_memo.cc, socket-tables library)",
    "AQMLAB_TX_TIME_MEMO": "transmission times remembered per (rate, size) "
                           "(cpp/per_packet_memo.cc, socket-tables library)",
    "AQMLAB_SOCKET_PROTOTYPE": "a web client's socket per connection copied from one built "
                               "once (the copy constructor a listener's Fork uses), not "
                               "built with its attributes, estimator and congestion control "
                               "from factories (cpp/tcp_socket.h, cpp/web.h; NewReno-family "
                               "profiles)",
    "AQMLAB_PROBE_NOW_MEMO": "a queue probe integrates its queue-length areas only when "
                             "simulated time has moved since its last change, not at each "
                             "of the four counter changes of one instant (cpp/probes.h)",
    "AQMLAB_RATE_PARSE_MEMO": "DataRate's string constructor answered from the rates "
                              "already parsed (per new TCP socket: TcpRateLinux's "
                              "\"0bps\"), not parsed again (cpp/per_packet_memo.cc, "
                              "socket-tables library)",
    "AQMLAB_APP_CALLBACKS": "web applications give each connection's socket callbacks made "
                            "once per application, not nine MakeCallbacks per connection "
                            "(cpp/web.h)",
    "AQMLAB_NEXT_SEG": "a TCP sender's next segment (TcpTxBuffer::NextSeg, every ACK) "
                       "without its walk of the sent list while no sent segment is marked "
                       "lost (cpp/per_packet_memo.cc, socket-tables library; 'verify' asks "
                       "both and counts disagreements)",
    "AQMLAB_RTO_MEMO": "ns-2's retransmission timeout converted to a Time only when it "
                       "changes, not two or three times per ACK (cpp/tcp_socket.h)",
    "AQMLAB_PROBE_CLOCK": "a queue probe converts the time to seconds once per time step, "
                          "not at each of the four to eight queue-length traces a packet "
                          "fires (cpp/probes.h)",
    "AQMLAB_CHECKSUM_FLAG": "Node::ChecksumEnabled (several calls per packet per hop) reads "
                            "the global value's BooleanValue directly instead of copying it "
                            "through the attribute checker (cpp/per_packet_memo.cc, "
                            "socket-tables library)",
    "AQMLAB_EVENT_BUCKETS": "the event heap holds only the next ~0.5 ms of events; later ones "
                            "wait unsorted in time buckets (a ring of 4,096, ~2.2 s) or a "
                            "second heap, and join it when time reaches their bucket "
                            "(cpp/event_heap.h; same (time, uid) order)",
    "AQMLAB_QUEUE_ACCESSORS": "queue items' and queue sizes' accessors (Ipv4QueueDiscItem::"
                              "GetSize, QueueItem::GetPacket, QueueSize's, Ipv4Header::"
                              "GetSerializedSize; 5-10 calls per packet per queue) without "
                              "their log tests and Ptr copies (cpp/queue_accessors.cc, "
                              "socket-tables library)",
    "AQMLAB_BUFFER_CHECKS": "packet buffers' and metadata's assertion helpers (Buffer::"
                            "CheckInternalState, Iterator::Check, CheckNoZero, PacketMetadata"
                            "::IsPointerOk) answer without their log tests "
                            "(cpp/buffer_checks.cc, socket-tables library)",
    "AQMLAB_ADDRESS_ACCESSORS": "IPv4 addresses', headers' and routes' accessors "
                                "(Ipv4Address(), Get, Address(type, bytes, len), Ipv4Header::"
                                "GetDestination, GetSource, Ipv4Route::GetGateway, "
                                "GetOutputDevice) without their log tests "
                                "(cpp/address_accessors.cc, socket-tables library)",
    "AQMLAB_QUIET_TCB": "a socket's copy (a listener's Fork, a web client's socket from its "
                        "prototype) skips TcpSocketBase's eleven connections of its "
                        "TcpSocketState's values to forwarders of sources nothing connects "
                        "to (cpp/object_memo.cc, object-memo library; cpp/tcp_socket.h)",
}


def fewer_events_by_design(one_wake_a: object, one_wake_b: object, queue_wake: str) -> bool:
    """Whether two runs of one scenario may differ in their event count alone: one has
    ``AQMLAB_ONE_WAKE`` and the other not (run meta ``one_wake``) under ``queue_wake = "ns2"``,
    where it schedules one event fewer per packet sent."""
    return one_wake_a != one_wake_b and queue_wake == "ns2"


def switched_off(name: str, env: dict[str, str] | None = None) -> bool:
    """Whether ``name`` is set to "0" in ``env`` (default: this process's environment)."""
    return (os.environ if env is None else env).get(name, "") == "0"


def all_off() -> dict[str, str]:
    """Environment variables that turn every speed-up off."""
    return dict.fromkeys(SWITCHES, "0")


def active(cpp: Any) -> dict[str, bool]:
    """Which of the speed-ups this process uses (``cpp``: the aqmlab namespace)."""
    return {**object_memo.enabled(),
            "precompiled_layer": native.precompiled_library() is not None,
            **{name: socket_tables.active() and not switched_off(f"AQMLAB_{name.upper()}")
               for name in ("fork_index", "spf_index", "fast_options", "tx_time_memo",
                            "rate_parse_memo", "next_seg", "checksum_flag")},
            "queue_accessors": bool(socket_tables.queue_accessor_calls()["queue_accessors_on"]),
            "buffer_checks": bool(socket_tables.buffer_check_calls()["buffer_checks_on"]),
            "address_accessors":
                bool(socket_tables.address_accessor_calls()["address_accessors_on"]),
            "fast_routing": bool(cpp.FastRoutingEnabled()),
            "route_index": int(cpp.RouteIndexMode()) != 0,
            "direct_rx": bool(cpp.DirectRxEnabled()),
            "fast_attributes": bool(cpp.FastAttributesEnabled()),
            "raw_headers": bool(cpp.RawHeadersEnabled()),
            "fill_once": bool(cpp.FillOnceEnabled()),
            "event_heap": bool(cpp.EventHeapEnabled()),
            "event_buckets": bool(cpp.EventHeapEnabled() and cpp.EventBucketsEnabled()),
            "socket_prototype": bool(cpp.SocketPrototypeEnabled()),
            "probe_now_memo": bool(cpp.ProbeNowMemoEnabled()),
            "app_callbacks": bool(cpp.AppCallbacksEnabled()),
            "rto_memo": bool(cpp.RtoMemoEnabled()),
            "probe_clock": bool(cpp.ProbeClockEnabled()),
            "one_wake": bool(cpp.OneWakeEnabled())}
