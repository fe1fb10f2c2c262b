"""The report's item rows: one per item (one per citation for ``citation-eval``), read from result lines.

A row carries what a person needs to go from a number to an item: its verdicts (one label per
*view*, see :data:`VIEW_SPECS`), an *outcome* that orders failures and errors first, the
one-line reason the result already carries, *facets* (``(group, value)`` pairs such as
``("Failing field", "year")``) that the report's counts link to, and — built only for the rows
the page shows — the item's details as plain blocks (facts, small tables, lines): matched
record, each field as cited and as recorded, candidates, evidence and which decider decided.

Everything here is data; :mod:`citejudge.run.report_page` lays it out. Every string comes from
the results file and is untrusted: the template escapes it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ERROR_LABEL",
    "OUTCOMES",
    "PRIMARY_VIEW",
    "REASON_CHARS",
    "VIEW_SPECS",
    "Block",
    "DeciderCount",
    "Facet",
    "Fact",
    "Grid",
    "ItemRow",
    "Lines",
    "ViewSpec",
    "decider_counts",
    "item_rows",
    "line_details",
    "row_details",
    "short",
    "within_budget",
]

ERROR_LABEL = "ERROR"
Facet = tuple[str, str]

#: Row outcomes, in the order the item table shows them.
OUTCOMES = ("error", "failed", "unverified", "n/a", "passed")
OUTCOME = "Outcome"
#: Longest string a detail block shows; longer ones end in "…" (the results file has them whole).
DETAIL_CHARS = 400
REASON_CHARS = 300
#: Characters of text an item's details show at most (a page's size stays proportional to its rows).
DETAIL_BUDGET = 3000
_MAX_GRID_ROWS = 12


@dataclass(frozen=True, slots=True)
class ViewSpec:
    """A labeling of a task's rows read from one result field, and how its labels read."""

    name: str
    title: str
    unit: str
    labels: tuple[str, ...]
    gold: bool
    column: str
    good: frozenset[str]
    bad: frozenset[str]

    def tone(self, label: str) -> str:
        """``ok``, ``bad``, ``err`` or ``na``: how a label of this view reads (a CSS class name)."""
        if label == ERROR_LABEL:
            return "err"
        if label in self.good:
            return "ok"
        if label in self.bad:
            return "bad"
        return "na"


def _spec(
    name: str,
    title: str,
    unit: str,
    labels: Sequence[str],
    column: str,
    good: Iterable[str],
    bad: Iterable[str],
    *,
    gold: bool = False,
) -> ViewSpec:
    return ViewSpec(name, title, unit, tuple(labels), gold, column, frozenset(good), frozenset(bad))


_DIMS = ("exists", "accurate", "complete", "formatted")

#: The views of each task, in the order the report shows them (the first gold view is compared
#: with gold labels; ``unit`` says what a view counts).
VIEW_SPECS: dict[str, tuple[ViewSpec, ...]] = {
    "references": (
        _spec(
            "reference_grounding",
            "Reference grounding",
            "item",
            ["Yes", "No", "N/A"],
            "reference",
            ["Yes"],
            ["No"],
            gold=True,
        ),
        _spec(
            "content_grounding",
            "Content grounding",
            "item",
            ["Yes", "No", "N/A"],
            "content",
            ["Yes"],
            ["No"],
        ),
        _spec("hallucination", "Hallucination", "item", ["Yes", "No"], "halluc.", ["No"], ["Yes"]),
    ),
    "rag-audit": (
        _spec(
            "verdict", "Verdict", "item", ["PASS", "FAIL"], "verdict", ["PASS"], ["FAIL"], gold=True
        ),
        *(
            _spec(
                f"dimension.{d}", f"Dimension: {d}", "item", ["PASS", "FAIL"], d, ["PASS"], ["FAIL"]
            )
            for d in _DIMS
        ),
    ),
    "citation-eval": (
        _spec(
            "citation_support",
            "Citation support",
            "citation",
            ["ENTAILMENT", "NEUTRAL", "CONTRADICTION"],
            "support",
            ["ENTAILMENT"],
            ["NEUTRAL", "CONTRADICTION"],
            gold=True,
        ),
        _spec(
            "source_verification",
            "Source verification",
            "citation",
            ["VERIFIED", "UNCERTAIN", "LIKELY_FABRICATED"],
            "source",
            ["VERIFIED"],
            ["LIKELY_FABRICATED"],
        ),
        _spec(
            "alignment",
            "Answer alignment",
            "item",
            ["CORRECT", "PARTIALLY_CORRECT", "INCORRECT"],
            "answer",
            ["CORRECT"],
            ["INCORRECT"],
            gold=True,
        ),
    ),
}
#: The view whose label groups rows for the page's per-verdict row limit.
PRIMARY_VIEW = {
    "references": "reference_grounding",
    "rag-audit": "verdict",
    "citation-eval": "citation_support",
}


