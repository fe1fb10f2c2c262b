"""Versioned Jinja prompt templates (``configs/prompts/*.j2``) and safe rendering.

Untrusted text (claims, abstracts, chunks) is placed between tags; any closing tag inside it is
defused so it cannot end the block early, and the instructions say that the tagged text is data.
Every rendered prompt is hashed into its request key, and each template's hash is recorded.
"""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path
from typing import Any

from citejudge.errors import ConfigError
from citejudge.hashing import sha256_text
from citejudge.resources import resource_dir

__all__ = ["PROMPTS_DIR", "defuse", "render", "template_sha256", "template_text"]

#: Default template folder: ``configs/prompts`` of the source tree, or the wheel's copy (override:
#: CITEJUDGE_PROMPTS).
PROMPTS_DIR = resource_dir("prompts", env=False)

_TAG = re.compile(
    r"<\s*(/?)\s*(evidence|claim|statement|chunk|answer|gold|question|sentence|source)\b[^>]*>",
    re.I,
)


def _dir() -> Path:
    return Path(os.environ.get("CITEJUDGE_PROMPTS", PROMPTS_DIR))


def defuse(text: str, limit: int = 20_000) -> str:
    """Untrusted text made safe to put between tags: tag look-alikes neutralised, length bounded."""
    s = _TAG.sub(lambda m: f"‹{m.group(1)}{m.group(2)}›", text)
    s = s.replace("\x00", "")
    return s if len(s) <= limit else s[:limit] + " […]"


@cache
def template_text(name: str) -> str:
    """The source of template ``name`` (e.g. ``content_grounding.v1``)."""
    path = _dir() / f"{name}.j2"
    if not path.is_file():
        raise ConfigError(
            f"prompt template {name!r} not found in {_dir()}",
            hint="set CITEJUDGE_PROMPTS to the configs/prompts folder",
        )
    return path.read_text(encoding="utf-8")


def template_sha256(name: str) -> str:
    """Hash of a template's source (recorded in outputs and manifests)."""
    return sha256_text(template_text(name))


@cache
def _compiled(name: str) -> Any:
    import jinja2

    env = jinja2.Environment(
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=False,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env.from_string(template_text(name))


def render(name: str, **values: str) -> str:
    """Render template ``name``; every value is defused first."""
    return str(_compiled(name).render(**{k: defuse(v) for k, v in values.items()})).strip() + "\n"
