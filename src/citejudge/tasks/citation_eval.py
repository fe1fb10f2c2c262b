"""The ``citation-eval`` task: citation support (judged), source verification (offline), answer correctness.

Decisions, each a rule in code:

* **Source verification** is deterministic first (:mod:`citejudge.sources`): the source resolves
  through the index and/or the local source store (``--fulltext DIR``); the cited content is
  looked for in the resolved text (stored full text or page, else the abstract), whole and piece by
  piece (its pieces: the parts between ellipses, cut into sentences and lines,
  :func:`~citejudge.sources.quote_pieces`). VERIFIED when the whole or every piece is found (folded
  substring, or alignment ≥ 90; ``details...quote`` gives the pieces, the share found and the pieces
  not found); LIKELY_FABRICATED when the identifier resolves to a different work than the one the
  source names, or identifiers resolve to different works, or when a piece the stated source's
  text does not hold is in another source (another source of the same answer, a text of the source
  store or an abstract of the index, found through their quote index; a piece of a quote of
  several pieces counts from :data:`~citejudge.sources.MIN_ELSEWHERE_CHARS` characters): the content
  is misattributed, and that source is named; UNCERTAIN otherwise. When a text is available but
  pieces are in neither it nor elsewhere, the judge decides whether those pieces paraphrase that
  text's closest evidence units (→ VERIFIED), are not in it (→ UNCERTAIN) or contradict it
  (→ LIKELY_FABRICATED). ``url_accessible`` means "resolves offline" (a record of the index, or a
  page of the store).
* **Citation support** is a judged label (ENTAILMENT / NEUTRAL / CONTRADICTION) from the model
  card's support decider (:func:`citejudge.judge.deciders.support_decider`: the LLM, or the card's
  calibrated scorer, which says ENTAILMENT or NEUTRAL); ``support_score`` is set by code:
  1.0 / 0.5 / 0.0.
* **Answer correctness**: the judge lists the gold answer's key points and marks each COVERED /
  PARTIAL / MISSING. ``correctness_score = (covered + 0.5 * partial) / points``;
  ``alignment_judgement`` is CORRECT when the score is 1, INCORRECT when it is 0,
  PARTIALLY_CORRECT otherwise; ``correctness`` is a boolean, true iff CORRECT;
  ``missing_information`` lists the MISSING points, then the PARTIAL ones prefixed "partly: ".
* **Scores**: ``interpretability_score = 0.5 * support_score + 0.5 * verification value``
  (VERIFIED 1.0, UNCERTAIN 0.5, LIKELY_FABRICATED 0.0);
  ``overall_score = mean(support) * 0.5 + mean(interpretability) * 0.25 + correctness * 0.25``.
  An item without citations has both means 0 (``details.no_citations``). With ``--no-gold`` the
  answer is not evaluated and ``overall_score = mean(support) * 2/3 + mean(interpretability) * 1/3``
  (``details.overall_formula`` names the formula used). Every score is rounded to 4 decimals;
  ``overall_score`` is computed from unrounded parts and rounded once.
* **Nothing judged** (``--no-llm``): support labels are ``NOT_JUDGED`` with null scores, the
  answer is ``NOT_EVALUATED`` with null correctness, interpretability and overall scores are null;
  source verification is still given (it is deterministic; a quote that would need the judge stays
  UNCERTAIN and says so). No verdict is invented.
* **citation_id** is kept as given: an integer stays an integer, a string (numeric or not) stays
  the same string (stripped); a missing id becomes the citation's 1-based position
  (``details.citations[i].id_generated``).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citejudge.io import Item, OutputLine, input_error
from citejudge.judge.core import Judge
from citejudge.judge.decide import SupportDecider, SupportDecision, SupportQuestion
from citejudge.judge.deciders import SupportForm, support_decider
from citejudge.judge.prompts import render, template_sha256
from citejudge.match.resolve import WorldLookup, family_of
from citejudge.readers import fulltext_names
from citejudge.records import Work
from citejudge.sources import (
    MIN_ELSEWHERE_CHARS,
    QUOTE_FOUND,
    Elsewhere,
    Piece,
    QuoteMatch,
    SourceResolution,
    SourceSearch,
    SourceStore,
    SourceText,
    check_quote,
    read_source,
    resolve_source,
    search_piece,
    source_cache_root,
)
from citejudge.tasks.ceval_schemas import CorrectnessAnswer, SourceCheckAnswer, SupportAnswer
from citejudge.tasks.content import closest_sentences
from citejudge.tasks.protocol import Checker, JudgeFactory, TaskOptions
from citejudge.text import evidence_units

__all__ = [
    "CORRECTNESS_TEMPLATE",
    "SOURCE_FORM",
    "SOURCE_TEMPLATE",
    "SUPPORT_FORM",
    "SUPPORT_SCORE",
    "SUPPORT_TEMPLATE",
    "VERIFICATION_VALUE",
    "CitationEvalStage",
    "CitationEvalTask",
    "ParsedCitation",
    "compose_result",
    "correctness_from_points",
    "interpretability_score",
    "make_checker",
    "make_stage",
    "overall_score",
    "support_question",
    "validate_options",
    "verify_source",
]

log = logging.getLogger(__name__)

TASK = "citation-eval"
SUPPORT_TEMPLATE = "ceval_support.v1"
SOURCE_TEMPLATE = "ceval_source.v1"
CORRECTNESS_TEMPLATE = "ceval_correctness.v1"
#: How the LLM answers citation support (prompt :data:`SUPPORT_TEMPLATE`); a two-way scorer's
#: NOT_SUPPORTED reads NEUTRAL (it cannot tell contradiction from silence).
SUPPORT_FORM = SupportForm(
    SupportAnswer,
    {"ENTAILMENT": "SUPPORTED", "NEUTRAL": "NOT_SUPPORTED", "CONTRADICTION": "CONTRADICTED"},
    "reason",
)
#: How the LLM answers an unsettled source check (prompt :data:`SOURCE_TEMPLATE`); a two-way scorer
#: says FROM_SOURCE or NOT_IN_SOURCE, never CONTRADICTS_SOURCE (LIKELY_FABRICATED needs clear evidence).
SOURCE_FORM = SupportForm(
    SourceCheckAnswer,
    {
        "FROM_SOURCE": "SUPPORTED",
        "NOT_IN_SOURCE": "NOT_SUPPORTED",
        "CONTRADICTS_SOURCE": "CONTRADICTED",
    },
    "reason",
)

#: support_score of each support label.
SUPPORT_SCORE = {"ENTAILMENT": 1.0, "NEUTRAL": 0.5, "CONTRADICTION": 0.0}
#: Value of each verification label in the interpretability score.
VERIFICATION_VALUE = {"VERIFIED": 1.0, "UNCERTAIN": 0.5, "LIKELY_FABRICATED": 0.0}
#: Weight of support in the interpretability score (verification gets the rest).
SUPPORT_WEIGHT = 0.5
DECIMALS = 4
_MAX_TEXT = 20_000
#: Pieces listed at most in ``details`` (``quote.not_found``).
MAX_LISTED = 20

NOT_JUDGED_SUPPORT = "Not judged: the run used no model (--no-llm)."


# ----------------------------------------------------------------------------------- scores


def _r(x: float) -> float:
    return round(x, DECIMALS)


def interpretability_score(support: float | None, verification: str) -> float | None:
    """``SUPPORT_WEIGHT * support + (1 - SUPPORT_WEIGHT) * verification value`` (None if support is)."""
    if support is None:
        return None
    return _r(SUPPORT_WEIGHT * support + (1.0 - SUPPORT_WEIGHT) * VERIFICATION_VALUE[verification])


def correctness_from_points(statuses: Sequence[str]) -> tuple[float, str, bool]:
    """``(correctness_score, alignment_judgement, correctness)`` from key-point statuses."""
    if not statuses:
        raise ValueError("no key points")
    covered = sum(1.0 if s == "COVERED" else 0.5 if s == "PARTIAL" else 0.0 for s in statuses)
    score = covered / len(statuses)
    label = "CORRECT" if score >= 1.0 else "INCORRECT" if score <= 0.0 else "PARTIALLY_CORRECT"
    return _r(score), label, label == "CORRECT"


def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def overall_score(
    supports: Sequence[float],
    interps: Sequence[float],
    correctness: float | None,
    *,
    no_gold: bool = False,
) -> float:
    """The spec's formula (or its --no-gold reweighting); means over no citations are 0."""
    if no_gold:
        return _r(_mean(supports) * 2.0 / 3.0 + _mean(interps) / 3.0)
    if correctness is None:
        raise ValueError("correctness_score is needed unless no_gold")
    return _r(_mean(supports) * 0.5 + _mean(interps) * 0.25 + correctness * 0.25)


