"""Build and load a g++-compiled library whose member functions replace the wheel's own.

C++ files in ``cpp/`` define members of ns-3 classes; g++ compiles them once against the
wheel's headers (and ``cpp/interpose.h``) into one library in a cache folder, keyed by the
sources, the headers, the flags and the wheel's library; loaded with
``RTLD_GLOBAL`` *before* any ns-3 library, its definitions win symbol resolution, so the
wheel's calls through its PLT (calls across translation units) bind to them. Without g++,
or with all of the library's environment switches at ``0``, nothing is loaded and ns-3's
own functions run.
"""

from __future__ import annotations

import ctypes
import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

#: Headers every source may include (their text is part of the cache key).
HEADERS = ("interpose.h", "switches.h", "private_member.h")
#: g++ flags of every library aqmlab compiles: the wheel's build defines, a shared -O2 object.
FLAGS = ("-std=c++20", "-O2", "-fPIC", "-shared", "-DNS3_LOG_ENABLE", "-DNS3_ASSERT_ENABLE",
         "-DNS3_BUILD_PROFILE_RELEASE")


def cache_dir() -> Path:
    """Where compiled libraries are kept (``$AQMLAB_CACHE``, ``$XDG_CACHE_HOME`` or ~/.cache)."""
    root = os.environ.get("AQMLAB_CACHE") or os.environ.get("XDG_CACHE_HOME")
    return Path(root) / "aqmlab" if root else Path.home() / ".cache" / "aqmlab"


def wheel_stamp(prefix: Path, version: str, module: str) -> str:
    """The wheel's ``module`` library as a cache key part: its path, size and mtime."""
    lib = prefix / "lib64" / f"libns{version}-{module}.so"
    return f"{lib}:{lib.stat().st_size}:{lib.stat().st_mtime_ns}" if lib.exists() else ""


def build_library(out: Path, sources: dict[str, bytes], command: Callable[[Path], list[str]],
                  name: str, fallback: str) -> Path | None:
    """Compile ``out`` once: under a lock, so that concurrent workers build it once; in a
    temporary folder beside it holding ``sources``, with the command line
    ``command(folder)`` (which writes ``folder/lib.so``); moved into place whole. None, and
    a warning naming ``name`` and its ``fallback``, if the compiler fails or the cache
    folder cannot be written."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        with open(out.parent / "build.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # one build; the others wait, then find it
            if out.exists():
                return out
            with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
                for source, text in sources.items():
                    (Path(tmp) / source).write_bytes(text)
                done = subprocess.run(command(Path(tmp)), capture_output=True, text=True,
                                      check=False)
                if done.returncode != 0:
                    warnings.warn(f"could not compile {name} ({fallback}):\n"
                                  f"{done.stderr[-2000:]}", RuntimeWarning, stacklevel=4)
                    return None
                os.replace(Path(tmp) / "lib.so", out)  # atomic: a whole library or none
    except OSError as err:  # a cache folder that cannot be written
        warnings.warn(f"cannot build {name} into {out.parent} ({err}): {fallback} "
                      f"(set AQMLAB_CACHE to a writable folder)", RuntimeWarning, stacklevel=4)
        return None
    return out


def wheel_loaded(version: str, module: str) -> bool:
    """Whether ns-3's ``module`` library of this version is already mapped into this process."""
    try:
        return f"libns{version}-{module}.so" in Path("/proc/self/maps").read_text()
    except OSError:
        return False


@dataclass
class Interposer:
    """One library: its ``sources`` in ``aqmlab/engines/ns3/cpp`` (the first names it), the
    symbols it exports (a linker version script's ``global:`` patterns), the ns-3 modules it
    links, and the environment switches that turn it off (it is not loaded when every one is
    ``0``; each source reads its own switches too)."""

    sources: tuple[str, ...]
    exports: tuple[str, ...]
    modules: tuple[str, ...]
    switches: tuple[str, ...]
    what: str  # for warnings: what stays slow without it
    #: The ns-3 modules whose members it replaces, which must not be loaded before it
    #: (default: all of ``modules``).
    replaces: tuple[str, ...] = ()
    _lib: ctypes.CDLL | None = field(default=None, init=False, repr=False)

    @property
    def lib_name(self) -> str:
        return f"libaqmlab_{Path(self.sources[0]).stem}.so"

    def wanted(self) -> bool:
        """Whether any of its switches is on in this process's environment."""
        return any(os.environ.get(s, "1") != "0" for s in self.switches)

    def library_path(self, prefix: Path, version: str) -> Path | None:
        """The compiled library for this wheel, built if missing; None if it cannot be."""
        cpp = Path(str(resources.files("aqmlab.engines.ns3") / "cpp"))
        texts = {name: (cpp / name).read_bytes() for name in (*self.sources, *HEADERS)}
        stamp = wheel_stamp(prefix, version, self.modules[0])
        key = hashlib.sha256(b"".join(texts.values()) + stamp.encode() + " ".join(FLAGS).encode()
                             + " ".join(self.modules).encode()
                             + " ".join(self.exports).encode()).hexdigest()[:16]
        out = cache_dir() / "native" / key / self.lib_name
        if out.exists():
            return out
        gxx = shutil.which(os.environ.get("CXX", "g++"))
        if gxx is None:
            warnings.warn(f"g++ not found: {self.what} (same results, slower)", RuntimeWarning,
                          stacklevel=3)
            return None
        libdir = prefix / "lib64"

        def command(tmp: Path) -> list[str]:
            script = tmp / "exports.map"
            script.write_text("{\n  global:\n" + "".join(f"    {e};\n" for e in self.exports)
                              + "  local: *;\n};\n")
            return [gxx, *FLAGS, f"-I{prefix / 'include'}", f"-I{tmp}",
                    *(str(tmp / n) for n in self.sources), f"-L{libdir}",
                    *(f"-lns{version}-{m}" for m in self.modules), "-ldl",
                    f"-Wl,-rpath,{libdir}", f"-Wl,--version-script,{script}", "-o",
                    str(tmp / "lib.so")]

        return build_library(out, texts, command, self.sources[0], self.what)

    def load(self, prefix: Path, version: str) -> bool:
        """Load the library (before any ns-3 library); True if it is in place."""
        if self._lib is not None:
            return True
        if not self.wanted():
            return False
        if any(wheel_loaded(version, m) for m in self.replaces or self.modules):
            warnings.warn(f"ns-3 was loaded before aqmlab: {self.what}", RuntimeWarning,
                          stacklevel=2)
            return False
        path = self.library_path(prefix, version)
        if path is None:
            return False
        self._lib = ctypes.CDLL(str(path), mode=os.RTLD_NOW | os.RTLD_GLOBAL)
        return True

    @property
    def lib(self) -> ctypes.CDLL | None:
        """The loaded library (None if not loaded)."""
        return self._lib
