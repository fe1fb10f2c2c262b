"""Numbers written in words (``citejudge.text.numwords``)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citejudge.text.numwords import word_numbers

_UNITS = [
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
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def _below_1000(n: int, hyphen: bool, with_and: bool) -> str:
    words = []
    if n >= 100:
        words.append(f"{_UNITS[n // 100]} hundred")
        n %= 100
        if n and with_and:
            words.append("and")
    if n >= 20:
        words.append(
            _TENS[n // 10 - 2] + (("-" if hyphen else " ") + _UNITS[n % 10] if n % 10 else "")
        )
    elif n or not words:
        words.append(_UNITS[n])
    return " ".join(words)


def spell(n: int, hyphen: bool = True, with_and: bool = False) -> str:
    """How an English text spells ``n`` (0 <= n < 10**12), written independently of the reader."""
    if n == 0:
        return "zero"
    parts = []
    for scale, name in ((10**9, "billion"), (10**6, "million"), (10**3, "thousand")):
        if n >= scale:
            parts.append(f"{_below_1000(n // scale, hyphen, with_and)} {name}")
            n %= scale
    if n:
        parts.append(_below_1000(n, hyphen, with_and))
    return " ".join(parts)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 999_999_999_999), st.booleans(), st.booleans())
def test_every_spelt_number_reads_back(n: int, hyphen: bool, with_and: bool) -> None:
    text = spell(n, hyphen, with_and)
    assert word_numbers(f"It took {text} years.") == [(text, n)]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("traced over twenty-five years", [("twenty-five", 25)]),
        ("a thousand discrete time steps", [("a thousand", 1000)]),
        (
            "some 1.5 million users and 2 billion devices",
            [("1.5 million", 1_500_000), ("2 billion", 2_000_000_000)],
        ),
        ("Twenty-Five Years of ImageJ", [("Twenty-Five", 25)]),
        # no number: two numbers run together, a scale twice, nothing at all
        ("ten hundred", []),
        ("a million million", []),
        ("a tone of voice", []),
    ],
)
def test_word_numbers(text: str, found: list[tuple[str, int]]) -> None:
    assert word_numbers(text) == found
