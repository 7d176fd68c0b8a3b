"""Claims: concurrent sweeps on one store simulate each run once.

Before a sweep starts a run it claims the run's key: it creates
``<store>/claims/<version>/<key>.claim`` exclusively (``O_CREAT | O_EXCL``, atomic on local
file systems and NFS v3+), holding its host, pid and a random token. Another sweep that
finds the claim leaves the run alone and picks it up from the store once it is there. The
owner refreshes the mtime of its claims while it runs (:meth:`Claims.refresh`) and removes
them when the result (or the failure) is stored, or when it stops.

A claim is *stale*, and is taken over, when its owner is gone: a process of this host that
no longer exists, or a claim not refreshed for :data:`STALE_S` seconds (another host, or a
pid reused). Taking over renames the stale file away first, so only one sweep can win it.
"""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path
from typing import Any

from aqmlab.workers.pool import pid_alive

__all__ = ["Claims", "REFRESH_S", "STALE_S"]

#: Owners refresh their claims this often; a claim this much older is stale.
REFRESH_S = 10.0
STALE_S = 120.0


class Claims:
    """The claims of one sweep (one process) in the store under ``root`` for ``version``."""

    def __init__(self, root: str | os.PathLike, version: str, *, stale_s: float = STALE_S,
                 refresh_s: float = REFRESH_S) -> None:
        self.folder = Path(root) / "claims" / version
        self.stale_s = stale_s
        self.refresh_s = refresh_s
        self.host = socket.gethostname()
        self.pid = os.getpid()
        self._mine: dict[str, str] = {}  # key -> token
        self._refreshed = time.monotonic()

    def path(self, key: str) -> Path:
        return self.folder / f"{key}.claim"

    def claim(self, key: str) -> bool:
        """Claim run ``key``; False if a live claim of another sweep holds it."""
        if key in self._mine:
            return True
        self.folder.mkdir(parents=True, exist_ok=True)
        for _ in range(2):
            token = os.urandom(8).hex()
            try:
                fd = os.open(self.path(key), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            except FileExistsError:
                if not self._take_over_if_stale(key):
                    return False
                continue
            with os.fdopen(fd, "w") as f:
                json.dump({"host": self.host, "pid": self.pid, "token": token,
                           "claimed": time.time()}, f)
            self._mine[key] = token
            return True
        return False

    def release(self, key: str) -> None:
        """Give up the claim of ``key`` (if it is still ours)."""
        token = self._mine.pop(key, None)
        if token is not None and (self.holder(key) or {}).get("token") == token:
            self.path(key).unlink(missing_ok=True)

    def release_all(self) -> None:
        for key in list(self._mine):
            self.release(key)

    def refresh(self, force: bool = False) -> None:
        """Touch our claims (at most every ``refresh_s`` seconds unless ``force``)."""
        now = time.monotonic()
        if not force and now - self._refreshed < self.refresh_s:
            return
        self._refreshed = now
        for key in list(self._mine):
            try:
                os.utime(self.path(key))
            except FileNotFoundError:  # taken from us as stale: the other sweep runs it too
                self._mine.pop(key, None)

    def holder(self, key: str) -> dict[str, Any] | None:
        """The claim's content (host, pid, token, claimed), {} if unreadable, None if none."""
        try:
            return json.loads(self.path(key).read_text())
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            return {}

    def is_stale(self, key: str) -> bool:
        path = self.path(key)
        try:
            age = time.time() - path.stat().st_mtime
        except FileNotFoundError:
            return False
        if age > self.stale_s:
            return True
        info = self.holder(key) or {}
        if info.get("host") == self.host and isinstance(info.get("pid"), int):
            return not pid_alive(info["pid"])
        return False

    def _take_over_if_stale(self, key: str) -> bool:
        """Remove a stale claim (renamed away first: one taker wins); True if removed."""
        path = self.path(key)
        try:
            inode = path.stat().st_ino
        except FileNotFoundError:
            return True  # released meanwhile: try to claim it
        if not self.is_stale(key):
            return False
        grave = path.with_name(f".{key}.{os.urandom(4).hex()}.stale")
        try:
            os.rename(path, grave)
        except FileNotFoundError:
            return True
        if grave.stat().st_ino != inode:  # another taker won and claimed it anew: give back
            try:
                os.link(grave, path)
            except FileExistsError:
                pass
            grave.unlink(missing_ok=True)
            return False
        grave.unlink(missing_ok=True)
        return True