# ------------------------------------------------------------------------------ detail blocks


@dataclass(frozen=True, slots=True)
class Fact:
    """One labelled value of an item's details."""

    label: str
    value: str
    kind: str = "fact"


@dataclass(frozen=True, slots=True)
class Grid:
    """A small table of an item's details; ``flagged`` marks the rows that failed."""

    title: str
    head: list[str]
    rows: list[list[str]]
    flagged: list[bool]
    total: int = 0
    """How many rows the item has (more than ``rows`` when some were left out)."""
    kind: str = "grid"

    @property
    def note(self) -> str:
        """``first k of n`` when rows were left out, else empty."""
        return f"first {len(self.rows)} of {self.total}" if self.total > len(self.rows) else ""


@dataclass(frozen=True, slots=True)
class Lines:
    """A titled list of texts (issues, recommendations, passages)."""

    title: str
    lines: list[str]
    kind: str = "lines"


Block = Fact | Grid | Lines


# ------------------------------------------------------------------------------ rows


@dataclass
class ItemRow:
    """One row of the item table."""

    key: str
    """``ID``, or ``ID#CITATION_ID`` for a citation (``ID#?`` for a failed citation-eval item)."""
    item_id: str
    citation: str | None
    line: int
    """The line of ``results.jsonl`` the row comes from."""
    labels: dict[str, str]
    """View name → label, for the views this row has."""
    explanations: dict[str, str]
    outcome: str
    reason: str
    more: list[str]
    facets: list[Facet]
    extra: dict[str, Any]
    source: dict[str, Any] = field(repr=False)
    """The result line (details are built from it for the rows the page shows)."""
    index: int = 0
    """Position of the row in :func:`item_rows`'s list (input order)."""

    def has(self, facet: Facet) -> bool:
        """Whether the row carries ``facet``."""
        return facet in self.facets

    def add(self, group: str, value: str) -> None:
        """Add a facet once."""
        f = (group, value)
        if f not in self.facets:
            self.facets.append(f)


