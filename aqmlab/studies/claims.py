"""Checkable claims of the papers: what the paper says, what we measured, and whether it holds.

A :class:`Claim` holds one statement of a paper (``text``), the paper's value, the measured
value, a tolerance and a ``kind`` saying how the two are compared. ``reproduced`` is
computed here, never set by a study:

========================  ====================================================================
kind                      reproduced is "yes" when
========================  ====================================================================
``"ratio within"``        ``|measured / paper - 1| <= tolerance``
``"abs within"``          ``|measured - paper| <= tolerance``
``"in range"``            ``paper[0] <= measured <= paper[1]`` (``paper`` is a (lo, hi) pair)
``"greater"``             ``measured > paper + tolerance`` (paper is a threshold)
``"less"``                ``measured < paper - tolerance``
``"ordering"``            ``measured`` (a {label: value} dict) is ordered as the ``paper``
                          string says, e.g. ``"a > b > c"`` or ``"a < b"``; a step of the chain
                          holds when the difference exceeds ``tolerance`` (a relative margin
                          of the larger magnitude; 0 means strictly); ``>=``/``<=`` steps also
                          accept ties within the tolerance
``"formula fit"``         ``measured`` (an error of a fit, e.g. the median relative error of
                          the measured points against the paper's formula) ``<= tolerance``
``"true"``                ``measured`` is True (a qualitative check computed by the study)
========================  ====================================================================

A claim the profile cannot test with confidence (too short, one seed, a load or setting it
does not run) is marked with ``tested=False`` and reads "not tested in this profile"; its
measured value, if any, is still shown. A tested claim whose measured value is missing
(None/NaN: a run failed or was left out) reads "no data".
A claim that is not reproduced keeps its ``if_not`` note: the likely reason. Nothing here
tunes a claim away. A table made while runs were still missing from the store (``aqmlab
figures --stored-only``) carries an ``interim`` text, written into its summary, its counts
and every row's note.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["KINDS", "Claim", "ClaimTable", "NOT_TESTED", "NO_DATA", "check_ordering"]

KINDS = ("ratio within", "abs within", "in range", "greater", "less", "ordering",
         "formula fit", "true")
NOT_TESTED = "not tested in this profile"
NO_DATA = "no data"
COLUMNS = ["study", "claim", "text", "paper", "measured", "tolerance", "kind", "reproduced",
           "note"]

_ORDER_RE = re.compile(r"\s*(>=|<=|>|<)\s*")


def _missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    if isinstance(value, Mapping):
        return not value or any(_missing(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return not value or any(_missing(v) for v in value)
    return False


def check_ordering(expected: str, values: Mapping[str, float], tolerance: float = 0.0) -> bool:
    """Whether ``values`` follow ``expected`` ("a > b >= c", "x < y").

    A strict step ``a > b`` holds when ``a - b > tolerance * max(|a|, |b|)``; a weak step
    ``a >= b`` when ``a - b >= -tolerance * max(|a|, |b|)``. Every label in ``expected``
    must be a key of ``values``."""
    parts = _ORDER_RE.split(expected.strip())
    labels, ops = parts[0::2], parts[1::2]
    if len(labels) < 2 or len(labels) != len(ops) + 1:
        raise ValueError(f"ordering {expected!r}: write labels separated by >, >=, < or <=")
    missing = [lab for lab in labels if lab not in values]
    if missing:
        raise KeyError(f"ordering {expected!r}: no measured value for {missing}")
    for a, op, b in zip(labels, ops, labels[1:], strict=False):
        x, y = float(values[a]), float(values[b])
        if op in ("<", "<="):
            x, y = y, x  # a < b  <=>  b > a
        margin = tolerance * max(abs(x), abs(y))
        if op in (">", "<") and not x - y > margin:
            return False
        if op in (">=", "<=") and not x - y >= -margin:
            return False
    return True


def _fmt(value: Any) -> str:
    """A compact cell for CSV and display."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return f"{value:.4g}"
    if isinstance(value, Mapping):
        return ", ".join(f"{k}: {_fmt(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_fmt(v) for v in value) + "]"
    return str(value)


@dataclass
class Claim:
    """One checkable statement of a paper (see the module docstring for ``kind``).

    ``paper`` the paper's value (a number, a (lo, hi) pair for "in range", an ordering
    string, or a short description); ``measured`` our value; ``tolerance`` how far they may
    differ (meaning per kind); ``tested`` False when this profile cannot decide the claim;
    ``note`` context shown always; ``if_not`` the likely reason, shown when the claim is not
    reproduced."""

    study: str
    id: str
    text: str
    paper: Any
    measured: Any
    kind: str
    tolerance: float = 0.0
    tested: bool = True
    note: str = ""
    if_not: str = ""
    source: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.id}: kind {self.kind!r} is not one of {KINDS}")
        if self.kind == "in range" and not (
                isinstance(self.paper, (list, tuple)) and len(self.paper) == 2):
            raise ValueError(f"claim {self.id}: 'in range' needs paper = (lo, hi)")
        if self.kind == "ordering" and not isinstance(self.paper, str):
            raise ValueError(f"claim {self.id}: 'ordering' needs paper = 'a > b > ...'")
        if not isinstance(self.tolerance, (int, float)) or self.tolerance < 0:
            raise ValueError(f"claim {self.id}: tolerance must be a number >= 0")

    # -- the verdict -------------------------------------------------------------------------

    def holds(self) -> bool | None:
        """True/False by ``kind``; None when the measured value is missing."""
        m, p, tol = self.measured, self.paper, float(self.tolerance)
        if _missing(m):
            return None
        k = self.kind
        if k == "ratio within":
            if p == 0:
                return abs(float(m)) <= tol
            return abs(float(m) / float(p) - 1.0) <= tol
        if k == "abs within":
            return abs(float(m) - float(p)) <= tol
        if k == "in range":
            lo, hi = float(p[0]), float(p[1])
            return lo <= float(m) <= hi
        if k == "greater":
            return float(m) > float(p) + tol
        if k == "less":
            return float(m) < float(p) - tol
        if k == "ordering":
            return check_ordering(p, m, tol)
        if k == "formula fit":
            return float(m) <= tol
        return bool(m)  # "true"

    @property
    def reproduced(self) -> str:
        """"yes", "no", "not tested in this profile" or "no data"."""
        ok = self.holds()
        if not self.tested:
            return NOT_TESTED
        if ok is None:
            return NO_DATA
        return "yes" if ok else "no"

    def row(self) -> dict[str, Any]:
        note = self.note
        if self.reproduced in ("no", NO_DATA) and self.if_not:
            note = f"{note} Likely reason: {self.if_not}".strip()
        tol = _fmt(float(self.tolerance)) if self.kind not in ("true",) else ""
        return {"study": self.study, "claim": self.id, "text": self.text,
                "paper": _fmt(self.paper), "measured": _fmt(self.measured),
                "tolerance": tol, "kind": self.kind, "reproduced": self.reproduced,
                "note": note}


