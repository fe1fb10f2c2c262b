"""The text functions against maintained libraries, on the shared data (see citejudge.text).

Sentences: :func:`citejudge.text.split_sentences` against ``pysbd`` and ``blingfire`` on the
OpenAlex abstracts, HealthVer and SciFact evidence and Czech CTKFacts paragraphs: the share of
texts each splits exactly as ours does, the share whose split followed by the 25-character merge
equals the scorer's :func:`~citejudge.text.evidence_windows` (whitespace collapsed), and the time
per 1,000 texts. Language: :func:`citejudge.text.detect_language` against ``langdetect`` (seed 0)
on CTKFacts (cs), HealthVer and FEVER (en) claims: accuracy, agreement and time. A library that
is not installed is skipped.

    python scripts/bench_text.py [--shared ../shared/data] [--fever-n 2000]

Prints one JSON object.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from citejudge.text import detect_language, evidence_windows, split_sentences

DEFAULT_SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


def _abstracts(shared: Path) -> list[str]:
    out = []
    for line in (shared / "openalex" / "works.jsonl").open(encoding="utf-8"):
        inv = json.loads(line).get("abstract_inverted_index")
        if inv:
            pos = {p: w for w, ps in inv.items() for p in ps}
            out.append(" ".join(pos[i] for i in sorted(pos)))
    return out


def _column(path: Path, col: str, delimiter: str = ",") -> list[str]:
    with path.open(encoding="utf-8") as fh:
        return [r[col] for r in csv.DictReader(fh, delimiter=delimiter)]


def _merge(parts: list[str], n: int = 25) -> list[str]:
    out: list[str] = []
    for p in parts:
        if out and len(p) < n:
            out[-1] = f"{out[-1]} {p}"
        else:
            out.append(p)
    return out


def _splitters() -> dict[str, Callable[[str], list[str]]]:
    fns: dict[str, Callable[[str], list[str]]] = {"citejudge": split_sentences}
    if importlib.util.find_spec("pysbd"):
        import pysbd

        seg = pysbd.Segmenter(language="en", clean=False)
        fns["pysbd"] = lambda t: [s.strip() for s in seg.segment(" ".join(t.split())) if s.strip()]
    if importlib.util.find_spec("blingfire"):
        import blingfire

        fns["blingfire"] = lambda t: [
            s.strip()
            for s in blingfire.text_to_sentences(" ".join(t.split())).split("\n")
            if s.strip()
        ]
    return fns


def _detectors() -> dict[str, Callable[[str], str]]:
    fns: dict[str, Callable[[str], str]] = {"citejudge": detect_language}
    if importlib.util.find_spec("langdetect"):
        from langdetect import DetectorFactory, detect

        DetectorFactory.seed = 0

        def ld(text: str) -> str:
            try:
                return "cs" if detect(text) == "cs" else "en"
            except Exception:  # no features in the text
                return "en"

        fns["langdetect"] = ld
    return fns


def main(argv: list[str] | None = None) -> int:
    """Run the measurements and print the JSON report."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("--shared", type=Path, default=DEFAULT_SHARED, help="the shared data folder")
    ap.add_argument(
        "--fever-n", type=int, default=2000, help="FEVER claims to detect the language of"
    )
    args = ap.parse_args(argv)
    claims = args.shared / "claims"
    ctk = [
        json.loads(x)
        for x in (claims / "ctkfacts_cs.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    texts = {
        "openalex_abstracts": _abstracts(args.shared),
        "healthver_evidence": list(
            dict.fromkeys(_column(claims / "healthver_dev.csv", "evidence"))
        ),
        "scifact_evidence": list(
            dict.fromkeys(_column(claims / "scifact_rte_train.tsv", "sentence1", "\t"))
        ),
        "ctkfacts_evidence_cs": list(
            dict.fromkeys(" ".join(p for g in r["evidence"] for p in g) for r in ctk)
        ),
    }
    report: dict[str, Any] = {"sentences": {}, "language": {}}
    splitters = _splitters()
    for name, batch in texts.items():
        ours = [split_sentences(t) for t in batch]
        windows = [[" ".join(w.split()) for w in evidence_windows(t)] for t in batch]
        row: dict[str, Any] = {"texts": len(batch), "sentences": sum(map(len, ours))}
        for lib, fn in splitters.items():
            t0 = time.perf_counter()
            got = [fn(t) for t in batch]
            secs = time.perf_counter() - t0
            row[lib] = {
                "same_as_citejudge": round(
                    sum(g == o for g, o in zip(got, ours, strict=True)) / len(batch), 3
                ),
                "merged_same_as_windows": round(
                    sum(_merge(g) == w for g, w in zip(got, windows, strict=True)) / len(batch), 3
                ),
                "ms_per_1000": round(secs / len(batch) * 1e6, 1),
            }
        report["sentences"][name] = row
    sets = [
        ("ctkfacts_claims", [r["claim"] for r in ctk], "cs"),
        ("healthver_claims", _column(claims / "healthver_dev.csv", "claim"), "en"),
        (
            "fever_claims",
            _column(claims / "fever_rte_dev.tsv", "claim", "\t")[: args.fever_n],
            "en",
        ),
    ]
    for name, batch, lang in sets:
        ours_l = [detect_language(t) for t in batch]
        row = {"texts": len(batch), "language": lang}
        for lib, det in _detectors().items():
            t0 = time.perf_counter()
            got_l = [det(t) for t in batch]
            secs = time.perf_counter() - t0
            row[lib] = {
                "accuracy": round(sum(g == lang for g in got_l) / len(batch), 3),
                "same_as_citejudge": round(
                    sum(g == o for g, o in zip(got_l, ours_l, strict=True)) / len(batch), 3
                ),
                "ms_per_1000": round(secs / len(batch) * 1e6, 1),
            }
        report["language"][name] = row
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
