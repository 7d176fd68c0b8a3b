"""The g++-compiled C++ layer (aqmlab/engines/ns3/precompiled.py) changes speed, never
results: its code is the code that runs, a process without it (AQMLAB_PRECOMPILED=0, Cling
compiles the layer) simulates the same tables, and a compiler that fails leaves the layer to
Cling with a warning."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from aqmlab.engines.ns3 import precompiled
from aqmlab.scenario import Scenario
from tests.sim.identical import assert_same, simulate_in_child

EXAMPLES = Path(__file__).parents[2] / "examples"

WHERE = r"""
#include <dlfcn.h>
#include <cstring>
namespace aqmlab_test_precompiled
{
inline std::string FileOf(void* code)
{
    Dl_info info{};
    return dladdr(code, &info) && info.dli_fname ? info.dli_fname : "";
}

template <typename M>
inline std::string FileOfMember(M member) // non-virtual: the pointer's first word is the code
{
    void* code = nullptr;
    std::memcpy(&code, &member, sizeof code);
    return FileOf(code);
}

/// The files holding a free function and two member functions of the layer.
inline std::vector<std::string> Files()
{
    return {FileOf(reinterpret_cast<void*>(&aqmlab::UseEventClock)),
            FileOfMember(&aqmlab::Experiment::Build),
            FileOfMember(&aqmlab::Experiment::Run)};
}
} // namespace aqmlab_test_precompiled
"""


@pytest.mark.ns3
def test_the_layer_code_that_runs_is_the_librarys():
    """With g++ present the library is loaded, and Cling binds the layer's functions to it
    rather than to code of its own (dladdr names the library for each). Cling keeps its own
    copy of a function under 50 instructions (to inline it) but binds every variable, a
    static member or a function's static, to the library's."""
    from aqmlab.engines.ns3 import loader, native

    if shutil.which("g++") is None:
        pytest.skip("no g++: the layer is JIT-compiled")
    native.load()
    lib = native.precompiled_library()
    assert lib is not None and lib.name == precompiled.LIB_NAME
    loader.cppdef(WHERE)
    files = [str(f) for f in loader.gbl().aqmlab_test_precompiled.Files()]
    assert files == [str(lib)] * 3


@pytest.mark.ns3
def test_same_runs_with_and_without_the_library(tmp_path):
    """ARED + ECN at 105 % both ways (RED's averages, queue areas, RTO estimates: the
    floating point that FMA contraction would round differently) gives the same tables,
    event for event, from the library and from Cling's own code."""
    sc = Scenario.load(EXAMPLES / "weigle_ecn_ared_105.toml").replace(
        **{"run.duration": "10s", "run.warmup": "2s", "run.stop_after_responses": None})
    fast, on = simulate_in_child(sc, tmp_path, "on", {})
    slow, off = simulate_in_child(sc, tmp_path, "off", {precompiled.SWITCH: "0"})
    if shutil.which("g++") is not None:
        assert on["precompiled"] is True
    assert off["precompiled"] is False
    assert fast.meta["precompiled_layer"] is on["precompiled"]
    assert slow.meta["precompiled_layer"] is False
    assert len(fast.requests) > 1000
    assert_same(slow, fast)


@pytest.fixture
def cpp(tmp_path) -> Path:
    """A stand-in for the layer's header folder: aqmlab.h and the a.h it includes."""
    folder = tmp_path / "cpp"
    folder.mkdir()
    (folder / "aqmlab.h").write_text('#include "a.h"\n')
    (folder / "a.h").write_text("int a();\n")
    return folder


def test_cache_key_follows_every_header(cpp, tmp_path):
    """Editing any header of the layer, or the compiler, names another library."""
    prefix = tmp_path / "wheel"
    first = precompiled.cache_key(cpp, prefix, "3.44", "echo")
    assert precompiled.cache_key(cpp, prefix, "3.44", "echo") == first
    (cpp / "a.h").write_text("int a(); // edited\n")
    edited = precompiled.cache_key(cpp, prefix, "3.44", "echo")
    assert edited != first
    assert precompiled.cache_key(cpp, prefix, "3.44", "true") != edited  # another compiler


def test_a_failing_compiler_leaves_the_layer_to_cling(cpp, tmp_path, monkeypatch):
    """A compiler that exits non-zero gives no library (None, a warning naming the
    fallback), and nothing half-written in the cache."""
    monkeypatch.setenv("AQMLAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("CXX", "false")
    with pytest.warns(RuntimeWarning, match="JIT-compiled instead"):
        assert precompiled.library_path(cpp, tmp_path / "wheel", "3.44") is None
    assert not list((tmp_path / "cache").rglob(precompiled.LIB_NAME))


@pytest.mark.ns3
def test_a_damaged_library_in_the_cache_leaves_the_layer_to_cling(tmp_path, monkeypatch):
    """A cached file that is not a loadable library (a damaged cache) is reported by a
    warning naming it, and not taken for the layer."""
    from aqmlab.engines.ns3 import native

    native.load()
    before = native.precompiled_library()
    bad = tmp_path / precompiled.LIB_NAME
    bad.write_text("not a shared library\n")
    monkeypatch.setenv(precompiled.SWITCH, "1")
    monkeypatch.setattr(precompiled, "library_path", lambda *_: bad)
    with pytest.warns(RuntimeWarning, match="could not be loaded"):
        native._load_precompiled()
    assert native.precompiled_library() == before != bad


def test_a_cache_that_cannot_be_written_leaves_the_layer_to_cling(unwritable_cache, cpp,
                                                                   tmp_path):
    """A cache folder that cannot be created (here a file stands in its way) gives no
    library and a warning that names the folder, instead of an error."""
    with pytest.warns(RuntimeWarning, match="set AQMLAB_CACHE to a writable folder"):
        assert precompiled.library_path(cpp, tmp_path / "wheel", "3.44") is None
