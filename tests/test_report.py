"""Metrics (exact numbers, properties, sklearn cross-check) and `citejudge report` on tiny run dirs."""

from __future__ import annotations

import json
import math
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citejudge.run.metrics import (
    accuracy,
    balanced_accuracy,
    binary_stats,
    classification_summary,
    cohen_kappa,
    confusion_matrix,
    label_order,
    macro_f1,
    per_class,
)
from citejudge.run.report import (
    ReportError,
    ReportOptions,
    build_report,
    cmd_report,
    parse_gold_map,
)
from citejudge.run.report_page import static_script

# ------------------------------------------------------------------------------ metrics: exact numbers

G = ["a", "a", "a", "b", "b", "c"]
P = ["a", "a", "b", "b", "c", "c"]


def test_confusion_matrix_fixed_order() -> None:
    cm = confusion_matrix(G, P, ["a", "b", "c"])
    assert cm.tolist() == [[2, 1, 0], [0, 1, 1], [0, 0, 1]]
    assert confusion_matrix(G, P, ["c", "b", "a"]).tolist() == [[1, 0, 0], [1, 1, 0], [0, 1, 2]]
    with pytest.raises(ValueError):
        confusion_matrix(G, P, ["a", "b"])
    with pytest.raises(ValueError):
        confusion_matrix(["a"], [], ["a"])


def test_exact_metrics_three_classes() -> None:
    labels = ["a", "b", "c"]
    cm = confusion_matrix(G, P, labels)
    assert accuracy(G, P) == pytest.approx(4 / 6)
    pc = per_class(cm, labels)
    assert pc["a"]["precision"] == 1.0 and pc["a"]["recall"] == pytest.approx(2 / 3)
    assert pc["a"]["f1"] == pytest.approx(0.8)
    assert pc["b"]["f1"] == pytest.approx(0.5)
    assert pc["c"]["f1"] == pytest.approx(2 / 3)
    assert macro_f1(cm, labels) == pytest.approx((0.8 + 0.5 + 2 / 3) / 3)
    assert balanced_accuracy(cm) == pytest.approx((2 / 3 + 1 / 2 + 1) / 3)
    assert cohen_kappa(cm) == pytest.approx(0.5)
    assert macro_f1(cm, labels, exclude=["c"]) == pytest.approx((0.8 + 0.5) / 2)


def test_binary_and_degenerate_cases() -> None:
    s = binary_stats([1, 1, 0, 0], [1, 0, 1, 0], positive=1)
    assert s == {
        "tp": 1,
        "fp": 1,
        "fn": 1,
        "tn": 1,
        "precision": 0.5,
        "recall": 0.5,
        "f1": 0.5,
        "fpr": 0.5,
    }
    assert binary_stats([0, 0], [0, 0], positive=1)["f1"] == 0.0
    assert math.isnan(cohen_kappa(confusion_matrix(["x", "x"], ["x", "x"])))
    assert accuracy([], []) == 0.0
    summary = classification_summary(["x", "x"], ["x", "x"])
    assert summary["kappa"] is None and summary["accuracy"] == 1.0
    assert label_order(["b", "z"], ["a"], preferred=["z", "q"]) == ["z", "q", "a", "b"]


def test_matches_sklearn_on_a_random_example() -> None:
    skm = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(0)
    labels = ["x", "y", "z", "w"]
    g = [labels[i] for i in rng.integers(0, 4, 200)]
    p = [labels[i] for i in rng.integers(0, 3, 200)]
    cm = confusion_matrix(g, p, labels)
    assert cm.tolist() == skm.confusion_matrix(g, p, labels=labels).tolist()
    assert balanced_accuracy(cm) == pytest.approx(skm.balanced_accuracy_score(g, p))
    assert cohen_kappa(cm) == pytest.approx(skm.cohen_kappa_score(g, p))
    assert macro_f1(cm, labels) == pytest.approx(
        skm.f1_score(g, p, average="macro", zero_division=0)
    )


# ------------------------------------------------------------------------------ metrics: properties

labelings = st.lists(st.sampled_from(["A", "B", "C", "D"]), min_size=1, max_size=60)


@given(labelings)
def test_kappa_of_identical_labelings_is_one(xs: list[str]) -> None:
    kappa = cohen_kappa(confusion_matrix(xs, xs))
    if len(set(xs)) > 1:
        assert kappa == pytest.approx(1.0)
    else:
        assert math.isnan(kappa)


