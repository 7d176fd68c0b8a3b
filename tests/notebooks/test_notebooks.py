"""The study notebooks: their structure (no ns-3), and every one executed by papermill in
the tiny profile (ns-3): no failing cell, a claims.csv with the claim columns, and at least
one non-empty PNG (with its SVG and data) per study."""

from __future__ import annotations

import nbformat
import pandas as pd
import pytest

from aqmlab.figures import estimate, regenerate
from aqmlab.notebooks import NOTEBOOKS, NotebookError
from aqmlab.studies import STUDIES, load_study
from aqmlab.studies.claims import COLUMNS, ENGINE_VERDICTS, NO_DATA, NOT_TESTED, REFERENCE_COLUMNS
from aqmlab.studies.overview import counts, overview, read_tables

COMMON = {"profile", "seeds", "workers", "scheduler", "stored_only", "out", "store", "reference"}


@pytest.mark.parametrize("name", list(STUDIES))
def test_notebook_structure(name):
    """Stored stripped; a markdown title first; a 'parameters' cell whose names are the
    common ones plus parameters of the study's profile (so papermill can set them)."""
    import papermill as pm

    path = NOTEBOOKS / f"{name}.ipynb"
    nb = nbformat.read(path, as_version=4)
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# ")
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1 and tagged[0] is nb.cells[1]
    for c in nb.cells:
        if c.cell_type == "code":
            assert not c.outputs and c.execution_count is None, "outputs must be stripped"
    declared = set(pm.inspect_notebook(str(path)))
    own = set(load_study(name).profile("quick").values)
    assert COMMON <= declared
    assert declared - COMMON <= own, f"{declared - COMMON - own} are not profile parameters"


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """Every notebook run once in the tiny profile (runs first, through one pool)."""
    root = tmp_path_factory.mktemp("notebooks")
    report = regenerate("tiny", out=root / "figures", store=root / "data", workers=2)
    return root / "figures", {row["study"]: row for row in report.rows}


@pytest.mark.ns3
def test_estimate_after_a_regeneration_counts_the_stored_runs(executed):
    """Once a profile ran, nothing is missing and the measured CPU is reported beside the
    cost model's figure for the same runs."""
    out, _ = executed
    rows = estimate("tiny", store=out.parent / "data")
    assert [r["study"] for r in rows] == list(STUDIES)
    assert sum(r["stored"] for r in rows) > 0
    for r in rows:
        assert r["missing"] == 0 and r["cpu_hours"] == 0, r
        assert r["stored"] == r["new"], r
        if r["stored"]:
            assert 0 < r["stored_cpu_hours"] and 0 < r["stored_model_hours"], r


@pytest.mark.ns3
@pytest.mark.parametrize("name", list(STUDIES))
def test_notebook_executes_in_tiny_profile(executed, name):
    out, rows = executed
    row = rows[name]
    assert "error" not in row, row.get("error")
    folder = out / name
    nb = nbformat.read(folder / f"{name}.ipynb", as_version=4)
    assert any(c.get("outputs") for c in nb.cells if c.cell_type == "code")
    claims = pd.read_csv(folder / "claims.csv", keep_default_na=False)
    verdicts = {"yes", "no", NOT_TESTED, NO_DATA}
    if getattr(load_study(name), "REFERENCE", True):  # the second verdict, on ns-2.35
        at = COLUMNS.index("reproduced") + 1
        assert list(claims.columns) == [*COLUMNS[:at], *REFERENCE_COLUMNS, *COLUMNS[at:]]
        assert set(claims.reproduced_ns2) <= verdicts
        assert set(claims.engines) <= {*ENGINE_VERDICTS.values(), NOT_TESTED,
                                       "not run on ns-2.35", "ns-2.35 only", ""}
    else:
        assert list(claims.columns) == COLUMNS
    assert len(claims) >= 5
    assert set(claims.reproduced) <= verdicts
    pngs = [p for p in folder.glob("*.png") if p.stat().st_size > 2000]
    assert pngs, f"no non-empty PNG in {folder}"
    for png in pngs:
        assert png.with_suffix(".svg").exists()
        assert png.with_suffix(".csv").exists() or list(folder.glob(f"{png.stem}-*.csv"))


@pytest.mark.ns3
def test_the_claims_page_counts_every_executed_table(executed):
    """``figures/claims.md`` has one counts row per study, each equal to the counts of that
    study's ``claims.csv``, and lists every claim that ns-3 or ns-2.35 does not reproduce."""
    out, rows = executed
    page = (out / "claims.md").read_text()
    tables = read_tables(out)
    assert set(tables) == set(rows)
    for study, table in tables.items():
        row = next(line for line in page.splitlines() if line.startswith(f"| `{study}` | "))
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        assert cells[1:] == [str(v) for v in counts(table).values()], study
        ref = table.get("reproduced_ns2", pd.Series("", index=table.index))
        for claim in table[(table.reproduced == "no") | (ref == "no")].claim:
            assert f"| `{study}` | `{claim}`: " in page


