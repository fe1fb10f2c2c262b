"""Looking for a quote in a text, piece by piece, the way people write quotes.

A ``cited_content`` is often several sentences of its source, in order or not, joined by spaces,
"…" or "[…]", lightly edited. :func:`quote_pieces` cuts it where the writer cut it: at ellipses,
then into the units of :func:`citejudge.text.split_units` (sentences, lines). :func:`check_quote`
looks for the whole quote and for each piece in one :class:`PreparedText`:

* both are folded (:func:`citejudge.text.fold`: case, diacritics, markup, punctuation); the text
  is read line by line (a word cut by a line-break hyphen joined again), and where its lines and
  sentences start and end is kept;
* a folded substring scores 100 (exact);
* otherwise the score is the larger of two alignments: rapidfuzz ``partial_ratio`` of the piece
  against windows of the text (what a single quote always got), and a **cover**: the quote's
  words are covered greedily by the longest runs of :data:`GRAM` or more words found in the text
  (or by a whole line of fewer words), and a piece scores the covered share of its characters
  less what each seam between two runs costs: nothing when they are whole lines or sentences of
  the text the writer joined, :data:`DROPPED_WORD_COST` where the writer left out a word or two,
  :data:`SEGMENT_COST` elsewhere; a changed word is left uncovered;
* a piece counts as found from :data:`QUOTE_FOUND` up; a word cut by "- " ("regu- larization",
  a PDF copy) is also tried joined.

The quote is found when its folded whole is in the text, when every piece is found, or, for a
quote without ellipses of at most :data:`WHOLE_QUOTE_CHARS` characters whose runs follow the
text's order, when the whole quote's ``partial_ratio`` around them reaches the threshold (a
contiguous passage lightly edited, aligned whole as a single quote always was). The quote's score
is its lowest piece score (the whole's score when that decided). For a piece not found,
:meth:`QuoteCheck.rest` tells what of it the text lacks (what is then looked for elsewhere).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from functools import cached_property

from rapidfuzz import fuzz

from citejudge.text import fold, split_sentences, split_units

__all__ = [
    "DROPPED_WORD_COST",
    "GRAM",
    "MAX_TEXT_CHARS",
    "QUOTE_FOUND",
    "SEGMENT_COST",
    "WHOLE_QUOTE_CHARS",
    "Piece",
    "PreparedText",
    "QuoteCheck",
    "QuoteMatch",
    "check_quote",
    "find_quote",
    "quote_pieces",
    "search_piece",
]

#: Folded-quote similarity (0-100) from which a quote (or a piece of it) counts as found in a text.
QUOTE_FOUND = 90.0
#: Texts longer than this are searched in their first part only.
MAX_TEXT_CHARS = 400_000
#: Words in the shortest run a cover uses (and in the quote index's shingles).
GRAM = 3
#: Characters a cover pays for each run after the first (about one short edited word).
SEGMENT_COST = 8.0
#: Characters a cover pays where the writer left out a word or two of the text.
DROPPED_WORD_COST = 2.0
#: A quote without ellipses up to this long is also aligned whole when its pieces are not all found.
WHOLE_QUOTE_CHARS = 1000
#: Pieces (and ellipsis parts) shorter than this, folded, are not looked for on their own.
MIN_PIECE = 12
#: Positions of one run tried at most when covering (a common phrase occurs many times).
_MAX_RUN_STARTS = 64
#: Pieces longer than this are aligned around their cover's runs, not over the whole text.
_LONG_PIECE = 600
_ELLIPSIS = re.compile(r"\s*(?:\.\s?\.\s?\.|…|[\[(]\s*(?:\.\.\.|…)\s*[\])])\s*")
# A word cut at a line end and pasted with its hyphen ("regu- larization", a PDF copy).
_CUT_WORD = re.compile(r"(?<=[^\W\d_])- (?=[a-z])")
#: Runs shorter than this are chance phrases when telling which words of a piece a text lacks.
LONG_RUN = 6


@dataclass(frozen=True)
class QuoteMatch:
    """Where a quote stands against a text: its best similarity (0-100) and whether it is found."""

    found: bool
    score: float
    exact: bool


@dataclass(frozen=True)
class Piece:
    """One piece of a quote: its 1-based position, its text as written, and its folded form."""

    index: int
    text: str
    folded: str

    @property
    def words(self) -> list[str]:
        """The folded piece's words."""
        return self.folded.split()


