"""Quality of the citation-eval task: offline source verification and the support judge.

Source verification (deterministic) on the real OpenAlex works of ``openalex/works.jsonl``: an
index is built in a temporary folder; for a sample of works with an abstract, a sentence of the
abstract is cited

* correctly, with the source as a DOI URL, an OpenAlex URL or a free-text reference → VERIFIED;
* as the named work but with another work's DOI in the reference → LIKELY_FABRICATED;
* with another work's bare DOI → not VERIFIED (deterministically UNCERTAIN, left to the judge);
* with the DOI of another work whose abstract is indexed (the quote is misattributed) →
  LIKELY_FABRICATED, naming the work the quote comes from;
* with an unknown DOI or an unknown URL → UNCERTAIN.

Citation support (judged) on claim/evidence pairs of ``claims/``: HealthVer (Supports /
Refutes / Neutral), SciFact RTE (entailment / not_entailment) and CTKFacts (Czech; SUPPORTS /
REFUTES / NOT ENOUGH INFO), mapped to ENTAILMENT / CONTRADICTION / NEUTRAL; the judge of
``--model`` labels them and the agreement is reported (3-way where the set has 3 labels, and
entailment vs not everywhere). ``--model none`` skips it.

    python scripts/bench_citation_eval.py [--shared ../shared/data] [--verify-n 200] [--support-n 20]
                                          [--model cpu-default] [--seed 0] [--errors FILE]

Prints one JSON object.
"""

from __future__ import annotations

import argparse
import csv
import json
import logging
import random
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from citejudge.index import WorldIndex, build_index
from citejudge.io import Item
from citejudge.judge.deciders import LlmSupportDecider
from citejudge.records import Work
from citejudge.tasks.citation_eval import SUPPORT_FORM, CitationEvalTask, support_question
from citejudge.text import split_sentences

HERE = Path(__file__).resolve().parent
DEFAULT_SHARED = HERE.parent.parent / "shared" / "data"
log = logging.getLogger("bench_citation_eval")


def _quote(work: Work) -> str | None:
    sents = [s for s in split_sentences(work.abstract or "") if 40 <= len(s) <= 400]
    return max(sents[:4], key=len) if sents else None


def _reference(work: Work, doi: str | None = None) -> str:
    first = work.authors[0].name if work.authors else "Anonymous"
    ref = f"{first} et al. ({work.year or 'n.d.'}). {work.title}."
    if work.venue:
        ref += f" {work.venue}."
    if doi:
        ref += f" https://doi.org/{doi}"
    return ref


def verification_cases(
    works: list[Work], n: int, rng: random.Random
) -> list[tuple[str, str, str, set[str]]]:
    """(case type, source, quote, acceptable labels) for a sample of works."""
    usable = [w for w in works if w.title and _quote(w)]
    with_doi = [w for w in usable if w.doi]
    sample = rng.sample(usable, min(n, len(usable)))
    cases: list[tuple[str, str, str, set[str]]] = []
    for i, w in enumerate(sample):
        q = _quote(w)
        assert q is not None
        other = rng.choice([v for v in with_doi if v.id != w.id and v.title != w.title])
        if w.doi:
            cases.append(("correct_doi_url", f"https://doi.org/{w.doi}", q, {"VERIFIED"}))
        cases.append(("correct_openalex_url", f"https://openalex.org/{w.id}", q, {"VERIFIED"}))
        cases.append(("correct_reference", _reference(w), q, {"VERIFIED"}))
        cases.append(("wrong_work_named", _reference(w, other.doi), q, {"LIKELY_FABRICATED"}))
        cases.append(
            (
                "wrong_work_bare_doi",
                f"https://doi.org/{other.doi}",
                q,
                {"UNCERTAIN", "LIKELY_FABRICATED"},
            )
        )
        with_text = [v for v in with_doi if v.id != w.id and v.title != w.title and v.abstract]
        if with_text:
            donor = rng.choice(with_text)
            cases.append(
                ("misattributed_quote", f"https://doi.org/{donor.doi}", q, {"LIKELY_FABRICATED"})
            )
        cases.append(("unknown_doi", f"https://doi.org/10.99999/fake.{i}", q, {"UNCERTAIN"}))
        cases.append(("unknown_url", f"https://example.org/articles/{i}", q, {"UNCERTAIN"}))
    return cases