@given(st.integers(2, 5), st.integers(1, 12), st.data())
def test_balanced_accuracy_of_constant_predictor(k: int, m: int, data: st.DataObject) -> None:
    classes = [f"c{i}" for i in range(k)]
    gold = [c for c in classes for _ in range(m)]
    const = data.draw(st.sampled_from(classes))
    cm = confusion_matrix(gold, [const] * len(gold), classes)
    assert balanced_accuracy(cm) == pytest.approx(1 / k)


@settings(max_examples=60)
@given(st.data())
def test_confusion_totals_and_kappa_symmetry(data: st.DataObject) -> None:
    g = data.draw(labelings)
    p = data.draw(st.lists(st.sampled_from(["A", "B", "C", "D"]), min_size=len(g), max_size=len(g)))
    cm = confusion_matrix(g, p)
    assert int(cm.sum()) == len(g)
    assert cm.sum(axis=1).tolist() == [g.count(str(x)) for x in label_order(g, p)]
    assert accuracy(g, p) == pytest.approx(np.trace(cm) / len(g))
    k1, k2 = cohen_kappa(cm), cohen_kappa(cm.T)
    assert (math.isnan(k1) and math.isnan(k2)) or k1 == pytest.approx(k2)
    assert math.isnan(k1) or -1.0 - 1e-9 <= k1 <= 1.0 + 1e-9


# ------------------------------------------------------------------------------ report: fixtures


def _ref_line(i: str, verdict: str | None, label: str, htype: str | None) -> dict[str, Any]:
    extra = {"label": label, "hallucination_type": htype}
    if verdict is None:
        return {
            "id": i,
            "task": "references",
            "result": None,
            "details": {"input_extra": extra},
            "error": {"kind": "parse", "message": "no title or identifier"},
        }
    rg = {"Yes": "Yes. Matches W1 via doi.", "No": "No. Year mismatch: cited 2020, record 2019."}[
        verdict
    ]
    return {
        "id": i,
        "task": "references",
        "error": None,
        "details": {"input_extra": extra},
        "result": {
            "reference_name": f"ref {i}",
            "reference_grounding": rg,
            "content_grounding": "N/A. Content was not judged.",
            "hallucination": "No" if verdict == "Yes" else "Yes",
            "abstention": "No",
            "verification_error": "No",
        },
    }


ROWS = [
    ("i1", "Yes", "VALID", None),
    ("i2", "No", "VALID", None),
    ("i3", "No", "HALLUCINATED", "fabricated_doi"),
    ("i4", "No", "HALLUCINATED", "fabricated_doi"),
    ("i5", "Yes", "HALLUCINATED", "wrong_venue"),
    ("i6", None, "HALLUCINATED", "wrong_venue"),
]


def manifest(**over: Any) -> dict[str, Any]:
    m: dict[str, Any] = {
        "run_id": "abc123",
        "started_utc": "2026-01-01T00:00:00+00:00",
        "finished_utc": "2026-01-01T00:01:00+00:00",
        "status": "finished",
        "task": "references",
        "code": {"commit": "deadbeef" * 5, "dirty": False},
        "versions": {
            "python": "3.11.7",
            "citejudge": "0.1.0",
            "rapidfuzz": "3.14.6",
            "tantivy": "0.27.0",
        },
        "config": {
            "task": "references",
            "input": ["items.jsonl"],
            "index": "w.index",
            "out": "run",
            "model": "cpu-default",
            "sampling": {"temperature": 0.0, "seed": 0},
            "workers": 2,
            "today_year": 2026,
        },
        "config_sha256": "c" * 64,
        "judge": {
            "card": {"name": "cpu-default", "revision": "r1"},
            "backend": "transformers",
            "revision": "r1",
            "sampling": {"temperature": 0.0, "seed": 0},
            "prompts": {"content": "p" * 64},
            "schemas": {"content": "s" * 64},
            "stats": {"hits": 0, "misses": 3},
        },
        "index": {
            "path": "w.index",
            "meta_sha256": "m" * 64,
            "meta": {"works": 12, "schema_version": 1, "built_at": "2026-01-01T00:00:00+00:00"},
        },
        "input": {"files": [{"path": "items.jsonl", "sha256": "i" * 64, "items": 6}]},
        "seeds": {"sampling": 0, "run": 0},
        "counts": {
            "items": 6,
            "errors": 1,
            "decided_without_model": 4,
            "seconds": 2.0,
            "verdicts": {"Yes": 2, "No": 3, "error": 1},
        },
        "timings": {"seconds_this_session": 2.0},
        "tokens": None,
    }
    for k, v in over.items():
        m[k] = v
    return m


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    """``records`` as a JSONL file at ``path``."""
    path.write_text("".join(json.dumps(x) + "\n" for x in records))
    return path


