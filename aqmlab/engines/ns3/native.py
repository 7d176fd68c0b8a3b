"""JIT-compile aqmlab's C++ (``aqmlab/engines/ns3/cpp/*.h``) into the ns-3 process, once.

The headers are header-only C++ in namespace ``aqmlab``; ``aqmlab.h`` includes them all.
They must also compile with g++ against the wheel's headers (see ``bench/native``).
"""

from __future__ import annotations

import threading
from importlib import resources
from pathlib import Path
from typing import Any

from aqmlab.engines.ns3 import loader
from aqmlab.errors import NativeCodeError

#: Must equal ``AQMLAB_CPP_VERSION`` in experiment.h.
CPP_VERSION = 10

_lock = threading.Lock()
_done = False


def cpp_dir() -> Path:
    """Folder of aqmlab's C++ headers."""
    return Path(str(resources.files("aqmlab.engines.ns3") / "cpp"))


def load() -> Any:
    """Load ns-3 and aqmlab's C++ once per process; return the ``aqmlab`` C++ namespace."""
    global _done
    with _lock:
        if not _done:
            loader.add_include_path(str(cpp_dir()))
            try:
                loader.cppdef('#include "aqmlab.h"')
            except SyntaxError as err:
                raise NativeCodeError(f"aqmlab's C++ failed to compile:\n{err}") from err
            _done = True
    ns = loader.gbl().aqmlab
    if int(ns.AQMLAB_CPP_VERSION) != CPP_VERSION:
        raise NativeCodeError(
            f"C++ layer version {int(ns.AQMLAB_CPP_VERSION)} != Python side {CPP_VERSION}")
    return ns
