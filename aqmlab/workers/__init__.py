"""Where simulations execute: worker processes with per-run crash and timeout isolation.

:class:`~aqmlab.workers.pool.WorkerPool` (processes forked from one warm zygote, on
mimalloc: :mod:`~aqmlab.workers.allocator`) is the one execution path; :func:`run` and
:class:`Runner` drive it for single runs, :mod:`aqmlab.campaign` for sweeps.
"""

from __future__ import annotations

from aqmlab.workers.pool import Outcome, WorkerPool, WorkerStartError
from aqmlab.workers.runner import Runner, as_scenario, default_runner, run

__all__ = ["Outcome", "Runner", "WorkerPool", "WorkerStartError", "as_scenario",
           "default_runner", "run"]
