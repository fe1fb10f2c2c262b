"""Backend factories: a model card in, a :class:`~citejudge.judge.core.JudgeBackend` out.

Heavy dependencies are imported inside the factory that needs them; a missing one raises
:class:`~citejudge.errors.MissingDependencyError` naming the install command.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from citejudge.errors import ConfigError
from citejudge.judge._deps import INSTALL_HINTS, require
from citejudge.judge.cards import ModelCard, resolve_weight
from citejudge.judge.core import JudgeBackend

__all__ = ["BACKENDS", "INSTALL_HINTS", "make_backend", "require"]

#: backend name -> (module, class): imported by name when a card asks for it, so that importing
#: this registry imports no backend (and no backend's heavy dependencies).
BACKENDS: dict[str, tuple[str, str]] = {
    "transformers": ("citejudge.judge.backends.hf", "TransformersBackend"),
    "llamacpp": ("citejudge.judge.backends.llamacpp", "LlamaCppBackend"),
    "vllm": ("citejudge.judge.backends.vllm", "VLLMBackend"),
    "vllm-server": ("citejudge.judge.backends.vllm_server", "VLLMServerBackend"),
}


def make_backend(card: ModelCard, models_dir: Path | None = None, **overrides: Any) -> JudgeBackend:
    """The backend a card names, with its weights checked and located."""
    options = {**card.options, **overrides}
    if card.backend == "scripted":
        from citejudge.judge.backends.scripted import ScriptedBackend

        scripts = [f for f in card.files if f.role == "script"]
        if not scripts:
            raise ConfigError(
                f"scripted card {card.name!r} names no script file",
                hint="add files: [{path, role: script}]",
            )
        backend = ScriptedBackend.from_file(resolve_weight(scripts[0], models_dir))
        backend.name = f"scripted:{card.name}"
        return backend
    if card.backend in BACKENDS:
        module, cls = BACKENDS[card.backend]
        factory = getattr(importlib.import_module(module), cls)
        backend_: JudgeBackend = factory.from_card(card, models_dir, **options)
        return backend_
    raise ConfigError(f"unknown backend {card.backend!r}")
