"""English numbers written in words, read as digits.

An abstract says "over twenty-five years" where a claim says "25 years"; a page says "a
thousand" where a claim says "1,000". The claim-coverage rule of content grounding looks for
a claim's numbers in the evidence, and reads the evidence's number words with
:func:`word_numbers` so that a number spelt out is found.

Read: cardinals from "zero" to the billions, hyphenated or not ("twenty-five", "twenty five",
"one hundred and five", "three thousand two hundred"), "a hundred" / "a thousand", and a
number of digits followed by a scale word ("1.5 million", "2 billion"). Not read: ordinals,
fractions, "dozen", and words of other languages.
"""

from __future__ import annotations

import re

__all__ = ["word_numbers"]

_UNITS = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        ]
    )
}
_TENS = {
    w: 10 * (i + 2)
    for i, w in enumerate(
        ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    )
}
_SCALES = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_WORD = "|".join(sorted([*_UNITS, *_TENS, "hundred", *_SCALES], key=len, reverse=True))
#: A run of number words (with "-", "and", "a" between them), or digits then a scale word.
_RUN = re.compile(
    rf"\b(?:(?:a|an)\s+)?(?:{_WORD})(?:(?:\s+|-)(?:and\s+)?(?:{_WORD}))*\b"
    rf"|\b\d+(?:\.\d+)?\s+(?:{'|'.join(_SCALES)})\b",
    re.IGNORECASE,
)


def _value(words: list[str]) -> int | None:
    """The number of a run of number words, or None when the run is no number ("ten hundred")."""
    total = current = 0
    last: str | None = None
    for w in words:
        if w in _UNITS:
            if last in ("unit", "teen") or (last == "tens" and _UNITS[w] >= 10):
                return None
            current += _UNITS[w]
            last = "teen" if _UNITS[w] >= 10 else "unit"
        elif w in _TENS:
            if last in ("unit", "teen", "tens"):
                return None
            current += _TENS[w]
            last = "tens"
        elif w == "hundred":
            if last == "hundred" or current >= 10 or (current == 0 and last is not None):
                return None
            current = (current or 1) * 100
            last = "hundred"
        else:  # a scale
            scale = _SCALES[w]
            if last == "scale" and current == 0:
                return None
            total += (current or 1) * scale
            current = 0
            last = "scale"
    return total + current


def word_numbers(text: str) -> list[tuple[str, int | float]]:
    """Each number written in words in ``text``: (as written, its value).

    "twenty-five years" gives ("twenty-five", 25); "1.5 million" gives ("1.5 million",
    1500000); "one" alone is read too (the caller decides what a bare "one" means).
    """
    if not text:
        return []
    out: list[tuple[str, int | float]] = []
    for m in _RUN.finditer(text):
        s = m.group()
        head = s.split()[0]
        if head[:1].isdigit():
            num, scale = s.split()
            value: float = float(num) * _SCALES[scale.lower()]
            out.append((s, int(value) if value.is_integer() else value))
            continue
        words = [w for w in re.split(r"[\s-]+", s.lower()) if w not in ("and", "a", "an")]
        v = _value(words)
        if v is not None:
            out.append((s, v))
    return out
