"""Execute the study notebooks with papermill (``make figures`` / ``aqmlab figures``).

:func:`run_notebook` executes one notebook of ``notebooks/`` with its parameters into an
output folder and raises :class:`NotebookError` naming the failing cell and the error.
:func:`regenerate` runs every study: it first plans the runs of all notebooks and executes
the missing ones through one executor, longest first (local workers or a Dask scheduler;
runs shared by several studies run once), then executes each notebook, which finds its runs
in the store, and writes the executed copy to ``<out>/<study>/<study>.ipynb`` beside its
figures and ``claims.csv``. With ``stored_only`` nothing is simulated: the notebooks draw
what the store already has (interim results of a campaign under way), and their claim
tables say how many runs were missing.

Kernels: the notebooks run on the kernel named ``python3`` of *this* interpreter
(jupyter_client replaces the spec's ``python`` with ``sys.executable``), so the venv that
runs ``aqmlab figures`` is the one that executes them. The kernel talks to papermill over
IPC (Unix sockets in a private temporary folder, removed afterwards) instead of TCP
on localhost: nothing crosses the network, and ipykernel no longer warns, once per
notebook, that it is "running over TCP without encryption".
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aqmlab.errors import AqmlabError
from aqmlab.studies import STUDIES, common, load_study

__all__ = ["NOTEBOOKS", "NotebookError", "run_notebook", "regenerate", "plan", "notebook_path"]

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
KERNEL = "python3"


class NotebookError(AqmlabError):
    """A notebook failed: names the notebook, the cell and the error."""


def notebook_path(name: str) -> Path:
    path = NOTEBOOKS / f"{name}.ipynb"
    if not path.exists():
        raise NotebookError(f"no notebook {path} (studies: {', '.join(STUDIES)})")
    return path


def run_notebook(name: str, profile: str = "quick", out: str | Path = "figures",
                 store: str | Path = "data", workers: int | None = None,
                 scheduler: str | None = None, log_output: bool = False,
                 stored_only: bool = False, **params: Any) -> Path:
    """Execute ``notebooks/<name>.ipynb`` with papermill into ``out/<name>/<name>.ipynb``.

    Parameters go to the notebook's ``parameters`` cell (``profile``, ``out``, ``store``,
    ``workers``, ``scheduler``, ``stored_only`` and any of its own, e.g. ``seeds``); unknown names are
    rejected before anything runs. A failing cell raises NotebookError with its number,
    the exception and the executed notebook's path (kept, for inspection)."""
    import papermill as pm  # noqa: PLC0415

    src = notebook_path(name)
    folder = Path(out).resolve() / name
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{name}.ipynb"
    check_params([name], params)
    values = {"profile": profile, "out": str(folder), "store": str(Path(store).resolve()),
              "workers": workers, "scheduler": scheduler, "stored_only": stored_only,
              **params}
    with (tempfile.TemporaryDirectory(prefix="aqmlab-nb-") as cwd,  # small (ns-3 loader)
          tempfile.TemporaryDirectory(prefix="aqmlab-ipc-") as sockets):
        try:
            pm.execute_notebook(str(src), str(target), parameters=values, kernel_name=KERNEL,
                                cwd=cwd, log_output=log_output, progress_bar=False,
                                report_mode=False,
                                kernel_manager_class=ipc_kernel_manager(Path(sockets)))
        except pm.PapermillExecutionError as err:
            raise NotebookError(
                f"{name}: cell {err.exec_count} (index {err.cell_index}) failed: "
                f"{err.ename}: {err.evalue} (executed notebook: {target})") from None
    return target


def ipc_kernel_manager(folder: Path) -> type:
    """nbclient's kernel manager with the IPC transport, its sockets in ``folder`` (an
    absolute path: kernel and client run in different folders; see the module docstring)."""
    from jupyter_client.manager import AsyncKernelManager  # noqa: PLC0415
    from traitlets import default  # noqa: PLC0415

    class IpcKernelManager(AsyncKernelManager):
        @default("transport")
        def _default_transport(self) -> str:
            return "ipc"

        @default("ip")
        def _default_ip(self) -> str:
            return str(Path(folder).resolve() / "kernel")

    return IpcKernelManager


@dataclass
class Report:
    """What :func:`regenerate` did: per study the executed notebook, wall time, claim
    counts or the error."""

    profile: str
    params: dict[str, Any] = field(default_factory=dict)
    rows: list[dict[str, Any]] = field(default_factory=list)
    runs: dict[str, int] = field(default_factory=dict)
    wall_s: float = 0.0

    @property
    def failed(self) -> list[dict[str, Any]]:
        return [r for r in self.rows if r.get("error")]

    def text(self) -> str:
        given = f" with {self.params}" if self.params else ""
        lines = [f"profile {self.profile}{given}: runs {self.runs}"]
        for r in self.rows:
            if r.get("error"):
                lines.append(f"  {r['study']:22s} FAILED after {r['wall_s']:.0f} s: {r['error']}")
            else:
                c = r.get("claims", {})
                lines.append(f"  {r['study']:22s} {r['wall_s']:6.0f} s  claims {c.get('claims', 0)}:"
                             f" {c.get('yes', 0)} yes, {c.get('no', 0)} no, "
                             f"{c.get('not tested', 0)} not tested, {c.get('no data', 0)} no data"
                             + (f" ({c['interim']})" if c.get("interim") else ""))
        lines.append(f"total {self.wall_s:.0f} s")
        return "\n".join(lines)


