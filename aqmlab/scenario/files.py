"""Reading a scenario or sweep file: every way a file can be wrong is one clear message.

:func:`read_table_file` returns the file's top-level table (a dict) or raises
:class:`ScenarioFileError` naming the path, what is wrong and what to do: missing, a
folder, unreadable, not a regular file, too large, not UTF-8, not TOML/JSON, empty, or a
top level that is not a table. Pure Python; no ns-3.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import tomllib
from pathlib import Path
from typing import Any

from aqmlab.errors import ScenarioError

__all__ = ["MAX_FILE_BYTES", "ScenarioFileError", "read_table_file"]

#: Scenario and sweep files are a few kB; anything beyond this is not one.
MAX_FILE_BYTES = 16 * 2**20
SUFFIXES = (".toml", ".json")


class ScenarioFileError(ScenarioError):
    """A scenario or sweep file that cannot be read as one: ``"<path>: <problem>"``."""

    def __init__(self, field: str, value: object = None, allowed: str = "",
                 hint: str = "") -> None:
        self.field, self.value, self.allowed = field, value, allowed
        Exception.__init__(self, f"{field}: {allowed}" + (f" ({hint})" if hint else ""))


def read_table_file(path: str | os.PathLike, what: str = "scenario") -> dict[str, Any]:
    """The top-level table of a ``.toml`` or ``.json`` ``what`` file (see the module doc)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise ScenarioFileError(str(path), None, f"a {what} file must end in .toml or .json")
    data = _read_bytes(path, what)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ScenarioFileError(
            str(path), None, f"is not UTF-8 text (byte 0x{data[err.start]:02x} at offset "
            f"{err.start}); save it as UTF-8") from None
    try:
        d = tomllib.loads(text) if suffix == ".toml" else json.loads(text) if text.strip() else {}
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as err:
        raise ScenarioFileError(str(path), None, f"invalid {suffix[1:].upper()}: {err}") from None
    except RecursionError:
        raise ScenarioFileError(str(path), None, f"invalid {suffix[1:].upper()}: nested too "
                                "deeply") from None
    if not isinstance(d, dict):
        kind = {list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
            type(d), "a number")
        raise ScenarioFileError(str(path), None, f"the top level must be a table of {what} "
                                f"fields (name, topology, ...), not {kind}")
    if not d:
        raise ScenarioFileError(str(path), None, f"is empty: a {what} file needs at least one "
                                "field (see examples/); nothing was run")
    return d


def _read_bytes(path: Path, what: str) -> bytes:
    """The file's bytes, refusing folders, special files and files too large to be one."""
    try:
        st = path.stat()
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(st.st_mode):
            raise ScenarioFileError(str(path), None, f"is not a regular file; give a {what} "
                                    "file (.toml or .json)")
        if st.st_size > MAX_FILE_BYTES:
            raise ScenarioFileError(str(path), None, f"is {st.st_size / 2**20:,.0f} MiB; a "
                                    f"{what} file is at most {MAX_FILE_BYTES // 2**20} MiB")
        with open(path, "rb") as f:
            return f.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise ScenarioFileError(str(path), None, f"no such file (looked in {Path.cwd()}); "
                                "check the path") from None
    except IsADirectoryError:
        raise ScenarioFileError(str(path), None, f"is a folder, not a {what} file; give a "
                                ".toml or .json file") from None
    except PermissionError:
        raise ScenarioFileError(str(path), None, "permission denied; make it readable "
                                "(chmod u+r) or copy it somewhere readable") from None
    except NotADirectoryError:
        raise ScenarioFileError(str(path), None, "a part of the path is a file, not a "
                                "folder; check the path") from None
    except OSError as err:
        raise ScenarioFileError(str(path), None, f"cannot be read: {err.strerror or err}")\
            from None
