"""Content grounding: is a claim fully supported by what the matched work says.

Deterministic around the model:

* evidence is a local full text of the work (``<fulltext_dir>/<W-id or DOI>.txt|.md``) or its
  abstract; nothing → a verification error (the offline meaning of "technical access problem");
* the claim is split into sub-claims (sentences, then ``;``-separated parts);
* for each sub-claim the passages of the evidence to judge it against are selected first
  (:func:`citejudge.judge.passages.select_passages` through
  :func:`citejudge.judge.deciders.select_for`: runs of 1-3 sentences ranked by how much of the
  sub-claim they cover, and by cosine when the card's scorer has an embedder), so a page or a
  full text is judged by its top passages and prompts stay short;
* the card's support decider labels each sub-claim SUPPORTED / NOT_SUPPORTED against those
  passages (the calibrated scorer with its fit for short evidence or for long texts), and the
  claim-coverage rule follows for a long text: a number or date of the sub-claim that no passage
  holds makes it at most partially supported, NOT_SUPPORTED (names no passage holds are listed,
  and weigh in the scorer; short evidence, judged whole, only lists them)
  (:func:`citejudge.judge.deciders.apply_coverage_rule`);
* the claim is "Yes" only if every sub-claim is supported.

``details.content.subclaims[]`` name the passages that decided (their unit ranges and text),
which fit judged, and what the coverage rule did not find.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz

from citejudge.judge.core import Judge
from citejudge.judge.decide import SupportDecision, SupportQuestion
from citejudge.judge.deciders import (
    SupportForm,
    apply_coverage_rule,
    select_for,
    support_decider,
)
from citejudge.judge.passages import PassageSelection
from citejudge.judge.prompts import render, template_sha256
from citejudge.judge.schemas import ClaimSupport
from citejudge.match.normalize import fold
from citejudge.readers.fulltext import find_fulltext
from citejudge.records import Work
from citejudge.text import split_sentences

__all__ = [
    "SUPPORT_FORM",
    "TEMPLATE",
    "ContentCase",
    "ContentVerdict",
    "Evidence",
    "closest_sentences",
    "find_evidence",
    "judge_content",
    "prompt_evidence",
    "split_subclaims",
]

TEMPLATE = "content_grounding.v1"
#: How the LLM answers a sub-claim's support question (prompt :data:`TEMPLATE`).
SUPPORT_FORM = SupportForm(
    ClaimSupport, {"SUPPORTED": "SUPPORTED", "NOT_SUPPORTED": "NOT_SUPPORTED"}, "missing"
)
#: Evidence sentences :func:`closest_sentences` gives per claim (rag-audit and citation-eval), and
#: their character budget.
TOP_SENTENCES = 4
EVIDENCE_CHARS = 1600
#: Characters of one selected passage shown in a content-grounding prompt (the rest is cut).
PASSAGE_CHARS = 900

_NUM = re.compile(r"\d+(?:[.,]\d+)?")


@dataclass(frozen=True)
class Evidence:
    """The text a claim is judged against, and where it came from."""

    text: str
    source: str  # "abstract" | "fulltext:<file name>" | "store:<file>" (a saved web page)


def split_subclaims(claim: str, limit: int = 6) -> list[str]:
    """Sub-claims of a claim: its sentences, then parts separated by ``;``. At most ``limit``."""
    subs: list[str] = []
    for sent in split_sentences(claim):
        subs.extend(p.strip() for p in sent.split(";") if len(p.strip()) > 3)
    if len(subs) > limit:
        subs = [*subs[: limit - 1], " ".join(subs[limit - 1 :])]
    return subs or ([claim.strip()] if claim.strip() else [])


def find_evidence(work: Work, fulltext_dir: Path | None) -> Evidence | None:
    """Local full text of ``work`` if present (:func:`~citejudge.readers.fulltext.find_fulltext`), else its abstract, else None."""
    found = (
        find_fulltext(fulltext_dir, work)
        if fulltext_dir is not None and fulltext_dir.is_dir()
        else None
    )
    if found is not None:
        return Evidence(found[0], f"fulltext:{found[1]}")
    if work.abstract and work.abstract.strip():
        return Evidence(work.abstract, "abstract")
    return None


def closest_sentences(
    subclaim: str, sentences: Sequence[str], k: int = TOP_SENTENCES, budget: int = EVIDENCE_CHARS
) -> list[str]:
    """The evidence sentences most relevant to ``subclaim``, in their original order.

    Rapidfuzz token-set similarity plus shared numbers; rag-audit and citation-eval pick chunk
    and source sentences with it. Content grounding selects passages with
    :func:`citejudge.judge.passages.select_passages` instead.
    """
    if not sentences:
        return []
    target = fold(subclaim)
    nums = set(_NUM.findall(subclaim))
    scored = []
    for i, s in enumerate(sentences):
        score = fuzz.token_set_ratio(target, fold(s), processor=None, score_cutoff=0)
        score += 15 * len(nums & set(_NUM.findall(s)))
        scored.append((-score, i))
    chosen: list[int] = []
    used = 0
    for _, i in sorted(scored):
        if len(chosen) >= k:
            break
        if used + len(sentences[i]) > budget and chosen:
            continue
        chosen.append(i)
        used += len(sentences[i])
    return [sentences[i][:budget] for i in sorted(chosen)]


@dataclass
class ContentCase:
    """One claim to judge against one work's evidence."""

    claim: str
    work: Work
    evidence: Evidence