# --------------------------------------------------------------------------------- input


@dataclass(frozen=True)
class ParsedCitation:
    """One citation of an item, checked."""

    citation_id: int | str
    claim: str
    content: str
    source: str | None
    id_generated: bool = False


class _InputProblem(Exception):
    def __init__(self, message: str, field_name: str) -> None:
        super().__init__(message)
        self.field_name = field_name


def _cut(s: str) -> str:
    return s if len(s) <= _MAX_TEXT else s[:_MAX_TEXT] + " […]"


def _parse_id(raw: Any, pos: int) -> tuple[int | str, bool]:
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return pos, True
    if isinstance(raw, bool):
        raise _InputProblem(
            f"citations[{pos - 1}].citation_id must be an integer or a string, got a boolean",
            f"citations[{pos - 1}].citation_id",
        )
    if isinstance(raw, int):
        return raw, False
    if isinstance(raw, float) and raw.is_integer():
        return int(raw), False
    if isinstance(raw, str):
        return raw.strip()[:200], False
    raise _InputProblem(
        f"citations[{pos - 1}].citation_id must be an integer or a string, got {type(raw).__name__}",
        f"citations[{pos - 1}].citation_id",
    )


def _text_field(obj: dict[str, Any], key: str, where: str, *, required: bool) -> str | None:
    v = obj.get(key)
    if v is None:
        if required:
            raise _InputProblem(
                f"missing '{key}'" + (f" in {where}" if where else ""),
                f"{where}.{key}" if where else key,
            )
        return None
    if not isinstance(v, str):
        name = f"{where}.{key}" if where else key
        raise _InputProblem(f"'{name}' must be a string, got {type(v).__name__}", name)
    if required and not v.strip():
        name = f"{where}.{key}" if where else key
        raise _InputProblem(f"'{name}' is empty", name)
    return v


