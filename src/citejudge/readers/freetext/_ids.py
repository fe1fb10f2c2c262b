"""Identifiers in a free-text citation: DOIs (including broken ones), arXiv, PMID, PMCID, URLs."""

from __future__ import annotations

import re

from citejudge import ids
from citejudge.readers._text import _CONTROL_RE
from citejudge.records import CitedWork

_DOI_SPLIT_DOT_RE = re.compile(r"(10\.\d{4,9}/[^\s\"<>{}]*\.)\s(\d[\w\-]*[.\-][\w.\-]*\w)")


_DOI_SPACE_DOT_RE = re.compile(r"(10\.\d{4,9}/[^\s\"<>{}.]+)\s(\.\d[\w.\-]*\w)")


_SICI_RE = re.compile(r"10\.\d{4,9}/\(SICI\)[^\s\"{}]+", re.I)


def _extract_dois(text: str) -> list[str]:
    """DOIs via :func:`citejudge.ids.extract_dois`, repairing common breakages first.

    Repairs: a space after a dot inside the DOI (``10.1523/jneurosci. 0300-04.2004``), a space
    before a dot (``10.2217/fca .14.82``) and SICI DOIs with ``<...>`` (which the generic
    extractor stops at).
    """
    fixed = _DOI_SPLIT_DOT_RE.sub(r"\1\2", text) if "10." in text else text
    fixed = _DOI_SPACE_DOT_RE.sub(r"\1\2", fixed) if "10." in text else fixed
    found = ids.extract_dois(fixed)
    for m in _SICI_RE.finditer(fixed):
        full = ids.norm_doi(m.group(0))
        if full:
            found = [full if full.startswith(d) and full != d else d for d in found]
            if full not in found:
                found.append(full)
    return list(dict.fromkeys(found))


# A DOI label or resolver followed by something that is not a DOI, or a DOI whose slash was lost
# ("10.1016jcell.2019.01.001"): a stated identifier that cannot be read.
_BAD_DOI_RE = re.compile(
    r"(?:\bdoi\s*[:=]\s*|doi\.org/)(?!10\.\d{4,9}\s?/)(\S{4,})|(?<![\w./])(10\.\d{4,9}[a-z][\w.\-()]{3,})",
    re.I,
)


def _scan_ids(text: str, work: CitedWork) -> None:
    text = _CONTROL_RE.sub(" ", text)
    work.doi = _extract_dois(text)
    if not work.doi and ("doi" in text.lower() or "10." in text):
        for m in _BAD_DOI_RE.finditer(text):
            bad = (m.group(1) or m.group(2)).rstrip(".,;")
            if bad and not ids.norm_doi(bad):
                work.bad_ids.append(("doi", bad[:200]))
                break
    work.pmid = ids.extract_pmid(text)
    work.pmcid = ids.extract_pmcid(text)
    work.arxiv = ids.extract_arxiv_unlabelled(text)
    if work.arxiv is None:
        for d in work.doi:
            a = ids.arxiv_from_doi(d)
            if a:
                work.arxiv = a
                break
    work.openalex = ids.extract_openalex(text)
    work.urls = list(dict.fromkeys(ids.extract_urls(text)))[:50]