def short(text: Any, limit: int = DETAIL_CHARS) -> str:
    """``text`` as one line of at most ``limit`` characters (``…`` marks a cut)."""
    s = " ".join(str(text if text is not None else "").split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


def _d(x: Any) -> dict[str, Any]:
    return x if isinstance(x, dict) else {}


def _l(x: Any) -> list[Any]:
    return x if isinstance(x, list) else []


def _str(x: Any) -> str:
    if x is None:
        return "–"
    if isinstance(x, list):
        return ", ".join(_str(v) for v in x)
    if isinstance(x, (dict, bool)):
        return json.dumps(x, ensure_ascii=False, sort_keys=True, default=str)
    return str(x)


def prefix(value: Any) -> str:
    """``Yes``/``No``/``N/A`` of an explanation such as ``"No. Year mismatch…"``, else the text itself."""
    text = str(value or "").strip()
    head = text.split(".", 1)[0].strip()
    return head if head in ("Yes", "No", "N/A") else (text or "(empty)")


def _error_text(line: dict[str, Any]) -> str:
    err = line.get("error")
    if isinstance(err, dict):
        where = ""
        if err.get("file") or err.get("line"):
            where = f" ({err.get('file') or '?'}:{err.get('line') or '?'})"
        fld = f" [field {err['field']}]" if err.get("field") else ""
        return f"{err.get('kind', 'error')}: {err.get('message', '')}{fld}{where}"
    return str(err)


def _new_row(line: dict[str, Any], n: int, key: str, citation: str | None) -> ItemRow:
    extra = dict(_d(_d(line.get("details")).get("input_extra")))
    return ItemRow(
        key=key,
        item_id=str(line.get("id")),
        citation=citation,
        line=n,
        labels={},
        explanations={},
        outcome="passed",
        reason="",
        more=[],
        facets=[],
        extra=extra,
        source=line,
    )


def _error_row(task: str, line: dict[str, Any], n: int, key: str, citation: str | None) -> ItemRow:
    row = _new_row(line, n, key, citation)
    msg = _error_text(line)
    for spec in VIEW_SPECS[task]:
        row.labels[spec.name] = ERROR_LABEL
        row.explanations[spec.name] = msg
    row.outcome, row.reason = "error", msg
    err = line.get("error")
    row.add("Error kind", str(_d(err).get("kind") or "error"))
    return row


# ------------------------------------------------------------------------------ references


_ID_FIELDS = ("doi", "arxiv", "pmid", "pmcid", "openalex", "url", "isbn", "issn")
_STATUS_WORDS = {
    "not_found": "not found",
    "ambiguous": "ambiguous",
    "id_conflict": "identifier conflict",
    "nothing_stated": "nothing to look up",
}


def content_basis(line: dict[str, Any]) -> tuple[str, str]:
    """Who decided a references item's content grounding, and on what basis.

    Decider: ``LLM``, ``scorer (<name>)`` or ``none``; basis: ``judged``, ``reference not
    grounded``, ``abstention``, ``not judged (no model)``, ``no text offline``, ``no claim`` or
    ``error``.
    """
    res = _d(line.get("result"))
    det = _d(line.get("details"))
    content = _d(det.get("content"))
    subs = [s for s in _l(content.get("subclaims")) if isinstance(s, dict)]
    if subs:
        scorer = next((str(s["scorer"]) for s in subs if s.get("scorer")), None)
        if scorer is not None:
            return f"scorer ({scorer})", "judged"
        if any("request_hash" in s for s in subs):
            return "LLM", "judged" if res else "error"
    if not res:
        return "none", "error"
    if res.get("abstention") == "Yes":
        return "none", "abstention"
    if res.get("verification_error") == "Yes" and prefix(res.get("reference_grounding")) == "N/A":
        return "none", "source cannot be opened offline"
    if det.get("grounded") is False or prefix(res.get("reference_grounding")) == "No":
        return "none", "reference not grounded"
    if "content" in det and content.get("evidence") is None:
        return "none", "no text offline"
    cg = str(res.get("content_grounding") or "")
    if "states no claim" in cg:  # tasks.references.NO_CLAIM
        return "none", "no claim"
    return "none", "not judged (no model)"


def _failing_fields(det: dict[str, Any]) -> list[str]:
    out: list[str] = []
    match = _d(det.get("match"))
    status = str(match.get("status") or "")
    if status and status != "matched":
        out.append(_STATUS_WORDS.get(status, status.replace("_", " ")))
    for f in _l(det.get("fields")):
        f = _d(f)
        if f.get("ok") is False:
            name = str(f.get("field") or "?")
            out.append(f"identifier: {name}" if name in _ID_FIELDS else name)
    if _l(det.get("conflicts")):
        out.append("inconsistent citation")
    return out


def _references_row(line: dict[str, Any], n: int) -> ItemRow:
    key = str(line.get("id"))
    res = line.get("result")
    det = _d(line.get("details"))
    if not isinstance(res, dict):
        row = _error_row("references", line, n, key, None)
        row.add("Match method", "(error)")
        decider, basis = content_basis(line)
        row.add("Content decider", decider)
        row.add("Content basis", basis)
        return row
    row = _new_row(line, n, key, None)
    rg, cg = str(res.get("reference_grounding", "")), str(res.get("content_grounding", ""))
    row.labels = {
        "reference_grounding": prefix(rg),
        "content_grounding": prefix(cg),
        "hallucination": prefix(res.get("hallucination")),
    }
    row.explanations = {
        "reference_grounding": rg,
        "content_grounding": cg,
        "hallucination": rg,
    }
    decider, basis = content_basis(line)
    if res.get("abstention") == "Yes":
        row.outcome = "n/a"
    elif res.get("hallucination") == "Yes" or row.labels["reference_grounding"] == "No":
        row.outcome = "failed"
    elif res.get("verification_error") == "Yes" or row.labels["reference_grounding"] != "Yes":
        row.outcome = "unverified"
    content_first = row.labels["reference_grounding"] == "Yes" and (
        row.labels["content_grounding"] == "No" or res.get("verification_error") == "Yes"
    )
    row.reason = cg if content_first else rg
    row.explanations["hallucination"] = row.reason
    if not content_first and basis == "judged":
        row.more.append(f"content: {cg}")
    elif content_first:
        row.more.append(f"reference: {rg}")
    if row.labels["reference_grounding"] == "No":
        for f in _failing_fields(det) or ["other"]:
            row.add("Failing field", f)
    match = _d(det.get("match"))
    status = str(match.get("status") or "")
    if status == "matched":
        row.add("Match method", str(match.get("method") or "?"))
    elif status:
        row.add("Match method", f"(not matched: {_STATUS_WORDS.get(status, status)})")
    elif res.get("abstention") == "Yes":
        row.add("Match method", "(abstention: not looked up)")
    else:
        row.add("Match method", "(not looked up)")
    row.add("Content decider", decider)
    row.add("Content basis", basis)
    # an item found in a document (``check document``: details.input_extra.document.file): the
    # per-document view links here
    doc = _d(_d(det.get("input_extra")).get("document")).get("file") or det.get("document")
    if isinstance(doc, str) and doc:
        row.add("Document", doc)
    return row


def _grid_value(v: Any) -> str:
    return short(_str(v), 240)


def _grid(
    title: str,
    head: list[str],
    records: Sequence[dict[str, Any]],
    cells: Callable[[dict[str, Any]], list[str]],
    flag: Callable[[dict[str, Any]], bool],
    limit: int = _MAX_GRID_ROWS,
) -> Grid:
    """A grid of the first ``limit`` records, one row each; a note says how many were left out."""
    shown = records[:limit]
    return Grid(title, head, [cells(x) for x in shown], [flag(x) for x in shown], len(records))


def _references_details(row: ItemRow) -> list[Block]:
    line = row.source
    res = _d(line.get("result")) or _d(_d(line.get("details")).get("partial_result"))
    det = _d(line.get("details"))
    out: list[Block] = []
    if line.get("error") is not None:
        out.append(Fact("Error", short(_error_text(line))))
    if res.get("reference_name"):
        out.append(Fact("Cited", short(res.get("reference_name"))))
    for k, title in (
        ("reference_grounding", "Reference grounding"),
        ("content_grounding", "Content grounding"),
    ):
        if res.get(k):
            out.append(Fact(title, short(res[k], 2 * DETAIL_CHARS)))
    flags = [
        f"{k.replace('_', ' ')} {res[k]}"
        for k in ("hallucination", "abstention", "verification_error")
        if k in res
    ]
    if flags:
        out.append(Fact("Flags", ", ".join(flags)))
    ab = _d(det.get("abstention_check"))
    if ab.get("status") not in (None, "no"):
        note = f"{ab.get('status')}" + (f" (phrase '{ab['phrase']}')" if ab.get("phrase") else "")
        if _d(ab.get("judge")):
            note += f"; LLM answer {_d(ab.get('judge')).get('answer')}"
        out.append(Fact("Abstention check", short(note)))
    match = _d(det.get("match"))
    if match:
        status = str(match.get("status") or "?")
        text = (
            f"{match.get('work_id')} via {match.get('method')}"
            if status == "matched"
            else _STATUS_WORDS.get(status, status)
        )
        fam = _l(match.get("family"))
        if fam:
            text += f"; version family {', '.join(map(str, fam[:6]))}"
        notes = [str(x) for x in _l(match.get("notes"))]
        if notes:
            text += "; " + "; ".join(notes)
        out.append(Fact("Matched record", short(text)))
    fields = [_d(f) for f in _l(det.get("fields"))]
    if fields:
        out.append(
            _grid(
                "Fields: as cited and as recorded",
                ["field", "ok", "cited", "record", "reason"],
                fields,
                lambda f: [
                    _str(f.get("field")),
                    "unverified"
                    if f.get("unverified")
                    else ("yes" if f.get("ok") else "no" if f.get("ok") is False else "–"),
                    *(_grid_value(f.get(k)) for k in ("cited", "record", "reason")),
                ],
                lambda f: f.get("ok") is False,
            )
        )
    conflicts = [_d(c) for c in _l(det.get("conflicts"))]
    if conflicts:
        out.append(
            _grid(
                "Inconsistent citation: metadata vs full citation",
                ["field", "metadata", "full citation", "reason"],
                conflicts,
                lambda c: [
                    _str(c.get("field")),
                    *(_grid_value(c.get(k)) for k in ("cited", "record", "reason")),
                ],
                lambda c: True,
            )
        )
    cands = [_d(c) for c in _l(det.get("candidates"))]
    if cands:
        out.append(
            _grid(
                "Candidates",
                ["record", "title", "year", "first author", "score", "via"],
                cands,
                lambda c: [
                    _str(c.get("id")),
                    _grid_value(c.get("title")),
                    _str(c.get("year")),
                    _grid_value(c.get("first_author")),
                    _str(c.get("score")),
                    _str(c.get("via")),
                ],
                lambda c: False,
                limit=5,
            )
        )
    content = _d(det.get("content"))
    decider, basis = content_basis(line)
    dtext = decider if basis == "judged" else f"{decider} ({basis})"
    if content:
        dtext += f"; evidence: {content.get('evidence') or 'none available offline'}"
    out.append(Fact("Content decided by", short(dtext)))
    subs = [_d(s) for s in _l(content.get("subclaims"))]
    if subs:
        out.append(
            _grid(
                "Content: sub-claims",
                ["sub-claim", "label", "decided by", "score / missing"],
                subs,
                lambda s: [
                    _grid_value(s.get("subclaim")),
                    _str(s.get("label")),
                    f"scorer {s['scorer']}"
                    if s.get("scorer")
                    else ("LLM" if "request_hash" in s else "–"),
                    f"{s.get('score')} (threshold {s.get('threshold')})"
                    if s.get("score") is not None
                    else _grid_value(s.get("missing") or s.get("error")),
                ],
                lambda s: s.get("label") != "SUPPORTED",
            )
        )
        passages = [short(p, 300) for p in _l(subs[0].get("passages"))[:4]]
        if passages:
            out.append(Lines("Evidence passages (first sub-claim)", passages))
    return out


# ------------------------------------------------------------------------------ rag-audit


def _rag_row(line: dict[str, Any], n: int) -> ItemRow:
    key = str(line.get("id"))
    det = _d(line.get("details"))
    rag = _d(det.get("rag"))
    lang = str(rag.get("language") or "(unknown)")
    res = line.get("result")
    if not isinstance(res, dict):
        row = _error_row("rag-audit", line, n, key, None)
        if rag.get("language"):
            row.add("Language", lang)
        return row
    row = _new_row(line, n, key, None)
    row.labels["verdict"] = str(res.get("verdict"))
    row.explanations["verdict"] = str(res.get("summary", ""))
    dims = _d(res.get("dimensions"))
    reasons: list[str] = []
    for d in _DIMS:
        dd = _d(dims.get(d))
        status = str(dd.get("status"))
        issues = [str(x) for x in _l(dd.get("issues"))]
        row.labels[f"dimension.{d}"] = status
        row.explanations[f"dimension.{d}"] = "; ".join(issues)
        if status != "PASS":
            row.add("Failing dimension", d)
            reasons.extend(f"{d}: {x}" for x in issues[:2])
    row.add("Language", lang)
    for s in _l(_d(det.get("judge")).get("support")):
        s = _d(s)
        row.add("Support decider", f"scorer ({s['scorer']})" if s.get("scorer") else "LLM")
    verdict = row.labels["verdict"]
    row.outcome = "passed" if verdict == "PASS" else "failed" if verdict == "FAIL" else "unverified"
    row.reason = "; ".join(reasons[:2]) if reasons else str(res.get("summary", ""))
    if len(reasons) > 2:
        row.more.append(f"{len(reasons) - 2} more issue(s)")
    return row


def _rag_details(row: ItemRow) -> list[Block]:
    line = row.source
    det = _d(line.get("details"))
    res = _d(line.get("result")) or _d(det.get("partial_result"))
    rag = _d(det.get("rag"))
    out: list[Block] = []
    if line.get("error") is not None:
        out.append(Fact("Error", short(_error_text(line))))
    if rag.get("query"):
        out.append(Fact("Query", short(rag["query"])))
    if rag:
        out.append(
            Fact(
                "Language",
                f"{rag.get('language')} ({rag.get('language_source') or '?'}); "
                f"{rag.get('n_sentences', '?')} sentence(s), {rag.get('n_citations', '?')} "
                f"citation(s), {rag.get('n_chunks', '?')} retrieved chunk(s)",
            )
        )
    if res.get("summary"):
        out.append(Fact("Summary", short(res["summary"])))
    dims = _d(res.get("dimensions"))
    if dims:
        out.append(
            Grid(
                "Dimensions",
                ["dimension", "status", "issues"],
                [
                    [
                        d,
                        _str(_d(dims.get(d)).get("status")),
                        short("; ".join(str(x) for x in _l(_d(dims.get(d)).get("issues"))), 600)
                        or "–",
                    ]
                    for d in _DIMS
                ],
                [_d(dims.get(d)).get("status") != "PASS" for d in _DIMS],
            )
        )
    judge = _d(det.get("judge"))
    decisions = [_d(x) for x in _l(judge.get("support"))]
    reqs = [_d(r) for r in _l(_d(rag.get("accurate")).get("requests"))]
    by_sentence: dict[Any, str] = {}
    for r, dec in zip(reqs, decisions, strict=False):
        who = f"scorer {dec['scorer']}" if dec.get("scorer") else "LLM"
        by_sentence[r.get("sentence")] = f"{dec.get('label')} ({who})"
    sentences = [_d(s) for s in _l(rag.get("sentences"))]
    if sentences:
        out.append(
            _grid(
                "Sentences",
                ["#", "sentence", "cites", "accurate"],
                sentences,
                lambda s: [
                    _str(s.get("i")),
                    _grid_value(s.get("text")),
                    _grid_value([k for c in _l(s.get("citations")) for k in _l(_d(c).get("keys"))]),
                    by_sentence.get(s.get("i"), _str(s.get("accurate"))),
                ],
                lambda s: "NOT_SUPPORTED" in by_sentence.get(s.get("i"), ""),
            )
        )
    recs = [short(x, 300) for x in _l(res.get("recommendations"))[:6]]
    if recs:
        out.append(Lines("Recommendations", recs))
    return out


# ------------------------------------------------------------------------------ citation-eval


def support_decider_of(support: dict[str, Any]) -> str:
    """Who decided one citation's support: ``LLM``, ``scorer``, ``not judged`` or ``no answer``."""
    if not support:
        return "not judged"
    if support.get("label") is None:
        return "no answer"
    if support.get("request_hash"):
        return "LLM"
    return f"scorer ({support['scorer']})" if support.get("scorer") else "scorer"


def _ceval_rows(line: dict[str, Any], n: int) -> list[ItemRow]:
    item_id = str(line.get("id"))
    res = line.get("result")
    det = _d(line.get("details"))
    if not isinstance(res, dict):
        return [_error_row("citation-eval", line, n, f"{item_id}#?", "?")]
    ans = _d(res.get("answer_evaluation"))
    align = str(ans.get("alignment_judgement"))
    missing = "; ".join(str(x) for x in _l(ans.get("missing_information")))
    align_expl = str(ans.get("correctness", "")) + (f" Missing: {missing}" if missing else "")
    cits = [_d(c) for c in _l(res.get("citation_evaluations"))]
    dcits = [_d(c) for c in _l(det.get("citations"))]
    rows: list[ItemRow] = []
    for j, c in enumerate(cits):
        cid = str(c.get("citation_id"))
        row = _new_row(line, n, f"{item_id}#{cid}", cid)
        sup, ver = _d(c.get("citation_support")), _d(c.get("source_verification"))
        s_label, v_label = str(sup.get("judgement")), str(ver.get("judgement"))
        row.labels = {
            "citation_support": s_label,
            "source_verification": v_label,
            "alignment": align,
        }
        row.explanations = {
            "citation_support": str(sup.get("reasoning", "")),
            "source_verification": str(ver.get("reasoning", "")),
            "alignment": align_expl,
        }
        if s_label in ("NEUTRAL", "CONTRADICTION") or v_label == "LIKELY_FABRICATED":
            row.outcome = "failed"
        elif s_label != "ENTAILMENT" or v_label != "VERIFIED":
            row.outcome = "unverified"
        sup_first = s_label != "ENTAILMENT" or v_label == "VERIFIED"
        first, second = ("support", "source") if sup_first else ("source", "support")
        texts = {
            "support": row.explanations["citation_support"],
            "source": row.explanations["source_verification"],
        }
        row.reason = f"{first}: {texts[first]}"
        row.more.append(f"{second}: {texts[second]}")
        dsup = _d(dcits[j].get("support")) if j < len(dcits) else {}
        row.add("Support decider", support_decider_of(dsup))
        rows.append(row)
    if not rows:
        row = _new_row(line, n, item_id, None)
        row.labels = {"alignment": align}
        row.explanations = {"alignment": align_expl}
        row.reason = "no citations; answer: " + (align_expl or align)
        row.outcome = "unverified" if align != "CORRECT" else "passed"
        rows.append(row)
    return rows


def _ceval_details(row: ItemRow) -> list[Block]:
    line = row.source
    det = _d(line.get("details"))
    res = _d(line.get("result")) or _d(det.get("partial_result"))
    out: list[Block] = []
    if line.get("error") is not None:
        out.append(Fact("Error", short(_error_text(line))))
    cits = [_d(c) for c in _l(res.get("citation_evaluations"))]
    dcits = [_d(c) for c in _l(det.get("citations"))]
    for j, c in enumerate(cits):
        if row.citation not in (None, "?") and str(c.get("citation_id")) != row.citation:
            continue
        title = "" if row.citation not in (None, "?") else f"citation {c.get('citation_id')}: "
        if c.get("claim"):
            out.append(Fact(f"{title}Claim", short(c["claim"])))
        sup, ver = _d(c.get("citation_support")), _d(c.get("source_verification"))
        dsup = _d(dcits[j].get("support")) if j < len(dcits) else {}
        dver = _d(dcits[j].get("verification")) if j < len(dcits) else {}
        out.append(
            Fact(
                f"{title}Support",
                short(
                    f"{sup.get('judgement')} (score {sup.get('support_score')}): {sup.get('reasoning', '')}"
                ),
            )
        )
        out.append(Fact(f"{title}Support decided by", support_decider_of(dsup)))
        out.append(
            Fact(
                f"{title}Source verification",
                short(f"{ver.get('judgement')}: {ver.get('reasoning', '')}"),
            )
        )
        resol = _d(dver.get("resolution"))
        if resol:
            urls = ", ".join(str(u) for u in _l(resol.get("urls"))[:3])
            out.append(
                Fact(
                    f"{title}Source resolved",
                    short(
                        f"{resol.get('status')}: {resol.get('shown') or resol.get('kind')} → "
                        f"{resol.get('work_id') or '–'}" + (f" ({urls})" if urls else "")
                    ),
                )
            )
        quote = _d(dver.get("quote"))
        if quote:
            where = quote.get("text") or "the source"
            found = (
                f"found {'verbatim ' if quote.get('exact') else ''}in {where}"
                if quote.get("found")
                else f"not found in {where}"
            )
            out.append(
                Fact(
                    f"{title}Cited content",
                    short(
                        f"{found} (best similarity {quote.get('similarity')}, "
                        f"threshold {quote.get('threshold')})"
                        + (
                            f"; {quote.get('pieces_found')} of {quote.get('pieces')} pieces found"
                            if quote.get("pieces")
                            else ""
                        )
                    ),
                )
            )
            missing = [
                short(
                    f"piece {_d(m).get('piece')}: {_d(m).get('text')} (best similarity "
                    f"{_d(m).get('similarity')})"
                    + (
                        f" — found in {_d(_d(m).get('found_in')).get('source')}"
                        if _d(m).get("found_in")
                        else ""
                    ),
                    240,
                )
                for m in _l(quote.get("not_found"))[:5]
            ]
            if missing:
                out.append(Lines(f"{title}Pieces not found in the stated source", missing))
        sj = _d(dcits[j].get("source_judge")) if j < len(dcits) else {}
        if sj.get("note") or sj.get("error"):
            out.append(Fact(f"{title}Source judge", short(sj.get("note") or sj.get("error"))))
    ans = _d(res.get("answer_evaluation"))
    if ans:
        missing = [short(x, 200) for x in _l(ans.get("missing_information"))[:6]]
        out.append(
            Fact(
                "Answer",
                short(
                    f"{ans.get('alignment_judgement')} (correctness score {ans.get('correctness_score')})"
                ),
            )
        )
        if missing:
            out.append(Lines("Missing information", missing))
    overall = _d(res.get("overall_assessment"))
    if overall.get("overall_score") is not None:
        out.append(Fact("Overall score", _str(overall.get("overall_score"))))
    return out


# ------------------------------------------------------------------------------ entry points


def item_rows(
    task: str, lines: Sequence[dict[str, Any]], line_numbers: Sequence[int]
) -> list[ItemRow]:
    """Every row of a run's item table, in input order, with view and outcome facets."""
    specs = VIEW_SPECS[task]
    rows: list[ItemRow] = []
    for line, n in zip(lines, line_numbers, strict=True):
        if task == "references":
            rows.append(_references_row(line, n))
        elif task == "rag-audit":
            rows.append(_rag_row(line, n))
        else:
            rows.extend(_ceval_rows(line, n))
    for i, row in enumerate(rows):
        row.index = i
        base: list[Facet] = [(OUTCOME, row.outcome)]
        base += [(s.title, row.labels[s.name]) for s in specs if s.name in row.labels]
        row.facets = base + [f for f in row.facets if f not in base]
    return rows


def _size(b: Block) -> int:
    if isinstance(b, Fact):
        return len(b.label) + len(b.value)
    if isinstance(b, Grid):
        return len(b.title) + sum(map(len, b.head)) + sum(len(c) for r in b.rows for c in r)
    return len(b.title) + sum(map(len, b.lines))


def within_budget(blocks: Sequence[Block], budget: int = DETAIL_BUDGET) -> tuple[list[Block], bool]:
    """The blocks up to ``budget`` characters of text (a grid or list is cut between its rows); whether any was cut.

    Keeps a page's size proportional to its rows however long the items' strings are.
    """
    out: list[Block] = []
    used = 0
    for b in blocks:
        size = _size(b)
        if used + size <= budget:
            out.append(b)
            used += size
            continue
        left = budget - used
        if isinstance(b, Grid):
            keep, total = [], len(b.title) + sum(map(len, b.head))
            for r in b.rows:
                total += sum(map(len, r))
                if total > left:
                    break
                keep.append(r)
            if keep:
                out.append(Grid(b.title, b.head, keep, b.flagged[: len(keep)], b.total))
        elif isinstance(b, Lines):
            lines, total = [], len(b.title)
            for x in b.lines:
                total += len(x)
                if total > left:
                    break
                lines.append(x)
            if lines:
                out.append(Lines(b.title, lines))
        elif left > len(b.label) + 40:
            out.append(Fact(b.label, short(b.value, left - len(b.label))))
        return out, True
    return out, False


def row_details(task: str, row: ItemRow) -> list[Block]:
    """The details of one row, as blocks, at most :data:`DETAIL_BUDGET` characters of text; the results line closes them."""
    if task == "references":
        out = _references_details(row)
    elif task == "rag-audit":
        out = _rag_details(row)
    else:
        out = _ceval_details(row)
    if row.extra:
        out.append(Fact("Input fields", short(_str(row.extra))))
    out, cut = within_budget(out)
    where = f"results.jsonl line {row.line}"
    out.append(
        Fact(
            "Result",
            where + (" (these details are cut short there; the line has them all)" if cut else ""),
        )
    )
    return out


def line_details(task: str, line: dict[str, Any], n: int) -> list[Block]:
    """The details of a whole result line (every citation of a ``citation-eval`` item)."""
    row = item_rows(task, [line], [n])[0]
    row.citation = None
    return row_details(task, row)


@dataclass(frozen=True, slots=True)
class DeciderCount:
    """How many questions of one kind one decider answered."""

    question: str
    decider: str
    n: int


def decider_counts(task: str, lines: Iterable[dict[str, Any]]) -> list[DeciderCount]:
    """Who answered the run's questions (every item, not only this session), from each line's details."""
    c: Counter[tuple[str, str]] = Counter()
    for line in lines:
        det = _d(line.get("details"))
        if task == "references":
            for s in _l(_d(det.get("content")).get("subclaims")):
                s = _d(s)
                who = (
                    f"scorer ({s['scorer']})"
                    if s.get("scorer")
                    else "LLM"
                    if "request_hash" in s
                    else "no answer"
                )
                if s.get("label") is None and not s.get("scorer"):
                    who = "no answer"
                c["content support (one per sub-claim)", who] += 1
            if _d(_d(det.get("abstention_check")).get("judge")):
                c["abstention (unclear statements)", "LLM"] += 1
        elif task == "rag-audit":
            judge = _d(det.get("judge"))
            for s in _l(judge.get("support")):
                s = _d(s)
                who = f"scorer ({s['scorer']})" if s.get("scorer") else "LLM"
                if s.get("label") is None:
                    who = "no answer"
                c["accurate: does the cited chunk support the sentence", who] += 1
            for s in _l(judge.get("need")):
                s = _d(s)
                who = "LLM" if s.get("needs_citation") is not None else "no answer"
                c["complete: does the sentence need a citation", who] += 1
        else:
            for dc in _l(det.get("citations")):
                dc = _d(dc)
                if "support" in dc:
                    who = support_decider_of(_d(dc.get("support")))
                    if who != "not judged":
                        c["citation support", who] += 1
                sj = _d(dc.get("source_judge"))
                if sj:
                    who = (
                        "LLM"
                        if sj.get("request_hash")
                        else f"scorer ({sj['scorer']})"
                        if sj.get("scorer")
                        else "scorer"
                    )
                    if sj.get("error"):
                        who = "no answer"
                    c["source check (quote not found verbatim)", who] += 1
            ans = _d(det.get("answer"))
            if ans.get("request_hash"):
                c[
                    "answer correctness", "LLM" if ans.get("status") == "judged" else "no answer"
                ] += 1
    return [DeciderCount(q, who, n) for (q, who), n in sorted(c.items())]
