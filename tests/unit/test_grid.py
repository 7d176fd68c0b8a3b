"""Sweep specs: grid expansion, zipped axes, seeds, validation of every point up front."""

from __future__ import annotations

import pytest

from aqmlab.campaign.grid import Sweep, SweepError, param_value
from aqmlab.scenario import Bulk, Dumbbell, Scenario
from tests.conftest import EXAMPLES


def base() -> Scenario:
    return Scenario(name="grid", topology=Dumbbell(senders=4), traffic=[Bulk(flows=4)])


def test_cartesian_product_outer_axis_first_seeds_innermost():
    sw = Sweep(base(), grid={"tcp.variant": ["reno", "cubic"], "traffic[0].flows": [2, 4, 8]},
               seeds=[1, 2])
    pts = sw.points()
    assert len(sw) == len(pts) == 12
    assert [p.params for p in pts[:3]] == [
        {"tcp.variant": "reno", "traffic[0].flows": 2, "seed": 1},
        {"tcp.variant": "reno", "traffic[0].flows": 2, "seed": 2},
        {"tcp.variant": "reno", "traffic[0].flows": 4, "seed": 1}]
    assert pts[-1].params == {"tcp.variant": "cubic", "traffic[0].flows": 8, "seed": 2}
    assert pts[7].scenario.tcp.variant == "cubic" and pts[7].scenario.traffic[0].flows == 2
    assert pts[7].scenario.run.seed == 2
    assert sw.param_columns == ["tcp.variant", "traffic[0].flows", "seed"]
    assert len({p.key for p in pts}) == 12
    assert [p.index for p in pts] == list(range(12))


def test_common_random_numbers_same_seeds_in_every_arm():
    pts = Sweep(base(), grid={"tcp.variant": ["reno", "cubic"]}, seeds=[3, 7]).points()
    by_arm = {}
    for p in pts:
        by_arm.setdefault(p.params["tcp.variant"], []).append(p.scenario.run.seed)
    assert by_arm == {"reno": [3, 7], "cubic": [3, 7]}
    # the hash ignores the seed: the arms differ in hash, replications only in seed
    assert pts[0].scenario.hash == pts[1].scenario.hash != pts[2].scenario.hash


def test_zip_moves_paths_together():
    sw = Sweep(base(), grid={"tcp.variant": ["reno", "sack"]},
               zip=[{"topology.senders": [2, 8], "traffic[0].flows": [2, 8]}])
    pts = sw.points()
    assert len(pts) == 4
    assert {(p.scenario.topology.senders, p.scenario.traffic[0].flows) for p in pts} == {
        (2, 2), (8, 8)}
    assert sw.param_columns == ["tcp.variant", "topology.senders", "traffic[0].flows", "seed"]
    assert pts[0].params["seed"] == 1  # the base scenario's seed


def test_no_axes_is_one_point_and_seeds_alone_replicate():
    assert len(Sweep(base()).points()) == 1
    pts = Sweep(base(), seeds=[1, 2, 3]).points()
    assert [p.scenario.run.seed for p in pts] == [1, 2, 3]


def test_every_invalid_point_is_reported_before_anything_runs():
    sw = Sweep(base(), grid={"topology.forward_queue.limit": ["10p", "0p", "-3p"],
                             "tcp.variant": ["reno", "warp"]})
    with pytest.raises(SweepError) as err:
        sw.points()
    msg = str(err.value)
    assert "5 of 6 sweep points are invalid" in msg and "nothing was run" in msg
    assert "warp" in msg and "limit" in msg


def test_unknown_path_is_named():
    with pytest.raises(SweepError, match="topology.bottlenek"):
        Sweep(base(), grid={"topology.bottlenek.rate": ["1Mbps"]}).points()


@pytest.mark.parametrize("kwargs, match", [
    ({"grid": {"tcp.variant": "reno"}}, "must be a list"),
    ({"grid": {"tcp.variant": []}}, "no values"),
    ({"zip": [{"topology.senders": [1, 2], "traffic[0].flows": [1]}]}, "equal length"),
    ({"grid": {"tcp.variant": ["reno"]}, "zip": [{"tcp.variant": ["sack"]}]}, "both"),
    ({"grid": {"run.seed": [1, 2]}, "seeds": [1]}, "one or the other"),
    ({"seeds": [1, 1]}, "duplicates"),
    ({"seeds": [0]}, ">= 1"),
    ({"seeds": 3}, "list of integers"),
])
def test_malformed_axes(kwargs, match):
    with pytest.raises(SweepError, match=match):
        Sweep(base(), **kwargs)


