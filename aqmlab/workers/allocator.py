"""The memory allocator of the simulation processes.

ns-3 allocates and frees a packet, its buffers, headers and tags and an event or two per
hop, and sockets, buffers and timers per connection; in a web run glibc's ``malloc``/
``free`` took ~13 % of the samples (perf). Worker processes therefore start with
**mimalloc** preloaded (``LD_PRELOAD``; the ``cmeel-mimalloc`` wheel, a dependency on
Linux): web runs are 1.1-1.2x faster (bulk transfers gain nothing) and identical
(``bench/bench_allocator.py``; ``tests/sim/test_reproducible.py`` compares every table of
an overloaded web run of each TCP variant on both allocators).

``AQMLAB_ALLOCATOR`` chooses (read when a ``WorkerPool`` is created, and when
``aqmlab.run`` starts its worker): ``mimalloc`` (default),
``system`` (glibc's malloc), or the path of another ``malloc`` library to preload
(jemalloc, tcmalloc). The process that runs a simulation *in-process* keeps the allocator
it was started with. Run meta records the allocator in ``allocator``.
"""

from __future__ import annotations

import importlib.metadata
import os
import sys
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from aqmlab.errors import AqmlabError

__all__ = ["ENV", "AllocatorError", "library", "preload_env", "inherited", "active"]

ENV = "AQMLAB_ALLOCATOR"
SYSTEM = ("system", "glibc")
#: Names recognised in a process's memory map (``active``), most specific first.
KNOWN = ("mimalloc", "jemalloc", "tcmalloc")


class AllocatorError(AqmlabError, ValueError):
    """``AQMLAB_ALLOCATOR`` names neither a known allocator nor a library file."""


def library(choice: str | None = None) -> Path | None:
    """The library to preload for ``choice`` (default: ``$AQMLAB_ALLOCATOR`` or mimalloc);
    None for the system allocator, or when mimalloc is not installed / not on Linux."""
    choice = (os.environ.get(ENV) or "mimalloc") if choice is None else choice
    if choice in SYSTEM:
        return None
    if choice == "mimalloc":
        return _mimalloc()
    path = Path(choice).expanduser()
    if not path.is_file():
        raise AllocatorError(f"{ENV} = {choice!r} is invalid: must be 'mimalloc', 'system' "
                             "or the path of a malloc library (e.g. libjemalloc.so.2)")
    return path.resolve()


def _mimalloc() -> Path | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        files = importlib.metadata.files("cmeel-mimalloc") or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for f in files:
        if f.name == "libmimalloc.so":
            path = Path(str(f.locate())).resolve()
            return path if path.is_file() else None
    return None


def preload_env(env: Mapping[str, str]) -> dict[str, str]:
    """Variables to add to ``env`` so that a new process preloads the chosen allocator
    (before anything already in ``LD_PRELOAD``); empty for the system allocator."""
    lib = library(env.get(ENV) or "mimalloc")
    if lib is None:
        return {}
    current = env.get("LD_PRELOAD", "")
    if str(lib) in current.replace(":", " ").split():
        return {}
    return {"LD_PRELOAD": f"{lib} {current}".strip()}


_environ_lock = threading.Lock()


@contextmanager
def inherited() -> Iterator[None]:
    """Within this block, processes started by this one (``multiprocessing`` spawn
    children) inherit ``LD_PRELOAD`` with the allocator; ``os.environ`` is restored after."""
    extra = preload_env(os.environ)
    with _environ_lock:
        saved = {k: os.environ.get(k) for k in extra}
        os.environ.update(extra)
        try:
            yield
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


def active() -> str:
    """The allocator this process runs on: ``mimalloc``, ``jemalloc``, ``tcmalloc`` (found
    mapped into the process) or ``system``."""
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return "system"
    for name in KNOWN:
        if f"lib{name}" in maps:
            return name
    return "system"
