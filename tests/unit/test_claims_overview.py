"""The one-page overview of the claim tables (``aqmlab/studies/overview.py``)."""

from __future__ import annotations

import pandas as pd

from aqmlab.studies.claims import ClaimTable
from aqmlab.studies.overview import COUNTS, counts, overview, read_tables


def _tables(tmp_path):
    """Two saved studies: one with ns-2.35 verdicts (every reading once, a claim not tested,
    one without data), one without a reference engine."""
    ns3 = ClaimTable("alpha")
    ref = ClaimTable("alpha")
    for cid, a, b in [("A-both", 1.0, 1.0), ("A-era", 3.0, 3.0), ("A-ours", 3.0, 1.0),
                      ("A-ns3", 1.0, 3.0), ("A-norun", 1.0, None), ("A-nodata", None, 1.0)]:
        ns3.add(cid, f"claim {cid} | with a bar", 1.0, a, "abs within", 0.5)
        ref.add(cid, f"claim {cid} | with a bar", 1.0, b, "abs within", 0.5)
    ns3.add("A-skip", "not tested", 1.0, 9.0, "abs within", 0.5, tested=False)
    ref.add("A-skip", "not tested", 1.0, 9.0, "abs within", 0.5, tested=False)
    ns3.with_reference(ref).save(tmp_path / "alpha")
    beta = ClaimTable("beta")
    beta.add("B-yes", "holds", 2.0, 2.1, "abs within", 0.5)
    beta.add("B-no", "misses", 2.0, 5.0, "abs within", 0.5)
    beta.save(tmp_path / "beta")
    return read_tables(tmp_path)


def test_counts_read_both_verdicts_and_every_reading(tmp_path):
    """Tested claims leave out "not tested"; each joint reading is counted once; a table
    without a reference engine counts zero for ns-2.35."""
    tables = _tables(tmp_path)
    assert list(tables) == ["alpha", "beta"]
    assert counts(tables["alpha"]) == {
        "tested": 6, "ns-3 yes": 3, "ns-3 no": 2, "no data": 1, "ns-2.35 yes": 3,
        "ns-2.35 no": 2, "both": 1, "paper's era": 1, "aqmlab's": 1, "ns-3 only": 1,
        "not run on ns-2.35": 1}
    beta = counts(tables["beta"])
    assert (beta["tested"], beta["ns-3 yes"], beta["ns-3 no"]) == (2, 1, 1)
    assert beta["ns-2.35 yes"] == beta["ns-2.35 no"] == beta["both"] == 0


def test_overview_totals_and_lists_every_miss_of_either_engine(tmp_path):
    """The page's total row sums the studies; every claim that ns-3 or ns-2.35 misses is
    listed once with both engines' values (a bar in a text does not break the table), and
    no claim both engines reproduce is."""
    tables = _tables(tmp_path)
    page = overview(tables, "test")
    lines = page.splitlines()
    assert lines[0] == "# Where the claims stand: test"
    total = next(line for line in lines if line.startswith("| **all** |"))
    cells = [c.strip() for c in total.strip().strip("|").split("|")][1:]
    summed = [sum(counts(t)[c] for t in tables.values()) for c in COUNTS]
    assert cells == [str(v) for v in summed]
    listed = [line for line in lines if line.startswith("| `alpha` | `") or
              line.startswith("| `beta` | `")]
    ids = [line.split("`")[3] for line in listed]
    assert ids == ["A-era", "A-ours", "A-ns3", "B-no"]
    ours = next(line for line in listed if "`A-ours`" in line)
    assert "\\|" in ours and len(ours.replace("\\|", "").split("|")) == 9
    assert "| 1 (yes) |" in ours and "| 3 (no) |" in ours
    assert "| - |" in next(line for line in listed if "`B-no`" in line)


def test_read_tables_skips_empty_tables(tmp_path):
    (tmp_path / "empty").mkdir()
    pd.DataFrame(columns=["study", "claim"]).to_csv(tmp_path / "empty" / "claims.csv",
                                                    index=False)
    assert read_tables(tmp_path) == {}


def test_a_saved_table_counts_as_its_live_table(tmp_path):
    """The page's counts of a saved table are the live table's own counts (one verdict
    counter): the same numbers for every reading, less the claims not tested."""
    live = ClaimTable("gamma")
    ref = ClaimTable("gamma")
    for k, (a, b) in enumerate([(1.0, 1.0), (3.0, 3.0), (3.0, 1.0), (1.0, 3.0), (1.0, None),
                                (None, 1.0), (3.0, None)]):
        live.add(f"G-{k}", "claim", 1.0, a, "abs within", 0.5)
        ref.add(f"G-{k}", "claim", 1.0, b, "abs within", 0.5)
    live.add("G-skip", "not tested", 1.0, 9.0, "abs within", 0.5, tested=False)
    ref.add("G-skip", "not tested", 1.0, 9.0, "abs within", 0.5, tested=False)
    live.with_reference(ref).save(tmp_path / "gamma")
    c = live.counts()
    saved = counts(read_tables(tmp_path)["gamma"])
    assert saved["tested"] == c["claims"] - c["not tested"] == 7
    assert (saved["ns-3 yes"], saved["ns-3 no"], saved["no data"]) == (c["yes"], c["no"],
                                                                        c["no data"])
    assert (saved["ns-2.35 yes"], saved["ns-2.35 no"]) == (c["ns2 yes"], c["ns2 no"])
    for reading in ("both", "paper's era", "aqmlab's", "ns-3 only", "not run on ns-2.35"):
        assert saved[reading] == c[reading], reading
    assert c["not run on ns-2.35"] == 2
