"""Sweep specifications: a base scenario, axes of dotted-path values, seeds; no ns-3.

A :class:`Sweep` expands to the Cartesian product of its axes. An axis is either one entry
of ``grid`` (a dotted field path and its list of values) or one ``zip`` group (several
paths whose lists have equal length and move together). ``seeds`` is the innermost axis and
is shared by every arm, so arms are compared under common random numbers: seed ``s`` gives
every arm the same ns-3 random streams.

Every point is built and validated before anything runs; the error lists all invalid
points at once.

A sweep file (TOML)::

    base = "../qiu_t1_dumbbell.toml"          # relative to this file; or an inline [base] table
    seeds = [1, 2]
    [set]                                      # constants applied to the base first
    "run.duration" = "30s"
    [grid]
    "topology.forward_queue.limit" = ["60p", "160p"]
    "traffic[0].flows" = [10, 20, 40]
    [[zip]]                                    # moved together: (10 senders, 10 flows), ...
    "topology.senders" = [10, 20]
    "traffic[0].flows" = [10, 20]
"""

from __future__ import annotations

import itertools
import json
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aqmlab import engines
from aqmlab.errors import AqmlabError, ScenarioError
from aqmlab.scenario import Scenario, as_scenario
from aqmlab.scenario.files import read_table_file

__all__ = ["Point", "Sweep", "SweepError", "param_value"]

#: Keys allowed at the top level of a sweep file.
FILE_KEYS = ("name", "base", "set", "grid", "zip", "seeds")
#: How many invalid points an error message lists.
MAX_LISTED = 10


class SweepError(AqmlabError, ValueError):
    """An invalid sweep: a malformed axis, or scenarios that fail validation."""


@dataclass(frozen=True)
class Point:
    """One run of a sweep: its parameter values and its validated scenario."""

    index: int
    params: dict[str, Any]
    scenario: Scenario

    @property
    def key(self) -> str:
        return self.scenario.key

    def columns(self) -> dict[str, Any]:
        """The parameter values as table cells (tables/lists become compact JSON)."""
        return {k: param_value(v) for k, v in self.params.items()}


