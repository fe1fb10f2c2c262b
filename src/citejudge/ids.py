"""Canonical forms of scholarly identifiers, and their extraction from free text.

Canonical forms (what the index stores and lookups use):

* DOI: lower case, no resolver prefix, unicode hyphens folded, trailing punctuation removed
  (``10.1038/nature14539``).
* PMID: digits (``31452104``).
* PMCID: ``PMC`` + digits (``PMC6713186``).
* arXiv: new style ``2310.01362`` or old style ``hep-th/9901001``, lower case, no version.
* OpenAlex: ``W`` + digits.
* MAG: digits.
"""

from __future__ import annotations

import re

from citejudge.text.normalize import fold_confusables, may_match_ci

__all__ = [
    "ARXIV_OLD_ARCHIVES",
    "arxiv_from_doi",
    "arxiv_year",
    "extract_arxiv",
    "extract_arxiv_unlabelled",
    "extract_dois",
    "extract_openalex",
    "extract_pmcid",
    "extract_pmid",
    "extract_publisher_dois",
    "extract_urls",
    "fold_confusables",
    "is_scholarly_url",
    "norm_arxiv",
    "norm_doi",
    "norm_mag",
    "norm_openalex",
    "norm_pmcid",
    "norm_pmid",
    "strip_landing_suffix",
    "strip_tracking",
]

_DOI_PREFIX = re.compile(
    r"^(?:https?://(?:dx\.)?doi\.org/|(?:dx\.)?doi\.org/|doi\s*[:=]?\s*|urn:doi:|info:doi/)",
    re.IGNORECASE,
)
_DOI_BODY = re.compile(r"^10\.\d{4,9}/\S+$")
_TRAILING = ".,;:)]}>'\"\u201d\u2019"


def _strip_trailing(doi: str) -> str:
    while doi and doi[-1] in _TRAILING:
        # keep a closing bracket that balances one inside the DOI, e.g. 10.1002/(SICI)1097-...
        ch = doi[-1]
        if ch == ")" and doi.count("(") >= doi.count(")"):
            break
        if ch == "]" and doi.count("[") >= doi.count("]"):
            break
        doi = doi[:-1]
    return doi


_SPACES = re.compile(r"\s+")
_SPACED_PREFIX = re.compile(r"^10\.\d{4,9}\s*/")
_ESCAPED_SLASH = re.compile("%2f", re.IGNORECASE)
_IMAGE_SUFFIX = re.compile(r"\.(?:svg|png|gif|jpe?g)$")


def norm_doi(value: str | None) -> str | None:
    """Canonical DOI or None if ``value`` is not a DOI.

    >>> norm_doi("https://doi.org/10.1038/Nature14539.")
    '10.1038/nature14539'
    """
    if not value:
        return None
    s = fold_confusables(value).strip()
    s = _DOI_PREFIX.sub("", s).strip()
    s = _SPACES.sub("", s) if _SPACED_PREFIX.match(s) else s
    s = _strip_trailing(s)
    if "%2f" in s.lower():
        s = _ESCAPED_SLASH.sub("/", s)
    s = s.lower()
    # A DOI badge image URL ends in ".svg"/".png": the extension is not part of the DOI.
    s = _IMAGE_SUFFIX.sub("", s)
    s = strip_landing_suffix(s)
    return s if _DOI_BODY.match(s) else None


# What publishers' landing-page and PDF URLs append to a DOI (never part of a registered DOI):
# Frontiers ``/full``, ``/abstract``, ``/pdf``; Wiley/T&F/ACM ``/epdf``, ``/full``; Springer and
# many others ``.pdf``; bioRxiv/medRxiv ``v2``, ``v2.full``, ``v2.full.pdf``, ``.abstract``,
# ``.article-info``, ``.supplementary-material``; any publisher: a query string or a fragment.
_URL_TAIL = re.compile(r"[?#&].*$")
_LANDING_TAIL = re.compile(
    r"(?:[/.](?:full|abstract|pdf|epdf|fulltext|full-text|summary|meta|references|figures|tables|html|xml"
    r"|article-info|article-metrics|supplementary-material|figures-only|full\.pdf|full-text\.pdf|pdf\+html))+$"
)
_RXIV_VERSION = re.compile(r"^(10\.1101/(?:\d{4}\.\d\d\.\d\d\.)?\d{6,})v\d+$")


