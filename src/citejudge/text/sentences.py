"""Sentence splitting for claims, evidence and chunk texts (plain prose, no offsets).

:func:`split_sentences` is the project's sentence splitter: content grounding, rag-audit and
citation-eval select evidence sentences with it and split claims into sub-claims with it.

:func:`split_units` splits a long text (a web page, an extracted full text) into sentences that
never cross a heading, list item or paragraph boundary, and :func:`evidence_units` leaves out the
page furniture (:func:`is_boilerplate`): menus, headings, cookie and share banners.

:func:`evidence_windows` is the calibrated support scorer's view of an evidence text
(:mod:`citejudge.judge.support`): a plainer split with short pieces merged. It is kept as it is
because the scorer's calibrations (``configs/calibration/*.json``) were fitted on these windows;
changing it means refitting them with ``scripts/bench_support.py --write-calibration``. Measured on
the 446 OpenAlex abstracts of the shared data, the windows differ from :func:`split_sentences`
followed by the same merge in 13% of the texts (abbreviations, closing quotes), so neither can be
written in terms of the other.

Reference strings, whose sentence spans carry offsets and venue rules, have their own splitter in
:mod:`citejudge.match.parse`.

Measured alternatives (scripts/bench_text.py): ``pysbd`` agreed with :func:`split_sentences` on
63% of the abstracts and 26% of the Czech CTKFacts paragraphs, 60 times slower; ``blingfire``
(99 MB installed) agreed on 76% and 80%. Neither keeps the results unchanged, so the hand-written
splitter stays.
"""

from __future__ import annotations

import re

__all__ = ["evidence_units", "evidence_windows", "is_boilerplate", "split_sentences", "split_units"]

# A sentence ends at . ! ? (plus closing quotes or brackets) before whitespace and an upper-case
# letter, a digit, or an opening quote or bracket (⟦ opens the LaTeX reader's cite token: "…
# gradients. \citet{lecun2015deep} survey…"); Czech capitals included. Citation markers glued
# after the stop (Wikipedia's "problem.[1][2] Its …", a Markdown footnote's "time.[^1] They …", a
# LaTeX note's "field.\footnote{…} Residual …" as the reader's token ⟦3⟧) end the sentence too and
# stay with it.
_MARKS_AFTER_STOP = (
    r"(?<=[.!?])(?P<marks>(?:\[\d{1,3}(?:\s*[,–-]\s*\d{1,3})*\]|\[\^[^\]\s]{1,40}\]|⟦\d+⟧)*)"
    r"[\"'”’)\]]*\s+"
)
_SENT_END = re.compile(_MARKS_AFTER_STOP + r"(?=[A-Z0-9ÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ\"'“(\[⟦])")
# A citing document's sentences (split_sentences(citing=True)) may also start with a pandoc
# narrative citation ("… field. @doe99 shows …"), and they keep what closes them: the closing
# quote of a quoted sentence, and the numeric markers after the stop, glued or after a space,
# in either order ('as he put it, “the effect is large.” [3] Next …', '… large.”[3] Next …',
# '… large. [3] Next …'). A marker that opens a sentence of its own ("[3] showed that …", lower
# case after it) stays with that sentence.
_NUMERIC_MARK = r"\[\d{1,3}(?:\s*[,–-]\s*\d{1,3})*\]"
_SENT_END_CITING = re.compile(
    r"(?<=[.!?])(?P<marks>(?:"
    + _NUMERIC_MARK
    + r"|\[\^[^\]\s]{1,40}\]|⟦\d+⟧|[\"'”’)\]]|\s(?="
    + _NUMERIC_MARK
    + r"))*)\s+(?=[A-Z0-9ÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ\"'“(\[⟦@])"
)
# A piece that is only a citation ("(Smith, 2001)." after a quoted sentence's stop) belongs to
# the sentence before it: an author-year in brackets (a year or "n.d.", short, no sentence of
# its own inside: "(The factory uses about 3.9 million of these.)" stays a sentence), numeric
# markers, the LaTeX reader's cite tokens.
_ONLY_CITATION = re.compile(
    r"(?:\((?=[^()]{0,300}\))(?=[^()]*(?:\b(?:1[5-9]|20)\d\d[a-z]?\b|\bn\.d\.))[^()]*(?:(?<=n\.d\.)|(?<![?!.]))\)|"
    + _NUMERIC_MARK
    + r"|⟦\d+⟧)+[.;,]?"
)
_CITATION_YEAR = re.compile(r"\b(?:1[5-9]|20)\d\d[a-z]?\b|\bn\.d\.")


def _only_citation(piece: str) -> bool:
    """Tell whether ``piece`` is citations only (:data:`_ONLY_CITATION`).

    A bracketed group longer than 80 characters must be author-year citations throughout
    ("(Smith et al., 2001; Jones and Brown, 2003; …)": a year in every part between
    semicolons).
    """
    if not _ONLY_CITATION.fullmatch(piece):
        return False
    for group in re.findall(r"\(([^()]*)\)", piece):
        if len(group) > 80 and not (
            ";" in group and all(_CITATION_YEAR.search(g) for g in group.split(";"))
        ):
            return False
    return True


