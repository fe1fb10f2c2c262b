"""Report page size and speed on a 10,000-item run: HTML bytes, build seconds, Chromium load and filter times.

For each task a run directory of ``--items`` result lines is written, then ``build_report`` makes
its page twice per round, in turns: with the default row limit (the first N rows of each
(outcome, verdict) group inline, the rest in the companion JSONL) and with every row inline, so
the cap's effect is measured on the same machine in the same minutes. Prints one JSON object:

* per task: ``rows`` (items, or citations), ``groups`` (outcome × primary verdict), the HTML,
  companion and ``report.json`` sizes, bytes per inline row, build seconds (median of rounds,
  and every round), and — when Debian's Chromium is installed — the page's load time (navigate
  to load event, over the DevTools pipe), the time a verdict-menu filter and a typed text filter
  take in the page, and its DOM node count; each for ``capped`` and ``all_inline``;
* ``bound``: the largest capped page over the tasks against the stated bound.

Result lines: ``references`` are the real pipeline's output over HALLMARK dev (``../shared``,
deterministic stage) repeated under fresh ids when that data is present, else generated in the
shapes the pipeline writes; ``rag-audit`` and ``citation-eval`` are generated in their shapes
(seeded). The machine is shared: read the ratios, and the absolute numbers as a rough guide.

    python scripts/bench_report.py [--items 10000] [--rounds 3] [--rows-per-verdict 200]
        [--tasks references,rag-audit,citation-eval] [--source auto|hallmark|synthetic] [--no-browser]
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from citejudge.run.report import DEFAULT_ROWS_PER_VERDICT, build_report, companion_path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
#: The size the page must stay under at 10,000 items with the default row limit (README).
BOUND_BYTES = 3_000_000

_WORDS = [
    "learning",
    "deep",
    "neural",
    "network",
    "graph",
    "attention",
    "transformer",
    "language",
    "model",
    "retrieval",
    "evaluation",
    "citation",
    "grounding",
    "protein",
    "structure",
    "prediction",
    "climate",
    "reinforcement",
    "policy",
    "optimization",
    "stochastic",
    "gradient",
    "convex",
    "sparse",
    "representation",
    "vision",
    "segmentation",
    "translation",
    "multilingual",
    "speech",
    "recognition",
    "causal",
    "inference",
    "survey",
    "benchmark",
    "dataset",
]
_SURNAMES = [
    "Novak",
    "Smith",
    "Zhang",
    "Garcia",
    "Müller",
    "Dvořák",
    "Kowalski",
    "Rossi",
    "Tanaka",
    "Okafor",
    "Silva",
    "Nguyen",
]
_VENUES = [
    "Neural Computation",
    "Proceedings of NAACL-HLT",
    "Nature",
    "Journal of Machine Learning Research",
    "IEEE Conference on Computer Vision and Pattern Recognition",
    "arXiv preprint",
]


def _title(r: random.Random) -> str:
    return " ".join(r.choice(_WORDS) for _ in range(r.randint(6, 14))).capitalize()


def _authors(r: random.Random) -> list[str]:
    return [f"{r.choice(_SURNAMES)}, {r.choice('ABCDEFGHJKLMN')}." for _ in range(r.randint(1, 8))]


def _field(name: str, ok: bool, cited: Any, record: Any, reason: str) -> dict[str, Any]:
    return {"field": name, "ok": ok, "cited": cited, "record": record, "reason": reason}


def synthetic_reference(i: int, r: random.Random) -> dict[str, Any]:
    """One references result line in the pipeline's shape, with a seeded verdict."""
    title, authors, year = _title(r), _authors(r), r.randint(1990, 2024)
    venue, wid = r.choice(_VENUES), f"W{9000000000 + i}"
    record_authors = [a.split(",")[0] + " " + "Jan" for a in authors]
    fields = [
        _field("doi", True, f"10.1000/x{i}", f"10.1000/x{i}", "DOI matches"),
        _field("title", True, title, title.title(), "same title"),
        _field("authors", True, authors, record_authors, f"all {len(authors)} authors match"),
        _field("year", True, str(year), year, "same year"),
        _field("venue", True, venue, venue, "same venue name"),
    ]
    roll = r.random()
    status, method = "matched", r.choice(["doi", "title_key", "arxiv", "title_search"])
    rg = f"Yes. Matches {wid} via {method}; checked doi, title, authors, year, venue."
    cg = "N/A. Content was not judged: the run used no model (--no-llm)."
    extra: dict[str, Any] = {}
    if roll < 0.25:
        k = r.choice([1, 2, 3, 4])
        bad = fields[k]
        fields[k] = {**bad, "ok": False, "reason": f"{bad['field']} differs from the record"}
        rg = f"No. {bad['field'].capitalize()} mismatch: {bad['field']} differs (record {wid})."
    elif roll < 0.30:
        status, method, fields = "not_found", None, []
        rg = f"No. Not found in the local world; no record matches; the closest title is {wid}."
    elif roll < 0.32:
        status, method, fields = "ambiguous", None, []
        rg = f"No. Ambiguous citation: several records fit equally well: {wid}; W1."
    elif roll < 0.37:
        cg = f'No. The abstract of {wid} does not support "{_title(r)}" (support score 0.31).'
        extra["content"] = {
            "evidence": "abstract",
            "subclaims": [
                {
                    "subclaim": _title(r) + ".",
                    "label": "NOT_SUPPORTED",
                    "missing": None,
                    "error": None,
                    "scorer": "cpu-embed-only",
                    "score": 0.31,
                    "threshold": 0.4307,
                    "passages": [_title(r) + "." for _ in range(3)],
                }
            ],
        }
    grounded = rg.startswith("Yes")
    if not grounded:
        cg = "No. Reference not grounded, so content cannot be attributed to a verified source."
    details: dict[str, Any] = {
        "abstention_check": {"status": "no", "phrase": None},
        "cited": {"form": "string", "title": title, "year": year, "authors": authors},
        "match": {
            "status": status,
            "work_id": wid if status == "matched" else None,
            "method": method,
            "identifiers": {},
            "notes": [],
        },
        "fields": fields,
        "candidates": [
            {
                "id": f"W{r.randint(1, 10**9)}",
                "title": _title(r),
                "year": r.randint(1990, 2024),
                "first_author": r.choice(_SURNAMES),
                "score": round(r.uniform(40, 110), 2),
                "via": "title_search",
            }
            for _ in range(r.randint(1, 5))
        ],
        "grounded": grounded,
        **extra,
    }
    result = {
        "reference_name": f"{', '.join(authors)} ({year}). {title}. {venue}.",
        "reference_grounding": rg,
        "content_grounding": cg,
        "hallucination": "No" if grounded and not cg.startswith("No") else "Yes",
        "abstention": "No",
        "verification_error": "No",
    }
    if 0.96 < roll <= 0.98:
        text = "N/A. This is an abstention statement."
        return {
            "id": f"ref-{i}",
            "task": "references",
            "result": {
                **result,
                "reference_grounding": text,
                "content_grounding": text,
                "hallucination": "No",
                "abstention": "Yes",
            },
            "details": {"abstention_check": {"status": "yes", "phrase": "I cannot access"}},
            "error": None,
        }
    if roll > 0.985:
        return {
            "id": f"ref-{i}",
            "task": "references",
            "result": None,
            "details": {},
            "error": {
                "kind": "input",
                "message": "the item has neither 'full_citation' nor 'metadata'",
            },
        }
    return {
        "id": f"ref-{i}",
        "task": "references",
        "result": result,
        "details": details,
        "error": None,
    }


