"""How long the CPU card takes to judge one claim against a long page (content grounding).

Pages: the WiCE dev pages of at least ``--chars`` characters (``../shared/data/claims``), each cut
at the last line break before ``--chars``, with its own claim. One judgement is what content
grounding does per sub-claim on the CPU card: select the passages
(:func:`citejudge.judge.deciders.select_for`, the scorer's embedder ranking the candidates), judge
them with the calibrated scorer's long-text fit, apply the claim-coverage rule.

Today's path (before passages: the scorer's short-evidence fit over every window of the whole
page) is timed in the same rounds, interleaved with the new one, so the ratio holds on a loaded
machine; the load average is printed beside the times. Prints one JSON document.

Usage: ``python scripts/bench_longtext.py [--chars 30000] [--pages 8] [--rounds 3] [--threads 2]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))

import bench_support  # noqa: E402


def pages(chars: int, n: int) -> list[tuple[str, str]]:
    """(claim, page) pairs: WiCE pages of at least ``chars`` characters, cut to ``chars``."""
    out: list[tuple[str, str]] = []
    for r in sorted(bench_support.wice_rows(), key=lambda r: bench_support._h(r["claim"])):
        text = r["evidence"]
        if len(text) < chars:
            continue
        cut = text.rfind("\n", 0, chars)
        out.append((r["claim"], text[: cut if cut > 0 else chars]))
        if len(out) == n:
            break
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Time the judgements; print JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chars", type=int, default=30_000, help="page length (characters)")
    ap.add_argument("--pages", type=int, default=8, help="how many pages")
    ap.add_argument("--rounds", type=int, default=3, help="rounds (old and new interleaved)")
    ap.add_argument("--threads", type=int, default=2, help="torch threads")
    ap.add_argument("--no-today", action="store_true", help="time the new path only")
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch

    torch.set_num_threads(args.threads)
    from citejudge.judge.backends.scripted import ScriptedBackend
    from citejudge.judge.cards import load_card
    from citejudge.judge.decide import SupportQuestion
    from citejudge.judge.deciders import (
        ScorerSupportDecider,
        apply_coverage_rule,
        card_support_decider,
        select_for,
    )
    from citejudge.judge.support import SupportScorer, calibration_path

    decider = card_support_decider(load_card("cpu-default"), ScriptedBackend([]))
    if not isinstance(decider, ScorerSupportDecider) or not isinstance(
        decider.scorer, SupportScorer
    ):
        raise SystemExit("the cpu-default card names no calibrated scorer")
    scorer = decider.scorer

    def new(claim: str, page: str) -> dict[str, Any]:
        sel = select_for(decider, claim, page)
        (d,) = decider.decide([SupportQuestion(claim, page, "", sel)])
        d = apply_coverage_rule(d, sel, claim, page)
        return {"label": d.label, "fit": d.evidence_kind, "passages": len(sel.passages)}

    today: SupportScorer | None = None

    def old(claim: str, page: str) -> dict[str, Any]:
        assert today is not None
        p = today.score_features(today.features([(claim, page)]))[0]
        return {"label": "SUPPORTED" if p >= today.threshold else "NOT_SUPPORTED"}

    work = pages(args.chars, args.pages)
    if not work:
        raise SystemExit(f"no WiCE page of {args.chars} characters in {bench_support.DATA}")
    t0 = time.perf_counter()
    new(*work[0])  # loads the embedder
    load_s = time.perf_counter() - t0
    # today's path: the calibration's short (English) fit over the whole page, same embedder
    today = SupportScorer.load(calibration_path("cpu-embed-only"), embedder=scorer.embedder)
    times: dict[str, list[list[float]]] = {"new": [[] for _ in work], "today": [[] for _ in work]}
    labels: dict[str, Any] = {}
    loads: list[float] = []
    for _ in range(args.rounds):
        for i, (claim, page) in enumerate(work):
            for name, fn in (("new", new), ("today", old)):
                if name == "today" and args.no_today:
                    continue
                t = time.perf_counter()
                out = fn(claim, page)
                times[name][i].append(time.perf_counter() - t)
                labels.setdefault(name, [None] * len(work))[i] = out
            loads.append(os.getloadavg()[0])

    def summary(rows: list[list[float]]) -> dict[str, Any]:
        best = [min(r) for r in rows if r]
        if not best:
            return {}
        return {
            "best_of_rounds_s": [round(b, 3) for b in best],
            "median_s": round(statistics.median(best), 3),
            "max_s": round(max(best), 3),
            "all_rounds_median_s": round(statistics.median([x for r in rows for x in r]), 3),
        }

    report: dict[str, Any] = {
        "pages": len(work),
        "page_chars": [len(p) for _, p in work],
        "units": [select_for(decider, c, p).units for c, p in work],
        "rounds": args.rounds,
        "torch_threads": args.threads,
        "cpu_count": os.cpu_count(),
        "load_average_during": [round(min(loads), 2), round(max(loads), 2)],
        "embedder_load_and_first_judgement_s": round(load_s, 2),
        "new": summary(times["new"]),
        "today": summary(times["today"]),
        "labels": labels,
    }
    if report["today"]:
        report["today_over_new_median"] = round(
            report["today"]["median_s"] / report["new"]["median_s"], 2
        )
    json.dump(report, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
