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
from collections.abc import Callable
from typing import Any

import msgspec

from citejudge import native
from citejudge.ids import (
    arxiv_from_doi,
    extract_arxiv,
    norm_arxiv,
    norm_doi,
    norm_mag,
    norm_openalex,
    norm_pmcid,
    norm_pmid,
    strip_landing_suffix,
)
from citejudge.records import HOST_KIND, Author, Version, Work
from citejudge.text.normalize import strip_markup
from citejudge.text.venue_names import is_venue_name

__all__ = [
    "OpenAlexAbstractError",
    "OpenAlexRecordError",
    "abstract_from_inverted_index",
    "convert_openalex",
    "decode_openalex_line",
]


class OpenAlexRecordError(ValueError):
    """A single OpenAlex record that cannot be turned into a Work (no id, bad types)."""


_ABSTRACT_DROPPED = "bad abstract, the work is kept without it: {exc}"


class OpenAlexAbstractError(OpenAlexRecordError):
    """A record whose abstract alone is malformed: ``work`` is the record without it.

    Readers keep ``work`` and report the message as a warning: a bad abstract must not take the
    work out of reference grounding.
    """

    def __init__(self, message: str, work: Work):
        super().__init__(message)
        self.work = work


def _rejected(
    exc: msgspec.ValidationError, without_abstract: Callable[[], Any], source: str | None
) -> OpenAlexRecordError:
    """The error for a record msgspec rejected with ``exc``.

    When the fault is in an abstract field (msgspec's message ends "- at `$.abstract..."),
    ``without_abstract`` decodes the record again skipping the abstract: an
    :class:`OpenAlexAbstractError` carrying that Work, unless another field is at fault too.
    """
    if not str(exc).rpartition(" - at ")[2].startswith("`$.abstract"):
        return OpenAlexRecordError(f"bad field type: {exc}")
    try:
        rec = without_abstract()
    except msgspec.ValidationError as other:
        return OpenAlexRecordError(f"bad field type: {other}")
    return OpenAlexAbstractError(_ABSTRACT_DROPPED.format(exc=exc), _convert(rec, source))


# --- typed mirror of the fields we use ----------------------------------------------------
# (gc=False: these short-lived, acyclic objects are not tracked by the cyclic GC, which makes
# decoding a few percent faster)


class _Source(msgspec.Struct, forbid_unknown_fields=False, gc=False):
    display_name: str | None = None
    host_organization_name: str | None = None
    abbreviated_title: str | None = None
    type: str | None = None


class _Location(msgspec.Struct, forbid_unknown_fields=False, gc=False):
    id: str | None = None
    source: _Source | None = None
    landing_page_url: str | None = None
    pdf_url: str | None = None
    version: str | None = None
    raw_source_name: str | None = None


class _HostVenue(msgspec.Struct, forbid_unknown_fields=False, gc=False):
    display_name: str | None = None
    publisher: str | None = None
    url: str | None = None
    version: str | None = None
    abbreviated_title: str | None = None


class _AuthorRef(msgspec.Struct, forbid_unknown_fields=False, gc=False):
    display_name: str | None = None
    orcid: str | None = None


class _Authorship(msgspec.Struct, forbid_unknown_fields=False, gc=False):
    author: _AuthorRef | None = None
    raw_author_name: str | None = None


class _Ids(msgspec.Struct, forbid_unknown_fields=False, gc=False):
    openalex: str | None = None
    doi: str | None = None
    pmid: str | int | None = None
    pmcid: str | int | None = None
    mag: str | int | None = None


class _OAWorkMeta(msgspec.Struct, forbid_unknown_fields=False, gc=False):
    """The fields of a Work but its abstract (which the decoder then skips without parsing)."""

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


class _OAWork(_OAWorkMeta, forbid_unknown_fields=False, gc=False):
    abstract_inverted_index: dict[str, list[int]] | str | None = None
    abstract_inverted_index_v3: dict[str, Any] | str | None = None
    abstract: str | None = None


_RAW_NULL = msgspec.Raw(b"null")


class _OAWorkRaw(_OAWorkMeta, forbid_unknown_fields=False, gc=False):
    """:class:`_OAWork` with the inverted index kept as its JSON text, for the C reader."""

    abstract_inverted_index: msgspec.Raw = _RAW_NULL
    abstract_inverted_index_v3: dict[str, Any] | str | None = None
    abstract: str | None = None