def _logical_lines(text: str) -> list[str]:
    """The text's lines, whitespace collapsed; a word cut by a line-break hyphen is joined again.

    The rule of :func:`citejudge.text.split_units`: a line ending in a letter and "-" before a
    line starting with a small letter goes on it ("regular-" + "ization"); the hyphen stays when
    the word already holds one ("state-of-the-" + "art").
    """
    out: list[str] = []
    glue = False
    for raw in text.splitlines():
        line = " ".join(raw.split())
        if glue and line[:1].islower():
            last = out[-1].rsplit(" ", 1)[-1]
            out[-1] = (out[-1] if "-" in last[:-1] else out[-1][:-1]) + line
        else:
            out.append(line)
        tail = out[-1].rsplit(" ", 1)[-1] if out[-1] else ""
        glue = tail.endswith("-") and tail[-2:-1].isalpha()
    return out


class PreparedText:
    """A text ready for quote search: folded once, its word runs indexed on first need.

    The text is read line by line (a word cut by a line-break hyphen joined again) and each line
    sentence by sentence (:func:`citejudge.text.split_sentences`); where a line or a sentence
    starts and ends is kept (:attr:`bounds`): a quote that glues two of them together pays nothing
    for the join. Every line end counts, not only the ends of :func:`citejudge.text.split_units`:
    a crawled page is saved one sentence or fragment a line, and a writer copies those.
    """

    def __init__(self, text: str) -> None:
        words: list[str] = []
        bounds = {0}
        for line in _logical_lines(text[:MAX_TEXT_CHARS]):
            for sentence in split_sentences(line):
                f = fold(sentence)
                if f:
                    words += f.split()
                    bounds.add(len(words))
        self.words = words
        #: Word positions where a line or sentence starts or ends.
        self.bounds = bounds
        self.folded = " ".join(words)

    @cached_property
    def starts(self) -> list[int]:
        """Character offset of each word in :attr:`folded`."""
        out: list[int] = []
        pos = 0
        for w in self.words:
            out.append(pos)
            pos += len(w) + 1
        return out

    @cached_property
    def grams(self) -> dict[tuple[str, ...], list[int]]:
        """Word position(s) of every run of :data:`GRAM` words."""
        out: dict[tuple[str, ...], list[int]] = {}
        w = self.words
        for i in range(len(w) - GRAM + 1):
            out.setdefault(tuple(w[i : i + GRAM]), []).append(i)
        return out

    @cached_property
    def short_units(self) -> dict[tuple[str, ...], list[int]]:
        """Word position(s) of every unit shorter than :data:`GRAM` words ("# About me", a date line)."""
        out: dict[tuple[str, ...], list[int]] = {}
        edges = sorted(self.bounds)
        for a, b in itertools.pairwise(edges):
            if b - a < GRAM:
                out.setdefault(tuple(self.words[a:b]), []).append(a)
        return out


def quote_pieces(quote: str) -> list[Piece]:
    """The pieces of ``quote``: its ellipsis-separated parts cut into units, short ones merged.

    A unit shorter than :data:`MIN_PIECE` folded characters joins the unit before it (or the one
    after it, at the start of a part); a part that short is left out, as are empty ones. A quote
    with no part long enough is one piece, the whole quote.
    """
    out: list[str] = []
    for part in _ELLIPSIS.split(quote):
        if len(fold(part)) < MIN_PIECE:
            continue
        units: list[str] = []
        carry = ""
        for unit in split_units(part):
            unit = f"{carry} {unit}".strip() if carry else unit
            carry = ""
            if len(fold(unit)) >= MIN_PIECE:
                units.append(unit)
            elif units:
                units[-1] = f"{units[-1]} {unit}"
            else:
                carry = unit
        if carry:
            units.append(carry)  # every unit was short: the part is one piece
        out.extend(units)
    if not out:
        whole = " ".join(quote.split())
        return [Piece(1, whole, fold(whole))] if fold(whole) else []
    return [Piece(i, t, fold(t)) for i, t in enumerate(out, start=1)]


