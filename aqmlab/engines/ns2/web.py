"""Web connections on ns-2 (filled in by the PackMime stages)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from aqmlab.plan import Plan
from aqmlab.scenario import Scenario


@dataclass
class WebPart:
    """The web part of a script: Tcl library, DelayBox nodes, setup lines, data files."""

    library: str = ""
    delay_nodes: list[int] = field(default_factory=list)
    setup: list[str] = field(default_factory=list)
    data: dict[str, str] = field(default_factory=dict)

    def write_data(self, workdir: Path) -> None:
        for name, text in self.data.items():
            (workdir / name).write_text(text)

    def results(self, workdir: Path, plan: Plan):
        """The web connections' columns (None without web traffic)."""
        return None


def web_part(scenario: Scenario, plan: Plan) -> WebPart:
    return WebPart()