_NATIVE = native.load()
#: the C reader of inverted indexes (None: the Python path alone; see citejudge.native)
_inverted_abstract: Callable[[bytes], str | None] | None = (
    _NATIVE.inverted_abstract if _NATIVE is not None else None
)

_LINE_DECODER = msgspec.json.Decoder(_OAWork, strict=False)
_RAW_DECODER = msgspec.json.Decoder(_OAWorkRaw, strict=False)
_META_DECODER = msgspec.json.Decoder(_OAWorkMeta, strict=False)
_JSON_DECODER = msgspec.json.Decoder()
_WS = re.compile(r"\s+")
_ORCID_SEARCH = re.compile(r"(\d{4}-\d{4}-\d{4}-\d{3}[\dXx])").search
#: Source types of a venue proper: a record with one keeps no venue_kinds (the matcher needs them
#: only for records known from repositories, metadata sources, ebook platforms and book series),
#: unless it names no host organisation: then the kinds of those names say it names no publisher.
_NAMED_KINDS = frozenset({"journal", "conference"})
_VERSION_KIND = {
    "submittedVersion": "preprint",
    "acceptedVersion": "accepted",
    "publishedVersion": "published",
}


# --- helpers --------------------------------------------------------------------------------


def _clean(text: str | None) -> str | None:
    if not text:
        return None
    return _clean_spaces(strip_markup(text) if ("<" in text or "&" in text) else text)


def _clean_spaces_py(s: str) -> str | None:
    """Runs of whitespace as one space (in the strings that need it), stripped; None if empty."""
    # isprintable() is False for every whitespace character but " ", so this one pass rules out
    # the rare strings that need whitespace collapsing.
    if ("  " in s or not s.isprintable()) and (
        "  " in s or "\n" in s or "\t" in s or "\r" in s or "\xa0" in s
    ):
        s = _WS.sub(" ", s)
    return s.strip() or None


#: :func:`_clean_spaces_py`, in C when the module is built (one pass; a long abstract's
#: ``isprintable()`` and ``re.sub`` took tens of microseconds)
_clean_spaces: Callable[[str], str | None] = (
    _NATIVE.clean_spaces if _NATIVE is not None else _clean_spaces_py
)


# Fast paths for the URL forms OpenAlex writes; anything else goes to citejudge.ids. Property
# tests check that each agrees with the general normaliser.
_DOI_URL = "https://doi.org/"
_DOI_BODY = re.compile(r"^10\.\d{4,9}/\S+$")  # as citejudge.ids
_DOI_TRAILING = ".,;:)]}>'\"\u201d\u2019"  # as citejudge.ids
_IMAGE_EXT = (".svg", ".png", ".gif", ".jpg", ".jpeg")
_OPENALEX_URL = "https://openalex.org/W"
_PMID_URL = "https://pubmed.ncbi.nlm.nih.gov/"
_PMCID_URL = "https://www.ncbi.nlm.nih.gov/pmc/articles/"


def _doi(value: str | None) -> str | None:
    """:func:`citejudge.ids.norm_doi`, fast for a plain ``https://doi.org/10...`` URL."""
    if not value:
        return None
    if (
        value.startswith(_DOI_URL)
        and value.isascii()
        and value.isprintable()  # for ASCII: no control characters, so no whitespace but " "
        and " " not in value
        and "%" not in value
        and value[-1] not in _DOI_TRAILING
    ):
        s = value[len(_DOI_URL) :].lower()
        if not s.endswith(_IMAGE_EXT):
            s = strip_landing_suffix(s)  # a query string or landing-page tail, as norm_doi does
            return s if _DOI_BODY.match(s) else None
    return norm_doi(value)


def _openalex(value: str | None) -> str | None:
    """:func:`citejudge.ids.norm_openalex`, fast for ``https://openalex.org/W<digits>``."""
    if value and value.startswith(_OPENALEX_URL):
        digits = value[len(_OPENALEX_URL) :]
        if digits.isdigit() and digits.isascii():
            return "W" + digits
    return norm_openalex(value)


def _pmid(value: str | int | None) -> str | None:
    """:func:`citejudge.ids.norm_pmid`, fast for a PubMed URL."""
    if value is None:
        return None
    if type(value) is str and value.startswith(_PMID_URL):
        digits = value[len(_PMID_URL) :]
        if digits.isdigit() and digits.isascii():
            return digits.lstrip("0") or None
    return norm_pmid(value)


