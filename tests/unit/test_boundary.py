"""The architecture's boundaries: ns-3 stays behind aqmlab/engines/ns3, and the code is lint-clean."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def test_import_aqmlab_and_scenarios_never_imports_ns3():
    code = (
        "import sys, aqmlab\n"
        "from aqmlab.scenario import Scenario\n"
        "import aqmlab.plan, aqmlab.engines, aqmlab.engines.ns3, aqmlab.results.results\n"
        "import aqmlab.cli, aqmlab.campaign, aqmlab.workers, aqmlab.widgets\n"
        "sc = aqmlab.Scenario.load(sys.argv[1]); aqmlab.plan.make_plan(sc)\n"
        "bad = [m for m in ('cppyy', 'ns', 'libcppyy') if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(ROOT / "examples/parking_lot.toml")],
                         capture_output=True, text=True, check=True, cwd="/tmp")
    assert out.stdout.strip() == ""


def test_ruff_is_clean():
    ruff = [sys.executable, "-m", "ruff", "check", "aqmlab", "tests", "bench"]
    out = subprocess.run(ruff, capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
