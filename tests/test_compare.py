"""`citejudge compare`: agreement, kappa, flipped items, and the manifest diff's verdict."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from citejudge.run.compare import CompareOptions, cmd_compare, compare_runs, manifest_diff
from test_report import ROWS, _ref_line, manifest, write_run

REF_FIELDS = {
    "reference_name",
    "reference_grounding",
    "content_grounding",
    "hallucination",
    "abstention",
    "verification_error",
}


def _lines() -> list[dict[str, Any]]:
    return [_ref_line(*r) for r in ROWS]


def test_identical_runs_agree_fully(tmp_path: Path) -> None:
    a = write_run(tmp_path / "a", _lines(), manifest())
    b = write_run(
        tmp_path / "b",
        _lines(),
        manifest(
            run_id="other",
            started_utc="2027-01-01T00:00:00+00:00",
            counts={"items": 6, "seconds": 9.0},
        ),
    )
    cmp = compare_runs(a, b)
    assert set(cmp["fields"]) == REF_FIELDS
    assert all(f["agreement"] == 1.0 for f in cmp["fields"].values())
    assert cmp["fields"]["reference_grounding"]["kappa"] == 1.0
    assert cmp["flipped"] == [] and cmp["only_in_a"] == [] and cmp["only_in_b"] == []
    assert cmp["manifest"]["kind"] == "reproducibility" and cmp["manifest"]["warning"] is None


def test_changed_model_is_a_model_comparison_with_flips(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = write_run(tmp_path / "a", _lines(), manifest())
    lines_b = _lines()
    lines_b[1] = _ref_line("i2", "Yes", "VALID", None)  # i2 flips No → Yes
    mb = manifest()
    mb["judge"] = {
        **mb["judge"],
        "card": {"name": "qwen-7b", "revision": "r9"},
        "backend": "vllm",
        "revision": "r9",
        "stats": {"hits": 1},
    }
    mb["config"] = {**mb["config"], "model": "qwen-7b"}
    b = write_run(tmp_path / "b", lines_b[:5], mb)  # i6 only in A
    cmp = compare_runs(a, b)
    d = cmp["manifest"]
    assert d["kind"] == "model comparison" and d["warning"] is None
    assert "judge.card.name" in d["model_keys"] and "config.model" in d["model_keys"]
    assert d["other_keys"] == []
    assert cmp["only_in_a"] == ["i6"] and cmp["items"]["common"] == 5
    rg = cmp["fields"]["reference_grounding"]
    assert (
        rg["n"] == 5
        and rg["agree"] == 4
        and rg["agreement"] == 0.8
        and rg["flips"] == {"No → Yes": 1}
    )
    assert [x["id"] for x in cmp["flipped"]] == ["i2"]
    flip = cmp["flipped"][0]["fields"]
    assert set(flip) == {"reference_grounding", "hallucination"}
    assert flip["reference_grounding"]["explanation_a"].startswith("No. Year mismatch")
    assert flip["reference_grounding"]["explanation_b"].startswith("Yes. Matches")
    assert cmd_compare(CompareOptions(run_a=a, run_b=b)) == 0
    text = capsys.readouterr().out
    assert (
        "model comparison" in text
        and "WARNING" not in text
        and "i2" in text
        and "No. Year mismatch" in text
    )
    assert "only in A (1): i6" in text


def test_changed_index_or_code_warns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = write_run(tmp_path / "a", _lines(), manifest())
    mb = manifest()
    mb["index"] = copy.deepcopy(mb["index"])
    mb["index"]["meta"]["works"] = 13
    mb["index"]["meta"]["built_at"] = (
        "2027-01-01T00:00:00+00:00"  # a rebuild alone is not a difference
    )
    mb["code"] = {"commit": "f" * 40, "dirty": True}
    b = write_run(tmp_path / "b", _lines(), mb)
    cmp = compare_runs(a, b)
    d = cmp["manifest"]
    assert d["kind"] == "setup differs"
    assert d["other_keys"] == ["code.commit", "code.dirty", "index.meta.works"]
    assert "index.meta.works" in d["warning"]
    assert cmd_compare(CompareOptions(run_a=a, run_b=b, as_json=True)) == 0
    out = json.loads(capsys.readouterr().out)
    assert (
        out["manifest"]["kind"] == "setup differs"
        and out["fields"]["reference_grounding"]["agreement"] == 1.0
    )


def test_manifest_diff_rules() -> None:
    m = manifest()
    assert manifest_diff(m, copy.deepcopy(m))["kind"] == "reproducibility"
    other_input = manifest(
        input={"files": [{"path": "elsewhere/items.jsonl", "sha256": "i" * 64, "items": 6}]}
    )
    assert (
        manifest_diff(m, other_input)["kind"] == "reproducibility"
    )  # same content at another path
    changed_input = manifest(
        input={"files": [{"path": "items.jsonl", "sha256": "j" * 64, "items": 6}]}
    )
    assert manifest_diff(m, changed_input)["other_keys"] == ["input.files.0.sha256"]
    versions = manifest(versions={**m["versions"], "rapidfuzz": "3.15.0"})
    assert manifest_diff(m, versions)["other_keys"] == ["versions.rapidfuzz"]
    no_model = manifest(judge=None, config={**m["config"], "model": "none", "sampling": None})
    assert manifest_diff(m, no_model)["kind"] == "model comparison"
    prompt = copy.deepcopy(m)
    prompt["judge"]["prompts"]["content"] = "q" * 64
    assert manifest_diff(m, prompt)["other_keys"] == ["judge.prompts.content"]
    assert manifest_diff(m, None)["kind"] == "unknown"


def test_rag_audit_fields_and_errors(tmp_path: Path) -> None:
    def rag(i: str, verdict: str, acc: str) -> dict[str, Any]:
        dims = {d: {"status": "PASS", "issues": []} for d in ("exists", "complete", "formatted")}
        dims["accurate"] = {
            "status": acc,
            "issues": [] if acc == "PASS" else ["claim 2 not supported"],
        }
        return {
            "id": i,
            "task": "rag-audit",
            "error": None,
            "details": {},
            "result": {
                "verdict": verdict,
                "dimensions": dims,
                "summary": f"summary {verdict}",
                "recommendations": [],
            },
        }

    err = {
        "id": "c",
        "task": "rag-audit",
        "result": None,
        "details": {},
        "error": {"kind": "judge", "message": "model timed out"},
    }
    m = manifest(task="rag-audit")
    a = write_run(
        tmp_path / "a",
        [rag("a", "PASS", "PASS"), rag("b", "PASS", "PASS"), rag("c", "PASS", "PASS")],
        m,
    )
    b = write_run(tmp_path / "b", [rag("a", "PASS", "PASS"), rag("b", "FAIL", "FAIL"), err], m)
    cmp = compare_runs(a, b)
    assert set(cmp["fields"]) == {
        "verdict",
        "dimensions.exists",
        "dimensions.accurate",
        "dimensions.complete",
        "dimensions.formatted",
    }
    assert cmp["fields"]["verdict"]["agreement"] == pytest.approx(1 / 3, abs=1e-6)
    flips = {x["id"]: x["fields"] for x in cmp["flipped"]}
    assert flips["b"]["dimensions.accurate"]["explanation_b"] == "claim 2 not supported"
    assert flips["c"]["verdict"] == {
        "a": "PASS",
        "b": "ERROR",
        "explanation_a": "summary PASS",
        "explanation_b": "judge: model timed out",
    }


def test_compare_page_links_flips_to_their_items(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """compare --html: each flip count links to exactly its items, each with both sides' reasons."""
    from test_report import _self_contained, row_html, rows_of, table_rows

    evil = "<script>alert(1)</script>"
    lines_a = _lines()
    lines_a[3]["id"] = f"i4{evil}"
    a = write_run(tmp_path / "a", lines_a, manifest())
    lines_b = _lines()
    lines_b[3]["id"] = f"i4{evil}"
    lines_b[1] = _ref_line("i2", "Yes", "VALID", None)  # i2: No → Yes
    lines_b[0] = _ref_line("i1", "No", "VALID", None)  # i1: Yes → No
    lines_b[3] = _ref_line(f"i4{evil}", "Yes", "HALLUCINATED", "fabricated_doi")  # No → Yes
    lines_b[3]["result"]["reference_grounding"] = f"Yes. Matches {evil}"
    b = write_run(tmp_path / "b", lines_b, manifest())
    out = tmp_path / "cmp" / "compare.html"
    assert cmd_compare(CompareOptions(run_a=a, run_b=b, html=out)) == 0
    text = capsys.readouterr().out
    assert f"page: {out}" in text and "(results.jsonl line 2 in A, 2 in B)" in text
    page = out.read_text()
    _self_contained(page)
    esc = "i4&lt;script&gt;alert(1)&lt;/script&gt;"
    assert [k for k, _ in table_rows(page)] == ["i1", "i2", esc]
    rg = re.search(r"<tr><td>reference_grounding</td>.*?</tr>", page)
    assert rg is not None
    links = dict(re.findall(r"(No → Yes|Yes → No): <a href=\"(#f-[t0-9.]+)\">\d+</a>", rg.group(0)))
    assert rows_of(page, links["No → Yes"]) == ["i2", esc]
    assert rows_of(page, links["Yes → No"]) == ["i1"]
    row = row_html(page, "i2")
    assert "reference_grounding in A (No)" in row and "reference_grounding in B (Yes)" in row
    # both runs' details of the item, each named by its side
    assert "<b>A: Reference grounding</b>No. Year mismatch" in row
    assert "<b>B: Reference grounding</b>Yes. Matches W1" in row
    assert "Yes. Matches &lt;script&gt;" in row_html(page, esc)


def test_compare_page_caps_its_rows(tmp_path: Path) -> None:
    """Every item can flip (a broken reproducibility run): the page holds the first rows, counts all."""
    from citejudge.run.compare import compare_loaded
    from citejudge.run.compare_page import build_compare_page
    from citejudge.run.report import load_run

    a = write_run(tmp_path / "a", _lines(), manifest())
    b = write_run(tmp_path / "b", [_ref_line(*r[:1], "Yes", *r[2:]) for r in ROWS], manifest())
    ra, rb = load_run(a), load_run(b)
    cmp = compare_loaded(ra, rb)
    assert len(cmp["flipped"]) == 4  # i2, i3, i4 No → Yes, i6 ERROR → Yes
    page = build_compare_page(cmp, ra, rb, max_rows=2)
    assert [r.key for r in page.table.rows] == ["i2", "i3"] and page.table.total == 4
    assert "first 2 of 4 flipped items" in page.table.note and page.cards[1].value == 4
    rg = next(f for f in page.fields if f.field == "reference_grounding")
    assert dict((t, c.n) for t, c in rg.flips) == {"ERROR → Yes": 1, "No → Yes": 3}