def param_value(value: Any) -> Any:
    """A table cell for a parameter value: scalars as they are, anything else as JSON."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@dataclass
class Sweep:
    """A base scenario, axes and seeds. ``points()`` expands and validates.

    ``set`` (dotted path -> value) is applied to ``base`` first: constants of the sweep
    that are not axes (e.g. a shorter ``run.duration``). ``skip_invalid``: points that fail
    validation (e.g. kinds another engine cannot run) are left out and listed in
    ``skipped`` instead of failing the sweep."""

    base: Scenario
    grid: dict[str, list] = field(default_factory=dict)
    zip: list[dict[str, list]] = field(default_factory=list)
    seeds: list[int] | None = None
    name: str | None = None
    set: dict[str, Any] = field(default_factory=dict)
    skip_invalid: bool = False
    skipped: list[str] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.base, Scenario):
            self.base = as_scenario(self.base)
        if self.set:
            if not isinstance(self.set, Mapping):
                raise SweepError(f"set = {self.set!r}: must be a table of path = value")
            constants = dict(_flatten_axes(self.set))
            try:
                self.base = self.base.replace(**constants)
            except ScenarioError as err:
                raise SweepError(f"set: {err}") from None
            self.set = constants
        self.grid = {path: _values(path, v, "grid") for path, v in _flatten_axes(self.grid or {})}
        groups = [self.zip] if isinstance(self.zip, Mapping) else list(self.zip or [])
        self.zip = []
        for k, group in enumerate(groups):
            if not isinstance(group, Mapping) or not group:
                raise SweepError(f"zip[{k}] must be a non-empty table of path = [values]")
            g = {path: _values(path, v, f"zip[{k}]") for path, v in _flatten_axes(group)}
            lengths = {len(v) for v in g.values()}
            if len(lengths) != 1:
                sizes = ", ".join(f"{p}: {len(v)}" for p, v in g.items())
                raise SweepError(f"zip[{k}]: the value lists must have equal length ({sizes})")
            self.zip.append(g)
        if self.seeds is not None:
            if isinstance(self.seeds, (int, str)) or not isinstance(self.seeds, Iterable):
                raise SweepError(f"seeds = {self.seeds!r}: must be a list of integers")
            self.seeds = list(self.seeds)
            bad = [s for s in self.seeds if isinstance(s, bool) or not isinstance(s, int)
                   or s < 1]
            if not self.seeds or bad:
                raise SweepError(f"seeds = {self.seeds!r}: must be a non-empty list of "
                                 f"integers >= 1")
            if len(set(self.seeds)) != len(self.seeds):
                raise SweepError(f"seeds = {self.seeds!r}: contains duplicates")
        seen: dict[str, str] = {}
        for axis, paths in self._axis_paths():
            for p in paths:
                if p in seen:
                    raise SweepError(f"{p!r} appears in both {seen[p]} and {axis}")
                seen[p] = axis
        if self.seeds is not None and "run.seed" in seen:
            raise SweepError("'run.seed' is swept and seeds are given: use one or the other")

    def _axis_paths(self) -> list[tuple[str, list[str]]]:
        axes = [(f"grid[{p!r}]", [p]) for p in self.grid]
        axes += [(f"zip[{k}]", list(g)) for k, g in enumerate(self.zip)]
        return axes

    # -- io ----------------------------------------------------------------------------------

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], base_dir: str | Path = ".") -> Sweep:
        """Build from the dict form of a sweep file; ``base`` paths are relative to base_dir."""
        unknown = sorted(set(d) - set(FILE_KEYS))
        if unknown:
            raise SweepError(f"unknown sweep keys {unknown}; allowed: {list(FILE_KEYS)}")
        if "base" not in d:
            raise SweepError("a sweep needs a base scenario: base = \"file.toml\" or [base]")
        base = d["base"]
        if isinstance(base, str):
            path = Path(base)
            if not path.is_absolute():
                path = Path(base_dir) / path
            if not path.exists():
                raise SweepError(f"base scenario file {str(path)!r} does not exist")
            base = Scenario.load(path)
        elif isinstance(base, Mapping):
            base = Scenario.from_dict(base)
        else:
            raise SweepError(f"base = {base!r}: must be a file name or a table")
        return cls(base=base, grid=d.get("grid", {}), zip=d.get("zip", []),
                   seeds=d.get("seeds"), name=d.get("name"), set=d.get("set", {}))

    @classmethod
    def from_toml(cls, text: str, base_dir: str | Path = ".") -> Sweep:
        try:
            d = tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            raise SweepError(f"invalid TOML: {err}") from None
        return cls.from_dict(d, base_dir)

    @classmethod
    def load(cls, path: str | Path) -> Sweep:
        """Read a sweep file; a relative ``base`` is resolved against its folder."""
        path = Path(path)
        sweep = cls.from_dict(read_table_file(path, "sweep"), path.parent)  # one clear error
        if sweep.name is None:
            sweep.name = path.stem
        return sweep

    # -- expansion ---------------------------------------------------------------------------

    @property
    def param_columns(self) -> list[str]:
        """Columns that identify a point: every swept path, then ``seed``."""
        cols = list(self.grid) + [p for g in self.zip for p in g]
        return cols + (["seed"] if "run.seed" not in cols else [])

    def __len__(self) -> int:
        n = len(self.seeds) if self.seeds else 1
        for values in self.grid.values():
            n *= len(values)
        for g in self.zip:
            n *= len(next(iter(g.values())))
        return n

    def points(self) -> list[Point]:
        """Every point, outermost axis first and seeds innermost; all validated.

        Raises SweepError listing the invalid points, or two points that are the same run.
        """
        axes: list[list[dict[str, Any]]] = [
            [{path: v} for v in values] for path, values in self.grid.items()]
        for g in self.zip:
            n = len(next(iter(g.values())))
            axes.append([{p: vals[i] for p, vals in g.items()} for i in range(n)])
        seeds: Sequence[int | None] = self.seeds or [None]
        points: list[Point] = []
        errors: list[str] = []
        skipped: list[str] = []
        by_key: dict[str, int] = {}
        for combo in itertools.product(*axes):
            changes: dict[str, Any] = {}
            for part in combo:
                changes.update(part)
            for seed in seeds:
                ch = dict(changes) if seed is None else {**changes, "run.seed": seed}
                # the description is not in the hash: a point's own does not hide duplicates
                prose = ({"description": point_description(self.base.description, changes)}
                         if changes and "description" not in changes else {})
                try:
                    sc = engines.check(self.base.replace(**ch, **prose) if ch else self.base)
                except ScenarioError as err:
                    if self.skip_invalid:
                        skipped.append(f"{_describe(ch)}: {err}")
                    else:
                        errors.append(f"{_describe(ch)}: {err}")
                    continue
                params = dict(changes)
                if "run.seed" not in changes:
                    params["seed"] = sc.run.seed
                i = len(points)
                if sc.key in by_key:
                    errors.append(f"{_describe(ch)}: the same run as point "
                                  f"{_describe(points[by_key[sc.key]].params)} ({sc.key})")
                    continue
                by_key[sc.key] = i
                points.append(Point(index=i, params=params, scenario=sc))
        if errors:
            shown = "\n  ".join(errors[:MAX_LISTED])
            more = f"\n  ... and {len(errors) - MAX_LISTED} more" if len(errors) > MAX_LISTED else ""
            raise SweepError(f"{len(errors)} of {len(self)} sweep points are invalid "
                             f"(nothing was run):\n  {shown}{more}")
        self.skipped = skipped
        return points


def point_description(base: str, changes: Mapping[str, Any]) -> str:
    """The description of a point: the base's, then the swept values that make the point
    (a study's base describes its network, not the arm or load each point runs)."""
    values = ", ".join(f"{k} = {param_value(v)}" for k, v in changes.items())
    return f"{base}; {values}" if base else values


def _flatten_axes(d: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """``{"a": {"b": [..]}}`` (TOML's unquoted dotted keys) -> ``[("a.b", [..])]``."""
    if not isinstance(d, Mapping):
        raise SweepError(f"grid = {d!r}: must be a table of path = [values]")
    out: list[tuple[str, Any]] = []
    for k, v in d.items():
        path = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, Mapping):
            out.extend(_flatten_axes(v, path))
        else:
            out.append((path, v))
    return out


def _values(path: str, values: Any, where: str) -> list:
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
        raise SweepError(f"{where}: {path} = {values!r} must be a list of values "
                         f"(write [{values!r}] for a single value)")
    values = list(values)
    if not values:
        raise SweepError(f"{where}: {path} has no values")
    return values


def _describe(changes: Mapping[str, Any]) -> str:
    return "{" + ", ".join(f"{k}={param_value(v)}" for k, v in changes.items()) + "}"
