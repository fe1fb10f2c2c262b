"""The passages of an evidence text a claim is judged against, and what of the claim they lack.

A web page or a full text is too long to judge a claim against as a whole: the CPU scorer's
features drown in it, and an LLM prompt grows with it. :func:`select_passages` finds the few
passages that matter, deterministically:

1. the evidence is cut into units (:func:`citejudge.text.split_units`: sentences that never cross
   a heading, list item or paragraph break); evidence of at most :data:`FEW_UNITS` units is one
   passage as it is;
2. every run of 1–:data:`MAX_WINDOW` consecutive units (plus at most one short line among them: a
   heading, a date line) is a candidate passage, scored by how much of the claim it covers
   (:func:`claim_terms`: content words, numbers and dates, capitalised names; numbers and names
   weigh more, and every term is weighted by how rare it is on the page);
3. the best :data:`CANDIDATES` candidates are scored by cosine with the claim too, when an
   ``embed`` function is given (the CPU scorer gives its embedder's);
4. :data:`TOP_PASSAGES` passages are picked greedily, each for the claim terms the passages before
   it did not cover yet (a claim whose parts are stated in different places of the page gets each
   place), never overlapping; they are returned in document order.

:func:`missing_terms` lists the numbers and dates of a claim that no selected passage holds:
content grounding reads one as "at most partially supported" (the specs' "No"). Names no passage
holds are listed too (``missing_names``) and weigh in the long-text scorer, but decide nothing by
themselves: a supported claim often names what its evidence paraphrases ("Duke of Sussex" for
"Prince Harry", an evidence sentence that says "he"), measured on 10-54% of the supported claims of
the English sets, against 2.6-5.8% for numbers and dates.

Measured on WiCE dev (``scripts/bench_support.py``, README "Content grounding over long texts").
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from citejudge.text import split_units
from citejudge.text.normalize import MONTHS
from citejudge.text.numwords import word_numbers

__all__ = [
    "CANDIDATES",
    "EMBED_UNITS",
    "FEW_UNITS",
    "LONG_CHARS",
    "MAX_WINDOW",
    "RULE_KINDS",
    "STOPWORDS",
    "TOP_PASSAGES",
    "ClaimTerms",
    "Embed",
    "EvidenceKind",
    "Passage",
    "PassageSelection",
    "Term",
    "TermKind",
    "TextKeys",
    "claim_terms",
    "coverage",
    "evidence_kind",
    "missing_terms",
    "normalise_number",
    "select_passages",
    "stem",
    "text_keys",
]

#: Evidence of at most this many units is one passage, as it is ("a few sentences").
FEW_UNITS = 3
#: Longest candidate passage, in units.
MAX_WINDOW = 3
#: Passages selected for a claim.
TOP_PASSAGES = 3
#: Candidates (best by claim coverage) that are also scored by cosine when an embedder is given.
#: On WiCE dev's supported claims, 40 candidates / 60 units keep the gold sentences of 80.9% in
#: the top 3 passages, 20 / 24 of 77.4% (fit part 84.1% both, test part 76.1% and 67.4%), and
#: 80 / 150 no more; a 30,000-character page stays far under a second (scripts/bench_longtext.py).
CANDIDATES = 40
#: At most this many units of those candidates are embedded (a passage's vector is the sum of its
#: units'): the embedder's cost per claim stays bounded however long the page is.
EMBED_UNITS = 60
#: Evidence longer than this (characters, whitespace collapsed) is a long text (a page, a full
#: text) rather than short evidence (a sentence, an abstract): it is judged with the long-text
#: calibration. Abstracts are 200-2,000 characters; WiCE's pages 1,200-100,000 (5% under 2,300).
LONG_CHARS = 2500

#: The weights of a claim term by kind, before its rarity on the page.
_WEIGHT = {"word": 1.0, "name": 3.0, "number": 3.0, "date": 3.0}
#: Greedy pick score: marginal coverage + _FULL x coverage + _COS x cosine + _LEN x units
#: + _CONTEXT x the new terms of the two neighbouring units.
_FULL = 0.3
_COS = 0.4
_LEN = 0.05
_CONTEXT = 0.5
#: Exponent of a term's rarity weight log(1 + units / (1 + units holding it)).
_IDF = 1.0
#: A candidate may hold this many short units (fewer than _SHORT_WORDS words: a heading, a date
#: line) beyond its MAX_WINDOW sentences.
_FREE_SHORT = 1
_SHORT_WORDS = 6

#: Words that carry no content (English and Czech function words).
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "and",
        "or",
        "but",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "by",
        "with",
        "from",
        "as",
        "that",
        "this",
        "these",
        "those",
        "it",
        "its",
        "into",
        "than",
        "then",
        "there",
        "their",
        "which",
        "who",
        "whom",
        "what",
        "when",
        "where",
        "how",
        "can",
        "could",
        "may",
        "might",
        "has",
        "have",
        "had",
        "do",
        "does",
        "did",
        "not",
        "no",
        "also",
        "such",
        "other",
        "more",
        "most",
        "less",
        "very",
        "about",
        "after",
        "before",
        "between",
        "during",
        "over",
        "under",
        "within",
        "without",
        "per",
        "vs",
        "via",
        "i",
        "je",
        "se",
        "na",
        "v",
        "ve",
        "z",
        "že",
        "s",
        "o",
        "k",
        "pro",
        "jako",
    ]
)

_TOKEN = re.compile(r"\w+", re.UNICODE)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_MONTHS = {m[:3]: m for m in MONTHS}
_MONTH_FORMS = frozenset([*_MONTHS.values(), *_MONTHS, "sept"])

#: Texts -> one L2-normalised vector each (rows), in order.
Embed = Callable[[Sequence[str]], "npt.NDArray[np.float64]"]
EvidenceKind = Literal["short", "long"]


def normalise_number(text: str) -> str:
    r"""One spelling per number (``text`` as matched by ``\d+(?:[.,]\d+)*``).

    Thousands separators go ("1,000", "1,000,000"), a decimal comma is a point ("2,5" is "2.5"),
    trailing decimal zeros and leading zeros go ("2.50" is "2.5", "007" is "7"); anything else with
    several separators (a date such as "1.5.2019") keeps its groups.
    """
    parts = re.split(r"[.,]", text)
    seps = set(re.findall(r"[.,]", text))
    if len(parts) > 1 and all(len(p) == 3 for p in parts[1:]) and (seps == {","} or len(parts) > 2):
        n = "".join(parts)
    elif len(parts) == 2:
        n = f"{parts[0]}.{parts[1].rstrip('0')}".rstrip(".")
    else:
        n = ".".join(parts)
    head, dot, tail = n.partition(".")
    return (head.lstrip("0") or "0") + dot + tail


def stem(token: str) -> str:
    """A token's matching key: its first five letters, lower-cased.

    Month names and their abbreviations share one key ("Aug" is "August").
    """
    t = token.lower()
    if t in _MONTH_FORMS:
        return "month:" + t[:3]
    return t[:5]


def _has_digit(token: str) -> bool:
    return any(c.isdigit() for c in token)


_YEAR_SPAN = re.compile(r"\b(\d{2})(\d{2})\s*[-–—/]\s*(\d{2})\b")
#: Pronouns and possessives: content words for the scorer's overlap, but no term of a claim.
_PRONOUNS = frozenset(
    ["he", "she", "they", "his", "her", "hers", "him", "them", "we", "our", "us", "you", "your"]
)


def _numbers(text: str) -> dict[str, str]:
    """The numbers of ``text``: normalised form -> first spelling.

    A season or span "2010–11" also gives "2011" (spelt "2010–11"); a number written in words
    gives its digits ("twenty-five" gives "25", "1.5 million" gives "1500000").
    """
    found: dict[str, str] = {}
    for m in _NUMBER.finditer(text):
        found.setdefault(normalise_number(m.group()), m.group())
    for m in _YEAR_SPAN.finditer(text):
        found.setdefault(m.group(1) + m.group(3), m.group())
    for spelt, value in word_numbers(text):
        found.setdefault(normalise_number(str(value)), spelt)
    return found


def _claim_numbers(claim: str) -> dict[str, str]:
    """:func:`_numbers` of a claim that are quantities or dates.

    Left out: the two-digit end of a year span ("11" of "2010–11", which gives "2011"), and the
    digits of a name written with them ("COVID-19", "SARS-CoV-2", "IL-6", "H1N1": a number right
    after a letter or a letter and a hyphen).
    """
    found: dict[str, str] = {}
    for m in _NUMBER.finditer(claim):
        before = claim[max(0, m.start() - 2) : m.start()]
        if before[-1:].isalpha() or (before[-1:] == "-" and before[:1].isalpha()):
            continue
        found.setdefault(normalise_number(m.group()), m.group())
    for m in _YEAR_SPAN.finditer(claim):
        found.pop(normalise_number(m.group(3)), None)
        found.setdefault(m.group(1) + m.group(3), m.group())
    return found


@dataclass(frozen=True)
class TextKeys:
    """What a text holds, as terms are matched against it (:func:`text_keys`)."""

    #: :func:`stem` of each token without digits.
    stems: frozenset[str]
    #: The normalised numbers.
    numbers: frozenset[str]
    #: The initial of every content word, in order ("natural language processing" -> "nlp").
    initials: str


TermKind = Literal["word", "name", "number", "date"]


@dataclass(frozen=True)
class Term:
    """One thing a claim says that its evidence must hold: a content word, a name, a number or a date.

    A date is a month name (its day and year are numbers).
    """

    kind: TermKind
    #: The matching key: a :func:`stem` or a normalised number.
    key: str
    #: The claim's own spelling.
    surface: str

    @property
    def acronym(self) -> bool:
        """An all-capitals word of 2-6 letters ("NLP", "NASA"): also found spelt out."""
        return 2 <= len(self.surface) <= 6 and self.surface.isalpha() and self.surface.isupper()

    def found_in(self, keys: TextKeys) -> bool:
        """Whether a text with these keys holds this term (an acronym also by its spelt-out words)."""
        if self.kind == "number":
            return self.key in keys.numbers
        return self.key in keys.stems or (self.acronym and self.surface.lower() in keys.initials)


ClaimTerms = tuple[Term, ...]


def text_keys(text: str) -> TextKeys:
    """The stems, numbers and content-word initials of a text."""
    tokens = [t for t in _TOKEN.findall(text) if not _has_digit(t)]
    return TextKeys(
        frozenset(stem(t) for t in tokens),
        frozenset(_numbers(text)),
        "".join(t[0].lower() for t in tokens if t.lower() not in STOPWORDS),
    )


def claim_terms(claim: str) -> ClaimTerms:
    """The terms of a claim, in order of first appearance, one per key.

    Numbers (digits, see :func:`_claim_numbers`); dates (month names, wherever they stand); names:
    capitalised words that do not start a sentence (a sentence's first word counts as a plain word:
    "Instead", "During" are not names, and a name there is still matched as a word); content words:
    the other tokens that are neither :data:`STOPWORDS` nor pronouns, at least two letters long.
    """
    from citejudge.text import split_sentences

    terms: dict[str, Term] = {}
    for n, spelt in _claim_numbers(claim).items():
        terms.setdefault("#" + n, Term("number", n, spelt))
    for sentence in split_sentences(claim) or [claim]:
        for i, tok in enumerate(_TOKEN.findall(sentence)):
            low = tok.lower()
            if _has_digit(tok) or low in STOPWORDS or low in _PRONOUNS or len(tok) < 2:
                continue
            key = stem(tok)
            kind: TermKind = "word"
            if key.startswith("month:"):
                kind = "date"
            elif i > 0 and tok[0].isupper():
                kind = "name"
            old = terms.get(key)
            if old is None or (kind != "word" and old.kind == "word"):
                terms[key] = Term(kind, key, tok)
    return tuple(terms.values())


#: The terms the claim-coverage rule requires of the passages: numbers and dates.
RULE_KINDS: frozenset[TermKind] = frozenset(["number", "date"])
_NAMES: frozenset[TermKind] = frozenset(["name"])


def missing_terms(
    terms: ClaimTerms, texts: Sequence[str], kinds: frozenset[TermKind] = RULE_KINDS
) -> tuple[str, ...]:
    """The terms of these ``kinds`` (numbers and dates) that none of ``texts`` holds (claim spelling)."""
    keys = [text_keys(t) for t in texts]
    return tuple(
        t.surface for t in terms if t.kind in kinds and not any(t.found_in(k) for k in keys)
    )


def coverage(terms: ClaimTerms, text: str) -> float:
    """Share of the claim's terms ``text`` holds, numbers and names weighing more (0-1; 0 for no terms)."""
    keys = text_keys(text)
    weight = sum(_WEIGHT[t.kind] for t in terms)
    return sum(_WEIGHT[t.kind] for t in terms if t.found_in(keys)) / weight if weight else 0.0


