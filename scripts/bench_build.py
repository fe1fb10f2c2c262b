#!/usr/bin/env python
"""Build speed with and without the C reader, on synthetic and real-shaped worlds.

Builds the same world in turns, in child processes, three ways: with ``citejudge._native``
whole; with it but for its record converter (the reader of abstracts, the whitespace clean-up
and the title-block hashes in C, the conversion of a record in Python); and with the Python
paths alone (``CITEJUDGE_NO_NATIVE=1``). It prints per world and way the best works/s and CPU
microseconds a work (the builder, its Tantivy threads and its workers) of ``--rounds`` builds,
then the ratios of the best rates to the Python paths', measured in this one run.

Two worlds:

* **synthetic**: ``make_synthetic_snapshot.py`` (``--works``; or an existing ``--snapshot``),
  whose abstracts are short (about 120 words);
* **real-shaped**: the 492 real OpenAlex records of ``../shared/data/openalex/works.jsonl``
  repeated ``--copies`` times under fresh ids (same fields, abstracts averaging 3,500
  characters), written as four JSONL parts so that the workers share them.

    python scripts/bench_build.py [--works 200000] [--copies 200] [--rounds 3] [--workers 2]
        [--fields all|matching]
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_synthetic_snapshot import make_snapshot

WORKS_JSONL = Path(__file__).resolve().parents[2] / "shared" / "data" / "openalex" / "works.jsonl"
PARTS = 4

_BUILD = """
import json, resource, sys, time
from pathlib import Path
from citejudge.index import build_index
import citejudge.readers.openalex as oa
if sys.argv[3] == "no-convert":  # (the workers are forked from this process: they inherit it)
    oa._native_convert = None
t = time.perf_counter()
rep = build_index([Path(p) for p in sys.argv[5:]], Path(sys.argv[1]), workers=int(sys.argv[2]),
                  fields=sys.argv[4])
secs = time.perf_counter() - t
me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime
print(json.dumps({"works": rep.works, "seconds": secs, "cpu": cpu,
                  "native": oa._inverted_abstract is not None, "issues": len(rep.issues)}))
"""


def real_shaped(out: Path, copies: int) -> list[Path]:
    """``copies`` copies of the real records under fresh OpenAlex ids, in PARTS gzip parts."""
    records = [orjson.loads(ln) for ln in WORKS_JSONL.read_bytes().splitlines() if ln.strip()]
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"part_{i}.jsonl.gz" for i in range(PARTS)]
    total = copies * len(records)
    with contextlib.ExitStack() as stack:
        files = [stack.enter_context(gzip.open(p, "wb", compresslevel=1)) for p in paths]
        for n in range(total):
            rec = records[n % len(records)]
            wid = f"https://openalex.org/W{9_000_000_000 + n}"
            rec["id"] = wid
            if isinstance(rec.get("ids"), dict):
                rec["ids"]["openalex"] = wid
            files[(n * PARTS) // total].write(orjson.dumps(rec) + b"\n")
    return paths


#: the ways of building compared: the whole C module, it but for its converter, Python alone
WAYS = ("C", "no-convert", "Python")
LABELS = {"C": "C module", "no-convert": "C but the converter", "Python": "Python paths"}


def build(
    sources: list[Path], index: Path, workers: int, way: str, fields: str = "all"
) -> dict[str, Any]:
    shutil.rmtree(index, ignore_errors=True)
    native = way != "Python"
    env = dict(os.environ)
    env.pop("CITEJUDGE_NO_NATIVE", None)
    if not native:
        env["CITEJUDGE_NO_NATIVE"] = "1"
    out = subprocess.run(
        [sys.executable, "-c", _BUILD, str(index), str(workers), way, fields, *map(str, sources)],
        capture_output=True,
        text=True,
        env=env,
    )
    if out.returncode:
        tail = "\n".join(out.stderr.strip().splitlines()[-15:])
        raise SystemExit(f"build failed (exit {out.returncode}):\n{tail}")
    res: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    if res["native"] != native:
        raise SystemExit("the C reader is not built: pip install -e . with a C compiler")
    shutil.rmtree(index, ignore_errors=True)
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--works", type=int, default=200_000, help="synthetic works (0: none)")
    ap.add_argument("--snapshot", type=Path, help="an existing synthetic snapshot to build")
    ap.add_argument("--copies", type=int, default=200, help="copies of the real records (0: none)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--tmp", type=Path, help="scratch directory (default: a temporary one)")
    ap.add_argument(
        "--fields", choices=("all", "matching"), default="all", help="index build --fields"
    )
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="bench-build-", dir=args.tmp))
    worlds: dict[str, list[Path]] = {}
    try:
        if args.snapshot or args.works:
            snap = args.snapshot
            if snap is None:
                snap = tmp / "synthetic"
                print(f"making a synthetic snapshot of {args.works:,} works", file=sys.stderr)
                make_snapshot(snap, args.works, seed=0)
            worlds["synthetic"] = [snap]
        if args.copies:
            if not WORKS_JSONL.is_file():
                print(f"{WORKS_JSONL} absent: no real-shaped world", file=sys.stderr)
            else:
                worlds["real-shaped"] = real_shaped(tmp / "real", args.copies)
        rows = []
        for world, sources in worlds.items():
            runs: dict[str, list[dict[str, Any]]] = {way: [] for way in WAYS}
            for r in range(args.rounds):
                for way in WAYS:
                    res = build(sources, tmp / "index", args.workers, way, args.fields)
                    runs[way].append(res)
                    print(
                        f"{world} round {r + 1} {LABELS[way]}: "
                        f"{res['works'] / res['seconds']:,.0f} works/s, "
                        f"{res['cpu'] / res['works'] * 1e6:.0f} CPU us a work",
                        file=sys.stderr,
                    )
            row: dict[str, Any] = {"world": world, "works": runs["C"][0]["works"]}
            for way, rs in runs.items():
                row[way] = {
                    "works_per_s": round(max(x["works"] / x["seconds"] for x in rs)),
                    "cpu_us_per_work": round(min(x["cpu"] / x["works"] * 1e6 for x in rs), 1),
                    "rounds_works_per_s": [round(x["works"] / x["seconds"]) for x in rs],
                }
            for way in WAYS:
                row[way]["ratio"] = round(row[way]["works_per_s"] / row["Python"]["works_per_s"], 2)
            rows.append(row)
        print(
            "| world | works | "
            + " | ".join(f"{LABELS[w]}: works/s, CPU us a work" for w in WAYS)
            + " | ratios to the Python paths |"
        )
        print("|---|---|" + "---|" * len(WAYS) + "---|")
        for row in rows:
            print(
                f"| {row['world']} | {row['works']:,} | "
                + " | ".join(
                    f"{row[w]['works_per_s']:,}, {row[w]['cpu_us_per_work']}" for w in WAYS
                )
                + " | "
                + ", ".join(f"{row[w]['ratio']:.2f}x" for w in WAYS[:-1])
                + " |"
            )
        print(json.dumps(rows))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