# ... unless the piece before it ends with one of these abbreviations (English and Czech): titles,
# month abbreviations ("Dec. 12, 2018"), "v." of case names, "pp."/"vol." of references, "U.S.".
_ABBREV = re.compile(
    r"\b(?:e\.g|i\.e|et al|Fig|Figs|Eq|Ref|vs|v|cf|approx|No|Nos|Dr|Mr|Mrs|Ms|St|Prof|Rep|Sen|"
    r"Gov|Gen|Col|Lt|Capt|Sgt|Rev|pp|vol|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|U\.S|"
    r"U\.K|resp|incl|tj|tzv|např|mj)\.$",
    re.I,
)
# ... or with a middle initial after a capitalised name ("Thomas K. Arnold").
_INITIAL = re.compile(r"\b[A-Z][a-z]+ [A-Z]\.$")
# ... and, in a citing document, not after a locator's abbreviation before its number ("p. 3",
# "chap. 2", "sec. 4.1" of a pinpoint citation such as pandoc's "[see @doe99, p. 33]"). Evidence
# is split without these two rules, as the support scorer was calibrated.
_LOCATOR = re.compile(r"\b(?:p|chap|ch|sec|para|art|fn)\.$", re.I)
_WINDOW_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9ÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ])")


def split_sentences(text: str, *, citing: bool = False) -> list[str]:
    """Sentences of ``text``, whitespace collapsed; abbreviations such as "et al." stay inside.

    ``citing``: ``text`` is a citing document's (its pinpoints "p. 3" end no sentence, a pandoc
    narrative citation "@doe99" may start one). An empty or blank text has no sentences.
    """
    text = " ".join(text.split())
    if not text:
        return []
    parts: list[str] = []
    start = 0
    for m in (_SENT_END_CITING if citing else _SENT_END).finditer(text):
        piece = text[start : m.start() + len(m.group("marks"))].strip()
        # the abbreviation rules read the text up to the stop ("et al. [3] showed …")
        before = text[start : m.start()].strip() if citing else piece
        if _ABBREV.search(before) or _INITIAL.search(before):
            continue
        if citing and text[m.end() : m.end() + 1].isdigit() and _LOCATOR.search(before):
            continue
        if citing and _inside_brackets(text, start, m):
            continue
        if citing and parts and _only_citation(piece):
            parts[-1] = f"{parts[-1]} {piece}"
        elif piece:
            parts.append(piece)
        start = m.end()
    tail = text[start:].strip()
    if citing and parts and _only_citation(tail):
        parts[-1] = f"{parts[-1]} {tail}"
    elif tail:
        parts.append(tail)
    return parts


def _inside_brackets(text: str, start: int, m: re.Match[str]) -> bool:
    """A stop inside a bracket the piece opened and the text closes soon: no sentence's end.

    "(Hochreiter, S. 1997)", "(see Smith, J. 2001, and Jones, K. 2003)": the stop after a
    single capital initial, a year after it before the bracket closes, within 80 characters
    and before any other bracket opens.
    """
    piece = text[start : m.end()]  # (with what closes the sentence: "… [2].)")
    if piece.count("(") <= piece.count(")") or not _INITIAL_STOP.search(text, 0, m.start()):
        return False
    close = text.find(")", m.end(), m.end() + 80)
    return (
        close >= 0
        and "(" not in text[m.end() : close]
        and _CITATION_YEAR.search(text, m.end(), close) is not None
    )


#: a single capital initial before the stop: "(Hochreiter, S. 1997)"
_INITIAL_STOP = re.compile(r"(?<![^\s(,])[A-Z]\.$")


def evidence_windows(text: str, min_chars: int = 25) -> list[str]:
    """The support scorer's windows of ``text`` (at least one).

    Split after . ! ? before a capital or digit; pieces shorter than ``min_chars`` are merged into
    the previous one. Whitespace inside a window is kept as it is. Frozen with the scorer's calibrations (see the
    module docstring).
    """
    parts = [p.strip() for p in _WINDOW_SPLIT.split(text.strip()) if p.strip()]
    out: list[str] = []
    for p in parts:
        if out and len(p) < min_chars:
            out[-1] = f"{out[-1]} {p}"
        else:
            out.append(p)
    return out or [text.strip()]


# --- Long texts: lines, markup and boilerplate ---------------------------------------------------
#
# A web page or an extracted full text is not one paragraph: its line breaks separate menus,
# headings, list items and paragraphs, and collapsing them (as split_sentences does) merges a
# page's navigation into one giant pseudo-sentence. split_units keeps those boundaries; hard-wrapped
# prose (a .txt from pdftotext, a fixed-width dump) is re-joined first, so a wrapped sentence is
# still one unit.