def run_verification(
    shared: Path, tmp: Path, n: int, seed: int, errors: list[dict[str, Any]]
) -> dict[str, Any]:
    """Build the index of the OpenAlex works and score the deterministic verification."""
    src = shared / "openalex" / "works.jsonl"
    t0 = time.perf_counter()
    build_index([src], tmp / "w.index", workers=1)
    build_s = time.perf_counter() - t0
    world = WorldIndex.open(tmp / "w.index")
    ids = [
        json.loads(x)["id"].rsplit("/", 1)[-1]
        for x in src.read_text(encoding="utf-8").split("\n")
        if x.strip()
    ]
    works = [w for w in world.get_many(ids) if w.abstract]
    cases = verification_cases(works, n, random.Random(seed))
    task = CitationEvalTask(world)
    per_type: dict[str, list[bool]] = defaultdict(list)
    confusion: dict[str, Counter[str]] = defaultdict(Counter)
    t1 = time.perf_counter()
    for k, (kind, source, quote, ok) in enumerate(cases):
        it = Item(
            f"v{k}",
            {
                "answer": "a",
                "gold_answer": "g",
                "citations": [
                    {"citation_id": 1, "claim": "c", "cited_content": quote, "source": source}
                ],
            },
            "bench",
            k,
        )
        line = task.check(it)
        label = (
            line.result["citation_evaluations"][0]["source_verification"]["judgement"]
            if line.result
            else "error"
        )
        per_type[kind].append(label in ok)
        confusion[kind][label] += 1
        if label not in ok and len(errors) < 200:
            errors.append(
                {
                    "kind": kind,
                    "source": source,
                    "quote": quote[:200],
                    "got": label,
                    "reasoning": line.result["citation_evaluations"][0]["source_verification"][
                        "reasoning"
                    ]
                    if line.result
                    else line.error,
                }
            )
    secs = time.perf_counter() - t1
    allv = [x for v in per_type.values() for x in v]
    return {
        "works_in_index": world.count(),
        "works_with_abstract": len(works),
        "index_build_s": round(build_s, 2),
        "cases": len(allv),
        "accuracy": round(sum(allv) / len(allv), 4) if allv else None,
        "per_type": {
            k: {"n": len(v), "accuracy": round(sum(v) / len(v), 4), "labels": dict(confusion[k])}
            for k, v in sorted(per_type.items())
        },
        "items_per_s": round(len(allv) / secs, 1) if secs else None,
    }


