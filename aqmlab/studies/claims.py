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

A study declares its claims as data (:class:`DeclaredTable`, read from
``claim_tables/<study>.toml``): per claim its id, text, paper value, kind, tolerance, the
*named* metric that measures it (a function of the study module registered with its
:class:`Metrics`), the profiles that can decide it, a note and ``if_not``. Texts, ids,
notes and paper values may be templates filled from the study's template values, an
``each`` expansion and the metric's :class:`Measured` record. Unknown metrics or
expansions, duplicate ids, bad kinds, profiles or fields fail when the study is imported,
naming the study and the claim.
"""

from __future__ import annotations

import inspect
import json
import math
import re
import string
import tomllib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from aqmlab.studies.params import PROFILE_NAMES

__all__ = ["KINDS", "Claim", "ClaimTable", "NOT_TESTED", "NO_DATA", "NOT_RUN_ON_REFERENCE",
           "READINGS", "tally",
           "check_ordering",
           "Measured", "Inputs", "Metrics", "ClaimSpec", "DeclaredTable", "TABLES"]

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


#: The columns a reference engine adds after ``reproduced`` (:meth:`ClaimTable.with_reference`).
REFERENCE_COLUMNS = ["measured_ns2", "reproduced_ns2", "engines"]
#: The second verdict of a claim: what aqmlab on ns-3 and the reference engine (ns-2.35,
#: the papers' simulator, on the same arms) say together.
ENGINE_VERDICTS = {
    ("yes", "yes"): "both",
    ("no", "no"): "paper's era: ns-2.35 misses it too",
    ("no", "yes"): "aqmlab's: only ns-3 misses it",
    ("yes", "no"): "ns-3 only",
}


#: The joint reading of a claim whose arms the reference engine did not run.
NOT_RUN_ON_REFERENCE = "not run on ns-2.35"


def engine_verdict(ns3: str, ref: str) -> str:
    """How the two engines' verdicts combine (:data:`ENGINE_VERDICTS`)."""
    if ns3 == NOT_TESTED or ref == NOT_TESTED:
        return NOT_TESTED
    if ref == NO_DATA:
        return NOT_RUN_ON_REFERENCE
    return ENGINE_VERDICTS.get((ns3, ref), "ns-2.35 only" if ns3 == NO_DATA else "")


#: The joint readings a count reports, by name (:func:`tally`).
READINGS = {"both": ENGINE_VERDICTS[("yes", "yes")],
            "paper's era": ENGINE_VERDICTS[("no", "no")],
            "aqmlab's": ENGINE_VERDICTS[("no", "yes")],
            "ns-3 only": ENGINE_VERDICTS[("yes", "no")],
            "not run on ns-2.35": NOT_RUN_ON_REFERENCE}


def tally(verdicts: Sequence[str], reference: Sequence[str] | None = None) -> dict[str, int]:
    """The one verdict counter of live tables and saved ones: claims, ns-3's yes / no / not
    tested / no data and, given ns-2.35's ``reference`` verdicts of the same claims, its yes /
    no and each joint reading of :data:`READINGS` (:func:`engine_verdict`)."""
    verdicts = list(verdicts)
    out = {"claims": len(verdicts), "yes": verdicts.count("yes"), "no": verdicts.count("no"),
           "not tested": verdicts.count(NOT_TESTED), "no data": verdicts.count(NO_DATA)}
    if reference is not None:
        ref = list(reference)
        joint = [engine_verdict(a, b) for a, b in zip(verdicts, ref, strict=True)]
        out.update({"ns2 yes": ref.count("yes"), "ns2 no": ref.count("no")})
        out.update({name: joint.count(value) for name, value in READINGS.items()})
    return out