@pytest.mark.ns3
def test_stored_only_from_the_complete_store_gives_the_same_claims(executed, tmp_path):
    """``--stored-only`` once every run is stored: nothing is missing, no table is interim,
    and every claim table (measured values included) equals the simulating execution's."""
    out, _ = executed
    report = regenerate("tiny", out=tmp_path, store=out.parent / "data", stored_only=True)
    assert report.runs["missing"] == 0 and report.runs["stored"] > 0
    for row in report.rows:
        assert "error" not in row and row["claims"]["interim"] == "", row
        name = row["study"]
        pd.testing.assert_frame_equal(pd.read_csv(tmp_path / name / "claims.csv"),
                                      pd.read_csv(out / name / "claims.csv"))


@pytest.mark.ns3
@pytest.mark.parametrize("keep", ["odd", "one"])
def test_stored_only_with_part_of_the_runs_executes_every_notebook(executed, tmp_path, keep):
    """A campaign under way (or one whose runs partly failed): with only some of its runs
    stored, every notebook still executes, and its claim table says how many were missing."""
    import shutil

    out, _ = executed
    store = tmp_path / "data"
    shutil.copytree(out.parent / "data", store)
    runs = sorted(store.glob("runs/*/*"))
    drop = {"odd": runs[1::2], "one": runs[1:]}[keep]
    for d in drop:
        shutil.rmtree(d)
    report = regenerate("tiny", out=tmp_path / "f", store=store, stored_only=True)
    assert report.runs["missing"] == len(drop) > 0
    for row in report.rows:
        assert "error" not in row, row["error"]
    assert any(row["claims"]["interim"] for row in report.rows)


def test_stored_only_with_an_empty_store_runs_nothing_and_claims_no_data(tmp_path):
    """Every study survives having none of its runs (a campaign just started, or every
    run failed): figures say so, every tested claim reads "no data" (never yes/no), and
    each table is marked interim (through the command line and its report.json)."""
    import json

    from aqmlab.cli import main

    store, out = tmp_path / "data", tmp_path / "f"
    assert main(["figures", "--stored-only", "--store", str(store), "--out", str(out)]) == 0
    report = json.loads((out / "report.json").read_text())
    runs = report["runs"]
    assert report["stored_only"] and runs["stored"] == 0 and runs["missing"] == runs["total"] > 0
    assert not list(store.glob("runs/*/*"))
    assert [r["study"] for r in report["studies"]] == list(STUDIES)
    for row in report["studies"]:
        assert "error" not in row, row["error"]
        c = row["claims"]
        assert c["yes"] == c["no"] == 0 and c["no data"] > 0, row
        assert c["interim"].startswith("interim: "), row
        assert list((out / row["study"]).glob("*.png"))


