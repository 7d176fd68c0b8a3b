"""One registry per family of kinds (queue disciplines, TCP variants, traffic kinds,
topologies): a name -> class table that everything else iterates over.

A kind registers itself where it is defined (``@QUEUES.register``); the family's package
imports its built-in modules, and other packages add kinds through the entry-point group
``aqmlab.<family>`` (``[project.entry-points."aqmlab.queues"] my_aqm = "pkg.mod:MyAqm"``),
loaded the first time the registry is read.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable, Iterator, Mapping
from importlib.metadata import entry_points
from typing import Any, Generic, TypeVar

from aqmlab.errors import ScenarioError
from aqmlab.units import check_kind, prefixed

__all__ = ["Registry", "import_kinds"]

K = TypeVar("K")


def import_kinds(package: str, path: Iterable[str]) -> None:
    """Import every module of a family's package, so that each kind module registers its
    kind: a new kind is one new file. Modules already imported keep their (earlier) place
    in the registry's order."""
    for info in pkgutil.iter_modules(path):
        if info.name != "base":
            importlib.import_module(f"{package}.{info.name}")


class Registry(Mapping[str, K], Generic[K]):
    """Kinds of one family by name, in registration order (built-ins first).

    ``name_attr`` is the class attribute holding a kind's name (``KIND`` for spec classes,
    ``name`` for descriptor objects)."""

    def __init__(self, family: str, noun: str, name_attr: str = "KIND",
                 not_a_spec: str = "must be a table/dict with a 'kind' key") -> None:
        self.family = family
        self.noun = noun  # names the spec in errors without a field path
        self.not_a_spec = not_a_spec
        self.base: type | None = None  # the family's spec base class, set by its package
        self.group = f"aqmlab.{family}"
        self._name_attr = name_attr
        self._kinds: dict[str, K] = {}
        self._plugins_loaded = False

    def register(self, kind: K) -> K:
        """Add ``kind`` (a class or descriptor); usable as a decorator."""
        name = getattr(kind, self._name_attr)
        if not isinstance(name, str) or not name:
            raise TypeError(f"{kind!r} has no {self._name_attr} name")
        if name in self._kinds and self._kinds[name] is not kind:
            raise ValueError(f"{self.family} kind {name!r} is registered twice")
        self._kinds[name] = kind
        return kind

    def lead(self, *names: str) -> None:
        """List ``names`` first, in this order (the order of listings and menus)."""
        rest = {k: v for k, v in self._kinds.items() if k not in names}
        self._kinds = {**{n: self._kinds[n] for n in names}, **rest}

    def _load_plugins(self) -> None:
        if self._plugins_loaded:
            return
        self._plugins_loaded = True
        for ep in entry_points(group=self.group):
            self.register(ep.load())

    def __getitem__(self, name: str) -> K:
        self._load_plugins()
        return self._kinds[name]

    def __iter__(self) -> Iterator[str]:
        self._load_plugins()
        return iter(list(self._kinds))

    def __len__(self) -> int:
        self._load_plugins()
        return len(self._kinds)

    def lookup(self, name: Any, field: str) -> K:
        """The kind called ``name``; otherwise UnknownKindError naming ``field`` and listing
        the known kinds (with the closest one as a hint)."""
        return self[check_kind(name, field, self)]

    def build(self, d: Mapping[str, Any] | Any, field: str, default: str | None = None) -> Any:
        """A spec instance from a dict with a ``kind`` key (an instance is returned as is);
        a missing ``kind`` means ``default`` (required when None)."""
        if self.base is not None and isinstance(d, self.base):
            return d
        if not isinstance(d, Mapping):
            raise ScenarioError(field or self.noun, d, self.not_a_spec)
        with prefixed(field):
            if "kind" not in d and default is None:
                raise ScenarioError("kind", None,
                                    f"required key missing; known kinds: {', '.join(self)}")
            cls = self.lookup(d.get("kind", default), "kind")
        return cls.from_dict(d, field)  # type: ignore[attr-defined]
