"""Local execution engine: worker processes that import ns-3 once and run many simulations.

ns-3 fatal errors call ``std::terminate`` and kill the process that runs them, so no
simulation ever runs in the caller's process (a notebook kernel survives any crash). A
worker that dies or overruns its wall-clock limit is replaced; the run is reported as
:class:`SimulationCrashed` / :class:`SimulationTimeout` with the tail of its stderr.
"""

from __future__ import annotations

import atexit
import multiprocessing as mp
import os
import tempfile
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from aqmlab.errors import SimulationCrashed, SimulationTimeout
from aqmlab.results.results import Results
from aqmlab.run import allocator, worker
from aqmlab.scenario import Scenario

STDERR_TAIL = 4000


def _tail(path: Path, n: int = STDERR_TAIL) -> str:
    try:
        data = path.read_bytes()
    except OSError:
        return ""
    return data[-n:].decode(errors="replace")


def _reproduce(scenario: Scenario) -> str:
    return f"aqmlab run <scenario.toml> --seed {scenario.run.seed}  (scenario {scenario.key})"


class LocalEngine:
    """A pool of ``workers`` processes (spawned, so the parent never imports ns-3)."""

    def __init__(self, workers: int | None = None, warm: bool = True) -> None:
        self.workers = workers or os.cpu_count() or 1
        self.warm = warm
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self._logdir = Path(tempfile.mkdtemp(prefix="aqmlab-logs-"))

    def _executor(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    self.workers, mp_context=mp.get_context("spawn"),
                    initializer=worker.warm_up if self.warm else None)
            return self._pool

    def submit(self, scenario: Scenario) -> tuple[Future, Path]:
        log = self._logdir / f"{scenario.key}-{os.urandom(4).hex()}.stderr"
        with allocator.inherited():  # a worker spawned now preloads mimalloc
            fut = self._executor().submit(worker.task, scenario.to_dict(), str(log))
        return fut, log

    def result(self, scenario: Scenario, fut: Future, log: Path,
               timeout: float | None = None) -> Results:
        """Wait for one submitted run; translate crashes and timeouts."""
        try:
            return fut.result(timeout=timeout)
        except FutureTimeout:
            self.restart(kill=True)
            raise SimulationTimeout(
                f"run {scenario.key} exceeded {timeout} s of wall time; "
                f"reproduce: {_reproduce(scenario)}") from None
        except BrokenProcessPool as err:
            self.restart(kill=True)
            raise SimulationCrashed(
                f"the process running {scenario.key} died (ns-3 abort or signal); "
                f"reproduce: {_reproduce(scenario)}\n--- stderr tail ---\n{_tail(log)}"
            ) from err

    def run(self, scenario: Scenario, timeout: float | None = None) -> Results:
        fut, log = self.submit(scenario)
        return self.result(scenario, fut, log, timeout)

    def restart(self, kill: bool = False) -> None:
        """Shut the pool down (killing its processes if asked); the next run starts a new one."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is None:
            return
        if kill:
            for proc in list(getattr(pool, "_processes", {}).values()):
                if proc.is_alive():
                    proc.kill()
        pool.shutdown(wait=not kill, cancel_futures=True)

    close = restart


_default: LocalEngine | None = None


def default_engine() -> LocalEngine:
    """The process-wide single-worker engine used by :func:`aqmlab.run`."""
    global _default
    if _default is None:
        _default = LocalEngine(workers=1)
        atexit.register(_default.close)
    return _default
