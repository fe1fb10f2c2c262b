"""Deterministic abstention detector (English and Czech).

An abstention is a statement in which the respondent says they need to check, cannot access,
or are unsure what a source says — it makes no claim about the work's content. The detector
answers ``"yes"`` (clearly an abstention), ``"no"`` (no abstention marker) or ``"unclear"``
(a marker inside a statement that also asserts something; the judge decides those).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from typing import Literal

__all__ = ["AbstentionCheck", "detect_abstention"]

# Patterns are matched on lower-cased, diacritics-stripped text, so Czech forms are written
# without háčky/čárky here ("nemam pristup" matches "nemám přístup").
_EN = [
    r"\bi (?:would )?(?:need|have|want) to (?:check|verify|confirm|look (?:it )?up|consult|access|read|review|see)\b",
    r"\bi (?:cannot|can ?not|can't|am unable to|am not able to|could not|couldn't|was unable to) "
    r"(?:access|open|verify|confirm|check|read|retrieve|browse|view|find|locate|determine|say)\b",
    r"\bi (?:do not|don't|did not|didn't) have (?:direct |full |real-time |current )?access\b",
    r"\b(?:no|without) (?:direct |full )?access to (?:the )?(?:source|paper|article|full text|text|internet|web|database)",
    r"\bi(?:'m| am) (?:not (?:sure|certain)|unsure|uncertain) (?:what|whether|if|about|how|that)\b",
    r"\bi (?:do not|don't) know (?:what|whether|if|exactly)\b",
    r"\bi (?:cannot|can't|can not) (?:be (?:sure|certain)|guarantee)\b",
    r"\b(?:please|you should|you may want to|i recommend you?) (?:check|verify|consult|confirm)\b.*\b(?:source|paper|original|article)\b",
    r"\bwithout (?:checking|verifying|reading|access(?:ing)?) (?:the )?(?:source|paper|original|article|full text)\b",
    r"\bmy (?:knowledge|training data) (?:may|might|does|is)\b",
    r"\bi (?:would|will) need to (?:see|read|check)\b",
    r"\bunable to (?:verify|confirm|access)\b",
]
_CS = [
    r"\b(?:musel(?:a)? bych|potreboval(?:a)? bych|potrebuji|musim|je treba|bylo by treba) (?:si )?(?:to )?"
    r"(?:overit|zkontrolovat|dohledat|precist|nahlednout|potvrdit)",
    r"\bnemam (?:primy |plny )?pristup\b",
    r"\bnemohu (?:si )?(?:to )?(?:overit|otevrit|zkontrolovat|potvrdit|dohledat|precist|zjistit|rict)",
    r"\bnedokazu (?:to )?(?:overit|potvrdit|rict|zjistit|dohledat)",
    r"\bnejsem si (?:jist|jista|jisty)\b",
    r"\bnevim (?:presne |jiste )?(?:co|zda|jestli|jak)\b",
    r"\b(?:doporucuji|doporucuju) (?:si )?(?:to )?(?:overit|zkontrolovat|nahlednout)",
    r"\bbez (?:pristupu|overeni|nahlednuti)\b",
]
# Words that indicate an actual content claim about a work ("showed", "found", numbers...).
# "what the paper reports", "co článek uvádí": references to the source's content, not claims.
_INDIRECT = (
    r"\b(?:what|whether|if|how|co|zda|jestli|jak)\b[^.,;]{0,40}?\b(?:it|they|the \w+|clanek|zdroj|studie|autori)?\s*"
    r"(?:\w+\s){0,2}\w+(?:s|ed|i|e|uje|uji)?\b[^.,;]*"
)
_CLAIM_MARKERS = (
    r"\b(?:show(?:s|ed|n)?|found|find(?:s|ing)?|report(?:s|ed)?|demonstrat\w*|conclud\w*|propos\w*|"
    r"introduc\w*|increas\w*|decreas\w*|reduc\w*|improv\w*|achiev\w*|outperform\w*|"
    r"ukazal\w*|zjistil\w*|prokazal\w*|uvad\w*|navrh\w*|zvys\w*|sniz\w*)\b|\d+(?:\.\d+)?\s?%"
)


@cache
def _patterns() -> tuple[tuple[re.Pattern[str], ...], re.Pattern[str], re.Pattern[str]]:
    """The abstention markers, the indirect question and the claim markers, compiled.

    (On the first statement checked: an item without a claim, as most reference checks are,
    never pays for these 22 patterns.)
    """
    markers = tuple(re.compile(p) for p in _EN + _CS)
    return markers, re.compile(_INDIRECT), re.compile(_CLAIM_MARKERS)


@dataclass(frozen=True)
class AbstentionCheck:
    """Outcome of the detector: ``status`` and the phrase that triggered it, if any."""

    status: Literal["yes", "no", "unclear"]
    phrase: str | None = None


def _plain(text: str) -> str:
    s = unicodedata.normalize("NFKD", text)
    s = "".join(c for c in s if not unicodedata.combining(c))
    s = s.replace("\u2019", "'").replace("`", "'")
    return " ".join(s.lower().split())


def detect_abstention(text: str | None) -> AbstentionCheck:
    """Classify ``text`` as an abstention (``yes``), not one (``no``), or ``unclear``."""
    if not text or not text.strip():
        return AbstentionCheck("no")
    plain = _plain(text[:5000])
    markers, indirect, claim_markers = _patterns()
    for pat in markers:
        m = pat.search(plain)
        if m is None:
            continue
        phrase = m.group(0)
        # Remove the abstention clause; if what remains still asserts something, it is unclear.
        rest = (plain[: m.start()] + " " + plain[m.end() :]).strip()
        rest = indirect.sub(" ", rest)
        words = re.findall(r"[a-z]{3,}", rest)
        if claim_markers.search(rest) and len(words) >= 6:
            return AbstentionCheck("unclear", phrase)
        return AbstentionCheck("yes", phrase)
    return AbstentionCheck("no")
