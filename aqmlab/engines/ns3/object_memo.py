"""Memos for ns-3's object construction and trace-source lookup (``cpp/object_memo.cc``).

Every ns-3 Object built (several per TCP connection, one per TCP option each time a header
is deserialized) walks its TypeIds and copies every attribute's description; every trace
connection by name copies trace-source descriptions until the name matches. The library
keeps both per TypeId, with the same outcome (see the C++ file for what is kept and when it
is dropped). ``AQMLAB_FAST_CONSTRUCT=0`` / ``AQMLAB_TRACE_MEMO=0`` turn either off. It also
leaves a socket copy's TcpSocketState unconnected to forwarders nothing listens to
(``AQMLAB_QUIET_TCB``). With all three off (or without g++) the library is not loaded.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

from aqmlab.engines.ns3.interposer import Interposer

__all__ = ["COUNTERS", "load", "active", "enabled", "calls", "reset"]

LIBRARY = Interposer(
    sources=("object_memo.cc",),
    exports=('extern "C++" { ns3::ObjectBase::ConstructSelf*; '
             "ns3::TypeId::SetAttributeInitialValue*; ns3::TypeId::LookupTraceSourceByName*; "
             "ns3::ObjectBase::TraceConnectWithoutContext*; }",
             "aqmlab_object_memo_*"),
    modules=("core",),
    switches=("AQMLAB_FAST_CONSTRUCT", "AQMLAB_TRACE_MEMO", "AQMLAB_QUIET_TCB"),
    what="ns-3's per-object attribute and trace-source scans stay")

#: What aqmlab_object_memo_calls counts, in order.
COUNTERS = ("construct", "memo_rebuilds", "trace_hits", "quiet_tcb")


def load(prefix: Path, version: str) -> bool:
    """Load the library before the wheel; True if it is in place."""
    if LIBRARY.lib is not None:
        return True
    if not LIBRARY.load(prefix, version):
        return False
    lib = LIBRARY.lib
    lib.aqmlab_object_memo_calls.restype = ctypes.c_uint64
    lib.aqmlab_object_memo_calls.argtypes = [ctypes.c_int]
    lib.aqmlab_object_memo_enabled.restype = ctypes.c_int
    lib.aqmlab_object_memo_enabled.argtypes = [ctypes.c_int]
    return True


def active() -> bool:
    """Whether the library is loaded in this process."""
    return LIBRARY.lib is not None


def enabled() -> dict[str, bool]:
    """Which of its two memos this process uses, and whether sockets' copies skip their
    TcpSocketState's forwarders (``quiet_tcb``)."""
    lib = LIBRARY.lib
    return {"fast_construct": bool(lib and lib.aqmlab_object_memo_enabled(0)),
            "trace_memo": bool(lib and lib.aqmlab_object_memo_enabled(1)),
            "quiet_tcb": bool(lib and lib.aqmlab_object_memo_enabled(2))}


def calls() -> dict[str, int]:
    """Its counters in this process (zeros if not loaded)."""
    lib = LIBRARY.lib
    return {name: int(lib.aqmlab_object_memo_calls(i)) if lib else 0
            for i, name in enumerate(COUNTERS)}


def reset() -> None:
    """Free the memos (between simulations)."""
    if LIBRARY.lib is not None:
        LIBRARY.lib.aqmlab_object_memo_reset()