def _pmcid(value: str | int | None) -> str | None:
    """:func:`citejudge.ids.norm_pmcid`, fast for a PMC URL ending in digits."""
    if value is None:
        return None
    if type(value) is str and value.startswith(_PMCID_URL):
        digits = value[len(_PMCID_URL) :]
        if digits.isdigit() and digits.isascii():
            return "PMC" + (digits.lstrip("0") or "0")
    return norm_pmcid(value)


#: Inverted-index positions from here on are malformed (abstracts are thousands of words long).
MAX_POSITION = 1 << 20


def abstract_from_inverted_index(
    index: dict[str, list[int]] | dict[str, Any] | str | None,
) -> str | None:
    """Rebuild an abstract from an OpenAlex inverted index (dict or JSON string); None if empty.

    Accepts ``{"word": [positions]}`` and the MAG form ``{"IndexLength": n, "InvertedIndex": {...}}``.
    Malformed entries are skipped rather than failing the record, positions from
    :data:`MAX_POSITION` on among them (one such position would otherwise make the text that
    long, or stop the reading of its file with an OverflowError).
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
            if len(places) == 1:  # most words occur once
                words[places[0]] = word
            else:
                for p in places:
                    words[p] = word
    except (IndexError, TypeError, OverflowError):
        words = [None] * size
        for word, places in index.items():
            if not isinstance(places, list):
                continue
            for p in places:
                if type(p) is not int or p < 0 or p >= MAX_POSITION:
                    continue
                if p >= len(words):
                    words.extend([None] * (p + 1 - len(words)))
                words[p] = word
    try:  # every position filled (the usual case): no filtering pass
        text = " ".join(words)  # type: ignore[arg-type]
    except TypeError:  # gaps (None) in the positions
        text = " ".join([w for w in words if w is not None])
    return _abstract_text(text)


def _abstract_text(text: str) -> str | None:
    """The clean-up of an abstract's words joined in position order."""
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


def _add(seq: list[str], value: str | None, *exclude: str | None) -> None:
    if value and value not in seq and value not in exclude:
        seq.append(value)


def _orcid(value: str | None) -> str | None:
    if not value:
        return None
    m = _ORCID_SEARCH(value)
    return m.group(1).upper() if m else None


# --- conversion -------------------------------------------------------------------------------

_NO_IDS = _Ids()


