"""The deterministic reference check on citations rendered from the 492 real OpenAlex works.

Builds an index from ``../shared/data/openalex/works.jsonl`` in a temporary directory, renders
every work in many citation styles, faithful (expected "Yes") or with one injected fault
(expected "No"), see ``scripts/render_citations.py``, runs the ``references`` check
(``--no-llm`` logic) in-process and prints JSON: accuracy, F1 for detecting "No", the
false-positive rate on faithful items, accuracy per style and per fault, the items judged
"Yes" with an unverified field (by fault and field), refs/s.
``--errors FILE`` writes the misclassified items with their verdicts and details.

``--model-dir DIR`` parses with a candidate parser model (``train_parser.py --out DIR``).

    python scripts/bench_rendered.py [--works PATH] [--sample N] [--per-work N] [--seed S] [--errors errs.jsonl] [--model-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from citejudge.index import WorldIndex, build_index  # noqa: E402
from citejudge.io import Item  # noqa: E402
from citejudge.tasks.references import ReferencesTask  # noqa: E402
from render_citations import generate_items, load_works  # noqa: E402

__all__ = ["main", "run_bench"]

DEFAULT_WORKS = HERE.parent.parent / "shared" / "data" / "openalex" / "works.jsonl"


def _f1(pairs: list[tuple[bool, bool]]) -> dict[str, float]:
    """Precision/recall/F1 of predicting "No" (gold, predicted), FPR on gold "Yes"."""
    tp = sum(1 for g, p in pairs if g and p)
    fp = sum(1 for g, p in pairs if not g and p)
    fn = sum(1 for g, p in pairs if g and not p)
    tn = sum(1 for g, p in pairs if not g and not p)
    prec = tp / (tp + fp) if tp + fp else 0.0
    rec = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
    return {
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
        "precision": round(prec, 4),
        "recall": round(rec, 4),
        "f1": round(f1, 4),
        "fpr_on_faithful": round(fp / (fp + tn), 4) if fp + tn else 0.0,
    }


def _acc(xs: list[bool]) -> dict[str, float]:
    return {"n": len(xs), "accuracy": round(sum(xs) / len(xs), 4) if xs else 0.0}


def run_bench(
    works_path: Path,
    *,
    sample: int | None = None,
    per_work: int | None = None,
    seed: int = 0,
    errors: Path | None = None,
    index_dir: Path | None = None,
) -> dict[str, Any]:
    """Build the index, render the items, check them, and return the metrics."""
    works = load_works(works_path)
    if sample is not None and sample < len(works):
        works = random.Random(seed).sample(sorted(works, key=lambda w: w.id), sample)
    items = generate_items(works, seed=seed, per_work=per_work)
    with tempfile.TemporaryDirectory() as tmp:
        idx = index_dir or Path(tmp) / "world.index"
        t0 = time.perf_counter()
        build_index([works_path], idx, workers=1)  # the whole world, even when items use a sample
        build_s = time.perf_counter() - t0
        task = ReferencesTask(WorldIndex.open(idx), today_year=2026)
        pairs: list[tuple[bool, bool]] = []
        per_style: dict[str, list[bool]] = defaultdict(list)
        per_style_faithful: dict[str, list[bool]] = defaultdict(list)
        per_fault: dict[str, list[bool]] = defaultdict(list)
        errs: list[dict[str, Any]] = []
        misses: Counter[str] = Counter()
        unverified: dict[str, Counter[str]] = defaultdict(Counter)
        t1 = time.perf_counter()
        for n, it in enumerate(items):
            data: dict[str, Any] = {k: it[k] for k in ("full_citation", "metadata") if k in it}
            line = task.check(Item(it["id"], data, "rendered", n + 1))
            pred_no = line.result is None or not line.result["reference_grounding"].startswith(
                "Yes"
            )
            gold_no = it["expect"] == "No"
            ok = pred_no == gold_no
            if not pred_no:
                for name in line.details.get("unverified", []):
                    unverified[it["fault"] or "faithful"][name] += 1
            pairs.append((gold_no, pred_no))
            per_style[it["style"]].append(ok)
            if not gold_no:
                per_style_faithful[it["style"]].append(ok)
            per_fault[it["fault"] or "faithful"].append(ok)
            if not ok and not gold_no:
                bad = sorted(f["field"] for f in line.details.get("fields", []) if not f["ok"])
                status = line.details.get("match", {}).get("status")
                misses[
                    f"fields:{'+'.join(bad)}" if status == "matched" else f"resolve:{status}"
                ] += 1
            if not ok:
                errs.append(
                    {
                        **it,
                        "verdict": line.result["reference_grounding"]
                        if line.result
                        else line.error,
                        "details": {
                            k: line.details.get(k)
                            for k in ("cited", "match", "fields", "candidates")
                        },
                    }
                )
        check_s = time.perf_counter() - t1
    if errors:
        errors.write_text(
            "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in errs), encoding="utf-8"
        )
    faithful = per_fault.get("faithful", [])
    faults = [ok for k, v in per_fault.items() if k != "faithful" for ok in v]
    return {
        "dataset": str(works_path),
        "works": len(works),
        "items": len(items),
        "seed": seed,
        "accuracy": round(sum(g == p for g, p in pairs) / len(pairs), 4) if pairs else 0.0,
        "faithful_accuracy": _acc(faithful),
        "fault_detection": _acc(faults),
        "detect_no": _f1(pairs),
        "per_style": {
            k: {**_acc(v), "faithful_accuracy": _acc(per_style_faithful[k])["accuracy"]}
            for k, v in sorted(per_style.items())
        },
        "per_fault": {k: _acc(v) for k, v in sorted(per_fault.items())},
        "faithful_misses_by_reason": dict(misses.most_common()),
        # judged Yes with a field the records could not confirm (``details.unverified``), by fault
        "unverified_yes": {k: dict(v) for k, v in sorted(unverified.items())},
        "errors": len(errs),
        "seconds": {
            "build": round(build_s, 2),
            "check": round(check_s, 2),
            "refs_per_s_single_process": round(len(items) / check_s, 1) if check_s else 0.0,
        },
    }


def main(argv: Sequence[str] | None = None) -> int:
    """CLI: print the benchmark's JSON."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--works", type=Path, default=DEFAULT_WORKS, help="OpenAlex works.jsonl (the world)"
    )
    ap.add_argument(
        "--sample",
        type=int,
        default=None,
        help="render only N sampled works (the world stays whole)",
    )
    ap.add_argument("--per-work", type=int, default=None, help="at most N items per work")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--errors", type=Path, help="write misclassified items here (JSONL)")
    ap.add_argument(
        "--model-dir",
        type=Path,
        default=None,
        help="parse with the reference parser model written by train_parser.py --out DIR "
        "(a candidate, before it is shipped) instead of the package's",
    )
    args = ap.parse_args(argv)
    if args.model_dir is not None:
        from citejudge.readers.freetext import _crf

        model = _crf.read_model(args.model_dir)
        _crf.load_model = lambda: model  # type: ignore[assignment]
    logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)
    if not args.works.is_file():
        sys.stderr.write(f"works file not found at {args.works}\n")
        return 2
    out = run_bench(
        args.works, sample=args.sample, per_work=args.per_work, seed=args.seed, errors=args.errors
    )
    print(json.dumps(out, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