def _best_partial(q: str, text: str) -> float:
    """The rapidfuzz ``partial_ratio`` of ``q`` against ``text``, in overlapping windows on long texts."""
    if not q or not text:
        return 0.0
    if q in text:
        return 100.0
    if len(text) < len(q):
        # partial_ratio would align the text inside the quote: a short page that is part of a
        # quote does not hold the quote
        return float(fuzz.ratio(q, text, processor=None, score_cutoff=0))
    if len(text) <= 4 * len(q) + 200:
        return float(fuzz.partial_ratio(q, text, processor=None, score_cutoff=0))
    # Overlapping windows keep partial_ratio cheap on long texts; every window is at least as
    # long as the quote (a shorter one would be aligned inside the quote instead), the last one
    # ends where the text ends.
    size = 2 * len(q) + 50
    step = max(len(q), 1)
    last = len(text) - len(q)
    best = 0.0
    for start in [*range(0, last, step), last]:
        win = text[start : start + size]
        s = fuzz.partial_ratio(q, win, processor=None, score_cutoff=best)
        if s > best:
            best = float(s)
            if best >= 100.0:
                break
    return best


#: A run of a cover: (first word in the quote, first word in the text, length in words).
Run = tuple[int, int, int]


def _runs(words: list[str], text: PreparedText, cuts: frozenset[int] = frozenset()) -> list[Run]:
    """Cover ``words`` greedily, left to right, by the longest runs of GRAM+ words found in ``text``.

    Where no such run starts, a whole line or sentence of the text of fewer words may cover the
    words. Among runs of one length the one that joins the run before it best wins (see
    :func:`_junction`), then one that starts a line or sentence, then the first. A run stops
    where the quote is cut (``cuts``: where its pieces start) if the text's line or sentence ends
    there too: the next piece starts its own run.
    """
    grams = text.grams
    tw = text.words
    n = len(words)
    runs: list[Run] = []
    i = 0
    while i < n:
        prev = runs[-1] if runs else None
        starts = grams.get(tuple(words[i : i + GRAM])) if i <= n - GRAM else None
        options: list[Run] = []
        if starts:
            for p in starts[:_MAX_RUN_STARTS]:
                k = GRAM
                while (
                    i + k < n
                    and p + k < len(tw)
                    and tw[p + k] == words[i + k]
                    and not (i + k in cuts and p + k in text.bounds)
                ):
                    k += 1
                options.append((i, p, k))
        else:
            # a line or sentence of the text too short for a run, taken whole
            for m in range(GRAM - 1, 0, -1):
                short = text.short_units.get(tuple(words[i : i + m])) if i + m <= n else None
                if short:
                    options = [(i, p, m) for p in short[:_MAX_RUN_STARTS]]
                    break
        if not options:
            i += 1
            continue
        best = max(
            options,
            key=lambda r: (
                r[2],
                -_junction(prev, r, text) if prev is not None else 0.0,
                r[1] in text.bounds,
                -r[1],
            ),
        )
        runs.append(best)
        i += best[2]
    return runs


def _junction(prev: Run, run: Run, text: PreparedText) -> float:
    """What the cover pays where ``run`` follows ``prev`` (see :func:`_cover_score`)."""
    if prev[0] + prev[2] != run[0]:
        return SEGMENT_COST  # words between them are not in the text
    end = prev[1] + prev[2]
    if end in text.bounds and run[1] in text.bounds:
        return 0.0  # two whole lines or sentences of the text, joined
    if 1 <= run[1] - end <= 2:
        return DROPPED_WORD_COST  # the writer left out a word or two
    return SEGMENT_COST


