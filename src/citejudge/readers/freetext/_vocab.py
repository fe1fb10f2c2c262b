"""Vocabularies and patterns of the free-text citation reader (name particles, name shapes, months, years)."""

from __future__ import annotations

import re

_ELLIPSIS_RE = re.compile(r"\s*(?:…|\.\.\.)\s*")


_PARTICLES = frozenset(
    [
        "van",
        "von",
        "der",
        "den",
        "de",
        "del",
        "della",
        "da",
        "das",
        "dos",
        "du",
        "di",
        "la",
        "le",
        "ter",
        "ten",
        "bin",
        "ibn",
        "al",
        "el",
        "y",
        "zu",
        "zur",
        "zum",
        "vom",
        "do",
        "dei",
        "degli",
        "af",
        "av",
        "v.",
        "v",
        "vd",
    ]
)


# Words that never occur in personal names but are common in venues and titles.
_NOT_NAME_WORDS = frozenset(
    [
        "journal",
        "review",
        "reviews",
        "proceedings",
        "proc",
        "conference",
        "conf",
        "letters",
        "lett",
        "science",
        "sciences",
        "physics",
        "physical",
        "university",
        "univ",
        "press",
        "international",
        "society",
        "transactions",
        "research",
        "annals",
        "bulletin",
        "institute",
        "chemistry",
        "chemical",
        "biology",
        "medicine",
        "medical",
        "engineering",
        "technology",
        "report",
        "reports",
        "workshop",
        "symposium",
        "meeting",
        "congress",
        "academy",
        "association",
        "committee",
        "department",
        "ministry",
        "organization",
        "organisation",
        "council",
        "group",
        "project",
        "collaboration",
        "thesis",
        "dissertation",
        "handbook",
        "edition",
        "vol",
        "volume",
        "pp",
        "editor",
        "editors",
        "eds",
        "ed",
        "in",
        "advances",
        "applied",
        "computer",
        "computing",
        "nature",
        "cell",
        "studies",
        "systems",
        "quarterly",
        "magazine",
        "economics",
        "economic",
        "management",
        "education",
        "health",
        "clinical",
        "molecular",
        "national",
        "american",
        "european",
        "world",
        "new",
        "the",
        "a",
        "an",
        "of",
        "on",
        "for",
        "with",
        "from",
        "to",
        "by",
        "and",
        "at",
        "as",
        "its",
        "is",
        "are",
    ]
)


_MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|spring|summer|fall|autumn|winter)"
)


_YEAR_RE = re.compile(r"(?<![\d/.:\-–])((?:1[6-9]|20)\d\d)([a-z])?(?![\d])(?!\s*[-–]\s*\d)")


_YEAR_WORDS_RE = re.compile(
    r"\b(in\s+press|(?-i:n\.\s?d\.)|no\s+date|forthcoming|in\s+preparation|submitted|accepted)",
    re.I,
)


_UNPRINTABLE_RE = re.compile(r"[^\n\t\x20-\x7e\u00a0-\ud7ff\ue000-\ufffc\U00010000-\U0010ffff]")


# Capital letters for initials: ASCII plus Latin-1/Latin Extended-A capitals ("Â. F.", "Ö.").
_UP = "A-Z" + "".join(
    c for c in map(chr, range(0xC0, 0x180)) if c.isupper() and len(c.lower()) == 1
)


_INITIALS_RE = re.compile(rf"^(?:(?:[{_UP}]\.?|[{_UP}][a-z]\.)\s*(?:-\s*)?){{1,4}}$")


_COMPACT_INITIALS_RE = re.compile(rf"^[{_UP}]{{1,3}}$")


_WORD_RE = re.compile(r"^[^\W\d_][\w'’`.\-\u2010\u2011\u2013\ufffd\u0300-\u036f]*$")

# Corresponding-author / affiliation marks after a name: "Jane Doe*, Richard Roe†".
_AUTHOR_MARK_RE = re.compile(r"(?<=[^\W\d_])(\.?)[*†‡]+(?=[\s,;.]|$)")
