r"""The ``rag-audit`` task: are the citations of a RAG answer real, right, complete and well written.

Deterministic (never depends on the model):

* **EXISTS** — every key of every citation, in any form, is a retrieved ``chunk_id``; with no
  retrieved chunks every citation fails;
* **FORMATTED** — only well-formed ``\\cite{id}`` / ``\\cite{a,b}``; every other form found by
  :mod:`citejudge.tasks.rag_parse` (``[id]``, ``[1]``, ``(id)``, ``\\citep{}``, ``【id】``,
  ``[^id]``, bare ids, empty/unclosed ``\\cite``) is an issue, and mixing forms is one more;
* the language of every message (:mod:`citejudge.tasks.rag_lang`), the sentence split, the
  composition (verdict FAIL if any dimension fails; summary of 1–3 sentences; concrete
  recommendations).

Judged, with rules in front of the model:

* **ACCURATE** — each sentence with citations is checked against the text of the chunks it
  cites (the most relevant sentences of each chunk, :func:`citejudge.tasks.content.closest_sentences`).
  Decided without the model, as FAIL: a cited chunk that does not exist ("cannot verify"), a
  cited chunk without text, and a sentence that shares no content word (5-letter stems, so
  Czech inflection still matches) with the cited text. Otherwise the judge answers
  SUPPORTED / NOT_SUPPORTED / CONTRADICTED.
* **COMPLETE** — each sentence without any citation goes through
  :func:`citejudge.tasks.rag_parse.citation_need`: clear non-claims pass, clear factual
  sentences (a number or a name in six or more words) fail, the rest go to the judge.

Bias toward FAIL ("a false PASS is worse than a false FAIL"): only an explicit SUPPORTED passes a
sentence, and only an explicit "no" excuses an uncited undecided sentence. A missing or invalid
judge answer (or a failing scorer) makes the item a per-item error of kind "judge", counted against
the error budget; the FAIL result it would have had (with a "could not verify" issue) is kept in
``details.partial_result``.
ACCURATE is answered by the model card's support decider
(:func:`citejudge.judge.deciders.support_decider`: the LLM, or the card's calibrated scorer, which
says SUPPORTED only at or above its calibrated threshold); :class:`RagAuditStage`'s ``support``
and ``need`` callables replace the decisions wholesale (tests, benchmarks). At most :data:`MAX_JUDGED` sentences per item and
dimension are judged; the rest fail the dimension as "not verified".

With ``--no-llm`` nothing is judged: ACCURATE fails with "not evaluated" when any sentence
would have needed the judge, and COMPLETE fails likewise when an uncited sentence is undecided
by the rules — so the verdict is never a PASS that nobody checked. A dimension the rules decide
completely (e.g. no citations at all → nothing to be inaccurate; every sentence cited) keeps
its deterministic status.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from citejudge.io import Item, OutputLine, input_error
from citejudge.judge.decide import SupportDecider, SupportQuestion
from citejudge.judge.deciders import SupportForm, support_decider
from citejudge.judge.prompts import render, template_sha256
from citejudge.match.normalize import fold
from citejudge.tasks.content import closest_sentences
from citejudge.tasks.protocol import Checker, JudgeFactory, TaskOptions
from citejudge.tasks.rag_lang import msg, resolve_language
from citejudge.tasks.rag_parse import Citation, citation_need, parse_citations, split_answer
from citejudge.tasks.rag_schemas import ChunkSupport, CitationNeed
from citejudge.text import Lang, split_sentences

__all__ = [
    "MAX_ANSWER_CHARS",
    "MAX_JUDGED",
    "NEED_TEMPLATE",
    "SUPPORT_FORM",
    "SUPPORT_TEMPLATE",
    "RagAuditStage",
    "analyse",
    "audit_item",
    "compose",
    "make_checker",
    "make_stage",
    "support_from_decider",
    "validate_options",
]

log = logging.getLogger(__name__)

TASK = "rag-audit"
SUPPORT_TEMPLATE = "rag_support.v1"
NEED_TEMPLATE = "rag_need.v1"
#: How the LLM answers ACCURATE for one sentence (prompt :data:`SUPPORT_TEMPLATE`).
SUPPORT_FORM = SupportForm(
    ChunkSupport,
    {"SUPPORTED": "SUPPORTED", "NOT_SUPPORTED": "NOT_SUPPORTED", "CONTRADICTED": "CONTRADICTED"},
    "missing",
)
#: Larger answers are an input error (a 100 KB answer is fine).
MAX_ANSWER_CHARS = 1_000_000
#: Sentences judged per item and dimension; beyond that the dimension fails as "not verified".
MAX_JUDGED = 150
#: Issues listed per dimension before "… and N more".
MAX_ISSUES = 12
MAX_RECOMMENDATIONS = 12
#: Passages per cited chunk and their character budget.
PASSAGES_PER_CHUNK = 3
EVIDENCE_CHARS = 1500
DIMENSIONS = ("exists", "accurate", "complete", "formatted")

_STEM = re.compile(r"[a-z0-9]{4,}")
_STOP_STEMS = frozenset(
    {
        "that",
        "this",
        "with",
        "from",
        "have",
        "were",
        "which",
        "their",
        "there",
        "these",
        "also",
        "been",
        "into",
        "more",
        "than",
        "when",
        "what",
        "jsou",
        "byla",
        "bylo",
        "byli",
        "jako",
        "ktery",
        "ktera",
        "ktere",
        "take",
        "podl",
        "tento",
        "tato",
    }
)


class InputProblem(ValueError):
    """An item that cannot be audited (e.g. no answer text)."""

    def __init__(self, message: str, field_name: str) -> None:
        super().__init__(message)
        self.field = field_name


def _short(text: str, limit: int = 80) -> str:
    s = " ".join(text.split())
    if len(s) <= limit:
        return s
    cut = s[:limit].rsplit(" ", 1)[0]
    return (cut if len(cut) > limit // 2 else s[:limit]).rstrip(",;: ") + "…"


def _stems(text: str) -> set[str]:
    return {
        w[:5] for w in _STEM.findall(fold(text)) if w[:4] not in _STOP_STEMS and not w.isdigit()
    } | {w for w in _STEM.findall(fold(text)) if w.isdigit()}


# ------------------------------------------------------------------------------ input


@dataclass
class _Input:
    query: str
    answer: str
    chunks: dict[str, str]
    order: list[str]
    language: Lang
    language_source: str
    warnings: list[str] = field(default_factory=list)


def _read_item(data: dict[str, Any]) -> _Input:
    answer = data.get("answer")
    if answer is None:
        raise InputProblem("the item has no 'answer'", "answer")
    if not isinstance(answer, str):
        raise InputProblem(f"'answer' must be a string, not {type(answer).__name__}", "answer")
    if not answer.strip():
        raise InputProblem("'answer' is empty", "answer")
    if len(answer) > MAX_ANSWER_CHARS:
        raise InputProblem(
            f"'answer' has {len(answer):,} characters (limit {MAX_ANSWER_CHARS:,})", "answer"
        )
    query = data.get("query")
    warnings: list[str] = []
    if query is None:
        query = ""
        warnings.append("no query")
    elif not isinstance(query, str):
        raise InputProblem(f"'query' must be a string, not {type(query).__name__}", "query")
    raw_chunks = data.get("retrieved_chunks")
    if raw_chunks is None:
        raw_chunks = []
        warnings.append("no retrieved_chunks: treated as an empty list")
    if not isinstance(raw_chunks, list):
        raise InputProblem(
            f"'retrieved_chunks' must be a list, not {type(raw_chunks).__name__}",
            "retrieved_chunks",
        )
    chunks: dict[str, str] = {}
    order: list[str] = []
    for n, ch in enumerate(raw_chunks):
        if not isinstance(ch, dict):
            warnings.append(f"retrieved_chunks[{n}] is not an object: ignored")
            continue
        cid = ch.get("chunk_id")
        if isinstance(cid, bool) or not isinstance(cid, (str, int)) or not str(cid).strip():
            warnings.append(f"retrieved_chunks[{n}] has no usable chunk_id: ignored")
            continue
        cid = str(cid).strip()
        text = ch.get("text")
        if not isinstance(text, str):
            warnings.append(
                f"chunk {cid} has no text" if text is None else f"chunk {cid}: text is not a string"
            )
            text = ""
        if cid in chunks:
            warnings.append(f"chunk id {cid} occurs more than once: its texts are joined")
            chunks[cid] = (chunks[cid] + "\n" + text).strip()
        else:
            chunks[cid] = text
            order.append(cid)
    lang, how = resolve_language(data.get("language"), query, answer)
    return _Input(query, answer, chunks, order, lang, how, warnings)


# ------------------------------------------------------------------------------ analysis


def _ids_text(order: Sequence[str], limit: int = 8) -> str:
    shown = ", ".join(order[:limit])
    return shown + (", …" if len(order) > limit else "")


def _cite_record(c: Citation) -> dict[str, Any]:
    return {"form": c.form, "raw": c.raw[:200], "keys": list(c.keys), "problem": c.problem}


def analyse(data: dict[str, Any]) -> dict[str, Any]:
    """Deterministic analysis of one item: the record :func:`compose` turns into a result.

    Raises :class:`InputProblem` when the item cannot be audited.
    """
    inp = _read_item(data)
    lang = inp.language
    cites = parse_citations(inp.answer, inp.order)
    sentences = split_answer(inp.answer, cites)
    known = set(inp.chunks)

    exists: list[dict[str, str]] = []  # {"issue", "rec"}
    formatted: list[dict[str, str]] = []
    accurate_rule: list[dict[str, str]] = []
    support_requests: list[dict[str, Any]] = []
    complete_rule: list[dict[str, str]] = []
    need_requests: list[dict[str, Any]] = []
    sent_records: list[dict[str, Any]] = []
    n_cited = 0
    n_uncited = 0
    accurate_skipped = 0
    complete_skipped = 0

    forms_used: dict[str, int] = {}
    for s in sentences:
        short = _short(s.plain or s.text)
        rec: dict[str, Any] = {
            "i": s.index,
            "text": _short(s.text, 300),
            "citations": [_cite_record(c) for c in s.citations],
        }
        for c in s.citations:
            forms_used[c.form] = forms_used.get(c.form, 0) + 1
            if c.form == "malformed":
                formatted.append(
                    {
                        "issue": msg(
                            lang,
                            "fmt.malformed",
                            sentence=short,
                            raw=c.raw[:60],
                            why=msg(lang, f"why.{c.problem or 'empty'}"),
                        ),
                        "rec": msg(lang, "rec.change", raw=c.raw[:60], fix=c.fix())
                        if c.keys
                        else msg(lang, "rec.fix_malformed", raw=c.raw[:60]),
                    }
                )
            elif c.form != "cite":
                formatted.append(
                    {
                        "issue": msg(
                            lang,
                            "fmt.wrong",
                            sentence=short,
                            chunk=", ".join(c.keys),
                            raw=c.raw[:60],
                            form=msg(lang, f"form.{c.form}"),
                            fix=c.fix(),
                        ),
                        "rec": msg(lang, "rec.change", raw=c.raw[:60], fix=c.fix()),
                    }
                )
            for k in c.keys:
                if k not in known:
                    avail = (
                        msg(lang, "exists.avail", ids=_ids_text(inp.order))
                        if inp.order
                        else msg(lang, "exists.none_available")
                    )
                    exists.append(
                        {
                            "issue": msg(
                                lang,
                                "exists.missing",
                                sentence=short,
                                cite=c.raw[:60],
                                chunk=k,
                                avail=avail,
                            ),
                            "rec": msg(lang, "rec.replace", chunk=k, ids=_ids_text(inp.order))
                            if inp.order
                            else msg(lang, "rec.remove", chunk=k),
                        }
                    )
        keys = s.keys
        if keys:
            n_cited += 1
            missing = [k for k in keys if k not in known]
            empty = [k for k in keys if k in known and not inp.chunks[k].strip()]
            if missing:
                accurate_rule.append(
                    {
                        "issue": msg(lang, "acc.nonexistent", sentence=short, chunk=missing[0]),
                        "rec": "",
                    }
                )
                rec["accurate"] = "rule:nonexistent"
            elif empty:
                accurate_rule.append(
                    {"issue": msg(lang, "acc.notext", sentence=short, chunk=empty[0]), "rec": ""}
                )
                rec["accurate"] = "rule:no text"
            else:
                claim = s.plain or s.text
                evidence: list[str] = []
                per = max(300, EVIDENCE_CHARS // len(keys))
                for k in keys:
                    passages = closest_sentences(
                        claim, split_sentences(inp.chunks[k]), PASSAGES_PER_CHUNK, per
                    )
                    evidence.append(f"[{k}] " + " ".join(passages))
                chunk_names = ", ".join(keys)
                if not (_stems(claim) & _stems(" ".join(inp.chunks[k] for k in keys))):
                    accurate_rule.append(
                        {
                            "issue": msg(
                                lang, "acc.unsupported", sentence=short, chunks=chunk_names, gap=""
                            ),
                            "rec": msg(
                                lang, "rec.support", sentence=_short(claim, 60), chunks=chunk_names
                            ),
                        }
                    )
                    rec["accurate"] = "rule:no shared words"
                elif len(support_requests) >= MAX_JUDGED:
                    accurate_skipped += 1
                    rec["accurate"] = "skipped"
                else:
                    support_requests.append(
                        {
                            "sentence": s.index,
                            "claim": claim[:2000],
                            "short": short,
                            "chunks": keys,
                            "evidence": "\n".join(evidence),
                        }
                    )
                    rec["accurate"] = "judge"
        else:
            n_uncited += 1
            need, rule = citation_need(s.plain or s.text, inp.query)
            rec["need"] = f"{need}:{rule}"
            if need == "yes":
                complete_rule.append(
                    {
                        "issue": msg(lang, "cmp.missing", sentence=short),
                        "rec": msg(lang, "rec.add", sentence=_short(s.plain or s.text, 60)),
                    }
                )
            elif need == "judge":
                if len(need_requests) >= MAX_JUDGED:
                    complete_skipped += 1
                else:
                    need_requests.append(
                        {"sentence": s.index, "text": (s.plain or s.text)[:2000], "short": short}
                    )
        if (
            s.citations
            or rec.get("need", "").startswith(("yes", "judge"))
            or len(sent_records) < 50
        ):
            sent_records.append(rec)
    distinct_forms = [f for f in forms_used if f != "malformed"]
    if len(distinct_forms) > 1:
        names = ", ".join(
            msg(lang, f"form.{f}") for f in sorted(distinct_forms, key=lambda f: f != "cite")
        )
        formatted.append(
            {"issue": msg(lang, "fmt.mixed", forms=names), "rec": msg(lang, "rec.consistent")}
        )
    return {
        "language": lang,
        "language_source": inp.language_source,
        "warnings": inp.warnings,
        "query": inp.query[:2000],
        "chunk_ids": inp.order[:200],
        "n_chunks": len(inp.order),
        "n_sentences": len(sentences),
        "n_citations": len(cites),
        "n_cited_sentences": n_cited,
        "n_uncited_sentences": n_uncited,
        "sentences": sent_records,
        "exists": exists,
        "formatted": formatted,
        "accurate": {
            "rule": accurate_rule,
            "requests": support_requests,
            "skipped": accurate_skipped,
            "total": n_cited,
        },
        "complete": {
            "rule": complete_rule,
            "requests": need_requests,
            "skipped": complete_skipped,
            "total": n_uncited,
        },
    }


# ------------------------------------------------------------------------------ composition


def _capped(lang: Lang, issues: list[str]) -> list[str]:
    if len(issues) <= MAX_ISSUES:
        return issues
    return [*issues[: MAX_ISSUES - 1], msg(lang, "more", n=len(issues) - (MAX_ISSUES - 1))]


def compose(
    analysis: dict[str, Any],
    support: list[dict[str, Any]] | None,
    need: list[dict[str, Any]] | None,
) -> dict[str, Any]:
    """The spec's result object from the deterministic analysis and the judged decisions.

    ``support`` / ``need`` hold one ``{"label"|"needs_citation": ..., "missing"?}`` per request
    (``label`` None when no valid answer came back); None means nothing was judged.
    """
    lang: Lang = analysis["language"]
    dims: dict[str, list[str]] = {d: [] for d in DIMENSIONS}
    recs: list[str] = []
    not_evaluated = False
    unverified = False

    for d in ("exists", "formatted"):
        for f in analysis[d]:
            dims[d].append(f["issue"])
            recs.append(f["rec"])

    acc = analysis["accurate"]
    for f in acc["rule"]:
        dims["accurate"].append(f["issue"])
        if f["rec"]:
            recs.append(f["rec"])
    if acc["requests"]:
        if support is None:
            dims["accurate"].append(msg(lang, "acc.not_evaluated", n=len(acc["requests"])))
            not_evaluated = True
        else:
            for req, dec in zip(acc["requests"], support, strict=True):
                chunks = ", ".join(req["chunks"])
                label = dec.get("label")
                if label == "SUPPORTED":
                    continue
                if label is None:
                    dims["accurate"].append(
                        msg(lang, "acc.unverified", sentence=req["short"], chunks=chunks)
                    )
                    unverified = True
                    continue
                gap = (
                    msg(lang, "acc.gap", missing=_short(dec.get("missing") or "", 100))
                    if (dec.get("missing") or "").strip()
                    else ""
                )
                key = "acc.contradicted" if label == "CONTRADICTED" else "acc.unsupported"
                dims["accurate"].append(
                    msg(lang, key, sentence=req["short"], chunks=chunks, gap=gap)
                )
                recs.append(
                    msg(lang, "rec.support", sentence=_short(req["claim"], 60), chunks=chunks)
                )
    if acc["skipped"]:
        dims["accurate"].append(
            msg(lang, "acc.too_long", k=acc["total"] - acc["skipped"], n=acc["total"])
        )
        unverified = True

    cmp_ = analysis["complete"]
    for f in cmp_["rule"]:
        dims["complete"].append(f["issue"])
        recs.append(f["rec"])
    if cmp_["requests"]:
        if need is None:
            dims["complete"].append(msg(lang, "cmp.not_evaluated", n=len(cmp_["requests"])))
            not_evaluated = True
        else:
            for req, dec in zip(cmp_["requests"], need, strict=True):
                ans = dec.get("needs_citation")
                if ans == "no":
                    continue
                if ans is None:
                    dims["complete"].append(msg(lang, "cmp.unverified", sentence=req["short"]))
                    unverified = True
                    continue
                dims["complete"].append(msg(lang, "cmp.missing", sentence=req["short"]))
                recs.append(msg(lang, "rec.add", sentence=_short(req["text"], 60)))
    if cmp_["skipped"]:
        dims["complete"].append(
            msg(lang, "cmp.too_long", k=cmp_["total"] - cmp_["skipped"], n=cmp_["total"])
        )
        unverified = True

    if not_evaluated:
        recs.append(msg(lang, "rec.rerun"))
    if unverified:
        recs.append(msg(lang, "rec.review"))
    failed = [d for d in DIMENSIONS if dims[d]]
    verdict = "FAIL" if failed else "PASS"
    if verdict == "PASS":
        n = analysis["n_citations"]
        summary = msg(lang, "sum.pass", n=n) if n else msg(lang, "sum.pass_none")
    else:
        parts = [
            msg(lang, "sum.fail", dims=", ".join(msg(lang, f"dim.{d}") for d in failed)),
            msg(
                lang,
                "sum.counts",
                issues=sum(len(dims[d]) for d in DIMENSIONS),
                sentences=analysis["n_sentences"],
                cites=analysis["n_citations"],
            ),
        ]
        if not_evaluated:
            parts.append(msg(lang, "sum.not_evaluated"))
        summary = " ".join(parts)
    return {
        "verdict": verdict,
        "dimensions": {
            d: {"status": "FAIL" if dims[d] else "PASS", "issues": _capped(lang, dims[d])}
            for d in DIMENSIONS
        },
        "summary": summary,
        "recommendations": list(dict.fromkeys(r for r in recs if r))[:MAX_RECOMMENDATIONS],
    }


def audit_item(item: Item) -> OutputLine:
    """The deterministic stage: analysis plus a complete result in which nothing was judged."""
    try:
        analysis = analyse(item.data)
    except InputProblem as exc:
        return input_error(item, TASK, str(exc), exc.field)
    details: dict[str, Any] = {"rag": analysis, "judged": False}
    return OutputLine(item.id, TASK, compose(analysis, None, None), details, None)


# ------------------------------------------------------------------------------ judged stage

SupportFn = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]


def _lang_name(lang: str) -> str:
    return "in Czech" if lang == "cs" else "in English"


@dataclass
class RagAuditStage:
    """ACCURATE and COMPLETE for a batch: one support decision batch and one ``judge.ask`` for all sentences.

    ``support`` and ``need`` are the swappable decision functions; by default ACCURATE goes to the
    card's support decider (:func:`support_from_decider`) and COMPLETE to the judge.
    Each takes the batch's request records (with ``query`` and ``language`` added) and returns one
    decision dict per request (``label``/``missing`` resp. ``needs_citation``, ``None`` when
    undecided) plus what explains it (``request_hash``, ``error``).
    """

    judge: Any
    support: SupportFn | None = None
    need: SupportFn | None = None

    def _ask_support(self, reqs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return support_from_decider(support_decider(self.judge, SUPPORT_FORM))(reqs)

    def _ask_need(self, reqs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        prompts = [render(NEED_TEMPLATE, question=r["query"], sentence=r["text"]) for r in reqs]
        outs = self.judge.ask(prompts, CitationNeed) if prompts else []
        return [
            {
                "needs_citation": o.answer.needs_citation if o.answer else None,
                "request_hash": o.request_hash,
                "error": o.error,
            }
            for o in outs
        ]

    def apply(self, pairs: list[tuple[Item, OutputLine]]) -> None:
        """Judge every pending sentence of the batch and recompose each result in place."""
        live = [ln for _, ln in pairs if ln.result is not None and "rag" in ln.details]
        sup_reqs: list[dict[str, Any]] = []
        need_reqs: list[dict[str, Any]] = []
        for ln in live:
            a = ln.details["rag"]
            sup_reqs.extend(
                {**r, "query": a["query"], "language": a["language"]}
                for r in a["accurate"]["requests"]
            )
            need_reqs.extend(
                {**r, "query": a["query"], "language": a["language"]}
                for r in a["complete"]["requests"]
            )
        sup = (self.support or self._ask_support)(sup_reqs) if sup_reqs else []
        nee = (self.need or self._ask_need)(need_reqs) if need_reqs else []
        if len(sup) != len(sup_reqs) or len(nee) != len(need_reqs):
            log.warning(
                "decision function returned the wrong number of answers; treating all as unverified"
            )
            sup = [{"label": None, "error": "wrong answer count"} for _ in sup_reqs]
            nee = [{"needs_citation": None, "error": "wrong answer count"} for _ in need_reqs]
        si = ni = 0
        templates = {
            SUPPORT_TEMPLATE: template_sha256(SUPPORT_TEMPLATE)[:12],
            NEED_TEMPLATE: template_sha256(NEED_TEMPLATE)[:12],
        }
        for ln in live:
            a = ln.details["rag"]
            k, m = len(a["accurate"]["requests"]), len(a["complete"]["requests"])
            s_dec, n_dec = sup[si : si + k], nee[ni : ni + m]
            si, ni = si + k, ni + m
            ln.result = compose(a, s_dec, n_dec)
            ln.details["judged"] = bool(k or m)
            ln.details["judge"] = {"templates": templates, "support": s_dec, "need": n_dec}
            failed = [
                d for d in (*s_dec, *n_dec) if d.get("label", d.get("needs_citation", "")) is None
            ]
            if failed:  # no valid decision for some sentence: an error, not a verdict
                ln.error = {
                    "kind": "judge",
                    "field": "answer",
                    "message": f"{len(failed)} sentence decision(s) without a valid answer: "
                    f"{failed[0].get('error') or 'no valid answer'}",
                }
                ln.details["partial_result"] = ln.result
                ln.result = None


_CHUNK_TAG = re.compile(r"^\[[^\]]*\] ", flags=re.M)


def support_from_decider(decider: SupportDecider) -> SupportFn:
    """ACCURATE decisions (the stage's request and decision records) from a support decider.

    The LLM reads the rendered prompt; a CPU decider reads the sentence and the cited passages
    without their ``[chunk_id]`` tags, and its decisions say which scorer made them.
    """

    def decide(reqs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        questions = [
            SupportQuestion(
                r["claim"],
                _CHUNK_TAG.sub("", r["evidence"]),
                render(
                    SUPPORT_TEMPLATE,
                    question=r["query"],
                    evidence=r["evidence"],
                    claim=r["claim"],
                    language=_lang_name(r["language"]),
                ),
            )
            for r in reqs
        ]
        out: list[dict[str, Any]] = []
        for d in decider.decide(questions):
            if d.kind == "llm":
                out.append(
                    {
                        "label": SUPPORT_FORM.task_label(d.label),
                        "missing": d.rationale if d.rationale is not None else "",
                        "request_hash": d.request_hash,
                        "error": d.error,
                    }
                )
            elif d.label is None:
                out.append({"label": None, "error": d.error})
            else:
                out.append(
                    {"label": SUPPORT_FORM.task_label(d.label), "missing": "", "scorer": d.decider}
                )
        return out

    return decide


# ------------------------------------------------------------------------------ entry points


def validate_options(opts: TaskOptions) -> None:
    """``rag-audit`` needs no index; nothing to check before the run."""
    return None


def make_checker(opts: TaskOptions) -> Checker:
    """The deterministic stage (no state to build)."""
    return audit_item


def make_stage(opts: TaskOptions, make_judge: JudgeFactory) -> RagAuditStage:
    """The judged stage: ACCURATE and COMPLETE through the model card's judge."""
    from citejudge.tasks.rag_schemas import ChunkSupport, CitationNeed

    judge = make_judge([SUPPORT_TEMPLATE, NEED_TEMPLATE], [ChunkSupport, CitationNeed])
    return RagAuditStage(judge)
