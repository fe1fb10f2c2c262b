"""The publication year among the four-digit numbers of a citation's date text."""

from __future__ import annotations

import re

from citejudge.readers.freetext._vocab import _MONTHS, _YEAR_RE


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
