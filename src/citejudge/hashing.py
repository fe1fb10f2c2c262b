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


def code_revision(here: Path | None = None) -> dict[str, Any]:
    """The git commit of the citejudge checkout (or of ``here``) and whether it has uncommitted changes."""
    here = here or Path(__file__).resolve().parent
    try:  # (one git process: the header line "# branch.oid <commit>", then one line a change)
        out = _git(here, "status", "--porcelain=v2", "--branch", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}
    lines = out.splitlines()
    oid = next((ln.split()[2] for ln in lines if ln.startswith("# branch.oid ")), None)
    commit = oid if oid and oid != "(initial)" else None
    dirty = any(not ln.startswith("#") for ln in lines)
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
            out[name] = _version(metadata.distribution(name.replace("_", "-")))
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def _version(dist: metadata.Distribution) -> str:
    """``dist.version``, read from the metadata's header lines without the e-mail parser.

    (``metadata.version`` parses the whole METADATA file, long READMEs included, with
    :mod:`email`: about half of the cost of this function at the start of every run.)
    """
    text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or ""
    for line in text.splitlines():
        if not line:  # (the end of the headers)
            break
        if line.startswith("Version:"):
            return line[len("Version:") :].strip()
    return dist.version