def plan(studies: Iterable[str], profile: str, store: str | Path = "data",
         params: Mapping[str, Any] | None = None) -> list[Any]:
    """The sweeps (campaign ``Sweep`` specs) every study of ``studies`` would run, with the
    profile's parameters overridden by ``params`` (e.g. ``{"seeds": [1]}``)."""
    ctx = common.context(store=store, plan_only=True, progress=False)
    for name in studies:
        mod = load_study(name)
        mod.run(mod.profile(profile, **(params or {})), ctx)
    return ctx.specs


#: Parameters every run sets itself (:func:`run_notebook`); each notebook must declare them.
FIXED_PARAMS = ("profile", "out", "store", "workers", "scheduler", "stored_only")


def check_params(studies: Iterable[str], params: Mapping[str, Any]) -> None:
    """Refuse, before anything runs, a parameter (``params`` or one of FIXED_PARAMS) that a
    notebook of ``studies`` does not declare."""
    import papermill as pm  # noqa: PLC0415

    for name in studies:
        declared = set(pm.inspect_notebook(str(notebook_path(name))))
        unknown = sorted((set(params) | set(FIXED_PARAMS)) - declared)
        if unknown:
            raise NotebookError(f"{name}: unknown parameter(s) {unknown}; the notebook "
                                f"declares {sorted(declared)}")


def regenerate(profile: str = "quick", out: str | Path = "figures", store: str | Path = "data",
               workers: int | None = None, scheduler: str | None = None,
               only: Sequence[str] | None = None, prefetch: bool = True,
               log_output: bool = False, params: Mapping[str, Any] | None = None,
               stored_only: bool = False) -> Report:
    """Run every study notebook (or ``only`` these) in ``profile`` into ``out``.

    ``params`` override notebook parameters in every selected study, e.g. ``{"seeds": [1]}``
    for one replication of the full profile's grids; each must be declared by every
    selected notebook (checked before anything runs).

    With ``prefetch`` the runs of all selected studies execute first through one executor
    (longest first); the notebooks then read them from the store. A failing notebook is
    reported (cell and error) and the others still run; the report is written to
    ``out/report.json``. ``stored_only``: simulate nothing; the notebooks use the stored
    runs and the report counts the missing ones."""

    t0 = time.perf_counter()
    modules = {v: k for k, v in STUDIES.items()}
    names = [modules.get(n, n) for n in only] if only else list(STUDIES)
    for n in names:
        if n not in STUDIES:
            raise NotebookError(f"unknown study {n!r}; studies: {', '.join(STUDIES)}")
    params = dict(params or {})
    check_params(names, params)
    report = Report(profile, params=params)
    if stored_only:
        from aqmlab.figures import estimate  # noqa: PLC0415

        rows = estimate(profile, names, store, params)
        report.runs = {"total": sum(r["new"] for r in rows),
                       "stored": sum(r["stored"] for r in rows),
                       "missing": sum(r["missing"] for r in rows),
                       "missing_cpu_hours": round(sum(r["cpu_hours"] for r in rows), 2)}
        print(f"stored only: runs {report.runs}", file=sys.stderr, flush=True)
    elif prefetch:
        specs = plan(names, profile, store, params)
        with common.context(store=store, workers=workers, scheduler=scheduler) as ctx:
            print(f"{len(names)} studies, profile {profile}: running what the store lacks",
                  file=sys.stderr, flush=True)
            report.runs = common.prefetch(ctx, specs)
        print(f"runs: {report.runs}", file=sys.stderr, flush=True)
    for name in names:
        t1 = time.perf_counter()
        row: dict[str, Any] = {"study": name}
        try:
            path = run_notebook(name, profile, out, store, workers, scheduler,
                                log_output=log_output, stored_only=stored_only, **params)
            row["notebook"] = str(path)
            counts = path.parent / "claims.json"  # written with claims.csv (ClaimTable.save)
            if counts.exists():
                row["claims"] = {k: v for k, v in json.loads(counts.read_text()).items()
                                 if k != "study"}
        except Exception as err:  # noqa: BLE001 - report and go on with the next notebook
            row["error"] = str(err)
        row["wall_s"] = time.perf_counter() - t1
        report.rows.append(row)
        status = "FAILED: " + row["error"] if "error" in row else "ok"
        print(f"{name}: {row['wall_s']:.0f} s, {status}", file=sys.stderr, flush=True)
    report.wall_s = time.perf_counter() - t0
    Path(out).mkdir(parents=True, exist_ok=True)
    (Path(out) / "report.json").write_text(json.dumps(
        {"profile": profile, "params": params, "stored_only": stored_only,
         "runs": report.runs, "wall_s": report.wall_s, "studies": report.rows},
        indent=2) + "\n")
    return report
