"""Content grounding: is a claim fully supported by what the matched work says.

Deterministic around the model:

* evidence is a local full text of the work (``<fulltext_dir>/<W-id or DOI>.txt|.md``) or its
  abstract; nothing → a verification error (the offline meaning of "technical access problem");
* the claim is split into sub-claims (sentences, then ``;``-separated parts);
* for each sub-claim the most relevant evidence sentences are selected (rapidfuzz token-set
  similarity plus shared numbers), so prompts stay short;
* the judge labels each sub-claim SUPPORTED / NOT_SUPPORTED; the claim is "Yes" only if every
  sub-claim is supported.
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
from citejudge.judge.deciders import SupportForm, support_decider
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
    "find_evidence",
    "judge_content",
    "select_passages",
    "split_subclaims",
]

TEMPLATE = "content_grounding.v1"
#: How the LLM answers a sub-claim's support question (prompt :data:`TEMPLATE`).
SUPPORT_FORM = SupportForm(
    ClaimSupport, {"SUPPORTED": "SUPPORTED", "NOT_SUPPORTED": "NOT_SUPPORTED"}, "missing"
)
#: Evidence sentences given to the judge per sub-claim, and their character budget.
TOP_SENTENCES = 4
EVIDENCE_CHARS = 1600

_NUM = re.compile(r"\d+(?:[.,]\d+)?")


@dataclass(frozen=True)
class Evidence:
    """The text a claim is judged against, and where it came from."""

    text: str
    source: str  # "abstract" | "fulltext:<file name>"


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


def select_passages(
    subclaim: str, sentences: Sequence[str], k: int = TOP_SENTENCES, budget: int = EVIDENCE_CHARS
) -> list[str]:
    """The evidence sentences most relevant to ``subclaim``, in their original order."""
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


def _prompt(sub: str, case: ContentCase) -> tuple[str, list[str]]:
    passages = select_passages(sub, split_sentences(case.evidence.text))
    return render(
        TEMPLATE,
        work_title=case.work.title or case.work.id,
        evidence="\n".join(passages),
        claim=sub,
    ), passages


def _record(sub: str, passages: list[str], d: SupportDecision, template: str) -> dict[str, Any]:
    """A sub-claim's record: the LLM's answer and its request, or a CPU decider's score."""
    label = SUPPORT_FORM.task_label(d.label)
    if d.kind == "llm":
        return {
            "subclaim": sub,
            "label": label,
            "missing": d.rationale,
            "passages": passages,
            "request_hash": d.request_hash,
            "error": d.error,
            "template": template,
        }
    if d.score is None or d.threshold is None:
        return {
            "subclaim": sub,
            "label": None,
            "missing": None,
            "error": d.error,
            "passages": passages,
        }
    return {
        "subclaim": sub,
        "label": label,
        "missing": None,
        "error": None,
        "scorer": d.decider,
        "score": round(d.score, 4),
        "threshold": round(d.threshold, 4),
        "passages": passages,
    }


def judge_content(cases: Sequence[ContentCase], judge: Judge) -> list[ContentVerdict]:
    """Judge every case; all sub-claims of all cases go to the support decider in one batch."""
    flat: list[tuple[int, SupportQuestion, list[str]]] = []
    for ci, case in enumerate(cases):
        for sub in split_subclaims(case.claim):
            prompt, passages = _prompt(sub, case)
            flat.append((ci, SupportQuestion(sub, "\n".join(passages), prompt), passages))
    decisions = support_decider(judge, SUPPORT_FORM).decide([q for _, q, _ in flat])
    template = f"{TEMPLATE}@{template_sha256(TEMPLATE)[:12]}"
    per_case: list[list[dict[str, Any]]] = [[] for _ in cases]
    for (ci, q, passages), d in zip(flat, decisions, strict=True):
        per_case[ci].append(_record(q.claim, passages, d, template))
    verdicts: list[ContentVerdict] = []
    for case, records in zip(cases, per_case, strict=True):
        where = "the abstract" if case.evidence.source == "abstract" else "the full text"
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
