"""Execute one study notebook with papermill, and plan the runs of studies.

:func:`run_notebook` executes one notebook of ``notebooks/`` with its parameters into an
output folder and raises :class:`NotebookError` naming the failing cell and the error;
:func:`plan` lists the sweeps studies would run; :func:`check_params` refuses parameters a
notebook does not declare. :mod:`aqmlab.figures` runs them all (``aqmlab figures``).

Kernels: the notebooks run on the kernel named ``python3`` of *this* interpreter
(jupyter_client replaces the spec's ``python`` with ``sys.executable``), so the venv that
runs ``aqmlab figures`` is the one that executes them. The kernel talks to papermill over
IPC (Unix sockets in a private temporary folder, removed afterwards) instead of TCP
on localhost: nothing crosses the network, and ipykernel no longer warns, once per
notebook, that it is "running over TCP without encryption".
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import papermill as pm
from jupyter_client.manager import AsyncKernelManager
from traitlets import default

from aqmlab.errors import AqmlabError
from aqmlab.studies import STUDIES, common, load_study

__all__ = ["NOTEBOOKS", "FIXED_PARAMS", "NotebookError", "check_params", "notebook_path", "plan",
           "run_notebook"]

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
    class IpcKernelManager(AsyncKernelManager):
        @default("transport")
        def _default_transport(self) -> str:
            return "ipc"

        @default("ip")
        def _default_ip(self) -> str:
            return str(Path(folder).resolve() / "kernel")

    return IpcKernelManager


def plan(studies: Iterable[str], profile: str, store: str | Path = "data",
         params: Mapping[str, Any] | None = None) -> list[Any]:
    """The sweeps (campaign ``Sweep`` specs) every study of ``studies`` would run, with the
    profile's parameters overridden by ``params`` (e.g. ``{"seeds": [1]}``): on ns-3, and
    on ns-2.35 for the arms it can run unless ``params["reference"]`` is false (the
    notebooks' second verdict)."""
    params = dict(params or {})
    reference = params.pop("reference", True)
    ctx = common.context(store=store, plan_only=True, progress=False)
    for name in studies:
        mod = load_study(name)
        p = mod.profile(profile, **params)
        mod.run(p, ctx)
        if reference and getattr(mod, "REFERENCE", True):
            mod.run(p, ctx.on_engine("ns2"))
    return ctx.specs


#: Parameters every run sets itself (:func:`run_notebook`); each notebook must declare them.
FIXED_PARAMS = ("profile", "out", "store", "workers", "scheduler", "stored_only")


def check_params(studies: Iterable[str], params: Mapping[str, Any]) -> None:
    """Refuse, before anything runs, a parameter (``params`` or one of FIXED_PARAMS) that a
    notebook of ``studies`` does not declare."""
    for name in studies:
        declared = set(pm.inspect_notebook(str(notebook_path(name))))
        unknown = sorted((set(params) | set(FIXED_PARAMS)) - declared)
        if unknown:
            raise NotebookError(f"{name}: unknown parameter(s) {unknown}; the notebook "
                                f"declares {sorted(declared)}")