def _convert(rec: _OAWorkMeta, source: str | None, inverted: str | None = None) -> Work:
    # Hot path of snapshot ingest: each location's cleaned names are computed once and reused,
    # the record's DOI URL is normalised once (locations usually repeat it), and the usual
    # OpenAlex URL forms of ids take fast paths that agree with citejudge.ids.
    # ``inverted``: for an _OAWorkRaw, the words of its inverted index as the C reader joined
    # them.
    ids = rec.ids
    wid = _openalex(rec.id) or (_openalex(ids.openalex) if ids is not None else None)
    if wid is None:
        raise OpenAlexRecordError(f"record without a valid OpenAlex id (id={rec.id!r})")
    if ids is None:
        ids = _NO_IDS

    title = _clean(rec.title) or _clean(rec.display_name)
    raw_doi = rec.doi
    rec_doi = _doi(raw_doi)
    doi = rec_doi if rec_doi is not None else _doi(ids.doi)
    arxiv = arxiv_from_doi(doi)

    primary = rec.primary_location
    locations: list[_Location] = [] if primary is None else [primary]
    if rec.locations:
        for loc in rec.locations:
            if loc is not primary and loc not in locations:
                locations.append(loc)

    # cleaned source name and raw source name of every location
    src_names: list[str | None] = []
    raw_names: list[str | None] = []
    for loc in locations:
        src = loc.source
        src_names.append(_clean(src.display_name) if src is not None else None)
        raw_names.append(_clean(loc.raw_source_name) if loc.raw_source_name else None)

    # venue and alternatives
    venue: str | None = None
    for name in src_names:
        if name:
            venue = name
            break
    hv = rec.host_venue
    if venue is None and hv is not None:
        venue = _clean(hv.display_name)
    if venue is None:
        for name in raw_names:
            if name:
                venue = name
                break
    venue_alt: list[str] = []
    # what each name is, where the record says: its source's type, "host" for a publisher
    venue_kinds: dict[str, str] = {}
    first_src: _Source | None = None
    for loc, src_name, raw_name in zip(locations, src_names, raw_names, strict=True):
        src = loc.source
        if src is not None:
            if first_src is None:
                first_src = src
            if src_name and src_name != venue and src_name not in venue_alt:
                venue_alt.append(src_name)
            abbr = _clean(src.abbreviated_title) if src.abbreviated_title else None
            _add(venue_alt, abbr, venue)
            if src.type:
                for name in (src_name, abbr, raw_name):
                    if name and name not in venue_kinds:
                        venue_kinds[name] = src.type
        if raw_name and raw_name != venue and raw_name not in venue_alt:
            venue_alt.append(raw_name)
    if hv is not None:
        _add(venue_alt, _clean(hv.display_name), venue)
        _add(venue_alt, _clean(hv.abbreviated_title), venue)
        publisher = _clean(hv.publisher)
        _add(venue_alt, publisher, venue)
        if publisher and publisher not in venue_kinds:
            venue_kinds[publisher] = HOST_KIND
    if first_src is not None and first_src.host_organization_name:
        host = _clean(first_src.host_organization_name)
        _add(venue_alt, host, venue)
        if host and host not in venue_kinds:
            venue_kinds[host] = HOST_KIND
    if any(k in _NAMED_KINDS and is_venue_name(n) for n, k in venue_kinds.items()):
        # a journal or proceedings names the venue: the kinds change nothing, but for a record
        # without a host organisation the venue's own kind is kept (it names no publisher)
        venue_kinds = (
            {}
            if HOST_KIND in venue_kinds.values()
            else {n: k for n, k in venue_kinds.items() if k in _NAMED_KINDS and is_venue_name(n)}
        )

    # versions, urls, arXiv from locations
    versions: list[Version] = []
    urls: list[str] = []
    for i, loc in enumerate(locations):
        a = _arxiv_of_location(loc)
        if a and arxiv is None:
            arxiv = a
        landing = loc.landing_page_url
        pdf = loc.pdf_url
        if landing and landing not in urls:
            urls.append(landing)
        if pdf and pdf not in urls:
            urls.append(pdf)
        kind = _VERSION_KIND.get(loc.version or "", loc.version)
        ldoi: str | None = None
        if landing and "doi.org/" in landing.lower():
            ldoi = rec_doi if landing == raw_doi else _doi(landing)
        lvenue = src_names[i] if loc.source is not None else raw_names[i]
        if a and kind in (None, "submitted"):
            kind = "preprint"
        if not (kind or a or ldoi):
            continue
        v = Version(
            year=rec.publication_year if i == 0 and primary is not None else None,
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
        if ref is None:
            name = raw
            orcid = None
        else:
            name = _clean(ref.display_name) or raw
            orcid = _orcid(ref.orcid)
        if not name:
            continue
        authors.append(
            Author(name=name, raw_name=raw if raw and raw != name else None, orcid=orcid)
        )

    abstract: str | None = None
    if isinstance(rec, _OAWork | _OAWorkRaw):
        if isinstance(rec, _OAWorkRaw):
            abstract = _abstract_text(inverted) if inverted is not None else None
        elif rec.abstract_inverted_index is not None:
            abstract = abstract_from_inverted_index(rec.abstract_inverted_index)
        if abstract is None and rec.abstract_inverted_index_v3 is not None:
            abstract = abstract_from_inverted_index(rec.abstract_inverted_index_v3)
        if abstract is None:
            abstract = _clean(rec.abstract)
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
        pmid=_pmid(ids.pmid),
        pmcid=_pmcid(ids.pmcid),
        arxiv=arxiv,
        mag=norm_mag(ids.mag),
        urls=urls,
        abstract=abstract,
        is_retracted=bool(rec.is_retracted),
        versions=versions,
        language=rec.language or None,
        updated=updated,
        source=source,
        venue_kinds=venue_kinds,
    )


#: The fields of Work in order (the C converter passes them by position).
_WORK_FIELDS = (
    "id", "title", "authors", "year", "venue", "venue_alt", "type", "doi", "pmid", "pmcid",
    "arxiv", "mag", "urls", "abstract", "is_retracted", "versions", "language", "updated",
    "source", "venue_kinds",
)  # fmt: skip


