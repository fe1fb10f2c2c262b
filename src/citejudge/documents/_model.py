"""What a document yields: its references, its citing sentences and their markers.

Plain pydantic models (frozen): :class:`Document` is what :func:`citejudge.read_document`
returns, and :meth:`Document.items` turns it into ``references`` items, the same items
``citejudge check document`` writes beside its results.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "DOCUMENT_FORMATS",
    "CitingSentence",
    "Document",
    "DocumentFormat",
    "Marker",
    "Reference",
    "document_items",
]

DocumentFormat = Literal[
    "pdf", "latex", "jats", "markdown", "text", "bibtex", "html", "docx", "odt"
]
#: The formats :func:`~citejudge.documents.read_document` reads.
DOCUMENT_FORMATS: tuple[str, ...] = (
    "pdf",
    "latex",
    "jats",
    "markdown",
    "text",
    "bibtex",
    "html",
    "docx",
    "odt",
)

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class Reference(BaseModel):
    """One entry of a document's reference list."""

    model_config = _FROZEN
    number: int = Field(description="1-based position in the reference list.")
    text: str = Field(description="The entry as found (its label left out); `full_citation`.")
    label: str | None = Field(
        default=None, description="Its label as printed: `3`, `Bar-Yam 2004a`, a footnote name."
    )
    key: str | None = Field(
        default=None, description="Its key in the source: a BibTeX key, a JATS `id`."
    )
    page: int | None = Field(default=None, description="Page where it starts (PDF).")
    line: int | None = Field(default=None, description="1-based line where it starts.")
    source: str | None = Field(
        default=None,
        description="The file it was read from when that is a part of the document (LaTeX "
        "\\input); `line` is a line of that file.",
    )
    authors: list[str] = Field(
        default_factory=list, description="Author names as the parser read them."
    )
    year: int | None = Field(default=None, description="Year as the parser read it.")
    year_suffix: str | None = Field(
        default=None, description="Letter after the year (`2020a`), for author-year markers."
    )
    title: str | None = Field(default=None, description="Title as the parser read it.")
    csl: dict[str, Any] | None = Field(
        default=None,
        description="The work as CSL-JSON when the document carries its data (a Zotero, "
        "Mendeley or EndNote field of a Word document); the item's `full_citation` then.",
    )


class Marker(BaseModel):
    """One citation marker in a sentence and the entries it points to."""

    model_config = _FROZEN
    text: str = Field(description="As written: `[3, 5]`, `(Smith et al., 2020a)`, `\\citep{a,b}`.")
    kind: Literal["numeric", "author-year", "key", "label", "footnote"] = Field(
        description="How it names its entries."
    )
    targets: list[str] = Field(
        description="What it names, one string per cited work (`3`, `Smith et al. 2020a`, a key)."
    )
    entries: list[int] = Field(
        default_factory=list, description="Reference numbers it resolved to, in its order."
    )
    unresolved: list[str] = Field(
        default_factory=list, description="Targets that point to no entry of the list."
    )


class CitingSentence(BaseModel):
    """A sentence of the body that carries at least one citation marker."""

    model_config = _FROZEN
    number: int = Field(description="1-based among the document's citing sentences.")
    text: str = Field(description="The sentence as found (markers included).")
    claim: str = Field(
        description="The sentence without its markers: what the cited work must support."
    )
    markers: list[Marker] = Field(description="Its markers, in reading order.")
    page: int | None = Field(default=None, description="Page where it starts (PDF).")
    line: int | None = Field(default=None, description="1-based line where it starts.")
    source: str | None = Field(
        default=None,
        description="The file it was read from when that is a part of the document (LaTeX "
        "\\input); `line` is a line of that file.",
    )

    @property
    def entries(self) -> list[int]:
        """Reference numbers its markers resolved to, each once, in order."""
        out: list[int] = []
        for m in self.markers:
            out.extend(e for e in m.entries if e not in out)
        return out


class Document(BaseModel):
    """A document read for checking: its reference list and every sentence that cites it."""

    model_config = _FROZEN
    path: str = Field(description="The file as given.")
    format: DocumentFormat = Field(description="How it was read.")
    references: list[Reference] = Field(description="The reference list, in order.")
    sentences: list[CitingSentence] = Field(description="Citing sentences, in reading order.")
    warnings: list[str] = Field(
        default_factory=list, description="What the reader noticed and worked around."
    )

    @property
    def uncited(self) -> list[Reference]:
        """Entries no sentence cites (none for a ``.bib`` alone: there is no text to cite them)."""
        if self.format == "bibtex":
            return []
        cited = {e for s in self.sentences for e in s.entries}
        return [r for r in self.references if r.number not in cited]

    @property
    def unresolved(self) -> list[tuple[CitingSentence, Marker, str]]:
        """(sentence, marker, target) of every marker target that points to no entry."""
        return [(s, m, t) for s in self.sentences for m in s.markers for t in m.unresolved]

    def items(self) -> list[dict[str, Any]]:
        """The ``references`` items of this document (see :func:`document_items`)."""
        return document_items(self)


def _where(page: int | None, line: int | None, source: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if page is not None:
        out["page"] = page
    if source is not None:
        out["source"] = source
    if line is not None:
        out["line"] = line
    return out


def document_items(doc: Document) -> list[dict[str, Any]]:
    """The ``references`` items of ``doc``, entry by entry (then the markers that point nowhere)."""
    by_entry: dict[int, list[tuple[int, str]]] = {}
    for s in doc.sentences:
        for m in s.markers:
            for e in m.entries:
                pairs = by_entry.setdefault(e, [])
                if all(k != s.number for k, _ in pairs):
                    pairs.append((s.number, m.text))
    sents = {s.number: s for s in doc.sentences}
    items: list[dict[str, Any]] = []
    for ref in doc.references:
        base = {"file": doc.path, "entry": ref.number}
        if ref.label is not None:
            base["label"] = ref.label
        pairs = by_entry.get(ref.number, [])
        if not pairs:
            items.append(
                {
                    "id": f"{doc.path}#ref{ref.number}",
                    "full_citation": ref.text if ref.csl is None else ref.csl,
                    "document": {**base, "cited": False, **_where(ref.page, ref.line, ref.source)},
                }
            )
            continue
        for k, marker in pairs:
            s = sents[k]
            items.append(
                {
                    "id": f"{doc.path}#ref{ref.number}/s{k}",
                    "claim": s.claim,
                    "full_citation": ref.text if ref.csl is None else ref.csl,
                    "document": {
                        **base,
                        "marker": marker,
                        "sentence_number": k,
                        "sentence": s.text,
                        **_where(s.page, s.line, s.source),
                    },
                }
            )
    for s, m, target in doc.unresolved:
        items.append(
            {
                "id": f"{doc.path}#s{s.number}/{target}",
                "claim": s.claim,
                "document": {
                    "file": doc.path,
                    "entry": None,
                    "marker": m.text,
                    "target": target,
                    "sentence_number": s.number,
                    "sentence": s.text,
                    "problem": "the marker points to no entry of the reference list",
                    **_where(s.page, s.line, s.source),
                },
            }
        )
    return items