def synthetic_rag(i: int, r: random.Random) -> dict[str, Any]:
    """One rag-audit result line in the pipeline's shape."""
    n = r.randint(2, 8)
    sentences = [
        {
            "i": k,
            "text": _title(r) + f" \\cite{{c{k}}}.",
            "citations": [{"form": "cite", "raw": f"\\cite{{c{k}}}", "keys": [f"c{k}"]}],
            "accurate": "judge",
        }
        for k in range(n)
    ]
    dims = {}
    for d in ("exists", "accurate", "complete", "formatted"):
        fail = r.random() < 0.15
        dims[d] = {
            "status": "FAIL" if fail else "PASS",
            "issues": [f'Sentence "{_title(r)}." is not supported by c1.'] if fail else [],
        }
    verdict = "FAIL" if any(v["status"] == "FAIL" for v in dims.values()) else "PASS"
    if r.random() < 0.01:
        return {
            "id": f"rag-{i}",
            "task": "rag-audit",
            "result": None,
            "details": {},
            "error": {"kind": "judge", "message": "1 sentence decision(s) without a valid answer"},
        }
    return {
        "id": f"rag-{i}",
        "task": "rag-audit",
        "result": {
            "verdict": verdict,
            "dimensions": dims,
            "summary": f"Citation audit {'failed' if verdict == 'FAIL' else 'passed'}.",
            "recommendations": [f"Cite a chunk that states {_title(r)}."]
            if verdict == "FAIL"
            else [],
        },
        "details": {
            "rag": {
                "language": "cs" if r.random() < 0.3 else "en",
                "language_source": "declared",
                "query": _title(r) + "?",
                "n_chunks": 4,
                "n_sentences": n,
                "n_citations": n,
                "sentences": sentences,
                "accurate": {"requests": [{"sentence": k} for k in range(n)]},
            },
            "judged": True,
            "judge": {
                "support": [
                    {
                        "label": r.choice(["SUPPORTED", "NOT_SUPPORTED"]),
                        "missing": "",
                        "scorer": "cpu-embed-only",
                    }
                    for _ in range(n)
                ],
                "need": [],
            },
        },
        "error": None,
    }


