"""Run ``ns script.tcl`` in a subprocess: crash- and timeout-isolated, CPU time measured.

The process gets its own session, so a timeout kills ns and nothing else. Its resource
usage comes from ``os.wait4`` on that one child (user + system CPU of the whole ns
process, Tcl set-up included), not from the caller's other children.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from aqmlab.errors import SimulationCrashed, SimulationTimeout

STDERR_TAIL = 4000
ENV_BINARY = "AQMLAB_NS2"
DEFAULT_BINARY = "/usr/bin/ns"


def binary() -> str:
    """The ns-2 binary: ``$AQMLAB_NS2``, else /usr/bin/ns, else ``ns`` on the PATH."""
    env = os.environ.get(ENV_BINARY)
    if env:
        return env
    if os.access(DEFAULT_BINARY, os.X_OK):
        return DEFAULT_BINARY
    return shutil.which("ns") or DEFAULT_BINARY


@dataclass
class Finished:
    """A completed ns process: exit code, CPU seconds (user + system), wall seconds."""

    returncode: int
    cpu_s: float
    wall_s: float


def _tail(path: Path, n: int = STDERR_TAIL) -> str:
    try:
        return path.read_bytes()[-n:].decode(errors="replace")
    except OSError:
        return ""


def run_ns(script: Path, workdir: Path, timeout: float | None = None) -> Finished:
    """Run ns on ``script`` in ``workdir``; raise SimulationCrashed (non-zero exit, signal)
    or SimulationTimeout (``timeout`` seconds of wall time) with the stderr tail."""
    out, err = workdir / "ns.stdout", workdir / "ns.stderr"
    t0 = time.perf_counter()
    with open(out, "wb") as fo, open(err, "wb") as fe:
        try:
            proc = subprocess.Popen([binary(), script.name], cwd=workdir, stdout=fo,
                                    stderr=fe, stdin=subprocess.DEVNULL,
                                    start_new_session=True)
        except OSError as exc:
            raise SimulationCrashed(f"cannot start ns-2 ({binary()}): {exc}") from exc
    status, usage = _wait(proc, timeout, t0)
    wall = time.perf_counter() - t0
    if status is None:
        raise SimulationTimeout(
            f"ns-2 exceeded {timeout} s of wall time; script kept at {script}\n"
            f"--- stderr tail ---\n{_tail(err)}")
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SimulationCrashed(
            f"ns-2 exited with {code}; script kept at {script}\n"
            f"--- stderr tail ---\n{_tail(err)}\n--- stdout tail ---\n{_tail(out, 1000)}")
    return Finished(code, usage.ru_utime + usage.ru_stime, wall)


def _wait(proc: subprocess.Popen, timeout: float | None, t0: float):
    """(wait status, rusage) of the child, or (None, rusage) after killing it on timeout."""
    pause = 0.005
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return status, usage
        if timeout is not None and time.perf_counter() - t0 > timeout:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            return None, usage
        time.sleep(pause)
        pause = min(pause * 2, 0.1)


@lru_cache(maxsize=4)
def _version(path: str) -> str:
    with tempfile.TemporaryDirectory(prefix="aqmlab-ns2-") as d:
        script = Path(d) / "v.tcl"
        script.write_text("puts [ns-version]\nexit 0\n")
        out = subprocess.run([path, script.name], cwd=d, capture_output=True, text=True,
                             timeout=60, check=True)
    return f"ns-{out.stdout.strip().splitlines()[-1]}"


def version() -> str:
    """``ns-<version>`` of the binary (asked once per binary path)."""
    return _version(binary())


def available() -> bool:
    """Whether the ns-2 binary exists and runs a script."""
    try:
        version()
    except (OSError, subprocess.SubprocessError, IndexError):
        return False
    return True
