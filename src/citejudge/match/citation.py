"""What a citation states, as parsed from a string, BibTeX entry, CSL-JSON or metadata fields.

Every field is what the *citation* says (never filled in from a record). ``None`` means the
citation does not state it, which the validator treats as "nothing to check".
"""

from __future__ import annotations

import msgspec

__all__ = ["CitedWork"]


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
    is_preprint: bool = False  # the citation presents itself as a preprint (arXiv, bioRxiv, "preprint")
    volume: str | None = None
    pages: str | None = None
    publisher: str | None = None
    entry_type: str | None = None  # bibtex/CSL type when known
    warnings: list[str] = msgspec.field(default_factory=list)  # parse problems, e.g. unbalanced braces
    #: identifiers the citation states but that cannot be read as one (kind, text as written):
    #: a mismatch, never ignored ("10.1016jcell.2019.01.001" lost its slash)
    bad_ids: list[tuple[str, str]] = msgspec.field(default_factory=list)