def evidence_kind(evidence: str, long_chars: int = LONG_CHARS) -> EvidenceKind:
    """The kind of an evidence text: "long" (a page, a full text) over :data:`LONG_CHARS` characters."""
    return "long" if len(" ".join(evidence.split())) > long_chars else "short"


@dataclass(frozen=True)
class Passage:
    """A run of consecutive evidence units chosen for a claim."""

    #: The first unit and one past the last (indices into :func:`~citejudge.text.split_units`).
    start: int
    end: int
    text: str
    #: Weighted share of the claim's terms the passage holds (0-1).
    coverage: float
    #: Cosine with the claim (None without an embedder).
    similarity: float | None = None


@dataclass(frozen=True)
class PassageSelection:
    """The passages a claim is judged against, and the claim's numbers and names they lack."""

    kind: EvidenceKind
    #: How many units the evidence has.
    units: int
    #: In document order.
    passages: tuple[Passage, ...]
    #: Numbers and dates of the claim found in no passage (claim spelling): the coverage rule's finds.
    missing: tuple[str, ...]
    #: Length of the evidence (characters, whitespace collapsed).
    evidence_chars: int
    #: Cosine of the claim with all passages together (None without an embedder).
    similarity: float | None = None
    #: Names of the claim found in no passage (claim spelling).
    missing_names: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """The passages, one per line."""
        return "\n".join(p.text for p in self.passages)

    @property
    def selected_chars(self) -> int:
        """Length of the passages' text."""
        return sum(len(p.text) for p in self.passages)

    def record(self) -> dict[str, Any]:
        """What ``details`` show about the selection."""
        return {
            "kind": self.kind,
            "units": self.units,
            "passages": [
                {
                    "units": [p.start, p.end],
                    "coverage": round(p.coverage, 4),
                    **({"similarity": round(p.similarity, 4)} if p.similarity is not None else {}),
                    "text": p.text,
                }
                for p in self.passages
            ],
            "missing": list(self.missing),
            "missing_names": list(self.missing_names),
            "chars": {"evidence": self.evidence_chars, "selected": self.selected_chars},
        }


