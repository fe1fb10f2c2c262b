"""Year, sentence boundaries, venue, volume and pages of a free-text citation."""

from __future__ import annotations

import re

from citejudge.readers._text import _tidy
from citejudge.readers.freetext._vocab import _ABBREV_WORDS, _MONTHS, _YEAR_RE
from citejudge.records import CitedWork


def _year_candidates(
    s: str, quoted: tuple[int, int] | None = None
) -> list[tuple[int, int, int, str]]:
    """(score, start, end, raw) of every plausible year in ``s``.

    A year inside the quoted title span ``quoted`` or written as part of a running date inside a
    sentence ("... from March to August 2006.") is a title word, not the publication year.
    """
    out: list[tuple[int, int, int, str]] = []
    for m in _YEAR_RE.finditer(s):
        y = int(m.group(1))
        if y > 2035:
            continue
        st, en = m.start(), m.end()
        before = s[max(0, st - 12) : st]
        after = s[en : en + 3]
        score = 0
        if re.search(r"\(\s*(?:" + _MONTHS + r"\.?\s*\d{0,2},?\s*)?$", before, re.I) and re.match(
            r"\s*(?:\)|,|/|;|\s*[a-z]?\))", after, re.I
        ):
            score += 3
        if re.match(r"\s*;", after):
            score += 2
        if (re.search(r"(?:[.,:]|\))\s*$", before) or st == 0) and re.match(
            r"\s*(?:[.,):;]|$)", after
        ):
            score += 1
        if re.search(_MONTHS + r"\.?\s*\d{0,2},?\s*$", before, re.I):
            ctx = s[max(0, st - 40) : st]
            mm = re.search(r"\b" + _MONTHS + r"\.?\s*\d{0,2},?\s*$", ctx, re.I)
            pre = (
                re.sub(r"\d{1,2}(?:\s*[-–]\s*\d{1,2})?$", "", ctx[: mm.start()].rstrip()).rstrip()
                if mm
                else ""
            )
            # "Nature, 19 March 2020" / "(March 2020)" is a date; "... to August 2006" is title text
            score += 1 if not pre or pre[-1] in "(,.;:" else -1
        if re.match(
            r"\s+(?!" + _MONTHS + r"\b)[^\W\d_]{2}", s[en : en + 12], re.I
        ) and not re.search(r"\(\s*$", before):
            score -= 1  # "18–19 November 2008 Washington": running text goes on after the year
        if quoted is not None and quoted[0] <= st < quoted[1]:
            score -= 5
        if re.search(r"\b(?:pp?|vol|no)\.?\s*$", before, re.I):
            score -= 3
        if re.match(r"\s*[-–]\s*\d", after) or re.search(r"\d\s*[-–:]\s*$", before):
            score -= 3
        out.append((score, st, en, m.group(0)))
    return out


def _best_year(s: str, quoted: tuple[int, int] | None = None) -> tuple[int, int, int, str] | None:
    cands = [c for c in _year_candidates(s, quoted) if c[0] >= 0]
    if not cands:
        return None
    return max(cands, key=lambda c: (c[0], -c[1]))


_VENUE_START_RE = re.compile(
    r"\s+(?:Journal|Proceedings|Annals|Bulletin|Transactions|Review|In:)\b"
)


_LAST_WORD_RE = re.compile(r"([^\s.(]*)$")
_INITIALS_WORD_RE = re.compile(r"[A-Z](?:[.-]+[A-Z])*")
_SENTENCE_END_RE = re.compile(r"[.?!](?=\s|$)|\.(?=[A-Z][a-z])")


def _is_boundary(s: str, dot: int) -> bool:
    """True if the ``.`` at ``s[dot]`` ends a sentence (is not an initial or an abbreviation)."""
    m = _LAST_WORD_RE.search(s[max(0, dot - 40) : dot])
    word = (m.group(1) if m else "").lstrip("-‐")
    if not word:
        return True
    if _INITIALS_WORD_RE.fullmatch(word) or (len(word) == 1 and word.isalpha()):
        return bool(_VENUE_START_RE.match(s, dot + 1))
    return word.lower() not in _ABBREV_WORDS


