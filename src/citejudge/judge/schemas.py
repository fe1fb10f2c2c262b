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
    "answer_budget",
    "max_answer",
    "schema_of",
    "schema_sha256",
]

#: Characters of a JSON number or an unbounded-length scalar in the worst case.
_NUMBER_CHARS = 24
#: Tokens for the end-of-sequence marker and a little slack.
_BUDGET_SLACK = 8


class JudgeAnswer(BaseModel):
    """Base class of every judge answer: strict, closed, immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class ClaimSupport(JudgeAnswer):
    """Verdict-first answer on whether the evidence supports one (sub-)claim."""

    label: Literal["SUPPORTED", "NOT_SUPPORTED"]
    missing: str = Field(
        default="", max_length=160, description="What the evidence does not state, if anything."
    )


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


def max_answer(model: type[BaseModel], filler: str = "9") -> Any:
    """The longest answer the model's JSON Schema admits (the worst case a decoder can reach).

    Every string at its ``maxLength`` (written with ``filler``), every list at ``maxItems``, every
    optional field present, the longest label of every enum.
    """
    schema = schema_of(model)
    defs = schema.get("$defs", {})

    def build(node: dict[str, Any]) -> Any:
        if "$ref" in node:
            return build(defs[node["$ref"].rsplit("/", 1)[-1]])
        if "enum" in node:
            return max(node["enum"], key=lambda v: len(str(v)))
        if "const" in node:
            return node["const"]
        for key in ("anyOf", "oneOf"):
            if key in node:
                return max((build(n) for n in node[key]), key=lambda v: len(str(v)))
        kind = node.get("type")
        if kind == "object":
            return {k: build(v) for k, v in node.get("properties", {}).items()}
        if kind == "array":
            if "maxItems" not in node:
                raise ValueError(f"{model.__name__}: a list without maxItems has no worst case")
            return [build(node.get("items", {})) for _ in range(node["maxItems"])]
        if kind == "string":
            if "maxLength" not in node:
                raise ValueError(f"{model.__name__}: a string without maxLength has no worst case")
            return (filler * node["maxLength"])[: node["maxLength"]]
        if kind == "boolean":
            return False
        if kind in ("integer", "number"):
            return int("9" * _NUMBER_CHARS)
        if kind == "null":
            return None
        raise ValueError(f"{model.__name__}: no worst case for schema node {node}")

    return build(schema)


def answer_budget(model: type[BaseModel]) -> int:
    """Generated tokens that always suffice for an answer of ``model``.

    The characters of :func:`max_answer` as compact JSON, plus one space wherever the decoder
    may put one (after every ``,`` and ``:``, and inside brackets; the backends allow at most one),
    plus slack for the end-of-sequence marker. Tokenizers of the cards spend at most one token
    per character on such text (digits, CJK and accented letters are the worst case, see
    ``tests/test_answer_budget.py``), so a generation with this budget cannot be cut.
    """
    import json

    text = json.dumps(max_answer(model), ensure_ascii=False, separators=(",", ":"))
    seps = sum(text.count(c) for c in ",:{}[]")
    return len(text) + 2 * seps + _BUDGET_SLACK
