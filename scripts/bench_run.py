"""Batch runner cost: overhead of ``citejudge run`` vs the task called directly, and resume cost.

Prints one JSON object:

* ``overhead`` — items/s of the references task's deterministic stage called directly
  (:class:`citejudge.run.stages.TaskWorker` over the input file, lines written to a file) vs the same items
  through :func:`citejudge.run.run` (reading shards, run directory, manifest, appends, counts,
  progress off); ``overhead_ratio`` = runner seconds / direct seconds - 1 (goal <= 0.05), with
  the one-off ``report.html`` timed apart as ``report_html_s``. Best of
  ``--repeat`` alternating runs each, since this machine is noisy.
* ``resume`` — a ``citejudge run`` subprocess SIGKILLed once half of ``results.jsonl`` is
  written, then ``--resume``d: the items the resumed run processed, its seconds, and
  ``resume_ratio`` = resumed seconds / uninterrupted seconds (goal: about the remaining share).

Items: HALLMARK dev citations against ``world.bib`` when ``../shared/data`` is present, else the
bundled demo citations repeated with fresh ids against the demo world.

    python scripts/bench_run.py [--items 20000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from citejudge.index import build_index
from citejudge.io import Item, dumps_line, read_items
from citejudge.run import RunConfig, run
from citejudge.run import pipeline as runner_mod
from citejudge.run.stages import TaskWorker

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"


def _source() -> tuple[list[dict[str, Any]], list[Path], str]:
    """Item dicts (without ids), world sources, and a name for the data."""
    hallmark = SHARED / "hallmark"
    if (hallmark / "dev_public.jsonl").is_file() and (hallmark / "world.bib").is_file():
        from bench_references import render_bibtex  # same directory

        rows = [
            {"full_citation": render_bibtex(orjson.loads(raw))}
            for raw in (hallmark / "dev_public.jsonl").read_bytes().splitlines()
            if raw.strip()
        ]
        return rows, [hallmark / "world.bib"], "hallmark:dev_public.jsonl"
    rows = [
        {k: v for k, v in orjson.loads(raw).items() if k != "id"}
        for raw in (REPO / "demo" / "citations.jsonl").read_bytes().splitlines()
    ]
    return rows, [REPO / "demo" / "world" / "works.jsonl"], "demo"


def _write_items(rows: list[dict[str, Any]], n: int, path: Path) -> None:
    with path.open("wb") as f:
        for i in range(n):
            f.write(orjson.dumps({"id": f"i{i:07d}", **rows[i % len(rows)]}) + b"\n")


def _direct(inp: Path, opts: RunConfig, out: Path) -> float:
    """Seconds to read the items, check each with the task, and write the lines to a file."""
    t0 = time.perf_counter()
    worker = TaskWorker(opts)
    with out.open("wb") as f:
        for it in read_items(inp):
            if isinstance(it, Item):
                f.write(dumps_line(worker(it).to_dict()))
    return time.perf_counter() - t0


def _runner(inp: Path, index: Path, out: Path, with_report: bool = True) -> float:
    """Seconds of one run; without the report.html step when ``with_report`` is False."""
    cfg = RunConfig(
        task="references",
        input=[str(inp)],
        index=index,
        out=out,
        model="none",
        workers=1,
        today_year=2026,
    )
    saved = runner_mod._write_report
    if not with_report:
        runner_mod._write_report = lambda *a, **k: None
    try:
        t0 = time.perf_counter()
        run(cfg, quiet=True)
        return time.perf_counter() - t0
    finally:
        runner_mod._write_report = saved


def _lines(path: Path) -> int:
    try:
        with path.open("rb") as f:
            return sum(1 for _ in f)
    except FileNotFoundError:
        return 0


def _cli_run(config: Path, resume: bool, kill_at: int | None, results: Path) -> tuple[float, bool]:
    cmd = [sys.executable, "-m", "citejudge.cli", "run", "--config", str(config), "-q"]
    if resume:
        cmd.append("--resume")
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    killed = False
    while proc.poll() is None:
        if kill_at is not None and _lines(results) >= kill_at:
            proc.send_signal(signal.SIGKILL)
            killed = True
            proc.wait()
            break
        time.sleep(0.02)
    return time.perf_counter() - t0, killed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=20_000, help="items per run (default 20000)")
    ap.add_argument(
        "--repeat", type=int, default=3, help="alternating timed runs of each mode (best reported)"
    )
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        rows, sources, name = _source()
        index = tmp / "world.index"
        logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)
        build_index(sources, index, workers=1)
        inp = tmp / "items.jsonl"
        _write_items(rows, args.items, inp)
        opts = RunConfig(
            task="references",
            input=[str(inp)],
            out="-",
            index=index,
            model="none",
            workers=1,
            today_year=2026,
        )
        direct: list[float] = []
        runner: list[float] = []
        core: list[float] = []
        for k in range(args.repeat):
            direct.append(_direct(inp, opts, tmp / f"direct{k}.jsonl"))
            core.append(_runner(inp, index, tmp / f"core{k}", with_report=False))
            runner.append(_runner(inp, index, tmp / f"run{k}"))
        best_d, best_r, best_c = min(direct), min(runner), min(core)

        config = tmp / "run.yaml"
        full_dir, killed_dir = tmp / "full", tmp / "killed"
        body = {
            "task": "references",
            "input": str(inp),
            "index": str(index),
            "model": "none",
            "workers": 1,
            "today_year": 2026,
        }
        config.write_text(json.dumps({**body, "out": str(full_dir)}))
        full_s, _ = _cli_run(config, False, None, full_dir / "results.jsonl")
        config.write_text(json.dumps({**body, "out": str(killed_dir)}))
        first_s, killed = _cli_run(config, False, args.items // 2, killed_dir / "results.jsonl")
        done_before = _lines(killed_dir / "results.jsonl")
        resume_s, _ = _cli_run(config, True, None, killed_dir / "results.jsonl")
        manifest = json.loads((killed_dir / "manifest.json").read_text())
        identical = (full_dir / "results.jsonl").read_bytes() == (
            killed_dir / "results.jsonl"
        ).read_bytes()
    report = {
        "data": name,
        "items": args.items,
        "cores": os.cpu_count(),
        "overhead": {
            "direct_items_per_s": round(args.items / best_d, 1),
            "runner_items_per_s": round(args.items / best_r, 1),
            "direct_s": [round(x, 3) for x in direct],
            "runner_s": [round(x, 3) for x in runner],
            "runner_without_report_s": [round(x, 3) for x in core],
            "overhead_ratio": round(best_c / best_d - 1, 4),
            "goal": "<= 0.05",
            "report_html_s": round(best_r - best_c, 3),
            "overhead_ratio_with_report": round(best_r / best_d - 1, 4),
        },
        "resume": {
            "killed": killed,
            "lines_at_kill": done_before,
            "uninterrupted_s": round(full_s, 2),
            "first_part_s": round(first_s, 2),
            "resumed_s": round(resume_s, 2),
            "resumed_processed": manifest.get("counts", {}).get("processed"),
            "resumed_from": manifest.get("counts", {}).get("resumed_from"),
            "resume_ratio": round(resume_s / full_s, 3),
            "remaining_share": round(1 - done_before / args.items, 3),
            "results_identical_to_uninterrupted": identical,
        },
    }
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