@dataclass
class ClaimTable:
    """The claims of one study, in the order they were added; ``interim`` says which runs
    were missing when it was made (empty: none). ``reference``: the same claims measured on
    ns-2.35 (the papers' simulator, on the arms it can run), the second verdict."""

    study: str
    claims: list[Claim] = field(default_factory=list)
    interim: str = ""
    reference: ClaimTable | None = None

    def with_reference(self, other: ClaimTable) -> ClaimTable:
        """This table with ``other`` (the same claims on ns-2.35) as its second verdict."""
        if [c.id for c in other] != [c.id for c in self]:
            raise ValueError(f"{self.study}: the reference table has other claims")
        self.reference = other
        return self

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
        reproduced, note (all cells are text, as saved); with a reference also
        ``measured_ns2``, ``reproduced_ns2`` and ``engines`` (:func:`engine_verdict`)."""
        df = pd.DataFrame([c.row() for c in self.claims], columns=COLUMNS)
        if self.interim:
            df["note"] = (f"{self.interim[0].upper()}{self.interim[1:]}. " + df["note"]).str.strip()
        if self.reference is not None:
            ref = list(self.reference)
            at = COLUMNS.index("reproduced") + 1
            for k, (name, values) in enumerate(zip(REFERENCE_COLUMNS, (
                    [_fmt(c.measured) for c in ref], [c.reproduced for c in ref],
                    [engine_verdict(a.reproduced, b.reproduced)
                     for a, b in zip(self.claims, ref, strict=True)]), strict=True)):
                df.insert(at + k, name, values)
        return df

    def counts(self) -> dict[str, int]:
        """How many claims are checked, reproduced, not reproduced, untested, without data;
        with a reference, the same on ns-2.35 and the joint readings (:func:`tally`)."""
        ref = None if self.reference is None else [c.reproduced for c in self.reference]
        return tally([c.reproduced for c in self.claims], ref)

    def summary(self) -> str:
        c = self.counts()
        head = f"{self.study} ({self.interim})" if self.interim else self.study
        text = (f"{head}: {c['claims']} claims, {c['yes']} reproduced, {c['no']} not "
                f"reproduced, {c['not tested']} not tested in this profile, "
                f"{c['no data']} without data")
        if self.reference is not None:
            era, ours = c["paper's era"], c["aqmlab's"]
            text += (f"; on ns-2.35 {c['ns2 yes']} reproduced, {c['ns2 no']} not "
                     f"({c['not run on ns-2.35']} not run there); misses of the paper's era "
                     f"{era}, aqmlab's {ours}")
        return text

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


# -- declared tables ---------------------------------------------------------------------------

#: Where the studies' claim tables live (``<study>.toml``).
TABLES = Path(__file__).resolve().parent / "claim_tables"

_CLAIM_FIELDS = {"id", "text", "paper", "kind", "tolerance", "metric", "args", "profiles",
                 "note", "if_not", "each"}
_REQUIRED = ("id", "text", "paper", "kind", "metric", "profiles")
_TABLE_FIELDS = {"study", "each", "defaults", "claim"}


@dataclass
class Measured:
    """A metric's answer when a bare value is not enough: the ``value``, whether this run
    set can decide the claim (``tested``; False reads "not tested in this profile") and
    template ``values`` for the claim's text, paper value and note."""

    value: Any
    tested: bool = True
    values: Mapping[str, Any] = field(default_factory=dict)


