"""The structure of a free-text citation: Markdown links, quoted titles, authors / year / title / venue."""

from __future__ import annotations

import logging
import re

from citejudge.readers._text import _ET_AL_RE, _WS_RE, _bool_warn, _clean, _tidy
from citejudge.readers.freetext._authors import _split_names, _words, split_author_string
from citejudge.readers.freetext._fields import (
    _PUBLISHER_WORDS_RE,
    _VENUE_END_RE,
    _best_year,
    _sentences,
    _venue_fields,
)
from citejudge.readers.freetext._vocab import (
    _AUTHOR_MARK_RE,
    _ELLIPSIS_RE,
    _ID_NOISE_KEYS,
    _ID_NOISE_RE,
    _NUMBERING_RE,
    _YEAR_WORDS_RE,
)
from citejudge.records import CitedWork

logger = logging.getLogger(__name__)


_QUOTE_OPEN = re.compile(
    r"[“\"«„]|(?<![\w])[‘'](?=[A-Z\[(])|(?:^|(?<=[).,:;])|(?<=[).,:;]\s))‘(?=[a-z0-9])"
)

_QUOTE_TITLE_START = re.compile(r"[A-Z\[(]")
_AFTER_QUOTED_TITLE = re.compile(r"\s*(?:[,.;:]|$)")


def _find_quote(s: str) -> tuple[int, int, int] | None:
    """(open, close, after) of the first quoted span that looks like a title.

    A single quote opens one before a capital (or a bracket), and a curly one also before a
    small letter or digit at the start or after punctuation when punctuation (or the end)
    follows its closing quote: Harvard's "(2012) ‘mRNA vaccines…’, Venue" (a title may begin
    with a small letter), never the quoted phrase of a title ("…advancement with ‘floating
    forehead’ for patients…": a word precedes it; "Jones A. ‘omics’ approaches to…": a word
    follows it).
    """
    for n_tried, m in enumerate(re.finditer(_QUOTE_OPEN, s)):
        if n_tried >= 20:
            break
        o = m.start()
        ch = s[o]
        closers = {"“": '”"', '"': '"”', "«": "»", "„": '“”"', "‘": "’", "'": "'"}[ch]
        if ch == "“" and "”" in s[o + 1 : o + 600]:
            closers = (
                "”"  # “... the project "100 fields" ...”: inner straight quotes do not close it
            )
        close = -1
        for k in range(o + 1, min(len(s), o + 600)):
            if s[k] in closers and (ch not in "‘'" or k + 1 >= len(s) or not s[k + 1].isalpha()):
                close = k
                break
        small = ch == "‘" and not _QUOTE_TITLE_START.match(s, o + 1)
        if small and not _AFTER_QUOTED_TITLE.match(s, close + 1):
            continue  # a small letter's quote opens a title only when punctuation follows it
        if close > o + 3:
            return o, close, close + 1
    return None


def _parse_markdown(s: str, work: CitedWork) -> bool:
    m = re.match(r"^\s*\[([^\]\n]{3,500})\]\(([^)\s]+)\)", s)
    if not m:
        return False
    work.title = _tidy(m.group(1))
    rest = s[m.end() :]
    lines = [ln.strip() for ln in rest.splitlines() if ln.strip()]
    for ln in lines:
        body = re.sub(r"^[-*+]\s+", "", ln)
        if not work.authors and ln[:1] in "-*+":
            low = body.lower()
            work.et_al = work.et_al or bool(_ET_AL_RE.search(body))
            body2 = _ET_AL_RE.sub("", body).strip(" ,;.")
            if not low.startswith(("http", "ftp", "doi", "arxiv")):
                work.authors = split_author_string(body2)
                continue
        y = _best_year(body)
        if y and work.year is None:
            work.year, work.year_raw = int(y[3][:4]), y[3]
    return True


_LEADING_YEAR_RE = re.compile(
    r"^[\s.,:]*(?:\(\s*(?:(?:1[6-9]|20)\d\d[a-z]?|in\s+press|n\.\s?d\.|forthcoming)[^)\n]{0,25}\)"
    r"|(?:(?:1[6-9]|20)\d\d[a-z]?|in\s+press|n\.\s?d\.|forthcoming)(?=\s*[.,:;)]))\s*[.,:]?\s*",
    re.I,
)


def _strip_leading_year(rest: str) -> tuple[str, bool]:
    m = _LEADING_YEAR_RE.match(rest)
    return (rest[m.end() :], True) if m else (rest, False)


