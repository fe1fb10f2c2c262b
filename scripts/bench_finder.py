"""Score the reference finder on the held-out finder documents (docs/FINDER.md).

    python scripts/bench_finder.py [--data DIR] [--cv]

Prints JSON: per held-out document and in total, reference-line precision and recall (non-blank
lines), and entries split correctly against the hand count in tests/data/finder_entry_starts.json
(an entry is correct when a returned entry has exactly its first and last line; docs/FINDER.md
says how the count was made). ``entries_on_tagged_lines`` scores the entry splitter alone, run on
the lines the data tags ``ref``: how far the splitter's rules agree with the reader's count (were
the count made by those rules, this would be 1.0 by construction). ``--cv`` also
runs leave-one-document-out over the nine training documents with the training script's
hyperparameters and the same rules after the CRF (line scores only: they have no hand-counted
entries), the check used to choose features without looking at the held-out three. Also prints lines/s of labelling.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))

from citejudge.documents._finder import (  # noqa: E402
    Line,
    anchor_to_heading,
    group_entries,
    line_features,
    load_finder,
    prose_before_list,
    reference_blocks,
    running_text,
    split_entries,
)
from train_finder import DATA, PARAMS, held_out, read_ttx  # noqa: E402

GOLD = ROOT / "tests" / "data" / "finder_entry_starts.json"


def gold_entries(lines: list[Line], tags: list[str], starts: list[int]) -> list[tuple[int, int]]:
    """(first, last) 0-based line of every hand-counted entry."""
    ref = [i for i, t in enumerate(tags) if t == "ref" and not lines[i].blank]
    return [(e[0], e[-1]) for e in group_entries(ref, set(starts))]


def line_scores(pred: list[str], tags: list[str], lines: list[Line]) -> dict[str, int]:
    tp = fp = fn = 0
    for p, t, ln in zip(pred, tags, lines, strict=True):
        if ln.blank:
            continue
        if p == "ref" and t == "ref":
            tp += 1
        elif p == "ref":
            fp += 1
        elif t == "ref":
            fn += 1
    return {"tp": tp, "fp": fp, "fn": fn}


def _prf(d: dict[str, int]) -> dict[str, float]:
    p = d["tp"] / max(1, d["tp"] + d["fp"])
    r = d["tp"] / max(1, d["tp"] + d["fn"])
    return {"precision": round(p, 4), "recall": round(r, 4)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--cv", action="store_true")
    args = ap.parse_args()
    files = sorted(args.data.glob("*.ttx.gz"))
    test = held_out([f.name for f in files])
    gold = json.loads(GOLD.read_text())
    finder = load_finder()
    total = {"tp": 0, "fp": 0, "fn": 0}
    ent = {"gold": 0, "returned": 0, "correct": 0}
    oracle = {"returned": 0, "correct": 0}
    per_doc = {}
    n_lines, seconds = 0, 0.0
    for f in files:
        if f.name not in test:
            continue
        lines, tags = read_ttx(f)
        t0 = time.perf_counter()
        pred = finder.labels(lines)
        entries = [e for b in reference_blocks(pred) for e in split_entries(lines, b)]
        seconds += time.perf_counter() - t0
        n_lines += len(lines)
        sc = line_scores(pred, tags, lines)
        for k in total:
            total[k] += sc[k]
        g = set(gold_entries(lines, tags, gold[f.name]))
        got = {(e[0], e[-1]) for e in entries}
        correct = len(g & got)
        on_tags = {(e[0], e[-1]) for b in reference_blocks(tags) for e in split_entries(lines, b)}
        oracle["returned"] += len(on_tags)
        oracle["correct"] += len(g & on_tags)
        ent["gold"] += len(g)
        ent["returned"] += len(got)
        ent["correct"] += correct
        per_doc[f.name] = {
            **_prf(sc),
            **sc,
            "entries_gold": len(g),
            "entries_returned": len(got),
            "entries_correct": correct,
        }
    out = {
        "held_out": per_doc,
        "lines": {**_prf(total), **total},
        "entries": {
            **ent,
            "recall": round(ent["correct"] / max(1, ent["gold"]), 4),
            "precision": round(ent["correct"] / max(1, ent["returned"]), 4),
        },
        "entries_on_tagged_lines": {
            **oracle,
            "recall": round(oracle["correct"] / max(1, ent["gold"]), 4),
            "precision": round(oracle["correct"] / max(1, oracle["returned"]), 4),
        },
        "lines_per_second": round(n_lines / max(seconds, 1e-9)),
    }
    if args.cv:
        import pycrfsuite

        cv = {"tp": 0, "fp": 0, "fn": 0}
        train = [f for f in files if f.name not in test]
        data = {f.name: read_ttx(f) for f in train}
        feats = {k: line_features(v[0]) for k, v in data.items()}
        per = {}
        for f in train:
            tr = pycrfsuite.Trainer(verbose=False)
            for g_ in train:
                if g_ != f:
                    tr.append(feats[g_.name], data[g_.name][1])
            tr.set_params(PARAMS)
            with tempfile.TemporaryDirectory() as tmp:
                tr.train(f"{tmp}/m")
                tg = pycrfsuite.Tagger()
                tg.open(f"{tmp}/m")
                lines = data[f.name][0]
                pred = prose_before_list(
                    lines, running_text(lines, anchor_to_heading(lines, tg.tag(feats[f.name])))
                )
            sc = line_scores(pred, data[f.name][1], lines)
            per[f.name] = _prf(sc)
            for k in cv:
                cv[k] += sc[k]
        out["cv_train_documents"] = {"total": {**_prf(cv), **cv}, "per_document": per}
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