def synthetic_ceval(i: int, r: random.Random) -> dict[str, Any]:
    """One citation-eval result line in the pipeline's shape (1–4 citations)."""
    if r.random() < 0.01:
        return {
            "id": f"ce-{i}",
            "task": "citation-eval",
            "result": None,
            "details": {},
            "error": {"kind": "judge", "message": "citations[0] support: invalid answer"},
        }
    cits, dcits = [], []
    for cid in range(1, (r.randint(1, 4) if r.random() > 0.01 else 0) + 1):
        sup = r.choices(["ENTAILMENT", "NEUTRAL", "CONTRADICTION"], [0.7, 0.2, 0.1])[0]
        ver = r.choices(["VERIFIED", "UNCERTAIN", "LIKELY_FABRICATED"], [0.75, 0.15, 0.1])[0]
        why = f"DOI 10.1000/x{i} resolves to W{i} '{_title(r)}'; the cited content is found in its abstract."
        cits.append(
            {
                "citation_id": cid,
                "claim": _title(r) + ".",
                "citation_support": {
                    "judgement": sup,
                    "reasoning": "calibrated scorer cpu-embed-only: support probability 0.6",
                    "support_score": 1.0,
                },
                "source_verification": {"judgement": ver, "reasoning": why, "url_accessible": True},
                "interpretability_score": 1.0,
            }
        )
        dcits.append(
            {
                "citation_id": cid,
                "verification": {
                    "judgement": ver,
                    "resolution": {
                        "status": "resolved",
                        "kind": "doi",
                        "shown": f"DOI 10.1000/x{i}",
                        "work_id": f"W{i}",
                    },
                    "quote": {
                        "similarity": 100.0,
                        "found": True,
                        "exact": True,
                        "text": f"abstract of W{i}",
                    },
                },
                "support": {"label": sup, "reasoning": "calibrated scorer", "request_hash": None},
            }
        )
    align = r.choice(["CORRECT", "PARTIALLY_CORRECT", "INCORRECT"])
    return {
        "id": f"ce-{i}",
        "task": "citation-eval",
        "result": {
            "citation_evaluations": cits,
            "answer_evaluation": {
                "correctness": align == "CORRECT",
                "alignment_judgement": align,
                "missing_information": [] if align == "CORRECT" else [_title(r)],
                "correctness_score": 0.5,
            },
            "overall_assessment": {"overall_score": 0.7},
        },
        "details": {"citations": dcits, "answer": {"status": "judged", "request_hash": "ab" * 32}},
        "error": None,
    }


