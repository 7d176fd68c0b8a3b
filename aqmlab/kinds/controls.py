"""What the explorer needs to offer a kind's parameters as widgets: pure data, no ipywidgets.

A kind lists its :class:`Control` s; the explorer makes one widget per control, shows it
while the kind is selected, converts its number to the scenario field's value (``unit``)
and routes a ScenarioError on ``field`` back to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aqmlab.units import parse_time

__all__ = ["Control"]


def _num(x: float) -> str:
    return f"{x:g}"


@dataclass(frozen=True)
class Control:
    """One numeric parameter of a kind.

    ``field`` the kind's field it sets; ``label`` the widget's description; ``short`` the
    name in legends and summary tables (default: ``field``); ``unit`` how the number
    becomes the field's value: "" (the number itself), "ms" (a duration string such as
    "5ms"); ``default``, ``lo``, ``hi``, ``step`` the widget's range; ``integer`` an
    integer widget."""

    field: str
    label: str
    default: float
    lo: float
    hi: float
    step: float
    unit: str = ""
    short: str = ""
    integer: bool = False

    @property
    def name(self) -> str:
        return self.short or self.field

    def to_field(self, value: float) -> Any:
        """The scenario field's value for the widget's number."""
        if self.unit == "ms":
            return f"{_num(value)}ms"
        return int(value) if self.integer else float(value)

    def describe(self, field_value: Any) -> str:
        """The field's value as legends and tables show it ("5 ms", "0.1")."""
        if self.unit == "ms":
            return f"{parse_time(field_value, self.field) * 1e3:.3g} ms"
        return f"{field_value:g}"
