"""The records the readers produce: the normalised :class:`Work` of a world, and the :class:`CitedWork` of a citation.

A :class:`Work` is what the index stores and what the matcher compares citations
against; every world (OpenAlex, BibTeX, CSL-JSON) is turned into Works. A
:class:`CitedWork` is what one citation states (parsed from a string, BibTeX entry,
CSL-JSON item or metadata fields), never filled in from a record. Identifiers are stored in
canonical form (see :mod:`citejudge.ids`).
"""

from __future__ import annotations

import msgspec

__all__ = ["HOST_KIND", "Author", "CitedWork", "ReadIssue", "Redirect", "Version", "Work"]

#: The kind :attr:`Work.venue_kinds` gives the name of a host organisation or a publisher.
HOST_KIND = "host"


class Author(msgspec.Struct, frozen=True, omit_defaults=True):
    """One author in list order: the display name and, if different, the name as printed."""

    name: str
    raw_name: str | None = None
    orcid: str | None = None


class Version(msgspec.Struct, frozen=True, omit_defaults=True):
    """Another version of the same work (preprint, accepted, published) with its own year/venue."""

    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    arxiv: str | None = None
    kind: str | None = None  # "preprint", "published", "accepted", "submitted" ...


class Work(msgspec.Struct, omit_defaults=True):
    """A scholarly work, normalised.

    ``id`` is the OpenAlex short id (``W2963341956``) for OpenAlex worlds and
    ``bib:<key>`` / ``csl:<id>`` for user libraries.
    """

    id: str
    title: str | None = None
    authors: list[Author] = msgspec.field(default_factory=list)
    year: int | None = None
    venue: str | None = None
    venue_alt: list[str] = msgspec.field(default_factory=list)  # other names (abbreviations, host)
    type: str | None = None
    doi: str | None = None
    pmid: str | None = None
    pmcid: str | None = None
    arxiv: str | None = None
    mag: str | None = None
    urls: list[str] = msgspec.field(default_factory=list)
    abstract: str | None = None
    is_retracted: bool = False
    versions: list[Version] = msgspec.field(default_factory=list)
    language: str | None = None
    updated: str | None = None  # updated_date (YYYY-MM-DD) when the world gives one
    source: str | None = None  # which world file it came from
    #: what each of the names in ``venue`` / ``venue_alt`` is, where the world says so: the
    #: OpenAlex Sources ``type`` of the location's source ("journal", "repository",
    #: "conference", "ebook platform", "book series", "metadata"...) for its display name,
    #: abbreviated title and raw source name, and "host" for a host organisation or publisher.
    #: Names it lacks are judged by name (see ``citejudge.match.venues``). Empty for a record
    #: with a journal or conference source: its venue is named, and the kinds change nothing.
    venue_kinds: dict[str, str] = msgspec.field(default_factory=dict)


class Redirect(msgspec.Struct, frozen=True):
    """A work id that no longer exists: merged into ``target`` or deleted (``target`` None)."""

    id: str
    target: str | None
    source: str | None = None


class ReadIssue(msgspec.Struct, frozen=True, omit_defaults=True):
    """A problem met while reading a world file; reading goes on."""

    file: str
    message: str
    line: int | None = None
    kind: str = "error"  # "error" | "warning"


class CitedWork(msgspec.Struct, omit_defaults=True):
    """The metadata one citation states, in the order and form it states it.

    ``authors`` are the names as written, in order (``"Devlin, Jacob"``, ``"J. Devlin"``);
    ``et_al`` is True when the list ends with "et al." / "and others" / "…".
    ``year_raw`` keeps what was written ("2019a", "in press", "n.d.") and ``year`` the
    four-digit year if one can be read from it.
    """

    raw: str = ""
    form: str = "metadata"  # "string" | "bibtex" | "csl" | "metadata"
    title: str | None = None
    authors: list[str] = msgspec.field(default_factory=list)
    et_al: bool = False
    year: int | None = None
    year_raw: str | None = None
    venue: str | None = None
    doi: list[str] = msgspec.field(default_factory=list)
    pmid: str | None = None
    pmcid: str | None = None
    arxiv: str | None = None
    openalex: str | None = None
    urls: list[str] = msgspec.field(default_factory=list)
    is_preprint: bool = (
        False  # the citation presents itself as a preprint (arXiv, bioRxiv, "preprint")
    )
    volume: str | None = None
    pages: str | None = None
    publisher: str | None = None
    entry_type: str | None = None  # bibtex/CSL type when known
    warnings: list[str] = msgspec.field(
        default_factory=list
    )  # parse problems, e.g. unbalanced braces
    #: identifiers the citation states but that cannot be read as one (kind, text as written):
    #: a mismatch, never ignored ("10.1016jcell.2019.01.001" lost its slash)
    bad_ids: list[tuple[str, str]] = msgspec.field(default_factory=list)

    def states_work(self) -> bool:
        """True when the citation names a work at all: an identifier, a title or an author."""
        return bool(
            self.doi
            or self.arxiv
            or self.pmid
            or self.pmcid
            or self.openalex
            or self.title
            or self.authors
        )
