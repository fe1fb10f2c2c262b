"""Strict title and year comparison (spec: "Exact-match requirements").

Title: equal modulo case, punctuation, whitespace, markup (HTML/LaTeX) and diacritics, i.e. the
same :func:`~citejudge.match.normalize.title_key`. Anything else is a mismatch, with a reason
naming the difference: a changed/added/dropped word (British vs American spelling included), an
added subtitle the record lacks, or a truncated title.

Year decisions:

* equal to the record's year, or to the year of any non-preprint version (online-first vs issue
  year) → ok;
* a preprint citation may also give the year of a preprint version;
* a non-preprint citation giving only the preprint year → mismatch;
* "in press" / "forthcoming" / "to appear" with no year → ok ("nothing to check") unless the
  record was published more than 2 years before ``today_year``; "n.d." → ok;
* "2019a" → 2019; a year after ``today_year`` → mismatch ("in the future").
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any

from citejudge.ids import arxiv_year
from citejudge.match.citation import CitedWork
from citejudge.match.normalize import title_key, title_tokens
from citejudge.records import Work

__all__ = ["YEAR_RANGE", "FieldCheck", "compare_title", "compare_year", "is_year_text"]

_IN_PRESS = re.compile(
    r"in\s*press|forthcoming|to\s*appear|accepted|submitted|early\s*access", re.I
)
_NO_DATE = re.compile(r"^\s*(n\.?\s*d\.?|no\s*date|s\.\s*d\.|undated)\s*$", re.I)
_PREPRINT_KINDS = frozenset({"preprint", "submitted", "submittedversion"})


@dataclass(frozen=True)
class FieldCheck:
    """Result of one field comparison; ``note`` carries context when ``ok`` needs a caveat."""

    ok: bool
    reason: str
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form (for details)."""
        d: dict[str, Any] = {"ok": self.ok, "reason": self.reason}
        if self.note:
            d["note"] = self.note
        return d


def _describe_diff(cited: list[str], record: list[str]) -> str:
    sm = difflib.SequenceMatcher(a=cited, b=record, autojunk=False)
    parts: list[str] = []
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        c, r = " ".join(cited[i1:i2]), " ".join(record[j1:j2])
        if op == "replace":
            parts.append(f"cited '{c}' where record has '{r}'")
        elif op == "delete":
            parts.append(f"cited adds '{c}'")
        elif op == "insert":
            parts.append(f"cited omits '{r}'")
    return "; ".join(parts[:3]) + ("; …" if len(parts) > 3 else "")


def compare_title(cited: str, record_title: str | None) -> FieldCheck:
    """Compare a cited title with the record's title (strict, see the module docstring).

    A cited title with a subtitle the record lacks is a mismatch: it states words the record
    does not have, and the exact-match rule allows only punctuation/case differences.
    """
    if record_title is None or title_key(record_title) is None:
        return FieldCheck(False, "record has no title")
    ck, rk = title_key(cited), title_key(record_title)
    if ck is None:
        return FieldCheck(True, "no title cited")
    if ck == rk:
        return FieldCheck(True, "same title")
    ct, rt = title_tokens(cited), title_tokens(record_title)
    if rk is not None and ck.startswith(rk) and re.search(r"[:.?!—–-]\s", cited):
        extra = " ".join(ct[len(rt) :]) if ct[: len(rt)] == rt else ck[len(rk) :]
        return FieldCheck(False, f"cited title adds a subtitle the record lacks: '{extra}'")
    if rk is not None and rk.startswith(ck):
        rest = " ".join(rt[len(ct) :]) if rt[: len(ct)] == ct else rk[len(ck) :]
        return FieldCheck(False, f"cited title is truncated: record continues '{rest}'")
    return FieldCheck(False, f"title differs: {_describe_diff(ct, rt)}")


#: Years a ``metadata.year`` may give (an integer, or four digits in a string); anything else is
#: not a year (a typo, a placeholder, a word).
YEAR_RANGE = range(1000, 3000)
_YEAR_IN_TEXT = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d|21\d\d)(?!\d)")
_ANY_YEAR_IN_TEXT = re.compile(r"(?<!\d)[12]\d{3}(?!\d)")


def _year_from_raw(raw: str) -> int | None:
    m = _YEAR_IN_TEXT.search(raw)
    return int(m.group(1)) if m else None


def is_year_text(raw: str) -> bool:
    """Whether a year as written can be read as one.

    It holds a four-digit year of :data:`YEAR_RANGE` ("2019a", "May 2019", "2019-05-01"), or
    says there is none yet or none at all ("in press", "forthcoming", "n.d."). Blank text
    states no year and is accepted; "abc" or "Spring" is not a year.
    """
    text = raw.strip()
    return (
        not text
        or _ANY_YEAR_IN_TEXT.search(text) is not None
        or _IN_PRESS.search(text) is not None
        or _NO_DATE.match(text) is not None
    )


def compare_year(cited: CitedWork, record: Work, today_year: int) -> FieldCheck:
    """Compare the cited year with the record's year and its versions' years."""
    year = cited.year
    raw = (cited.year_raw or "").strip()
    if year is None and raw:
        year = _year_from_raw(raw)
    if year is None:
        if raw and _IN_PRESS.search(raw):
            if record.year is not None and record.year < today_year - 2:
                return FieldCheck(False, f"cited as {raw!r}, record published {record.year}")
            return FieldCheck(True, "no year to check", note=f"cited as {raw!r}")
        if raw and _NO_DATE.match(raw):
            return FieldCheck(True, "no year to check", note=f"cited as {raw!r}")
        if raw:
            return FieldCheck(True, "no year to check", note=f"unreadable year {raw!r}")
        return FieldCheck(True, "no year cited")
    if year > today_year:
        return FieldCheck(False, f"year {year} is in the future")
    preprint_years = {
        v.year
        for v in record.versions
        if v.year is not None and (v.kind or "").lower() in _PREPRINT_KINDS
    }
    # an arXiv copy's year is in its id ("1810.04805": October 2018), where the record gives
    # its locations no year (OpenAlex does not)
    preprint_years |= {
        y
        for y in (arxiv_year(a) for a in (record.arxiv, *(v.arxiv for v in record.versions)))
        if y is not None
    }
    other_years = {
        v.year
        for v in record.versions
        if v.year is not None and (v.kind or "").lower() not in _PREPRINT_KINDS
    }
    if record.year is None and not record.versions:
        return FieldCheck(False, "record has no year")
    if year == record.year or year in other_years:
        return FieldCheck(True, "same year")
    if year in preprint_years:
        if cited.is_preprint:
            return FieldCheck(True, "preprint year", note=f"published version is {record.year}")
        return FieldCheck(
            False, f"cited {year} is the preprint year; the published version is {record.year}"
        )
    known = sorted({y for y in (record.year,) if y is not None} | other_years)
    pre = sorted(preprint_years - set(known))
    also = f" (preprint {', '.join(map(str, pre))})" if pre else ""
    if len(known) > 1:
        return FieldCheck(
            False, f"cited {year}, record years are {', '.join(map(str, known))}{also}"
        )
    return FieldCheck(False, f"cited {year}, record year is {known[0] if known else None}{also}")