_BULLET = re.compile(r"^\s*(?:[-*+•·▪◦‣–—]|\d{1,3}[.)]|[a-z][.)]|\(\w{1,3}\))\s+")
_MARKUP_LINE = re.compile(
    r"^\s*(?:#{1,6}\s|>\s?|\||={3,}|-{3,}|\*{3,}|_{3,}|<[a-zA-Z/!][^>]*>\s*$|\[\d+\]\s*$)"
)
_TERMINAL = re.compile(r"[.!?:;…][\"'”’)\]]*$")
_BOILERPLATE = re.compile(
    r"\b(?:cookies?|skip to (?:main )?content|sign (?:in|up)|log ?in|subscribe|newsletter|"
    r"share (?:this|on)|follow us|all rights reserved|privacy policy|terms of (?:use|service)|"
    r"click here|read more|back to top|advertisement|javascript)\b|©|\(c\) \d{4}",
    re.I,
)


def _wrap_width(lines: list[str]) -> int | None:
    """The width a hard-wrapped text was wrapped at, or None for a text of free-length lines.

    A text is hard-wrapped when it has at least four lines of 40+ characters, at least half of
    them end within 12 characters of the same width (their 90th percentile), and at least 40% of
    them stop mid-sentence (a page of one sentence a line has lines of any length, but each ends
    a sentence).
    """
    long = sorted((x.rstrip() for x in lines if len(x.strip()) >= 40), key=len)
    if len(long) < 4:
        return None
    width = len(long[int(0.9 * (len(long) - 1))])
    near = sum(1 for x in long if width - 12 <= len(x) <= width)
    open_ends = sum(1 for x in long if not _TERMINAL.search(x))
    wrapped = near * 2 >= len(long) and open_ends * 5 >= len(long) * 2
    return width if width <= 130 and wrapped else None


def _lines(text: str) -> list[str]:
    """Logical lines of ``text``: physical lines, with wrapped prose joined again.

    A line continues on the next when it does not end a sentence, is no heading, list item or
    other markup, and either the next line starts with a lower-case letter or the text is
    hard-wrapped (:func:`_wrap_width`) and the line reaches near its width. A hyphen ending a
    line before a lower-case letter joins the word ("regular-" + "ization"), unless the piece
    before it already holds a hyphen ("state-of-the-" + "art" keeps it).
    """
    raw_lines = text.splitlines()
    width = _wrap_width(raw_lines)
    out: list[str] = []
    open_end = False  # the previous logical line stops mid-sentence
    wide = False  # ... and reaches near the wrap width of a hard-wrapped text
    for raw in raw_lines:
        line = " ".join(raw.split())
        if not line:
            open_end = False
            out.append("")
            continue
        starts_block = bool(_BULLET.match(line) or _MARKUP_LINE.match(line))
        lower = line[:1].islower()
        if open_end and out and not starts_block and (lower or wide):
            prev = out[-1]
            last = prev.rsplit(" ", 1)[-1]
            if lower and last.endswith("-") and last[-2:-1].isalpha():
                out[-1] = (prev if "-" in last[:-1] else prev[:-1]) + line
            else:
                out[-1] = f"{prev} {line}"
        else:
            out.append(line)
        open_end = not (
            _TERMINAL.search(line)
            or _MARKUP_LINE.match(line)
            or (width is None and is_boilerplate(line))
        )
        wide = width is not None and len(raw.rstrip()) >= width - 25
    return out


def split_units(text: str) -> list[str]:
    """The units of a long text, in order: sentences that never cross a structural line break.

    A unit never runs across a line break that ends a heading, a list item, a table row or a
    paragraph.     Wrapped prose lines are joined first (see :func:`_lines`), then each logical line is split
    with :func:`split_sentences`. Markdown heading and quote markers and list bullets are kept as
    written (the unit is the source's text); a text of one line gives what
    :func:`split_sentences` gives.
    """
    units: list[str] = []
    for line in _lines(text):
        if line:
            units.extend(split_sentences(line))
    return units


def is_boilerplate(unit: str) -> bool:
    """Whether ``unit`` is page furniture rather than content: a menu entry, a heading, a banner.

    True for a unit of fewer than four words that does not end a sentence ("Skip to content",
    "# About Us", "Home | News"), for a Markdown heading or table row, and for cookie, share,
    sign-in and copyright lines of at most 25 words.
    """
    words = unit.split()
    if not words:
        return True
    if unit.lstrip().startswith(("#", "|")) or unit.count(" | ") >= 2:
        return True
    if len(words) < 4 and not re.search(r"[.!?][\"'”’)\]]*$", unit):
        return True
    return len(words) <= 25 and bool(_BOILERPLATE.search(unit))


def evidence_units(text: str) -> list[str]:
    """The units of ``text`` that can serve as evidence.

    That is :func:`split_units` without boilerplate (:func:`is_boilerplate`); all units when
    every one of them is boilerplate-like (a short text such as a one-line abstract is still
    evidence).
    """
    units = split_units(text)
    kept = [u for u in units if not is_boilerplate(u)]
    return kept or units