def strip_landing_suffix(doi: str) -> str:
    """Remove what a landing-page or PDF URL adds after a (lower-case) DOI.

    >>> strip_landing_suffix("10.3389/fpsyg.2020.01234/full")
    '10.3389/fpsyg.2020.01234'
    >>> strip_landing_suffix("10.1101/2020.03.01.123456v2.full.pdf")
    '10.1101/2020.03.01.123456'
    >>> strip_landing_suffix("10.1371/journal.pone.0123456&type=printable")
    '10.1371/journal.pone.0123456'
    """
    s = _URL_TAIL.sub("", doi) if ("?" in doi or "#" in doi or "&type=" in doi) else doi
    if not ("a" <= s[-1:] <= "z" or s.startswith("10.1101/")):
        return s  # every landing tail ends in a letter; versions are bioRxiv's (10.1101)
    for _ in range(2):  # "v2.full.pdf": the landing tail, then the version
        s = _LANDING_TAIL.sub("", s)
        s = _RXIV_VERSION.sub(r"\1", s)
    return s


# (compiled once: the snapshot reader normalises the ids of every record)
_PMID_URL = re.compile(
    r"^(?:https?://)?(?:www\.)?(?:pubmed\.ncbi\.nlm\.nih\.gov/|ncbi\.nlm\.nih\.gov/pubmed/)", re.I
)
_PMID_LABEL = re.compile(r"^pmid\s*[:=]?\s*", re.I)
_PMCID_URL = re.compile(
    r"^(?:https?://)?(?:www\.)?(?:ncbi\.nlm\.nih\.gov/pmc/articles/|pmc\.ncbi\.nlm\.nih\.gov/articles/)",
    re.I,
)
_PMCID_LABEL = re.compile(r"^pmcid\s*[:=]?\s*", re.I)
_PMCID = re.compile(r"(?:pmc)?\s*0*(\d+)", re.I)
_ARXIV_URL = re.compile(r"^(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf|html)/", re.I)
_ARXIV_LABEL = re.compile(r"^arxiv\s*[:.]?\s*", re.I)
_PDF_SUFFIX = re.compile(r"\.pdf$", re.I)
_OPENALEX = re.compile(r"\s*(?:https?://(?:api\.)?openalex\.org/(?:works/)?)?([wW]\d+)\s*/?")


def norm_pmid(value: str | int | None) -> str | None:
    """Canonical PMID (digits only) or None."""
    if value is None:
        return None
    s = fold_confusables(str(value)).strip()
    s = _PMID_LABEL.sub("", _PMID_URL.sub("", s)).strip().rstrip("/.")
    return s.lstrip("0") or None if s.isdigit() else None


def norm_pmcid(value: str | int | None) -> str | None:
    """Canonical PMCID (``PMC`` + digits) or None; accepts the digits alone, as OpenAlex gives them."""
    if value is None:
        return None
    s = fold_confusables(str(value)).strip()
    s = _PMCID_LABEL.sub("", _PMCID_URL.sub("", s)).strip().rstrip("/.")
    m = _PMCID.fullmatch(s)
    return f"PMC{m.group(1)}" if m else None


_ARXIV_NEW = re.compile(r"^(\d{4}\.\d{4,5})(?:v\d+)?$")
_ARXIV_OLD = re.compile(r"^([a-z\-]+)(?:\.[a-z]{2})?/(\d{7})(?:v\d+)?$", re.I)


def norm_arxiv(value: str | None) -> str | None:
    """Canonical arXiv id without version, or None.

    An old identifier's subject class is not part of it (arXiv ignores it: ``math.GT/0309136``
    is ``math/0309136``, the form OpenAlex's arXiv locations have).
    """
    if not value:
        return None
    s = fold_confusables(value).strip()
    s = _PDF_SUFFIX.sub("", _ARXIV_LABEL.sub("", _ARXIV_URL.sub("", s))).strip().rstrip("/.")
    m = _ARXIV_NEW.match(s)
    if m:
        return m.group(1)
    m = _ARXIV_OLD.match(s)
    return f"{m.group(1)}/{m.group(2)}".lower() if m else None


_ARXIV_YYMM = re.compile(r"^(\d{2})(\d{2})\.\d{4,5}$")
_ARXIV_OLD_YYMM = re.compile(r"^[a-z-]+(?:\.[a-z-]+)?/(\d{2})(\d{2})\d{3}$", re.I)