def parse_citations(raw: Any) -> list[ParsedCitation]:
    """The item's ``citations`` checked (raises a per-item input problem naming the field)."""
    if raw is None:
        raise _InputProblem(
            "missing 'citations' (use [] for an answer without citations)", "citations"
        )
    if not isinstance(raw, list):
        raise _InputProblem(f"'citations' must be a list, got {type(raw).__name__}", "citations")
    out: list[ParsedCitation] = []
    for i, c in enumerate(raw):
        where = f"citations[{i}]"
        if not isinstance(c, dict):
            raise _InputProblem(f"{where} must be an object, got {type(c).__name__}", where)
        cid, generated = _parse_id(c.get("citation_id"), i + 1)
        claim = _text_field(c, "claim", where, required=True)
        content = _text_field(c, "cited_content", where, required=True)
        src = _text_field(c, "source", where, required=False)
        assert claim is not None and content is not None  # required=True guarantees it
        out.append(ParsedCitation(cid, _cut(claim), _cut(content), src, generated))
    return out


# ------------------------------------------------------------------------ source verification


@dataclass
class Verification:
    """Deterministic source verification of one citation (``pending``: a judge may settle it)."""

    judgement: str
    reasoning: str
    url_accessible: bool
    plausibility: str
    pending: bool = False
    passages: list[str] = field(default_factory=list)
    source_name: str = ""
    facts: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """State kept in ``details`` (the judged stage finishes it from there)."""
        return {
            "judgement": self.judgement,
            "reasoning": self.reasoning,
            "url_accessible": self.url_accessible,
            "source_plausibility": self.plausibility,
            "pending_judge": self.pending,
            "passages": self.passages,
            "source_name": self.source_name,
            **self.facts,
        }


def _clip(s: str, n: int) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"


def _wname(res: SourceResolution) -> str:
    w = res.work
    if w is None:
        return ""
    title = (w.title or "untitled")[:100]
    return f"{w.id} '{title}'"


def _plausibility(res: SourceResolution, origin: str | None, score: float | None) -> str:
    w = res.work
    if w is not None:
        bits = [b for b in (str(w.year) if w.year else None, w.venue) if b]
        what = f"{w.type or 'work'} {_wname(res)}" + (f" ({', '.join(bits)})" if bits else "")
        s = f"The source is a scholarly record of the local index: {what}"
        if origin and score is not None:
            s += f"; the cited content's closest match in its {origin.split(' of ')[0]} has similarity {score:.0f}"
        elif not origin:
            s += "; no text of it is available offline"
        return s + "."
    if origin:
        return (
            f"The source is a page saved in the local source store ({origin}); closest match similarity "
            f"{score or 0:.0f}."
        )
    if res.kind == "none":
        return "No source was given, so nothing can be said about it."
    return f"The {res.kind} source is not in the local index or source store; its content cannot be compared offline."


def _other_copies(
    res: SourceResolution, world: WorldLookup | None, store: SourceStore | None
) -> list[tuple[Work, SourceText | None]]:
    """The other records of the stated work's version family, each with its text (if any)."""
    if res.work is None or world is None:
        return []
    out: list[tuple[Work, SourceText | None]] = []
    for w in family_of(res.work, world)[1:]:
        st = store.text_for_work(w) if store is not None else None
        if st is None and w.abstract and w.abstract.strip():
            st = SourceText(w.abstract, f"abstract of {w.id}")
        out.append((w, st))
    return out


def _pieces_in_copies(
    missing: list[tuple[Piece, QuoteMatch]],
    copies: list[tuple[Work, SourceText | None]],
    search: SourceSearch,
) -> tuple[list[tuple[Piece, QuoteMatch]], list[dict[str, Any]]]:
    """The pieces still missing once the other records of the work are read, and where the rest are."""
    found: list[dict[str, Any]] = []
    still: list[tuple[Piece, QuoteMatch]] = []
    texts = [(w, st) for w, st in copies if st is not None]
    for piece, m in missing:
        for w, st in texts:
            cm = search_piece(piece.folded, search.prepared(st))
            if cm.found:
                found.append(
                    {
                        "piece": piece.index,
                        "work_id": w.id,
                        "text": st.origin,
                        "similarity": cm.score,
                    }
                )
                break
        else:
            still.append((piece, m))
    return still, found


