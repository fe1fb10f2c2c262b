"""The hand-written parser of the free-text reader, kept for the styles it was written for.

The authors / year / title / venue layout of :func:`._structure._parse_structure` and its
clean-up passes, as they were before the learned parser (:mod:`._crf`). :mod:`._parser` uses
it only where a measurement showed it wins (see ``_parser._rules_win``).
"""

from __future__ import annotations

import re

from citejudge.readers._text import _clean, _tidy
from citejudge.readers.freetext._structure import _parse_structure
from citejudge.readers.freetext._vocab import _UP
from citejudge.records import CitedWork
from citejudge.text.venue_names import is_book_series


def parse_by_rules(text: str, work: CitedWork) -> None:
    """Read authors, year, title and venue of ``text`` (markup and control characters removed)."""
    _parse_structure(_pre_clean(_clean(text), work), work)
    _name_tail_out_of_title(work)
    _split_container_from_title(work)


_SAME_AUTHORS_RE = re.compile(r"^\s*(?:[—–\-_]{2,}|―{1,})\s*[.,]?\s*")


_EDITOR_NOTE_RE = re.compile(r"^(.{2,200}?),\s*(?:eds?|editors?|hrsg|hg)\.(?=\s)", re.I)


def _pre_clean(text: str, work: CitedWork) -> str:
    """Marks that are not citation content: "———." (same authors as the entry before) and ", ed." after names."""
    m = _SAME_AUTHORS_RE.match(text)
    if m:
        work.warnings.append("authors given as '———' (the previous entry's authors): not checked")
        text = text[m.end() :]
    return _EDITOR_NOTE_RE.sub(r"\1.", text, count=1)


# "Title. In: Editors (eds.) Container. Series, vol. N" (Springer LNCS, German "In:") and Elsevier's
# "Title, in: Proceedings of ..." (lower-case "in:") when the parse left the container in the title.
_IN_CONTAINER_RE = re.compile(r"(?:\.\s+In:\s+|,\s+in:\s+)")


_EDITORS_RE = re.compile(r"^.{2,300}?\((?:eds?|hrsg|hg|editors?)\.?\)\s*[,.:]?\s*", re.I)


def _split_container_from_title(work: CitedWork) -> None:
    for attr in ("title", "venue"):
        text = getattr(work, attr)
        if not text:
            continue
        m = _IN_CONTAINER_RE.search(text)
        if not m or (attr == "venue" and work.title):
            continue
        head, container = text[: m.start()].strip(" .,"), text[m.end() :].strip(" .,")
        container = _EDITORS_RE.sub("", container)
        container = re.split(r"\.\s+(?=[A-Z])", container)[0].strip(" .,")
        container = re.sub(r",\s*(?:S|pp?|vol|Bd)\.?\s*\d.*$|,\s*S$", "", container).strip(" .,")
        if len(head.split()) < 2 or not container:
            continue
        work.title = _tidy(head)
        if attr == "venue" or not work.venue or is_book_series(work.venue):
            work.venue = _tidy(container)
        return


# The rest of an inverted name left at the start of the title: "Ohnishi, S. | Tsuyoshi. EPR ...",
# "Bach | P R. Quantitative ...", "Whikehart, J. | William. DSP-Based ...".
_NAME_TAIL_RE = re.compile(
    rf"^((?:[{_UP}]\.?\s?){{1,3}}|[{_UP}][a-z\u00df-\u024f'\-]{{1,14}}(?:\s[{_UP}][a-z\u00df-\u024f'\-]{{1,14}})?)\.\s+(?=\S)"
)


def _name_tail_out_of_title(work: CitedWork) -> None:
    """Give the last author back the given names the author splitter left at the start of the title.

    Only for an inverted last author ("Family, I." or a bare family name after inverted names)
    and a title that goes on after that short name-shaped sentence; the rest must still be a title
    of several words.
    """
    if not work.authors or not work.title:
        return
    last = work.authors[-1]
    m = _NAME_TAIL_RE.match(work.title)
    if not m:
        return
    rest = work.title[m.end() :]
    if len(rest.split()) < 3:
        return
    tail = m.group(1).strip()
    # the tail must follow the last author directly in the text (no year or title in between)
    last_word = last.replace(",", " ").split()[-1] if last.split() else ""
    if not last_word or not re.search(
        re.escape(last_word) + r"[\s.,]*" + re.escape(tail) + r"\.\s+" + re.escape(rest[:12]),
        work.raw,
    ):
        return
    initials_only = bool(re.fullmatch(rf"(?:[{_UP}]\.?\s?){{1,3}}", tail))
    bare_family = "," not in last and len(last.split()) == 1
    inverted_initial = bool(re.fullmatch(rf"[^,]+,\s*(?:[{_UP}]\.\s?){{1,3}}", last))
    others_inverted = len(work.authors) > 1 and all("," in a for a in work.authors[:-1])
    if (initials_only and (bare_family or inverted_initial)) or (
        not initials_only and (inverted_initial or (bare_family and others_inverted))
    ):
        work.authors[-1] = f"{last}, {tail}" if bare_family else f"{last} {tail}"
        work.title = rest
