"""Check a write destination before the first simulation, and name paths in write errors.

:func:`writable_folder` creates a folder if needed and proves it can take a file (a real
write, so permissions, read-only mounts and quotas all show) and that its device has free
space (:data:`MIN_FREE_BYTES`, or ``AQMLAB_MIN_FREE_MB``); :func:`run_folder` also refuses
to replace a folder that is not an aqmlab run. :func:`describe_os_error` turns an
``OSError`` into one line naming the path and what to do. No ns-3.
"""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

from aqmlab.errors import AqmlabError

__all__ = ["DestinationError", "MIN_FREE_BYTES", "describe_os_error", "min_free_bytes",
           "run_folder", "writable_folder"]

#: Free space a destination must have before runs start (a run's tables take 0.1-10 MB).
MIN_FREE_BYTES = 32 * 2**20
MIN_FREE_ENV = "AQMLAB_MIN_FREE_MB"


class DestinationError(AqmlabError, OSError):
    """A folder that results cannot be written to: ``"<path>: <problem>; <what to do>"``.
    Also an OSError: ``DestinationError(errno, message, path)`` keeps the errno."""

    def __str__(self) -> str:
        return self.strerror if self.strerror else super().__str__()


def min_free_bytes() -> int:
    """:data:`MIN_FREE_BYTES`, or ``AQMLAB_MIN_FREE_MB`` MiB when set (0 turns it off)."""
    value = os.environ.get(MIN_FREE_ENV, "").strip()
    try:
        return int(float(value) * 2**20) if value else MIN_FREE_BYTES
    except ValueError:
        raise DestinationError(f"{MIN_FREE_ENV} = {value!r}: give a number of MiB") from None


def writable_folder(path: str | os.PathLike, what: str, option: str = "") -> Path:
    """Create ``path`` (and its parents) if needed and check that a file can be written
    there and its device has free space; raise DestinationError otherwise. ``what``
    names the folder in messages ("store root"), ``option`` the flag that chooses another."""
    folder = Path(path)
    other = f"choose another with {option}" if option else "choose another folder"
    if folder.exists() and not folder.is_dir():
        raise DestinationError(f"{folder}: the {what} is a file, not a folder; {other}")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".aqmlab-write-test.{os.getpid()}.{os.urandom(3).hex()}"
        with open(probe, "xb") as f:
            f.write(b"aqmlab")
            f.flush()
            os.fsync(f.fileno())
        probe.unlink()
    except OSError as err:
        raise DestinationError(f"the {what} cannot be written: "
                               f"{describe_os_error(err, todo=other, at=folder)}") from None
    need = min_free_bytes()
    free = shutil.disk_usage(folder).free
    if free < need:
        raise DestinationError(f"{folder}: only {free / 2**20:.1f} MiB free on the {what}'s "
                               f"device, {need / 2**20:.0f} MiB needed; free space or {other} "
                               f"({MIN_FREE_ENV} sets the minimum)")
    return folder


def run_folder(path: str | os.PathLike, option: str = "--out") -> Path:
    """Check the folder one run will be saved to (replacing an earlier run there): its
    parent must be writable, and an existing folder must be an aqmlab run or empty."""
    target = Path(path)
    if target.exists():
        if not target.is_dir():
            raise DestinationError(f"{target}: is a file; {option} names a folder for the "
                                   "run's tables")
        if any(target.iterdir()) and not (target / "meta.json").exists():
            raise DestinationError(f"{target}: exists and is not an aqmlab run (no meta.json); "
                                   f"saving would replace it, so choose a new {option} folder")
    writable_folder(target.parent if str(target.parent) else Path("."), "output folder",
                    option)
    return target


_ADVICE = {
    errno.ENOSPC: "no space left on the device; free space and run again (stored results "
                  "are kept)",
    errno.EDQUOT: "disk quota exceeded; free space and run again (stored results are kept)",
    errno.EACCES: "permission denied; fix its permissions",
    errno.EPERM: "operation not permitted; fix its permissions",
    errno.EROFS: "the file system is read-only",
    errno.ENOENT: "no such file or folder; check the path",
    errno.EISDIR: "is a folder, not a file",
    errno.ENOTDIR: "a part of the path is a file, not a folder; check the path",
    errno.ENAMETOOLONG: "the file name is too long",
    errno.EEXIST: "already exists",
    errno.ENOTEMPTY: "the folder is not empty",
    errno.EMFILE: "too many open files; raise the limit (ulimit -n)",
    errno.EIO: "input/output error: the device may be failing",
}


def describe_os_error(err: OSError, path: str | os.PathLike | None = None,
                      todo: str = "", *, at: str | os.PathLike | None = None) -> str:
    """One line: ``"<path>: <what happened>; <what to do>"`` for an OSError. The path is
    ``at`` if given, else the error's own file name, else ``path``."""
    where = at if at is not None else err.filename if err.filename is not None else path
    advice = _ADVICE.get(err.errno or 0, err.strerror or str(err))
    if todo and err.errno in (errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC,
                              errno.EDQUOT):
        advice = f"{advice}, or {todo}" if ";" in advice else f"{advice}; {todo}"
    return f"{where}: {advice}" if where is not None else advice
