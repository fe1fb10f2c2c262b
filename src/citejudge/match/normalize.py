"""Text normalisers shared by the index and the matcher.

All of them are pure, total functions (any ``str`` in, ``str`` out) and idempotent; the
property tests in ``tests/test_normalize.py`` check that.
"""

from __future__ import annotations

import html
import re
import unicodedata
from functools import lru_cache

from citejudge.ids import fold_confusables

__all__ = ["delatex", "fold", "strip_markup", "title_key", "title_tokens"]

# LaTeX accent commands -> combining characters (applied before NFKD stripping).
_LATEX_ACCENTS = {
    "`": "\u0300", "'": "\u0301", "^": "\u0302", "~": "\u0303", "=": "\u0304", "u": "\u0306",
    ".": "\u0307", '"': "\u0308", "H": "\u030b", "v": "\u030c", "c": "\u0327", "k": "\u0328",
    "r": "\u030a", "d": "\u0323", "b": "\u0331",
}
_LATEX_SYMBOLS = {
    "ss": "ß", "o": "ø", "O": "Ø", "l": "ł", "L": "Ł", "ae": "æ", "AE": "Æ", "oe": "œ",
    "OE": "Œ", "aa": "å", "AA": "Å", "i": "ı", "j": "ȷ", "&": "&", "%": "%", "_": "_", "$": "$",
    "#": "#", "textendash": "–", "textemdash": "—", "textquoteright": "’", "textquoteleft": "‘",
}
_ACCENT_RE = re.compile(r"\\([`'^~=.\"]|[uvHckrdb](?![a-zA-Z]))\s*(?:\{\s*(\\?[a-zA-Z])\s*\}|(\\?[a-zA-Z]))")
_SYMBOL_RE = re.compile(r"\\(ss|ae|AE|oe|OE|aa|AA|textendash|textemdash|textquoteright|textquoteleft|[oOlLij](?![a-zA-Z])|[&%_$#])")
_CMD_WITH_ARG = re.compile(r"\\(?:emph|textit|textbf|textrm|textsc|texttt|mathrm|mathbf|mathit|mbox|text|url|href\{[^}]*\})\s*\{([^{}]*)\}")
_OTHER_CMD = re.compile(r"\\[a-zA-Z]+\*?")
_HTML_TAG = re.compile(r"</?[a-zA-Z][a-zA-Z0-9]*(?:\s[^<>]*)?/?>")
_MATHML = re.compile(r"<mml:math.*?</mml:math>", re.S)


def delatex(text: str) -> str:
    """Turn LaTeX accents and symbols into unicode and drop markup commands and braces."""
    if "\\" not in text and "{" not in text and "$" not in text:
        return text

    def accent(m: re.Match[str]) -> str:
        base = (m.group(2) or m.group(3) or "").lstrip("\\")
        if base == "i":
            base = "i"
        return base + _LATEX_ACCENTS[m.group(1)]

    s = _ACCENT_RE.sub(accent, text)
    s = _SYMBOL_RE.sub(lambda m: _LATEX_SYMBOLS.get(m.group(1), m.group(1)), s)
    for _ in range(3):
        s2 = _CMD_WITH_ARG.sub(r"\1", s)
        if s2 == s:
            break
        s = s2
    s = _OTHER_CMD.sub("", s)
    s = s.replace("{", "").replace("}", "").replace("$", "").replace("~", " ")
    return unicodedata.normalize("NFC", s)


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
    s = s.replace("æ", "ae").replace("Æ", "AE").replace("œ", "oe").replace("Œ", "OE").replace("ı", "i")
    s = s.casefold()
    s = re.sub(r"[^\w]+|_", " ", s)
    return " ".join(s.split())


def title_tokens(title: str) -> list[str]:
    """Folded title words."""
    return fold(title).split()


def title_key(title: str | None) -> str | None:
    """Exact-lookup key of a title: folded, words joined without spaces; None if nothing is left.

    Two titles with the same key are equal modulo case, punctuation, whitespace, markup and
    diacritics (the spec's "minor differences"); a changed word changes the key.
    """
    if not title:
        return None
    key = fold(title).replace(" ", "")
    return key or None