@dataclass
class ContentVerdict:
    """Outcome for one case: "Yes"/"No"/"error", its explanation, and the per-sub-claim record."""

    label: str
    explanation: str
    subclaims: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None


def prompt_evidence(selection: PassageSelection) -> str:
    """The passages as the prompt shows them: one per line, each cut at :data:`PASSAGE_CHARS`."""
    return "\n".join(
        p.text if len(p.text) <= PASSAGE_CHARS else p.text[:PASSAGE_CHARS].rstrip() + " […]"
        for p in selection.passages
    )


def _record(
    sub: str, selection: PassageSelection, d: SupportDecision, template: str
) -> dict[str, Any]:
    """A sub-claim's record: the passages, and the LLM's answer and request or a scorer's score."""
    label = SUPPORT_FORM.task_label(d.label)
    seen = {
        "passages": [p.text for p in selection.passages],
        "passage_units": [[p.start, p.end] for p in selection.passages],
        "evidence_kind": selection.kind,
        "not_found": list(d.missing),
        "names_not_found": list(selection.missing_names),
    }
    if d.kind == "llm":
        return {
            "subclaim": sub,
            "label": label,
            "missing": d.rationale,
            **seen,
            "request_hash": d.request_hash,
            "error": d.error,
            "template": template,
        }
    if d.score is None or d.threshold is None:
        return {"subclaim": sub, "label": None, "missing": None, "error": d.error, **seen}
    return {
        "subclaim": sub,
        "label": label,
        "missing": None,
        "error": None,
        "scorer": d.decider,
        "score": round(d.score, 4),
        "threshold": round(d.threshold, 4),
        **({"fit": d.evidence_kind} if d.evidence_kind else {}),
        **seen,
    }


def judge_content(cases: Sequence[ContentCase], judge: Judge) -> list[ContentVerdict]:
    """Judge every case; all sub-claims of all cases go to the support decider in one batch."""
    decider = support_decider(judge, SUPPORT_FORM)
    flat: list[tuple[int, SupportQuestion, PassageSelection]] = []
    for ci, case in enumerate(cases):
        title = case.work.title or case.work.id
        for sub in split_subclaims(case.claim):
            sel = select_for(decider, sub, case.evidence.text)
            prompt = render(TEMPLATE, work_title=title, evidence=prompt_evidence(sel), claim=sub)
            flat.append((ci, SupportQuestion(sub, case.evidence.text, prompt, sel), sel))
    decisions = decider.decide([q for _, q, _ in flat])
    template = f"{TEMPLATE}@{template_sha256(TEMPLATE)[:12]}"
    per_case: list[list[dict[str, Any]]] = [[] for _ in cases]
    for (ci, q, sel), d in zip(flat, decisions, strict=True):
        per_case[ci].append(
            _record(q.claim, sel, apply_coverage_rule(d, sel, q.claim, q.evidence), template)
        )
    verdicts: list[ContentVerdict] = []
    for case, records in zip(cases, per_case, strict=True):
        where = (
            "the abstract"
            if case.evidence.source == "abstract"
            else "the saved page"
            if case.evidence.source.startswith("store:")
            else "the full text"
        )
        failed = [r for r in records if r["label"] is None]
        if failed:
            verdicts.append(ContentVerdict("error", "", records, error=str(failed[0]["error"])))
            continue
        missing = [r for r in records if r["label"] == "NOT_SUPPORTED"]
        if not missing:
            n = len(records)
            what = "the claim is" if n == 1 else f"all {n} parts of the claim are"
            verdicts.append(
                ContentVerdict(
                    "Yes",
                    f"Yes. According to {where} of {case.work.id}, {what} stated there.",
                    records,
                )
            )
        else:
            first = missing[0]
            gap = f" (missing: {first['missing']})" if first["missing"] else ""
            if first.get("score") is not None:
                gap = f" (support score {first['score']:.2f}, below the calibrated {first['threshold']:.2f})"
            if first["not_found"]:
                listed = ", ".join(f'"{m}"' for m in first["not_found"])
                gap = f"{gap[:-1]}; " if gap else " ("
                gap += f"not found in the passages: {listed})"
            more = f"; {len(missing) - 1} more part(s) unsupported" if len(missing) > 1 else ""
            verdicts.append(
                ContentVerdict(
                    "No",
                    f'No. {where.capitalize()} of {case.work.id} does not support "{first["subclaim"][:160].rstrip(".")}"'
                    f"{gap}{more}.",
                    records,
                )
            )
    return verdicts