def _misattributed(
    qm: QuoteMatch,
    n: int,
    n_missing: int,
    elsewhere: list[tuple[Piece, QuoteMatch, Elsewhere]],
    in_what: str,
) -> str:
    """Why a quote some of whose pieces are in other sources is misattributed (a clause)."""
    if n == 1:
        first = elsewhere[0][2]
        how = "verbatim" if first.exact else f"similarity {first.score:.0f}"
        return (
            f"the cited content is not in {in_what} (best similarity {qm.score:.0f}) but is in "
            f"{first.name} ({first.origin}, {how}): it is attributed to the wrong source"
        )
    parts = _elsewhere_parts(elsewhere)
    lost = n_missing - len(elsewhere)
    if lost:
        parts.append(f"{lost} piece(s) are found nowhere")
    whole = "the cited content" if n_missing == n else "part of the cited content"
    return (
        f"{n - n_missing} of {n} pieces of the cited content are found in {in_what}; "
        + "; ".join(parts)
        + f": {whole} is attributed to the wrong source"
    )


def _elsewhere_parts(found: list[tuple[Piece, QuoteMatch, Elsewhere]]) -> list[str]:
    """Sentences naming where the pieces not in the stated source are, one per other source (3 at most)."""
    by_source: dict[str, list[tuple[Piece, QuoteMatch, Elsewhere]]] = {}
    for row in found:
        by_source.setdefault(row[2].origin, []).append(row)
    parts: list[str] = []
    for rows in list(by_source.values())[:3]:
        o = rows[0][2]
        ids = [str(p.index) for p, _, _ in rows]
        which = (
            f"piece {ids[0]} ('{_clip(rows[0][0].text, 80)}') is"
            if len(rows) == 1
            else f"pieces {', '.join(ids[:-1])} and {ids[-1]} ('{_clip(rows[0][0].text, 60)}', …) are"
        )
        best = max(m.score for _, m, _ in rows)
        how = (
            "verbatim"
            if all(e.exact for _, _, e in rows)
            else f"similarity {min(e.score for _, _, e in rows):.0f}"
        )
        parts.append(
            f"{which} not in it (best similarity {best:.0f}) but in {o.name} ({o.origin}, {how})"
        )
    if len(by_source) > 3:
        parts.append(f"pieces are in {len(by_source) - 3} more source(s)")
    return parts


