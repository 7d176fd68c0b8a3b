"""Shared by the benchmarks that compare settings chosen per process (socket tables,
allocator, the precompiled layer): a case's scenario file, one run of it in a child
process (``aqmlab run --in-process``) with extra environment variables, and the ABBA order
of on and off runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def case_toml(example: str, changes: dict[str, Any], duration: float, work: Path) -> Path:
    """``examples/<example>`` run for ``duration`` simulated seconds (60 s warm-up, no
    samples) with ``changes``, saved in ``work``."""
    from aqmlab.scenario import Scenario

    sc = Scenario.load(ROOT / "examples" / example).replace(
        **{"run.duration": f"{duration:g}s", "run.warmup": "60s", "run.sample_interval": None,
           **changes})
    toml = work / example
    sc.save(toml)
    return toml


def run_child(toml: Path, out: Path, env: dict[str, str]) -> tuple[pd.Series, dict[str, Any]]:
    """Simulate ``toml`` into ``out`` in a child process with ``env`` added to this one's;
    returns its summary row and run meta."""
    subprocess.run([sys.executable, "-m", "aqmlab", "run", str(toml), "--out", str(out),
                    "--in-process"], check=True, env={**os.environ, **env}, cwd=out.parent,
                   capture_output=True)
    meta = json.loads((out / "meta.json").read_text())
    return pd.read_parquet(out / "summary.parquet").iloc[0], meta


def alternating(rounds: int) -> Iterator[tuple[int, bool]]:
    """``(round, on)`` for a setting measured on and off: on first in even rounds, off first
    in odd ones (ABBA), so that a drift of the machine weighs on both alike."""
    for r in range(rounds):
        for on in (True, False) if r % 2 == 0 else (False, True):
            yield r, on
