"""A backend with canned answers, for tests and demos that must not load a model.

Answers are chosen by rules: the first rule whose ``contains`` strings all occur in the prompt
(and whose ``schema`` matches the answer model's name, when given) supplies the answer. A
prompt no rule covers raises :class:`UnexpectedRequestError` — loudly, never a default answer.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from citejudge.errors import CitejudgeError
from citejudge.hashing import canonical_json, sha256_text

__all__ = ["ScriptRule", "ScriptedBackend", "UnexpectedRequestError"]


class UnexpectedRequestError(CitejudgeError):
    """The scripted backend got a prompt none of its rules covers."""


@dataclass(frozen=True)
class ScriptRule:
    """Answer ``answer`` to prompts containing every string in ``contains``."""

    contains: tuple[str, ...]
    answer: str
    schema: str | None = None


@dataclass
class ScriptedBackend:
    """Deterministic canned answers; records every prompt it was asked."""

    rules: list[ScriptRule]
    name: str = "scripted"
    revision: str = field(default="")
    calls: list[list[str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.revision:
            self.revision = (
                "scripted-"
                + sha256_text(
                    canonical_json([[list(r.contains), r.answer, r.schema] for r in self.rules])
                )[:12]
            )

    @classmethod
    def from_file(cls, path: Path) -> ScriptedBackend:
        """Rules from a JSON/JSONL file of ``{"contains": [...], "answer": {...} | "...", "schema"?}``."""
        text = path.read_text(encoding="utf-8")
        rows: list[dict[str, Any]] = (
            json.loads(text)
            if text.lstrip().startswith("[")
            else [json.loads(x) for x in text.splitlines() if x.strip()]
        )
        return cls(
            [
                ScriptRule(
                    tuple(r.get("contains", [])),
                    r["answer"] if isinstance(r["answer"], str) else json.dumps(r["answer"]),
                    r.get("schema"),
                )
                for r in rows
            ]
        )

    def generate_batch(
        self, prompts: Sequence[str], schema: type[BaseModel], sampling: Any
    ) -> list[str]:
        """The scripted answer of each prompt (raises on a prompt no rule covers)."""
        self.calls.append(list(prompts))
        out = []
        for p in prompts:
            for rule in self.rules:
                if (rule.schema is None or rule.schema == schema.__name__) and all(
                    s in p for s in rule.contains
                ):
                    out.append(rule.answer)
                    break
            else:
                raise UnexpectedRequestError(
                    f"scripted backend has no answer for a {schema.__name__} request: {p[-300:]!r}",
                    hint="add a rule whose 'contains' strings occur in this prompt",
                )
        return out
