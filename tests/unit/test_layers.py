"""The house's layers only point down: scenario (pure data) -> plan -> engines -> workers
-> campaign -> studies / widgets -> notebooks -> figures -> cli. Every import of every
module (function-level ones included) is checked against this order, module-level imports
must form no cycle, and a lazy import must say why it is lazy."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.conftest import ROOT

PKG = ROOT / "aqmlab"

#: Layers, lowest first; a module may import its own layer and the ones before it.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("foundation", ("aqmlab", "aqmlab.errors", "aqmlab.units", "aqmlab.__main__")),
    ("workload", ("aqmlab.workload",)),
    ("kinds", ("aqmlab.kinds",)),
    ("scenario", ("aqmlab.scenario",)),
    ("plan", ("aqmlab.plan",)),
    ("results", ("aqmlab.results",)),
    ("engines", ("aqmlab.engines",)),
    ("workers", ("aqmlab.workers",)),
    ("campaign", ("aqmlab.campaign",)),
    ("studies", ("aqmlab.studies",)),
    ("widgets", ("aqmlab.widgets",)),
    ("notebooks", ("aqmlab.notebooks",)),
    ("figures", ("aqmlab.figures",)),
    ("cli", ("aqmlab.cli",)),
]
#: Layers of the same rank that must not import each other.
SIBLINGS = {("studies", "widgets"), ("widgets", "studies")}
#: ``aqmlab/__main__`` runs the CLI: the one module allowed to point to the top.
ENTRY_POINTS = {"aqmlab.__main__"}
#: Lazy (function-level) imports allowed in the whole package; each must give its reason.
MAX_LAZY = 8


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> int:
    best, rank = -1, -1
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > best:
                best, rank = len(p), i
    assert rank >= 0, f"{module} belongs to no layer: add it to LAYERS"
    return rank


def imports(path: Path) -> list[tuple[str, int, bool]]:
    """(imported aqmlab module, line, at module level) for every import in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = set(tree.body)
    own = module_name(path)
    out = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = own.split(".")[: len(own.split(".")) - node.level + (path.name == "__init__.py")]
                base = ".".join([*pkg, base] if base else pkg)
            names = [base] + [f"{base}.{a.name}" for a in node.names]
        for n in names:
            if n == "aqmlab" or n.startswith("aqmlab."):
                out.append((n, node.lineno, node in top))
    return out


def resolve(name: str) -> str | None:
    """The aqmlab module an imported name refers to (``aqmlab.scenario.Scenario`` ->
    ``aqmlab.scenario``), None for a name that is no module."""
    parts = name.split(".")
    while parts:
        cand = PKG.parent.joinpath(*parts)
        if cand.with_suffix(".py").exists() or (cand / "__init__.py").exists():
            return ".".join(parts)
        parts.pop()
    return None


SOURCES = sorted(PKG.rglob("*.py"))


def test_every_module_has_a_layer():
    for path in SOURCES:
        layer_of(module_name(path))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_point_down(path):
    own = module_name(path)
    if own in ENTRY_POINTS:
        return
    mine = layer_of(own)
    for name, line, _ in imports(path):
        target = resolve(name)
        if target is None or target == own:
            continue
        theirs = layer_of(target)
        up = theirs > mine
        sideways = (LAYERS[mine][0], LAYERS[theirs][0]) in SIBLINGS
        assert not (up or sideways), (
            f"{path.relative_to(ROOT)}:{line}: {own} ({LAYERS[mine][0]}) imports {target} "
            f"({LAYERS[theirs][0]}), a layer {'above' if up else 'beside'} it")


def test_module_level_imports_form_no_cycle():
    graph: dict[str, set[str]] = {}
    for path in SOURCES:
        own = module_name(path)
        deps = {resolve(n) for n, _, top in imports(path) if top}
        graph[own] = {d for d in deps if d and d != own and not own.startswith(d + ".")}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for d in sorted(graph.get(m, ())):
            if state.get(d) == 1:
                raise AssertionError("import cycle: " + " -> ".join([*stack[stack.index(d):], d]))
            if d not in state:
                visit(d)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)


LAZY = re.compile(r"#\s*noqa:\s*PLC0415(.*)$")


def test_lazy_imports_are_few_and_say_why():
    found = []
    for path in SOURCES:
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            m = LAZY.search(line)
            if m:
                found.append(f"{path.relative_to(ROOT)}:{i}")
                assert re.search(r"\w", m.group(1)), (
                    f"{path.relative_to(ROOT)}:{i}: a lazy import must say why, e.g. "
                    "'# noqa: PLC0415  (papermill loads Jupyter: only when a notebook runs)'")
    assert len(found) <= MAX_LAZY, f"{len(found)} lazy imports: {found}"