@dataclass
class ClaimTable:
    """The claims of one study, in the order they were added; ``interim`` says which runs
    were missing when it was made (empty: none)."""

    study: str
    claims: list[Claim] = field(default_factory=list)
    interim: str = ""

    def add(self, id: str, text: str, paper: Any, measured: Any, kind: str,  # noqa: A002
            tolerance: float = 0.0, **kw: Any) -> Claim:
        """Create a Claim of this study, append it and return it."""
        claim = Claim(study=self.study, id=id, text=text, paper=paper, measured=measured,
                      kind=kind, tolerance=tolerance, **kw)
        if any(c.id == id for c in self.claims):
            raise ValueError(f"claim id {id!r} appears twice in {self.study}")
        self.claims.append(claim)
        return claim

    def adder(self, tests: Callable[[str], bool]) -> Callable[..., None]:
        """``add(id, text, paper, measured, kind, tol=0, runs=True, **kw)`` for a study's
        claims function: the claim is tested when the profile ``tests`` it and ``runs``."""

        def add(cid: str, text: str, paper: Any, measured: Any, kind: str, tol: float = 0.0,
                runs: bool = True, **kw: Any) -> None:
            self.add(cid, text, paper, measured, kind, tol, tested=tests(cid) and runs, **kw)

        return add

    def extend(self, claims: Iterable[Claim]) -> None:
        for c in claims:
            if any(x.id == c.id for x in self.claims):
                raise ValueError(f"claim id {c.id!r} appears twice in {self.study}")
            self.claims.append(c)

    def __len__(self) -> int:
        return len(self.claims)

    def __iter__(self) -> Iterator[Claim]:
        return iter(self.claims)

    def __getitem__(self, id: str) -> Claim:  # noqa: A002
        for c in self.claims:
            if c.id == id:
                return c
        raise KeyError(id)

    def to_frame(self) -> pd.DataFrame:
        """One row per claim: study, claim, text, paper, measured, tolerance, kind,
        reproduced, note (all cells are text, as saved)."""
        df = pd.DataFrame([c.row() for c in self.claims], columns=COLUMNS)
        if self.interim:
            df["note"] = (f"{self.interim[0].upper()}{self.interim[1:]}. " + df["note"]).str.strip()
        return df

    def counts(self) -> dict[str, int]:
        """How many claims are checked, reproduced, not reproduced, untested, without data."""
        verdicts = [c.reproduced for c in self.claims]
        return {"claims": len(verdicts), "yes": verdicts.count("yes"),
                "no": verdicts.count("no"), "not tested": verdicts.count(NOT_TESTED),
                "no data": verdicts.count(NO_DATA)}

    def summary(self) -> str:
        c = self.counts()
        head = f"{self.study} ({self.interim})" if self.interim else self.study
        return (f"{head}: {c['claims']} claims, {c['yes']} reproduced, {c['no']} not "
                f"reproduced, {c['not tested']} not tested in this profile, "
                f"{c['no data']} without data")

    def save(self, path: str | Path) -> Path:
        """Write the table as CSV (``claims.csv``) and the counts beside it (JSON)."""
        path = Path(path)
        if path.suffix == "" or path.is_dir():
            path = path / "claims.csv"
        path.parent.mkdir(parents=True, exist_ok=True)
        self.to_frame().to_csv(path, index=False)
        path.with_suffix(".json").write_text(
            json.dumps({"study": self.study, **self.counts(), "interim": self.interim},
                       indent=2) + "\n")
        return path

    @classmethod
    def read(cls, path: str | Path) -> pd.DataFrame:
        """A saved table, as a DataFrame (for reports across studies)."""
        return pd.read_csv(Path(path), keep_default_na=False)

    def _repr_html_(self) -> str:
        df = self.to_frame()

        def colour(v: str) -> str:
            return {"yes": "background-color:#d9f2d9", "no": "background-color:#f7d4d4",
                    NOT_TESTED: "background-color:#eeeeee"}.get(v, "")

        styled = df.style.map(colour, subset=["reproduced"]).hide(axis="index")
        return f"<p><b>{self.summary()}</b></p>" + styled.to_html()

    def __repr__(self) -> str:
        return f"<ClaimTable {self.summary()}>"
