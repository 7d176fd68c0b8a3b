"""Keyed random streams for common random numbers (pure numpy).

Every random quantity of a workload is drawn from its own stream, named by a key:
``SeedSequence(entropy=seed, spawn_key=(model, run, instance, quantity, sub))``. Streams are
consumed strictly in order, so the k-th value of a stream never depends on how many values
were drawn after it, on the arrival rate, on the run length or on the queue being studied.
Nothing here imports ns-3.
"""

from __future__ import annotations

import numpy as np

__all__ = ["SeedLike", "stream", "child", "generator"]

SeedLike = int | np.random.SeedSequence

# Model keys (first element of every spawn key).
PACKMIME = 1
MAH = 2
DELAY = 3
TICK_PHASE = 4


def stream(seed: int, *key: int) -> np.random.SeedSequence:
    """The stream ``key`` of ``seed``: ``SeedSequence(seed, spawn_key=key)``.

    Equal (seed, key) pairs give equal streams in every process and numpy version that keeps
    SeedSequence and PCG64 unchanged.
    """
    if int(seed) < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return np.random.SeedSequence(entropy=int(seed), spawn_key=tuple(int(k) for k in key))


def child(ss: np.random.SeedSequence, *key: int) -> np.random.SeedSequence:
    """A sub-stream of ``ss``. Unlike ``SeedSequence.spawn`` it has no state: calling it
    twice with the same key gives the same stream."""
    return np.random.SeedSequence(
        entropy=ss.entropy, spawn_key=tuple(ss.spawn_key) + tuple(int(k) for k in key),
        pool_size=ss.pool_size,
    )


def generator(ss: SeedLike, *key: int) -> np.random.Generator:
    """A PCG64 generator on ``child(ss, *key)`` (``ss`` an int means ``stream(ss)``)."""
    if not isinstance(ss, np.random.SeedSequence):
        ss = stream(ss)
    return np.random.Generator(np.random.PCG64(child(ss, *key)))
