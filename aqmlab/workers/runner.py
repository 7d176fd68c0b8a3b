"""``aqmlab.run``: one simulation in a worker process, from a notebook, a script or a thread.

Everything that simulates goes through a :class:`~aqmlab.workers.pool.WorkerPool`: sweeps
(through :mod:`aqmlab.campaign.executors`), :func:`run`, calibration and the explorer
(through a :class:`Runner`). So a run that aborts the simulator fails alone, with the
simulator's message, and never the caller's process; and since workers are plain
subprocesses, a script needs no ``if __name__ == "__main__":`` guard.
"""

from __future__ import annotations

import atexit
import itertools
import queue
import threading
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from aqmlab.errors import SimulationCrashed, SimulationError, SimulationTimeout
from aqmlab.results.results import Results
from aqmlab.scenario import Scenario, as_scenario
from aqmlab.workers import worker
from aqmlab.workers.pool import STDERR_TAIL, Outcome, WorkerPool

__all__ = ["Runner", "default_runner", "run", "as_scenario"]


def _reproduce(scenario: Scenario) -> str:
    return f"aqmlab run <scenario.toml> --seed {scenario.run.seed}  (scenario {scenario.key})"


def raise_for(outcome: Outcome, scenario: Scenario) -> Results:
    """The Results of a successful outcome; the matching SimulationError otherwise, with
    the simulator's message and the tail of the run's stderr."""
    if outcome.ok:
        return outcome.results
    tail = outcome.stderr[-STDERR_TAIL:].strip()
    detail = f"\n--- stderr tail ---\n{tail}" if tail else ""
    text = f"run {scenario.key}: {outcome.reason}; reproduce: {_reproduce(scenario)}{detail}"
    if outcome.status == "crashed":
        raise SimulationCrashed(text)
    if outcome.status == "timeout":
        raise SimulationTimeout(text)
    raise SimulationError(text)


class Runner:
    """A :class:`WorkerPool` driven from a background thread: :meth:`submit` returns a
    :class:`~concurrent.futures.Future` per run, so callers (a notebook, the explorer, a
    calibration) can wait, poll or run several at once. Closed at exit."""

    def __init__(self, workers: int | None = 1, **pool_options: Any) -> None:
        self._options = {"workers": workers, **pool_options}
        self.pool = WorkerPool(**self._options)
        self._incoming: queue.SimpleQueue = queue.SimpleQueue()
        self._futures: dict[int, tuple[Future, Scenario]] = {}
        self._ids = itertools.count()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = False
        atexit.register(self.close)

    def submit(self, scenario: Scenario, timeout: float | None = None) -> Future:
        """Queue ``scenario``; the Future gives its Results or raises SimulationError.
        ``timeout`` (wall-clock seconds, counted from the run's start) defaults to the
        scenario's ``run.max_wall_time``."""
        limit = timeout if timeout is not None else scenario.run.max_wall_time_s
        fut: Future = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("the runner is closed")
            job = next(self._ids)
            self._futures[job] = (fut, scenario)
            self._incoming.put((job, scenario.to_dict(), limit))
            if self._thread is None:
                self._thread = threading.Thread(target=self._drive, daemon=True,
                                                name="aqmlab-runner")
                self._thread.start()
        return fut

    def run(self, scenario: Scenario, timeout: float | None = None) -> Results:
        return self.submit(scenario, timeout).result()

    def _drive(self) -> None:
        """The pool's only user: feeds it the queued runs and settles their futures."""
        while True:
            with self._lock:
                if self._closed or not self._futures:
                    self._thread = None
                    return
            while not self._incoming.empty():
                self.pool.submit(*self._incoming.get())
            try:
                outcomes = self.pool.poll(0.1)
            except SimulationError as err:  # workers cannot start: every run fails
                self._fail_all(err)
                continue
            for out in outcomes:
                with self._lock:
                    fut, scenario = self._futures.pop(out.job_id)
                try:
                    fut.set_result(raise_for(out, scenario))
                except SimulationError as err:
                    fut.set_exception(err)

    def _fail_all(self, err: Exception) -> None:
        with self._lock:
            futures, self._futures = self._futures, {}
            while not self._incoming.empty():
                self._incoming.get()
            self.pool.close()
            self.pool = WorkerPool(**self._options)
        for fut, _ in futures.values():
            fut.set_exception(err)

    def close(self) -> None:
        """Kill the workers; runs still queued or running fail."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            futures, self._futures = self._futures, {}
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)
        self.pool.close()
        for fut, sc in futures.values():
            if not fut.done():
                fut.set_exception(SimulationError(f"run {sc.key}: the runner was closed"))
        atexit.unregister(self.close)


_default: Runner | None = None
_default_lock = threading.Lock()


def default_runner() -> Runner:
    """The process-wide one-worker Runner of :func:`run` and the explorer."""
    global _default
    with _default_lock:
        if _default is None or _default._closed:
            _default = Runner(workers=1)
        return _default


def run(scenario: Scenario | dict | str | Path, *, timeout: float | None = None,
        in_process: bool = False) -> Results:
    """Simulate ``scenario`` (object, dict or TOML/JSON path) and return its Results.

    The simulation runs in a worker process, so a simulator abort raises
    :class:`~aqmlab.errors.SimulationCrashed` (with the simulator's message) instead of
    killing the caller. ``timeout`` (seconds of wall time) defaults to
    ``scenario.run.max_wall_time``. ``in_process=True`` simulates here (debugging; an
    abort then ends this process)."""
    sc = as_scenario(scenario)
    if in_process:
        return worker.simulate(sc)
    return default_runner().run(sc, timeout)