def verify_source(
    source: str | None,
    quote: str,
    world: WorldLookup | None,
    store: SourceStore | None,
    siblings: Sequence[SourceText] = (),
    resolution: SourceResolution | None = None,
    search: SourceSearch | None = None,
) -> Verification:
    """Deterministic verification of one citation's source (see the module docstring).

    ``siblings``: texts of the other sources the same answer cites (a misattributed quote most
    often comes from one of them). ``resolution``: the source already resolved, if it was.
    ``search``: the run's :class:`~citejudge.sources.SourceSearch` (its prepared texts and quote
    indexes); a new one in memory when not given.
    """
    res = resolution if resolution is not None else resolve_source(source, world)
    facts: dict[str, Any] = {"resolution": res.to_dict()}
    shown = res.shown
    wname = _wname(res)
    if res.status == "other_work":
        return Verification(
            "LIKELY_FABRICATED",
            f"{shown} resolves to {wname}, not to the work the source names ('{(res.named_title or '')[:100]}'; "
            f"{res.message}): the identifier belongs to a different work.",
            True,
            _plausibility(res, None, None) + " It is not the work the citation names.",
            facts=facts,
        )
    if res.status == "id_conflict":
        return Verification(
            "LIKELY_FABRICATED",
            f"{shown}: {res.message}.",
            True,
            "The source's identifiers point at different works.",
            facts=facts,
        )
    text = read_source(res, store)
    accessible = res.work is not None or text is not None
    if text is None:
        if res.work is not None:
            reason = (
                f"{shown} resolves to {wname}, but no abstract or stored text of it is available offline "
                "to check the cited content."
            )
        elif res.status == "nothing_stated" and res.kind == "none":
            reason = "No source was given for this citation."
        elif res.status == "no_index":
            reason = f"{shown} could not be looked up: no index was given (--index)" + (
                ", and the source store has no page for it."
                if store is not None
                else " and no source store (--fulltext)."
            )
        elif res.status == "ambiguous":
            reason = f"{shown} is ambiguous in the local index ({res.message})."
        else:
            lead = (
                f"{shown} resolves to no record of the local index"
                if world is not None
                else f"{shown} could not be looked up (no index was given)"
            )
            reason = lead + (
                " and no page for it is saved in the source store."
                if store is not None
                else " and no source store (--fulltext) was given."
            )
        return Verification(
            "UNCERTAIN", reason, accessible, _plausibility(res, None, None), facts=facts
        )
    search = search if search is not None else SourceSearch(world, store)
    qc = check_quote(quote, search.prepared(text))
    qm = qc.whole
    facts["quote"] = {
        "similarity": qm.score,
        "found": qm.found,
        "exact": qm.exact,
        "text": text.origin,
        "threshold": QUOTE_FOUND,
    }
    n = len(qc.pieces)
    missing = qc.missing
    if n > 1:
        facts["quote"].update(
            pieces=n, pieces_found=n - len(missing), share_found=round((n - len(missing)) / n, 4)
        )
    where = (
        f"{shown} resolves to {wname}"
        if res.work is not None
        else f"{shown} is saved in the source store"
    )
    in_what = (
        "its abstract" if text.origin.startswith("abstract") else f"its stored text ({text.origin})"
    )
    plaus = _plausibility(res, text.origin, qm.score)
    name = wname or shown
    if qm.found:
        if n == 1:
            how = "verbatim" if qm.exact else f"similarity {qm.score:.0f}"
            said = f"the cited content is found in {in_what} ({how})"
        else:
            verbatim = sum(m.exact for m in qc.matches)
            how = (
                "verbatim"
                if qm.exact
                else f"{verbatim} verbatim, the lowest similarity {qm.score:.0f}"
            )
            said = (
                f"{'both' if n == 2 else f'all {n}'} pieces of the cited content are found in "
                f"{in_what} ({how})"
            )
        return Verification(
            "VERIFIED", f"{where}; {said}.", True, plaus, source_name=name, facts=facts
        )
    exclude = {text.origin}
    if res.work is not None:
        exclude |= {res.work.id, *fulltext_names(res.work)}
    # the other records of the stated work (preprint, published copy, duplicate) are the same work
    copies = _other_copies(res, world, store)
    for w, st in copies:
        exclude |= {w.id, *fulltext_names(w)} | ({st.origin} if st is not None else set())
    missing, in_copies = _pieces_in_copies(missing, copies, search)
    if in_copies:
        facts["quote"]["in_other_records"] = in_copies
        in_what += " or another record of the same work"
        if not missing:
            c0 = in_copies[0]
            how = "verbatim" if c0["similarity"] >= 100 else f"similarity {c0['similarity']:.0f}"
            return Verification(
                "VERIFIED",
                f"{where}; the cited content is not all in {in_what.split(' or ')[0]}, but what it "
                f"lacks is in {c0['text']}, another record of the same work ({how}).",
                True,
                plaus,
                source_name=name,
                facts=facts,
            )
    elsewhere: list[tuple[Piece, QuoteMatch, Elsewhere]] = []
    not_found: list[dict[str, Any]] = []
    for piece, m in missing:
        row: dict[str, Any] = {
            "piece": piece.index,
            "text": _clip(piece.text, 200),
            "similarity": m.score,
        }
        # what of the piece the stated text lacks (a piece may glue a heading of it to a
        # sentence of another page)
        rest = qc.rest(piece)
        lacking = piece if rest == piece.folded else Piece(piece.index, piece.text, rest)
        other = (
            search.find_elsewhere(lacking, exclude, siblings)
            if n == 1 or len(lacking.folded) >= MIN_ELSEWHERE_CHARS
            else None
        )
        if other is not None:
            elsewhere.append((piece, m, other))
            row["found_in"] = {
                "source": other.name,
                "text": other.origin,
                "similarity": other.score,
            }
        not_found.append(row)
    if n > 1:
        facts["quote"]["not_found"] = not_found[:MAX_LISTED]
    if elsewhere:
        facts["found_elsewhere"] = {
            "source": elsewhere[0][2].name,
            "text": elsewhere[0][2].origin,
            "similarity": elsewhere[0][2].score,
        }
        said = _misattributed(qm, n, len(missing), elsewhere, in_what)
        names = list(dict.fromkeys(o.name for _, _, o in elsewhere))
        return Verification(
            "LIKELY_FABRICATED",
            f"{where}; {said}.",
            True,
            plaus + f" The quoted text belongs to {', '.join(names[:3])}.",
            source_name=name,
            facts=facts,
        )
    if n == 1 or len(missing) == n:
        asked = quote
        said = (
            f"the cited content is not found verbatim in {in_what} (best similarity {qm.score:.0f})"
        )
    else:
        asked = " … ".join(p.text for p, _ in missing)
        facts["judge_quote"] = asked
        listed = "; ".join(
            f"piece {p.index} ('{_clip(p.text, 80)}', best similarity {m.score:.0f})"
            for p, m in missing[:3]
        ) + (f"; {len(missing) - 3} more" if len(missing) > 3 else "")
        said = (
            f"{n - len(missing)} of {n} pieces of the cited content are found in {in_what}; "
            f"not found: {listed}"
        )
    passages = closest_sentences(asked, evidence_units(text.text))
    return Verification(
        "UNCERTAIN",
        f"{where}; {said}",
        True,
        plaus,
        pending=True,
        passages=passages,
        source_name=name,
        facts=facts,
    )


# ------------------------------------------------------------------------------ composing


def _counts(labels: Sequence[str], order: Iterable[str]) -> str:
    c = Counter(labels)
    return ", ".join(f"{c.get(k, 0)} {k}" for k in order)