def arxiv_year(arxiv: str | None) -> int | None:
    """The year an arXiv id was first submitted, from its ``YYMM``; None for anything else.

    ``1810.04805`` → 2018, ``hep-th/9901001`` → 1999. Ids of the current form began in April
    2007; the old form ran from 1991 to March 2007.
    """
    if not arxiv:
        return None
    m = _ARXIV_YYMM.match(arxiv)
    if m:
        yy, mm = int(m.group(1)), int(m.group(2))
        return 2000 + yy if 1 <= mm <= 12 and (yy, mm) >= (7, 4) else None
    m = _ARXIV_OLD_YYMM.match(arxiv)
    if m:
        yy, mm = int(m.group(1)), int(m.group(2))
        year = 1900 + yy if yy >= 91 else 2000 + yy
        return year if 1 <= mm <= 12 and year <= 2007 else None
    return None


def arxiv_from_doi(doi: str | None) -> str | None:
    """The arXiv id of a DataCite arXiv DOI (``10.48550/arxiv.2310.01362``), else None."""
    if doi and doi.startswith("10.48550/arxiv."):
        return norm_arxiv(doi[len("10.48550/arxiv.") :])
    return None


def norm_openalex(value: str | None) -> str | None:
    """Canonical OpenAlex work id (``W123``) or None."""
    if not value:
        return None
    m = _OPENALEX.fullmatch(value)
    return m.group(1).upper() if m else None


def norm_mag(value: str | int | None) -> str | None:
    """Canonical MAG id (digits) or None."""
    if value is None:
        return None
    s = str(value).strip()
    return s if s.isdigit() else None


# --- extraction from free text -------------------------------------------------------------

_DOI_IN_TEXT = re.compile(
    r"(?:doi\s*[:=]?\s*|https?://(?:dx\.)?doi\.org/|(?<![\w/])doi\.org/)?(10\.\d{4,9}\s?/\s?[^\s\"<>{}]+)",
    re.IGNORECASE,
)


def extract_dois(text: str) -> list[str]:
    """Every DOI written in ``text``, canonical, in order of appearance, without repeats."""
    out: list[str] = []
    folded = fold_confusables(text)
    if "10." not in folded:  # (every DOI starts "10.")
        return out
    # Markdown links glue a DOI to the next URL ("10.1/x](https://..."): cut there.
    for m in _DOI_IN_TEXT.finditer(folded.replace("](", " ](")):
        d = norm_doi(m.group(1))
        if d and d not in out:
            out.append(d)
    return out


_PMID_IN_TEXT = re.compile(
    r"(?:\bPMID\s*[:=]?\s*|pubmed\.ncbi\.nlm\.nih\.gov/|ncbi\.nlm\.nih\.gov/pubmed/)(\d{1,9})\b",
    re.I,
)
_PMCID_IN_TEXT = re.compile(r"\bPMCID\s*[:=]?\s*((?:PMC\s?)?\d{3,9})\b|\b(PMC\s?\d{3,9})\b", re.I)
_ARXIV_IN_TEXT = re.compile(
    r"(?:arxiv\s*(?:preprint)?\s*(?:abs/)?[:.]?\s*|arxiv\.org/(?:(?:abs|pdf|html)/)?|10\.48550/arxiv\.)"
    r"(\d{4}\.\d{4,5}(?:v\d+)?|[a-z\-]+(?:\.[a-z]{2})?/\d{7}(?:v\d+)?)",
    re.I,
)
_OPENALEX_IN_TEXT = re.compile(r"openalex\.org/(?:works/)?(W\d{1,12})\b", re.I)
_URL_IN_TEXT = re.compile(r"(?:https?|ftp)://[^\s<>\"{}]+", re.I)


def extract_pmid(text: str) -> str | None:
    """The first PMID written in ``text`` (needs a ``PMID`` label or a PubMed URL)."""
    folded = fold_confusables(text)
    if not may_match_ci(folded, ("pmid", "ncbi")):  # (every match holds one of these words)
        return None
    m = _PMID_IN_TEXT.search(folded)
    return norm_pmid(m.group(1)) if m else None


def extract_pmcid(text: str) -> str | None:
    """The first PMCID written in ``text``."""
    folded = fold_confusables(text)
    if not may_match_ci(folded, ("pmc",)):  # (every match holds one of these words)
        return None
    m = _PMCID_IN_TEXT.search(folded)
    return norm_pmcid((m.group(1) or m.group(2)).replace(" ", "")) if m else None


def extract_arxiv(text: str) -> str | None:
    """The first arXiv id written in ``text`` (needs an ``arXiv`` label, URL or DataCite DOI)."""
    return _labelled_arxiv(fold_confusables(text))


