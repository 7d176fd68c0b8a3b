"""notebooks/congestion_control_lab.ipynb runs top to bottom (papermill, quick profile)."""

from __future__ import annotations

import shutil
import time

import pytest

from tests.conftest import ROOT

pytestmark = [pytest.mark.ns3, pytest.mark.slow]

NOTEBOOK = ROOT / "notebooks" / "congestion_control_lab.ipynb"


def test_lab_notebook_runs_top_to_bottom(tmp_path):
    papermill = pytest.importorskip("papermill")
    nbformat = pytest.importorskip("nbformat")
    src = tmp_path / NOTEBOOK.name
    shutil.copy(NOTEBOOK, src)
    out = tmp_path / "out.ipynb"
    t0 = time.monotonic()
    papermill.execute_notebook(str(src), str(out), cwd=str(tmp_path), kernel_name="python3",
                               parameters={"quick": True, "store": str(tmp_path / "data")},
                               progress_bar=False)
    took = time.monotonic() - t0
    nb = nbformat.read(out, as_version=4)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
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
