"""Arms: the named variants of a base scenario a study compares, with their attributes as data.

An :class:`Arm` is a label, the dotted changes that make it from the base scenario and its
``tags`` (e.g. ``{"queue": "ared", "ecn": True, "target_ms": 5}``). The label becomes the
scenario ``name``, which is part of the scenario's hash: it must stay the same for stored
runs to be found again, so it is spelled out, never parsed back. Figures and claims read an
arm's attributes from its tags (:func:`arms_frame` and :func:`tag`), one row per label.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

__all__ = ["Arm", "arm_set", "arms_frame", "tag", "tags_of"]


@dataclass(frozen=True)
class Arm:
    """One arm: ``label`` (the scenario name), ``changes`` (dotted path -> value, applied to
    the base scenario, in this order) and ``tags`` (its attributes, for tidy frames)."""

    label: str
    changes: Mapping[str, Any]
    tags: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.label or not isinstance(self.label, str):
            raise ValueError(f"an arm needs a label, got {self.label!r}")


def arm_set(arms: Iterable[Arm]) -> dict[str, Arm]:
    """Arms by label, in order; a label given twice with other changes or tags fails."""
    out: dict[str, Arm] = {}
    for a in arms:
        if a.label in out and out[a.label] != a:
            raise ValueError(f"arm {a.label!r} is defined twice, differently")
        out[a.label] = a
    return out


def arms_frame(arms: Iterable[Arm]) -> pd.DataFrame:
    """One row per label: ``name`` and one column per tag (object dtype, so an integer tag
    stays an integer where other arms lack it). Arms of different sweeps may share a label
    (e.g. each set-up's "uncongested" baseline) if they share their tags."""
    tags: dict[str, Mapping[str, Any]] = {}
    for a in arms:
        if a.label in tags and tags[a.label] != a.tags:
            raise ValueError(f"arm {a.label!r} has two sets of tags: {dict(tags[a.label])} "
                             f"and {dict(a.tags)}")
        tags[a.label] = a.tags
    rows = [{"name": label, **t} for label, t in tags.items()]
    cols = list(dict.fromkeys(k for r in rows for k in r)) or ["name"]
    return pd.DataFrame(rows, columns=cols, dtype=object)


def tags_of(data: Mapping[str, pd.DataFrame]) -> dict[str, dict[str, Any]]:
    """label -> tags of the arms of a study's data (its ``arms`` frame)."""
    arms = data.get("arms")
    if arms is None or not len(arms):
        return {}
    return {r["name"]: {k: v for k, v in r.items() if k != "name" and not _na(v)}
            for r in arms.to_dict("records")}


def tag(data: Mapping[str, pd.DataFrame], names: pd.Series, key: str,
        default: Any = None) -> pd.Series:
    """Tag ``key`` of the arm of every name in ``names`` (``default`` where it has none)."""
    tags = tags_of(data)
    return names.map(lambda n: tags.get(n, {}).get(key, default))


def _na(v: Any) -> bool:
    return v is None or (isinstance(v, float) and v != v)