def compose_result(cits: Sequence[ParsedCitation], details: dict[str, Any]) -> dict[str, Any]:
    """The spec's result object from the per-citation and answer state kept in ``details``."""
    states = details["citations"]
    evals: list[dict[str, Any]] = []
    supports: list[float] = []
    interps: list[float] = []
    judged_all = True
    for c, st in zip(cits, states, strict=True):
        ver = st["verification"]
        reasoning = ver["reasoning"]
        if ver["pending_judge"]:
            reasoning += "; " + (
                st.get("source_judge", {}).get("note")
                or "whether it paraphrases the source was not judged (--no-llm)."
            )
        elif not reasoning.endswith("."):
            reasoning += "."
        sup = st.get("support") or {}
        label = sup.get("label")
        score = SUPPORT_SCORE[label] if label else None
        if score is None:
            judged_all = False
        interp = interpretability_score(score, ver["judgement"])
        if score is not None and interp is not None:
            supports.append(score)
            interps.append(interp)
        evals.append(
            {
                "citation_id": c.citation_id,
                "claim": c.claim,
                "citation_support": {
                    "judgement": label or "NOT_JUDGED",
                    "reasoning": (sup.get("reasoning") or f"Judged {label}.")
                    if label
                    else NOT_JUDGED_SUPPORT,
                    "support_score": score,
                },
                "source_verification": {
                    "judgement": ver["judgement"],
                    "reasoning": reasoning,
                    "url_accessible": ver["url_accessible"],
                    "source_plausibility": ver["source_plausibility"],
                },
                "interpretability_score": interp,
            }
        )
    ans = details["answer"]
    no_gold = ans["status"] == "no_gold"
    if ans["status"] == "judged":
        answer_eval = {
            "correctness": ans["correctness"],
            "alignment_judgement": ans["alignment_judgement"],
            "missing_information": ans["missing_information"],
            "correctness_score": ans["correctness_score"],
        }
    else:
        answer_eval = {
            "correctness": None,
            "alignment_judgement": "NOT_EVALUATED",
            "missing_information": [],
            "correctness_score": None,
        }
    vlabels = [st["verification"]["judgement"] for st in states]
    slabels = [e["citation_support"]["judgement"] for e in evals]
    overall: float | None = None
    if judged_all and (no_gold or ans["status"] == "judged"):
        overall = overall_score(supports, interps, ans.get("correctness_score"), no_gold=no_gold)
        details["overall_formula"] = (
            "mean(support)*2/3 + mean(interpretability)*1/3 (no gold answer)"
            if no_gold
            else "mean(support)*0.5 + mean(interpretability)*0.25 + correctness*0.25"
        )
    n = len(cits)
    if n == 0:
        quality = "The answer cites nothing; citation means count as 0."
        interp_txt = "No citations, so nothing in the answer can be traced to a source."
    else:
        sup_txt = (
            f"support {_counts(slabels, SUPPORT_SCORE)} (mean {_r(_mean(supports)):.4g})"
            if judged_all
            else "support not judged (--no-llm)"
        )
        quality = f"{n} citation(s): {sup_txt}; sources {_counts(vlabels, VERIFICATION_VALUE)}."
        verified = vlabels.count("VERIFIED")
        interp_txt = f"{verified} of {n} citation(s) could be traced to their source offline" + (
            f"; mean interpretability {_r(_mean(interps)):.4g}."
            if judged_all
            else "; interpretability needs the support judgement (not judged)."
        )
        if vlabels.count("LIKELY_FABRICATED"):
            interp_txt += f" {vlabels.count('LIKELY_FABRICATED')} source(s) look fabricated."
    return {
        "citation_evaluations": evals,
        "answer_evaluation": answer_eval,
        "overall_assessment": {
            "citation_quality": quality,
            "interpretability": interp_txt,
            "overall_score": overall,
        },
    }


# ------------------------------------------------------------------------- the checker