def _cover_score(words: list[str], a: int, b: int, runs: list[Run], text: PreparedText) -> float:
    """The cover score of the words ``a:b`` of a quote's ``words`` given the quote's ``runs``.

    The share of the piece's characters (a word and the space after it) that runs cover, less
    what each run after the piece's first pays for its junction with the run before it: nothing
    when the two follow each other in the quote and are whole lines or sentences of the text (the
    writer joined them), :data:`DROPPED_WORD_COST` when they follow each other in the quote and
    one or two words of the text lie between them (the writer dropped a word), else
    :data:`SEGMENT_COST`.
    """
    total = sum(len(w) + 1 for w in words[a:b])
    if not total:
        return 0.0
    covered = 0
    cost = 0.0
    prev: Run | None = None
    for run in runs:
        i, _, k = run
        lo, hi = max(i, a), min(i + k, b)
        if lo >= hi:
            continue
        covered += sum(len(w) + 1 for w in words[lo:hi])
        if prev is not None:
            cost += _junction(prev, run, text)
        prev = run
    return max(0.0, 100.0 * (covered - cost) / total)


def _local(runs: list[Run], a: int, b: int) -> list[Run]:
    """The parts of a quote's ``runs`` inside its words ``a:b``, numbered from ``a``."""
    out: list[Run] = []
    for i, p, k in runs:
        lo, hi = max(i, a), min(i + k, b)
        if lo < hi:
            out.append((lo - a, p + lo - i, hi - lo))
    return out


def _anchored_partial(piece: str, text: PreparedText, runs: list[Run]) -> float:
    """``partial_ratio`` of a long piece against the text around its longest run only."""
    if not runs:
        return 0.0
    i, p, _ = max(runs, key=lambda r: r[2])
    offset = len(" ".join(piece.split()[:i])) + (1 if i else 0)
    start = max(text.starts[p] - offset - 50, 0)
    return float(
        fuzz.partial_ratio(
            piece, text.folded[start : start + len(piece) + 100], processor=None, score_cutoff=0
        )
    )


def _piece_match(
    piece: str, cover: float, runs: list[Run], text: PreparedText, threshold: float
) -> QuoteMatch:
    """A piece not found exactly: the better of its cover and its partial_ratio alignment."""
    if len(piece) > _LONG_PIECE:
        partial = _anchored_partial(piece, text, runs)
    else:
        partial = _best_partial(piece, text.folded)
    score = round(max(cover, partial), 1)
    return QuoteMatch(score >= threshold, score, False)


def search_piece(folded: str, text: PreparedText, threshold: float = QUOTE_FOUND) -> QuoteMatch:
    """Look for one folded piece in ``text`` (exact, else the better of partial_ratio and cover)."""
    if not folded or not text.folded:
        return QuoteMatch(False, 0.0, False)
    if folded in text.folded:
        return QuoteMatch(True, 100.0, True)
    words = folded.split()
    runs = _runs(words, text)
    return _piece_match(
        folded, _cover_score(words, 0, len(words), runs, text), runs, text, threshold
    )


@dataclass(frozen=True)
class QuoteCheck:
    """A quote against one text: each piece's match, and the quote's (``whole``)."""

    pieces: list[Piece]
    matches: list[QuoteMatch]
    whole: QuoteMatch
    #: For each piece, its longest stretch of words (folded) no run of :data:`LONG_RUN` or more
    #: words of the text covers: what of the piece the text lacks (the whole piece when none does).
    rests: list[str] = field(default_factory=list)

    @property
    def missing(self) -> list[tuple[Piece, QuoteMatch]]:
        """The pieces not found, with their best match (none when the whole quote is found)."""
        if self.whole.found:
            return []
        return [(p, m) for p, m in zip(self.pieces, self.matches, strict=True) if not m.found]

    def rest(self, piece: Piece) -> str:
        """What of ``piece`` the text lacks (see :attr:`rests`)."""
        return self.rests[piece.index - 1] if self.rests else piece.folded

    def _rank(self) -> tuple[bool, int, float]:
        return (self.whole.found, sum(m.found for m in self.matches), self.whole.score)


