"""The report's item table, why-No counts, judge facts and companion file, on result lines of real shapes.

The fixtures copy the shapes `citejudge run` writes (seen in the demo runs): ``details.match``
with status and method, ``details.fields`` as cited and as recorded, ``details.conflicts`` of an
inconsistent citation, ``details.content.subclaims`` decided by the calibrated scorer
(``scorer``/``score``/``threshold``) or by the LLM (``request_hash``), abstentions with only an
``abstention_check``, input and judge errors; rag-audit ``details.rag.language`` and
``details.judge.support``; citation-eval ``details.citations[].support``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from citejudge.run.report import build_report, companion_path
from citejudge.run.report_items import support_decider_of
from test_report import (
    _self_contained,
    manifest,
    row_html,
    rows_of,
    table_rows,
    write_jsonl,
    write_run,
)

NOT_JUDGED = "N/A. Content was not judged: the run used no model (--no-llm)."
DEPENDENCY = "No. Reference not grounded, so content cannot be attributed to a verified source."


def _field(name: str, ok: bool, cited: Any, record: Any, reason: str) -> dict[str, Any]:
    return {"field": name, "ok": ok, "cited": cited, "record": record, "reason": reason}


GOOD_FIELDS = [
    _field("doi", True, "10.1/x", "10.1/x", "DOI matches"),
    _field("title", True, "Long short-term memory", "Long Short-Term Memory", "same title"),
    _field("authors", True, ["Hochreiter, S."], ["Sepp Hochreiter"], "all 1 authors match"),
    _field("year", True, "1997", 1997, "same year"),
]


def ref(
    i: str,
    rg: str,
    *,
    cg: str | None = None,
    status: str = "matched",
    method: str | None = "doi",
    fields: list[dict[str, Any]] | None = None,
    conflicts: list[dict[str, Any]] | None = None,
    content: dict[str, Any] | None = None,
    verification_error: str = "No",
) -> dict[str, Any]:
    """A references result line of the shape the pipeline writes."""
    grounded = rg.startswith("Yes")
    details: dict[str, Any] = {
        "abstention_check": {"status": "no", "phrase": None},
        "cited": {"form": "string", "title": "Long short-term memory", "year": 1997},
        "match": {
            "status": status,
            "work_id": "W8" if status == "matched" else None,
            "method": method if status == "matched" else None,
            "identifiers": {},
            "notes": [],
        },
        "fields": GOOD_FIELDS if fields is None else fields,
        "candidates": [
            {
                "id": "W8",
                "title": "Long Short-Term Memory",
                "year": 1997,
                "first_author": "Sepp Hochreiter",
                "score": 110.0,
                "via": "identifier",
            }
        ],
        "grounded": grounded,
    }
    if conflicts:
        details["conflicts"] = conflicts
    if content is not None:
        details["content"] = content
    cg = cg if cg is not None else (NOT_JUDGED if grounded else DEPENDENCY)
    halluc = "Yes" if not grounded or cg.startswith("No") else "No"
    return {
        "id": i,
        "task": "references",
        "result": {
            "reference_name": f"Hochreiter, S. (1997). Long short-term memory. [{i}]",
            "reference_grounding": rg,
            "content_grounding": cg,
            "hallucination": halluc,
            "abstention": "No",
            "verification_error": verification_error,
        },
        "details": details,
        "error": None,
    }


def scorer_sub(text: str, label: str, score: float) -> dict[str, Any]:
    return {
        "subclaim": text,
        "label": label,
        "missing": None,
        "error": None,
        "scorer": "cpu-embed-only",
        "score": score,
        "threshold": 0.4307,
        "passages": ["Learning to store information over long time intervals takes long."],
    }


def llm_sub(text: str, label: str | None) -> dict[str, Any]:
    return {
        "subclaim": text,
        "label": label,
        "missing": None,
        "passages": ["The paper introduces long short-term memory."],
        "request_hash": "ab" * 32,
        "error": None if label else "invalid answer: no JSON",
        "template": "content_grounding.v1@0123456789ab",
    }


def references_lines() -> list[dict[str, Any]]:
    """Thirteen items, one per way a reference fails, is undecided or passes."""
    year_bad = [
        *GOOD_FIELDS[:3],
        _field("year", False, "2020", 1997, "cited 2020, record year is 1997"),
    ]
    two_bad = [
        GOOD_FIELDS[1],
        _field("authors", False, ["Smith, J."], ["Sepp Hochreiter"], "first author differs"),
        GOOD_FIELDS[3],
        _field("venue", False, "Nature", "Neural Computation", "different venue"),
    ]
    doi_bad = [
        _field("doi", False, "10.9/other", "10.1/x", "cited DOI resolves to W9"),
        *GOOD_FIELDS[1:],
    ]
    lines = [
        ref(
            "year-doi",
            "No. Year mismatch: cited 2020, record year is 1997 (record W8).",
            fields=year_bad,
        ),
        ref(
            "two-fields",
            "No. Authors mismatch: first author differs; venue mismatch (record W8).",
            method="title_key",
            fields=two_bad,
        ),
        ref("doi-wrong", "No. DOI mismatch: cited DOI resolves to W9 (record W8).", fields=doi_bad),
        ref(
            "fabricated",
            "No. Not found in the local world; no record matches.",
            status="not_found",
            fields=[],
        ),
        ref(
            "ambiguous",
            "No. Ambiguous citation: several records fit equally well: W1; W2.",
            status="ambiguous",
            fields=[],
        ),
        ref(
            "conflict",
            "No. Citation is inconsistent: metadata year 2018 differs from full_citation year 1997.",
            method="title_key",
            conflicts=[_field("year", False, 2018, 1997, "metadata year 2018 differs")],
        ),
        {
            "id": "abstained",
            "task": "references",
            "result": {
                "reference_name": "Vaswani, A. et al. (2017). Attention is all you need.",
                "reference_grounding": "N/A. This is an abstention statement.",
                "content_grounding": "N/A. This is an abstention statement.",
                "hallucination": "No",
                "abstention": "Yes",
                "verification_error": "No",
            },
            "details": {"abstention_check": {"status": "yes", "phrase": "nemam pristup"}},
            "error": None,
        },
        ref(
            "scorer-no",
            "Yes. Matches W8 via doi; checked doi, title, authors, year.",
            cg='No. The abstract of W8 does not support "LSTMs translate Czech news" '
            "(support score 0.33, below the calibrated 0.43).",
            content={
                "evidence": "abstract",
                "subclaims": [
                    scorer_sub("LSTMs translate Czech news.", "NOT_SUPPORTED", 0.33),
                    scorer_sub("LSTMs store information.", "SUPPORTED", 0.8),
                ],
            },
        ),
        ref(
            "llm-yes",
            "Yes. Matches W8 via doi; checked doi, title, authors, year.",
            cg="Yes. According to the abstract of W8, the claim is stated there.",
            content={
                "evidence": "abstract",
                "subclaims": [llm_sub("LSTMs store info.", "SUPPORTED")],
            },
        ),
        ref(
            "no-text",
            "Yes. Matches W8 via doi; checked doi, title, authors, year.",
            cg="N/A. Cannot verify content: no abstract or full text of W8 is available offline.",
            content={"evidence": None},
            verification_error="Yes",
        ),
        ref("ok-nomodel", "Yes. Matches W8 via doi; checked doi, title, authors, year."),
        {
            "id": "broken",
            "task": "references",
            "result": None,
            "details": {},
            "error": {
                "kind": "input",
                "message": "'claim' must be a string, got int",
                "field": "claim",
                "file": "items.jsonl",
                "line": 12,
            },
        },
    ]
    judge_err = ref(
        "judge-error",
        "Yes. Matches W8 via doi; checked doi, title, authors, year.",
        content={"evidence": "abstract", "subclaims": [llm_sub("LSTMs store info.", None)]},
    )
    judge_err["details"]["partial_result"] = judge_err.pop("result")
    judge_err["result"] = None
    judge_err["error"] = {"kind": "judge", "message": "invalid answer: no JSON", "field": "claim"}
    lines.append(judge_err)
    return lines


ORDER = [
    "broken",
    "judge-error",
    "year-doi",
    "two-fields",
    "doi-wrong",
    "fabricated",
    "ambiguous",
    "conflict",
    "scorer-no",
    "no-text",
    "abstained",
    "llm-yes",
    "ok-nomodel",
]


@pytest.fixture
def ref_run(tmp_path: Path) -> Path:
    return write_run(tmp_path / "run", references_lines(), manifest(judge=None))


def _table(rep: dict[str, Any], name: str) -> dict[str, Any]:
    return next(t for t in rep["breakdowns"] if t["name"] == name)


def _cells(t: dict[str, Any]) -> dict[tuple[str, str], int]:
    return {
        (r, c): n
        for r, row in zip(t["rows"], t["cells"], strict=True)
        for c, n in zip(t["cols"], row, strict=True)
        if n
    }


def test_references_items_failures_first_with_reasons(ref_run: Path) -> None:
    rep = build_report(ref_run, None, None)
    page = (ref_run / "report.html").read_text()
    _self_contained(page)
    assert [k for k, _ in table_rows(page)] == ORDER
    assert rep["outcomes"] == {"error": 2, "failed": 7, "unverified": 1, "n/a": 1, "passed": 2}
    # the one-line reason the result carries, the content reason first when content failed
    assert "No. Year mismatch: cited 2020, record year is 1997 (record W8)." in page
    summary = re.search(r"<summary>(.*?)</summary>", row_html(page, "scorer-no"), re.S)
    assert summary is not None and summary.group(1).startswith("No. The abstract of W8")
    assert "reference: Yes. Matches W8" in summary.group(1)
    # details: each field as cited and as recorded, the failing one flagged, candidates, decider
    yrow = row_html(page, "year-doi")
    assert "Fields: as cited and as recorded" in yrow
    assert '<tr class="flag"><td>year</td><td>no</td><td>2020</td><td>1997</td>' in yrow
    assert "Candidates" in yrow and "Sepp Hochreiter" in yrow
    assert "results.jsonl line 1" in yrow
    assert "<details>" in yrow  # opens without script
    errs = row_html(page, "broken")
    assert "input: &#39;claim&#39; must be a string, got int [field claim] (items.jsonl:12)" in errs


def test_why_no_counted_by_field_method_and_decider(ref_run: Path) -> None:
    rep = build_report(ref_run, None, None)
    page = (ref_run / "report.html").read_text()
    ff = _table(rep, "failing_field")
    assert ff["n"] == 6 and ff["among"] == [["Reference grounding", "No"]]
    assert dict(zip(ff["rows"], ff["row_n"], strict=True)) == {
        "ambiguous": 1,
        "authors": 1,
        "identifier: doi": 1,
        "inconsistent citation": 1,
        "not found": 1,
        "venue": 1,
        "year": 1,
    }
    mm = _cells(_table(rep, "match_method"))
    assert mm == {
        ("doi", "No"): 2,
        ("doi", "Yes"): 4,
        ("title_key", "No"): 2,
        ("(not matched: not found)", "No"): 1,
        ("(not matched: ambiguous)", "No"): 1,
        ("(abstention: not looked up)", "N/A"): 1,
        ("(error)", "ERROR"): 2,
    }
    cd = _cells(_table(rep, "content_decider"))
    assert cd == {
        ("Yes", "LLM"): 1,
        ("No", "scorer (cpu-embed-only)"): 1,
        ("No", "none"): 6,
        ("N/A", "none"): 3,
        ("ERROR", "LLM"): 1,
        ("ERROR", "none"): 1,
    }
    basis = _cells(_table(rep, "content_basis"))
    assert basis[("no text offline", "N/A")] == 1 and basis[("not judged (no model)", "N/A")] == 1
    assert basis[("reference not grounded", "No")] == 6 and basis[("abstention", "N/A")] == 1
    # a count links to exactly its items; the table's n links to the rows it counts among
    links = dict(re.findall(r'<td>([^<]+)</td><td class="n"><a href="(#f-[t0-9.]+)">1</a>', page))
    assert rows_of(page, links["year"]) == ["year-doi"]
    assert rows_of(page, links["identifier: doi"]) == ["doi-wrong"]
    assert rows_of(page, links["inconsistent citation"]) == ["conflict"]
    n_link = re.search(
        r'Counts <a href="(#f-[t0-9.]+)">6</a> items with Reference grounding No', page
    )
    assert n_link is not None
    assert rows_of(page, n_link.group(1)) == ORDER[2:8]
    # the content-grounding view counts every item and says so
    assert rep["views"]["content_grounding"]["n"] == 13
    assert rep["views"]["content_grounding"]["distribution"] == {
        "Yes": 1,
        "No": 7,
        "N/A": 3,
        "ERROR": 2,
    }
    assert "Content grounding <small>(13 items)</small>" in page


def test_judge_facts_in_words(ref_run: Path, tmp_path: Path) -> None:
    rep = build_report(ref_run, None, None)
    assert {(d["question"], d["decider"]): d["n"] for d in rep["deciders"]} == {
        ("content support (one per sub-claim)", "scorer (cpu-embed-only)"): 2,
        ("content support (one per sub-claim)", "LLM"): 1,
        ("content support (one per sub-claim)", "no answer"): 1,
    }
    page = (ref_run / "report.html").read_text()
    assert "No model was used (model: none)" in page
    # the scorer decided and the LLM got no request: say so, instead of "requests 0"
    judge = {
        **manifest()["judge"],
        "stats": {"requests": 0, "cache_hits": 0, "model_calls": 0, "invalid": 0, "errors": 0},
        "support_scorer": {
            "calibration": "cpu-embed-only",
            "threshold": 0.4306943729774494,
            "uses_llm": False,
        },
    }
    lines = [x for x in references_lines() if x["id"] in ("scorer-no", "ok-nomodel", "year-doi")]
    d = write_run(tmp_path / "scorer", lines, manifest(judge=judge))
    build_report(d, None, None)
    page = (d / "report.html").read_text()
    assert "calibrated scorer, cpu-embed-only (threshold 0.431)" in page
    assert "decided the support questions — 2 in this run" in page
    assert "The LLM received no request in this session" in page and "not a broken run" in page
    # an LLM session: requests, cache hits, invalid answers and retries in words and numbers
    judge2 = {
        **manifest()["judge"],
        "stats": {
            "requests": 12,
            "cache_hits": 4,
            "model_calls": 3,
            "invalid": 2,
            "retries": 2,
            "errors": 1,
        },
    }
    d2 = write_run(tmp_path / "llm", lines, manifest(judge=judge2))
    build_report(d2, None, None)
    page2 = (d2 / "report.html").read_text()
    assert "received 12 request(s): 4 answered from its cache" in page2
    assert (
        "3 batched call(s); 2 answer(s) did not fit the schema (2 request(s) asked again)" in page2
    )
    assert '<td>requests asked again</td><td class="n">2</td>' in page2


def test_rows_per_verdict_and_the_companion_file(ref_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "pages" / "big.html"
    rep = build_report(ref_run, None, out, rows_per_verdict=2)
    side = companion_path(out)
    assert side == tmp_path / "pages" / "big-items.jsonl"
    info = rep["item_table"]
    assert info["shown"] == 7 and info["in_companion"] == 6 and info["companion"] == str(side)
    page = out.read_text()
    # two rows of each reference-grounding label on the page (failures first within a label),
    # the rest in the companion file, in the same order
    assert [k for k, _ in table_rows(page)] == [
        "broken",
        "judge-error",
        "year-doi",
        "two-fields",
        "scorer-no",
        "no-text",
        "abstained",
    ]
    rest = [json.loads(x) for x in side.read_text().splitlines()]
    assert [x["id"] for x in rest] == [
        "doi-wrong",
        "fabricated",
        "ambiguous",
        "conflict",
        "llm-yes",
        "ok-nomodel",
    ]
    assert rest[0]["line"] == 3 and rest[0]["outcome"] == "failed"
    assert rest[0]["facets"]["Failing field"] == ["identifier: doi"]
    assert rest[0]["verdicts"]["Reference grounding"] == "No"
    assert str(side) in page and "the other 6 are in the companion file" in page
    assert "first 2 rows of each reference grounding verdict" in page
    assert "No (6, 2 on this page)" in page  # the verdict menu says what the page holds
    # every count still counts all rows, not only the shown ones
    assert _table(rep, "failing_field")["n"] == 6
    # all rows fit again: the stale companion file goes
    build_report(ref_run, None, out, rows_per_verdict=None)
    assert not side.exists()


def test_cli_rows_per_verdict(ref_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from citejudge.cli import main

    assert main(["report", str(ref_run), "--rows-per-verdict", "1", "--no-plots"]) == 0
    short = json.loads(capsys.readouterr().out)
    assert short["item_rows_shown"] == 4 and short["item_rows_file"].endswith("report-items.jsonl")
    assert main(["report", str(ref_run), "--rows-per-verdict", "0"]) == 0
    short = json.loads(capsys.readouterr().out)
    assert short["item_rows_shown"] == 13 and short["item_rows_file"] is None
    with pytest.raises(SystemExit):
        main(["report", str(ref_run), "--rows-per-verdict", "-1"])


# ------------------------------------------------------------------------------ rag-audit


def rag(i: str, lang: str, failing: dict[str, list[str]], scorer: bool = True) -> dict[str, Any]:
    dims = {
        d: {"status": "FAIL" if d in failing else "PASS", "issues": failing.get(d, [])}
        for d in ("exists", "accurate", "complete", "formatted")
    }
    return {
        "id": i,
        "task": "rag-audit",
        "result": {
            "verdict": "FAIL" if failing else "PASS",
            "dimensions": dims,
            "summary": f"Citation audit {'failed' if failing else 'passed'}.",
            "recommendations": ["Cite a chunk that states it."] if failing else [],
        },
        "details": {
            "rag": {
                "language": lang,
                "language_source": "declared",
                "query": "What did the paper report?",
                "n_chunks": 2,
                "n_sentences": 1,
                "n_citations": 1,
                "sentences": [
                    {
                        "i": 0,
                        "text": "It reached 28.4 BLEU \\cite{t1}.",
                        "citations": [{"form": "cite", "raw": "\\cite{t1}", "keys": ["t1"]}],
                        "accurate": "judge",
                    }
                ],
                "accurate": {
                    "requests": [
                        {"sentence": 0, "claim": "It reached 28.4 BLEU.", "chunks": ["t1"]}
                    ]
                },
            },
            "judged": True,
            "judge": {
                "support": [
                    {"label": "NOT_SUPPORTED", "missing": "", "scorer": "cpu-embed-only"}
                    if scorer
                    else {"label": "SUPPORTED", "missing": "", "request_hash": "cd" * 32}
                ],
                "need": [],
            },
        },
        "error": None,
    }


def test_rag_audit_by_dimension_and_language(tmp_path: Path) -> None:
    lines = [
        rag("en-ok", "en", {}, scorer=False),
        rag(
            "en-acc",
            "en",
            {"accurate": ['Sentence "It reached 28.4 BLEU." is not supported by t1.']},
        ),
        rag(
            "en-three",
            "en",
            {
                "exists": ['cites \\cite{r9}, but "r9" is not among the retrieved chunks'],
                "accurate": ["Cannot verify sentence 1"],
                "formatted": ["bad citation syntax"],
            },
        ),
        rag("cs-complete", "cs", {"complete": ["Věta uvádí fakt, ale necituje žádný úryvek."]}),
        {
            "id": "broken",
            "task": "rag-audit",
            "result": None,
            "details": {},
            "error": {"kind": "input", "message": "'retrieved_chunks' must be a list"},
        },
    ]
    d = write_run(tmp_path / "rag", lines, manifest(task="rag-audit", judge=None))
    rep = build_report(d, None, None)
    page = (d / "report.html").read_text()
    _self_contained(page)
    t = _table(rep, "dimension_language")
    assert t["rows"] == ["exists", "accurate", "complete", "formatted"]  # the spec's order
    assert _cells(t) == {
        ("exists", "en"): 1,
        ("accurate", "en"): 2,
        ("complete", "cs"): 1,
        ("formatted", "en"): 1,
    }
    assert dict(zip(t["cols"], t["col_n"], strict=True)) == {"en": 3, "cs": 1}  # items per language
    assert [k for k, _ in table_rows(page)] == [
        "broken",
        "en-acc",
        "en-three",
        "cs-complete",
        "en-ok",
    ]
    assert "accurate: Sentence &#34;It reached 28.4 BLEU.&#34; is not supported by t1." in page
    assert "complete: Věta uvádí fakt" in page
    assert {(x["question"], x["decider"]): x["n"] for x in rep["deciders"]} == {
        ("accurate: does the cited chunk support the sentence", "scorer (cpu-embed-only)"): 3,
        ("accurate: does the cited chunk support the sentence", "LLM"): 1,
    }


# ------------------------------------------------------------------------------ citation-eval


def cit(cid: int, support: str, source: str, by_llm: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    result = {
        "citation_id": cid,
        "claim": f"Claim {cid}.",
        "citation_support": {
            "judgement": support,
            "reasoning": "calibrated scorer cpu-embed-only: support probability 0.2"
            if not by_llm
            else "The cited content states it.",
            "support_score": 1.0 if support == "ENTAILMENT" else 0.0,
        },
        "source_verification": {
            "judgement": source,
            "reasoning": f"DOI 10.1/x resolves to W3; source {source}.",
            "url_accessible": True,
        },
        "interpretability_score": 1.0,
    }
    details = {
        "citation_id": cid,
        "verification": {
            "judgement": source,
            "resolution": {
                "status": "resolved",
                "kind": "doi",
                "shown": "DOI 10.1/x",
                "work_id": "W3",
            },
            "quote": {"similarity": 46.0, "found": False, "exact": False, "text": "abstract of W3"},
        },
        "support": {
            "label": support,
            "reasoning": result["citation_support"]["reasoning"],
            "request_hash": "ef" * 32 if by_llm else None,
            "template": "ceval_support.v1@d3fa7be7db8b",
            **({} if by_llm else {"scorer": "cpu-embed-only", "score": 0.2, "threshold": 0.43}),
        },
    }
    return result, details


def ceval(i: str, cits: list[tuple[dict[str, Any], dict[str, Any]]], align: str) -> dict[str, Any]:
    return {
        "id": i,
        "task": "citation-eval",
        "result": {
            "citation_evaluations": [c for c, _ in cits],
            "answer_evaluation": {
                "correctness": align == "CORRECT",
                "alignment_judgement": align,
                "missing_information": [] if align == "CORRECT" else ["the year"],
                "correctness_score": 1.0 if align == "CORRECT" else 0.5,
            },
            "overall_assessment": {"overall_score": 0.8},
        },
        "details": {
            "citations": [d for _, d in cits],
            "answer": {"status": "judged", "request_hash": "12" * 32},
        },
        "error": None,
    }


def test_citation_eval_rows_per_citation_and_gold_links(tmp_path: Path) -> None:
    lines = [
        ceval(
            "q1",
            [cit(1, "ENTAILMENT", "VERIFIED", False), cit(2, "NEUTRAL", "UNCERTAIN", True)],
            "CORRECT",
        ),
        {
            "id": "q2",
            "task": "citation-eval",
            "result": None,
            "details": {},
            "error": {"kind": "judge", "message": "citations[0] support: invalid answer"},
        },
        ceval("q3", [], "PARTIALLY_CORRECT"),
    ]
    d = write_run(tmp_path / "ce", lines, manifest(task="citation-eval"))
    gold = write_jsonl(
        tmp_path / "gold.jsonl",
        [
            {"id": "q1#1", "label": "ENTAILMENT"},
            {"id": "q1#2", "label": "ENTAILMENT"},
            {"id": "q1", "label": "CORRECT"},
            {"id": "q2", "label": "CORRECT"},
        ],
    )
    rep = build_report(d, gold, None)
    page = (d / "report.html").read_text()
    _self_contained(page)
    # q3 has no citation to check and a partly correct answer: not a pass
    assert [k for k, _ in table_rows(page)] == ["q2#?", "q1#2", "q3", "q1#1"]
    assert rep["item_table"]["unit"] == "citation" and rep["item_table"]["rows"] == 4
    assert _cells(_table(rep, "support_source")) == {
        ("ENTAILMENT", "VERIFIED"): 1,
        ("NEUTRAL", "UNCERTAIN"): 1,
        ("ERROR", "ERROR"): 1,
    }
    assert _cells(_table(rep, "support_decider")) == {
        ("ENTAILMENT", "scorer (cpu-embed-only)"): 1,
        ("NEUTRAL", "LLM"): 1,
    }
    assert "source: DOI 10.1/x resolves to W3; source VERIFIED." in page  # the other reason
    assert "not found in abstract of W3 (best similarity 46.0" in page
    # gold: citation cells link to citations; the item-level alignment cells to the item's rows
    cells = re.findall(r'<td class="n[^"]*"[^>]*><a href="(#f-[t0-9.]+)">(\d+)</a></td>', page)
    linked = {tuple(rows_of(page, href)) for href, _ in cells}
    assert ("q1#2",) in linked  # gold ENTAILMENT predicted NEUTRAL
    assert ("q1#1",) in linked and ("q2#?",) in linked
    assert (
        "q1#2",
        "q1#1",
    ) in linked  # alignment: gold CORRECT, predicted CORRECT: both citations of q1


def test_support_decider_named_when_the_run_recorded_it() -> None:
    assert (
        support_decider_of({"label": "NEUTRAL", "scorer": "cpu-default"}) == "scorer (cpu-default)"
    )
    # runs written before the scorer was recorded for citation-eval still read
    assert support_decider_of({"label": "NEUTRAL", "request_hash": None}) == "scorer"
    assert support_decider_of({"label": "NEUTRAL", "request_hash": "ab" * 32}) == "LLM"
    assert support_decider_of({"label": None}) == "no answer"
    assert support_decider_of({}) == "not judged"


def test_citation_eval_pieces_not_found_are_listed(tmp_path: Path) -> None:
    """A passage of three pieces, one of them from another stored page (the shape the quote
    check writes in ``details.citations[].verification.quote``)."""
    c, d = cit(1, "NEUTRAL", "LIKELY_FABRICATED", False)
    d["verification"]["quote"] = {
        "similarity": 61.0,
        "found": False,
        "exact": False,
        "text": "store:page_a.txt",
        "threshold": 90.0,
        "pieces": 3,
        "pieces_found": 2,
        "share_found": 0.6667,
        "not_found": [
            {
                "piece": 2,
                "text": "The bridge was closed to traffic in 1987.",
                "similarity": 48.0,
                "found_in": {
                    "source": "page_b.txt",
                    "text": "store:page_b.txt",
                    "similarity": 100.0,
                },
            }
        ],
    }
    dd = write_run(
        tmp_path / "ce", [ceval("q1", [(c, d)], "CORRECT")], manifest(task="citation-eval")
    )
    build_report(dd, None, None)
    page = (dd / "report.html").read_text()
    assert "2 of 3 pieces found" in page
    assert "Pieces not found in the stated source" in page
    assert (
        "piece 2: The bridge was closed to traffic in 1987. (best similarity 48.0) — found in page_b.txt"
        in page
    )


# ------------------------------------------------------------------------------ escaping


def test_new_fields_are_escaped(tmp_path: Path) -> None:
    """Strings from items reach facets, menus, count tables and details: all escaped, no handler."""
    evil = "<script>alert(1)</script>"
    attr = '" onmouseover="alert(2)'
    lines = references_lines()
    yd = lines[0]
    yd["id"] = f"id{evil}"
    yd["details"]["fields"][3] = _field(f"year{attr}", False, f"2020{evil}", evil, f"why {evil}")
    yd["details"]["candidates"][0]["title"] = f"title {evil}"
    yd["details"]["match"]["method"] = f"doi{attr}"
    sn = lines[7]
    sn["details"]["content"]["subclaims"][0]["subclaim"] = f"claim {evil}"
    sn["details"]["content"]["subclaims"][0]["scorer"] = f"scorer{attr}"
    d = write_run(tmp_path / "run", lines, manifest(judge=None))
    build_report(d, None, None)
    page = (d / "report.html").read_text()
    _self_contained(page)  # one script, the static one; no on…= attribute anywhere
    for where in (
        "<code>id&lt;script&gt;alert(1)&lt;/script&gt;</code>",
        "<td>2020&lt;script&gt;alert(1)&lt;/script&gt;</td>",
        "title &lt;script&gt;",
        "claim &lt;script&gt;",
        'data-v="year&#34; onmouseover=&#34;alert(2)"',  # the menu's failing-field option
        "<td>doi&#34; onmouseover=&#34;alert(2)</td>",  # the match-method table
    ):
        assert where in page, where
    rag_lines = [rag("r", f"en{attr}", {"accurate": [f"issue {evil}"]})]
    d2 = write_run(tmp_path / "rag", rag_lines, manifest(task="rag-audit", judge=None))
    build_report(d2, None, None)
    page2 = (d2 / "report.html").read_text()
    _self_contained(page2)
    assert "accurate: issue &lt;script&gt;" in page2 and "en&#34; onmouseover" in page2


def test_page_is_the_same_under_any_hash_seed(ref_run: Path, tmp_path: Path) -> None:
    """Facet tokens are numbered in first-seen order, not set order: one run, one page."""
    import os
    import subprocess
    import sys

    pages = []
    for seed in ("1", "2"):
        out = tmp_path / f"p{seed}.html"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        code = (
            "import sys; from citejudge.run.report import build_report; "
            "build_report(sys.argv[1], None, sys.argv[2])"
        )
        subprocess.run([sys.executable, "-c", code, str(ref_run), str(out)], check=True, env=env)
        pages.append(re.sub(r"generated [^<]*", "", out.read_text()))
    assert pages[0] == pages[1]


def test_demo_run_report_shows_every_item(tmp_path: Path) -> None:
    """The bundled demo (configs/demo-references.yaml, no model): 15 items, failures first, reasons, content view."""
    import yaml

    from citejudge.index import build_index
    from citejudge.run import load_config, run

    repo = Path(__file__).resolve().parents[1]
    build_index([repo / "demo" / "world" / "works.jsonl"], tmp_path / "w.index", workers=1)
    cfg = yaml.safe_load((repo / "configs" / "demo-references.yaml").read_text())
    cfg.update(
        input=str(repo / "demo" / "citations.jsonl"),
        index=str(tmp_path / "w.index"),
        out=str(tmp_path / "run"),
        workers=1,
    )
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg))
    run(load_config(tmp_path / "c.yaml"), quiet=True)
    page = (tmp_path / "run" / "report.html").read_text()
    _self_contained(page)
    keys = [k for k, _ in table_rows(page)]
    results = [json.loads(x) for x in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    assert sorted(keys) == sorted(x["id"] for x in results) and len(keys) == 15
    rg = {x["id"]: x["result"]["reference_grounding"] for x in results}
    firsts = [rg[k].split(".")[0] for k in keys]
    assert firsts == sorted(
        firsts, key=lambda v: {"No": 0, "N/A": 1, "Yes": 2}[v]
    )  # failures first
    for k in keys:  # each row's summary is the reason the result carries
        summary = re.search(r"<summary>(.*?)</summary>", row_html(page, k), re.S)
        assert summary is not None and summary.group(1).startswith(rg[k].split(":")[0][:30])
    assert "Content grounding <small>(15 items)</small>" in page
    assert "Content grounding × who decided it" in page and "not judged (no model)" in page


def test_details_stay_within_their_budget(tmp_path: Path) -> None:
    """An item with huge fields shows at most DETAIL_BUDGET characters of details and says where the rest is."""
    from citejudge.run.report_items import DETAIL_BUDGET

    long = "word " * 300
    x = references_lines()[0]
    x["details"]["fields"] = [_field("title", False, long, long, long) for _ in range(30)]
    x["details"]["candidates"] = [
        {"id": f"W{k}", "title": long, "year": 1, "first_author": long, "score": 1, "via": "t"}
        for k in range(9)
    ]
    d = write_run(tmp_path / "run", [x], manifest(judge=None))
    build_report(d, None, None)
    row = row_html((d / "report.html").read_text(), "year-doi")
    details = row.split('<div class="det">', 1)[1]
    text = re.sub(r"<[^>]+>", "", details)
    assert len(text) < DETAIL_BUDGET + 200
    assert re.search(r"Fields: as cited and as recorded</b><small>\(first \d of 30\)</small>", row)
    assert "these details are cut short there; the line has them all" in row


def test_items_from_documents_carry_a_document_facet(tmp_path: Path) -> None:
    """The document an item was found in (``details.input_extra.document.file``, as ``check
    document`` writes it) becomes a facet, and the Documents view links each document to them."""
    from citejudge.run.report import _compute, load_run

    lines = references_lines()[:3]
    for ln, f in zip(lines[:2], ["paper-a.pdf", "paper<b>.md"], strict=True):
        ln["details"]["input_extra"] = {
            "document": {"file": f, "entry": 1, "label": "1", "marker": "[1]", "sentence_number": 2}
        }
    summary = {
        "file": "paper-a.pdf",
        "format": "pdf",
        "error": None,
        "references": 40,
        "uncited": 2,
        "citing_sentences": 31,
        "unresolved": [{"marker": "[44]", "target": "44", "sentence": 9, "line": 120, "page": 3}],
        "reference_grounding": {"Not found": 1, "Yes": 39},
        "content_grounding": {"N/A": 1},
        "citing_sentences_judged": 0,
        "warnings": [],
    }
    broken = {"file": "scan.pdf", "error": "scan.pdf: the PDF has no text layer"}
    d = write_run(tmp_path / "run", lines, manifest(judge=None, documents=[summary, broken]))
    rows = _compute(load_run(d), None, None, None).rows
    assert [[v for g, v in r.facets if g == "Document"] for r in rows] == [
        ["paper-a.pdf"],
        ["paper<b>.md"],
        [],
    ]
    rep = build_report(d, None, None)
    assert [x["file"] for x in rep["documents"]] == ["paper-a.pdf", "scan.pdf"]
    assert rep["documents"][0]["markers_pointing_nowhere"] == 1
    page = (d / "report.html").read_text()
    doc_section = page[page.index('id="documents"') : page.index('id="why"')]
    # the document's name links to its rows; its counts are the summary's (entries, not lines)
    href = re.search(r'<a href="(#f-[t0-9.]+)"><code>paper-a.pdf</code></a>', doc_section)
    assert href is not None and rows_of(page, href.group(1)) == [lines[0]["id"]]
    assert "Not found" in doc_section and ">40<" in doc_section
    assert "scan.pdf: the PDF has no text layer" in doc_section
    assert "paper<b>" not in page  # escaped
