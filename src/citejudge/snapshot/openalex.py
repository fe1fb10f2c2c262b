"""OpenAlex Work objects (API JSON, snapshot JSONL lines) -> :class:`citejudge.records.Work`.

Only the fields the index uses are decoded, through a typed msgspec mirror of the OpenAlex
Work schema (unknown fields are skipped by the decoder without building Python objects),
which is what makes snapshot ingest fast. Every schema generation seen 2022–2026 is accepted:

* ``title`` null -> ``display_name``; both null -> title None. HTML/JATS/MathML is stripped.
* venue: ``primary_location.source`` -> other locations' sources -> ``host_venue`` (pre-2023
  schema) -> ``raw_source_name`` (2025+ schema).
* ``ids.pmcid`` with or without ``PMC``, or as a URL; ``ids.pmid`` as URL; ``ids.mag`` str or int.
* arXiv id from a ``10.48550/arxiv.*`` DOI or from an arXiv location (URL, source, OAI id).
* abstract from ``abstract_inverted_index`` (a dict in the API / JSONL, a JSON *string* in
  Parquet-derived rows), else from ``abstract_inverted_index_v3`` (null in every record seen so
  far; accepted in the same shapes and in the MAG ``{"IndexLength", "InvertedIndex"}`` shape),
  else a plain ``abstract`` string (rows post-processed by third-party tools).
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from citejudge.ids import (
    arxiv_from_doi,
    extract_arxiv,
    norm_arxiv,
    norm_doi,
    norm_mag,
    norm_openalex,
    norm_pmcid,
    norm_pmid,
)
from citejudge.match.normalize import strip_markup
from citejudge.records import Author, Version, Work

__all__ = [
    "OpenAlexRecordError",
    "abstract_from_inverted_index",
    "convert_openalex",
    "decode_openalex_line",
]


class OpenAlexRecordError(ValueError):
    """A single OpenAlex record that cannot be turned into a Work (no id, bad types)."""


# --- typed mirror of the fields we use ----------------------------------------------------


class _Source(msgspec.Struct, forbid_unknown_fields=False):
    display_name: str | None = None
    host_organization_name: str | None = None
    abbreviated_title: str | None = None
    type: str | None = None


class _Location(msgspec.Struct, forbid_unknown_fields=False):
    id: str | None = None
    source: _Source | None = None
    landing_page_url: str | None = None
    pdf_url: str | None = None
    version: str | None = None
    raw_source_name: str | None = None


class _HostVenue(msgspec.Struct, forbid_unknown_fields=False):
    display_name: str | None = None
    publisher: str | None = None
    url: str | None = None
    version: str | None = None
    abbreviated_title: str | None = None


class _AuthorRef(msgspec.Struct, forbid_unknown_fields=False):
    display_name: str | None = None
    orcid: str | None = None


class _Authorship(msgspec.Struct, forbid_unknown_fields=False):
    author: _AuthorRef | None = None
    raw_author_name: str | None = None


class _Ids(msgspec.Struct, forbid_unknown_fields=False):
    openalex: str | None = None
    doi: str | None = None
    pmid: str | int | None = None
    pmcid: str | int | None = None
    mag: str | int | None = None


class _OAWork(msgspec.Struct, forbid_unknown_fields=False):
    id: str | None = None
    doi: str | None = None
    title: str | None = None
    display_name: str | None = None
    publication_year: int | None = None
    ids: _Ids | None = None
    language: str | None = None
    type: str | None = None
    primary_location: _Location | None = None
    locations: list[_Location] | None = None
    host_venue: _HostVenue | None = None
    authorships: list[_Authorship] | None = None
    is_retracted: bool | None = None
    updated_date: str | None = None
    abstract_inverted_index: dict[str, list[int]] | str | None = None
    abstract_inverted_index_v3: dict[str, Any] | str | None = None
    abstract: str | None = None


_LINE_DECODER = msgspec.json.Decoder(_OAWork, strict=False)
_JSON_DECODER = msgspec.json.Decoder()
_WS = re.compile(r"\s+")
_ORCID = re.compile(r"(\d{4}-\d{4}-\d{4}-\d{3}[\dXx])")
_VERSION_KIND = {
    "submittedVersion": "preprint",
    "acceptedVersion": "accepted",
    "publishedVersion": "published",
}


# --- helpers --------------------------------------------------------------------------------


def _clean(text: str | None) -> str | None:
    if not text:
        return None
    s = strip_markup(text) if ("<" in text or "&" in text) else text
    if "  " in s or "\n" in s or "\t" in s or "\r" in s or "\xa0" in s:
        s = _WS.sub(" ", s)
    return s.strip() or None


def abstract_from_inverted_index(
    index: dict[str, list[int]] | dict[str, Any] | str | None,
) -> str | None:
    """Rebuild an abstract from an OpenAlex inverted index (dict or JSON string); None if empty.

    Accepts ``{"word": [positions]}`` and the MAG form ``{"IndexLength": n, "InvertedIndex": {...}}``.
    Malformed entries are skipped rather than failing the record.
    """
    if index is None:
        return None
    if isinstance(index, str):
        if not index.strip():
            return None
        try:
            index = _JSON_DECODER.decode(index)
        except msgspec.DecodeError:
            return None
        if not isinstance(index, dict):
            return None
    if "InvertedIndex" in index and isinstance(index["InvertedIndex"], dict):
        index = index["InvertedIndex"]
    try:
        size = sum(map(len, index.values()))
    except TypeError:
        size = sum(len(v) for v in index.values() if isinstance(v, list))
    if size == 0:
        return None
    words: list[str | None] = [None] * size
    try:  # fast path: well-formed positions 0..size-1
        for word, places in index.items():
            for p in places:
                words[p] = word
    except (IndexError, TypeError):
        words = [None] * size
        for word, places in index.items():
            if not isinstance(places, list):
                continue
            for p in places:
                if type(p) is not int or p < 0:
                    continue
                if p >= len(words):
                    words.extend([None] * (p + 1 - len(words)))
                words[p] = word
    text = " ".join([w for w in words if w is not None])
    if "<" in text or "&" in text or "\n" in text or "  " in text:
        return _clean(text)
    return text.strip() or None


def _arxiv_of_location(loc: _Location) -> str | None:
    for url in (loc.landing_page_url, loc.pdf_url):
        if url and "arxiv.org/" in url.lower():
            a = extract_arxiv(url)
            if a:
                return a
    if loc.id and "arxiv" in loc.id.lower():  # "pmh:oai:arXiv.org:1411.5279"
        a = norm_arxiv(loc.id.rsplit(":", 1)[-1])
        if a:
            return a
    src = loc.source
    if src and src.display_name and "arxiv" in src.display_name.lower():
        for url in (loc.landing_page_url, loc.pdf_url):
            if url:
                a = extract_arxiv(url) or norm_arxiv(url.rstrip("/").rsplit("/", 1)[-1])
                if a:
                    return a
    return None


def _doi_of_location(loc: _Location) -> str | None:
    url = loc.landing_page_url
    if url and "doi.org/" in url.lower():
        return norm_doi(url)
    return None


def _orcid(value: str | None) -> str | None:
    if not value:
        return None
    m = _ORCID.search(value)
    return m.group(1).upper() if m else None


def _add(seq: list[str], value: str | None, *exclude: str | None) -> None:
    if value and value not in seq and value not in exclude:
        seq.append(value)


# --- conversion -------------------------------------------------------------------------------


def _convert(rec: _OAWork, source: str | None) -> Work:
    wid = norm_openalex(rec.id) or (norm_openalex(rec.ids.openalex) if rec.ids else None)
    if wid is None:
        raise OpenAlexRecordError(f"record without a valid OpenAlex id (id={rec.id!r})")
    ids = rec.ids or _Ids()

    title = _clean(rec.title) or _clean(rec.display_name)
    doi = norm_doi(rec.doi) or norm_doi(ids.doi)
    arxiv = arxiv_from_doi(doi)

    locations: list[_Location] = []
    if rec.primary_location is not None:
        locations.append(rec.primary_location)
    for loc in rec.locations or ():
        if loc is not rec.primary_location and loc not in locations:
            locations.append(loc)

    # venue and alternatives
    venue: str | None = None
    venue_alt: list[str] = []
    for loc in locations:
        if loc.source and loc.source.display_name:
            venue = _clean(loc.source.display_name)
            if venue:
                break
    hv = rec.host_venue
    if venue is None and hv is not None:
        venue = _clean(hv.display_name)
    if venue is None:
        for loc in locations:
            venue = _clean(loc.raw_source_name)
            if venue:
                break
    for loc in locations:
        src = loc.source
        if src is not None:
            _add(venue_alt, _clean(src.display_name), venue)
            _add(venue_alt, _clean(src.abbreviated_title), venue)
        _add(venue_alt, _clean(loc.raw_source_name), venue)
    if hv is not None:
        _add(venue_alt, _clean(hv.display_name), venue)
        _add(venue_alt, _clean(hv.abbreviated_title), venue)
        _add(venue_alt, _clean(hv.publisher), venue)
    first_src = next((loc.source for loc in locations if loc.source), None)
    if first_src is not None:
        _add(venue_alt, _clean(first_src.host_organization_name), venue)

    # versions, urls, arXiv from locations
    versions: list[Version] = []
    urls: list[str] = []
    for i, loc in enumerate(locations):
        a = _arxiv_of_location(loc)
        if a and arxiv is None:
            arxiv = a
        _add(urls, loc.landing_page_url)
        _add(urls, loc.pdf_url)
        kind = _VERSION_KIND.get(loc.version or "", loc.version)
        ldoi = _doi_of_location(loc)
        lvenue = _clean(loc.source.display_name) if loc.source else _clean(loc.raw_source_name)
        if a and kind in (None, "submitted"):
            kind = "preprint"
        if not (kind or a or ldoi):
            continue
        v = Version(
            year=rec.publication_year if i == 0 and rec.primary_location is not None else None,
            venue=lvenue,
            doi=ldoi,
            arxiv=a,
            kind=kind,
        )
        if v not in versions:
            versions.append(v)
    if hv is not None and hv.url:
        _add(urls, hv.url)

    authors: list[Author] = []
    for au in rec.authorships or ():
        ref = au.author
        raw = _clean(au.raw_author_name)
        name = (_clean(ref.display_name) if ref else None) or raw
        if not name:
            continue
        authors.append(
            Author(
                name=name,
                raw_name=raw if raw and raw != name else None,
                orcid=_orcid(ref.orcid) if ref else None,
            )
        )

    abstract = (
        abstract_from_inverted_index(rec.abstract_inverted_index)
        or abstract_from_inverted_index(rec.abstract_inverted_index_v3)
        or _clean(rec.abstract)
    )
    updated = rec.updated_date[:10] if rec.updated_date else None

    return Work(
        id=wid,
        title=title,
        authors=authors,
        year=rec.publication_year,
        venue=venue,
        venue_alt=venue_alt,
        type=rec.type or None,
        doi=doi,
        pmid=norm_pmid(ids.pmid),
        pmcid=norm_pmcid(ids.pmcid),
        arxiv=arxiv,
        mag=norm_mag(ids.mag),
        urls=urls,
        abstract=abstract,
        is_retracted=bool(rec.is_retracted),
        versions=versions,
        language=rec.language or None,
        updated=updated,
        source=source,
    )


def decode_openalex_line(line: bytes | str, source: str | None = None) -> Work:
    """Decode one JSON text (a snapshot line or an API body) of an OpenAlex Work into a Work.

    Raises :class:`OpenAlexRecordError` for invalid JSON, wrong field types or a missing id.
    """
    try:
        rec = _LINE_DECODER.decode(line)
    except msgspec.ValidationError as exc:
        raise OpenAlexRecordError(f"bad field type: {exc}") from exc
    except msgspec.DecodeError as exc:
        raise OpenAlexRecordError(f"not a JSON object: {exc}") from exc
    return _convert(rec, source)


def convert_openalex(obj: dict[str, Any] | bytes | str, source: str | None = None) -> Work:
    """Convert an OpenAlex Work (a dict as the API returns it, or its raw JSON) into a Work.

    Raises :class:`OpenAlexRecordError` when the record has no id or fields of the wrong type.
    """
    if isinstance(obj, bytes | str):
        return decode_openalex_line(obj, source)
    if not isinstance(obj, dict):
        raise OpenAlexRecordError(f"expected a JSON object, got {type(obj).__name__}")
    try:
        rec = msgspec.convert(obj, _OAWork, strict=False)
    except msgspec.ValidationError as exc:
        raise OpenAlexRecordError(f"bad field type: {exc}") from exc
    return _convert(rec, source)
