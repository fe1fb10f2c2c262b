"""Judge backends: vLLM (in process or a server), transformers, llama.cpp and the scripted one.

Each implements ``citejudge.judge.JudgeBackend``; the registry loads them by name, and heavy ones
import their dependencies lazily, inside the factory. Exports the scripted backend only.
"""

from citejudge.judge.backends.scripted import ScriptedBackend, UnexpectedRequestError

__all__ = ["ScriptedBackend", "UnexpectedRequestError"]
