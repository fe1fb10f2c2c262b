#!/usr/bin/env python
"""Ingest benchmark: synthetic OpenAlex snapshot -> index; prints JSON with works/s and size.

Usage: bench_ingest.py --works N [--keep DIR] [--workers W] [--seed S]

With ``--keep DIR`` the snapshot (DIR/snapshot) and the index (DIR/index) are kept, and an
existing DIR/snapshot with the same number of records is reused.

Besides wall-clock works/s the output gives the CPU time of the build (this process, its
Tantivy threads and the worker processes): on a shared machine ``cpu_us_per_work`` is the
steadier figure to compare builds by.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
try:
    import citejudge  # noqa: F401
except ImportError:  # running from a checkout without an install
    sys.path.insert(0, str(ROOT / "src"))

from citejudge.index import build_index  # noqa: E402

FULL_OPENALEX = 463_000_000


def load_synth() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "make_synthetic_snapshot", ROOT / "scripts" / "make_synthetic_snapshot.py"
    )
    if spec is None or spec.loader is None:
        raise RuntimeError("scripts/make_synthetic_snapshot.py not found")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["make_synthetic_snapshot"] = mod
    spec.loader.exec_module(mod)
    return mod


def ensure_snapshot(snap: Path, works: int, seed: int) -> float:
    """Make the snapshot unless one with ``works`` records is there; return seconds spent."""
    manifest = snap / "data" / "works" / "manifest"
    if manifest.is_file():
        meta = json.loads(manifest.read_text())["meta"]
        if meta.get("record_count") == works:
            return 0.0
        shutil.rmtree(snap)
    t = time.monotonic()
    load_synth().make_snapshot(snap, works, seed=seed)
    return time.monotonic() - t


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the build's workers)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="index build throughput on a synthetic snapshot")
    ap.add_argument("--works", type=int, default=100_000)
    ap.add_argument(
        "--keep", type=Path, default=None, help="keep snapshot and index under this dir"
    )
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args(argv)
    if a.verbose:
        logging.basicConfig(
            level=logging.INFO, format="%(asctime)s %(name)s %(message)s", stream=sys.stderr
        )
    base = a.keep or Path(tempfile.mkdtemp(prefix="cj-bench-ingest-"))
    base.mkdir(parents=True, exist_ok=True)
    snap, index = base / "snapshot", base / "index"
    try:
        gen_s = ensure_snapshot(snap, a.works, a.seed)
        shutil.rmtree(index, ignore_errors=True)
        cpu = cpu_seconds()
        t = time.monotonic()
        report = build_index([snap], index, workers=a.workers)
        secs = time.monotonic() - t
        cpu = cpu_seconds() - cpu
        size = dir_bytes(index)
        snap_size = dir_bytes(snap)
        n = report.works
        rate = n / secs if secs else 0.0
        out = {
            "records": a.works,
            "works": n,
            "duplicates_overwritten": report.duplicates_overwritten,
            "redirects": report.redirects,
            "workers": a.workers,
            "snapshot_seconds": round(gen_s, 2),
            "snapshot_bytes": snap_size,
            "seconds": round(secs, 2),
            "works_per_s": round(rate),
            "cpu_seconds": round(cpu, 2),
            "cpu_us_per_work": round(cpu / n * 1e6, 1) if n else None,
            "index_bytes": size,
            "sqlite_bytes": (index / "works.sqlite").stat().st_size,
            "tantivy_bytes": dir_bytes(index / "tantivy"),
            "bytes_per_work": round(size / n, 1) if n else None,
            "projection_463M": {
                "hours": round(FULL_OPENALEX / rate / 3600, 1) if rate else None,
                "tb": round(FULL_OPENALEX * size / n / 1e12, 2) if n else None,
            },
            "ok": report.ok,
        }
        sys.stdout.write(json.dumps(out, indent=1) + "\n")
        return 0 if report.ok else 1
    finally:
        if a.keep is None:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
