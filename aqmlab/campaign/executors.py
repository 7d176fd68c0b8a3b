"""Where a sweep's runs execute: local worker processes, or a Dask cluster.

Both executors take the runs in the order given (the sweep sorts them longest-first) and
yield one :class:`~aqmlab.workers.pool.Outcome` per run as runs finish, never raising for a
run that crashed or timed out: the outcome says so. Results travel back to the calling
process, which alone writes the store.

The runs are taken from the iterable lazily, only when a worker is free (``lazy_jobs``):
the sweep claims each run just before it starts, so that concurrent sweeps share the work
(:mod:`aqmlab.campaign.claims`). The iterable may yield None for "nothing to start now":
the executor waits a heartbeat (yielding None) and asks again.

* :class:`LocalExecutor` wraps a :class:`~aqmlab.workers.pool.WorkerPool`: fresh worker
  processes that import ns-3 once and run many simulations with a full reset. It can be
  kept open and reused by several sweeps (warm workers).
* :class:`DaskExecutor` submits every run to a ``distributed`` scheduler. Each Dask worker
  runs simulations in a one-process ``WorkerPool`` of its own, so an ns-3 abort or a
  timeout kills that child, not the Dask worker: the run comes back as ``crashed`` or
  ``timeout`` with its stderr tail, and the worker goes on. If a Dask worker dies anyway
  (``KilledWorker``, lost connection), the run is recorded as ``crashed``.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from aqmlab.scenario import Scenario
from aqmlab.workers.pool import Outcome, WorkerPool

__all__ = ["DaskExecutor", "Job", "LocalExecutor", "dask_task"]


@dataclass
class Job:
    """One run to execute: its key, scenario, wall-clock limit and expected cost."""

    key: str
    scenario: Scenario
    timeout: float | None = None
    cost: float = 0.0


class LocalExecutor:
    """``workers`` local processes (all cores by default); reusable until :meth:`close`.

    ``start="fork"`` forks the workers from one warm process, ``"spawn"`` starts each as a
    fresh interpreter (see :mod:`aqmlab.workers.pool`)."""

    def __init__(self, workers: int | None = None, *, start: str = "fork", warm: bool = True,
                 env: dict[str, str] | None = None) -> None:
        self.workers = workers
        self.start = start
        self.warm = warm
        self.env = env
        self._pool: WorkerPool | None = None

    def __repr__(self) -> str:
        return f"LocalExecutor(workers={self.workers})"

    @property
    def pool(self) -> WorkerPool:
        if self._pool is None:
            self._pool = WorkerPool(self.workers, start=self.start, warm=self.warm,
                                    env=self.env)
        return self._pool

    lazy_jobs = True

    def run(self, jobs: Iterable[Job | None], heartbeat: float = 1.0
            ) -> Iterator[Outcome | None]:
        """Yield each job's Outcome as it finishes (and None every ``heartbeat`` s). Jobs are
        taken from ``jobs`` only when a worker is free; a None from it means "none yet"."""
        feed = _Feed(jobs)
        done = False
        try:
            while True:
                waiting = feed.fill(
                    lambda: self._pool is None or self._pool.pending < self._pool.size,
                    lambda job: self.pool.submit(job.key, job.scenario.to_dict(), job.timeout))
                pool = self._pool
                if pool is None or not pool.pending:
                    if feed.exhausted:
                        break
                    if waiting:
                        time.sleep(heartbeat)
                    yield None
                    continue
                outcomes = pool.poll(heartbeat)
                yield from outcomes
                if not outcomes:
                    yield None
            done = True
        finally:
            if not done:  # interrupted or failed: runs in flight are abandoned
                self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def __enter__(self) -> LocalExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class DaskExecutor:
    """Runs on a ``distributed`` cluster: ``scheduler`` is an address or a ``Client``."""

    def __init__(self, scheduler: Any) -> None:
        self.scheduler = scheduler
        self._client: Any = None
        self._own = False

    def __repr__(self) -> str:
        return f"DaskExecutor({self.scheduler!r})"

    @property
    def client(self) -> Any:
        if self._client is None:
            from distributed import Client  # noqa: PLC0415  (an optional extra: only with a scheduler)

            if isinstance(self.scheduler, Client):
                self._client = self.scheduler
            else:
                self._client = Client(self.scheduler, set_as_default=False)
                self._own = True
        return self._client

    lazy_jobs = True

    def run(self, jobs: Iterable[Job | None], heartbeat: float = 1.0
            ) -> Iterator[Outcome | None]:
        """Submit jobs (earlier jobs get higher priority) while the cluster has free
        threads; yield outcomes as they come. A None from ``jobs`` means "none yet"."""
        feed = _Feed(jobs)
        client = None
        remaining: dict[Any, Job] = {}
        rank, cap = 0, 1
        done = False

        def submit(job: Job) -> None:
            nonlocal client, cap, rank
            if client is None:
                client = self.client
                cap = _threads(client)
            rank += 1
            fut = client.submit(dask_task, job.key, job.scenario.to_dict(), job.timeout,
                                pure=False, retries=0, priority=-rank,
                                key=f"aqmlab-{job.key}-{uuid.uuid4().hex[:8]}")
            remaining[fut] = job

        def room() -> bool:
            return client is None or len(remaining) < cap

        try:
            last = time.monotonic()
            while True:
                waiting = feed.fill(room, submit)
                if not remaining and feed.exhausted:
                    break
                finished = [f for f in remaining if f.done()]
                for fut in finished:
                    yield _outcome(fut, remaining.pop(fut))
                    last = time.monotonic()
                if finished:
                    cap = _threads(client)  # workers may have joined or left
                else:
                    if time.monotonic() - last >= heartbeat:
                        yield None
                        last = time.monotonic()
                        if client is not None:
                            cap = _threads(client)
                    time.sleep(heartbeat if waiting and not remaining else 0.05)
            done = True
        finally:
            if not done and client is not None:
                client.cancel(list(remaining))

    def close(self) -> None:
        if self._client is not None and self._own:
            self._client.close()
        self._client = None

    def __enter__(self) -> DaskExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_END = object()


class _Feed:
    """The jobs iterable, taken lazily: only while there is room for another run."""

    def __init__(self, jobs: Iterable[Job | None]) -> None:
        self._jobs = iter(jobs)
        self.exhausted = False

    def fill(self, room: Callable[[], bool], submit: Callable[[Job], None]) -> bool:
        """Submit jobs while ``room()``; True if the iterable said "none yet" (a None)."""
        while not self.exhausted and room():
            job = next(self._jobs, _END)
            if job is _END:
                self.exhausted = True
            elif job is None:
                return True
            else:
                submit(job)
        return False


def _threads(client: Any) -> int:
    """Runs the cluster can start now: its worker threads (at least 1)."""
    try:
        return max(1, sum(client.nthreads().values()))
    except Exception:  # noqa: BLE001 - a scheduler without workers yet, a lost connection
        return 1


def _outcome(fut: Any, job: Job) -> Outcome:
    try:
        out = fut.result()
    except BaseException as err:  # noqa: BLE001 - KilledWorker, CancelledError, comm errors
        if isinstance(err, (KeyboardInterrupt, SystemExit)):
            raise
        name = type(err).__name__
        return Outcome(job.key, "crashed",
                       error=f"the Dask worker running this run failed ({name}: {err})")
    out.job_id = job.key
    return out


# -- inside a Dask worker --------------------------------------------------------------------

_local = threading.local()


def dask_task(key: str, scenario: dict, timeout: float | None) -> Outcome:
    """Run one simulation in this Dask worker's own child process; return its Outcome.

    Each worker thread keeps one warm child process for all its runs; a crash or timeout
    replaces the child, never the Dask worker.
    """
    pool = getattr(_local, "pool", None)
    if pool is None:
        pool = _local.pool = WorkerPool(1)
    pool.submit(key, scenario, timeout)
    while True:
        outcomes = pool.poll(None)
        if outcomes:
            return outcomes[0]
