#!/usr/bin/env python
"""Lookup benchmark: DOI point lookups/s and noisy-title candidate retrieval (q/s, recall@10).

Usage: bench_lookup.py --works N [--keep DIR] | --index PATH   [--queries Q] [--seed S]

Noisy titles are made from sampled works' titles: a typo in one or two words, a dropped word,
an added word, case changes (one to three of these per query). recall@10 counts a query as
found when the sampled work's id is among the first 10 candidates. q/s is measured with one
process (per core) and with two processes (the machine: 2 cores).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
try:
    import citejudge  # noqa: F401
except ImportError:  # running from a checkout without an install
    sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_ingest import ensure_snapshot  # noqa: E402
from citejudge.index import WorldIndex, build_index  # noqa: E402

EXTRA_WORDS = ["novel", "study", "analysis", "new", "improved", "results", "towards", "approach"]


def typo(word: str, rng: random.Random) -> str:
    if len(word) < 3:
        return word
    i = rng.randrange(1, len(word))
    op = rng.randrange(3)
    if op == 0:
        return word[:i] + word[i + 1 :]
    if op == 1:
        return word[: i - 1] + word[i] + word[i - 1] + word[i + 1 :]
    return word[:i] + rng.choice("aeiourstn") + word[i:]


def noisy(title: str, rng: random.Random) -> str:
    words = title.split()
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(4)
        if op == 0 and words:
            j = rng.randrange(len(words))
            words[j] = typo(words[j], rng)
        elif op == 1 and len(words) > 3:
            del words[rng.randrange(len(words))]
        elif op == 2:
            words.insert(rng.randrange(len(words) + 1), rng.choice(EXTRA_WORDS))
        else:
            words = [w.upper() if rng.random() < 0.3 else w.lower() for w in words]
    return " ".join(words)


def sample(ix: WorldIndex, n: int, seed: int) -> list[tuple[str, str | None, str | None]]:
    """(id, doi, title) of ``n`` random works."""
    rng = random.Random(seed)
    every = [r for (r,) in ix._db.execute("SELECT rowid FROM works")]
    rowids = sorted(rng.sample(every, min(n * 2, len(every))))
    out = []
    for i in range(0, len(rowids), 500):
        chunk = rowids[i : i + 500]
        q = f"SELECT data FROM works WHERE rowid IN ({','.join('?' * len(chunk))})"
        for (data,) in ix._db.execute(q, chunk):
            w = ix.decode(data)
            out.append((w.id, w.doi, w.title))
    rng.shuffle(out)
    return out[:n]


def _run_queries(args: tuple[str, list[str], int]) -> tuple[float, list[list[str]]]:
    path, queries, k = args
    ix = WorldIndex.open(path)
    ix.search_title(queries[0], k=k)  # warm up
    t = time.perf_counter()
    res = [[wid for wid, _ in ix.search_title(q, k=k)] for q in queries]
    return time.perf_counter() - t, res


def _run_dois(args: tuple[str, list[str]]) -> float:
    path, dois = args
    ix = WorldIndex.open(path)
    t = time.perf_counter()
    for d in dois:
        ix.by_doi(d)
    return time.perf_counter() - t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="index lookup and title retrieval benchmark")
    ap.add_argument("--works", type=int, default=100_000)
    ap.add_argument("--index", type=Path, default=None, help="use this built index")
    ap.add_argument(
        "--keep", type=Path, default=None, help="keep snapshot and index under this dir"
    )
    ap.add_argument("--queries", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    tmp: Path | None = None
    if a.index is not None:
        index = a.index
    else:
        base = a.keep or Path(tempfile.mkdtemp(prefix="cj-bench-lookup-"))
        tmp = None if a.keep else base
        snap, index = base / "snapshot", base / "index"
        ensure_snapshot(snap, a.works, a.seed)
        if not (index / "meta.json").is_file():
            build_index([snap], index, workers=2)
    try:
        ix = WorldIndex.open(index)
        nworks = ix.count()
        rng = random.Random(a.seed + 1)
        picked = sample(ix, a.queries, a.seed)
        dois = [d for _, d, _ in picked if d] * 5
        titled = [(wid, t) for wid, _, t in picked if t]
        queries = [noisy(t, rng) for _, t in titled]

        # DOI point lookups (record decoded), one process then two
        _run_dois((str(index), dois[:200]))
        one_doi = _run_dois((str(index), dois))
        ctx = mp.get_context("fork")
        half = len(dois) // 2
        with ctx.Pool(2) as pool:
            t = time.perf_counter()
            pool.map(_run_dois, [(str(index), dois[:half]), (str(index), dois[half:])])
            two_doi = time.perf_counter() - t

        # title retrieval: one process (per core) then two
        secs_one, results = _run_queries((str(index), queries, 10))
        hits = sum(1 for (wid, _), res in zip(titled, results, strict=True) if wid in res)
        hits1 = sum(1 for (wid, _), res in zip(titled, results, strict=True) if res[:1] == [wid])
        half = len(queries) // 2
        with ctx.Pool(2) as pool:
            t = time.perf_counter()
            pool.map(
                _run_queries, [(str(index), queries[:half], 10), (str(index), queries[half:], 10)]
            )
            two_q = time.perf_counter() - t
        exact_q = [t for _, t in titled]
        secs_exact, res_exact = _run_queries((str(index), exact_q, 10))
        out = {
            "works": nworks,
            "doi_lookups": len(dois),
            "doi_per_s_1proc": round(len(dois) / one_doi),
            "doi_per_s_2proc": round(len(dois) / two_doi),
            "title_queries": len(queries),
            "title_qps_1proc": round(len(queries) / secs_one),
            "title_qps_2proc": round(len(queries) / two_q),
            "title_ms_per_query_1proc": round(1000 * secs_one / len(queries), 3),
            "noisy_recall_at_10": round(hits / len(queries), 4),
            "noisy_recall_at_1": round(hits1 / len(queries), 4),
            "exact_title_qps_1proc": round(len(exact_q) / secs_exact),
            "exact_recall_at_10": round(
                sum(1 for (wid, _), r in zip(titled, res_exact, strict=True) if wid in r)
                / len(exact_q),
                4,
            ),
            "examples": [[t, q] for (_, t), q in list(zip(titled, queries, strict=True))[:3]],
        }
        sys.stdout.write(json.dumps(out, indent=1) + "\n")
        return 0
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
