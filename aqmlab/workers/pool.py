"""A pool of simulation worker processes with per-run crash and timeout isolation.

Workers import ns-3 once, JIT-compile aqmlab's C++, run a tiny warm-up simulation (which
pays the one-off JIT of ns-3 templates) and then run one simulation after another,
resetting ns-3's global state before each. Two ways to start them:

* ``start="fork"`` (default): one *zygote* process (a fresh interpreter, never a fork of
  the caller) warms up once; every worker is ``fork()``-ed from it, already warm. Starting
  N workers costs one warm-up instead of N, a worker that crashed or timed out is
  replaced in milliseconds, and the workers share the zygote's memory copy-on-write.
* ``start="spawn"``: every worker is a fresh interpreter that warms up by itself.

Workers (and the zygote) start with mimalloc preloaded (:mod:`aqmlab.workers.allocator`).

The parent talks to every worker over its own socket, so it always knows which run a
worker holds:

* a worker that dies (ns-3 ``NS_FATAL_ERROR``/``abort``, a signal) fails only its own
  run, reported as ``crashed`` with the tail of that run's stderr; a new worker replaces it;
* a run that overruns its wall-clock limit (counted from the moment the run started, not
  from submission, and never including a warm-up) is killed and reported as ``timeout``;
  the other workers are not touched;
* a Python exception in the worker fails the run as ``error``; the worker stays.

Unlike :class:`concurrent.futures.ProcessPoolExecutor`, a crash therefore never breaks the
runs in flight on other workers. Workers are plain subprocesses (not ``multiprocessing``
children), so the pool also works inside daemonic processes such as Dask workers. Workers
ignore SIGINT (the parent decides) and exit when the parent's socket closes; they stay in
the caller's process group, so killing the group kills them too.

cppyy's crash handler attaches gdb to print a stack trace before the process dies, which
takes seconds (long enough to turn a crash into a timeout on a loaded machine) and pushes
ns-3's own message out of the stderr tail. Workers therefore run in a folder whose
``.rootrc`` says ``Root.Stacktrace: no``; ``WorkerPool(stacktrace=True)`` keeps the traces.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.reduction import recvfds, sendfds
from pathlib import Path
from typing import Any

from aqmlab.errors import SimulationError
from aqmlab.scenario import Bulk, Dumbbell, RunControl, Scenario
from aqmlab.workers import allocator, worker

STDERR_TAIL = 4000
_NS3_MSG = re.compile(r'msg="([^"]*)"')
#: Consecutive workers (or zygotes) that may die before being ready, before giving up.
MAX_START_FAILURES = 3
START_METHODS = ("fork", "spawn")


class WorkerStartError(SimulationError):
    """Worker processes cannot start (ns-3 import or aqmlab's C++ failed)."""


@dataclass
class Outcome:
    """What became of one submitted run."""

    job_id: Any
    status: str  # "ok" | "crashed" | "timeout" | "error"
    results: Any = None  # Results when status == "ok"
    error: str = ""
    stderr: str = ""
    wall_s: float = float("nan")  # wall time in the worker, from receipt to reply
    pid: int | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def reason(self) -> str:
        """The error, plus the simulator's own message (ns-3's NS_FATAL_ERROR / NS_ASSERT
        ``msg="..."``) when its stderr has one."""
        m = _NS3_MSG.search(self.stderr or "")
        return f"{self.error}; ns-3: {m.group(1)}" if m else self.error


@dataclass
class _Job:
    job_id: Any
    scenario: dict
    timeout: float | None


@dataclass
class _Worker:
    pid: int
    conn: Connection
    proc: subprocess.Popen | None = None  # None: forked by the zygote
    ready: bool = False
    job: _Job | None = None
    started: float = 0.0
    stderr_path: Path | None = None


LOGDIR_PREFIX = "aqmlab-pool-"
STALE_LOGDIR_S = 600.0


def remove_stale_logdirs(tmp: str | os.PathLike | None = None) -> int:
    """Remove the temporary folders (``aqmlab-pool-<pid>-*``) of pools whose process is gone:
    a pool removes its own on close or exit, but not when its process was killed. Only
    folders untouched for ``STALE_LOGDIR_S`` go (a pid of another pid namespace looks dead).
    Returns how many were removed."""
    n = 0
    old = time.time() - STALE_LOGDIR_S
    for d in Path(tmp or tempfile.gettempdir()).glob(f"{LOGDIR_PREFIX}*-*"):
        pid = d.name[len(LOGDIR_PREFIX):].split("-", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid() or pid_alive(int(pid)):
            continue
        try:
            if d.stat().st_mtime > old:
                continue
        except OSError:
            continue
        shutil.rmtree(d, ignore_errors=True)
        n += not d.exists()
    return n


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists on this host (one owned by another user counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def tail(path: Path | None, n: int = STDERR_TAIL) -> str:
    """The last ``n`` bytes of a file as text ("" if it does not exist)."""
    if path is None:
        return ""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - n))
            return f.read().decode(errors="replace")
    except OSError:
        return ""


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "the worker process died"
    if code < 0:
        try:
            return f"the worker process died (signal {signal.Signals(-code).name})"
        except ValueError:
            return f"the worker process died (signal {-code})"
    return f"the worker process died (exit {code})"


class WorkerPool:
    """``workers`` simulation processes fed from one FIFO queue of runs.

    Drive it with :meth:`submit` and :meth:`poll` (from one thread); :meth:`close` kills
    the workers. ``warm`` runs a tiny simulation before a worker takes work, so that the
    one-off JIT of ns-3 templates (~3 s) is not charged to a real run. ``env`` adds
    environment variables for the workers.
    """

    def __init__(self, workers: int | None = None, *, start: str = "fork", warm: bool = True,
                 env: dict[str, str] | None = None, stacktrace: bool = False) -> None:
        if start not in START_METHODS:
            raise ValueError(f"start = {start!r}: must be one of {START_METHODS}")
        self.size = max(1, int(workers or os.cpu_count() or 1))
        self.start = start
        self.warm = warm
        self.env = env
        # mimalloc unless AQMLAB_ALLOCATOR says not; a bad value fails here, before any process
        self._preload = allocator.preload_env({**os.environ, **(env or {})})
        remove_stale_logdirs()
        self.logdir = Path(tempfile.mkdtemp(prefix=f"{LOGDIR_PREFIX}{os.getpid()}-"))
        if not stacktrace:  # read by cppyy's backend from the working directory
            (self.logdir / ".rootrc").write_text("Root.Stacktrace: no\n")
        self._queue: deque[_Job] = deque()
        self._workers: list[_Worker] = []
        self._zygote: subprocess.Popen | None = None
        self._zconn: Connection | None = None
        self._forks_pending = 0
        self._exit_codes: dict[int, int] = {}
        self._start_failures = 0
        self._runs = 0
        self._closed = False
        atexit.register(self.close)

    # -- public ------------------------------------------------------------------------------

    @property
    def pending(self) -> int:
        """Runs submitted and not yet reported by :meth:`poll`."""
        return len(self._queue) + sum(w.job is not None for w in self._workers)

    @property
    def pids(self) -> list[int]:
        """Process ids of the workers (and of the zygote, first, if any)."""
        z = [self._zygote.pid] if self._zygote is not None else []
        return z + [w.pid for w in self._workers]

    def submit(self, job_id: Any, scenario: dict, timeout: float | None = None) -> None:
        """Queue one run (``scenario`` in ``Scenario.to_dict`` form); FIFO order."""
        if self._closed:
            raise RuntimeError("the pool is closed")
        self._queue.append(_Job(job_id, scenario, timeout))

    def poll(self, timeout: float | None = None) -> list[Outcome]:
        """Start workers, hand out runs, and wait up to ``timeout`` s for any to finish.

        Returns the outcomes that arrived (possibly none). Raises WorkerStartError when
        workers keep dying before they are ready.
        """
        out: list[Outcome] = []
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            self._fill()
            self._dispatch()
            if out or not self.pending:
                return out
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                return out
            wait_s = None if deadline is None else deadline - now
            for w in self._workers:
                if w.job is not None and w.job.timeout is not None:
                    left = max(0.0, w.started + w.job.timeout - now)
                    wait_s = left if wait_s is None else min(wait_s, left)
            conns = [w.conn for w in self._workers]
            if self._zconn is not None:
                conns.append(self._zconn)
            for conn in wait(conns, wait_s):
                if conn is self._zconn:
                    # ready when wait() returned, but a dead worker's _exit_code may have
                    # read the zygote's message since: recv() would then block for ever
                    if self._zconn.poll(0):
                        self._from_zygote()
                    continue
                w = next((x for x in self._workers if x.conn is conn), None)
                if w is not None:
                    out.extend(self._receive(w))
            out.extend(self._expire())

    def close(self) -> None:
        """Kill every worker (and the zygote) and drop queued runs."""
        if self._closed:
            return
        self._closed = True
        for w in self._workers:
            self._kill(w)
        self._workers.clear()
        if self._zconn is not None:
            self._zconn.close()  # the zygote sees EOF, kills and reaps its workers, exits
            self._zconn = None
        if self._zygote is not None:
            try:
                self._zygote.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._zygote.kill()
                self._zygote.wait()
            self._zygote = None
        self._queue.clear()
        shutil.rmtree(self.logdir, ignore_errors=True)
        atexit.unregister(self.close)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- starting workers --------------------------------------------------------------------

    def _fill(self) -> None:
        """Keep as many workers (started or starting) as there is work for, up to ``size``."""
        if not self._queue:
            return
        want = min(self.size, self.pending)
        while len(self._workers) + self._forks_pending < want:
            if self.start == "fork":
                self._request_fork()
            else:
                self._workers.append(self._spawn())

    def _popen(self, role: str) -> tuple[subprocess.Popen, Connection]:
        parent, child = socket.socketpair()
        env = {**os.environ, **(self.env or {}), **self._preload}
        log = self.logdir / f"{role}.log"
        # a small, fixed cwd (holding the .rootrc): nothing may depend on the caller's cwd
        with open(log, "ab") as logf:
            proc = subprocess.Popen(
                [sys.executable, "-m", "aqmlab.workers.pool", role, str(child.fileno()),
                 "1" if self.warm else "0"],
                pass_fds=(child.fileno(),), stdin=subprocess.DEVNULL, stdout=logf,
                stderr=logf, env=env, cwd=self.logdir)
        child.close()
        return proc, Connection(parent.detach())

    def _spawn(self) -> _Worker:
        proc, conn = self._popen("worker")
        return _Worker(pid=proc.pid, conn=conn, proc=proc)

    def _request_fork(self) -> None:
        if self._zygote is None:
            self._zygote, self._zconn = self._popen("zygote")
        self._forks_pending += 1
        try:
            self._zconn.send(("fork",))
        except OSError:
            pass  # the zygote died: _from_zygote sees EOF and starts another

    def _from_zygote(self) -> None:
        zconn = self._zconn
        try:
            msg = zconn.recv()
            if msg[0] == "forked":
                with socket.socket(fileno=os.dup(zconn.fileno())) as s:
                    fd = recvfds(s, 1)[0]
        except (EOFError, OSError, RuntimeError):
            self._zygote_died()
            return
        kind = msg[0]
        if kind == "ready":
            self._start_failures = 0
        elif kind == "forked":
            self._forks_pending -= 1
            self._workers.append(_Worker(pid=msg[1], conn=Connection(fd)))
        elif kind == "exit":
            self._exit_codes[msg[1]] = msg[2]
        elif kind == "fatal":
            raise WorkerStartError(f"ns-3 could not be loaded:\n{msg[1]}")

    def _zygote_died(self) -> None:
        proc, self._zygote = self._zygote, None
        if self._zconn is not None:
            self._zconn.close()
        self._zconn = None
        code = proc.wait() if proc is not None else None
        self._start_failures += 1
        if self._start_failures >= MAX_START_FAILURES:
            raise WorkerStartError(
                f"the process that forks workers died {self._start_failures} times "
                f"({_describe_exit(code)}); log:\n{tail(self.logdir / 'zygote.log')}")
        self._forks_pending = 0  # _fill asks a new zygote

    # -- running -----------------------------------------------------------------------------

    def _dispatch(self) -> None:
        for w in self._workers:
            if w.ready and w.job is None and self._queue:
                job = self._queue.popleft()
                self._runs += 1
                w.job, w.started = job, time.monotonic()
                w.stderr_path = self.logdir / f"run-{self._runs}.stderr"
                try:
                    w.conn.send((job.job_id, job.scenario, str(w.stderr_path)))
                except OSError:
                    pass  # the worker died: _receive sees EOF and reports the run

    def _receive(self, w: _Worker) -> list[Outcome]:
        try:
            msg = w.conn.recv()
        except (EOFError, OSError):
            return self._died(w)
        except Exception as err:  # noqa: BLE001 - an unpicklable reply
            msg = ("error", None, f"could not receive the result: {type(err).__name__}: {err}",
                   "", float("nan"))
        kind = msg[0]
        if kind == "ready":
            w.ready = True
            self._start_failures = 0
            return []
        if kind == "fatal":
            self._remove(w)
            raise WorkerStartError(f"a worker could not start:\n{msg[1]}")
        job, w.job = w.job, None
        if job is None:  # pragma: no cover - protocol error
            return []
        stderr = tail(w.stderr_path)
        self._unlink(w.stderr_path)
        if kind == "ok":
            return [Outcome(job.job_id, "ok", results=msg[2], wall_s=msg[3], pid=w.pid,
                            stderr=stderr)]
        return [Outcome(job.job_id, "error", error=msg[2],
                        stderr=(stderr + msg[3])[-STDERR_TAIL:], wall_s=msg[4], pid=w.pid)]

    def _exit_code(self, w: _Worker) -> int | None:
        if w.proc is not None:
            try:
                return w.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                w.proc.kill()
                return w.proc.wait()
        end = time.monotonic() + 2.0  # forked: the zygote reaps it and reports the code
        while w.pid not in self._exit_codes and self._zconn is not None \
                and time.monotonic() < end:
            if self._zconn.poll(0.05):
                self._from_zygote()
        return self._exit_codes.pop(w.pid, None)

    def _died(self, w: _Worker) -> list[Outcome]:
        self._remove(w)
        code = self._exit_code(w)
        if w.job is None:
            if not w.ready:
                self._start_failures += 1
                if self._start_failures >= MAX_START_FAILURES:
                    raise WorkerStartError(
                        f"{self._start_failures} workers in a row died while starting "
                        f"({_describe_exit(code)}); log:\n{tail(self.logdir / 'worker.log')}")
            return []
        stderr = tail(w.stderr_path)
        self._unlink(w.stderr_path)
        return [Outcome(w.job.job_id, "crashed", error=_describe_exit(code), stderr=stderr,
                        wall_s=time.monotonic() - w.started, pid=w.pid)]

    def _expire(self) -> list[Outcome]:
        out = []
        now = time.monotonic()
        for w in list(self._workers):
            job = w.job
            if job is None or job.timeout is None or now < w.started + job.timeout:
                continue
            self._kill(w)
            self._remove(w)
            stderr = tail(w.stderr_path)
            self._unlink(w.stderr_path)
            out.append(Outcome(job.job_id, "timeout",
                               error=f"exceeded the wall-clock limit of {job.timeout:g} s",
                               stderr=stderr, wall_s=now - w.started, pid=w.pid))
        return out

    def _remove(self, w: _Worker) -> None:
        if w in self._workers:
            self._workers.remove(w)
        try:
            w.conn.close()
        except OSError:
            pass

    def _kill(self, w: _Worker) -> None:
        try:
            os.kill(w.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        if w.proc is not None:
            w.proc.wait()
        try:
            w.conn.close()
        except OSError:
            pass

    @staticmethod
    def _unlink(path: Path | None) -> None:
        if path is not None:
            try:
                path.unlink()
            except OSError:
                pass


# -- the worker and zygote processes ---------------------------------------------------------


def _warm_scenario() -> dict:
    return Scenario(name="warm-up", topology=Dumbbell(senders=1), traffic=[Bulk(flows=1)],
                    run=RunControl(duration="0.2s")).to_dict()


def _warm_up(conn: Connection, warm: bool) -> bool:
    try:
        worker.warm_up()
        if warm:
            worker.task(_warm_scenario(), None)
    except Exception:  # noqa: BLE001 - report anything, then exit
        conn.send(("fatal", traceback.format_exc()))
        return False
    return True


def _serve(conn: Connection) -> int:
    """The worker loop: receive a run, simulate it, send its Results (or the error)."""
    conn.send(("ready", os.getpid()))
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return 0
        if msg is None:
            return 0
        job_id, scenario, stderr_path = msg
        t0 = time.perf_counter()
        try:
            res = worker.task(scenario, stderr_path)
            reply = ("ok", job_id, res, time.perf_counter() - t0)
        except Exception as err:  # noqa: BLE001 - the run failed, the worker lives on
            reply = ("error", job_id, f"{type(err).__name__}: {err}", traceback.format_exc(),
                     time.perf_counter() - t0)
        try:
            conn.send(reply)
        except (OSError, EOFError):
            return 0


def _worker_main(fd: int, warm: bool) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    conn = Connection(fd)
    if not _warm_up(conn, warm):
        return 1
    return _serve(conn)


def _zygote_main(fd: int, warm: bool) -> int:
    """Warm up once, then fork a warm worker per request and report its exit status."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    conn = Connection(fd)
    if not _warm_up(conn, warm):
        return 1
    conn.send(("ready", os.getpid()))
    children: set[int] = set()
    while True:
        while children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            children.discard(pid)
            conn.send(("exit", pid, os.waitstatus_to_exitcode(status)))
        try:
            if not conn.poll(0.1):
                continue
            msg = conn.recv()
        except (EOFError, OSError):
            break  # the pool is gone: so are we (the workers notice on their own sockets)
        if msg[0] != "fork":
            continue
        mine, theirs = socket.socketpair()
        pid = os.fork()
        if pid == 0:  # the new worker: warm already
            code = 1
            try:
                conn.close()
                mine.close()
                code = _serve(Connection(theirs.detach()))
            finally:
                os._exit(code)
        theirs.close()
        children.add(pid)
        conn.send(("forked", pid))
        with socket.socket(fileno=os.dup(conn.fileno())) as s:
            sendfds(s, [mine.fileno()])
        mine.close()
    for pid in children:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for pid in children:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
    return 0


if __name__ == "__main__":
    role, fd_arg, warm_arg = sys.argv[1:4]
    main = _zygote_main if role == "zygote" else _worker_main
    sys.exit(main(int(fd_arg), warm_arg == "1"))
