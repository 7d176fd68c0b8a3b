"""Building and choosing an interposed library (aqmlab/engines/ns3/interposer.py, used by
object_memo.py and socket_tables.py); whether results stay identical is
tests/sim/test_object_memo.py."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess

import pytest

from aqmlab.engines.ns3 import object_memo, socket_tables


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """The object-memo library as if not loaded yet, with an empty cache."""
    monkeypatch.setenv("AQMLAB_CACHE", str(tmp_path))
    return dataclasses.replace(object_memo.LIBRARY), tmp_path


def test_not_loaded_when_every_switch_is_off(fresh, monkeypatch):
    lib, cache = fresh
    for name in lib.switches:
        monkeypatch.setenv(name, "0")
    assert not lib.wanted()
    assert lib.load(cache, "3.44") is False and lib.lib is None
    assert not any(cache.iterdir())  # nothing compiled
    monkeypatch.setenv("AQMLAB_TRACE_MEMO", "1")
    assert lib.wanted()  # one part on: the library is wanted


@pytest.mark.parametrize("library", [object_memo.LIBRARY, socket_tables.LIBRARY],
                         ids=["object_memo", "socket_tables"])
def test_a_failed_compile_warns_and_leaves_ns3_alone(library, monkeypatch, tmp_path):
    from aqmlab.engines.ns3.loader import wheel_prefix

    monkeypatch.setenv("AQMLAB_CACHE", str(tmp_path))
    monkeypatch.setenv("CXX", "false")  # a "compiler" that always fails
    with pytest.warns(RuntimeWarning, match="could not compile"):
        assert dataclasses.replace(library).library_path(wheel_prefix(), "3.44") is None
    assert not list(tmp_path.rglob("*.so"))


@pytest.mark.skipif(shutil.which("g++") is None or shutil.which("nm") is None,
                    reason="needs g++ and nm")
def test_library_exports_only_the_interposed_members(fresh):
    from aqmlab.engines.ns3.loader import wheel_prefix

    lib, cache = fresh
    path = lib.library_path(wheel_prefix(), "3.44")
    assert path is not None and path.is_relative_to(cache)
    assert lib.library_path(wheel_prefix(), "3.44") == path  # cached
    names = subprocess.run(["nm", "-D", "--defined-only", "-C", str(path)], check=True,
                           capture_output=True, text=True).stdout
    symbols = [line.split(" ", 2)[2] for line in names.splitlines() if line.count(" ") >= 2]
    wanted = ("ns3::ObjectBase::ConstructSelf", "ns3::TypeId::SetAttributeInitialValue",
              "ns3::TypeId::LookupTraceSourceByName",
              "ns3::ObjectBase::TraceConnectWithoutContext", "aqmlab_object_memo_")
    for member in wanted:
        assert any(s.startswith(member) for s in symbols)
    # nothing else (template code, the memos) leaves the library
    assert all(s.startswith(wanted) for s in symbols), symbols


def test_a_cache_that_cannot_be_written_warns_and_leaves_ns3_alone(unwritable_cache, tmp_path):
    """A cache folder that cannot be created (a file in its way) gives no library and a
    warning naming the folder and what stays slow, instead of an error."""
    lib = dataclasses.replace(object_memo.LIBRARY)
    with pytest.warns(RuntimeWarning, match="set AQMLAB_CACHE to a writable folder"):
        assert lib.library_path(tmp_path / "wheel", "3.44") is None
