"""Typed study parameters: one frozen dataclass per study, one instance per profile.

Profiles are ``tiny`` (CI: each notebook well under a minute), ``quick`` (``make figures``)
and ``full`` (the papers' grids; CPU-hours in ``notebooks/README.md``). A study subclasses
:class:`Params` with its own fields (keyword-only, no defaults: every profile states every
value) and lists its three instances in a :class:`Profiles`. A notebook's overrides go
through :meth:`Params.replace`: None keeps the profile's value, a list becomes a tuple, a
value of the wrong type or an unknown name fails naming the parameter and what is allowed.
Which claims a profile can decide is not a parameter: the claim tables say it
(:mod:`aqmlab.studies.claims`).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

__all__ = ["PROFILE_NAMES", "Params", "Profiles"]

PROFILE_NAMES = ("tiny", "quick", "full")

P = TypeVar("P", bound="Params")


@dataclass(frozen=True, kw_only=True)
class Params:
    """The parameters of one study at one scale (subclass per study, see the module
    docstring). ``profile`` names the profile they come from; ``seeds`` the replications."""

    study: ClassVar[str] = ""
    profile: str
    seeds: tuple[int, ...]

    def __post_init__(self) -> None:
        if self.profile not in PROFILE_NAMES:
            raise ValueError(f"{self.study}: unknown profile {self.profile!r}; profiles: "
                             f"{', '.join(PROFILE_NAMES)}")
        for name, tp in _hints(type(self)).items():
            object.__setattr__(self, name, _conform(getattr(self, name), tp,
                                                    f"{self.study}/{self.profile}: {name}"))

    def only(self, field: str, allowed: Iterable[str]) -> None:
        """Raise ValueError naming ``field`` if any of its values is not in ``allowed``."""
        known = tuple(allowed)
        bad = [v for v in getattr(self, field) if v not in known]
        if bad:
            raise ValueError(f"{self.study}/{self.profile}: unknown {field} {bad}; "
                             f"{field}: {', '.join(known)}")

    @property
    def name(self) -> str:
        """The profile's name (as in "quick profile: ..." notes)."""
        return self.profile

    @property
    def values(self) -> dict[str, Any]:
        """Every parameter a notebook may override (all fields but ``profile``)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if f.name != "profile"}

    def replace(self: P, **overrides: Any) -> P:
        """These parameters with ``overrides`` applied (None keeps a value)."""
        allowed = self.values
        changes = {}
        for key, value in overrides.items():
            if key not in allowed:
                raise KeyError(f"profile {self.study}/{self.profile} has no parameter {key!r}; "
                               f"parameters: {', '.join(allowed)}")
            if value is not None:
                changes[key] = value
        return dataclasses.replace(self, **changes)

    def describe(self) -> str:
        body = ", ".join(f"{k}={_show(v)}" for k, v in self.values.items())
        return f"{self.study} [{self.profile}]: {body}"


class Profiles(Generic[P]):
    """The three profiles of a study, by name; :meth:`get` applies overrides."""

    def __init__(self, **profiles: P) -> None:
        if tuple(profiles) != PROFILE_NAMES:
            raise ValueError(f"profiles must be {', '.join(PROFILE_NAMES)} in this order, "
                             f"got {', '.join(profiles)}")
        for name, p in profiles.items():
            if p.profile != name:
                raise ValueError(f"{p.study}: profile {name!r} holds parameters of "
                                 f"{p.profile!r}")
        self._profiles: dict[str, P] = profiles

    def get(self, name: str = "quick", **overrides: Any) -> P:
        if name not in self._profiles:
            raise ValueError(f"unknown profile {name!r}; profiles: {', '.join(PROFILE_NAMES)}")
        return self._profiles[name].replace(**overrides)

    def __getitem__(self, name: str) -> P:
        return self._profiles[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._profiles)

    def items(self) -> Iterator[tuple[str, P]]:
        return iter(self._profiles.items())


# -- typing ------------------------------------------------------------------------------------


def _hints(cls: type) -> Mapping[str, Any]:
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls)}


def _conform(value: Any, tp: Any, where: str) -> Any:
    """``value`` as type ``tp`` wants it (lists -> tuples), or TypeError naming ``where``."""
    ok, out = _match(value, tp)
    if not ok:
        raise TypeError(f"{where} = {value!r} is invalid: expected {_type_name(tp)}")
    return out


def _match(value: Any, tp: Any) -> tuple[bool, Any]:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is Any:
        return True, value
    if tp is type(None):
        return value is None, value
    if origin in (typing.Union, types.UnionType):
        for a in args:
            ok, out = _match(value, a)
            if ok:
                return True, out
        return False, value
    if origin is tuple:
        if not isinstance(value, (list, tuple)):
            return False, value
        items = args[:1] * len(value) if len(args) == 2 and args[1] is Ellipsis else args
        if len(items) != len(value):
            return False, value
        out = []
        for v, a in zip(value, items, strict=True):
            ok, x = _match(v, a)
            if not ok:
                return False, value
            out.append(x)
        return True, tuple(out)
    if tp is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool), value
    if tp is int:
        return isinstance(value, int) and not isinstance(value, bool), value
    return isinstance(value, tp), value


def _type_name(tp: Any) -> str:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_type_name(a) for a in args)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return f"a list of {_type_name(args[0])}"
        return "a list (" + ", ".join(_type_name(a) for a in args) + ")"
    return "None" if tp is type(None) else getattr(tp, "__name__", str(tp))


def _show(value: Any) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return repr(value) if isinstance(value, str) else str(value)
