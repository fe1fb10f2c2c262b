"""Venue-name tokens shared by the readers and the matcher: folded words and book series.

``venue_tokens`` folds a venue name to its identifying words; ``is_book_series`` tells a
proceedings series (LNCS, PMLR...) from one conference; ``is_venue_name`` tells a name from a
URL or a placeholder. Imports nothing of citejudge but text.
"""

from __future__ import annotations

import re
from functools import lru_cache

from citejudge.text.normalize import fold

__all__ = ["is_book_series", "is_venue_name", "venue_tokens"]

_ORDINALS = frozenset(
    {
        "first",
        "second",
        "third",
        "fourth",
        "fifth",
        "sixth",
        "seventh",
        "eighth",
        "ninth",
        "tenth",
        "eleventh",
        "twelfth",
        "thirteenth",
        "fourteenth",
        "fifteenth",
        "sixteenth",
        "seventeenth",
        "eighteenth",
        "nineteenth",
        "twentieth",
        "thirtieth",
        "fortieth",
        "fiftieth",
        "sixtieth",
        "seventieth",
        "eightieth",
        "ninetieth",
        "hundredth",
        # the tens of a compound ordinal ("Twenty-Eighth" folds to "twenty eighth")
        "twenty",
        "thirty",
        "forty",
        "fifty",
        "sixty",
        "seventy",
        "eighty",
        "ninety",
    }
)
_ORDINAL_RE = re.compile(r"^\d+(st|nd|rd|th)$|^(19|20)\d\d$|^'?\d\d$")
_VOLUME_RE = re.compile(r"\bvol(?:ume)?\.?\s*\d+[a-z]?\b", re.I)
_ARXIV_ID_RE = re.compile(r"\barxiv:\s*\S+", re.I)
_PARENS_RE = re.compile(r"\(([^()]*)\)")


_LETTER_AMP_RE = re.compile(r"\b([A-Za-z])\s*&\s*([A-Za-z])\b|\b([A-Z]) and ([A-Z])\b")


@lru_cache(maxsize=1 << 16)
def venue_tokens(venue: str) -> tuple[str, ...]:
    """Folded venue words without years, ordinals, leading "The"/"Proceedings of the", "U.S.A.".

    "arXiv preprint arXiv:2101.00001" becomes ``("arxiv",)``.
    """
    # single letters joined by an ampersand are one word, however spaced or spelt ("A&A",
    # Astronomy & Astrophysics; "R&D", "R & D", "R and D" alike)
    if "&" in venue or " and " in venue:
        s = _LETTER_AMP_RE.sub(lambda m: "".join(g for g in m.groups() if g), venue)
    else:
        s = venue
    s = s.replace("&", " and ")
    if "ol" in s:  # "The China Environment Yearbook, Volume 4": the volume is not part of the name
        s = _VOLUME_RE.sub(" ", s)
    if ":" in s:
        s = _ARXIV_ID_RE.sub("arxiv", s)
    s = _PARENS_RE.sub(r" , \1 , ", s) if "(" in s else s
    toks = fold(s).split()
    toks = [
        t for t in toks if not t.isdecimal() and t not in _ORDINALS and not _ORDINAL_RE.match(t)
    ]
    while toks and toks[0] in {"the", "proceedings", "proc", "of", "in"}:
        toks.pop(0)
    if toks and toks[-1] == "usa":
        toks.pop()
    if len(toks) >= 3 and toks[-3:] == ["u", "s", "a"]:
        toks = toks[:-3]
    if toks and toks[-1] in {"preprint", "e", "prints", "eprints"} and "arxiv" in toks:
        toks = ["arxiv"]
    if toks[:2] == ["arxiv", "preprint"]:
        toks = ["arxiv"]
    return tuple(toks)


# Book series that host many conferences' proceedings: a record named only by one of these does
# not say which conference it was.
_BOOK_SERIES = (
    "Lecture Notes in Computer Science",
    "Lecture Notes in Artificial Intelligence",
    "Lecture Notes in Bioinformatics",
    "Lecture Notes in Networks and Systems",
    "Lecture Notes in Electrical Engineering",
    "Communications in Computer and Information Science",
    "Advances in Intelligent Systems and Computing",
    "Proceedings of Machine Learning Research",
    "PMLR",
    "CEUR Workshop Proceedings",
    "ACM International Conference Proceeding Series",
    "Studies in Computational Intelligence",
    "Smart Innovation, Systems and Technologies",
    "IFIP Advances in Information and Communication Technology",
    "Leibniz International Proceedings in Informatics",
    "LIPIcs",
    "Lecture Notes in Business Information Processing",
    "LNCS",
    "LNAI",
    "LNBI",
    "CCIS",
    "LNNS",
    "Springer Proceedings in Mathematics & Statistics",
)


@lru_cache(maxsize=1 << 12)
def is_book_series(venue: str) -> bool:
    """True if ``venue`` is a proceedings book series (LNCS, PMLR, CEUR...), not one conference."""
    toks = venue_tokens(venue)
    return any(toks == venue_tokens(s) for s in _BOOK_SERIES)


# A record's "venue" that names no venue: a URL (OpenAlex puts PDF and landing-page links in
# raw_source_name), a placeholder title, nothing but punctuation or digits.
_URL_LIKE = re.compile(r"^\s*(?:[a-z][a-z0-9+.-]*://|www\.|doi:\s*10\.|10\.\d{4,9}/)", re.I)
_PLACEHOLDERS = frozenset(
    {"no title", "untitled", "unknown", "unknown source", "none", "null", "n a", "na", "tbd"}
)


@lru_cache(maxsize=1 << 14)
def is_venue_name(name: str) -> bool:
    """Whether a record's venue string names a venue at all.

    Not a venue: a URL ("http://ageconsearch.umn.edu/record/124521", a PDF link), a placeholder
    ("(No Title)", "Unknown"), a string without a letter. Such a record has no venue.
    """
    if not name or _URL_LIKE.match(name) or "://" in name:
        return False
    folded = fold(name)
    return bool(folded) and folded not in _PLACEHOLDERS and any(c.isalpha() for c in folded)
