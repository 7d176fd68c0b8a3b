"""Choosing the simulation processes' allocator (aqmlab.workers.allocator): what
AQMLAB_ALLOCATOR accepts, how LD_PRELOAD is composed, and that os.environ is restored."""

from __future__ import annotations

import os
import sys

import pytest

from aqmlab.workers import allocator
from aqmlab.workers.pool import WorkerPool


def test_system_means_no_preload():
    assert allocator.library("system") is None
    assert allocator.preload_env({allocator.ENV: "system"}) == {}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="mimalloc is preloaded on Linux")
def test_mimalloc_is_installed_with_aqmlab():
    lib = allocator.library("mimalloc")
    assert lib is not None and lib.name == "libmimalloc.so" and lib.is_file()
    assert allocator.library() == lib or os.environ.get(allocator.ENV)  # the default


def test_a_library_path_is_preloaded_first(tmp_path):
    lib = tmp_path / "libfake.so"
    lib.write_bytes(b"")
    env = {allocator.ENV: str(lib), "LD_PRELOAD": "/other/libx.so"}
    assert allocator.preload_env(env) == {"LD_PRELOAD": f"{lib} /other/libx.so"}
    # already there: nothing added twice
    assert allocator.preload_env({allocator.ENV: str(lib), "LD_PRELOAD": f"/a.so:{lib}"}) == {}


def test_bad_choice_names_the_variable_and_what_is_allowed(monkeypatch):
    with pytest.raises(allocator.AllocatorError, match=r"AQMLAB_ALLOCATOR = 'tcmaloc'.*'system'"):
        allocator.library("tcmaloc")
    monkeypatch.setenv(allocator.ENV, "/no/such/libmalloc.so")
    with pytest.raises(allocator.AllocatorError):
        WorkerPool(1)  # before any process starts


def test_inherited_restores_the_environment(tmp_path, monkeypatch):
    lib = tmp_path / "libfake.so"
    lib.write_bytes(b"")
    monkeypatch.setenv(allocator.ENV, str(lib))
    monkeypatch.delenv("LD_PRELOAD", raising=False)
    with allocator.inherited():
        assert os.environ["LD_PRELOAD"] == str(lib)
    assert "LD_PRELOAD" not in os.environ
    monkeypatch.setenv("LD_PRELOAD", "/keep.so")
    with allocator.inherited():
        assert os.environ["LD_PRELOAD"] == f"{lib} /keep.so"
    assert os.environ["LD_PRELOAD"] == "/keep.so"


def test_this_process_allocator_is_read_from_its_memory_map():
    assert allocator.active() in ("system", *allocator.KNOWN)