def _labelled_arxiv(folded: str) -> str | None:
    if not may_match_ci(folded, ("arxiv",)):  # (every match holds one of these words)
        return None
    m = _ARXIV_IN_TEXT.search(folded)
    return norm_arxiv(m.group(1)) if m else None


#: The archives of arXiv's old identifiers (1991 to March 2007: ``hep-th/9901001``).
ARXIV_OLD_ARCHIVES = frozenset(
    [
        "acc-phys",
        "adap-org",
        "alg-geom",
        "ao-sci",
        "astro-ph",
        "atom-ph",
        "bayes-an",
        "chao-dyn",
        "chem-ph",
        "cmp-lg",
        "comp-gas",
        "cond-mat",
        "cs",
        "dg-ga",
        "funct-an",
        "gr-qc",
        "hep-ex",
        "hep-lat",
        "hep-ph",
        "hep-th",
        "math",
        "math-ph",
        "mtrl-th",
        "nlin",
        "nucl-ex",
        "nucl-th",
        "patt-sol",
        "physics",
        "plasm-ph",
        "q-alg",
        "q-bio",
        "quant-ph",
        "solv-int",
        "supr-con",
    ]
)
# An arXiv id written without a label, as physics and maths bibliographies print the eprint
# field ("Nature 567, 76 (2019), 1812.09815 .", "Nucl. Phys. B 741 (2006) 368
# [hep-th/0601209]") and DBLP prints CoRR's volume ("CoRR abs/1512.03385"): a whole token,
# never inside a DOI, a URL or a longer number. An old id may follow any space; a new one only
# a bracket, a year in brackets and a comma ("(2019), 1812.09815"), "abs/" or the start (after
# a full stop it was the tail of a DOI a PDF broke up: "doi: 10.1111/ j. 0012-155X.
# 2005.00401. x"; after an issue's comma, a page range that lost its dash: "33(4), 1203.1215").
_ARXIV_BARE = re.compile(
    r"(?:(?<=[\s(\[,;])(?P<old>(?P<archive>[a-z][a-z-]{1,8})(?:\.[a-z]{2})?/\d{7})"
    r"|(?:(?<=[(\[])|(?<=[(\[]\s)|(?<=\d{4}\),\s)|(?<=\d{4}[a-z]\),\s)|(?<=\babs/)|^)"
    r"(?P<new>(?P<yymm>\d{4})\.(?P<seq>\d{4,5})))"
    r"(?:v\d{1,2})?(?=[\s)\],;]|\.(?!\w)|$)",
    re.I,
)


_ARXIV_BARE_HINT = re.compile(r"\d\d\d\d\.\d\d\d\d|/\d\d\d\d\d\d\d")


def extract_arxiv_unlabelled(text: str) -> str | None:
    """The first arXiv id written in ``text`` with or without a label (see :func:`extract_arxiv`).

    For reference strings: an unlabelled id counts only when it can be nothing else. An old id
    names one of :data:`ARXIV_OLD_ARCHIVES` and a month from August 1991 to March 2007; a new
    one a month from April 2007 to 2035, with four digits after the point up to December 2014
    and five from January 2015, as arXiv numbers them.
    """
    folded = fold_confusables(text)
    labelled = _labelled_arxiv(folded)
    if labelled:
        return labelled
    if not _ARXIV_BARE_HINT.search(folded):  # (every match holds one: a cheap scan first)
        return None
    for m in _ARXIV_BARE.finditer(folded):
        if m.group("old"):
            if m.group("archive").lower() in ARXIV_OLD_ARCHIVES:
                a = norm_arxiv(m.group("old"))
                if a and arxiv_year(a):
                    return a
            continue
        yymm, seq = int(m.group("yymm")), m.group("seq")
        if arxiv_year(m.group("new")) and yymm <= 3512 and (len(seq) == 5) == (yymm >= 1501):
            return m.group("new")
    return None


def extract_openalex(text: str) -> str | None:
    """The first OpenAlex work id written as a URL in ``text``."""
    if not may_match_ci(text, ("openalex",)):  # (every match holds this word)
        return None
    m = _OPENALEX_IN_TEXT.search(text)
    return m.group(1).upper() if m else None


def extract_urls(text: str) -> list[str]:
    """URLs written in ``text``, trailing punctuation removed."""
    folded = fold_confusables(text)
    if not may_match_ci(folded, ("http", "ftp")):  # (every URL starts with one)
        return []
    return [_strip_trailing(u) for u in _URL_IN_TEXT.findall(folded)]