def test_two_points_that_are_the_same_run_are_rejected():
    with pytest.raises(SweepError, match="same run"):
        Sweep(base(), grid={"topology.bottleneck.rate": ["10Mbps", "10Mbps"]}).points()


def test_each_point_describes_its_swept_values_not_the_base_setting():
    b = base().replace(description="4 hosts, drop-tail 100p")
    red = {"kind": "red", "limit": "50p", "min_th": 5, "max_th": 15}
    pts = Sweep(b, grid={"topology.forward_queue": [red], "traffic[0].flows": [2, 4]},
                seeds=[1, 2]).points()
    d = pts[0].scenario.description
    assert d.startswith("4 hosts, drop-tail 100p; topology.forward_queue = {")
    assert '"kind":"red"' in d and d.endswith("traffic[0].flows = 2")
    # replications share the description; the seed is not in it
    assert pts[0].scenario.hash == pts[1].scenario.hash != pts[2].scenario.hash
    assert "seed" not in d
    assert Sweep(b, seeds=[1, 2]).points()[0].scenario.description == b.description
    # the description is prose, not the run: a point shares its stored run with the same
    # scenario made by hand, and sweeping the description alone sweeps nothing
    assert pts[0].scenario.key == b.replace(**{"topology.forward_queue": red,
                                               "traffic[0].flows": 2, "run.seed": 1}).key
    with pytest.raises(SweepError, match="the same run as point"):
        Sweep(b, grid={"description": ["a", "b"]}).points()


def test_whole_table_values_become_json_columns():
    red = {"kind": "red", "limit": "50p", "min_th": 5, "max_th": 15}
    sw = Sweep(base(), grid={"topology.forward_queue": [red, {"kind": "droptail"}]})
    pts = sw.points()
    assert pts[0].scenario.topology.forward_queue.kind == "red"
    col = pts[0].columns()["topology.forward_queue"]
    assert isinstance(col, str) and '"kind":"red"' in col
    assert param_value(3) == 3 and param_value([1, 2]) == "[1,2]"


def test_sweep_file_with_relative_base_set_grid_zip(tmp_path):
    (tmp_path / "sub").mkdir()
    base().save(tmp_path / "base.toml")
    f = tmp_path / "sub" / "s.toml"
    f.write_text('base = "../base.toml"\nseeds = [1, 2]\n'
                 '[set]\n"run.duration" = "3s"\n'
                 '[grid]\ntcp.variant = ["reno", "cubic"]\n'  # unquoted dotted key
                 '[[zip]]\n"topology.senders" = [2, 4]\n"traffic[0].flows" = [2, 4]\n')
    sw = Sweep.load(f)
    assert sw.name == "s"
    pts = sw.points()
    assert len(pts) == 8
    assert all(p.scenario.run.duration == "3s" for p in pts)
    assert sw.param_columns == ["tcp.variant", "topology.senders", "traffic[0].flows", "seed"]


def test_sweep_file_inline_base_and_errors(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('[base]\nname = "inline"\n[base.run]\nduration = "2s"\n'
                 '[grid]\n"tcp.variant" = ["reno"]\n')
    assert Sweep.load(f).points()[0].scenario.name == "inline"
    f.write_text('base = "nope.toml"\n')
    with pytest.raises(SweepError, match="does not exist"):
        Sweep.load(f)
    f.write_text('base = "x.toml"\ngrids = {}\n')
    with pytest.raises(SweepError, match="unknown sweep keys"):
        Sweep.load(f)
    f.write_text('grid = {}\n')
    with pytest.raises(SweepError, match="needs a base"):
        Sweep.load(f)


def test_example_sweep_is_20_runs():
    sw = Sweep.load(EXAMPLES / "sweeps" / "qiu_buffer_flows.toml")
    pts = sw.points()
    assert len(pts) == 20
    assert {p.scenario.topology.senders for p in pts} == {10, 25, 50, 75, 100}
    assert all(p.scenario.topology.senders == p.scenario.traffic[0].flows for p in pts)
