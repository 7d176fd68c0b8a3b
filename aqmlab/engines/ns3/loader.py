"""Load the ns-3 wheel quietly and fast: the only module that imports cppyy.

Only the modules aqmlab needs are parsed (core, network, internet, point-to-point,
traffic-control, applications, flow-monitor), which takes ~1.8 s of CPU instead of
~8 s for ``from ns import ns``. The official 3.44 loader globs the working directory
recursively; this one never looks at the working directory. It first loads
``socket_tables`` (O(1) socket bookkeeping) and ``object_memo`` (object construction and
trace lookup memos), see those modules. Cling's harmless
"Failed to materialize symbols ... g_timeInitHelper" noise is filtered from stderr.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import tempfile
import threading
from importlib import util as importlib_util
from pathlib import Path
from typing import Any

from aqmlab.engines.ns3 import object_memo, socket_tables
from aqmlab.errors import Ns3UnavailableError

NS3_VERSION = "3.44"
#: Modules in dependency order (a module's libraries need the ones before it).
MODULES = ("core", "stats", "network", "bridge", "traffic-control", "internet",
           "point-to-point", "applications", "flow-monitor")
#: Modules whose headers are parsed (the others are loaded as libraries only).
HEADERS = ("core", "network", "internet", "point-to-point", "traffic-control",
           "applications", "flow-monitor")
_DEFINES = ("NS3_LOG_ENABLE", "NS3_ASSERT_ENABLE", "NS3_BUILD_PROFILE_RELEASE")
#: Cling (-march=native) would fuse ``a * b + c`` into one FMA where the CPU has it: every
#: JIT-compiled line after this pragma rounds each product, as g++ -ffp-contract=off (the
#: precompiled layer) and ns-2.35's Debian build do, on every CPU.
FP_CONTRACT_OFF = "#pragma clang fp contract(off)\n"
_NOISE = (b"Failed to materialize symbols", b"runStaticInitializersOnce",
          b"g_timeInitHelper", b"_GLOBAL__sub_I_")

_lock = threading.Lock()
_ns: Any = None
_cppyy: Any = None  # the cppyy module, once loaded


def wheel_prefix() -> Path:
    """Return the installation prefix of the ``ns3`` wheel (holds include/ and lib64/)."""
    spec = importlib_util.find_spec("ns3")
    if spec is None or not spec.submodule_search_locations:
        raise Ns3UnavailableError(
            "the ns-3 Python wheel is not installed: pip install 'ns3==3.44.*'")
    prefix = Path(list(spec.submodule_search_locations)[0])
    if not (prefix / "include" / "ns3").is_dir():
        raise Ns3UnavailableError(f"ns3 wheel at {prefix} has no include/ns3 folder")
    return prefix


@contextlib.contextmanager
def filtered_stderr():
    """Drop cling's known-harmless static-initialiser messages from fd 2."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            kept = [line for line in tmp.read().splitlines(keepends=True)
                    if not any(n in line for n in _NOISE)]
            if kept:
                os.write(2, b"".join(kept))


def load() -> Any:
    """Import the ns-3 subset once per process and return the ``ns3`` namespace."""
    global _ns
    with _lock:
        if _ns is None:
            _ns = _load()
        return _ns


def _load() -> Any:
    prefix = wheel_prefix()
    lib = prefix / "lib64"
    for m in MODULES:
        if not (lib / f"libns{NS3_VERSION}-{m}.so").exists():
            raise Ns3UnavailableError(
                f"ns-3 module {m!r} is missing from {lib} (need ns3=={NS3_VERSION}.*)")
    # before any ns-3 library, so that the wheel's calls bind to its O(1) bookkeeping
    object_memo.load(prefix, NS3_VERSION)  # links only ns-3's core: first
    socket_tables.load(prefix, NS3_VERSION)
    global _cppyy
    with filtered_stderr():
        # cppyy starts Cling (seconds, hundreds of MB): only a process that simulates pays it
        import cppyy  # noqa: PLC0415  (the only place cppyy is imported: see the comment)
        import libcppyy  # noqa: PLC0415  (cppyy's C++ half, loaded by cppyy just above)

        _cppyy = cppyy
        libcppyy.AddSmartPtrType("Ptr")
        cppyy.add_library_path(str(lib))
        cppyy.add_include_path(str(prefix / "include"))
        cppyy.cppdef("".join(f"#ifndef {d}\n#define {d} 1\n#endif\n" for d in _DEFINES))
        cppyy.cppdef(FP_CONTRACT_OFF)
        for m in HEADERS:
            cppyy.include(f"ns3/{m}-module.h")
        for m in MODULES:
            cppyy.load_library(str(lib / f"libns{NS3_VERSION}-{m}.so"))
    ns = cppyy.gbl.ns3
    # Python must never delete Node objects that ns-3's NodeList owns.
    ns.__nodes_pending_deletion = []
    ns.Node.__del__ = lambda self: ns.__nodes_pending_deletion.append(self)
    return ns


def cppdef(code: str) -> None:
    """JIT-compile C++ ``code`` with the noise filter (after :func:`load`)."""
    load()
    with filtered_stderr():
        ok = _cppyy.cppdef(code)
    if not ok:  # cppyy raises on errors; this is a belt-and-braces check
        raise RuntimeError("cppyy.cppdef returned False")


def gbl() -> Any:
    """Return ``cppyy.gbl`` (after :func:`load`)."""
    load()
    return _cppyy.gbl


def add_include_path(path: str) -> None:
    """Add a C++ include path (after :func:`load`)."""
    load()
    _cppyy.add_include_path(path)


def load_library(path: str) -> None:
    """Load a shared library into the process's global scope, where Cling finds its symbols
    (after :func:`load`; by path: cppyy's own loader takes a library of an already loaded
    library's name for that one). Raises OSError if it cannot be loaded."""
    load()
    ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_GLOBAL)
