"""CSL-JSON items -> :class:`~citejudge.readers.EntryFields` -> world records or citations.

CSL-JSON is what Zotero, Mendeley, pandoc and Crossref content negotiation export. Its text
is not LaTeX: only HTML-like rich-text markup (``<i>``, ``<sup>``) is removed. Names are
written family first ("van Gogh, Vincent"): the item says which part is the family name, and
keeping it in the string spares the matcher a guess on multi-word family names.

* :func:`parse_csl_item` reads the item a citation gives; never raises.
* :func:`csl_item_to_work` turns a library's item into a Work with id ``csl:<id>``.
"""

from __future__ import annotations

from typing import Any

from citejudge import ids
from citejudge.readers._entry import EntryFields, to_cited, to_work
from citejudge.readers._text import _PREPRINT_RE, _clean, year_in
from citejudge.records import Author, CitedWork, Work
from citejudge.text.normalize import strip_markup

__all__ = ["csl_fields", "csl_item_to_work", "csl_name", "csl_year", "parse_csl_item"]

_ET_AL_NAMES = frozenset({"others", "et al", "et al."})
#: CSL variables naming where a work appeared, most specific first
_VENUE_KEYS = (
    "container-title",
    "container-title-short",
    "journalAbbreviation",
    "collection-title",
    "event-title",
)
#: date variables tried in turn for the year ("created" is when the DOI was registered: not used)
_DATE_KEYS = ("issued", "published-print", "published-online")


def _str(value: Any) -> str | None:
    """A CSL string variable (a one-element list is accepted, as exported in the wild); markup removed."""
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        return None
    return _clean(strip_markup(value)) or None


def csl_name(a: Any) -> str | None:
    """One CSL name as a string: ``literal`` as is, else "non-dropping family, given dropping, suffix"."""
    if isinstance(a, str):
        return _clean(a) or None
    if not isinstance(a, dict):
        return None
    lit = a.get("literal")
    if isinstance(lit, str) and lit.strip():
        return _clean(lit)
    fam, giv = _str(a.get("family")), _str(a.get("given"))
    particle, dropping, suffix = (
        _str(a.get("non-dropping-particle")),
        _str(a.get("dropping-particle")),
        _str(a.get("suffix")),
    )
    if fam and particle:
        fam = f"{particle} {fam}"
    if giv and dropping:
        giv = f"{giv} {dropping}"
    if fam and giv:
        return f"{fam}, {giv}, {suffix}" if suffix else f"{fam}, {giv}"
    return fam or giv or None


def csl_year(d: Any) -> tuple[int | None, str | None]:
    """(year, as written) of a CSL date: ``date-parts``, else ``raw`` / ``literal``, else a bare year."""
    if isinstance(d, dict):
        parts = d.get("date-parts")
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            y = parts[0][0]
            try:
                return int(y), str(y)
            except (TypeError, ValueError):
                return None, str(y)
        for key in ("raw", "literal"):
            v = d.get(key)
            if isinstance(v, str):
                return year_in(v), v
    if isinstance(d, int | str) and not isinstance(d, bool):
        return year_in(str(d)), str(d)
    return None, None


def csl_fields(item: dict[str, Any]) -> EntryFields:
    """Decode one CSL-JSON item into :class:`EntryFields`."""
    e = EntryFields(entry_type=_str(item.get("type")))
    e.title = _str(item.get("title"))
    authors = item.get("author")
    if isinstance(authors, list):
        for a in authors:
            n = csl_name(a)
            if n and n.lower() in _ET_AL_NAMES:
                e.et_al = True
            elif n:
                e.authors.append(Author(name=n))
    elif authors is not None:
        e.warnings.append("author: not a list of CSL names; ignored")
    for key in (*_DATE_KEYS, "year"):
        y, written = csl_year(item.get(key))
        e.year_raw = e.year_raw or written
        if y is not None:
            e.year, e.year_raw = y, written
            break
    for key in _VENUE_KEYS:
        t = _str(item.get(key))
        if t and t not in e.venues:
            e.venues.append(t)
    event = _str(item.get("event"))
    e.venue_aliases = [event] if event else []
    doi = _str(item.get("DOI") or item.get("doi"))
    d = ids.norm_doi(doi) if doi else None
    if d:
        e.dois.append(d)
    elif doi:
        e.bad_ids.append(("doi", doi[:200]))
    e.pmid = ids.norm_pmid(_str(item.get("PMID")))
    e.pmcid = ids.norm_pmcid(_str(item.get("PMCID")))
    url = _str(item.get("URL") or item.get("url"))
    if url:
        e.urls = [url]
        e.arxiv = ids.extract_arxiv(url)
        e.dois.extend(x for x in ids.extract_dois(url) if x not in e.dois)
    if e.arxiv is None and e.dois:
        e.arxiv = ids.arxiv_from_doi(e.dois[0])
    number = _str(item.get("number"))
    if e.arxiv is None and number and e.venues and "arxiv" in e.venues[0].lower():
        e.arxiv = ids.norm_arxiv(number)
    e.volume = _str(item.get("volume"))
    e.pages = _str(item.get("page"))
    e.publisher = _str(item.get("publisher"))
    blob = " ".join(x for x in (e.venues[0] if e.venues else "", e.publisher or "") if x)
    # CSL type "article" is the generic (preprint / working paper) type
    e.is_preprint = (
        e.arxiv is not None
        or bool(_PREPRINT_RE.search(blob))
        or (e.entry_type == "article" and not e.venues)
    )
    e.abstract = _str(item.get("abstract"))
    e.language = _str(item.get("language"))
    return e


def parse_csl_item(item: dict[str, Any]) -> CitedWork:
    """Read a CSL-JSON item (``author``, ``issued``, ``container-title``, ``DOI``...); never raises."""
    raw = repr(item)[:2000]
    if not isinstance(item, dict):
        work = CitedWork(raw=raw, form="csl")
        work.warnings.append(f"CSL item is {type(item).__name__}, not an object")
        return work
    return to_cited(csl_fields(item), raw, "csl")


def csl_item_to_work(item: dict[str, Any], source: str | None = None) -> Work:
    """Turn one CSL-JSON item into a Work with id ``csl:<id>``; raises ValueError without an id."""
    cid = item.get("id")
    if cid is None or str(cid).strip() == "":
        raise ValueError("CSL item without an id")
    return to_work(csl_fields(item), f"csl:{cid}", source)