def _sentences(s: str) -> list[tuple[int, int]]:
    """Spans of sentences in ``s`` split at ``. ``/``? ``/``! `` boundaries (abbreviation-aware)."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _SENTENCE_END_RE.finditer(s):
        p = m.start()
        if s[p] == "." and (s[max(0, p - 2) : p + 1] == "..." or not _is_boundary(s, p)):
            continue
        end = p + 1 if s[p] in "?!" else p
        if s[start:end].strip():
            spans.append((start, end))
        start = p + 1
    if s[start:].strip():
        spans.append((start, len(s)))
    return spans


# A number that is not an ordinal ("Proceedings of the 16th Workshop" goes on).
_NUM = r"\d(?!\d*(?:st|nd|rd|th)\b)(?!\d{3}\s+(?!" + _MONTHS + r"\b)[A-Z][a-z])"


_VENUE_END_RE = re.compile(
    r"(?:,\s*|\s+)(?:vol(?:ume)?\.?\s*\d|no\.\s*\d|pp?\.\s*\d|(?-i:S|Bd)\.\s*\d|"
    + _NUM
    + r")|\s*\(\s*(?:pp?\.\s*)?\d|\s*[;:]\s*\d|,\s*(?:"
    + _MONTHS
    + r")\b|\s+"
    + _NUM
    + r"|(?<=[a-z])\d|,\s*\(",
    re.I,
)


_PUBLISHER_WORDS_RE = re.compile(
    r"\b(?:press|publishers?|publishing|verlag|springer|wiley|elsevier|routledge|sage|mcgraw-hill|"
    r"prentice|academic|addison|pergamon|blackwell|kluwer|birkh[aä]user|cambridge university|oxford university|"
    r"taylor\s*&\s*francis|crc|lippincott|saunders|norton|penguin|macmillan)\b",
    re.I,
)


# "In: X", "in X", "InX" (glued, capital after): only a separate "In" is the prefix, never the
# start of a word ("International", "Information", "Innovation").
_IN_PREFIX_RE = re.compile(r"^(?:(?i:in)\s*:\s*|(?i:in)\s+|In(?=[A-Z]))")


def _venue_fields(part: str, work: CitedWork) -> None:
    """Fill venue, volume, pages and publisher from the text after the title."""
    s = part.strip(" .,;")
    if not s:
        return
    s = _IN_PREFIX_RE.sub("", s, count=1)
    # editors: "Crawford R.M.M. (ed.), Plant life ..." / "O'Connor F, editor. Title"
    s = re.sub(r"^.{0,120}?\((?:eds?|hrsg|editors?)\.?\)\s*[,.:]?\s*", "", s, flags=re.I)
    s = re.sub(r"^.{0,120}?,\s*(?:eds?|editors?)\.\s*", "", s, flags=re.I)
    s = re.sub(r"^(?:eds?\.|edited by)\s*.{0,120}?,\s*", "", s, flags=re.I)
    pub = re.search(r"(?:^|[.,]\s*)([A-Z][A-Za-z .'-]{1,40}):\s*([^.:;]{2,80})", s)
    if pub and not re.search(r"\d", pub.group(2)):
        work.publisher = _tidy(pub.group(2))
        s = s[: pub.start()].strip(" .,")
    elif _PUBLISHER_WORDS_RE.search(s) and not re.search(r"\bjournal\b|\bproceedings\b", s, re.I):
        m = re.search(r"(?:^|[.,]\s*)([^.,;]*" + _PUBLISHER_WORDS_RE.pattern + r"[^.,;]*)", s, re.I)
        if m:
            # LNCS ends with "Springer (2019)" / "Springer, Cham (2019)": the year is not the publisher's
            work.publisher = _tidy(
                re.sub(r"\s*\(\s*(?:1[6-9]|20)\d\d[a-z]?\s*\)\s*$", "", m.group(1))
            )
            s = s[: m.start()].strip(" .,")
    if not s:
        return
    m = _VENUE_END_RE.search(s)
    venue = s[: m.start()] if m else s
    venue = re.sub(r"\s*\(\s*$", "", venue)
    tail = s[len(venue) :]
    work.venue = _tidy(venue)
    if work.venue and (len(work.venue) < 2 or not re.search(r"[^\W\d_]{2}", work.venue)):
        work.venue = None
    year_s = str(work.year) if work.year else None
    if year_s:
        # drop the year (and a month or day next to it) so it is not read as a volume or page
        tail = re.sub(
            r"[(,]?\s*(?:" + _MONTHS + r"\.?\s*\d{0,2},?\s*)?" + year_s + r"[a-z]?\s*\)?",
            " ",
            tail,
            count=1,
            flags=re.I,
        )
    vm = re.search(r"\bvol(?:ume)?\.?\s*(\d+[A-Za-z]?)", tail, re.I) or re.search(
        r"^[\s,.:;]*([A-Z]?\d{1,5}[A-Z]?)\b(?!\s*[-–])", tail
    )
    if vm:
        work.volume = vm.group(1)
    pm = (
        re.search(r"\bpp?\.\s*([A-Za-z]?\d+(?:\s*[-–]+\s*[A-Za-z]?\d+)?)", tail)
        or re.search(r"(?<![\d(.])([A-Za-z]?\d+\s*[-–]+\s*[A-Za-z]?\d+)(?![\d)])", tail)
        or re.search(r":\s*([A-Za-z]?\d+(?:[-–]\d+)?)", tail)
        or (
            re.search(
                r"^[\s,.:;]*[A-Z]?\d{1,5}[A-Z]?\s*(?:\([^)]*\))?\s*[,.:]?\s*([A-Za-z]?\d+)\b", tail
            )
            if vm
            else None
        )
    )
    if pm:
        work.pages = re.sub(r"\s+", "", pm.group(1)).replace("--", "–")