def _weight_of(mask: int, weights: Sequence[float]) -> float:
    total = 0.0
    i = 0
    while mask:
        if mask & 1:
            total += weights[i]
        mask >>= 1
        i += 1
    return total


def _unit_vector(vectors: Sequence[npt.NDArray[np.float64]]) -> npt.NDArray[np.float64]:
    total = np.sum(vectors, axis=0)
    norm = float(np.linalg.norm(total))
    return np.asarray(total / norm if norm else total, dtype=np.float64)


def select_passages(
    claim: str,
    evidence: str,
    embed: Embed | None = None,
    k: int = TOP_PASSAGES,
    long_chars: int = LONG_CHARS,
) -> PassageSelection:
    """The passages of ``evidence`` to judge ``claim`` against (see the module docstring).

    ``embed`` (texts -> one L2-normalised row each) ranks the best candidates by cosine with the
    claim too: the claim and the units of the best :data:`CANDIDATES` candidates (at most
    :data:`EMBED_UNITS`) are embedded in one call, a passage's vector is the normalised sum of
    its units' vectors. ``long_chars`` sets the selection's :func:`evidence_kind`.
    """
    kind = evidence_kind(evidence, long_chars)
    chars = len(" ".join(evidence.split()))
    terms = claim_terms(claim)
    units = split_units(evidence)
    n = len(units)
    if n <= FEW_UNITS:
        text = " ".join(evidence.split())
        passage = Passage(0, n, text, coverage(terms, text))
        if embed is not None and text:
            vec = embed([claim, text])
            passage = replace(passage, similarity=float(vec[1] @ vec[0]))
        return PassageSelection(
            kind,
            n,
            (passage,) if text else (),
            missing_terms(terms, [text]),
            chars,
            passage.similarity,
            missing_terms(terms, [text], _NAMES),
        )
    keys = [text_keys(u) for u in units]
    masks = [sum(1 << j for j, t in enumerate(terms) if t.found_in(key)) for key in keys]
    weights = [
        _WEIGHT[t.kind] * math.log(1 + n / (1 + sum(1 for m in masks if m >> j & 1))) ** _IDF
        for j, t in enumerate(terms)
    ]
    total = sum(weights) or 1.0
    spans: list[tuple[int, int, int]] = []  # (start, end, mask)
    short = [len(u.split()) < _SHORT_WORDS for u in units]
    for i in range(n):
        mask = 0
        real = free = 0
        for end in range(i + 1, n + 1):
            if short[end - 1] and free < _FREE_SHORT:
                free += 1
            else:
                real += 1
            if real > MAX_WINDOW:
                break
            mask |= masks[end - 1]
            spans.append((i, end, mask))
    full = {(i, e): _weight_of(m, weights) / total for i, e, m in spans}
    vectors: dict[int, npt.NDArray[np.float64]] = {}
    claim_vec: npt.NDArray[np.float64] | None = None
    cos: dict[tuple[int, int], float] = {}
    if embed is not None:
        ranked = sorted(spans, key=lambda s: (-(full[s[:2]] + _LEN * (s[1] - s[0])), s[0], s[1]))
        wanted: list[int] = []
        for i, e, _ in ranked[:CANDIDATES]:
            wanted.extend(u for u in range(i, e) if u not in wanted)
        wanted = wanted[:EMBED_UNITS]
        vec = embed([claim, *(units[u] for u in wanted)])
        claim_vec = vec[0]
        vectors = {u: vec[j + 1] for j, u in enumerate(wanted)}
        for i, e, _ in ranked[:CANDIDATES]:
            if all(u in vectors for u in range(i, e)):
                cos[(i, e)] = float(_unit_vector([vectors[u] for u in range(i, e)]) @ claim_vec)
    floor = min(cos.values()) if cos else 0.0
    chosen: list[tuple[int, int, int]] = []
    covered = 0
    for _ in range(min(k, n)):
        best: tuple[tuple[float, int, int], tuple[int, int, int]] | None = None
        for i, e, m in spans:
            if any(i < ce and cs < e for cs, ce, _ in chosen):
                continue
            gain = _weight_of(m & ~covered, weights) / total
            around = (masks[i - 1] if i > 0 else 0) | (masks[e] if e < n else 0)
            context = _weight_of(around & ~m & ~covered, weights) / total
            score = (
                gain
                + _FULL * full[(i, e)]
                + _COS * cos.get((i, e), floor)
                + _LEN * (e - i)
                + _CONTEXT * context
            )
            key = (round(score, 9), -i, i - e)
            if best is None or key > best[0]:
                best = (key, (i, e, m))
        if best is None:
            break
        chosen.append(best[1])
        covered |= best[1][2]
    chosen.sort()
    joined: float | None = None
    sims: list[float | None] = [None] * len(chosen)
    if embed is not None and claim_vec is not None:
        rest = [u for i, e, _ in chosen for u in range(i, e) if u not in vectors]
        if rest:
            more = embed([units[u] for u in rest])
            vectors.update(zip(rest, more, strict=True))
        sims = [
            float(_unit_vector([vectors[u] for u in range(i, e)]) @ claim_vec) for i, e, _ in chosen
        ]
        joined = float(
            _unit_vector([vectors[u] for i, e, _ in chosen for u in range(i, e)]) @ claim_vec
        )
    passages = tuple(
        Passage(i, e, " ".join(units[i:e]), full[(i, e)], sim)
        for (i, e, _), sim in zip(chosen, sims, strict=True)
    )
    texts = [p.text for p in passages]
    return PassageSelection(
        kind,
        n,
        passages,
        missing_terms(terms, texts),
        chars,
        joined,
        missing_terms(terms, texts, _NAMES),
    )
