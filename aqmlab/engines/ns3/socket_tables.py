"""O(1) socket and endpoint bookkeeping for the ns-3 wheel (``cpp/socket_tables.cc``).

ns-3 3.44 finds a node's TCP sockets and IPv4 endpoints by scanning all of them, a few times
per connection; an overloaded web run, whose open connections pile up into the thousands,
spends ~40 % of its time there. ``cpp/socket_tables.cc`` redefines those member functions
with side indexes and the same results. It is compiled once by g++ against the wheel's
headers into a cache folder and loaded before the wheel's libraries, so that their calls
bind to it (ELF interposition). Without g++, or with ``AQMLAB_SOCKET_TABLES=0``, ns-3's own
functions run: same results, slower.
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

__all__ = ["FUNCTIONS", "load", "active", "calls", "reset", "library_path"]

SOURCE = "socket_tables.cc"
LIB = "libaqmlab_socket_tables.so"
_FLAGS = ("-std=c++20", "-O2", "-fPIC", "-shared", "-DNS3_LOG_ENABLE", "-DNS3_ASSERT_ENABLE",
          "-DNS3_BUILD_PROFILE_RELEASE")
#: Only the interposed members and the two C entry points leave the library.
_EXPORTS = """{
  global:
    extern "C++" { ns3::TcpL4Protocol::*; ns3::Ipv4EndPointDemux::*; };
    aqmlab_socket_tables_*;
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
    source = (Path(str(resources.files("aqmlab.engines.ns3") / "cpp")) / SOURCE).read_bytes()
    out = _cache_dir() / "native" / _key(source, prefix, version) / LIB
    if out.exists():
        return out
    gxx = shutil.which(os.environ.get("CXX", "g++"))
    if gxx is None:
        warnings.warn("g++ not found: ns-3's O(n) socket bookkeeping stays (same results, "
                      "slower overloaded web runs)", RuntimeWarning, stacklevel=3)
        return None
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        src, exports, lib = Path(tmp) / SOURCE, Path(tmp) / "exports.map", Path(tmp) / LIB
        src.write_bytes(source)
        exports.write_text(_EXPORTS)
        libdir = prefix / "lib64"
        cmd = [gxx, *_FLAGS, f"-I{prefix / 'include'}", str(src), f"-L{libdir}",
               *(f"-lns{version}-{m}" for m in ("internet", "network", "core")),
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


def reset() -> None:
    """Drop every index (after a simulation's objects are gone)."""
    if _lib is not None:
        _lib.aqmlab_socket_tables_reset()