@dataclass
class CitationEvalTask:
    """Deterministic part of ``citation-eval``: input checks and source verification."""

    world: WorldLookup | None = None
    store: SourceStore | None = None
    no_gold: bool = False
    #: Where the quote indexes are cached (:func:`~citejudge.sources.source_cache_root`); None:
    #: built in memory.
    cache_root: Path | None = None
    search: SourceSearch = field(init=False)

    def __post_init__(self) -> None:
        self.search = SourceSearch(self.world, self.store, self.cache_root)

    def check(self, item: Item) -> OutputLine:
        """Evaluate one item; judged dimensions are left NOT_JUDGED / NOT_EVALUATED for the stage."""
        data = item.data
        known = {"id", "question", "answer", "gold_answer", "citations"}
        details: dict[str, Any] = {}
        extra = {k: v for k, v in data.items() if k not in known}
        if extra:
            details["input_extra"] = extra
        try:
            _text_field(data, "answer", "", required=True)
            _text_field(data, "question", "", required=False)
            gold = _text_field(data, "gold_answer", "", required=False)
            if (gold is None or not gold.strip()) and not self.no_gold:
                raise _InputProblem(
                    "missing 'gold_answer' (pass --no-gold to evaluate without one)", "gold_answer"
                )
            cits = parse_citations(data.get("citations"))
        except _InputProblem as exc:
            return input_error(item, TASK, str(exc), exc.field_name, details)
        states: list[dict[str, Any]] = []
        resolved = [resolve_source(c.source, self.world) for c in cits]
        texts = (
            [read_source(r, self.store) for r in resolved] if len(cits) > 1 else [None] * len(cits)
        )
        for i, c in enumerate(cits):
            siblings = [t for j, t in enumerate(texts) if j != i and t is not None]
            ver = verify_source(
                c.source, c.content, self.world, self.store, siblings, resolved[i], self.search
            )
            st: dict[str, Any] = {
                "citation_id": c.citation_id,
                "verification": ver.to_dict(),
                "support": None,
            }
            if c.id_generated:
                st["id_generated"] = True
            states.append(st)
        details["citations"] = states
        ids = [c.citation_id for c in cits]
        dup = sorted({str(i) for i in ids if ids.count(i) > 1})
        if dup:
            details["duplicate_citation_ids"] = dup
        if not cits:
            details["no_citations"] = True
        has_gold = gold is not None and bool(gold.strip())
        details["answer"] = {"status": "pending" if has_gold else "no_gold"}
        if not has_gold:
            details["no_gold"] = True
        details["judged"] = False
        return OutputLine(item.id, TASK, compose_result(cits, details), details)


# ----------------------------------------------------------------------- the judged stage


def support_question(claim: str, content: str) -> SupportQuestion:
    """The support question for one citation (the LLM's prompt is :data:`SUPPORT_TEMPLATE`)."""
    return SupportQuestion(
        claim, content, render(SUPPORT_TEMPLATE, claim=claim, cited_content=content)
    )


_SOURCE_MAP = {
    "FROM_SOURCE": "VERIFIED",
    "NOT_IN_SOURCE": "UNCERTAIN",
    "CONTRADICTS_SOURCE": "LIKELY_FABRICATED",
}