class Inputs:
    """What a metric sees: the study's tidy frames (``data``), its parameters (``p``) and
    :meth:`cached`, which computes a derived frame once per table."""

    def __init__(self, data: Mapping[str, Any], p: Any) -> None:
        self.data = data
        self.p = p
        self._memo: dict[tuple, Any] = {}

    def cached(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(self, *args)``, computed once per evaluation."""
        key = (fn, *args)
        if key not in self._memo:
            self._memo[key] = fn(self, *args)
        return self._memo[key]


class Metrics:
    """The named functions a study's claim table refers to: metrics (``@metrics``, called
    ``fn(inputs, **args)``), expansions (``@metrics.each``: ``fn(inputs)`` -> a list of
    template-value dicts, one claim per dict) and template values shared by every claim
    (``@metrics.values``: ``fn(inputs)`` -> dict)."""

    def __init__(self, study: str) -> None:
        self.study = study
        self.metrics: dict[str, Callable[..., Any]] = {}
        self.expansions: dict[str, Callable[[Inputs], list[dict[str, Any]]]] = {}
        self.templates: list[Callable[[Inputs], Mapping[str, Any]]] = []

    def _register(self, kind: dict, fn: Callable) -> Callable:
        if fn.__name__ in kind:
            raise ValueError(f"{self.study}: {fn.__name__!r} is registered twice")
        kind[fn.__name__] = fn
        return fn

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        return self._register(self.metrics, fn)

    def each(self, fn: Callable[[Inputs], list[dict[str, Any]]]) -> Callable:
        return self._register(self.expansions, fn)

    def values(self, fn: Callable[[Inputs], Mapping[str, Any]]) -> Callable:
        self.templates.append(fn)
        return fn

    def table(self, path: str | Path | None = None) -> DeclaredTable:
        """The study's declared claims (``claim_tables/<study>.toml``), checked against
        these functions."""
        return DeclaredTable.load(path or TABLES / f"{self.study}.toml", self)


@dataclass(frozen=True)
class ClaimSpec:
    """One row of a claim table (see the module docstring); ``each`` repeats it."""

    id: str
    text: str
    paper: Any
    kind: str
    metric: str
    profiles: tuple[str, ...]
    tolerance: float = 0.0
    args: Mapping[str, Any] = field(default_factory=dict)
    note: str = ""
    if_not: str | None = None
    each: str | tuple[Mapping[str, Any], ...] | None = None


@dataclass(frozen=True)
class _Group:
    """Claims repeated together for every value set of ``each`` (None: once)."""

    each: str | tuple[Mapping[str, Any], ...] | None
    items: tuple[ClaimSpec | _Group, ...]


class DeclaredTable:
    """A study's claims as data, evaluated by :meth:`evaluate` into a :class:`ClaimTable`."""

    def __init__(self, study: str, root: _Group, metrics: Metrics,
                 defaults: Mapping[str, Any] | None = None) -> None:
        self.study = study
        self.root = root
        self.metrics = metrics
        self.defaults = dict(defaults or {})
        self._check()

    # -- reading and checking ------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path, metrics: Metrics) -> DeclaredTable:
        path = Path(path)
        with path.open("rb") as fh:
            raw = tomllib.load(fh)
        study = raw.get("study")
        where = f"{path.name}"
        if study != metrics.study:
            raise ValueError(f"{where}: study = {study!r}, expected {metrics.study!r}")
        unknown = set(raw) - _TABLE_FIELDS
        if unknown:
            raise ValueError(f"{study}: unknown table field(s) {sorted(unknown)}; allowed: "
                             f"{sorted(_TABLE_FIELDS)}")
        defaults = raw.get("defaults", {})
        bad = set(defaults) - {"note", "if_not"}
        if bad:
            raise ValueError(f"{study}: [defaults] may set note and if_not, not {sorted(bad)}")
        items = tuple(cls._entry(study, e) for e in raw.get("claim", []))
        return cls(study, _Group(_each(raw.get("each")), items), metrics, defaults)

    @staticmethod
    def _entry(study: str, e: Mapping[str, Any]) -> ClaimSpec | _Group:
        if "claims" in e:
            extra = set(e) - {"each", "claims"}
            if extra:
                raise ValueError(f"{study}: a group of claims takes each and claims, not "
                                 f"{sorted(extra)}")
            return _Group(_each(e.get("each")),
                          tuple(DeclaredTable._entry(study, c) for c in e["claims"]))
        cid = e.get("id", "?")
        unknown = set(e) - _CLAIM_FIELDS
        if unknown:
            raise ValueError(f"{study}: claim {cid}: unknown field(s) {sorted(unknown)}; "
                             f"fields: {', '.join(sorted(_CLAIM_FIELDS))}")
        missing = [k for k in _REQUIRED if k not in e]
        if missing:
            raise ValueError(f"{study}: claim {cid}: missing {', '.join(missing)}")
        kw = dict(e)
        kw["profiles"] = tuple(e["profiles"])
        kw["each"] = _each(e.get("each"))
        kw["args"] = dict(e.get("args", {}))
        return ClaimSpec(**kw)

    def specs(self) -> list[ClaimSpec]:
        """Every claim row, in order (templates not expanded)."""
        out: list[ClaimSpec] = []

        def walk(g: _Group) -> None:
            for item in g.items:
                walk(item) if isinstance(item, _Group) else out.append(item)

        walk(self.root)
        return out

    def _check(self) -> None:
        m, seen, used = self.metrics, set(), set()
        groups = [self.root]
        while groups:
            g = groups.pop()
            groups += [i for i in g.items if isinstance(i, _Group)]
            if isinstance(g.each, str) and g.each not in m.expansions:
                raise ValueError(f"{self.study}: unknown expansion {g.each!r}; expansions: "
                                 f"{', '.join(m.expansions) or 'none'}")
        for c in self.specs():
            where = f"{self.study}: claim {c.id}"
            if c.id in seen:
                raise ValueError(f"{where}: the id appears twice")
            seen.add(c.id)
            if c.kind not in KINDS:
                raise ValueError(f"{where}: kind {c.kind!r} is not one of {KINDS}")
            bad = [x for x in c.profiles if x not in PROFILE_NAMES]
            if bad:
                raise ValueError(f"{where}: unknown profile(s) {bad}; profiles: "
                                 f"{', '.join(PROFILE_NAMES)}")
            if c.metric not in m.metrics:
                raise ValueError(f"{where}: unknown metric {c.metric!r}; metrics of "
                                 f"{self.study}: {', '.join(m.metrics)}")
            used.add(c.metric)
            if isinstance(c.each, str) and c.each not in m.expansions:
                raise ValueError(f"{where}: unknown expansion {c.each!r}; expansions: "
                                 f"{', '.join(m.expansions) or 'none'}")
            params = inspect.signature(m.metrics[c.metric]).parameters
            if not any(p.kind is p.VAR_KEYWORD for p in params.values()):
                wrong = set(c.args) - set(list(params)[1:])
                if wrong:
                    raise ValueError(f"{where}: metric {c.metric} takes no argument(s) "
                                     f"{sorted(wrong)}")
            if not isinstance(c.tolerance, (int, float)) or c.tolerance < 0:
                raise ValueError(f"{where}: tolerance must be a number >= 0")
            if c.kind == "in range" and not (
                    _placeholder(c.paper) or isinstance(c.paper, list) and len(c.paper) == 2):
                raise ValueError(f"{where}: 'in range' needs paper = [lo, hi]")
            if c.kind == "ordering" and not isinstance(c.paper, str):
                raise ValueError(f"{where}: 'ordering' needs paper = 'a > b > ...'")
            for text in (c.id, c.text, c.note, c.if_not or "", c.paper):
                if isinstance(text, str):
                    _fields(text, where)
        unused = set(m.metrics) - used
        if unused:
            raise ValueError(f"{self.study}: metric(s) {sorted(unused)} registered but no "
                             "claim uses them")

    # -- evaluation ---------------------------------------------------------------------------

    def evaluate(self, data: Mapping[str, Any], p: Any) -> ClaimTable:
        """The claim table of ``data`` (the study's frames) under parameters ``p``: every
        claim measured; tested when ``p``'s profile can decide it and its metric says the
        run set can."""
        inputs = Inputs(data, p)
        values: dict[str, Any] = {}
        for fn in self.metrics.templates:
            values.update(fn(inputs))
        table = ClaimTable(self.study)
        self._group(self.root, inputs, values, {}, table)
        return table

    def _expand(self, each: Any, inputs: Inputs) -> list[Mapping[str, Any]]:
        if each is None:
            return [{}]
        if isinstance(each, str):
            return list(self.metrics.expansions[each](inputs))
        return list(each)

    def _group(self, g: _Group, inputs: Inputs, values: Mapping[str, Any],
               each: Mapping[str, Any], table: ClaimTable) -> None:
        for extra in self._expand(g.each, inputs):
            for item in g.items:
                if isinstance(item, _Group):
                    self._group(item, inputs, {**values, **extra}, {**each, **extra}, table)
                else:
                    for more in self._expand(item.each, inputs):
                        self._claim(item, inputs, {**values, **extra, **more},
                                    {**each, **extra, **more}, table)

    def _claim(self, c: ClaimSpec, inputs: Inputs, values: Mapping[str, Any],
               each: Mapping[str, Any], table: ClaimTable) -> None:
        """Measure claim ``c`` and add it; the metric gets the expansion values it names
        as parameters, and the row's ``args``."""
        fn = self.metrics.metrics[c.metric]
        params = inspect.signature(fn).parameters
        kwargs = {k: v for k, v in each.items() if k in params}
        kwargs.update(c.args)
        out = fn(inputs, **kwargs)
        if not isinstance(out, Measured):
            out = Measured(out)
        v = {**values, **out.values}
        where = f"{self.study}: claim {c.id}"
        if_not = c.if_not if c.if_not is not None else self.defaults.get("if_not", "")
        note = c.note or self.defaults.get("note", "")
        table.add(_fill(c.id, v, where), _fill(c.text, v, where), _paper(c.paper, v, where),
                  out.value, c.kind, c.tolerance, tested=inputs.p.profile in c.profiles
                  and out.tested, note=_fill(note, v, where), if_not=_fill(if_not, v, where))


