"""Unit parsing/formatting and the small field-validation helpers shared by scenario specs.

Parsers take the dotted ``field`` name so that a bad value raises a
:class:`~aqmlab.errors.ScenarioError` naming it. Decimal prefixes (k, M, G) are powers of
1000; binary prefixes (KiB, MiB, GiB) are powers of 1024.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from decimal import Decimal, InvalidOperation
from typing import Any, ClassVar, TypeVar

from aqmlab.errors import ScenarioError, UnknownKindError

__all__ = [
    "parse_rate",
    "parse_time",
    "parse_size",
    "parse_bytes",
    "format_rate",
    "format_time",
    "canonical_units",
]

# What ns-3 can represent at all (values beyond are refused, whatever ``run.force`` says;
# what a machine can afford is aqmlab.scenario.limits' business).
#: ns-3 counts time in signed 64-bit nanoseconds: 2**63 ns is 9.22e9 s (292 years).
MAX_TIME_S = 9.2e9
#: The smallest non-zero time ns-3 can hold (shorter times would silently become 0).
MIN_TIME_S = 1e-9
#: Link rates are 64-bit bits/s in ns-3; far below that, packet times vanish under its 1-ns
#: clock (a 1000-byte packet takes 8 ps at 1 Pb/s).
MAX_RATE_BPS = 10**15
#: ns-3's queue sizes (packets or bytes) are 32-bit.
MAX_QUEUE_SIZE = 2**32 - 1
#: Byte sizes (transfers, windows): 1 PB, far beyond any simulated transfer.
MAX_BYTES = 10**15
#: Integers go to ns-3 as 64-bit values.
MAX_INT = 2**63 - 1
#: Decimal exponents beyond this are refused before any arithmetic (no Decimal overflow).
_MAX_EXPONENT = 40

_NUM = r"([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
_RATE_RE = re.compile(rf"^{_NUM}\s*([kKMGT]?)(bps|b/s|bit/s|Bps|B/s)$")
_TIME_RE = re.compile(rf"^{_NUM}\s*(ns|us|µs|ms|s|sec|min|h)$")
_SIZE_RE = re.compile(rf"^{_NUM}\s*(p|pkt|pkts|packet|packets|B|bytes|kB|KB|MB|GB|KiB|MiB|GiB)$")

_RATE_PREFIX = {"": 1, "k": 10**3, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
_TIME_UNIT = {
    "ns": Decimal("1e-9"),
    "us": Decimal("1e-6"),
    "µs": Decimal("1e-6"),
    "ms": Decimal("1e-3"),
    "s": Decimal(1),
    "sec": Decimal(1),
    "min": Decimal(60),
    "h": Decimal(3600),
}
_SIZE_UNIT = {
    "B": 1,
    "bytes": 1,
    "kB": 10**3,
    "KB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "KiB": 2**10,
    "MiB": 2**20,
    "GiB": 2**30,
}
_PACKET_UNITS = {"p", "pkt", "pkts", "packet", "packets"}


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _match(regex: re.Pattern[str], value: object, field: str, allowed: str) -> re.Match[str]:
    if not isinstance(value, str):
        raise ScenarioError(field, value, allowed)
    m = regex.match(value.strip())
    if m is None:
        raise ScenarioError(field, value, allowed)
    return m


def _decimal(text: str, field: str, value: object, allowed: str) -> Decimal:
    try:
        d = Decimal(text)
    except InvalidOperation:  # pragma: no cover - the regex only lets numbers through
        raise ScenarioError(field, value, allowed) from None
    if not d.is_finite():  # pragma: no cover
        raise ScenarioError(field, value, allowed)
    if d and abs(d.adjusted()) > _MAX_EXPONENT:
        raise ScenarioError(field, value, f"{_short(field)} is out of range (exponent "
                                          f"{d.adjusted()}): {allowed}")
    return d


def _number(value: float | int, field: str, allowed: str) -> Decimal:
    """A bare number as an exact Decimal; NaN and infinities are refused."""
    if not math.isfinite(value):
        raise ScenarioError(field, value, f"{_short(field)} must be a finite number: {allowed}")
    return _decimal(repr(value) if isinstance(value, float) else str(value), field, value,
                    allowed)


def parse_rate(value: object, field: str) -> int:
    """Parse a data rate into bits/s (> 0); numbers are bits/s, ``B/s``/``Bps`` are bytes/s.

    >>> parse_rate("1.5Mbps", "rate")
    1500000
    """
    allowed = "a rate > 0 such as '10Mbps', '1.5Mbps', '128kbps', '10Mb/s' or a number of bits/s"
    if _is_number(value):
        bps = _number(value, field, allowed)
    else:
        m = _match(_RATE_RE, value, field, allowed)
        bps = _decimal(m.group(1), field, value, allowed) * _RATE_PREFIX[m.group(2)]
        if m.group(3) in ("Bps", "B/s"):
            bps *= 8
    if bps != bps.to_integral_value():
        raise ScenarioError(field, value, "a whole number of bits/s")
    if bps <= 0:
        raise ScenarioError(field, value, f"{_short(field)} must be > 0")
    if bps > MAX_RATE_BPS:
        raise ScenarioError(field, value, f"{_short(field)} must be <= 1000Tbps (1e15 bits/s): "
                                          "ns-3 could not time a packet at such a rate")
    return int(bps)


def parse_time(value: object, field: str) -> float:
    """Parse a duration into seconds (>= 0); numbers are seconds.

    >>> parse_time("20ms", "delay")
    0.02
    """
    return float(_seconds(value, field))


def _seconds(value: object, field: str) -> Decimal:
    """``parse_time`` as an exact Decimal (also the canonical form of a duration)."""
    allowed = "a duration >= 0 such as '20ms', '0.5ms', '1s', '100us', '2min' or seconds"
    if _is_number(value):
        seconds = _number(value, field, allowed)
    else:
        m = _match(_TIME_RE, value, field, allowed)
        seconds = _decimal(m.group(1), field, value, allowed) * _TIME_UNIT[m.group(2)]
    if seconds < 0:
        raise ScenarioError(field, value, f"{_short(field)} must be >= 0")
    if seconds > MAX_TIME_S:
        raise ScenarioError(field, value, f"{_short(field)} must be <= 9.2e9 s: ns-3 counts "
                                          "time in 64-bit nanoseconds (292 years)")
    if 0 < seconds < Decimal(str(MIN_TIME_S)):
        raise ScenarioError(field, value, f"{_short(field)} must be 0 or >= 1ns: ns-3's clock "
                                          "ticks in nanoseconds")
    return seconds


def _parse_amount(value: object, field: str, bare_unit: str, packets_ok: bool,
                  top: int = MAX_BYTES, why: str = "") -> tuple[int, str]:
    units = "'160p', '160pkts', " if packets_ok else ""
    allowed = f"a size > 0 such as {units}'1500B', '100KB', '20MiB' or an integer"
    if isinstance(value, int) and not isinstance(value, bool):
        amount, unit = _number(value, field, allowed), bare_unit
    else:
        m = _match(_SIZE_RE, value, field, allowed)
        amount = _decimal(m.group(1), field, value, allowed)
        if m.group(2) in _PACKET_UNITS:
            if not packets_ok:
                raise ScenarioError(field, value, "a size in bytes (B, KB, MB, GB, KiB, MiB, GiB)")
            unit = "p"
        else:
            amount, unit = amount * _SIZE_UNIT[m.group(2)], "B"
    if amount != amount.to_integral_value():
        raise ScenarioError(
            field, value, f"a whole number of {'packets' if unit == 'p' else 'bytes'}"
        )
    if amount <= 0:
        raise ScenarioError(field, value, f"{_short(field)} must be > 0")
    if amount > top:
        raise ScenarioError(field, value, f"{_short(field)} must be <= {top:,} "
                                          f"{'packets' if unit == 'p' else 'bytes'}{why}")
    return int(amount), unit


def parse_size(value: object, field: str) -> tuple[int, str]:
    """Parse a queue/buffer size into ``(amount, unit)`` with unit ``"p"`` or ``"B"``.

    Integers are packets. >>> parse_size("20MiB", "limit") -> (20971520, "B")
    """
    return _parse_amount(value, field, "p", packets_ok=True, top=MAX_QUEUE_SIZE,
                         why=" (ns-3 queue sizes are 32-bit)")


def parse_bytes(value: object, field: str) -> int:
    """Parse a size that must be in bytes (integers are bytes)."""
    return _parse_amount(value, field, "B", packets_ok=False, why=" (1 PB)")[0]


# ---------------------------------------------------------------------------------------------
# Canonical form of unit strings, for identity hashes.
# ---------------------------------------------------------------------------------------------

#: Keys whose strings are prose or names, never quantities ("1s" as a name stays "1s").
_NOT_QUANTITIES = frozenset({"name", "description", "label", "title", "calibration"})


def canonical_quantity(value: Any) -> Any:
    """The quantity a value stands for, spelled one way: rate strings as int bits/s, duration
    strings as seconds, packet sizes as int packets, byte sizes as ``"<n>B"``; integral floats
    as ints. A bare number already is in its field's base unit (bits/s, seconds, packets of a
    queue limit), so ``"10 Mbps"``, ``"10Mbps"``, ``"10000kbps"`` and ``10000000`` agree, as do
    ``"1000ms"``, ``"1s"``, ``1`` and ``1.0``; a byte size stays a string because a bare
    number in a queue limit means packets. Anything else is returned unchanged."""
    if isinstance(value, bool):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() and abs(value) < 2**53 else value
    if not isinstance(value, str):
        return value
    text = value.strip()
    try:
        if _RATE_RE.match(text):
            return parse_rate(text, "")
        if _TIME_RE.match(text):
            return canonical_quantity(float(_seconds(text, "")))
        if _SIZE_RE.match(text):
            amount, unit = parse_size(text, "")
            return amount if unit == "p" else f"{amount}B"
    except ScenarioError:
        return value  # not a valid quantity: leave it (validation speaks for itself)
    return value


def canonical_units(tree: Any, key: str = "") -> Any:
    """``tree`` (nested dicts/lists of a spec's ``to_dict``) with every quantity in its
    canonical form (:func:`canonical_quantity`), except under name/prose keys."""
    if isinstance(tree, Mapping):
        return {k: canonical_units(v, str(k)) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return [canonical_units(v, key) for v in tree]
    if key in _NOT_QUANTITIES:
        return tree
    return canonical_quantity(tree)


def format_rate(bps: int) -> str:
    """Format bits/s with the largest exact decimal prefix: 10000000 -> '10Mbps', 1500 -> '1500bps'.

    1544000 gives '1544kbps'; ``parse_rate(format_rate(x)) == x`` for every int x > 0.
    """
    bps = int(bps)
    for prefix in ("G", "M", "k"):
        if bps and bps % _RATE_PREFIX[prefix] == 0:
            return f"{bps // _RATE_PREFIX[prefix]}{prefix}bps"
    return f"{bps}bps"


def format_time(seconds: float) -> str:
    """Format seconds with the largest unit (s, ms, us, ns) giving a value >= 1: 0.02 -> '20ms'."""
    if seconds == 0:
        return "0s"
    for unit, mult in (("s", 1), ("ms", 10**3), ("us", 10**6), ("ns", 10**9)):
        v = round(seconds * mult, 9)
        if abs(v) >= 1 or unit == "ns":
            text = repr(v)
            return f"{text[:-2] if text.endswith('.0') else text}{unit}"
    raise AssertionError("unreachable")  # pragma: no cover


# ---------------------------------------------------------------------------------------------
# Field-validation helpers shared by the aqmlab.scenario specs.
# ---------------------------------------------------------------------------------------------


def _short(field: str) -> str:
    """Last component of a dotted field path ('topology.bottleneck.rate' -> 'rate')."""
    return field.rsplit(".", 1)[-1] or field


def _bound_msg(field: str, **bounds: float | None) -> str:
    ops = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<"}
    parts = [f"{ops[k]} {v}" for k, v in bounds.items() if v is not None]
    return f"{_short(field)} must be " + " and ".join(parts)


def _check_bounds(v: float, value: object, field: str, **b: float | None) -> None:
    ok = (
        (b.get("ge") is None or v >= b["ge"])
        and (b.get("gt") is None or v > b["gt"])
        and (b.get("le") is None or v <= b["le"])
        and (b.get("lt") is None or v < b["lt"])
    )
    if not ok:
        raise ScenarioError(field, value, _bound_msg(field, **b))


def check_int(value: object, field: str, *, ge: int | None = None, le: int | None = None) -> int:
    """An int (not bool) within the inclusive bounds."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise ScenarioError(field, value, f"{_short(field)} must be an integer")
    if abs(value) > MAX_INT:
        raise ScenarioError(field, value, f"{_short(field)} overflows a 64-bit integer")
    _check_bounds(value, value, field, ge=ge, le=le)
    return value


def check_float(
    value: object,
    field: str,
    *,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    lt: float | None = None,
) -> float:
    """A finite real number (int accepted, bool rejected) within bounds, returned as float."""
    if not _is_number(value) or not math.isfinite(value):
        raise ScenarioError(field, value, f"{_short(field)} must be a finite number")
    _check_bounds(float(value), value, field, ge=ge, gt=gt, le=le, lt=lt)
    return float(value)


def check_bool(value: object, field: str) -> bool:
    if not isinstance(value, bool):
        raise ScenarioError(field, value, f"{_short(field)} must be true or false")
    return value


def check_str(value: object, field: str) -> str:
    if not isinstance(value, str):
        raise ScenarioError(field, value, f"{_short(field)} must be a string")
    return value


def check_choice(value: object, field: str, choices: Iterable[str]) -> str:
    choices = list(choices)
    if value not in choices:
        raise ScenarioError(field, value, f"{_short(field)} must be one of {', '.join(choices)}")
    return value  # type: ignore[return-value]


def check_kind(value: object, field: str, known: Iterable[str]) -> str:
    """A registry key; otherwise UnknownKindError listing the known kinds and the closest one."""
    known = sorted(known)
    if isinstance(value, str) and value in known:
        return value
    close = difflib.get_close_matches(str(value), known, n=1)
    hint = f"did you mean {close[0]!r}?" if close else ""
    raise UnknownKindError(field, value, f"known kinds: {', '.join(known)}", hint)


def check_time(value: object, field: str, *, positive: bool = False) -> float:
    seconds = parse_time(value, field)
    if positive and seconds <= 0:
        raise ScenarioError(field, value, f"{_short(field)} must be > 0")
    return seconds


def check_list(value: object, field: str) -> list[Any]:
    if not isinstance(value, (list, tuple)):
        raise ScenarioError(field, value, f"{_short(field)} must be a list")
    return list(value)


def check_mapping(value: object, field: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ScenarioError(field, value, "must be a table/dict")
    return value


def check_keys(d: Mapping[str, Any], allowed: Iterable[str], prefix: str = "") -> None:
    """Reject keys not in ``allowed``, naming the key and listing the allowed ones."""
    allowed = list(allowed)
    for key in d:
        if key not in allowed:
            close = difflib.get_close_matches(str(key), allowed, n=1)
            hint = f"did you mean {close[0]!r}?" if close else ""
            path = f"{prefix}.{key}" if prefix else str(key)
            raise ScenarioError(
                path, d[key], f"unknown key; allowed keys: {', '.join(allowed)}", hint
            )


def _hint_of(err: ScenarioError) -> str:
    base = f"{err.field} = {err.value!r} is invalid: {err.allowed}"
    rest = str(err)[len(base) :]
    return rest[2:-1] if rest.startswith(" (") and rest.endswith(")") else ""


def rewrap(err: ScenarioError, prefix: str) -> ScenarioError:
    """The same error (same class) with ``prefix`` prepended to its field path."""
    if not prefix:
        return err
    if not err.field:
        field = prefix
    elif err.field.startswith("["):
        field = f"{prefix}{err.field}"
    else:
        field = f"{prefix}.{err.field}"
    new = type(err)(field, err.value, err.allowed, _hint_of(err))
    return new


@contextmanager
def prefixed(prefix: str) -> Iterator[None]:
    """Re-raise any ScenarioError raised inside with ``prefix`` prepended to its field."""
    try:
        yield
    except ScenarioError as err:
        raise rewrap(err, prefix) from None


def plain(value: Any) -> Any:
    """Convert specs, tuples and dicts recursively into JSON-able dicts/lists/scalars."""
    if isinstance(value, Spec):
        return value.to_dict()
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    return value


S = TypeVar("S", bound="Spec")


class Spec:
    """Mixin for frozen spec dataclasses: generic ``to_dict``/``from_dict`` and a ``kind`` check.

    Subclasses set ``KIND`` when they are polymorphic; their ``kind`` field must equal it.
    """

    KIND: ClassVar[str | None] = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict of every field (defaults and None included)."""
        return {f.name: plain(getattr(self, f.name)) for f in dataclasses.fields(self)}  # type: ignore[arg-type]

    @classmethod
    def from_dict(cls: type[S], d: Mapping[str, Any], field: str = "") -> S:
        """Build from a dict; unknown/missing keys and bad values raise ScenarioError.

        ``field`` is the dotted path of ``d`` inside its container, prefixed to error fields.
        """
        if not isinstance(d, Mapping):
            raise ScenarioError(field or cls.__name__, d, "must be a table/dict")
        with prefixed(field):
            names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
            check_keys(d, names)
            for f in dataclasses.fields(cls):  # type: ignore[arg-type]
                missing = f.default is dataclasses.MISSING
                if missing and f.default_factory is dataclasses.MISSING and f.name not in d:
                    raise ScenarioError(f.name, None, "required key missing")
            return cls(**d)

    def _check_kind(self) -> None:
        kind = getattr(self, "kind", None)
        if self.KIND is not None and kind != self.KIND:
            raise ScenarioError("kind", kind, f"must be {self.KIND!r} for {type(self).__name__}")


def coerce(value: Any, cls: type[S], field: str) -> S:
    """``value`` if it is a ``cls``, else ``cls.from_dict(value, field)`` for a mapping."""
    if isinstance(value, cls):
        return value
    if isinstance(value, Mapping):
        return cls.from_dict(value, field)
    raise ScenarioError(field, value, f"must be a {cls.__name__} or a table/dict")


def set_attr(obj: object, name: str, value: Any) -> None:
    """Normalise a field of a frozen dataclass inside ``__post_init__``."""
    object.__setattr__(obj, name, value)
