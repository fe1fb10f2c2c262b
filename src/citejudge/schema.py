"""Access to the JSON Schemas shipped with the package, and validation against them."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any

from citejudge.errors import ConfigError
from citejudge.tasks.protocol import TASKS

__all__ = ["fast_check", "load_schema", "schema_hash", "validate_result"]

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


# --- the fast path --------------------------------------------------------------------------------
#
# Every result line is validated (a worker checks each of its lines), and jsonschema takes about
# 28 us for the references result's six strings, a twentieth of a whole reference check. A schema
# made only of the plain keywords below is compiled into a predicate that answers "valid" for what
# jsonschema accepts, in about 1 us; anything it is not sure of (an unknown keyword, a bool where a
# number is asked, a non-string enum member) is left to jsonschema, which also writes every error
# message. tests/test_schema_fast.py holds the two against each other.

Check = Callable[[Any], bool]
_INF = float("inf")
_IGNORED = frozenset({"$schema", "$id", "title", "description", "default", "$comment"})
_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda x: type(x) is dict,
    "array": lambda x: type(x) is list,
    "string": lambda x: type(x) is str,
    "integer": lambda x: type(x) is int,
    "number": lambda x: type(x) in (int, float) and x == x and x not in (_INF, -_INF),
    "boolean": lambda x: type(x) is bool,
    "null": lambda x: x is None,
}


def _compile(schema: Any) -> Check | None:
    """A predicate true only for instances ``schema`` accepts, or None if the schema uses more."""
    if schema is True:
        return lambda x: True
    if not isinstance(schema, dict) or set(schema) - _IGNORED - _KEYWORDS:
        return None
    checks: list[Check] = []
    for key, value in schema.items():
        if key in _IGNORED:
            continue
        c = _KEYWORD_COMPILERS[key](value, schema)
        if c is None:
            return None
        checks.append(c)
    return _all_of(checks)


def _all_of(checks: list[Check]) -> Check:
    """One predicate for all of ``checks`` (no generator a call: this runs once a result line)."""
    if not checks:
        return lambda x: True
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        a, b = checks
        return lambda x: a(x) and b(x)

    def every(x: Any) -> bool:
        for c in checks:  # noqa: SIM110 - a generator a call costs what this path saves
            if not c(x):
                return False
        return True

    return every


def _c_type(v: Any, _: dict[str, Any]) -> Check | None:
    names = [v] if isinstance(v, str) else v
    if not isinstance(names, list) or not names or any(n not in _TYPES for n in names):
        return None
    tests = [_TYPES[n] for n in names]
    return lambda x: any(t(x) for t in tests)


def _c_properties(v: Any, schema: dict[str, Any]) -> Check | None:
    if not isinstance(v, dict):
        return None
    subs: dict[str, Check] = {}
    for k, sub in v.items():
        c = _compile(sub)
        if c is None:
            return None
        subs[k] = c
    extra = schema.get("additionalProperties", True)
    if extra not in (True, False):
        return None
    closed = extra is False

    def check(x: Any) -> bool:
        if type(x) is not dict:
            return True  # 'type' decides
        for k, val in x.items():
            c = subs.get(k)
            if c is None:
                if closed:
                    return False
            elif not c(val):
                return False
        return True

    return check


def _c_additional(v: Any, schema: dict[str, Any]) -> Check | None:
    if v is True or (v is False and "properties" in schema):
        return lambda x: True  # checked with 'properties'
    return None


def _c_required(v: Any, _: dict[str, Any]) -> Check | None:
    if not isinstance(v, list) or not all(isinstance(k, str) for k in v):
        return None
    keys = list(v)
    return lambda x: type(x) is not dict or all(k in x for k in keys)


def _c_enum(v: Any, _: dict[str, Any]) -> Check | None:
    if not isinstance(v, list) or not all(isinstance(m, str) for m in v):
        return None
    members = frozenset(v)
    return lambda x: type(x) is str and x in members


def _c_const(v: Any, _: dict[str, Any]) -> Check | None:
    return None if not isinstance(v, str) else (lambda x: type(x) is str and x == v)


def _c_pattern(v: Any, _: dict[str, Any]) -> Check | None:
    if not isinstance(v, str) or not v.isascii() or "\\p" in v:
        return None
    try:
        rx = re.compile(v)
    except re.error:
        return None
    return lambda x: type(x) is not str or rx.search(x) is not None


def _c_min_length(v: Any, _: dict[str, Any]) -> Check | None:
    if type(v) is not int:
        return None
    # jsonschema counts code points, as len() does
    return lambda x: type(x) is not str or len(x) >= v


def _c_items(v: Any, _: dict[str, Any]) -> Check | None:
    c = _compile(v)
    if c is None:
        return None
    return lambda x: type(x) is not list or all(c(e) for e in x)


def _c_min_items(v: Any, _: dict[str, Any]) -> Check | None:
    return None if type(v) is not int else (lambda x: type(x) is not list or len(x) >= v)


def _c_max_items(v: Any, _: dict[str, Any]) -> Check | None:
    return None if type(v) is not int else (lambda x: type(x) is not list or len(x) <= v)


def _number(x: Any) -> bool:
    return type(x) in (int, float)


def _c_minimum(v: Any, _: dict[str, Any]) -> Check | None:
    return None if not _number(v) else (lambda x: not _number(x) or x >= v)


def _c_maximum(v: Any, _: dict[str, Any]) -> Check | None:
    return None if not _number(v) else (lambda x: not _number(x) or x <= v)


_KEYWORD_COMPILERS: dict[str, Callable[[Any, dict[str, Any]], Check | None]] = {
    "type": _c_type,
    "properties": _c_properties,
    "additionalProperties": _c_additional,
    "required": _c_required,
    "enum": _c_enum,
    "const": _c_const,
    "pattern": _c_pattern,
    "minLength": _c_min_length,
    "items": _c_items,
    "minItems": _c_min_items,
    "maxItems": _c_max_items,
    "minimum": _c_minimum,
    "maximum": _c_maximum,
}
_KEYWORDS = frozenset(_KEYWORD_COMPILERS)


@cache
def fast_check(name: str) -> Check | None:
    """The compiled predicate of schema ``name``, or None when it uses keywords the fast path leaves out."""
    return _compile(load_schema(name))


def validate_result(name: str, obj: Any) -> list[str]:
    """Validation errors of ``obj`` against schema ``name`` (empty list when valid)."""
    fast = fast_check(name)
    if fast is not None and fast(obj):
        return []
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}"
        for e in _validator(name).iter_errors(obj)
    ]