def _each(each: Any) -> str | tuple[Mapping[str, Any], ...] | None:
    if each is None or isinstance(each, str):
        return each
    if isinstance(each, list) and all(isinstance(x, Mapping) for x in each):
        return tuple(dict(x) for x in each)
    raise ValueError(f"each must name an expansion or list tables of values, got {each!r}")


def _fields(text: str, where: str) -> list[str]:
    try:
        return [f for _, f, _, _ in string.Formatter().parse(text) if f is not None]
    except ValueError as err:
        raise ValueError(f"{where}: bad template {text!r}: {err}") from None


def _placeholder(value: Any) -> str | None:
    """The name in a value that is exactly one placeholder ("{paper}"), else None."""
    if isinstance(value, str):
        m = re.fullmatch(r"\{(\w+)\}", value)
        return m.group(1) if m else None
    return None


def _fill(text: str, values: Mapping[str, Any], where: str) -> str:
    try:
        return text.format(**values)
    except (KeyError, IndexError) as err:
        raise KeyError(f"{where}: no template value {err} for {text!r}") from None


def _paper(paper: Any, values: Mapping[str, Any], where: str) -> Any:
    """The paper value: a lone placeholder takes the value itself (a number stays a
    number), other strings are filled in, lists element-wise."""
    if isinstance(paper, list):
        return [_paper(x, values, where) for x in paper]
    name = _placeholder(paper)
    if name is not None:
        if name not in values:
            raise KeyError(f"{where}: no template value {name!r} for the paper value")
        return values[name]
    return _fill(paper, values, where) if isinstance(paper, str) else paper
