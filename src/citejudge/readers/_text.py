"""Small text cleaners shared by every reader: control characters, whitespace, Markdown emphasis, trailing punctuation."""

from __future__ import annotations

import re

from citejudge.text.normalize import delatex, may_match_ci, strip_markup

_PREPRINT_RE = re.compile(
    r"arxiv|biorxiv|medrxiv|chemrxiv|ssrn|research\s*square|preprints?\.org|\bpreprint\b|psyarxiv|osf\s*preprints",
    re.I,
)
#: words one of which every match of :data:`_PREPRINT_RE` holds (up to case)
_PREPRINT_KEYS = ("rxiv", "ssrn", "research", "preprint")


def _mentions_preprint(text: str) -> bool:
    """``_PREPRINT_RE.search(text)``, the pattern tried only where one of its words occurs."""
    return may_match_ci(text, _PREPRINT_KEYS) and _PREPRINT_RE.search(text) is not None


_ET_AL_RE = re.compile(r"\b(?:et\.?\s*al\b\.?|and\s+others\b|a\s+kol\b\.?|u\.\s*a\.)", re.I)
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_WS_RE = re.compile(r"\s+")
_YEAR4_RE = re.compile(r"(?<!\d)(\d{4})(?!\d)")


def _bool_warn(warnings: list[str], msg: str) -> None:
    if msg not in warnings:
        warnings.append(msg)


def _clean(text: str) -> str:
    # (a printable string has no control character; str.split cuts at the characters re's
    # \s matches, so the join is the _WS_RE substitution, stripped)
    if not text.isprintable():
        text = _CONTROL_RE.sub(" ", text)
    return " ".join(text.split())


_STARRED = re.compile(r"(?<![\w*])\*{1,2}(?=[^\s*])([^*]+?)\*{1,2}(?![\w*])")
_UNDERSCORED = re.compile(r"(?<!\w)_([^_]+)_(?!\w)")


def _strip_italics(text: str) -> str:
    # Markdown emphasis only around whole words: "Oncology*Biology*Physics" keeps its stars
    s = _STARRED.sub(r"\1", text) if "*" in text else text
    s = _UNDERSCORED.sub(r"\1", s) if "_" in s else s
    return s.strip(" *_")


def _tidy(text: str | None) -> str | None:
    if text is None:
        return None
    s = _strip_italics(_clean(text)).strip(" ,;:.")
    s = s.strip(" ,;:")
    return s or None


def field_text(value: str | None) -> str | None:
    """A BibTeX or CSL field as plain text: LaTeX decoded, markup removed, whitespace collapsed."""
    if not value:
        return None
    return _clean(strip_markup(delatex(value))) or None


def year_in(text: str) -> int | None:
    """The first stand-alone four-digit number in ``text`` ("2019a", "2020-05-01", "in press 2021")."""
    m = _YEAR4_RE.search(text)
    return int(m.group(1)) if m else None
