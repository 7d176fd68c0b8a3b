"""Running simulations: in worker processes (default) or, for debugging, in-process."""

from __future__ import annotations

from aqmlab.results.results import Results
from aqmlab.scenario import Scenario


def run(scenario: Scenario | dict | str, *, timeout: float | None = None,
        in_process: bool = False) -> Results:
    """Simulate ``scenario`` (object, dict or TOML/JSON path) and return its Results.

    By default the simulation runs in a persistent worker process, so an ns-3 abort raises
    :class:`~aqmlab.errors.SimulationCrashed` here instead of killing the caller.
    ``timeout`` (seconds of wall time) defaults to ``scenario.run.max_wall_time``.
    """
    from aqmlab.run.engine import default_engine  # noqa: PLC0415

    sc = as_scenario(scenario)
    if in_process:
        from aqmlab.run.worker import simulate_results  # noqa: PLC0415

        return simulate_results(sc)
    limit = timeout if timeout is not None else sc.run.max_wall_time_s
    return default_engine().run(sc, timeout=limit)


def as_scenario(scenario: Scenario | dict | str) -> Scenario:
    """Accept a Scenario, its dict form, or the path of a .toml/.json file."""
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, dict):
        return Scenario.from_dict(scenario)
    return Scenario.load(scenario)


class _CallableModule(__import__("types").ModuleType):
    """``aqmlab.run`` is both this package and the function: importing a submodule binds the
    package as ``aqmlab.run``, so the package itself must be callable."""

    def __call__(self, *args, **kwargs) -> Results:
        return run(*args, **kwargs)


__import__("sys").modules[__name__].__class__ = _CallableModule
