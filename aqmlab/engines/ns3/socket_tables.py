"""O(1) socket and endpoint bookkeeping for the ns-3 wheel (``cpp/socket_tables.cc``).

ns-3 3.44 finds a node's TCP sockets and IPv4 endpoints by scanning all of them, a few times
per connection; an overloaded web run, whose open connections pile up into the thousands,
spends ~40 % of its time there. ``cpp/socket_tables.cc`` redefines those member functions
with side indexes and the same results. It is compiled once by g++ against the wheel's
headers into a cache folder and loaded before the wheel's libraries, so that their calls
bind to it (ELF interposition, :mod:`aqmlab.engines.ns3.interposer`). Without g++, or with
``AQMLAB_SOCKET_TABLES=0``, ns-3's own functions run: same results, slower.

It also answers the duplicate test of a server's forked socket (the five-argument
``Ipv4EndPointDemux::Allocate``, a scan of every endpoint of the node per accepted connection)
from an index of (local port, peer) kept exact through ``Ipv4EndPoint::SetPeer``;
``AQMLAB_FORK_INDEX=0`` leaves that one to ns-3.

The same library carries ``cpp/spf_index.cc`` (O(1) link records while ns-3's global routing
computes routes; ``AQMLAB_SPF_INDEX=0`` turns just that off) and ``cpp/per_packet_memo.cc``
(TCP options built directly, transmission times remembered, the sender's walk of its sent
list skipped when no segment is marked lost, the checksum switch read directly;
``AQMLAB_FAST_OPTIONS=0``, ``AQMLAB_TX_TIME_MEMO=0``, ``AQMLAB_NEXT_SEG=0``,
``AQMLAB_CHECKSUM_FLAG=0``): every library that replaces members of
``libns3-internet`` or ``-network`` must be loaded before them, so they are one library.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

from aqmlab.engines.ns3.interposer import Interposer

__all__ = ["FUNCTIONS", "LIBRARY", "load", "active", "calls", "spf_index_calls",
           "per_packet_memo_calls", "queue_accessor_calls", "buffer_check_calls",
           "address_accessor_calls",
           "reset", "library_path"]

#: The library: every member it replaces lives in libns3-internet or -network.
LIBRARY = Interposer(
    sources=("socket_tables.cc", "spf_index.cc", "per_packet_memo.cc", "queue_accessors.cc",
             "buffer_checks.cc", "address_accessors.cc"),
    exports=('extern "C++" { ns3::TcpL4Protocol::*; ns3::Ipv4EndPointDemux::*; '
             "ns3::Ipv4EndPoint::SetPeer*; ns3::GlobalRoutingLSA::GetLinkRecord*; "
             "ns3::GlobalRouteManager::InitializeRoutes*; ns3::TcpOption::CreateOption*; "
             "ns3::DataRate::CalculateBytesTxTime*; ns3::DataRate::DataRate*; "
             "ns3::TcpTxBuffer::NextSeg*; ns3::TcpTxBuffer::ResetLastSegmentSent*; "
             "ns3::Node::ChecksumEnabled*; ns3::Ipv4QueueDiscItem::GetSize*; "
             "ns3::QueueItem::GetPacket*; ns3::Ipv4Header::GetSerializedSize*; "
             "ns3::QueueSize::GetUnit*; ns3::QueueSize::GetValue*; ns3::QueueSize::QueueSize*; "
             "ns3::Buffer::CheckInternalState*; "
             "ns3::Buffer::Iterator::CheckNoZero*; ns3::Buffer::Iterator::Check*; "
             "ns3::PacketMetadata::IsPointerOk*; ns3::Ipv4Address::Ipv4Address*; "
             "ns3::Ipv4Address::Get*; ns3::Address::Address*; ns3::Ipv4Header::GetDestination*; "
             "ns3::Ipv4Header::GetSource*; ns3::Ipv4Route::GetGateway*; "
             "ns3::Ipv4Route::GetOutputDevice*; }",
             "aqmlab_socket_tables_*", "aqmlab_spf_index_*", "aqmlab_per_packet_memo_*",
             "aqmlab_queue_accessors_*", "aqmlab_buffer_checks_*",
             "aqmlab_address_accessors_*"),
    modules=("internet", "network", "core"),
    switches=("AQMLAB_SOCKET_TABLES",),
    what="ns-3's O(n) socket bookkeeping stays",
    replaces=("internet", "network"))  # core may be in: object_memo links it first

FUNCTIONS = ("AddSocket", "RemoveSocket", "Allocate", "DeAllocate", "ForkAllocate", "SetPeer")


def library_path(prefix: Path, version: str) -> Path | None:
    """The compiled library for this wheel, built if missing; None if it cannot be built."""
    return LIBRARY.library_path(prefix, version)


def load(prefix: Path, version: str) -> bool:
    """Load the library (before any ns-3 library); True if it is in place."""
    if LIBRARY.lib is not None:
        return True
    if not LIBRARY.load(prefix, version):
        return False
    for name in ("aqmlab_socket_tables_calls", "aqmlab_spf_index_calls",
                 "aqmlab_per_packet_memo_calls", "aqmlab_queue_accessors_calls",
                 "aqmlab_buffer_checks_calls", "aqmlab_address_accessors_calls"):
        f = getattr(LIBRARY.lib, name)
        f.restype, f.argtypes = ctypes.c_uint64, [ctypes.c_int]
    return True


def active() -> bool:
    """Whether the library was loaded in this process."""
    return LIBRARY.lib is not None


def _counters(function: str, names: tuple[str, ...]) -> dict[str, int]:
    lib = LIBRARY.lib
    return {name: int(getattr(lib, function)(i)) if lib is not None else 0
            for i, name in enumerate(names)}


def calls() -> dict[str, int]:
    """How many times each interposed function ran in this process (zeros if not loaded)."""
    return _counters("aqmlab_socket_tables_calls", FUNCTIONS)


def spf_index_calls() -> dict[str, int]:
    """Link records answered from the SPF index, and indexes built, in this process."""
    return _counters("aqmlab_spf_index_calls", ("records", "indexes"))


def per_packet_memo_calls() -> dict[str, int]:
    """TCP options built directly, transmission times and parsed rates answered from the
    memo, NextSeg calls answered without walking the sent list, and
    (``AQMLAB_NEXT_SEG=verify``) NextSeg answers that differed from ns-3's."""
    return _counters("aqmlab_per_packet_memo_calls",
                     ("options", "tx_times", "rates", "next_seg", "next_seg_disagreements"))


def queue_accessor_calls() -> dict[str, int]:
    """QueueSize::GetUnit calls answered by ``cpp/queue_accessors.cc`` in this process, and
    whether its replacements are on (1)."""
    return _counters("aqmlab_queue_accessors_calls", ("queue_size_units", "queue_accessors_on"))


def buffer_check_calls() -> dict[str, int]:
    """Buffer::CheckInternalState calls answered by ``cpp/buffer_checks.cc`` in this process,
    and whether its replacements are on (1)."""
    return _counters("aqmlab_buffer_checks_calls", ("buffer_checks", "buffer_checks_on"))


def address_accessor_calls() -> dict[str, int]:
    """Ipv4Header::GetDestination calls answered by ``cpp/address_accessors.cc`` in this
    process, and whether its replacements are on (1)."""
    return _counters("aqmlab_address_accessors_calls",
                     ("header_destinations", "address_accessors_on"))


def reset() -> None:
    """Drop every index (after a simulation's objects are gone)."""
    if LIBRARY.lib is not None:
        LIBRARY.lib.aqmlab_socket_tables_reset()
