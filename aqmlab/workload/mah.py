"""Mah (1997) browsing users as modified by the UNC generator: per-user page scripts (numpy).

Model (mah1997 ``MODEL.md``; Christiansen's thesis §3.3–3.4, digest seed 001 §2.1–2.3, §8.4):
each user repeatedly picks a server (uniformly among ``n_servers``; Mah used Zipf), draws K
consecutive pages from ``consecutive_docs_per_server`` and fetches them; a page is one
primary object plus N-1 secondary objects (N from ``files_per_document``), each object one
HTTP/1.0 request/reply with sizes from the primary/secondary tables; after a page the user
thinks (``think_time``, capped at 10 min). The two unintended UNC behaviours are kept by
default (flags):

- ``primary_reply_quirk``: the first two replies of a page are drawn from the **primary**
  reply table (requests still follow the primary/secondary tables correctly);
- ``no_think_on_switch``: no think time when the user moves on to the next server, i.e. the
  think time after the last page of each server visit is 0.

Users are closed loop, so the workload is a **script** per user, not a schedule. The C++
executor replays it (rules it must implement, not modelled here):

1. a user starts at ``start_s``; page ``p`` starts when page ``p-1`` has completed and its
   ``think_s`` has elapsed;
2. within a page, the primary object (``first_object``) is fetched alone; when its reply is
   complete the secondary objects are fetched in order with **at most 2 concurrent TCP
   connections per user** (``max_concurrent``); the page completes when all its replies have;
3. every object is its own connection: send ``request_bytes``, receive ``reply_bytes``; the
   pair RTT comes from the user's client machine and the page's server
   (:class:`aqmlab.workload.delays.PairRtt`).

Scripts are long enough for ``duration_s``: a user's script stops at the first page after
which ``start_s`` plus the summed think times reaches ``duration_s``, a lower bound on the
elapsed time, so a user never runs out before the end of the run.

Common random numbers: user ``i`` draws from its own stream ``(seed, MAH, run, i)`` in fixed
blocks, so its script does not depend on the number of users, on ``duration_s`` (a longer run
only appends pages) or on the quirk flags (they reinterpret the same draws).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Literal

import numpy as np
import pandas as pd

from aqmlab.workload.streams import MAH, generator, stream
from aqmlab.workload.tables import mah_table

__all__ = ["MahWorkload", "MahScripts"]

_VISITS_PER_BLOCK = 16


@dataclass(frozen=True, eq=False)
class MahScripts:
    """Per-user page scripts in flat arrays with offsets (CSR), ready for C++.

    Users ``u``: pages ``user_first_page[u] : user_first_page[u + 1]``. Pages ``p``: objects
    ``page_first_object[p] : page_first_object[p] + page_n_objects[p]``; pages are stored
    user by user, in order, so ``page_first_object`` is also the object CSR offset array.
    """

    user_start_s: np.ndarray  # (U,) float64
    user_first_page: np.ndarray  # (U+1,) int64
    page_user: np.ndarray  # (P,) int32
    page_index: np.ndarray  # (P,) int32, 0.. within the user
    page_server: np.ndarray  # (P,) int32, 0..n_servers-1
    page_n_objects: np.ndarray  # (P,) int32, >= 1
    page_think_s: np.ndarray  # (P,) float64, pause after the page completes
    page_first_object: np.ndarray  # (P,) int64
    page_new_server: np.ndarray  # (P,) bool, first page of a server visit
    object_request_bytes: np.ndarray  # (O,) int64
    object_reply_bytes: np.ndarray  # (O,) int64
    object_is_primary: np.ndarray  # (O,) bool, the page's first object
    object_reply_primary_table: np.ndarray  # (O,) bool, reply drawn from the primary table
    attrs: dict = field(default_factory=dict)

    @property
    def n_users(self) -> int:
        return len(self.user_start_s)

    @property
    def n_pages(self) -> int:
        return len(self.page_user)

    @property
    def n_objects(self) -> int:
        return len(self.object_request_bytes)

    @property
    def users(self) -> pd.DataFrame:
        """One row per user: ``start_s``, ``first_page``, ``n_pages``."""
        fp = self.user_first_page
        return pd.DataFrame(
            {"start_s": self.user_start_s, "first_page": fp[:-1], "n_pages": np.diff(fp)},
            index=pd.RangeIndex(self.n_users, name="user"),
        )

    @property
    def pages(self) -> pd.DataFrame:
        """One row per page: ``user, page_index, server, n_objects, think_s, first_object,
        new_server``."""
        return pd.DataFrame(
            {
                "user": self.page_user, "page_index": self.page_index,
                "server": self.page_server, "n_objects": self.page_n_objects,
                "think_s": self.page_think_s, "first_object": self.page_first_object,
                "new_server": self.page_new_server,
            },
            index=pd.RangeIndex(self.n_pages, name="page"),
        )

    @property
    def objects(self) -> pd.DataFrame:
        """One row per object: ``page, request_bytes, reply_bytes, is_primary,
        reply_primary_table``."""
        page = np.repeat(np.arange(self.n_pages, dtype=np.int64), self.page_n_objects)
        return pd.DataFrame(
            {
                "page": page, "request_bytes": self.object_request_bytes,
                "reply_bytes": self.object_reply_bytes, "is_primary": self.object_is_primary,
                "reply_primary_table": self.object_reply_primary_table,
            },
            index=pd.RangeIndex(self.n_objects, name="object"),
        )

    def arrays(self) -> dict[str, np.ndarray]:
        """Every array, C-contiguous, plus ``page_object_offsets`` (P+1,) int64."""
        out = {
            f.name: np.ascontiguousarray(getattr(self, f.name))
            for f in fields(self) if f.name != "attrs"
        }
        out["page_object_offsets"] = np.append(self.page_first_object, self.n_objects).astype(
            np.int64
        )
        return out


@dataclass(frozen=True)
class MahWorkload:
    """Mah/UNC browsing users.

    Parameters
    ----------
    n_servers
        Servers a user chooses among (7 in the thesis).
    server_choice
        ``"uniform"`` (UNC generator) or ``"zipf"`` (Mah: P(rank k) ∝ 1/k, server 0 the most
        popular). The current server may be picked again.
    think_cap_s
        Think times are ``min(t, think_cap_s)`` (thesis: 10 min, its F(600 s) = 0.905);
        ``None`` keeps Mah's unbounded think times (up to 24 h).
    primary_reply_quirk, no_think_on_switch
        The two UNC bugs, kept by default (see the module docstring).
    min_bytes
        Smallest request/reply size; 0-byte table values (0.1–0.3 %) become this (1: the
        request must carry at least one byte for the server to answer; 0 keeps them).
    start_spread_s
        User ``i`` starts at ``U(0, start_spread_s)`` to avoid lock-step SYNs (digest A13).
    max_concurrent
        Connections per user at once (2 in the thesis); recorded for the executor only.
    """

    n_servers: int = 7
    server_choice: Literal["uniform", "zipf"] = "uniform"
    think_cap_s: float | None = 600.0
    primary_reply_quirk: bool = True
    no_think_on_switch: bool = True
    min_bytes: int = 1
    start_spread_s: float = 1.0
    max_concurrent: int = 2

    def __post_init__(self) -> None:
        if self.n_servers < 1:
            raise ValueError(f"n_servers must be >= 1, got {self.n_servers}")
        if self.server_choice not in ("uniform", "zipf"):
            raise ValueError(
                f"server_choice must be 'uniform' or 'zipf', got {self.server_choice!r}")
        if self.think_cap_s is not None and not self.think_cap_s > 0:
            raise ValueError(f"think_cap_s must be > 0 or None, got {self.think_cap_s}")
        if self.min_bytes < 0 or self.start_spread_s < 0 or self.max_concurrent < 1:
            raise ValueError("min_bytes and start_spread_s must be >= 0, max_concurrent >= 1")

    def _servers(self, u: np.ndarray) -> np.ndarray:
        s = self.n_servers
        if self.server_choice == "uniform":
            return np.minimum((u * s).astype(np.int64), s - 1)
        cum = np.cumsum(1.0 / np.arange(1, s + 1))
        return np.minimum(np.searchsorted(cum / cum[-1], u, side="right"), s - 1)

    def _think(self, u: np.ndarray) -> np.ndarray:
        t = mah_table("think_time").quantile(u)
        return t if self.think_cap_s is None else np.minimum(t, self.think_cap_s)

    def _user(self, g: np.random.Generator, duration_s: float):
        """Draw one user's script: (start, servers, new_server, n_obj, think, req_u, rep_u)."""
        tab_k, tab_n = mah_table("consecutive_docs_per_server"), mah_table("files_per_document")
        start = g.random() * self.start_spread_s
        parts: list[tuple[np.ndarray, ...]] = []
        elapsed = start
        while not parts or elapsed < duration_s:
            v = _VISITS_PER_BLOCK
            server = self._servers(g.random(v))
            k = tab_k.quantile(g.random(v)).astype(np.int64)
            n_pages = int(k.sum())
            n_obj = tab_n.quantile(g.random(n_pages)).astype(np.int64)
            think = self._think(g.random(n_pages))
            n_o = int(n_obj.sum())
            req_u, rep_u = g.random(n_o), g.random(n_o)
            new_server = np.zeros(n_pages, dtype=bool)
            new_server[np.cumsum(k) - k] = True
            if self.no_think_on_switch:  # the next page starts a visit (block ends a visit)
                think = np.where(np.roll(new_server, -1), 0.0, think)
            parts.append((np.repeat(server, k), new_server, n_obj, think, req_u, rep_u))
            elapsed += float(think.sum())
        server, new_server, n_obj, think, req_u, rep_u = (
            np.concatenate(x) for x in zip(*parts, strict=True))
        keep = int(np.searchsorted(start + np.cumsum(think), duration_s, side="left")) + 1
        keep = min(keep, len(think))
        n_o = int(n_obj[:keep].sum())
        return start, server[:keep], new_server[:keep], n_obj[:keep], think[:keep], \
            req_u[:n_o], rep_u[:n_o]

    def generate(
        self, n_users: int, duration_s: float, seed: int = 1, *, run: int = 0,
        first_user: int = 0,
    ) -> MahScripts:
        """Scripts of users ``first_user .. first_user + n_users - 1`` for a run of
        ``duration_s`` seconds (stream key ``(seed, run, user)``)."""
        if n_users < 0 or not duration_s > 0:
            raise ValueError("n_users must be >= 0 and duration_s > 0")
        root = stream(seed, MAH, run)
        users = [self._user(generator(root, first_user + i), duration_s) for i in range(n_users)]
        starts = np.array([u[0] for u in users], dtype=float)
        n_pages = np.array([len(u[1]) for u in users], dtype=np.int64)

        def cat(j: int, dtype) -> np.ndarray:
            return np.concatenate([u[j] for u in users]).astype(dtype) if users else \
                np.zeros(0, dtype)

        server, new_server = cat(1, np.int32), cat(2, bool)
        n_obj, think = cat(3, np.int32), cat(4, np.float64)
        req_u, rep_u = cat(5, np.float64), cat(6, np.float64)
        first_obj = np.cumsum(n_obj, dtype=np.int64) - n_obj
        pos = np.arange(len(req_u), dtype=np.int64) - np.repeat(first_obj, n_obj)
        primary = pos == 0
        reply_primary = pos < (2 if self.primary_reply_quirk else 1)
        request = np.where(primary, mah_table("primary_request_size").quantile(req_u),
                           mah_table("secondary_request_size").quantile(req_u))
        reply = np.where(reply_primary, mah_table("primary_reply_size").quantile(rep_u),
                         mah_table("secondary_reply_size").quantile(rep_u))
        page_user = np.repeat(np.arange(first_user, first_user + n_users, dtype=np.int32),
                              n_pages)
        user_first_page = np.concatenate([[0], np.cumsum(n_pages)]).astype(np.int64)
        page_index = (np.arange(len(server), dtype=np.int64)
                      - np.repeat(user_first_page[:-1], n_pages)).astype(np.int32)
        attrs = {
            "model": "mah1997-unc", "n_users": n_users, "first_user": first_user,
            "duration_s": float(duration_s), "seed": seed, "run": run,
            **{f.name: getattr(self, f.name) for f in fields(self)},
        }
        return MahScripts(
            user_start_s=starts, user_first_page=user_first_page, page_user=page_user,
            page_index=page_index, page_server=server, page_n_objects=n_obj,
            page_think_s=think, page_first_object=first_obj, page_new_server=new_server,
            object_request_bytes=np.maximum(request, self.min_bytes).astype(np.int64),
            object_reply_bytes=np.maximum(reply, self.min_bytes).astype(np.int64),
            object_is_primary=primary, object_reply_primary_table=reply_primary, attrs=attrs,
        )

    def expected_page_stats(self) -> dict[str, float]:
        """Exact per-page means under this configuration (payload bytes, seconds).

        Keys: ``objects``, ``request_bytes``, ``reply_bytes``, ``think_s`` (effective, i.e.
        0 at server switches when ``no_think_on_switch``), ``pages_per_visit``.
        """
        k_vals, k_p = mah_table("consecutive_docs_per_server").pmf()
        n_vals, n_p = mah_table("files_per_document").pmf()
        fl = float(self.min_bytes)
        m = {name: mah_table(name).mean(floor=fl) for name in (
            "primary_request_size", "secondary_request_size", "primary_reply_size",
            "secondary_reply_size")}
        e_n = float(np.sum(n_vals * n_p))
        e_k = float(np.sum(k_vals * k_p))
        if self.primary_reply_quirk:
            p2 = float(np.sum(n_p[n_vals >= 2]))
            rest = float(np.sum(np.maximum(n_vals - 2, 0) * n_p))
            reply = m["primary_reply_size"] * (1 + p2) + m["secondary_reply_size"] * rest
        else:
            reply = m["primary_reply_size"] + m["secondary_reply_size"] * (e_n - 1)
        think = mah_table("think_time").mean(cap=self.think_cap_s)
        if self.no_think_on_switch:
            think *= 1 - 1 / e_k
        return {
            "objects": e_n,
            "request_bytes": m["primary_request_size"] + m["secondary_request_size"] * (e_n - 1),
            "reply_bytes": reply,
            "think_s": think,
            "pages_per_visit": e_k,
        }
