"""Answer models of the ``rag-audit`` judge (strict, closed, every string bounded)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from citejudge.judge.schemas import JudgeAnswer

__all__ = ["ChunkSupport", "CitationNeed"]


class ChunkSupport(JudgeAnswer):
    """Does the cited chunk text back one sentence of the answer (label first, short gap second)."""

    label: Literal["SUPPORTED", "NOT_SUPPORTED", "CONTRADICTED"]
    missing: str = Field(
        default="",
        max_length=160,
        description="What the chunk does not state or states differently, if anything.",
    )


class CitationNeed(JudgeAnswer):
    """Is a sentence a factual claim that should carry a citation."""

    needs_citation: Literal["yes", "no"]
