"""O(1) socket and endpoint bookkeeping for the ns-3 wheel (``cpp/socket_tables.cc``).

ns-3 3.44 finds a node's TCP sockets and IPv4 endpoints by scanning all of them, a few times
per connection; an overloaded web run, whose open connections pile up into the thousands,
spends ~40 % of its time there. ``cpp/socket_tables.cc`` redefines those member functions
with side indexes and the same results. It is compiled once by g++ against the wheel's
headers into a cache folder and loaded before the wheel's libraries, so that their calls
bind to it (ELF interposition). Without g++, or with ``AQMLAB_SOCKET_TABLES=0``, ns-3's own
functions run: same results, slower.

The same library carries ``cpp/spf_index.cc`` (O(1) link records while ns-3's global routing
computes routes; ``AQMLAB_SPF_INDEX=0`` turns just that off) and ``cpp/per_packet_memo.cc``
(TCP options built directly, transmission times remembered; ``AQMLAB_FAST_OPTIONS=0``,
``AQMLAB_TX_TIME_MEMO=0``): every library that replaces members of ``libns3-internet`` or
``-network`` must be loaded before them, so they are one library.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
import warnings
from importlib import resources
from pathlib import Path

__all__ = ["FUNCTIONS", "load", "active", "calls", "spf_index_calls", "per_packet_memo_calls", "reset", "library_path"]

SOURCE = "socket_tables.cc"
#: Every source compiled into the library.
SOURCES = (SOURCE, "spf_index.cc", "per_packet_memo.cc")
LIB = "libaqmlab_socket_tables.so"
_FLAGS = ("-std=c++20", "-O2", "-fPIC", "-shared", "-DNS3_LOG_ENABLE", "-DNS3_ASSERT_ENABLE",
          "-DNS3_BUILD_PROFILE_RELEASE")
#: Only the interposed members and the two C entry points leave the library.
_EXPORTS = """{
  global:
    extern "C++" { ns3::TcpL4Protocol::*; ns3::Ipv4EndPointDemux::*;
                   ns3::GlobalRoutingLSA::GetLinkRecord*;
                   ns3::GlobalRouteManager::InitializeRoutes*;
                   ns3::TcpOption::CreateOption*; ns3::DataRate::CalculateBytesTxTime*; };
    aqmlab_socket_tables_*;
    aqmlab_spf_index_*;
    aqmlab_per_packet_memo_*;
  local: *;
};
"""

_lib: ctypes.CDLL | None = None


def _cache_dir() -> Path:
    root = os.environ.get("AQMLAB_CACHE") or os.environ.get("XDG_CACHE_HOME")
    return Path(root) / "aqmlab" if root else Path.home() / ".cache" / "aqmlab"


def _key(source: bytes, prefix: Path, version: str) -> str:
    lib = prefix / "lib64" / f"libns{version}-internet.so"
    stamp = f"{lib}:{lib.stat().st_size}:{lib.stat().st_mtime_ns}" if lib.exists() else ""
    return hashlib.sha256(source + stamp.encode() + " ".join(_FLAGS).encode()).hexdigest()[:16]


def library_path(prefix: Path, version: str) -> Path | None:
    """The compiled library for this wheel, built if missing; None if it cannot be built."""
    cpp = Path(str(resources.files("aqmlab.engines.ns3") / "cpp"))
    sources = {name: (cpp / name).read_bytes() for name in SOURCES}
    out = _cache_dir() / "native" / _key(b"".join(sources.values()), prefix, version) / LIB
    if out.exists():
        return out
    gxx = shutil.which(os.environ.get("CXX", "g++"))
    if gxx is None:
        warnings.warn("g++ not found: ns-3's O(n) socket bookkeeping stays (same results, "
                      "slower overloaded web runs)", RuntimeWarning, stacklevel=3)
        return None
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        exports, lib = Path(tmp) / "exports.map", Path(tmp) / LIB
        for name, text in sources.items():
            (Path(tmp) / name).write_bytes(text)
        exports.write_text(_EXPORTS)
        libdir = prefix / "lib64"
        cmd = [gxx, *_FLAGS, f"-I{prefix / 'include'}", *(str(Path(tmp) / n) for n in SOURCES),
               f"-L{libdir}", *(f"-lns{version}-{m}" for m in ("internet", "network", "core")),
               "-ldl",
               f"-Wl,-rpath,{libdir}", f"-Wl,--version-script,{exports}", "-o", str(lib)]
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            warnings.warn(f"could not compile {SOURCE} (ns-3's O(n) socket bookkeeping stays):"
                          f"\n{done.stderr[-2000:]}", RuntimeWarning, stacklevel=3)
            return None
        os.replace(lib, out)  # atomic: concurrent workers see a whole library or none
    return out


def load(prefix: Path, version: str) -> bool:
    """Load the library (before any ns-3 library); True if it is in place."""
    global _lib
    if _lib is not None:
        return True
    if os.environ.get("AQMLAB_SOCKET_TABLES", "1") == "0":
        return False
    if _wheel_loaded(version):
        # too late: some of the wheel's calls would bind to its own functions, some to these
        warnings.warn("ns-3 was loaded before aqmlab: its O(n) socket bookkeeping stays",
                      RuntimeWarning, stacklevel=2)
        return False
    path = library_path(prefix, version)
    if path is None:
        return False
    _lib = ctypes.CDLL(str(path), mode=os.RTLD_NOW | os.RTLD_GLOBAL)
    _lib.aqmlab_socket_tables_calls.restype = ctypes.c_uint64
    _lib.aqmlab_socket_tables_calls.argtypes = [ctypes.c_int]
    return True


def _wheel_loaded(version: str) -> bool:
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return False
    return f"libns{version}-internet.so" in maps


def active() -> bool:
    """Whether the library was loaded in this process."""
    return _lib is not None


FUNCTIONS = ("AddSocket", "RemoveSocket", "Allocate", "DeAllocate")


def calls() -> dict[str, int]:
    """How many times each interposed function ran in this process (zeros if not loaded)."""
    return {name: int(_lib.aqmlab_socket_tables_calls(i)) if _lib is not None else 0
            for i, name in enumerate(FUNCTIONS)}


def spf_index_calls() -> dict[str, int]:
    """Link records answered from the SPF index, and indexes built, in this process."""
    if _lib is None:
        return {"records": 0, "indexes": 0}
    f = _lib.aqmlab_spf_index_calls
    f.restype, f.argtypes = ctypes.c_uint64, [ctypes.c_int]
    return {"records": int(f(0)), "indexes": int(f(1))}


def per_packet_memo_calls() -> dict[str, int]:
    """TCP options built directly, and transmission times answered from the memo."""
    if _lib is None:
        return {"options": 0, "tx_times": 0}
    f = _lib.aqmlab_per_packet_memo_calls
    f.restype, f.argtypes = ctypes.c_uint64, [ctypes.c_int]
    return {"options": int(f(0)), "tx_times": int(f(1))}


def reset() -> None:
    """Drop every index (after a simulation's objects are gone)."""
    if _lib is not None:
        _lib.aqmlab_socket_tables_reset()
