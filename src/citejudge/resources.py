"""Where the package's data folders are: model cards, prompt templates, support calibrations.

In a source checkout they are the tree's ``models/``, ``configs/prompts/`` and
``configs/calibration/``; an installed wheel carries copies of them inside the package
(``citejudge/_bundled/``, put there by ``setup.py`` at build time) and reads them through
:mod:`importlib.resources`. An environment variable overrides each one.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path
from typing import Literal

__all__ = ["ENV_VARS", "Kind", "resource_dir"]

Kind = Literal["models", "prompts", "calibration"]

#: The variable that overrides each folder.
ENV_VARS: dict[str, str] = {
    "models": "CITEJUDGE_MODELS",
    "prompts": "CITEJUDGE_PROMPTS",
    "calibration": "CITEJUDGE_CALIBRATION",
}
_TREE = {
    "models": ("models",),
    "prompts": ("configs", "prompts"),
    "calibration": ("configs", "calibration"),
}
_ROOT = Path(__file__).resolve().parents[2]


def resource_dir(kind: Kind, *, env: bool = True) -> Path:
    """The folder of ``kind``: the environment override, else the source tree's, else the wheel's copy."""
    if env and os.environ.get(ENV_VARS[kind]):
        return Path(os.environ[ENV_VARS[kind]])
    tree = _ROOT.joinpath(*_TREE[kind])
    if (_ROOT / "pyproject.toml").is_file() and tree.is_dir():
        return tree
    return Path(str(resources.files("citejudge").joinpath("_bundled", kind)))
