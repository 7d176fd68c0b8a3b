"""notebooks/congestion_control_lab.ipynb runs top to bottom (papermill, quick profile)."""

from __future__ import annotations

import shutil
import time

import pytest

from tests.conftest import ROOT

pytestmark = [pytest.mark.ns3, pytest.mark.slow]

NOTEBOOK = ROOT / "notebooks" / "congestion_control_lab.ipynb"


def test_lab_notebook_runs_top_to_bottom(tmp_path):
    """Every code cell runs, in order, without raising (papermill stops at the first that
    does: the test names it) and without printing a traceback (an exception papermill does
    not see, e.g. in a widget callback or a thread, is printed to stderr); the figures and
    the five explorers are there."""
    papermill = pytest.importorskip("papermill")
    nbformat = pytest.importorskip("nbformat")
    from aqmlab.notebooks import ipc_kernel_manager

    src = tmp_path / NOTEBOOK.name
    shutil.copy(NOTEBOOK, src)
    out = tmp_path / "out.ipynb"
    t0 = time.monotonic()
    try:
        papermill.execute_notebook(str(src), str(out), cwd=str(tmp_path), kernel_name="python3",
                                   parameters={"quick": True, "store": str(tmp_path / "data")},
                                   progress_bar=False,
                                   kernel_manager_class=ipc_kernel_manager(tmp_path))
    except papermill.PapermillExecutionError as err:
        pytest.fail(f"cell {err.exec_count} raised {err.ename}: {err.evalue}")
    took = time.monotonic() - t0
    nb = nbformat.read(out, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1))
    outputs = [o for c in code for o in c.get("outputs", [])]
    printed = [o.get("text", "") for o in outputs
               if o.output_type == "stream" and o.get("name") == "stderr"]
    assert not [t for t in printed if "Traceback" in t or "Error" in t], printed
    pngs = [o for o in outputs if "image/png" in o.get("data", {})]
    widgets = [o for o in outputs
               if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert len(pngs) >= 7 and len(widgets) == 5
    print(f"lab notebook: {took:.0f} s")


def test_lab_notebook_is_stored_without_outputs():
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(not c.outputs and c.execution_count is None for c in code)
    assert "parameters" in code[0].metadata.get("tags", [])
    assert any("aqmlab.explore(store=store)" == c.source.strip() for c in code)
