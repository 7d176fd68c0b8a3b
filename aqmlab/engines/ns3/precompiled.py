"""aqmlab's C++ layer compiled once by g++, so that no process JIT-compiles its code.

Cling must still parse ``cpp/aqmlab.h`` (cppyy needs the declarations), but generating
machine code for it took ~14 s of every process's first run. g++ compiles the same header
with ``-fkeep-inline-functions`` into ``libaqmlab_layer.so``, which is loaded before Cling
sees the header: Cling then reuses each function the library defines instead of emitting
its own (its reuse of weak symbols already in the process), and the first run of a process
costs about as much as any other.

The library is built on first use (about a minute of g++), under a file lock so that
concurrent workers build it once, into the cache folder of :mod:`.interposer` keyed by the
headers, the flags, the compiler and the wheel. Both ways round alike: contraction into FMA
is off in g++ (``-ffp-contract=off``, no ``-march``) and in Cling
(:data:`.loader.FP_CONTRACT_OFF`), so a run gives the same tables with and without the
library (``tests/sim/test_precompiled.py``). ``AQMLAB_PRECOMPILED=0``, or no g++, leaves
the whole layer to Cling.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import warnings
from pathlib import Path

from aqmlab.engines.ns3 import interposer, loader

SWITCH = "AQMLAB_PRECOMPILED"
LIB_NAME = "libaqmlab_layer.so"
#: :data:`.interposer.FLAGS`, no FMA contraction, and every inline function emitted, ns-3's
#: included, so that Cling finds each one it needs.
FLAGS = (*interposer.FLAGS, "-ffp-contract=off", "-fkeep-inline-functions")


def wanted() -> bool:
    """Whether this process uses the precompiled layer (``AQMLAB_PRECOMPILED``, default on)."""
    return os.environ.get(SWITCH, "1") != "0"


def cache_key(cpp: Path, prefix: Path, version: str, gxx: str) -> str:
    """Hash of every header of the layer, the flags, the compiler's version and the wheel."""
    h = hashlib.sha256()
    for path in sorted(cpp.glob("*.h")):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    stamp = interposer.wheel_stamp(prefix, version, "core")
    compiler = subprocess.run([gxx, "--version"], capture_output=True, text=True,
                              check=False).stdout
    h.update("\0".join((stamp, *FLAGS, *loader.MODULES, compiler)).encode())
    return h.hexdigest()[:16]


def library_path(cpp: Path, prefix: Path, version: str) -> Path | None:
    """The compiled layer for these headers and this wheel, built if missing; None if it
    cannot be (no g++, or g++ refused the headers: a warning says why)."""
    gxx = shutil.which(os.environ.get("CXX", "g++"))
    if gxx is None:
        warnings.warn("g++ not found: aqmlab's C++ is JIT-compiled by every process "
                      "(same results, ~14 s more per process)", RuntimeWarning, stacklevel=3)
        return None
    out = interposer.cache_dir() / "native" / cache_key(cpp, prefix, version, gxx) / LIB_NAME
    if out.exists():
        return out
    libdir = prefix / "lib64"

    def command(tmp: Path) -> list[str]:
        return [gxx, *FLAGS, f"-I{prefix / 'include'}", f"-I{cpp}", str(tmp / "layer.cc"),
                f"-L{libdir}", *(f"-lns{version}-{m}" for m in loader.MODULES),
                f"-Wl,-rpath,{libdir}", "-o", str(tmp / "lib.so")]

    return interposer.build_library(out, {"layer.cc": b'#include "aqmlab.h"\n'}, command,
                                     "aqmlab's C++", "it is JIT-compiled instead")


def main() -> int:
    """Build the layer now (``make native`` does, before figures and tests, so
    that no run waits for g++); prints its path."""
    if not wanted():
        print(f"{SWITCH}=0: not built")
        return 0
    path = library_path(Path(__file__).with_name("cpp"), loader.wheel_prefix(),
                        loader.NS3_VERSION)
    print(path if path is not None else "not built (see the warning): Cling compiles the layer")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