def test_a_failing_cell_is_named(tmp_path, monkeypatch):
    """run_notebook reports the notebook, the cell and the exception (no ns-3 needed), and
    rejects parameters the notebook does not declare before starting a kernel."""
    import aqmlab.notebooks as nbs

    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell('profile = "quick"\nout = "x"\nstore = "y"\n'
                                       'workers = None\nscheduler = None\nstored_only = False')
    params.metadata["tags"] = ["parameters"]
    nb.cells = [nbformat.v4.new_markdown_cell("# broken"), params,
                nbformat.v4.new_code_cell("x = 1"),
                nbformat.v4.new_code_cell("raise ValueError('boom in cell four')")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    (tmp_path / "nbs").mkdir()
    nbformat.write(nb, tmp_path / "nbs" / "broken.ipynb")
    monkeypatch.setattr(nbs, "NOTEBOOKS", tmp_path / "nbs")
    with pytest.raises(nbs.NotebookError, match="unknown parameter"):
        nbs.run_notebook("broken", out=tmp_path / "out", bogus=1)
    with pytest.raises(nbs.NotebookError, match=r"broken: cell .*ValueError: boom in cell four"):
        nbs.run_notebook("broken", out=tmp_path / "out")
    assert (tmp_path / "out" / "broken" / "broken.ipynb").exists()


def test_the_claims_page_leaves_out_a_failed_notebooks_old_table(tmp_path, monkeypatch):
    """A notebook that fails in this regeneration is not on ``claims.md``, even where an
    earlier run left its ``claims.csv`` in the folder; one that ran is (no ns-3 needed)."""
    import aqmlab.figures as figs
    from aqmlab.studies.claims import ClaimTable

    old = ClaimTable("tail_drop")
    old.add("T-old", "an old verdict", 1.0, 1.0, "abs within")
    old.save(tmp_path / "tail_drop_tuning")

    def fake(name, profile, out, *args, **kw):
        if name == "tail_drop_tuning":
            raise NotebookError("tail_drop_tuning: cell 3: boom")
        table = ClaimTable("ecn_bulk")
        table.add("P-new", "a verdict of this run", 1.0, 1.0, "abs within")
        return table.save(tmp_path / name).with_name(f"{name}.ipynb")

    monkeypatch.setattr(figs, "run_notebook", fake)
    report = figs.regenerate("quick", out=tmp_path, store=tmp_path / "data", prefetch=False,
                             only=["tail_drop_tuning", "ecn_bulk"])
    assert [r["study"] for r in report.failed] == ["tail_drop_tuning"]
    page = (tmp_path / "claims.md").read_text()
    assert "| `ecn_bulk` | 1 | 1 |" in page and "tail_drop_tuning" not in page


def test_set_overrides_a_parameter_in_plan_and_estimate(tmp_path):
    """``aqmlab figures --set seeds=[1]``: one replication of the full grids (a third of
    tail_drop_tuning's 3-seed runs); a name a selected notebook lacks fails before
    planning, naming the study, the name and what the notebook declares (no ns-3)."""
    from aqmlab.cli import _notebook_param
    from aqmlab.notebooks import NotebookError

    full = estimate("full", ["tail_drop_tuning"], store=tmp_path)[0]
    one = estimate("full", ["tail_drop_tuning"], store=tmp_path, params={"seeds": [1]})[0]
    assert full["runs"] == 3 * one["runs"] and one["runs"] > 0
    assert one["cpu_hours"] < full["cpu_hours"]
    with pytest.raises(NotebookError, match=r"ecn_bulk: unknown parameter\(s\) \['loads'\].*qls"):
        estimate("full", ["tail_drop_tuning", "ecn_bulk"], store=tmp_path,
                 params={"loads": [0.9]})
    with pytest.raises(NotebookError, match="unknown parameter"):
        regenerate("tiny", out=tmp_path / "f", store=tmp_path / "d", only=["ecn_bulk"],
                   params={"loads": [0.9]})
    assert _notebook_param("seeds=[1, 2]") == ("seeds", [1, 2])
    assert _notebook_param("loads=0.98") == ("loads", 0.98)
    assert _notebook_param("scheduler=tcp://h:8786") == ("scheduler", "tcp://h:8786")


def test_full_profile_table_matches_the_saved_claim_tables():
    """notebooks/README's full-profile table gives, per study (summed over its rows), the
    claims, reproduced and not-reproduced counts of ``notebooks/full-profile/<study>.claims.csv``."""
    import re

    text = (NOTEBOOKS / "README.md").read_text()
    section = text.split("## Full-profile results so far", 1)[1].split("\n## ", 1)[0]
    counts: dict[str, list[int]] = {}
    for line in section.splitlines():
        m = re.match(r"\| `(\w+)`.*\| (\d+) \| (\d+) \| (\d+) \|$", line)
        if m:
            row = counts.setdefault(m.group(1), [0, 0, 0])
            for i in range(3):
                row[i] += int(m.group(i + 2))
    saved = {p.name.removesuffix(".claims.csv"): pd.read_csv(p)
             for p in (NOTEBOOKS / "full-profile").glob("*.claims.csv")}
    assert set(saved) == set(counts)
    for study, c in saved.items():
        assert counts[study] == [len(c), int((c.reproduced == "yes").sum()),
                                 int((c.reproduced == "no").sum())], study


@pytest.mark.parametrize("kept", ["quick-profile", "full-profile"])
def test_kept_claim_pages_are_the_overview_of_their_tables(kept):
    """``notebooks/<kept>/claims.md`` is what the overview makes of the claim tables kept
    beside it (its title line aside), so the page cannot drift from the tables."""
    folder = NOTEBOOKS / kept
    page = (folder / "claims.md").read_text().splitlines()
    made = overview(read_tables(folder, "*.claims.csv")).splitlines()
    assert page[0].startswith("# Where the claims stand") and page[1:] == made[1:]


def test_readme_claims_standing_is_the_quick_page():
    """notebooks/README's "Where the claims stand" shows the counts table of
    ``quick-profile/claims.md``, row for row."""
    text = (NOTEBOOKS / "README.md").read_text()
    section = text.split("## Where the claims stand", 1)[1].split("\n## ", 1)[0]
    table = (NOTEBOOKS / "quick-profile" / "claims.md").read_text().split("\n\n")[1]
    assert table.startswith("| study | tested |") and table in section
