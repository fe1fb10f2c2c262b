"""What a structured entry (BibTeX, CSL-JSON) states, read once, and its two uses.

The BibTeX and CSL-JSON readers turn an entry into an :class:`EntryFields`; from it,
:func:`to_work` builds the world record (``Work``, for the index) and :func:`to_cited` the
citation (``CitedWork``, for the matcher). Both sides therefore decode names, LaTeX, years
and identifiers the same way; they differ only where their jobs differ (a world record keeps
every venue name as an alias, the abstract and the "others" marker; a citation keeps the
volume, pages, unparseable identifiers and parse warnings).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from citejudge.readers._text import _tidy
from citejudge.records import Author, CitedWork, Work

__all__ = ["EntryFields", "to_cited", "to_work"]


@dataclass
class EntryFields:
    """The fields of one BibTeX entry or CSL-JSON item, decoded to plain text and canonical ids."""

    entry_type: str | None = None
    title: str | None = None
    #: names as written ("Devlin, Jacob"), DBLP homonym numbers removed (kept in ``raw_name``)
    authors: list[Author] = field(default_factory=list)
    #: the list ends with "others" / "et al." (the source itself truncated it)
    et_al: bool = False
    #: a BibTeX ``editor`` list: a world record without authors lists its editors instead
    editors: list[Author] = field(default_factory=list)
    year: int | None = None
    year_raw: str | None = None
    #: venue names, most specific first (journal, proceedings, series, ...), URLs left out
    venues: list[str] = field(default_factory=list)
    publisher: str | None = None
    #: further names a world record accepts as its venue (organisation, event, ...)
    venue_aliases: list[str] = field(default_factory=list)
    dois: list[str] = field(default_factory=list)
    bad_ids: list[tuple[str, str]] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)
    arxiv: str | None = None
    pmid: str | None = None
    pmcid: str | None = None
    volume: str | None = None
    pages: str | None = None
    is_preprint: bool = False
    abstract: str | None = None
    language: str | None = None
    warnings: list[str] = field(default_factory=list)


def to_work(e: EntryFields, work_id: str, source: str | None = None) -> Work:
    """The world record of an entry: id ``work_id``; every venue name kept (first = ``venue``)."""
    names: list[str] = []
    for v in [*e.venues, *([e.publisher] if e.publisher else []), *e.venue_aliases]:
        if v not in names:
            names.append(v)
    venue = names[0] if names else None
    if venue and e.arxiv and venue.lower().startswith("arxiv"):
        venue = "arXiv"  # "arXiv preprint arXiv:2101.00001" -> the venue is arXiv
    authors = list(e.authors) or list(e.editors)
    if e.et_al and e.authors:
        # The library itself truncates the list: keep the marker so the matcher knows that
        # positions past it cannot be checked (a trailing "others" is never a person).
        authors.append(Author(name="others"))
    return Work(
        id=work_id,
        title=e.title,
        authors=authors,
        year=e.year,
        venue=venue,
        venue_alt=names[1:],
        type=e.entry_type or None,
        doi=e.dois[0] if e.dois else None,
        pmid=e.pmid,
        pmcid=e.pmcid,
        arxiv=e.arxiv,
        urls=e.urls[:1],
        abstract=e.abstract,
        language=e.language,
        source=source,
    )


def to_cited(e: EntryFields, raw: str, form: str) -> CitedWork:
    """The citation an entry states: the first venue name is the cited venue; nothing is filled in."""
    return CitedWork(
        raw=raw,
        form=form,
        title=_tidy(e.title),
        authors=[a.name for a in e.authors],
        et_al=e.et_al,
        year=e.year,
        year_raw=e.year_raw,
        venue=_tidy(e.venues[0]) if e.venues else None,
        doi=list(e.dois),
        pmid=e.pmid,
        pmcid=e.pmcid,
        arxiv=e.arxiv,
        urls=list(e.urls),
        is_preprint=e.is_preprint,
        volume=e.volume,
        pages=e.pages,
        publisher=e.publisher,
        entry_type=e.entry_type,
        warnings=list(e.warnings),
        bad_ids=list(e.bad_ids),
    )
