"""Resolving a cited source offline (the world index, the source store) and reading its text."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import fuzz

from citejudge.ids import (
    extract_arxiv,
    extract_dois,
    extract_openalex,
    extract_pmcid,
    extract_pmid,
    extract_urls,
    norm_doi,
)
from citejudge.match.citation import CitedWork
from citejudge.match.fields import compare_title
from citejudge.match.resolve import WorldLookup, resolve, validate
from citejudge.readers import parse_citation_string
from citejudge.records import Work
from citejudge.sources._store import SourceStore, SourceText
from citejudge.text.normalize import fold

__all__ = [
    "MAX_SOURCE_CHARS",
    "TITLE_IN_REFERENCE",
    "SourceResolution",
    "read_source",
    "resolve_source",
]

#: Only this many characters of a source string are parsed (longer strings are cut).
MAX_SOURCE_CHARS = 4000


@dataclass
class SourceResolution:
    """What a source string resolves to offline.

    ``status``: ``resolved`` (a record of the world), ``other_work`` (an identifier resolves to
    a record whose title is not the one the source names), ``id_conflict`` (identifiers resolve
    to different works), ``ambiguous``, ``not_found``, ``no_index`` (identifiers or a title
    were stated but no index was given), ``nothing_stated`` (no identifier, title or URL).
    """

    status: str
    kind: str  # "doi" | "arxiv" | "pmid" | "pmcid" | "openalex" | "url" | "reference" | "none"
    shown: str  # the source as named in messages (identifier or a shortened string)
    work: Work | None = None
    method: str | None = None
    named_title: str | None = None
    urls: list[str] = field(default_factory=list)
    message: str = ""
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for ``details``."""
        out: dict[str, Any] = {
            "status": self.status,
            "kind": self.kind,
            "shown": self.shown,
            "work_id": self.work.id if self.work else None,
            "method": self.method,
        }
        if self.named_title:
            out["named_title"] = self.named_title
        if self.urls:
            out["urls"] = self.urls[:5]
        if self.message:
            out["message"] = self.message
        if self.notes:
            out["notes"] = self.notes
        return out


def _short(s: str, n: int = 100) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"


def _cited_from_source(source: str) -> tuple[CitedWork, str, str]:
    """What the source states, its kind, and how to name it in messages."""
    text = source[:MAX_SOURCE_CHARS]
    stripped = text.strip()
    bare = not re.search(r"\s", stripped)
    if bare:
        cited = CitedWork(raw=stripped, form="string")
        doi = norm_doi(stripped)
        cited.doi = [doi] if doi else extract_dois(stripped)
        cited.arxiv = extract_arxiv(stripped)
        cited.pmid = extract_pmid(stripped)
        cited.pmcid = extract_pmcid(stripped)
        cited.openalex = extract_openalex(stripped)
        cited.urls = extract_urls(stripped)
    else:
        cited = parse_citation_string(text)
        if not cited.urls:
            cited.urls = extract_urls(text)
    if cited.openalex:
        kind, shown = "openalex", f"OpenAlex {cited.openalex}"
    elif cited.doi:
        kind, shown = "doi", f"DOI {cited.doi[0]}"
    elif cited.arxiv:
        kind, shown = "arxiv", f"arXiv {cited.arxiv}"
    elif cited.pmcid:
        kind, shown = "pmcid", f"PMCID {cited.pmcid}"
    elif cited.pmid:
        kind, shown = "pmid", f"PMID {cited.pmid}"
    elif cited.urls:
        kind, shown = "url", f"URL {_short(cited.urls[0], 120)}"
    elif stripped:
        kind, shown = "reference", f"reference '{_short(stripped)}'"
    else:
        kind, shown = "none", "no source"
    if not bare and kind != "reference":
        shown += " (in a reference string)"
    return cited, kind, shown


def resolve_source(source: str | None, world: WorldLookup | None) -> SourceResolution:
    """Resolve a source string through the world index (see :class:`SourceResolution`)."""
    if not isinstance(source, str) or not source.strip():
        return SourceResolution(
            "nothing_stated", "none", "no source", message="the citation gives no source"
        )
    cited, kind, shown = _cited_from_source(source)
    named = cited.title
    urls = list(cited.urls)
    stated = cited.states_work()
    if not stated:
        status = "not_found" if urls else "nothing_stated"
        msg = "no identifier or title could be read from the source"
        return SourceResolution(status, kind, shown, urls=urls, message=msg)
    if world is None:
        return SourceResolution(
            "no_index",
            kind,
            shown,
            named_title=named,
            urls=urls,
            message="no index was given (--index), so the source could not be looked up",
        )
    res = resolve(cited, world)
    out = SourceResolution(
        res.status if res.status != "matched" else "resolved",
        kind,
        shown,
        res.work,
        res.method,
        named,
        urls,
        res.message or "",
        list(res.notes),
    )
    if (
        res.status == "matched"
        and res.work is not None
        and res.method not in (None, "title_key", "title_search", "string_search")
    ):
        if named:
            check = compare_title(named, res.work.title)
            if not check.ok:
                out.status = "other_work"
                out.message = check.reason
        elif kind != "reference" and " " in source.strip():
            other = _names_other_work(cited, res.work)
            if other:
                out.status = "other_work"
                out.message = other
    return out


#: Below this similarity (rapidfuzz partial_ratio of the folded record title against the folded
#: reference string) the reference does not contain the record's title.
TITLE_IN_REFERENCE = 60.0


def _names_other_work(cited: CitedWork, work: Work) -> str | None:
    """Why a reference whose title could not be read names another work than ``work``, or None.

    Only when the evidence is clear: the reference states authors *and* a year, both disagree with
    the record, and the record's title does not occur in the reference string.
    """
    if not (cited.authors and cited.year is not None and work.title):
        return None
    fields = {f.field: f for f in validate(cited, work)}
    a, y = fields.get("authors"), fields.get("year")
    if a is None or y is None or a.ok or y.ok:
        return None
    sim = fuzz.partial_ratio(
        fold(work.title), fold(cited.raw[:MAX_SOURCE_CHARS]), processor=None, score_cutoff=0
    )
    if sim >= TITLE_IN_REFERENCE:
        return None
    return (
        f"the reference names {cited.authors[0]} ({cited.year}); the record's authors and year differ "
        f"({a.reason}; {y.reason}) and its title is not in the reference (similarity {sim:.0f})"
    )


def read_source(res: SourceResolution, store: SourceStore | None) -> SourceText | None:
    """The text of a resolved source: stored full text, then abstract; for URLs, the stored page."""
    if res.work is not None:
        if store is not None:
            st = store.text_for_work(res.work)
            if st is not None:
                return st
        if res.work.abstract and res.work.abstract.strip():
            return SourceText(res.work.abstract, f"abstract of {res.work.id}")
    if store is not None:
        for u in res.urls:
            st = store.text_for_url(u)
            if st is not None:
                return st
    return None
