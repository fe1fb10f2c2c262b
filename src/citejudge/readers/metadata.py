"""The ``metadata`` object of a ``references`` item, and which of an item's fields state the citation.

:func:`parse_item_citation` reads an item's ``full_citation`` (a free-text string, a BibTeX
entry as a string, or a CSL-JSON object) and its ``metadata`` fields, each into a
:class:`~citejudge.records.CitedWork`; a field of the wrong type becomes a warning, never an error.
"""

from __future__ import annotations

import re
from typing import Any

from citejudge import ids
from citejudge.readers._text import _ET_AL_RE, _PREPRINT_RE, _clean, _strip_italics, _tidy
from citejudge.readers.csl import csl_name, parse_csl_item
from citejudge.readers.freetext import parse_citation_string, split_author_string
from citejudge.records import CitedWork
from citejudge.text.normalize import delatex, strip_markup

__all__ = ["parse_item_citation", "parse_metadata"]


def parse_metadata(meta: dict[str, Any]) -> CitedWork:
    """Read a ``references`` item's ``metadata`` object; a field of the wrong type is ignored with a warning."""
    work = CitedWork(raw=repr(meta)[:2000], form="metadata")
    if not isinstance(meta, dict):
        work.warnings.append(f"metadata is {type(meta).__name__}, not an object")
        return work

    def text_field(name: str) -> str | None:
        v = meta.get(name)
        if v is None:
            return None
        if isinstance(v, str):
            return v.strip() or None
        work.warnings.append(f"{name}: expected a string, got {type(v).__name__}; ignored")
        return None

    title = text_field("title")
    work.title = _tidy(_strip_italics(delatex(strip_markup(title)))) if title else None
    authors = meta.get("authors")
    if isinstance(authors, str):
        authors = delatex(authors)
        work.et_al = bool(_ET_AL_RE.search(authors))
        work.authors = split_author_string(authors)
    elif isinstance(authors, list):
        for a in authors:
            if isinstance(a, str) and a.strip():
                a = delatex(a)
                if _ET_AL_RE.fullmatch(a.strip()) or a.strip().lower() in (
                    "others",
                    "et al",
                    "et al.",
                ):
                    work.et_al = True
                else:
                    work.authors.append(_clean(a))
            elif isinstance(a, dict):
                n = csl_name(a) or (_clean(a["name"]) if isinstance(a.get("name"), str) else None)
                if n:
                    work.authors.append(n)
                else:
                    work.warnings.append("authors: an entry has no usable name; ignored")
            else:
                work.warnings.append(
                    f"authors: an entry is {type(a).__name__}, not a string; ignored"
                )
    elif authors is not None:
        work.warnings.append(
            f"authors: expected a list or a string, got {type(authors).__name__}; ignored"
        )
    year = meta.get("year")
    if isinstance(year, bool):
        work.warnings.append("year: expected an integer or a string, got bool; ignored")
    elif isinstance(year, int):
        work.year, work.year_raw = year, str(year)
    elif isinstance(year, str):
        work.year_raw = year.strip() or None
        m = re.search(r"(?<!\d)(\d{4})(?!\d)", year)
        work.year = int(m.group(1)) if m else None
    elif year is not None:
        work.warnings.append(
            f"year: expected an integer or a string, got {type(year).__name__}; ignored"
        )
    venue = text_field("venue")
    work.venue = _tidy(delatex(venue)) if venue else None
    doi = text_field("doi")
    if doi:
        d = ids.norm_doi(doi)
        if d:
            work.doi = [d]
        else:
            work.bad_ids.append(("doi", doi[:200]))
    pmid = meta.get("pmid")
    if pmid is not None:
        if isinstance(pmid, (str, int)) and not isinstance(pmid, bool):
            work.pmid = ids.norm_pmid(pmid)
            if work.pmid is None and str(pmid).strip():
                work.bad_ids.append(("pmid", str(pmid)[:200]))
        else:
            work.warnings.append(f"pmid: expected a string, got {type(pmid).__name__}; ignored")
    pmcid = meta.get("pmcid")
    if pmcid is not None:
        if isinstance(pmcid, (str, int)) and not isinstance(pmcid, bool):
            work.pmcid = ids.norm_pmcid(pmcid)
            if work.pmcid is None and str(pmcid).strip():
                work.bad_ids.append(("pmcid", str(pmcid)[:200]))
        else:
            work.warnings.append(f"pmcid: expected a string, got {type(pmcid).__name__}; ignored")
    arxiv = text_field("arxiv")
    if arxiv:
        work.arxiv = ids.norm_arxiv(arxiv)
        if work.arxiv is None:
            work.bad_ids.append(("arxiv", arxiv[:200]))
    url = text_field("url")
    if url:
        work.urls = [url]
        if not work.doi:
            work.doi = ids.extract_dois(url)
        work.arxiv = work.arxiv or ids.extract_arxiv(url)
        work.pmcid = work.pmcid or (ids.extract_pmcid(url) if "pmc" in url.lower() else None)
        work.pmid = work.pmid or ids.extract_pmid(url)
    if work.arxiv is None and work.doi:
        work.arxiv = ids.arxiv_from_doi(work.doi[0])
    work.is_preprint = work.arxiv is not None or bool(
        work.venue and _PREPRINT_RE.search(work.venue)
    )
    return work


def parse_item_citation(item: dict[str, Any]) -> tuple[CitedWork | None, CitedWork | None]:
    """(from ``full_citation``, from ``metadata``) of a ``references`` item; None where absent."""
    if not isinstance(item, dict):
        return None, None
    full: CitedWork | None = None
    fc = item.get("full_citation")
    if isinstance(fc, str) and fc.strip():
        full = parse_citation_string(fc)
    elif isinstance(fc, dict):
        full = parse_csl_item(fc)
    elif fc is not None and not isinstance(fc, str):
        full = CitedWork(raw=repr(fc)[:200], form="string")
        full.warnings.append(
            f"full_citation: expected a string or an object, got {type(fc).__name__}; ignored"
        )
    meta_w: CitedWork | None = None
    meta = item.get("metadata")
    if isinstance(meta, dict) and meta:
        meta_w = parse_metadata(meta)
    elif meta is not None and not isinstance(meta, dict):
        meta_w = CitedWork(raw=repr(meta)[:200], form="metadata")
        meta_w.warnings.append(f"metadata: expected an object, got {type(meta).__name__}; ignored")
    return full, meta_w
