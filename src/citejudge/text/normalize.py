"""Text normalisers shared by the readers, the index and the matcher: LaTeX, markup, folding.

All of them are pure, total functions (any ``str`` in, ``str`` out) and idempotent; the
property tests in ``tests/test_normalize.py`` check that.
"""

from __future__ import annotations

import html
import re
import unicodedata
from functools import lru_cache
from typing import Any

# Hyphen-like characters, zero-width characters and other look-alikes people paste into ids.
_HYPHENS = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d\u00ad"
_ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff"
_CONFUSABLES = str.maketrans(
    {
        **{c: "-" for c in _HYPHENS},
        **{c: None for c in _ZERO_WIDTH},
        "\u2044": "/",
        "\u2215": "/",
        "\uff0f": "/",
        "\u00a0": " ",
        "\u2009": " ",
        "\u202f": " ",
    }
)


#: the only non-ASCII characters that case-insensitive matching pairs with an ASCII letter
#: ("İ" and "ı" with "i", "ſ" with "s", the Kelvin sign with "k")
_CASE_EXOTIC_RE = re.compile("[\u0130\u0131\u017f\u212a]")


def case_exotic(text: str) -> bool:
    """``text`` holds a character that case-insensitive matching pairs with an ASCII letter."""
    return not text.isascii() and _CASE_EXOTIC_RE.search(text) is not None


def may_match_ci(text: str, words: tuple[str, ...]) -> bool:
    """False only when no case-insensitive pattern that needs one of ``words`` can match ``text``.

    ``words`` are lower-case ASCII; every match of the pattern must contain one of them
    literally (up to case). A cheap test before a slow ``re.I`` alternation: the text is
    lower-cased and searched for the words, unless it holds a character that case-insensitive
    matching pairs with an ASCII letter (then True: the pattern decides).
    """
    if case_exotic(text):
        return True
    low = text.lower()
    return any(w in low for w in words)


_CONFUSABLE_RE = re.compile("[" + "".join(chr(c) for c in _CONFUSABLES) + "]")


def fold_confusables(text: str) -> str:
    """NFKC-normalise and map unicode hyphens/slashes/spaces to ASCII; drop zero-width chars."""
    if text.isascii():  # NFKC leaves ASCII as it is and the table maps no ASCII character
        return text
    return _fold_confusables(text) if len(text) <= 4096 else _fold_confusables.__wrapped__(text)


@lru_cache(maxsize=64)
def _fold_confusables(text: str) -> str:
    # (a few entries: the identifier extractors fold the same citation one after another)
    out = unicodedata.normalize("NFKC", text)
    return out.translate(_CONFUSABLES) if _CONFUSABLE_RE.search(out) else out


__all__ = [
    "MONTHS",
    "case_exotic",
    "delatex",
    "fold",
    "fold_confusables",
    "may_match_ci",
    "strip_markup",
]

#: English month names, lower case, in calendar order.
MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]

_HTML_TAG = re.compile(r"</?[a-zA-Z][a-zA-Z0-9]*(?:\s[^<>]*)?/?>")
_MATHML = re.compile(r"<mml:math.*?</mml:math>", re.S)
_BARE_PERCENT = re.compile(r"(?<!\\)%")
_HREF = re.compile(r"\\href\s*\{[^{}]*\}")  # \href{url}{text}: the text is what is cited
_URL_BRACKETS = re.compile(r"<((?:https?|ftp)://[^<>]*)>")


@lru_cache(maxsize=1)
def _latex_decoder() -> Any:
    from pylatexenc.latex2text import LatexNodes2Text

    return LatexNodes2Text(math_mode="text", keep_comments=True, strict_latex_spaces=False)


def delatex(text: str) -> str:
    """Decode LaTeX (accents, symbols, markup commands, braces) to plain unicode text.

    Strings without a backslash only lose their braces, ``$`` and ``~`` (a tie); the others are
    decoded by ``pylatexenc`` (memoised, since the same names and venues recur). A bare ``%`` is
    text here, not a LaTeX comment ("50% of cases").
    """
    if "\\" not in text:
        if "{" not in text and "$" not in text:
            return text
        return text.replace("{", "").replace("}", "").replace("$", "").replace("~", " ")
    return _delatex_cached(text) if len(text) <= 2048 else _delatex(text)


@lru_cache(maxsize=1 << 15)
def _delatex_cached(text: str) -> str:
    return _delatex(text)


def _delatex(text: str) -> str:
    try:
        src = _HREF.sub("", _BARE_PERCENT.sub(r"\\%", text))
        out: str = _URL_BRACKETS.sub(r"\1", _latex_decoder().latex_to_text(src))
    except Exception:
        out = re.sub(r"\\[a-zA-Z]+\*?", "", text)
    out = out.replace("\u00a0", " ").replace("{", "").replace("}", "").replace("$", "")
    return unicodedata.normalize("NFC", out)


def strip_markup(text: str) -> str:
    """Remove HTML/JATS/MathML tags and entities (OpenAlex titles carry ``<i>``, ``<sub>``...)."""
    if "<" in text:
        s = _MATHML.sub(" ", text)
        s = _HTML_TAG.sub("", s)
    else:
        s = text
    if "&" in s:
        s = html.unescape(s)
    return s


_NON_WORD = re.compile(r"[^\w]+|_")


def fold(text: str) -> str:
    """Lower-case, strip diacritics, markup and LaTeX; keep letters, digits and single spaces.

    Short strings (names, venues, titles) repeat across citations and candidates and are
    memoised; long ones are folded each time so that the cache stays small.
    """
    return _fold_cached(text) if len(text) <= 1024 else _fold(text)


@lru_cache(maxsize=1 << 16)
def _fold_cached(text: str) -> str:
    return _fold(text)


def _fold(text: str) -> str:
    s = fold_confusables(delatex(strip_markup(text)))
    s = unicodedata.normalize("NFKD", s)
    s = "".join(c for c in s if not unicodedata.combining(c))
    s = s.replace("ß", "ss").replace("ø", "o").replace("Ø", "O").replace("ł", "l").replace("Ł", "L")
    s = (
        s.replace("æ", "ae")
        .replace("Æ", "AE")
        .replace("œ", "oe")
        .replace("Œ", "OE")
        .replace("ı", "i")
    )
    s = s.casefold()
    s = _NON_WORD.sub(" ", s)
    return " ".join(s.split())
