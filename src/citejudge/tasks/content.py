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

from citejudge.judge.core import Judge, score_pairs
from citejudge.judge.prompts import render, template_sha256
from citejudge.judge.schemas import ClaimSupport
from citejudge.match.normalize import fold
from citejudge.readers.fulltext import find_fulltext
from citejudge.records import Work

__all__ = [
    "TEMPLATE",
    "ContentCase",
    "ContentVerdict",
    "Evidence",
    "find_evidence",
    "judge_content",
    "select_passages",
    "split_sentences",
    "split_subclaims",
]

TEMPLATE = "content_grounding.v1"
#: Evidence sentences given to the judge per sub-claim, and their character budget.
TOP_SENTENCES = 4
EVIDENCE_CHARS = 1600

_SENT_END = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+(?=[A-Z0-9ÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ\"'“(\[])")
_ABBREV = re.compile(r"\b(?:e\.g|i\.e|et al|Fig|Figs|Eq|Ref|vs|cf|approx|No|Dr|Mr|Ms|St|resp|incl|tj|tzv|např|mj)\.$", re.I)
_NUM = re.compile(r"\d+(?:[.,]\d+)?")


@dataclass(frozen=True)
class Evidence:
    """The text a claim is judged against, and where it came from."""

    text: str
    source: str  # "abstract" | "fulltext:<file name>"


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` (a light splitter that keeps abbreviations such as "et al." inside)."""
    text = " ".join(text.split())
    if not text:
        return []
    parts: list[str] = []
    start = 0
    for m in _SENT_END.finditer(text):
        piece = text[start : m.start()].strip()
        if _ABBREV.search(piece):
            continue
        if piece:
            parts.append(piece)
        start = m.end()
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return parts


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
    found = find_fulltext(fulltext_dir, work) if fulltext_dir is not None and fulltext_dir.is_dir() else None
    if found is not None:
        return Evidence(found[0], f"fulltext:{found[1]}")
    if work.abstract and work.abstract.strip():
        return Evidence(work.abstract, "abstract")
    return None


def select_passages(subclaim: str, sentences: Sequence[str], k: int = TOP_SENTENCES,
                    budget: int = EVIDENCE_CHARS) -> list[str]:
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
    return render(TEMPLATE, work_title=case.work.title or case.work.id, evidence="\n".join(passages),
                  claim=sub), passages


def _scored(scorer: Any, flat: list[tuple[int, str, str, list[str]]]) -> list[dict[str, Any]]:
    """Sub-claim records decided by a calibrated scorer over the selected passages."""
    return [{"label": None, "missing": None, "error": s.error} if s.prob is None else
            {"label": "SUPPORTED" if s.supported else "NOT_SUPPORTED", "missing": None, "error": None,
             "scorer": s.scorer, "score": round(s.prob, 4), "threshold": round(s.threshold, 4)}
            for s in score_pairs(scorer, [(sub, "\n".join(passages)) for _, sub, _, passages in flat])]


def judge_content(cases: Sequence[ContentCase], judge: Judge) -> list[ContentVerdict]:
    """Judge every case; all sub-claims of all cases go to the model in one batch."""
    flat: list[tuple[int, str, str, list[str]]] = []
    for ci, case in enumerate(cases):
        for sub in split_subclaims(case.claim):
            prompt, passages = _prompt(sub, case)
            flat.append((ci, sub, prompt, passages))
    per_case: list[list[dict[str, Any]]] = [[] for _ in cases]
    if judge.scorer is not None:
        for (ci, sub, _, passages), rec in zip(flat, _scored(judge.scorer, flat), strict=True):
            per_case[ci].append({"subclaim": sub, **rec, "passages": passages})
    else:
        outcomes = judge.ask([f[2] for f in flat], ClaimSupport) if flat else []
        tmpl = template_sha256(TEMPLATE)[:12]
        for (ci, sub, _, passages), o in zip(flat, outcomes, strict=True):
            per_case[ci].append({"subclaim": sub, "label": o.answer.label if o.answer else None,
                                 "missing": o.answer.missing if o.answer else None, "passages": passages,
                                 "request_hash": o.request_hash, "error": o.error,
                                 "template": f"{TEMPLATE}@{tmpl}"})
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
            verdicts.append(ContentVerdict("Yes", f"Yes. According to {where} of {case.work.id}, {what} stated there.",
                                           records))
        else:
            first = missing[0]
            gap = f" (missing: {first['missing']})" if first["missing"] else ""
            if first.get("score") is not None:
                gap = f" (support score {first['score']:.2f}, below the calibrated {first['threshold']:.2f})"
            more = f"; {len(missing) - 1} more part(s) unsupported" if len(missing) > 1 else ""
            verdicts.append(ContentVerdict(
                "No", f"No. {where.capitalize()} of {case.work.id} does not support \"{first['subclaim'][:160].rstrip('.')}\""
                      f"{gap}{more}.", records))
    return verdicts
