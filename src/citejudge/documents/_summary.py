"""What a document came to, as the run manifest records it (one summary per document).

Apart from the readers and the document models, so that a manifest (written by every run) does
not build them.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["DocumentSummary", "UnresolvedMarker"]


class UnresolvedMarker(BaseModel):
    """A marker target that points to no entry."""

    model_config = ConfigDict(extra="forbid")
    marker: str = Field(description="The marker as written.")
    target: str = Field(description="What it names.")
    sentence: int = Field(description="Number of the citing sentence.")
    line: int | None = Field(default=None, description="Line of the sentence.")
    page: int | None = Field(default=None, description="Page of the sentence (PDF).")


class DocumentSummary(BaseModel):
    """What one document of a ``check document`` or a ``document`` run came to."""

    model_config = ConfigDict(extra="forbid")
    file: str = Field(description="The document as given.")
    format: str | None = Field(default=None, description="How it was read (None: it could not be).")
    error: str | None = Field(default=None, description="Why it could not be checked, if so.")
    references: int = Field(default=0, description="Entries of its reference list.")
    uncited: int = Field(default=0, description="Entries no sentence cites.")
    citing_sentences: int = Field(default=0, description="Sentences with at least one marker.")
    unresolved: list[UnresolvedMarker] = Field(
        default_factory=list, description="Marker targets that point to no entry."
    )
    reference_grounding: dict[str, int] = Field(
        default_factory=dict,
        description="Entries by reference verdict: Yes, No (found, a field differs), "
        "Not found (no work of the world fits), error.",
    )
    content_grounding: dict[str, int] = Field(
        default_factory=dict, description="Citing (sentence, entry) pairs by content verdict."
    )
    citing_sentences_judged: int = Field(
        default=0,
        description="Citing sentences whose content grounding a model judged (Yes or No).",
    )
    warnings: list[str] = Field(default_factory=list, description="What the reader noticed.")