def hallmark_references(tmp: Path) -> list[dict[str, Any]] | None:
    """The real pipeline's result lines over HALLMARK dev (deterministic stage), or None without the data."""
    hallmark = SHARED / "hallmark"
    if not (hallmark / "dev_public.jsonl").is_file():
        return None
    sys.path.insert(0, str(REPO / "scripts"))
    from bench_references import render_bibtex
    from citejudge.index import build_index
    from citejudge.run import load_config, run

    logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)  # the CLI silences it too
    items = tmp / "hallmark-items.jsonl"
    with items.open("w") as fh:
        for n, raw in enumerate((hallmark / "dev_public.jsonl").read_text().splitlines()):
            e = json.loads(raw)
            fh.write(
                json.dumps({"id": str(n), "full_citation": render_bibtex(e), "label": e["label"]})
                + "\n"
            )
    build_index([hallmark / "world.bib"], tmp / "w.index", workers=1)
    cfg = tmp / "c.yaml"
    cfg.write_text(
        f"task: references\ninput: {items}\nindex: {tmp / 'w.index'}\nout: {tmp / 'hrun'}\n"
        "model: none\nworkers: 2\ntoday_year: 2026\n"
    )
    run(load_config(cfg), quiet=True)
    return [json.loads(x) for x in (tmp / "hrun" / "results.jsonl").read_text().splitlines()]


def write_run(path: Path, lines: list[dict[str, Any]], task: str) -> None:
    path.mkdir(parents=True, exist_ok=True)
    with (path / "results.jsonl").open("wb") as fh:
        for x in lines:
            fh.write(orjson.dumps(x) + b"\n")
    manifest = {"run_id": f"bench-{task}", "task": task, "status": "finished", "judge": None}
    (path / "manifest.json").write_text(json.dumps(manifest))


def browser_times(url: str) -> dict[str, Any]:
    """Load time, a menu filter and a typed filter in Chromium, and the DOM size."""
    from cdp_pipe import Browser

    with Browser.launch(timeout=120) as b:
        load = b.open(url)
        filt = b.eval(
            "(() => { const m = document.getElementById('filter-verdict');"
            " const o = m.querySelector('optgroup option'); const t = performance.now();"
            " m.value = o.value; m.dispatchEvent(new Event('change'));"
            " const s = performance.now() - t; m.value = ''; m.dispatchEvent(new Event('change'));"
            " return s; })()"
        )
        b.eval("document.getElementById('filter-text').focus()")
        t0 = time.perf_counter()
        b.send("Input.insertText", {"text": "e"}, session=True)
        b.eval("document.getElementById('filter-count').textContent")
        typed = time.perf_counter() - t0
        nodes = b.eval("document.getElementsByTagName('*').length")
    return {
        "load_s": round(load, 3),
        "menu_filter_ms": round(float(filt), 1),
        "typed_filter_s": round(typed, 3),
        "dom_elements": nodes,
    }


