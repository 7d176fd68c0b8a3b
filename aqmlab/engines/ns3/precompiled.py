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

import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
import warnings
from pathlib import Path

from aqmlab.engines.ns3 import loader
from aqmlab.engines.ns3.interposer import cache_dir

SWITCH = "AQMLAB_PRECOMPILED"
LIB_NAME = "libaqmlab_layer.so"
#: The wheel's build defines (as :mod:`.loader`), the JIT's -O2, no FMA contraction, and
#: every inline function emitted, ns-3's included, so that Cling finds each one it needs.
FLAGS = ("-std=c++20", "-O2", "-ffp-contract=off", "-fPIC", "-shared",
         "-fkeep-inline-functions", "-DNS3_LOG_ENABLE", "-DNS3_ASSERT_ENABLE",
         "-DNS3_BUILD_PROFILE_RELEASE")
MODULES = ("core", "stats", "network", "bridge", "traffic-control", "internet",
           "point-to-point", "applications", "flow-monitor")


def wanted() -> bool:
    """Whether this process uses the precompiled layer (``AQMLAB_PRECOMPILED``, default on)."""
    return os.environ.get(SWITCH, "1") != "0"


def _compiler() -> str | None:
    return shutil.which(os.environ.get("CXX", "g++"))


def cache_key(cpp: Path, prefix: Path, version: str, gxx: str) -> str:
    """Hash of every header of the layer, the flags, the compiler's version and the wheel."""
    h = hashlib.sha256()
    for path in sorted(cpp.glob("*.h")):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    core = prefix / "lib64" / f"libns{version}-core.so"
    stamp = f"{core}:{core.stat().st_size}:{core.stat().st_mtime_ns}" if core.exists() else ""
    compiler = subprocess.run([gxx, "--version"], capture_output=True, text=True,
                              check=False).stdout
    h.update("\0".join((stamp, *FLAGS, *MODULES, compiler)).encode())
    return h.hexdigest()[:16]


def library_path(cpp: Path, prefix: Path, version: str) -> Path | None:
    """The compiled layer for these headers and this wheel, built if missing; None if it
    cannot be (no g++, or g++ refused the headers: a warning says why)."""
    gxx = _compiler()
    if gxx is None:
        warnings.warn("g++ not found: aqmlab's C++ is JIT-compiled by every process "
                      "(same results, ~14 s more per process)", RuntimeWarning, stacklevel=3)
        return None
    out = cache_dir() / "native" / cache_key(cpp, prefix, version, gxx) / LIB_NAME
    if out.exists():
        return out
    try:
        return _build(gxx, cpp, prefix, version, out)
    except OSError as err:  # a cache folder that cannot be written
        warnings.warn(f"cannot build aqmlab's C++ into {out.parent} ({err}); it is "
                      f"JIT-compiled instead (set AQMLAB_CACHE to a writable folder)",
                      RuntimeWarning, stacklevel=3)
        return None


def _build(gxx: str, cpp: Path, prefix: Path, version: str, out: Path) -> Path | None:
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.parent / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one build; the others wait, then find it
        if out.exists():
            return out
        with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
            source, built = Path(tmp) / "layer.cc", Path(tmp) / LIB_NAME
            source.write_text('#include "aqmlab.h"\n')
            libdir = prefix / "lib64"
            cmd = [gxx, *FLAGS, f"-I{prefix / 'include'}", f"-I{cpp}", str(source),
                   f"-L{libdir}", *(f"-lns{version}-{m}" for m in MODULES),
                   f"-Wl,-rpath,{libdir}", "-o", str(built)]
            done = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                warnings.warn(f"g++ could not compile aqmlab's C++ (it is JIT-compiled "
                              f"instead):\n{done.stderr[-2000:]}", RuntimeWarning, stacklevel=4)
                return None
            os.replace(built, out)  # atomic: a reader sees a whole library or none
    return out


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