@dataclass
class CitationEvalStage:
    """The judged part of ``citation-eval``: support, unsettled source checks, answer correctness.

    Each kind of request of a whole batch of items goes to the model in one call.
    """

    judge: Judge
    #: Who decides citation support; default: the card's (:func:`support_decider`).
    support: SupportDecider | None = None
    templates: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.support is None:
            self.support = support_decider(self.judge, SUPPORT_FORM)
        self.templates = {
            t: f"{t}@{template_sha256(t)[:12]}"
            for t in (SUPPORT_TEMPLATE, SOURCE_TEMPLATE, CORRECTNESS_TEMPLATE)
        }

    def _source_checks(self, questions: list[SupportQuestion]) -> list[tuple[SupportDecision, str]]:
        """Is each quote from its source's passages? Each decision with its reason as the note gives it.

        The card's decider answers; a two-way scorer says FROM_SOURCE at or above its threshold and
        NOT_IN_SOURCE below it.
        """
        out: list[tuple[SupportDecision, str]] = []
        for d in support_decider(self.judge, SOURCE_FORM).decide(questions):
            if d.kind != "llm" and d.score is not None and d.threshold is not None:
                out.append(
                    (
                        d,
                        f"calibrated scorer {d.decider}: {d.score:.3f} vs threshold {d.threshold:.3f}",
                    )
                )
            else:
                out.append((d, d.rationale or ""))
        return out

    def apply(self, pairs: list[tuple[Item, OutputLine]]) -> None:
        """Judge and recompose the results of a batch of deterministic lines, in place."""
        live = [
            (it, ln, parse_citations(it.data.get("citations")))
            for it, ln in pairs
            if ln.result is not None
        ]
        failures: dict[int, str] = {}
        # 1. support
        sup_refs: list[tuple[int, int]] = []
        questions: list[SupportQuestion] = []
        for k, (_, _, cits) in enumerate(live):
            for j, c in enumerate(cits):
                sup_refs.append((k, j))
                questions.append(support_question(c.claim, c.content))
        assert self.support is not None
        decisions = self.support.decide(questions)
        for (k, j), d in zip(sup_refs, decisions, strict=True):
            st = live[k][1].details["citations"][j]
            st["support"] = {
                "label": SUPPORT_FORM.task_label(d.label),
                "reasoning": (d.rationale or "").strip(),
                "request_hash": d.request_hash,
                "template": self.templates[SUPPORT_TEMPLATE],
            }
            if d.kind != "llm" and d.score is not None and d.threshold is not None:
                # a scorer decided: which one, and its score against its threshold, as content does
                st["support"].update(
                    scorer=d.decider, score=round(d.score, 4), threshold=round(d.threshold, 4)
                )
            if d.label is None:
                failures.setdefault(k, f"citations[{j}] support: {d.error}")
        # 2. source checks the deterministic stage could not settle
        src_refs: list[tuple[int, int]] = []
        src_questions: list[SupportQuestion] = []
        for k, (_, ln, cits) in enumerate(live):
            for j, c in enumerate(cits):
                ver = ln.details["citations"][j]["verification"]
                if ver["pending_judge"]:
                    src_refs.append((k, j))
                    text = "\n".join(ver["passages"])
                    # a quote whose other pieces were found: the judge sees the pieces not found
                    quote = ver.get("judge_quote") or c.content
                    src_questions.append(
                        SupportQuestion(
                            quote,
                            text,
                            render(
                                SOURCE_TEMPLATE,
                                source_name=ver["source_name"],
                                source_text=text,
                                quote=quote,
                            ),
                        )
                    )
        for (k, j), (dec, why) in zip(src_refs, self._source_checks(src_questions), strict=True):
            ver = live[k][1].details["citations"][j]["verification"]
            st = live[k][1].details["citations"][j]
            label = SOURCE_FORM.task_label(dec.label)
            if label is None:
                failures.setdefault(k, f"citations[{j}] source check: {dec.error}")
                st["source_judge"] = {"error": dec.error, "request_hash": dec.request_hash}
                continue
            ver["judgement"] = _SOURCE_MAP[label]
            reason = why.strip().rstrip(".")
            st["source_judge"] = {
                "label": label,
                "request_hash": dec.request_hash,
                "template": self.templates[SOURCE_TEMPLATE] if dec.request_hash else None,
                "note": f"judged {label} against the closest passages"
                + (f": {reason}." if reason else "."),
            }
            if dec.kind != "llm":
                st["source_judge"]["scorer"] = dec.decider
        # 3. answer correctness
        ans_refs: list[int] = []
        prompts: list[str] = []
        for k, (it, ln, _) in enumerate(live):
            if ln.details["answer"]["status"] == "pending":
                ans_refs.append(k)
                prompts.append(
                    render(
                        CORRECTNESS_TEMPLATE,
                        question=str(it.data.get("question") or ""),
                        gold=str(it.data.get("gold_answer")),
                        answer=str(it.data.get("answer")),
                    )
                )
        couts = self.judge.ask(prompts, CorrectnessAnswer) if prompts else []
        for k, co in zip(ans_refs, couts, strict=True):
            ans = live[k][1].details["answer"]
            ans.update(request_hash=co.request_hash, template=self.templates[CORRECTNESS_TEMPLATE])
            if co.answer is None:
                failures.setdefault(k, f"answer correctness: {co.error}")
                continue
            points = co.answer.key_points
            score, label, ok = correctness_from_points([p.status for p in points])
            missing = [p.point for p in points if p.status == "MISSING"] + [
                f"partly: {p.point}" for p in points if p.status == "PARTIAL"
            ]
            ans.update(
                status="judged",
                key_points=[p.model_dump() for p in points],
                correctness_score=score,
                alignment_judgement=label,
                correctness=ok,
                missing_information=missing,
            )
        # 4. recompose
        for k, (it, ln, cits) in enumerate(live):
            # the model (or the card's scorer) was asked about this item's citations or answer
            ln.details["judged"] = bool(cits) or ln.details["answer"].get("status") == "judged"
            if k in failures:
                ln.details["partial_result"] = compose_result(cits, ln.details)
                ln.result = None
                ln.error = {
                    "kind": "judge",
                    "message": failures[k],
                    "file": it.file,
                    "line": it.line,
                }
                continue
            ln.result = compose_result(cits, ln.details)


# ------------------------------------------------------------------------- entry points


def validate_options(opts: TaskOptions) -> None:
    """Usage errors of ``check citation-eval`` before any work starts."""
    from citejudge.errors import ConfigError

    if opts.index is not None and not Path(opts.index).exists():
        raise ConfigError(
            f"index {opts.index} does not exist", hint="build one with 'citejudge index build'"
        )
    if opts.fulltext_dir is not None and not Path(opts.fulltext_dir).is_dir():
        raise ConfigError(
            f"source store {opts.fulltext_dir} is not a folder",
            hint="--fulltext DIR names a folder of saved pages (see citejudge.sources)",
        )


def make_checker(opts: TaskOptions) -> Checker:
    """The deterministic stage (opens the index read-only and the source store in this process)."""
    validate_options(opts)
    world = None
    if opts.index is not None:
        from citejudge.index import WorldIndex

        world = WorldIndex.open(opts.index)
    store = SourceStore.open(Path(opts.fulltext_dir)) if opts.fulltext_dir is not None else None
    cache = source_cache_root(opts.cache_dir) if store is not None or world is not None else None
    return CitationEvalTask(world, store, bool(opts.no_gold), cache).check


def make_stage(opts: TaskOptions, make_judge: JudgeFactory) -> CitationEvalStage:
    """The judged stage: citation support, unsettled source checks, answer correctness."""
    validate_options(opts)
    judge = make_judge(
        [SUPPORT_TEMPLATE, SOURCE_TEMPLATE, CORRECTNESS_TEMPLATE],
        [SupportAnswer, SourceCheckAnswer, CorrectnessAnswer],
    )
    return CitationEvalStage(judge)