def support_cases(shared: Path, n: int, rng: random.Random) -> list[tuple[str, str, str, str]]:
    """(dataset, claim, evidence, gold label) with up to ``n`` pairs per dataset and label."""
    pools: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    hv = {"Supports": "ENTAILMENT", "Refutes": "CONTRADICTION", "Neutral": "NEUTRAL"}
    with (shared / "claims" / "healthver_dev.csv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if row.get("label") in hv and row.get("claim") and row.get("evidence"):
                pools[("healthver", hv[row["label"]])].append(
                    (row["claim"].strip(), row["evidence"].strip())
                )
    with (shared / "claims" / "scifact_rte_train.tsv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            lab = {"entailment": "ENTAILMENT", "not_entailment": "NOT_ENTAILMENT"}.get(
                row.get("entailment", "")
            )
            if lab:
                pools[("scifact", lab)].append((row["sentence2"].strip(), row["sentence1"].strip()))
    ctk = {"SUPPORTS": "ENTAILMENT", "REFUTES": "CONTRADICTION", "NOT ENOUGH INFO": "NEUTRAL"}
    for line in (shared / "claims" / "ctkfacts_cs.jsonl").read_text(encoding="utf-8").split("\n"):
        if not line.strip():
            continue
        d = json.loads(line)
        ev = " ".join(
            " ".join(e) if isinstance(e, list) else str(e) for e in d.get("evidence") or []
        )
        if d.get("label") in ctk and ev.strip():
            pools[("ctkfacts", ctk[d["label"]])].append((d["claim"], ev[:1500]))
    out = []
    for (ds, lab), rows in sorted(pools.items()):
        for claim, ev in rng.sample(rows, min(n, len(rows))):
            out.append((ds, claim, ev, lab))
    return out


def run_support(shared: Path, model: str, n: int, seed: int) -> dict[str, Any]:
    """Label the support pairs with the model's judge and report agreement with the gold labels."""
    from citejudge.judge.cards import load_card
    from citejudge.judge.core import Judge
    from citejudge.judge.registry import make_backend

    cases = support_cases(shared, n, random.Random(seed))
    t0 = time.perf_counter()
    card = load_card(model)
    backend = make_backend(card)
    load_s = time.perf_counter() - t0
    decider = LlmSupportDecider(
        Judge(backend, card.sampling), SUPPORT_FORM
    )  # the model itself, never the card's scorer
    t1 = time.perf_counter()
    labels = [
        SUPPORT_FORM.task_label(d.label)
        for d in decider.decide([support_question(c, e) for _, c, e, _ in cases])
    ]
    secs = time.perf_counter() - t1
    per_ds: dict[str, dict[str, Any]] = {}
    for ds in sorted({c[0] for c in cases}):
        rows = [
            (gold, label) for (d0, _, _, gold), label in zip(cases, labels, strict=True) if d0 == ds
        ]
        # 3-way agreement only for sets with three gold labels (SciFact RTE has two).
        three = [] if any(g == "NOT_ENTAILMENT" for g, _ in rows) else rows
        conf: dict[str, Counter[str]] = defaultdict(Counter)
        for g, p in rows:
            conf[g][p or "invalid"] += 1
        per_ds[ds] = {
            "n": len(rows),
            "agreement_3way": round(sum(g == p for g, p in three) / len(three), 4)
            if three
            else None,
            "agreement_entailment_vs_not": round(
                sum((g == "ENTAILMENT") == (p == "ENTAILMENT") for g, p in rows) / len(rows), 4
            )
            if rows
            else None,
            "invalid": sum(p is None for _, p in rows),
            "confusion": {g: dict(c) for g, c in sorted(conf.items())},
        }
    return {
        "model": model,
        "revision": backend.revision,
        "load_s": round(load_s, 1),
        "pairs": len(cases),
        "s_per_pair": round(secs / len(cases), 3) if cases else None,
        "predicted": dict(Counter(label or "invalid" for label in labels)),
        "per_dataset": per_ds,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its JSON report."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("--shared", type=Path, default=DEFAULT_SHARED, help="the shared data folder")
    ap.add_argument(
        "--verify-n", type=int, default=200, help="works sampled for source verification"
    )
    ap.add_argument(
        "--support-n", type=int, default=20, help="pairs per dataset and label for support"
    )
    ap.add_argument(
        "--model", default="cpu-default", help="model card for the support judge, or 'none'"
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--errors", type=Path, help="write misclassified verification cases here (JSONL)"
    )
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    if not (args.shared / "openalex" / "works.jsonl").is_file():
        print(f"shared data not found at {args.shared}", file=sys.stderr)
        return 2
    errors: list[dict[str, Any]] = []
    report: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        report["verification"] = run_verification(
            args.shared, Path(tmp), args.verify_n, args.seed, errors
        )
    if args.model.lower() != "none":
        try:
            report["support"] = run_support(args.shared, args.model, args.support_n, args.seed)
        except Exception as exc:  # report the reason; verification numbers stand on their own
            report["support"] = {"model": args.model, "pending": f"{type(exc).__name__}: {exc}"}
    if args.errors:
        args.errors.write_text(
            "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in errors), encoding="utf-8"
        )
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