def measure(run_dir: Path, out: Path, per_verdict: int | None, browser: bool) -> dict[str, Any]:
    t0 = time.perf_counter()
    rep = build_report(run_dir, None, out, rows_per_verdict=per_verdict)
    build_s = time.perf_counter() - t0
    side = companion_path(out)
    info = rep["item_table"]
    html = out.stat().st_size
    got: dict[str, Any] = {
        "build_s": round(build_s, 3),
        "html_bytes": html,
        "companion_bytes": side.stat().st_size if side.is_file() else 0,
        "report_json_bytes": Path(rep["json"]).stat().st_size,
        "rows": info["rows"],
        "rows_inline": info["shown"],
        "rows_in_companion": info["in_companion"],
    }
    if browser:
        got.update(browser_times(out.as_uri()))
    return got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--items", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--rows-per-verdict", type=int, default=DEFAULT_ROWS_PER_VERDICT)
    ap.add_argument("--tasks", default="references,rag-audit,citation-eval")
    ap.add_argument("--source", choices=["auto", "hallmark", "synthetic"], default="auto")
    ap.add_argument("--no-browser", action="store_true")
    args = ap.parse_args()
    sys.path.insert(0, str(REPO / "scripts"))
    from cdp_pipe import find_chromium

    browser = not args.no_browser and find_chromium() is not None
    r = random.Random(0)
    out: dict[str, Any] = {
        "items": args.items,
        "rows_per_verdict": args.rows_per_verdict,
        "browser": find_chromium() if browser else None,
        "tasks": {},
    }
    with tempfile.TemporaryDirectory(prefix="bench-report-") as tmpd:
        tmp = Path(tmpd)
        for task in args.tasks.split(","):
            source = "synthetic"
            if task == "references" and args.source != "synthetic":
                real = hallmark_references(tmp)
                if real is None and args.source == "hallmark":
                    raise SystemExit("../shared/data/hallmark is absent")
                if real is not None:
                    source = (
                        f"hallmark dev ({len(real)} real result lines, repeated under fresh ids)"
                    )
                    lines = []
                    for i in range(args.items):
                        x = dict(real[i % len(real)])
                        x["id"] = f"{x['id']}-{i // len(real)}"
                        lines.append(x)
            if source == "synthetic":
                make = {
                    "references": synthetic_reference,
                    "rag-audit": synthetic_rag,
                    "citation-eval": synthetic_ceval,
                }[task]
                lines = [make(i, r) for i in range(args.items)]
            run_dir = tmp / task
            write_run(run_dir, lines, task)
            rounds: dict[str, list[dict[str, Any]]] = {"capped": [], "all_inline": []}
            for _ in range(args.rounds):  # in turns: the two settings share the machine's minutes
                rounds["capped"].append(
                    measure(run_dir, tmp / f"{task}-capped.html", args.rows_per_verdict, browser)
                )
                rounds["all_inline"].append(
                    measure(run_dir, tmp / f"{task}-all.html", None, browser)
                )
            entry: dict[str, Any] = {"source": source, "rows": rounds["capped"][0]["rows"]}
            for name, rs in rounds.items():
                last = dict(rs[-1])
                for k in ("build_s", "load_s", "typed_filter_s", "menu_filter_ms"):
                    if k in last:
                        last[k] = round(statistics.median(x[k] for x in rs), 3)
                        last[f"{k}_rounds"] = [x[k] for x in rs]
                last["bytes_per_inline_row"] = round(
                    last["html_bytes"] / max(1, last["rows_inline"])
                )
                entry[name] = last
            c, a = entry["capped"], entry["all_inline"]
            entry["ratios"] = {
                "html_bytes": round(c["html_bytes"] / a["html_bytes"], 3),
                "build_s": round(c["build_s"] / a["build_s"], 3),
                **({"load_s": round(c["load_s"] / a["load_s"], 3)} if "load_s" in c else {}),
            }
            out["tasks"][task] = entry
            print(f"{task}: {json.dumps(entry['capped'])}", file=sys.stderr)
    worst = max(t["capped"]["html_bytes"] for t in out["tasks"].values())
    out["bound"] = {"bytes": BOUND_BYTES, "largest_capped_page": worst, "met": worst <= BOUND_BYTES}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