#: Hosts whose pages are scholarly records (publishers, proceedings, preprint servers, indexes):
#: a citation that points at one names a paper, which the local world should hold. Any other
#: address (a project's site, a standard, a news page, an organisation's report) is a web page.
_SCHOLARLY_HOST_LIST = """
    doi.org dx.doi.org arxiv.org openreview.net aclanthology.org aclweb.org proceedings.neurips.cc
    papers.nips.cc nips.cc neurips.cc proceedings.mlr.press jmlr.org ieeexplore.ieee.org
    dl.acm.org link.springer.com springer.com sciencedirect.com onlinelibrary.wiley.com
    nature.com science.org cell.com pubmed.ncbi.nlm.nih.gov ncbi.nlm.nih.gov europepmc.org
    biorxiv.org medrxiv.org ssrn.com papers.ssrn.com jstor.org tandfonline.com academic.oup.com
    journals.plos.org plos.org frontiersin.org mdpi.com semanticscholar.org researchgate.net
    scholar.google.com openalex.org hal.science hal.archives-ouvertes.fr aaai.org ojs.aaai.org
    ijcai.org openaccess.thecvf.com thecvf.com usenix.org pnas.org bmj.com thelancet.com nejm.org
    jamanetwork.com journals.sagepub.com sagepub.com cambridge.org iopscience.iop.org
    journals.aps.org pubs.acs.org pubs.rsc.org researchsquare.com zenodo.org figshare.com osf.io
    psyarxiv.com chemrxiv.org isca-speech.org proceedings.com
"""
_SCHOLARLY_HOSTS = frozenset(_SCHOLARLY_HOST_LIST.split())
_URL_HOST = re.compile(r"^[a-z][a-z0-9+.-]*://([^/?#:]+)", re.IGNORECASE)


def is_scholarly_url(url: str) -> bool:
    """True when ``url`` is a scholarly record's address or a paper's file.

    A host of :data:`_SCHOLARLY_HOSTS` (or a subdomain of one) and any ``.pdf`` file are
    scholarly; an address that cannot be read is treated as scholarly too (nothing is excused
    on it).
    """
    m = _URL_HOST.match(url.strip())
    if m is None:
        return True
    host = m.group(1).lower().removeprefix("www.")
    if url.split("?", 1)[0].split("#", 1)[0].lower().endswith(".pdf"):
        return True
    parts = host.split(".")
    return any(".".join(parts[i:]) in _SCHOLARLY_HOSTS for i in range(len(parts) - 1))


_TRACKING = re.compile(r"^(?:utm_[a-z_]*|fbclid|gclid|mc_cid|mc_eid)$", re.IGNORECASE)


def strip_tracking(url: str) -> str:
    """``url`` without its tracking parameters (``utm_source=chatgpt.com``, ``fbclid``…).

    A chat assistant's links carry ``?utm_source=chatgpt.com``; the page is the same page.
    """
    before_fragment, hash_sep, fragment = url.partition("#")
    base, sep, query = before_fragment.partition("?")
    if not sep:
        return url
    kept = [p for p in query.split("&") if p and not _TRACKING.match(p.split("=", 1)[0])]
    out = base + ("?" + "&".join(kept) if kept else "")
    return out + (hash_sep + fragment if hash_sep else "")


#: Publishers whose article addresses spell the DOI out (one rule each, exact for the publisher):
#: Nature Portfolio ``nature.com/articles/nature14539`` is 10.1038/nature14539; The Lancet's
#: ``…/article/PIIS0140-6736(20)30183-5/fulltext`` is 10.1016/S0140-6736(20)30183-5; The BMJ's
#: ``bmj.com/content/368/bmj.m1091`` is 10.1136/bmj.m1091.
_PUBLISHER_DOI = (
    (re.compile(r"\bnature\.com/articles/([a-z][\w.-]*[\w])", re.I), "10.1038/{}"),
    (
        re.compile(
            r"\bthelancet\.com/[\w/]*?article/PII(S\d{4}-\d{3}[\dX]\(\d\d\)\d{5}-[\dX])", re.I
        ),
        "10.1016/{}",
    ),
    (re.compile(r"\bbmj\.com/content/\d+/(bmj\.[a-z]?\d+)\b", re.I), "10.1136/{}"),
)


def extract_publisher_dois(text: str) -> list[str]:
    """DOIs that publishers' article addresses in ``text`` spell out (:data:`_PUBLISHER_DOI`)."""
    out: list[str] = []
    for rx, form in _PUBLISHER_DOI:
        for m in rx.finditer(text):
            d = norm_doi(form.format(m.group(1)))
            if d and d not in out:
                out.append(d)
    return out
