"""Shared fixtures. Simulation tests (tests/sim) run ns-3 in this process, one at a time,
from a small working directory (the ns-3 loader scans the cwd)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="session", autouse=True)
def _small_cwd():
    old = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="aqmlab-tests-") as d:
        os.chdir(d)
        yield
        os.chdir(old)


@pytest.fixture(scope="session")
def simulate():
    """Run a Scenario in this process and return its Results."""
    from aqmlab.workers.worker import simulate as simulate_results

    return simulate_results


@pytest.fixture
def unwritable_cache(tmp_path, monkeypatch) -> Path:
    """``AQMLAB_CACHE`` where a file stands in the folder's way (it cannot be created), and
    a "compiler" that would succeed (``true``): only the cache can fail a build."""
    blocker = tmp_path / "cache"
    blocker.write_text("a file, not a folder\n")
    monkeypatch.setenv("AQMLAB_CACHE", str(blocker))
    monkeypatch.setenv("CXX", "true")
    return blocker
