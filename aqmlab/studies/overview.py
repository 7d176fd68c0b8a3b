"""One page over every study's claim table (``<out>/claims.md``, written by ``aqmlab
figures``): per study how many claims each engine reproduces and how the two verdicts read
together, then every claim that either engine misses as paper | ns-2.35 | aqmlab.

It reads the saved ``claims.csv`` tables, so the page can be rebuilt from a ``figures/``
folder (or the copies kept in ``notebooks/quick-profile/``) without running anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from aqmlab.studies.claims import NOT_RUN_ON_REFERENCE, NOT_TESTED, READINGS, tally

__all__ = ["COUNTS", "counts", "overview", "read_tables"]

#: The columns of the counts table.
COUNTS = ["tested", "ns-3 yes", "ns-3 no", "no data", "ns-2.35 yes", "ns-2.35 no", *READINGS]


def read_tables(folder: str | Path, pattern: str = "*/claims.csv") -> dict[str, pd.DataFrame]:
    """Every claim table under ``folder`` by notebook (``figures/<notebook>/claims.csv``; for
    kept copies ``pattern="*.claims.csv"``, named ``<notebook>.claims.csv``), all cells as
    text, in path order."""
    tables = {}
    for path in sorted(Path(folder).glob(pattern)):
        t = pd.read_csv(path, dtype=str, keep_default_na=False)
        if len(t):
            name = path.parent.name if path.name == "claims.csv" else path.name.split(".")[0]
            tables[name] = t
    return tables


def counts(table: pd.DataFrame) -> dict[str, int]:
    """The counts row of one saved claim table (:func:`aqmlab.studies.claims.tally`): claims
    the profile tests (``reproduced`` not "not tested"), ns-3's yes / no / no data, ns-2.35's
    yes / no and the joint readings (zero where the table has no ns-2.35 verdicts)."""
    tested = table[table.reproduced != NOT_TESTED]
    ref = tested.reproduced_ns2 if "reproduced_ns2" in tested else None
    c = tally(tested.reproduced, ref)
    return {"tested": c["claims"], "ns-3 yes": c["yes"], "ns-3 no": c["no"],
            "no data": c["no data"], "ns-2.35 yes": c.get("ns2 yes", 0),
            "ns-2.35 no": c.get("ns2 no", 0), **{name: c.get(name, 0) for name in READINGS}}


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _ns2_value(claim: pd.Series) -> str:
    """ns-2.35's value and verdict of a claim row: "-" for a table without the reference
    engine, "not run" for an arm ns-2.35 cannot run."""
    if "reproduced_ns2" not in claim:
        return "-"
    if claim.engines == NOT_RUN_ON_REFERENCE:
        return "not run"
    return f"{claim.measured_ns2} ({claim.reproduced_ns2})"


def overview(tables: Mapping[str, pd.DataFrame], title: str = "") -> str:
    """The page as Markdown: the counts table (one row per notebook and a total) and the
    claims either engine does not reproduce, with the paper's, ns-2.35's and ns-3's values,
    the reading and the table's note."""
    rows = {study: counts(t) for study, t in tables.items()}
    total = {c: sum(r[c] for r in rows.values()) for c in COUNTS}
    lines = [f"# Where the claims stand{': ' + title if title else ''}", "",
             "| study | " + " | ".join(COUNTS) + " |", "|---" * (len(COUNTS) + 1) + "|"]
    for study, r in [*rows.items(), ("all", total)]:
        name = f"`{study}`" if study != "all" else "**all**"
        lines.append(f"| {name} | " + " | ".join(str(r[c]) for c in COUNTS) + " |")
    lines += ["", "## Claims an engine does not reproduce", "",
              "| study | claim | paper | ns-2.35 | aqmlab (ns-3) | reading | note |",
              "|---|---|---|---|---|---|---|"]
    for study, t in tables.items():
        ref = t.get("reproduced_ns2", pd.Series([""] * len(t), index=t.index))
        missed = t[(t.reproduced == "no") | (ref == "no")]
        for _, c in missed.iterrows():
            lines.append(f"| `{study}` | `{c.claim}`: {_cell(c.text)} | {_cell(c.paper)} | "
                         f"{_cell(_ns2_value(c))} | {_cell(c.measured)} ({c.reproduced}) | "
                         f"{_cell(c.get('engines', ''))} | {_cell(c.note)} |")
    return "\n".join(lines) + "\n"