def _rests(words: list[str], pieces: list[Piece], runs: list[Run], text: PreparedText) -> list[str]:
    """Each piece's longest stretch of words no run of LONG_RUN+ words or whole line covers."""
    covered = [False] * len(words)
    for i, at, k in runs:
        if k >= LONG_RUN or (at in text.bounds and at + k in text.bounds):
            covered[i : i + k] = [True] * k
    out: list[str] = []
    a = 0
    for piece in pieces:
        b = a + len(piece.words)
        best: list[str] = []
        cur: list[str] = []
        for j in range(a, b + 1):
            if j < b and not covered[j]:
                cur.append(words[j])
            else:
                if len(" ".join(cur)) > len(" ".join(best)):
                    best = cur
                cur = []
        out.append(" ".join(best) if best else piece.folded)
        a = b
    return out


def _whole_partial(whole: str, runs: list[Run], text: PreparedText, n: int) -> float:
    """``partial_ratio`` of the whole quote around its runs, when they run in the text's order."""
    if not runs or any(b[1] < a[1] + a[2] for a, b in itertools.pairwise(runs)):
        return 0.0
    first, last = runs[0], runs[-1]
    if last[1] + last[2] - first[1] > 1.5 * n + 10:
        return 0.0
    start = max(text.starts[first[1]] - len(" ".join(["x"] * first[0])) - 50, 0)
    window = text.folded[start : start + len(whole) + 100]
    if len(window) < len(whole):
        return float(fuzz.ratio(whole, window, processor=None, score_cutoff=0))
    return float(fuzz.partial_ratio(whole, window, processor=None, score_cutoff=0))


def check_quote(quote: str, text: PreparedText, threshold: float = QUOTE_FOUND) -> QuoteCheck:
    """Look for ``quote`` in ``text`` whole and piece by piece (see the module docstring).

    A word cut by a line-break hyphen ("regu- larization") is also tried joined; the better
    reading counts.
    """
    found = _check(quote, text, threshold)
    joined = _CUT_WORD.sub("", quote)
    if joined != quote and not found.whole.found:
        other = _check(joined, text, threshold)
        if other._rank() > found._rank():
            return other
    return found


def _check(quote: str, text: PreparedText, threshold: float) -> QuoteCheck:
    pieces = quote_pieces(quote)
    if not pieces or not text.folded:
        zero = QuoteMatch(False, 0.0, False)
        return QuoteCheck(pieces, [zero] * len(pieces), zero)
    whole = fold(quote)
    if whole and whole in text.folded:
        verbatim = QuoteMatch(True, 100.0, True)
        return QuoteCheck(pieces, [verbatim] * len(pieces), verbatim)
    # one cover of the whole quote: a run may go on from one piece into the next
    words = [w for p in pieces for w in p.words]
    cuts = frozenset(itertools.accumulate(len(p.words) for p in pieces[:-1]))
    runs = _runs(words, text, cuts)
    matches: list[QuoteMatch] = []
    a = 0
    for p in pieces:
        b = a + len(p.words)
        if p.folded in text.folded:
            matches.append(QuoteMatch(True, 100.0, True))
        else:
            cover = _cover_score(words, a, b, runs, text)
            matches.append(_piece_match(p.folded, cover, _local(runs, a, b), text, threshold))
        a = b
    score = min(m.score for m in matches)
    if all(m.found for m in matches):
        exact = all(m.exact for m in matches)
        return QuoteCheck(pieces, matches, QuoteMatch(True, score, exact))
    rests = _rests(words, pieces, runs, text)
    if len(pieces) > 1 and len(whole) <= WHOLE_QUOTE_CHARS and not _ELLIPSIS.search(quote):
        # a contiguous passage lightly edited, as a single quote was always aligned
        s = _whole_partial(whole, runs, text, len(words))
        if s >= threshold:
            return QuoteCheck(pieces, matches, QuoteMatch(True, round(s, 1), False), rests)
    return QuoteCheck(pieces, matches, QuoteMatch(False, score, False), rests)


def find_quote(quote: str, text: str, threshold: float = QUOTE_FOUND) -> QuoteMatch:
    """Look for ``quote`` in ``text`` (folded; exact substring, else alignment piece by piece)."""
    return check_quote(quote, PreparedText(text), threshold).whole
