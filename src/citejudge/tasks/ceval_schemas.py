"""What the judge may answer in the ``citation-eval`` task (pydantic answer models).

Labels are ``Literal``s, every string and list is bounded, no extra keys (see
:mod:`citejudge.judge.schemas` for the conventions). Scores are never asked of the model:
code derives them from these labels.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from citejudge.judge.schemas import JudgeAnswer

__all__ = ["CorrectnessAnswer", "KeyPoint", "SourceCheckAnswer", "SupportAnswer"]


class SupportAnswer(JudgeAnswer):
    """Does the cited content support the claim: one label and a short reason."""

    label: Literal["ENTAILMENT", "NEUTRAL", "CONTRADICTION"]
    reason: str = Field(default="", max_length=160, description="One sentence: why this label.")


class SourceCheckAnswer(JudgeAnswer):
    """Does quoted content come from a source text the quote was not found in verbatim."""

    label: Literal["FROM_SOURCE", "NOT_IN_SOURCE", "CONTRADICTS_SOURCE"]
    reason: str = Field(
        default="", max_length=160, description="One sentence: what in the text decides it."
    )


class KeyPoint(JudgeAnswer):
    """One key point of the gold answer and whether the answer covers it."""

    point: str = Field(max_length=100, description="The key point, in a few words.")
    status: Literal["COVERED", "PARTIAL", "MISSING"]


class CorrectnessAnswer(JudgeAnswer):
    """The gold answer's key points, each marked covered / partly covered / missing in the answer."""

    key_points: list[KeyPoint] = Field(min_length=1, max_length=6)
