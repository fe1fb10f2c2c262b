"""Reference matching throughput: ``check references --no-llm`` on a large synthetic index.

Builds (or reuses, ``--index``) an index of a synthetic OpenAlex snapshot
(``make_synthetic_snapshot.py``), renders faithful citations of randomly drawn works in several
styles (``render_citations.py``), and runs them through the CLI command with two worker
processes, separately for

* identifier-bearing citations (the work's DOI is in the string), and
* title-only citations (the same styles without any identifier: exact-title lookup + scoring),
* title-only citations whose title has typos and case noise (``bench_lookup.noisy``: Tantivy
  retrieval + rapidfuzz; most are rightly "No", since a changed title is a mismatch),

printing refs/s of each, their share of "Yes" verdicts (faithful renderings should match; a
sanity check, not the quality benchmark) and the index size. Goals on 2 cores: >= 2,000 refs/s
overall and >= 1,000 refs/s title-only.

    python scripts/bench_matcher.py [--works 1000000] [--refs 6000] [--index PATH]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson

from citejudge.cli import main as cli_main
from citejudge.index import WorldIndex, build_index

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_lookup import noisy, sample
from make_synthetic_snapshot import make_snapshot
from render_citations import cite_of, render

STYLES = ("apa", "ieee", "vancouver", "harvard", "chicago", "mla", "bibtex")


def _items(ix: WorldIndex, n: int, seed: int) -> tuple[list[dict[str, Any]], ...]:
    """Identifier-bearing, title-only and noisy-title items for ``n`` random works with a DOI and a title."""
    rng = random.Random(seed)
    works = [
        w
        for w in ix.get_many([wid for wid, doi, title in sample(ix, n * 2, seed) if doi and title])
        if w.doi and w.title and w.authors
    ][:n]
    with_id, title_only, noisy_title = [], [], []
    for k, w in enumerate(works):
        style = STYLES[k % len(STYLES)]
        cite = cite_of(w)
        with_id.append(
            {"id": f"d{k}", "full_citation": render(cite, style, number=k + 1, work_type=w.type)}
        )
        title_only.append(
            {
                "id": f"t{k}",
                "full_citation": render(
                    replace(cite, doi=None), style, number=k + 1, work_type=w.type
                ),
            }
        )
        bent = replace(cite, doi=None, title=noisy(w.title, rng))
        noisy_title.append(
            {"id": f"n{k}", "full_citation": render(bent, style, number=k + 1, work_type=w.type)}
        )
    rng.shuffle(with_id)
    rng.shuffle(title_only)
    rng.shuffle(noisy_title)
    return with_id, title_only, noisy_title


def run_check(
    items: list[dict[str, Any]], index: Path, tmp: Path, name: str, workers: int
) -> tuple[float, list[dict[str, Any]], int]:
    """``check references --no-llm`` on ``items``: wall seconds, output lines, exit code."""
    inp, out = tmp / f"{name}.jsonl", tmp / f"{name}.out.jsonl"
    inp.write_bytes(b"".join(orjson.dumps(x, default=str) + b"\n" for x in items))
    argv = ["check", "references", str(inp), "--index", str(index), "--out", str(out)]
    argv += ["--no-llm", "--workers", str(workers), "-q"]
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        code = cli_main(argv)
    secs = time.perf_counter() - t0
    return secs, [orjson.loads(x) for x in out.read_bytes().splitlines()], code


def _check(
    items: list[dict[str, Any]], index: Path, tmp: Path, name: str, workers: int
) -> dict[str, Any]:
    secs, lines, code = run_check(items, index, tmp, name, workers)
    yes = sum(
        1 for x in lines if x["result"] and x["result"]["reference_grounding"].startswith("Yes")
    )
    return {
        "refs": len(items),
        "seconds": round(secs, 2),
        "refs_per_s": round(len(items) / secs, 1),
        "yes_share": round(yes / max(len(lines), 1), 4),
        "exit_code": code,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--works", type=int, default=1_000_000, help="synthetic works (default 1,000,000)"
    )
    ap.add_argument("--refs", type=int, default=6000, help="citations per kind (default 6000)")
    ap.add_argument(
        "--index", type=Path, default=None, help="reuse this index instead of building one"
    )
    ap.add_argument("--keep", type=Path, default=None, help="build the index here and keep it")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-matcher-"))
    try:
        build_s = None
        index = args.index
        if index is None:
            snap = tmp / "snapshot"
            make_snapshot(snap, args.works, seed=args.seed, workers=args.workers)
            index = args.keep or tmp / "world.index"
            t0 = time.perf_counter()
            build_index([snap], index, workers=args.workers)
            build_s = round(time.perf_counter() - t0, 1)
            shutil.rmtree(snap)
        with WorldIndex.open(index) as ix:
            nworks = ix.count()
            with_id, title_only, noisy_title = _items(ix, args.refs, args.seed)
        ids = _check(with_id, index, tmp, "ids", args.workers)
        titles = _check(title_only, index, tmp, "titles", args.workers)
        bent = _check(noisy_title, index, tmp, "noisy", args.workers)
        kinds = (ids, titles, bent)
        total_s = sum(k["seconds"] for k in kinds)
        report = {
            "works": nworks,
            "index_build_s": build_s,
            "workers": args.workers,
            "styles": list(STYLES),
            "identifier_bearing": ids,
            "title_only": titles,
            "title_only_noisy": bent,
            "overall_refs_per_s": round(sum(k["refs"] for k in kinds) / total_s, 1),
            "goals": {"overall_refs_per_s": 2000, "title_only_refs_per_s": 1000},
        }
        sys.stdout.write(json.dumps(report, indent=1) + "\n")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