def _configure_native_convert() -> (
    Callable[[_OAWorkMeta, str | None, str | None, bool], Work | None] | None
):
    """The C module's :func:`_convert`, given the helpers it calls.

    ``convert(rec, source, inverted, abstract)`` takes an :class:`_OAWorkRaw` with its inverted
    index's words (``abstract`` true), or an :class:`_OAWorkMeta` (false: the Work has no
    abstract, as for ``index build --fields matching``). It runs the conversion's plain steps
    in C and calls these for the rest; it returns None for a record without an OpenAlex id of
    the usual form (``_convert`` then says what is wrong).
    """
    if _NATIVE is None:
        return None
    if (
        Work.__struct_fields__ != _WORK_FIELDS
        or Author.__struct_fields__ != ("name", "raw_name", "orcid")
        or Version.__struct_fields__ != ("year", "venue", "doi", "arxiv", "kind")
    ):  # pragma: no cover - a guard for whoever reorders the record types
        raise RuntimeError("citejudge.records changed: update the C converter's field order")
    _NATIVE.configure_convert(
        {
            "clean": _clean,
            "doi": _doi,
            "strip_landing_suffix": strip_landing_suffix,
            "openalex": _openalex,
            "arxiv_of_location": _arxiv_of_location,
            "orcid": _orcid,
            "pmid": _pmid,
            "pmcid": _pmcid,
            "mag": norm_mag,
            "arxiv_from_doi": arxiv_from_doi,
            "abstract_text": _abstract_text,
            "abstract_from_inverted_index": abstract_from_inverted_index,
            "Work": Work,
            "Author": Author,
            "Version": Version,
            "version_kind": _VERSION_KIND,
            "no_ids": _NO_IDS,
            "host_kind": HOST_KIND,
            "named_kinds": _NAMED_KINDS,
            "is_venue_name": is_venue_name,
        }
    )
    return _NATIVE.convert  # type: ignore[no-any-return]


_native_convert = _configure_native_convert()


def _to_work(rec: _OAWorkMeta, source: str | None, inverted: str | None, abstract: bool) -> Work:
    """:func:`_convert`, in C when the module is built (see :func:`_configure_native_convert`)."""
    if _native_convert is not None:
        work = _native_convert(rec, source, inverted, abstract)
        if work is not None:
            return work
    return _convert(rec, source, inverted)


def decode_openalex_line(
    line: bytes | str, source: str | None = None, *, abstract: bool = True
) -> Work:
    """Decode one JSON text (a snapshot line or an API body) of an OpenAlex Work into a Work.

    ``abstract=False`` skips the abstract unparsed (the Work has none): a third faster.
    Raises :class:`OpenAlexRecordError` for invalid JSON, wrong field types or a missing id, and
    :class:`OpenAlexAbstractError` (with the Work without its abstract) when only the abstract
    is malformed. ``abstract=False`` neither reads nor checks the abstract.
    """
    if abstract and _inverted_abstract is not None:
        # The C reader joins the inverted index's words from its JSON text, without the dict
        # of lists decoding it makes (a third of reading a record with an abstract). Any shape
        # it leaves alone, and any record msgspec rejects, takes the general path below, so
        # the Works and the errors are the same, but for one malformed shape: a record that
        # gives the index twice is read from its last copy here (as msgspec reads any repeated
        # key), while the general path drops the abstract when an earlier copy is ill-typed.
        # No real record repeats a key; finding one would cost a scan of every line.
        try:
            raw = _RAW_DECODER.decode(line)
            inverted = _inverted_abstract(raw.abstract_inverted_index)
        except ValueError:  # (msgspec's DecodeError and ValidationError are ValueErrors)
            pass
        else:
            return _to_work(raw, source, inverted, True)
    try:
        rec = (_LINE_DECODER if abstract else _META_DECODER).decode(line)
    except msgspec.ValidationError as exc:
        raise _rejected(exc, lambda: _META_DECODER.decode(line), source) from exc
    except msgspec.DecodeError as exc:
        raise OpenAlexRecordError(f"not a JSON object: {exc}") from exc
    if not abstract:  # (an index build --fields matching)
        return _to_work(rec, source, None, False)
    return _convert(rec, source)


def convert_openalex(obj: dict[str, Any] | bytes | str, source: str | None = None) -> Work:
    """Convert an OpenAlex Work (a dict as the API returns it, or its raw JSON) into a Work.

    Raises :class:`OpenAlexRecordError` when the record has no id or fields of the wrong type
    (:class:`OpenAlexAbstractError`, with the Work without its abstract, when only the abstract
    is malformed).
    """
    if isinstance(obj, bytes | str):
        return decode_openalex_line(obj, source)
    if not isinstance(obj, dict):
        raise OpenAlexRecordError(f"expected a JSON object, got {type(obj).__name__}")
    try:
        rec = msgspec.convert(obj, _OAWork, strict=False)
    except msgspec.ValidationError as exc:
        raise _rejected(
            exc, lambda: msgspec.convert(obj, _OAWorkMeta, strict=False), source
        ) from exc
    return _convert(rec, source)
