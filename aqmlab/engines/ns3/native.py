"""Bring aqmlab's C++ (``aqmlab/engines/ns3/cpp/*.h``) into the ns-3 process, once.

The headers are header-only C++ in namespace ``aqmlab``; ``aqmlab.h`` includes them all.
Cling parses them; their code comes from the g++-compiled library of :mod:`.precompiled`
when it can be built, else from Cling's JIT (same results either way).

ns-3's time step is a femtosecond (``AQMLAB_TIME_RESOLUTION``: "fs", the default, "ps" or
"ns", ns-3's own default), set for the whole process at the first load (ns-3 allows it
once). ns-2.35 keeps time in doubles; at 1 ns ns-3 rounds every transmission time by up to
0.5 ns, and a tie that ns-2 orders by its ~1e-15 s rounding (a timer and the ACK clock on
Qiu's T1) went the other way. At "fs" the "ns2" ``tx_time`` clock (cpp/ns2_tx_clock.h)
ends each busy link's transmissions at ns-2's own double times (tests/differential/
test_fs_clock.py, test_tx_clock_drift.py). int64 femtoseconds reach 9,223 s of simulated
time: :func:`max_duration_s`.
"""

from __future__ import annotations

import os
import threading
import warnings
from importlib import resources
from pathlib import Path
from typing import Any

from aqmlab.engines.ns3 import loader, precompiled
from aqmlab.errors import NativeCodeError

#: ``AQMLAB_TIME_RESOLUTION`` values -> (ns-3 ``Time`` unit, steps per second).
RESOLUTIONS = {"ns": ("NS", 10**9), "ps": ("PS", 10**12), "fs": ("FS", 10**15)}
DEFAULT_RESOLUTION = "fs"


def resolution() -> str:
    """This process's ns-3 time step ("fs", "ps" or "ns")."""
    name = os.environ.get("AQMLAB_TIME_RESOLUTION", "") or DEFAULT_RESOLUTION
    if name not in RESOLUTIONS:
        raise NativeCodeError(f"AQMLAB_TIME_RESOLUTION={name!r}: one of {sorted(RESOLUTIONS)}")
    return name


def max_duration_s() -> float:
    """The longest run this process's time step allows, with room for the RTO's 60 s and
    the end-of-run drain (int64 steps: 9,223 s at "fs")."""
    return (2**63 - 1) / RESOLUTIONS[resolution()][1] - 200.0

#: Must equal ``AQMLAB_CPP_VERSION`` in experiment.h.
CPP_VERSION = 62

_lock = threading.Lock()
_done = False
_precompiled: Path | None = None


def cpp_dir() -> Path:
    """Folder of aqmlab's C++ headers."""
    return Path(str(resources.files("aqmlab.engines.ns3") / "cpp"))


def load() -> Any:
    """Load ns-3 and aqmlab's C++ once per process; return the ``aqmlab`` C++ namespace."""
    global _done
    with _lock:
        if not _done:
            loader.add_include_path(str(cpp_dir()))
            _load_precompiled()
            try:
                loader.cppdef('#include "aqmlab.h"')
            except SyntaxError as err:
                raise NativeCodeError(f"aqmlab's C++ failed to compile:\n{err}") from err
            _set_resolution(resolution())
            _done = True
    ns = loader.gbl().aqmlab
    if int(ns.AQMLAB_CPP_VERSION) != CPP_VERSION:
        raise NativeCodeError(
            f"C++ layer version {int(ns.AQMLAB_CPP_VERSION)} != Python side {CPP_VERSION}")
    return ns


def precompiled_library() -> Path | None:
    """The g++-compiled layer this process loaded (:mod:`.precompiled`), or None."""
    return _precompiled


def _load_precompiled() -> None:
    """Load the g++-compiled layer before Cling sees its header (if wanted and buildable)."""
    global _precompiled
    if not precompiled.wanted():
        return
    path = precompiled.library_path(cpp_dir(), loader.wheel_prefix(), loader.NS3_VERSION)
    if path is None:
        return
    try:
        loader.load_library(str(path))
    except OSError as err:  # a damaged cache: Cling compiles the layer
        warnings.warn(f"{path} could not be loaded ({err}); aqmlab's C++ is JIT-compiled "
                      f"instead (delete the file to rebuild it)", RuntimeWarning, stacklevel=3)
        return
    _precompiled = path


def _set_resolution(name: str) -> None:
    """ns-3's time step for this process (once, before any simulation)."""
    if name != "ns":
        time = loader.gbl().ns3.Time
        time.SetResolution(getattr(time, RESOLUTIONS[name][0]))