_EDS_BEFORE_YEAR_RE = re.compile(
    r"[\s,]*\(?\b(?:eds?|editors?|hrsg|coords?)\.?\)?(?=\s*[,.]?\s*\(?(?:1[6-9]|20)\d\d)", re.I
)


def _parse_structure(s: str, work: CitedWork) -> None:
    s = _NUMBERING_RE.sub("", s, count=1)
    low = s.lower()
    if any(k in low for k in _ID_NOISE_KEYS):
        s = _ID_NOISE_RE.sub(" ", s)
    s = _WS_RE.sub(" ", s).strip(" ,;")
    s = _EDS_BEFORE_YEAR_RE.sub("", s, count=1)
    if "*" in s or "†" in s or "‡" in s:
        s = _AUTHOR_MARK_RE.sub(r"\1", s)
    if not s:
        return
    # year (never one inside the quoted title)
    quote = _find_quote(s)
    best = _best_year(s, (quote[0], quote[1]) if quote else None)
    if best is not None:
        work.year = int(best[3][:4])
        work.year_raw = best[3]
    else:
        yw = _YEAR_WORDS_RE.search(s)
        if yw:
            work.year_raw = yw.group(1)
    # where the author list ends: earliest landmark
    landmarks: list[int] = []
    if best is not None and best[0] >= 1:
        st = best[1]
        while st > 0 and s[st - 1] in " (":
            st -= 1
        landmarks.append(st)
    yw2 = _YEAR_WORDS_RE.search(s)
    if yw2:
        landmarks.append(
            max(0, yw2.start() - (1 if s[yw2.start() - 1 : yw2.start()] == "(" else 0))
        )
    if quote:
        landmarks.append(quote[0])
    et = _ET_AL_RE.search(s)
    if et:
        landmarks.append(et.start())
    for sp in _sentences(s)[:1]:
        landmarks.append(sp[1])
    colon = re.search(r"(?<=[^\W\d_]|\.):(?!\d)", s)
    if colon:
        landmarks.append(colon.start())
    end = min(landmarks) if landmarks else len(s)
    seg = s[:end]
    after = s[end : end + 12].lstrip(" .,;:")
    names_only = bool(re.match(r"[“\"«„‘']|\(?(?:1[6-9]|20)\d\d\b", after))
    names, used = _split_names(seg, names_only, quote_next=bool(re.match(r"[“\"«„‘']", after)))
    corporate = seg.strip(" .,;")
    tail, _ = _strip_leading_year(s[end:].lstrip(" .,;:"))
    if (
        not names
        and names_only
        and (_find_quote(tail) is not None or len(_sentences(tail)) >= 2)
        and corporate[:1].isupper()
        and len(corporate) <= 80
        and len(_words(corporate)) <= 8
        and not re.search(r"\d", corporate)
    ):
        # "World Bank. 2003. “Title.”": an organisation as author (a quoted title or the year follows)
        names, used = [corporate], end
    rest = s[used:]
    if et and et.start() >= used and re.fullmatch(r"[\s,;.]*", s[used : et.start()]):
        work.et_al = True
        rest = s[et.end() :]
    elif et and et.start() < 200 and et.start() <= end + 2:
        work.et_al = True
    work.authors = [_clean(n).strip(" ,;") for n in names if _clean(n).strip(" ,;")]
    if not names:
        _bool_warn(work.warnings, "no author list recognised")
    # drop the year (author-date styles) and read title / venue
    if ellipsis_in(seg):
        work.et_al = True
    _title_and_venue(rest, best, work)


def ellipsis_in(seg: str) -> bool:
    """An elided author list (APA's ``A, B, … Z``) counts as "et al."."""
    return bool(_ELLIPSIS_RE.search(seg))


_VENUE_WORDS_RE = re.compile(
    r"\b(?:journal|proceedings|transactions|annals|bulletin|review|letters|archives|society|conference|"
    r"symposium|workshop|congress|magazine|acta|zeitschrift|revue|revista)\b",
    re.I,
)


_JOURNAL_START_RE = re.compile(
    r"^\s*(?:the\s+)?(?:proceedings|journal|transactions|annals|bulletin|archives|acta)\b", re.I
)


# "In: X" / "In X" (capital) / "Journal 12(3)": a venue sentence. "In vitro ..." and "A 12-Year
# Analysis" are titles (the number runs on into a word).
_VENUE_SENT_RE = re.compile(
    r"^\s*(?:(?-i:[Ii]n\s*:|In\s+(?=[A-Z]))|[^\W\d_][^\d]{1,150}?(?:,\s*|\s+)(?:vol\.?\s*|volume\s*)?[A-Z]?\d+\s*"
    r"(?:\(|[,:;.]|\s*[-–](?![^\W\d_])|$))",
    re.I,
)


