"""Judge backends. Heavy ones import their dependencies lazily, inside the factory."""

from citejudge.judge.backends.scripted import ScriptedBackend, UnexpectedRequestError

__all__ = ["ScriptedBackend", "UnexpectedRequestError"]
