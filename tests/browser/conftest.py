"""Fixtures of the browser test: Debian's Chromium, and a JupyterLab server on localhost.

Chromium comes from Debian's packages (``apt-get install chromium``) when it is missing; no
tool downloads a browser build. Without Chromium or Playwright the test is skipped on a
developer's machine and fails in CI (``CI`` set), where it is required.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"browser test required in CI: {reason}", pytrace=False)
    pytest.skip(reason)


def _apt_install_chromium() -> str:
    """Install Debian's chromium; returns "" on success, else what went wrong."""
    if shutil.which("apt-get") is None:
        return "no apt-get on this machine"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for cmd in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "chromium"]):
        try:
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900,
                                  stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as err:
            return f"{' '.join(cmd)}: {err}"
        if proc.returncode != 0:
            return f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr[-1500:]}"
    return ""


@pytest.fixture(scope="session")
def chromium_path() -> Path:
    """Debian's /usr/bin/chromium, installed with apt-get if it is missing."""
    if not CHROMIUM.exists():
        problem = _apt_install_chromium()
        if problem or not CHROMIUM.exists():
            _unavailable(f"Debian chromium is not installed and could not be: "
                         f"{problem or 'no /usr/bin/chromium after apt-get'}")
    return CHROMIUM


@pytest.fixture(scope="session")
def browser(chromium_path: Path):
    """A headless Chromium driven by Playwright (the pip package and its bundled driver)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package is missing (pip install -e '.[dev]')")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(chromium_path), headless=True,
                               args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_http(url: str, proc: subprocess.Popen, log: Path, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"jupyter lab exited {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"jupyter lab did not answer {url} in {timeout} s:\n"
                       f"{log.read_text()[-3000:]}")


@pytest.fixture(scope="session")
def jupyter_lab(tmp_path_factory: pytest.TempPathFactory):
    """``jupyter lab`` on 127.0.0.1 serving a temporary copy of notebooks/; yields
    ``(base_url, token, root)``. Its own config/runtime folders; a fresh result store
    (the lab notebook's ``../data``), so every run is really simulated."""
    tmp = tmp_path_factory.mktemp("lab")
    root = tmp / "notebooks"
    shutil.copytree(NOTEBOOKS, root, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    config = tmp / "jupyter-config"
    settings = config / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(
        '{"fetchNews": "false", "checkForUpdates": false}')
    port, token = _free_port(), secrets.token_hex(16)
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(config),
           "JUPYTER_RUNTIME_DIR": str(tmp / "jupyter-runtime"), "IPYTHONDIR": str(tmp / "ipython"),
           "MPLBACKEND": "module://matplotlib_inline.backend_inline"}
    log = tmp / "jupyter.log"
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}",
           "--ServerApp.ip=127.0.0.1", "--ServerApp.port_retries=0",
           f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
           "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
           "--LabApp.extension_manager=readonly"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")  # CI and this project's machines run as root
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_http(f"{base}/api/status?token={token}", proc, log)
        yield base, token, root
    finally:
        # the server, its kernels and their simulation workers share the new session
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # stragglers (kernel, worker) of the group
        except ProcessLookupError:
            pass
