"""The acceptance list of invalid scenarios, through the CLI: rejected with a clear message,
before ns-3 is touched."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import EXAMPLES

BAD = {
    "negative rate": ('bottleneck = { rate = "-10Mbps", delay = "20ms" }',
                      "topology.bottleneck.rate"),
    "min_th >= max_th": ('forward_queue = { kind = "red", limit = "100p", min_th = 20, '
                         'max_th = 10 }', "topology.forward_queue.min_th"),
    "unknown queue kind": ('forward_queue = { kind = "blue", limit = "100p" }',
                           "topology.forward_queue.kind"),
    "limit < max_th": ('forward_queue = { kind = "red", limit = "10p", min_th = 5, '
                       'max_th = 15 }', "topology.forward_queue.limit"),
}


def run_cli(*args: str) -> subprocess.CompletedProcess:
    code = ("import sys; from aqmlab.cli import main; rc = main(sys.argv[1:]); "
            "assert 'ns' not in sys.modules and 'cppyy' not in sys.modules; sys.exit(rc)")
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                          text=True, cwd="/tmp")


@pytest.mark.parametrize("case", sorted(BAD))
def test_invalid_topology_is_rejected_with_the_field_named(tmp_path, case):
    line, field = BAD[case]
    path = tmp_path / "bad.toml"
    path.write_text(f'name = "bad"\n[topology]\nkind = "dumbbell"\n{line}\n')
    out = run_cli("validate", str(path))
    assert out.returncode == 2
    assert field in out.stderr and "is invalid" in out.stderr


def test_zero_flows_is_rejected(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('name = "bad"\n[[traffic]]\nkind = "bulk"\nflows = 0\n')
    out = run_cli("validate", str(path))
    assert out.returncode == 2 and "traffic[0].flows" in out.stderr


def test_unknown_kind_lists_the_known_ones(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('[topology]\nforward_queue = { kind = "redd", limit = "100p" }\n')
    out = run_cli("validate", str(path))
    assert "'red'" in out.stderr and "droptail" in out.stderr


def test_every_example_validates():
    out = run_cli("validate", *map(str, sorted(EXAMPLES.glob("*.toml"))))
    assert out.returncode == 0, out.stderr
    assert out.stdout.count(": ok") == len(list(EXAMPLES.glob("*.toml")))
