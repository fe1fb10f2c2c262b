"""Content hashes and provenance facts recorded in outputs and manifests."""

from __future__ import annotations

import hashlib
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

import orjson

__all__ = ["canonical_json", "code_revision", "file_sha256", "package_versions", "sha256_text"]


def canonical_json(obj: Any) -> bytes:
    """Canonical JSON bytes (sorted keys, no whitespace) for hashing."""
    return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)


def sha256_text(data: str | bytes) -> str:
    """Hex sha256 of text or bytes."""
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


def file_sha256(path: Path, chunk: int = 1 << 20) -> str:
    """Hex sha256 of a file's content."""
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


def _git(here: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", *args], cwd=here, capture_output=True, text=True, timeout=5, check=False
    )
    return out.stdout.strip()


def code_revision() -> dict[str, Any]:
    """The git commit of the citejudge checkout and whether it has uncommitted changes."""
    here = Path(__file__).resolve().parent
    try:
        commit = _git(here, "rev-parse", "HEAD") or None
        dirty = bool(_git(here, "status", "--porcelain", "--untracked-files=no"))
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}
    return {"commit": commit, "dirty": dirty if commit else None}


_PACKAGES = (
    "citejudge",
    "rapidfuzz",
    "tantivy",
    "msgspec",
    "pydantic",
    "bibtexparser",
    "pyalex",
    "vllm",
    "outlines",
    "transformers",
    "torch",
    "llama_cpp_python",
    "ray",
)


def package_versions() -> dict[str, str | None]:
    """Installed versions of the packages that can change a result (None when absent)."""
    import platform

    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            out[name] = metadata.version(name.replace("_", "-"))
        except metadata.PackageNotFoundError:
            out[name] = None
    return out
