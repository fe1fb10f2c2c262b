"""Weight files of a card: sha256 checks before loading, and the GGUF → model folder cache.

Loading a GGUF file into transformers (``gguf_file=``) de-quantizes every tensor and takes
20–30 s on a laptop CPU; a plain model folder (safetensors + tokenizer) loads in a few seconds.
:func:`materialize_gguf` converts a GGUF file once and keeps the folder under
``~/.cache/citejudge/models/<sha256[:16]>/`` (override: ``CITEJUDGE_MODEL_CACHE``), keyed by
the GGUF's content hash, written to a temporary folder and renamed into place so a crash or a
concurrent run never leaves a half-written folder behind.

The conversion needs the ``gguf`` and ``accelerate`` packages; once the folder exists, neither
is needed again.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citejudge.errors import ConfigError
from citejudge.hashing import file_sha256
from citejudge.judge._deps import require
from citejudge.judge.cards import ModelCard, WeightFile, resolve_weight

__all__ = [
    "MARKER",
    "CheckedFile",
    "checked_files",
    "default_cache_root",
    "materialize_gguf",
    "materialized_info",
    "offline_env",
]

log = logging.getLogger(__name__)

#: File written last into a materialized folder: its presence means the folder is complete.
MARKER = "citejudge-materialized.json"

#: Install commands for the conversion (both are in the ``cpu-model`` extra).
_HINTS = {
    "gguf": "pip install 'gguf>=0.10' (needed once, to convert the GGUF file into a model folder)",
    "accelerate": "pip install accelerate (needed once, to convert the GGUF file into a model folder)",
}


@dataclass(frozen=True)
class CheckedFile:
    """A card file found on disk whose sha256 matches the card (or is user-provided)."""

    spec: WeightFile
    path: Path
    sha256: str


def offline_env() -> None:
    """Make Hugging Face libraries local-only and keep torch from compiling (before importing them).

    Values the user already set are kept.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TORCHDYNAMO_DISABLE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def checked_files(card: ModelCard, models_dir: Path | None = None) -> list[CheckedFile]:
    """Every file of ``card`` located and hashed; raises on a missing file or a sha256 mismatch.

    A file whose card sha256 is null (user-provided weights) is hashed and logged, not refused.
    """
    out: list[CheckedFile] = []
    for f in card.files:
        path = resolve_weight(f, models_dir)
        if not path.is_file():
            raise ConfigError(
                f"model card {card.name!r}: file {path} is missing",
                hint="install the package or put the weights there; `citejudge models verify`",
            )
        t0 = time.perf_counter()
        digest = file_sha256(path)
        log.debug("sha256 of %s in %.2f s", path, time.perf_counter() - t0)
        if f.sha256 is None:
            log.warning(
                "model card %r: %s has no sha256 in the card (user-provided); it hashes to %s",
                card.name,
                path,
                digest,
            )
        elif digest != f.sha256.lower():
            raise ConfigError(
                f"model card {card.name!r}: sha256 of {path} is {digest}, the card says {f.sha256}; refusing to load",
                hint="the file was changed or replaced; reinstall it or fix the card, then `citejudge models verify`",
            )
        out.append(CheckedFile(f, path, digest))
    return out


def default_cache_root() -> Path:
    """Where materialized model folders live (``CITEJUDGE_MODEL_CACHE`` or ``~/.cache/citejudge/models``)."""
    env = os.environ.get("CITEJUDGE_MODEL_CACHE")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "citejudge" / "models"


def materialized_info(folder: Path) -> dict[str, Any] | None:
    """The record a materialized folder carries (source hash, timings), or None if incomplete."""
    marker = folder / MARKER
    if not marker.is_file():
        return None
    data: dict[str, Any] = json.loads(marker.read_text(encoding="utf-8"))
    return data


def _require(module: str) -> Any:
    try:
        return require(module)
    except Exception as exc:
        hint = _HINTS.get(module)
        if hint is not None and hasattr(exc, "hint"):
            exc.hint = hint
        raise


def materialize_gguf(
    gguf_path: Path, cache_root: Path | None = None, *, sha256: str | None = None
) -> Path:
    """A plain transformers model folder converted from ``gguf_path`` (converted once, then reused).

    ``sha256`` is the GGUF's hash when the caller already computed it (it keys the folder).
    The folder holds float weights in safetensors, the config and the tokenizer (with its chat
    template), plus :data:`MARKER` recording the source hash and how long the conversion took.
    """
    gguf_path = Path(gguf_path)
    if not gguf_path.is_file():
        raise ConfigError(f"GGUF file {gguf_path} not found")
    digest = sha256 or file_sha256(gguf_path)
    root = cache_root or default_cache_root()
    target = root / digest[:16]
    info = materialized_info(target)
    if info is not None:
        if info.get("gguf_sha256") != digest:
            raise ConfigError(
                f"cached model folder {target} was made from another file "
                f"({info.get('gguf_sha256')}, expected {digest})",
                hint=f"delete {target} and run again",
            )
        return target

    offline_env()
    _require("gguf")
    _require("accelerate")
    transformers = _require("transformers")
    _require("torch")

    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{digest[:16]}-", dir=root))
    try:
        t0 = time.perf_counter()
        tok = transformers.AutoTokenizer.from_pretrained(
            str(gguf_path.parent), gguf_file=gguf_path.name, local_files_only=True
        )
        t_tok = time.perf_counter() - t0
        model = transformers.AutoModelForCausalLM.from_pretrained(
            str(gguf_path.parent), gguf_file=gguf_path.name, local_files_only=True
        )
        t_load = time.perf_counter() - t0
        # The GGUF loader leaves a quantizer and a quantization_config behind although the
        # tensors are already de-quantized; save_pretrained refuses (or writes a config that
        # points back at the GGUF) unless both are cleared.
        model.hf_quantizer = None
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
        model.is_quantized = False
        model.save_pretrained(str(tmp))
        tok.save_pretrained(str(tmp))
        t_all = time.perf_counter() - t0
        record = {
            "gguf_sha256": digest,
            "gguf_file": gguf_path.name,
            "transformers": transformers.__version__,
            "dtype": str(model.dtype).removeprefix("torch."),
            "seconds": {
                "tokenizer": round(t_tok, 2),
                "load_gguf": round(t_load, 2),
                "total": round(t_all, 2),
            },
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        (tmp / MARKER).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        del model
        tmp.chmod(0o755)  # mkdtemp makes it private; the cache may be shared
        try:
            os.rename(tmp, target)
        except OSError:
            # Another process finished first (the target exists and is not empty): use its folder.
            if materialized_info(target) is None:
                raise
            shutil.rmtree(tmp, ignore_errors=True)
        log.info(
            "materialized %s into %s in %.1f s (GGUF load %.1f s)",
            gguf_path.name,
            target,
            t_all,
            t_load,
        )
        return target
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
