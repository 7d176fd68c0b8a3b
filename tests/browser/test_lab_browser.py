"""The lab notebook in a real JupyterLab, driven by headless Chromium (see conftest.py).

Opens notebooks/congestion_control_lab.ipynb, runs the cells above the first explorer and
the explorer itself, checks that an invalid combination disables Run, shortens the run,
presses Run, changes the queue, presses Run again, and checks after each run that the
summary table gained a row and the figure changed. Screenshots go to
tests/browser/artifacts/ (git-ignored).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.ns3]

NOTEBOOK = "congestion_control_lab.ipynb"
EXPLORER_CELL = "aqmlab.explore(store=store)"
RUN_TIMEOUT_MS = 180_000


def _shot(page, artifacts: Path, name: str, shots: list[Path], element=None) -> None:
    path = artifacts / name
    (element or page).screenshot(path=str(path))
    shots.append(path)
    print(f"screenshot: {path}")


def _rows(page) -> int:
    return page.locator(".aqmlab-summary tr.aqmlab-summary-row").count()


def _plot_src(page) -> str:
    img = page.locator(".aqmlab-plot img, img.aqmlab-plot").first
    return img.get_attribute("src") or "" if img.count() else ""


def _run_and_wait(page, rows_before: int, src_before: str, while_running=None) -> float:
    run = page.locator("button.aqmlab-run")
    assert run.is_enabled()
    t0 = time.monotonic()
    run.click()
    if while_running is not None:
        while_running()
    page.wait_for_function(
        "n => document.querySelectorAll('.aqmlab-summary tr.aqmlab-summary-row').length > n",
        arg=rows_before, timeout=RUN_TIMEOUT_MS)
    took = time.monotonic() - t0
    assert _rows(page) == rows_before + 1
    page.wait_for_function(
        "old => { const i = document.querySelector('.aqmlab-plot img, img.aqmlab-plot');"
        " return i && i.src && i.src !== old && i.complete && i.naturalWidth > 0; }",
        arg=src_before, timeout=30_000)
    page.wait_for_function("() => !document.querySelector('button.aqmlab-run').disabled",
                           timeout=30_000)
    return took


def _set_number(page, css: str, value: str) -> None:
    box = page.locator(f"{css} input")
    box.fill(value)
    box.press("Enter")


# every code cell above the explorer shows an execution count ("[3]:") once it has run
_ABOVE_RAN = """marker => {
  const cells = [...document.querySelectorAll('.jp-CodeCell')];
  const i = cells.findIndex(c => c.textContent.includes(marker));
  return i > 0 && cells.slice(0, i).every(
    c => /\\[\\d+\\]/.test(c.querySelector('.jp-InputPrompt')?.textContent || ''));
}"""


def _close_dialogs(page) -> list[str]:
    """Close JupyterLab's modal dialogs (its accept button, else Escape); returns their texts.

    Under load JupyterLab can raise one on its own (a kernel restarting, a server request
    timing out); it blocks every click on the notebook until it is answered.
    """
    texts = []
    dialogs = page.locator("dialog.jp-Dialog")
    for _ in range(5):
        if dialogs.count() == 0:
            break
        dialog = dialogs.first
        texts.append(" ".join(dialog.inner_text().split()))
        accept = dialog.locator("button.jp-mod-accept")
        if accept.count():
            accept.first.click()
        else:
            page.keyboard.press("Escape")
        page.wait_for_timeout(500)
    return texts


def _run_cells_above(page, cell, attempts: int = 3) -> None:
    """Run All Above Selected Cell until every cell above shows an execution count.

    A kernel still connecting can drop the execute requests (its first websocket closes
    before it is established, and JupyterLab reconnects); the idle indicator does not tell,
    the execution counts do. So the cells are run again, up to ``attempts`` times, each
    time after answering any dialog JupyterLab raised meanwhile.
    """
    for attempt in range(attempts):
        for text in _close_dialogs(page):
            print(f"closed a JupyterLab dialog: {text!r}")
        cell.locator(".jp-InputArea-editor").click()
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Run All Above Selected Cell").click()
        try:
            page.wait_for_function(_ABOVE_RAN, arg=EXPLORER_CELL, timeout=90_000)
            return
        except Exception:
            if attempt == attempts - 1:
                raise
            print(f"cells above the explorer did not run (attempt {attempt + 1}); again")


def test_explorer_in_jupyterlab(jupyter_lab, browser, artifacts):
    base, token, _root = jupyter_lab
    shots: list[Path] = []
    page = browser.new_page(viewport={"width": 1500, "height": 1100})
    console = []
    page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
    try:
        page.goto(f"{base}/lab/tree/{NOTEBOOK}?token={token}", timeout=120_000)
        page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=120_000)
        # the kernel: idle once started
        page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']",
                               timeout=120_000)

        # select the first explorer cell, run everything above it, then the cell itself
        cell = page.locator(".jp-CodeCell").filter(has_text=EXPLORER_CELL).first
        _run_cells_above(page, cell)
        for text in _close_dialogs(page):
            print(f"closed a JupyterLab dialog: {text!r}")
        cell.locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        explorer = cell.locator(".aqmlab-explorer")
        try:
            explorer.wait_for(timeout=120_000)
        except Exception:
            print("explorer cell output:\n" + cell.locator(".jp-OutputArea").inner_text())
            raise
        explorer.scroll_into_view_if_needed()
        assert _rows(page) == 0
        _shot(page, artifacts, "1-explorer-opened.png", shots)

        # an invalid combination: DCTCP without ECN disables Run and says why
        explorer.locator(".aqmlab-variant select").select_option(label="dctcp")
        page.wait_for_selector(".aqmlab-invalid", timeout=30_000)
        assert page.locator("button.aqmlab-run").is_disabled()
        assert "dctcp" in page.locator(".aqmlab-invalid").inner_text()
        _shot(page, artifacts, "2-invalid-dctcp-without-ecn.png", shots, explorer)
        explorer.locator(".aqmlab-variant select").select_option(label="reno")
        page.wait_for_function("() => !document.querySelector('.aqmlab-invalid')")

        # change a control (a short run), press Run: a first curve and summary row
        _set_number(page, ".aqmlab-duration-s", "6")

        def running() -> None:
            # the first run starts ns-3 (many seconds): progress is shown meanwhile, and the
            # kernel is idle, free to run other cells
            page.wait_for_selector(".aqmlab-elapsed-s", timeout=30_000)
            if _rows(page) == 0:
                assert page.locator("button.aqmlab-run").is_disabled()
                assert page.locator(
                    ".jp-Notebook-ExecutionIndicator[data-status='idle']").count() == 1
                _shot(page, artifacts, "3-running.png", shots, explorer)

        first = _run_and_wait(page, 0, "", running)
        _shot(page, artifacts, "4-first-run.png", shots, explorer)

        # change the queue, press Run: a second curve, a second row naming the difference
        src = _plot_src(page)
        explorer.locator(".aqmlab-queue select").select_option(label="RED")
        page.locator(".aqmlab-red-max-th input").wait_for(state="visible")
        second = _run_and_wait(page, 1, src)
        labels = page.locator(".aqmlab-summary tr.aqmlab-summary-row td:nth-child(2)")
        texts = [labels.nth(i).inner_text() for i in range(labels.count())]
        assert any("queue=red" in t for t in texts), texts
        assert any("queue=droptail" in t for t in texts), texts
        _shot(page, artifacts, "5-second-run-red-overlaid.png", shots, explorer)
        _shot(page, artifacts, "6-full-page.png", shots)
        print(f"explorer runs in the browser: first {first:.1f} s (starts ns-3), "
              f"second {second:.1f} s")
    except Exception:
        _shot(page, artifacts, "failure.png", shots)
        for text in _close_dialogs(page):
            print(f"open JupyterLab dialog at the failure: {text!r}")
        print("\n".join(console[-40:]))
        raise
    finally:
        page.close()
    assert all(p.stat().st_size > 10_000 for p in shots)