def _title_and_venue(rest: str, best: tuple[int, int, int, str] | None, work: CitedWork) -> None:
    rest, author_date = _strip_leading_year(rest.lstrip(" ,.;:"))
    rest = rest.lstrip(" ,.;:")
    q = _find_quote(rest)
    if q and q[0] <= 3:
        work.title = _tidy(rest[q[0] + 1 : q[1]])
        _venue_fields(rest[q[2] :], work)
        return
    sents = _sentences(rest)
    if not sents:
        return
    # The venue is the last sentence that starts with words and goes on with numbers
    # ("Physical Review B, 47(15), 9967"); the sentences before it are the title.
    k = None
    texts = [rest[a:b] for a, b in sents]
    for i in range(len(sents) - 1, -1, -1):
        text_i = texts[i]
        if re.match(r"^\s*\d", text_i) or not re.search(r"[^\W\d_]{2}", text_i):
            continue
        if _VENUE_SENT_RE.match(text_i) or (
            i + 1 < len(texts)
            and re.match(r"^\s*\d", texts[i + 1])
            and not re.search(r"[^\W\d_]{2}", texts[i + 1])
            and not re.search(r"\d", text_i)
        ):
            k = i
            break
    first = rest[sents[0][0] : sents[0][1]]
    if k == 0 and len(texts) >= 2 and any(re.match(r"\s*[^\W\d_]{2}", t) for t in texts[1:]):
        k = None  # words follow the "venue" sentence: it was a title with a number in it
    if k is not None and k >= 1 and not author_date and _JOURNAL_START_RE.match(first):
        _venue_fields(rest, work)  # "Proceedings of the X. Series B, 17, 109": no title
    elif k is not None and k >= 1:
        work.title = _tidy(rest[sents[0][0] : sents[k - 1][1]])
        _venue_fields(rest[sents[k][0] :], work)
    elif k == 0:
        # ACS / AIP / Elsevier: the venue comes first, unless a comma-separated title precedes it
        # (Elsevier with titles: "Y. LeCun, ..., Deep learning, Nature 521 (2015) 436.")
        m = _VENUE_END_RE.search(rest)
        pre = rest[: m.start()] if m else rest
        if (
            not author_date
            and work.authors
            and re.match(r"[A-Z][a-z]?\.", work.authors[0])
            and ", " in pre
        ):
            t, v = pre.rsplit(", ", 1)
            if (
                len(_words(t)) >= 2
                and v[:1].isupper()
                and not _PUBLISHER_WORDS_RE.search(v)
                and not _VENUE_WORDS_RE.search(t)
            ):
                work.title = _tidy(t)
                _venue_fields(rest[len(t) + 2 :], work)
                return
        _venue_fields(rest, work)
    else:
        more = len(sents) >= 2 and bool(re.search(r"[^\W\d_]{2}", rest[sents[0][1] :]))
        if more and author_date and len(sents) >= 3 and ":" not in texts[-1]:
            work.title = _tidy(rest[sents[0][0] : sents[-2][1]])
            _venue_fields(rest[sents[-1][0] :], work)
        elif more:
            work.title = _tidy(first)
            _venue_fields(rest[sents[0][1] :], work)
        elif author_date or (
            len(_words(first)) >= 6 and not re.search(r"\d", first) and work.authors
        ):
            work.title = _tidy(first)
        else:
            _venue_fields(rest, work)
    if work.title and best is not None and not author_date:
        _title_year(rest, best, work)


def _title_year(rest: str, best: tuple[int, int, int, str], work: CitedWork) -> None:
    """Decide whether a year ending the title is a title word or the publication year.

    "Title, 2009." -> "Title" (the year follows the title). But "World Indicators 2006. Venue.
    2006." keeps its title, and "Meeting, 10–15 December 1975. Venue. 1976." keeps it and takes
    the later year (the title was a dated event).
    """
    title = work.title or ""
    m = re.search(r"[\s,.]*\(?\b" + re.escape(best[3]) + r"\)?\s*$", title)
    if not m:
        return
    at = rest.find(title)
    later = _best_year(rest[at + len(title) :]) if at >= 0 else None
    if later is not None:
        if later[3] != best[3]:
            work.year, work.year_raw = int(later[3][:4]), later[3]
        return
    work.title = _tidy(title[: m.start()])
