"""Access to the JSON Schemas shipped with the package, and validation against them."""

from __future__ import annotations

import hashlib
import json
from functools import cache
from importlib import resources
from typing import Any

from citejudge.errors import ConfigError
from citejudge.tasks.protocol import TASKS

__all__ = ["load_schema", "schema_hash", "validate_result"]

#: Schema name → file in ``citejudge/schemas``: each task's result, an output line, a run manifest.
_FILES = {
    name: name.replace("-", "_") + ".json" for name in (*TASKS, "output_line", "run_manifest")
}


@cache
def _text(name: str) -> str:
    if name not in _FILES:
        raise ConfigError(f"unknown schema {name!r}", hint=f"one of: {', '.join(sorted(_FILES))}")
    try:
        return resources.files("citejudge.schemas").joinpath(_FILES[name]).read_text("utf-8")
    except FileNotFoundError as exc:
        raise ConfigError(f"schema for {name!r} is not available in this version") from exc


def load_schema(name: str) -> dict[str, Any]:
    """The JSON Schema for a task's ``result`` (or ``output_line``, ``run_manifest``)."""
    schema: dict[str, Any] = json.loads(_text(name))
    return schema


def schema_hash(name: str) -> str:
    """sha256 of the canonical JSON of a schema (recorded in outputs and manifests)."""
    canon = json.dumps(load_schema(name), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canon.encode()).hexdigest()


@cache
def _validator(name: str) -> Any:
    import jsonschema

    return jsonschema.Draft202012Validator(load_schema(name))


def validate_result(name: str, obj: Any) -> list[str]:
    """Validation errors of ``obj`` against schema ``name`` (empty list when valid)."""
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}"
        for e in _validator(name).iter_errors(obj)
    ]
