"""aqmlab's C++ headers compile on their own with g++ against the wheel's headers (no cling,
no help from headers the Python loader happened to parse first)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from aqmlab.engines.ns3.native import cpp_dir

pytestmark = pytest.mark.ns3


HEADERS = sorted(p.name for p in cpp_dir().glob("*.h"))


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("header", HEADERS)
def test_each_header_compiles_standalone(tmp_path, header):
    from aqmlab.engines.ns3.loader import wheel_prefix

    src = tmp_path / "tu.cc"
    src.write_text(f'#include "{header}"\nint main() {{ return 0; }}\n')
    cmd = ["g++", "-std=c++20", "-fsyntax-only", "-DNS3_LOG_ENABLE", "-DNS3_ASSERT_ENABLE",
           "-DNS3_BUILD_PROFILE_RELEASE", f"-I{cpp_dir()}", f"-I{wheel_prefix() / 'include'}",
           str(src)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
