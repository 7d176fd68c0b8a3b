"""The RTO clock's tick phase of a bulk flow, drawn so that both engines use the same one.

ns-2 keeps round-trip times in ticks of ``tcpTick_`` on a clock whose phase, ``boot_time_``,
each agent draws from the default generator (``Random::uniform(tcp_tick_)``) when it is
reset: ``tcpTick_`` times the generator's next U(0,1). Which draw an agent gets depends on
everything that drew before it, so a flow's phase is not a property of the flow. Here it
is: the plan gives each bulk flow a seed of its own (:func:`boot_seed`); the ns-2 engine
reseeds the default generator with it before the agent's start-of-run reset, and the ns-3
engine computes the same draw (:func:`first_uniform`), so flow i's clock has one phase on
both engines. The generator is ns-2.35's (L'Ecuyer's MRG32k3a, ``RNG::U01``), whose state
after ``$rng seed s`` is (s, s, s, s, s, s).
"""

from __future__ import annotations

from aqmlab.workload.streams import TICK_PHASE, stream

__all__ = ["boot_seed", "first_uniform", "ns2_seed"]

_M1 = 4294967087
_M2 = 4294944443
_NORM = 1.0 / (_M1 + 1.0)
MAX_SEED = 2**31 - 2  # ns-2's `seed` refuses 0 and values >= 2^31 - 1


def ns2_seed(seed: int) -> int:
    """The seed aqmlab's engines give ns-2's generator for run seed ``seed`` (the ns-2
    engine's ``$defaultRNG seed``, ns-3's copy of that stream: cpp/ns2_rng.h)."""
    return seed % 2147483647 or 1


def first_uniform(seed: int) -> float:
    """The first U(0,1) of ns-2.35's RNG seeded with ``seed`` (``$rng seed seed``)."""
    if not 1 <= seed <= MAX_SEED:
        raise ValueError(f"an ns-2 seed is in [1, {MAX_SEED}], got {seed!r}")
    p1 = (1403580 * seed - 810728 * seed) % _M1
    p2 = (527612 * seed - 1370589 * seed) % _M2
    return float(p1 - p2 if p1 > p2 else p1 - p2 + _M1) * _NORM


def boot_seed(seed: int, run: int, flow: int) -> int:
    """The seed of plan flow ``flow``'s tick phase in run (``seed``, ``run``)."""
    word = int(stream(seed, TICK_PHASE, run, flow).generate_state(1)[0])
    return 1 + word % MAX_SEED