def write_run(path: Path, lines: list[dict[str, Any]], man: dict[str, Any] | None) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "results.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    (path / "errors.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines if x["error"]))
    if man is not None:
        (path / "manifest.json").write_text(json.dumps(man))
    return path


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    return write_run(tmp_path / "run", [_ref_line(*r) for r in ROWS], manifest())


def _self_contained(page: str) -> None:
    """No external resource; the one script is the static filter; no event handler attribute."""
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page, re.I)
    assert "<link" not in page.lower() and "@import" not in page
    assert "url(" not in page and "javascript:" not in page.lower()
    scripts = re.findall(r"<script\b[^>]*>(.*?)</script>", page, re.S | re.I)
    assert len(scripts) == page.lower().count("<script") == 1
    assert scripts[0].strip() == static_script()
    assert _handler_attributes(page) == []  # no inline event handler


def _handler_attributes(page: str) -> list[str]:
    """Attributes named on… (event handlers) of any tag, as a browser's parser reads them."""
    found: list[str] = []

    class Parser(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            found.extend(f"{tag} {k}" for k, _ in attrs if k.lower().startswith("on"))

    Parser().feed(page)
    return found


_ROW = re.compile(r'<tr id="r\d+" class="it [^"]*" data-t="([^"]*)"><td><code>(.*?)</code>')


def table_rows(page: str) -> list[tuple[str, set[str]]]:
    """The item table's rows in page order: (key as written in the page, filter tokens)."""
    return [(key, set(toks.split())) for toks, key in _ROW.findall(page)]


def row_html(page: str, key: str) -> str:
    """The HTML of the item-table row whose key is ``key`` (as written in the page)."""
    body = page.split('<table id="item-table"', 1)[1].split("</section>", 1)[0]
    for chunk in body.split('<tr id="r')[1:]:
        if chunk.split("</code>", 1)[0].endswith(f"<td><code>{key}"):
            return '<tr id="r' + chunk
    raise AssertionError(f"no row {key}")


def rows_of(page: str, href: str) -> list[str]:
    """The keys of the rows a link ``#f-tA.tB`` shows, as the page's script selects them."""
    assert href.startswith("#f-") and f'<a id="{href[1:]}"></a>' in page  # reachable without script
    want = set(href[3:].split("."))
    return [key for key, toks in table_rows(page) if want <= toks]


# ------------------------------------------------------------------------------ report: tests


def test_report_without_gold(run_dir: Path) -> None:
    rep = build_report(run_dir, None, None)
    page = (run_dir / "report.html").read_text()
    _self_contained(page)
    on_disk = json.loads((run_dir / "report.json").read_text())
    assert on_disk["views"] == rep["views"]
    rg = rep["views"]["reference_grounding"]
    assert rg["distribution"] == {"Yes": 2, "No": 3, "ERROR": 1}
    assert "gold" not in rg
    assert rep["views"]["hallucination"]["distribution"] == {"No": 2, "Yes": 3, "ERROR": 1}
    assert rep["errors"]["by_kind"] == {"parse": 1}
    assert rep["throughput_items_per_s"] == 3.0
    assert rep["manifest"]["run_id"] == "abc123" and rep["manifest"]["model"] == "cpu-default"
    assert rep["views"]["content_grounding"]["distribution"] == {"N/A": 5, "ERROR": 1}
    for fact in ("abc123", "deadbeef", "cpu-default", "r1", "m" * 64, "c" * 64, "i" * 64):
        assert fact in page
    assert page.count("<svg") == 3  # the three distributions
    assert "Confusion matrix" not in page
    # every item, errors first, then failures, then the rest, each in input order
    assert [k for k, _ in table_rows(page)] == ["i6", "i2", "i3", "i4", "i1", "i5"]
    assert rep["item_table"] == {
        "rows": 6,
        "unit": "item",
        "shown": 6,
        "rows_per_verdict": 200,
        "companion": None,
        "in_companion": 0,
    }


EXPECTED = {
    "n": 6,
    "accuracy": 0.5,
    "balanced_accuracy": 0.5,
    "kappa": 0.1,
    "labels": ["Yes", "No", "N/A", "ERROR"],
    "confusion": [[1, 1, 0, 0], [1, 2, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0]],
}


def _check_gold(rep: dict[str, Any]) -> None:
    m = rep["views"]["reference_grounding"]["gold"]
    for k, v in EXPECTED.items():
        assert m[k] == (pytest.approx(v) if isinstance(v, float) else v), k
    # ERROR counts against the recall of "No" but is no class of its own in the macro average.
    assert m["macro_f1"] == pytest.approx((0.5 + 4 / 7) / 2, abs=1e-6)
    assert m["per_class"]["No"]["precision"] == pytest.approx(2 / 3, abs=1e-6)
    cats = m["per_category"]
    assert list(cats) == ["fabricated_doi", "wrong_venue", "(none)"]
    assert cats["fabricated_doi"] == {
        "n": 2,
        "correct": 2,
        "accuracy": 1.0,
        "gold": {"No": 2},
        "predicted": {"No": 2},
    }
    assert cats["wrong_venue"]["accuracy"] == 0.0 and cats["(none)"]["accuracy"] == 0.5
    assert m["misclassified"] == 3 and {x["key"] for x in m["misclassified_examples"]} == {
        "i2",
        "i5",
        "i6",
    }
    assert m["warnings"] == []
    assert "gold" not in rep["views"]["hallucination"]


def test_report_gold_field_with_map(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "out" / "r.html"
    rep = build_report(run_dir, "label", out, gold_map="VALID=Yes,HALLUCINATED=No")
    _check_gold(rep)
    assert rep["gold"]["category_field"] == "hallucination_type"
    page = out.read_text()
    _self_contained(page)
    assert "Confusion matrix" in page and 'class="confusion"' in page and "Per category" in page
    assert page.count("<svg") == 4  # category bars, 3 distributions
    assert (
        'class="n diag dark" style="background:' in page
    )  # the confusion table is shaded as a heatmap
    # each confusion cell links to exactly its items: gold No predicted Yes is i5, No → ERROR i6
    cells = re.findall(r'<td class="n[^"]*"[^>]*><a href="(#f-[t0-9.]+)">(\d+)</a></td>', page)
    linked = {tuple(rows_of(page, href)): int(n) for href, n in cells}
    assert linked[("i5",)] == 1 and linked[("i6",)] == 1
    assert linked[("i3", "i4")] == 2 and linked[("i1",)] == 1 and linked[("i2",)] == 1
    # the misclassified count links to the three misclassified items
    mis = re.search(r"Misclassified \(<a href=\"(#f-[t0-9.]+)\">3</a>", page)
    assert mis is not None and rows_of(page, mis.group(1)) == ["i6", "i2", "i5"]
    saved = json.loads((tmp_path / "out" / "report.json").read_text())
    assert saved["views"]["reference_grounding"]["gold"]["confusion"] == EXPECTED["confusion"]
    assert saved["views"]["reference_grounding"]["gold"]["kappa"] == 0.1


def test_report_gold_files_jsonl_and_csv(run_dir: Path, tmp_path: Path) -> None:
    gold = {
        "i1": "VALID",
        "i2": "VALID",
        "i3": "HALLUCINATED",
        "i4": "HALLUCINATED",
        "i5": "HALLUCINATED",
        "i6": "HALLUCINATED",
    }
    cats = {
        "i3": "fabricated_doi",
        "i4": "fabricated_doi",
        "i5": "wrong_venue",
        "i6": "wrong_venue",
    }
    jl = tmp_path / "gold.jsonl"
    jl.write_text(
        "".join(
            json.dumps({"id": k, "label": v, **({"category": cats[k]} if k in cats else {})}) + "\n"
            for k, v in gold.items()
        )
    )
    _check_gold(
        build_report(
            run_dir, jl, tmp_path / "a.html", gold_map="VALID=Yes,HALLUCINATED=No", plots=False
        )
    )
    cs = tmp_path / "gold.csv"
    cs.write_text(
        "id,label,category\n" + "".join(f"{k},{v},{cats.get(k, '')}\n" for k, v in gold.items())
    )
    _check_gold(
        build_report(
            run_dir, str(cs), tmp_path / "b.html", gold_map="VALID=Yes,HALLUCINATED=No", plots=False
        )
    )
    # A partial gold file: unlabelled rows are counted, not scored.
    part = tmp_path / "part.csv"
    part.write_text("id,label\ni1,Yes\ni2,No\n")
    m = build_report(run_dir, part, tmp_path / "c.html", plots=False)["views"][
        "reference_grounding"
    ]["gold"]
    assert m["n"] == 2 and m["unlabelled"] == 4 and m["accuracy"] == 1.0


def test_report_unmapped_gold_labels_warn(run_dir: Path) -> None:
    m = build_report(run_dir, "label", None, plots=False)["views"]["reference_grounding"]["gold"]
    assert m["accuracy"] == 0.0 and m["warnings"] and "--gold-map" in m["warnings"][0]
    assert "--gold-map" in (run_dir / "report.html").read_text()


def test_report_bad_inputs(run_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ReportError):
        build_report(run_dir, "no_such_field", None)
    with pytest.raises(ReportError):
        build_report(run_dir, "missing/gold.jsonl", None)
    with pytest.raises(ReportError):
        build_report(tmp_path / "nowhere", None, None)
    with pytest.raises(ReportError):
        parse_gold_map("VALID")
    assert parse_gold_map(" A=B , C=D ") == {"A": "B", "C": "D"}


def test_report_tolerates_missing_manifest_and_corrupted_tail(tmp_path: Path) -> None:
    d = write_run(tmp_path / "r", [_ref_line(*r) for r in ROWS[:2]], None)
    with (d / "results.jsonl").open("a") as fh:
        fh.write('{"id": "i3", "task": "refer')
    rep = build_report(d, None, None, plots=False)
    assert rep["items"] == 2 and rep["dropped_corrupted_tail"] is True and rep["manifest"] == {}
    page = (d / "report.html").read_text()
    assert "No manifest.json" in page and "<svg" not in page and "style=" not in page


def test_cmd_report_prints_summary(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    opts = ReportOptions(
        run_dir=run_dir, gold="label", gold_map="VALID=Yes,HALLUCINATED=No", plots=False
    )
    assert cmd_report(opts) == 0
    out = json.loads(capsys.readouterr().out)
    assert (
        out["html"] == str(run_dir / "report.html") and out["reference_grounding"]["kappa"] == 0.1
    )


def test_report_escapes_item_text(tmp_path: Path) -> None:
    """Text from the items (ids, explanations, labels, categories, error messages) is escaped, charts included."""
    evil = "<script>alert(1)</script>"
    lines = [
        _ref_line(f"i1{evil}", "No", "VALID", f"cat{evil}"),
        _ref_line("i2", None, "VALID", None),
    ]
    lines[0]["result"]["reference_grounding"] = f"No. Title mismatch: cited {evil}"
    lines[1]["error"]["message"] = f"bad {evil} & more"
    lines[1]["details"]["input_extra"]["label"] = f"VALID{evil}"
    d = write_run(tmp_path / "run", lines, manifest(run_id=evil, versions={"python": evil}))
    build_report(d, "label", None)
    page = (d / "report.html").read_text()
    _self_contained(page)  # one script, the static one: none of the evil strings became one
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    for where in (
        "<code>i1&lt;script&gt;",
        "cited &lt;script&gt;",
        "bad &lt;script&gt;alert(1)&lt;/script&gt; &amp; more",
        "<td>cat&lt;script&gt;",
        "<text x=",
        "<th>VALID&lt;script&gt;",
    ):
        assert where in page, where
    # the category chart draws the category name as SVG text, escaped too
    assert re.search(r"<text [^>]*>cat&lt;script&gt;alert\(1\)&lt;/script&gt;</text>", page)


def test_cli_report_and_compare_build_typed_options(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from citejudge.cli import main

    out = tmp_path / "elsewhere" / "page.html"
    assert (
        main(
            [
                "report",
                str(run_dir),
                "--gold",
                "label",
                "--gold-map",
                "VALID=Yes,HALLUCINATED=No",
                "--category",
                "hallucination_type",
                "--html",
                str(out),
                "--no-plots",
            ]
        )
        == 0
    )
    short = json.loads(capsys.readouterr().out)
    assert short["html"] == str(out) and short["json"] == str(out.with_name("report.json"))
    assert short["reference_grounding"]["kappa"] == 0.1
    page = out.read_text()
    assert "Per category" in page and "<svg" not in page
    assert main(["compare", str(run_dir), str(run_dir), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["manifest"]["kind"] == "reproducibility"


def test_bar_chart_geometry() -> None:
    from citejudge.run.report_page import _bar_chart

    c = _bar_chart("t", "items", ["Yes", "No"], [9.0, 5.0], ["9", "5"], plot_width=300.0)
    assert [t.text for t in c.ticks] == [
        "0",
        "5",
        "10",
    ]  # the scale ends on a tick past the longest bar
    assert [b.width for b in c.bars] == [270.0, 150.0]
    assert c.bars[1].y > c.bars[0].y and c.axis_y > c.bars[1].y + c.bar_height
    acc = _bar_chart("t", "accuracy", ["a"], [0.5], ["0.50"], xmax=1.0, plot_width=300.0)
    assert [t.text for t in acc.ticks] == ["0", "0.2", "0.4", "0.6", "0.8", "1"] and acc.bars[
        0
    ].width == 150.0


def test_report_rag_audit_and_citation_eval(tmp_path: Path) -> None:
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
            "details": {"input_extra": {"gold": verdict}},
            "result": {
                "verdict": verdict,
                "dimensions": dims,
                "summary": "s",
                "recommendations": [],
            },
        }

    d = write_run(
        tmp_path / "rag",
        [rag("a", "PASS", "PASS"), rag("b", "FAIL", "FAIL")],
        manifest(task="rag-audit", judge=None),
    )
    rep = build_report(d, "gold", None, plots=False)
    assert rep["views"]["verdict"]["gold"]["accuracy"] == 1.0
    assert rep["views"]["dimension.accurate"]["distribution"] == {"PASS": 1, "FAIL": 1}
    assert rep["manifest"]["model"].startswith("none")

    def ce(i: str, sups: list[str], align: str) -> dict[str, Any]:
        cits = [
            {
                "citation_id": n + 1,
                "citation_support": {"judgement": s, "reasoning": "r", "support_score": 1.0},
                "source_verification": {"judgement": "VERIFIED", "url_accessible": True},
                "interpretability_score": 1.0,
            }
            for n, s in enumerate(sups)
        ]
        return {
            "id": i,
            "task": "citation-eval",
            "error": None,
            "details": {"input_extra": {}},
            "result": {
                "citation_evaluations": cits,
                "answer_evaluation": {"alignment_judgement": align, "correctness_score": 1.0},
                "overall_assessment": {"overall_score": 0.9},
            },
        }

    d2 = write_run(
        tmp_path / "ce",
        [ce("q1", ["ENTAILMENT", "NEUTRAL"], "CORRECT"), ce("q2", ["CONTRADICTION"], "INCORRECT")],
        manifest(task="citation-eval"),
    )
    gold = write_jsonl(
        tmp_path / "g.jsonl",
        [
            {"id": "q1#1", "label": "ENTAILMENT"},
            {"id": "q1#2", "label": "ENTAILMENT"},
            {"id": "q2#1", "label": "CONTRADICTION"},
            {"id": "q1", "label": "CORRECT"},
        ],
    )
    rep2 = build_report(d2, gold, None, plots=False)
    assert rep2["views"]["citation_support"]["n"] == 3
    assert rep2["views"]["citation_support"]["gold"]["accuracy"] == pytest.approx(2 / 3, abs=1e-6)
    assert rep2["views"]["alignment"]["gold"]["n"] == 1
    _self_contained((d2 / "report.html").read_text())


@pytest.mark.shared
def test_report_on_hallmark_run(shared_data: Path, tmp_path: Path) -> None:
    """A real run over HALLMARK dev (deterministic stage) gives a full report with per-type tables."""
    import sys

    from citejudge.index import build_index
    from citejudge.run import load_config, run

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
    from bench_references import render_bibtex

    items = tmp_path / "items.jsonl"
    with items.open("w") as fh:
        for n, x in enumerate(
            (shared_data / "hallmark" / "dev_public.jsonl").read_text().splitlines()[:200]
        ):
            e = json.loads(x)
            fh.write(
                json.dumps(
                    {
                        "id": e.get("bibtex_key") or str(n),
                        "full_citation": render_bibtex(e),
                        "label": e["label"],
                        "hallucination_type": e.get("hallucination_type"),
                    }
                )
                + "\n"
            )
    build_index([shared_data / "hallmark" / "world.bib"], tmp_path / "w.index", workers=1)
    cfg_path = tmp_path / "c.yaml"
    cfg_path.write_text(
        f"task: references\ninput: {items}\nindex: {tmp_path / 'w.index'}\nout: {tmp_path / 'run'}\n"
        "model: none\nworkers: 1\ntoday_year: 2026\n"
    )
    run(load_config(cfg_path), quiet=True)
    rep = build_report(
        tmp_path / "run", "label", None, gold_map="VALID=Yes,HALLUCINATED=No", plots=False
    )
    m = rep["views"]["reference_grounding"]["gold"]
    assert m["n"] == 200 and m["accuracy"] > 0.8 and len(m["per_category"]) > 3
