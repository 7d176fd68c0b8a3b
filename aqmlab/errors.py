"""Exception and warning hierarchy of aqmlab. Imports nothing from aqmlab."""

from __future__ import annotations


class AqmlabError(Exception):
    """Base class of every aqmlab error."""


class ScenarioError(AqmlabError, ValueError):
    """Invalid scenario input, raised before any ns-3 object exists.

    The message names the field by its dotted path, the bad value and what is allowed.
    """

    def __init__(self, field: str, value: object, allowed: str, hint: str = "") -> None:
        self.field, self.value, self.allowed = field, value, allowed
        msg = f"{field} = {value!r} is invalid: {allowed}"
        if hint:
            msg += f" ({hint})"
        super().__init__(msg)


class UnknownKindError(ScenarioError):
    """A ``kind`` that no registry knows; the message lists the known kinds."""


class Ns3UnavailableError(AqmlabError, ImportError):
    """The ns-3 wheel is missing, of the wrong version, or lacks a module."""


class NativeCodeError(AqmlabError):
    """aqmlab's C++ failed to JIT-compile."""


class SimulationError(AqmlabError):
    """A run failed."""


class SimulationCrashed(SimulationError):
    """The process running the simulation died (abort, NS_FATAL_ERROR, signal)."""


class SimulationTimeout(SimulationError):
    """The run exceeded its wall-clock limit."""


class StoreError(AqmlabError):
    """A stored result is corrupt, truncated or of an unknown schema."""


class AqmlabWarning(UserWarning):
    """Base class of aqmlab warnings."""


class FidelityWarning(AqmlabWarning):
    """A setting departs from the paper's (ns-2) behaviour."""
