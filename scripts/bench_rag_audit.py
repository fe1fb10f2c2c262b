"""Benchmark of ``rag-audit`` on audit cases built from CTKFacts (cs) and HealthVer (en).

Cases per claim (expected statuses in brackets, E/A/C/F = exists/accurate/complete/formatted):
faithful SUPPORTS claim citing its evidence [all PASS]; REFUTES claim citing its evidence
[A FAIL]; hallucinated chunk id [E, A FAIL]; wrong syntax ``[chunk_1]`` [F FAIL]; an extra
uncited claim of another item [C FAIL]; citation of another claim's evidence [A FAIL];
greeting + cited claim + hedge [all PASS].

    .venv/bin/python scripts/bench_rag_audit.py --per-lang 40 [--model cpu-default | --no-llm]

Without a usable model only the deterministic dimensions (and the language) are scored; the
judged ones are reported as pending. The scripted oracle is refused: it would score itself.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

from citejudge.io import Item
from citejudge.tasks.rag_audit import DIMENSIONS, audit_item
from citejudge.text import detect_language

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "claims"
KINDS = ("faithful", "refuted", "hallucinated", "syntax", "uncited", "unrelated", "greeting")
GREET = {
    "en": ("Hello, thanks for the question.", "I hope this helps."),
    "cs": ("Dobrý den, děkuji za dotaz.", "Doufám, že vám to pomůže."),
}


def _ctk(limit: int, rng: random.Random) -> list[dict[str, Any]]:
    rows = [
        json.loads(x) for x in (DATA / "ctkfacts_cs.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    out = [
        {
            "claim": r["claim"],
            "label": r["label"],
            "query": f"Co víte o tomto: {r['claim'][:60]}?",
            "evidence": [" ".join(e) for e in r["evidence"] if e][:3],
        }
        for r in rows
        if r["label"] in ("SUPPORTS", "REFUTES") and r.get("evidence")
    ]
    rng.shuffle(out)
    return out[: limit * 2]


def _hv(limit: int, rng: random.Random) -> list[dict[str, Any]]:
    with (DATA / "healthver_dev.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    out = [
        {
            "claim": r["claim"].strip(),
            "label": {"Supports": "SUPPORTS", "Refutes": "REFUTES"}[r["label"]],
            "query": r["question"],
            "evidence": [r["evidence"]],
        }
        for r in rows
        if r["label"] in ("Supports", "Refutes")
    ]
    rng.shuffle(out)
    return out[: limit * 2]


def _cite(claim: str, key: str, form: str = "cite") -> str:
    body = claim.strip().rstrip(".")
    mark = f"\\cite{{{key}}}" if form == "cite" else f"[{key}]"
    return f"{body} {mark}."


def build_cases(
    rows: list[dict[str, Any]], lang: str, n: int, rng: random.Random
) -> list[dict[str, Any]]:
    """``n`` audit cases cycling through :data:`KINDS`, with expected statuses."""
    sup = [r for r in rows if r["label"] == "SUPPORTS"]
    ref = [r for r in rows if r["label"] == "REFUTES"]
    cases = []
    for i in range(n):
        kind = KINDS[i % len(KINDS)]
        r = (ref if kind == "refuted" and ref else sup)[
            i % len(ref if kind == "refuted" and ref else sup)
        ]
        other = sup[(i * 7 + 3) % len(sup)]
        if other is r:
            other = sup[(i * 7 + 4) % len(sup)]
        chunks = [{"chunk_id": f"chunk_{j + 1}", "text": t} for j, t in enumerate(r["evidence"])]
        chunks.append({"chunk_id": f"chunk_{len(chunks) + 1}", "text": other["evidence"][0]})
        exp = {"exists": "PASS", "accurate": "PASS", "complete": "PASS", "formatted": "PASS"}
        if kind in ("faithful", "refuted"):
            answer = _cite(r["claim"], "chunk_1")
            if kind == "refuted":
                exp["accurate"] = "FAIL"
        elif kind == "hallucinated":
            answer = _cite(r["claim"], "chunk_9")
            exp.update(exists="FAIL", accurate="FAIL")
        elif kind == "syntax":
            answer = _cite(r["claim"], "chunk_1", "bracket")
            exp["formatted"] = "FAIL"
        elif kind == "uncited":
            answer = _cite(r["claim"], "chunk_1") + " " + other["claim"].strip()
            exp["complete"] = "FAIL"
        elif kind == "unrelated":
            answer = _cite(r["claim"], f"chunk_{len(chunks)}")
            exp["accurate"] = "FAIL"
        else:
            hello, bye = GREET[lang]
            answer = f"{hello} {_cite(r['claim'], 'chunk_1')} {bye}"
        exp["verdict"] = "FAIL" if "FAIL" in exp.values() else "PASS"
        cases.append(
            {
                "id": f"{lang}-{i}-{kind}",
                "kind": kind,
                "lang": lang,
                "expected": exp,
                "item": {
                    "id": f"{lang}-{i}",
                    "query": r["query"],
                    "answer": answer,
                    "retrieved_chunks": chunks,
                },
            }
        )
    return cases


def language_accuracy(
    cs_rows: list[dict[str, Any]], en_rows: list[dict[str, Any]]
) -> dict[str, Any]:
    """Detection accuracy on claims alone (short) and claim + evidence (long)."""
    out: dict[str, Any] = {}
    for lang, rows in (("cs", cs_rows), ("en", en_rows)):
        short = sum(detect_language(r["claim"]) == lang for r in rows)
        long = sum(
            detect_language(r["claim"] + " " + " ".join(r["evidence"])) == lang for r in rows
        )
        out[lang] = {
            "n": len(rows),
            "short": round(short / max(1, len(rows)), 4),
            "long": round(long / max(1, len(rows)), 4),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print a JSON report."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--per-lang", type=int, default=40, help="cases per language (default 40)")
    ap.add_argument("--model", default="cpu-default", help="model card for the judged dimensions")
    ap.add_argument("--no-llm", action="store_true", help="score the deterministic dimensions only")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument(
        "--support-calibration",
        type=Path,
        default=None,
        help="decide ACCURATE with citejudge.judge.support.SupportScorer from this calibration file",
    )
    ap.add_argument(
        "--lang-sample", type=int, default=1000, help="claims per language for the language test"
    )
    args = ap.parse_args(argv)
    if not DATA.is_dir():
        print(f"data folder {DATA} is absent", file=sys.stderr)
        return 2
    if args.model.startswith("scripted"):
        print(
            "the scripted oracle cannot be benchmarked: choose a real model or --no-llm",
            file=sys.stderr,
        )
        return 2
    rng = random.Random(args.seed)
    cs_rows, en_rows = (
        _ctk(max(args.per_lang, args.lang_sample), rng),
        _hv(max(args.per_lang, args.lang_sample), rng),
    )
    report: dict[str, Any] = {
        "language_detection": language_accuracy(
            cs_rows[: args.lang_sample], en_rows[: args.lang_sample]
        )
    }
    cases = build_cases(cs_rows, "cs", args.per_lang, rng) + build_cases(
        en_rows, "en", args.per_lang, rng
    )
    items = [Item(c["id"], c["item"], "bench", n) for n, c in enumerate(cases)]
    t0 = time.perf_counter()
    lines = [audit_item(it) for it in items]
    report["deterministic_seconds"] = round(time.perf_counter() - t0, 3)
    judged = False
    if not args.no_llm:
        try:
            from citejudge.run import RunConfig
            from citejudge.run.stages import JudgeBuilder
            from citejudge.tasks.rag_audit import make_stage

            opts = RunConfig(task="rag-audit", input=["bench"], out="-", model=args.model)
            stage = make_stage(opts, JudgeBuilder(args.model, Path.home() / ".cache" / "citejudge"))
            if args.support_calibration is not None:
                from citejudge.judge.deciders import ScorerSupportDecider
                from citejudge.judge.support import SupportScorer
                from citejudge.tasks.rag_audit import support_from_decider

                scorer = SupportScorer.load(args.support_calibration)
                stage.support = support_from_decider(ScorerSupportDecider(scorer))
                report["support_scorer"] = {
                    "calibration": scorer.name,
                    "threshold": scorer.threshold,
                }
            t1 = time.perf_counter()
            for k in range(0, len(items), 64):
                stage.apply(list(zip(items[k : k + 64], lines[k : k + 64], strict=True)))
            report["judge_seconds"] = round(time.perf_counter() - t1, 3)
            report["judge_stats"] = dict(stage.judge.stats)
            judged = True
        except Exception as exc:  # the report says why the judged part is pending
            report["judge_unavailable"] = f"{type(exc).__name__}: {exc}"
    report["model"] = args.model if judged else None
    scored = ["exists", "formatted"] + (["accurate", "complete", "verdict"] if judged else [])
    table: dict[str, dict[str, Any]] = {}
    for lang in ("cs", "en"):
        for dim in scored:
            ok = tot = 0
            fails_as_pass = 0
            for c, ln in zip(cases, lines, strict=True):
                if c["lang"] != lang or ln.result is None:
                    continue
                got = (
                    ln.result["verdict"]
                    if dim == "verdict"
                    else ln.result["dimensions"][dim]["status"]
                )
                tot += 1
                ok += got == c["expected"][dim]
                fails_as_pass += got == "PASS" and c["expected"][dim] == "FAIL"
            table.setdefault(lang, {})[dim] = {
                "accuracy": round(ok / max(1, tot), 4),
                "n": tot,
                "false_pass": fails_as_pass,
            }
    report["accuracy"] = table
    by_kind: dict[str, dict[str, int]] = {}
    for c, ln in zip(cases, lines, strict=True):
        if ln.result is None:
            continue
        row = by_kind.setdefault(f"{c['lang']}:{c['kind']}", {"n": 0, "verdict_ok": 0})
        row["n"] += 1
        row["verdict_ok"] += ln.result["verdict"] == c["expected"]["verdict"]
        for dim in scored:
            if dim != "verdict":
                row[f"{dim}_ok"] = row.get(f"{dim}_ok", 0) + (
                    ln.result["dimensions"][dim]["status"] == c["expected"][dim]
                )
    report["by_kind"] = by_kind
    labels: dict[str, int] = {}
    for ln in lines:
        for d in (ln.details.get("judge") or {}).get("support", []):
            labels[str(d.get("label"))] = labels.get(str(d.get("label")), 0) + 1
    report["judge_support_labels"] = labels
    if not judged:
        report["pending"] = [d for d in DIMENSIONS if d not in scored] + ["verdict"]
    report["errors"] = sum(ln.result is None for ln in lines)
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
