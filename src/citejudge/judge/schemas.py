"""What the judge may answer: pydantic models that are both the generation constraint and the parser.

Every string is bounded (an unbounded string can run to ``max_tokens`` and leave invalid JSON),
labels are ``Literal``s, and no extra keys are allowed. A change to any model changes its schema
hash, which is recorded with every request.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from citejudge.hashing import canonical_json, sha256_text

__all__ = [
    "AbstentionJudgement",
    "ClaimSupport",
    "JudgeAnswer",
    "SubclaimJudgement",
    "schema_of",
    "schema_sha256",
]


class JudgeAnswer(BaseModel):
    """Base class of every judge answer: strict, closed, immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class ClaimSupport(JudgeAnswer):
    """Verdict-first answer on whether the evidence supports one (sub-)claim."""

    label: Literal["SUPPORTED", "NOT_SUPPORTED"]
    missing: str = Field(default="", max_length=160, description="What the evidence does not state, if anything.")


class SubclaimJudgement(JudgeAnswer):
    """Reasoning-first answer: quote first, label last."""

    quote: str = Field(max_length=240, description="The evidence sentence closest to the claim.")
    label: Literal["SUPPORTED", "NOT_SUPPORTED"]


class AbstentionJudgement(JudgeAnswer):
    """Whether a statement only says the writer must check / cannot access / is unsure about a source."""

    abstention: Literal["yes", "no"]


def schema_of(model: type[BaseModel]) -> dict[str, Any]:
    """JSON Schema of an answer model with ``additionalProperties: false`` everywhere."""
    schema = model.model_json_schema()

    def close(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "object":
                node["additionalProperties"] = False
            for v in node.values():
                close(v)
        elif isinstance(node, list):
            for v in node:
                close(v)

    close(schema)
    return schema


def schema_sha256(model: type[BaseModel]) -> str:
    """Hash of the answer model's schema (part of every request's cache key)."""
    return sha256_text(canonical_json(schema_of(model)))
