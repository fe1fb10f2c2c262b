"""Start-up cost of ``citejudge check references --no-llm``: one citation, whole process.

A run over few citations is dominated by what the process does before and around the first
one: imports, regular expressions compiled at import, the index opened, the parser's model
read, the manifest written. This times that process for the current tree and each
``--baseline REV`` (exported with ``git archive`` like ``bench_references.py`` does, its C
module built in place when it has one), the versions run in turns for ``--rounds`` rounds, each
against its own index of the 492 real OpenAlex works. It prints JSON: per version the wall and
CPU milliseconds (min and median; CPU time counts only this process, not the other processes a
shared machine runs), the modules loaded at exit (all, and citejudge's own) and the regular
expressions compiled (distinct patterns, at import and later), and per baseline the ratios
``baseline time / current time`` (above 1: the current tree starts faster).

    python scripts/bench_startup.py --baseline 0ea21eb [--baseline main] [--rounds 10] \
        [--citations 1] [--workers 1]

``--citations N --workers 2`` times a bigger input the same way (a pool starts when there are
200 citations or more), to see what worker processes add.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench_references import DEFAULT_SHARED, REPO, Tree, _export, _run, write_workload

#: ``python -c`` body: the tree's CLI, counting the modules loaded and the distinct regular
#: expressions compiled (at import: while a module body runs; at run: later), printed as JSON on
#: stderr's last line at exit
_COUNTING_CLI = r"""
import atexit, json, re, sys
_orig, _seen, _n = re._compile, set(), {"import": 0, "run": 0}
def _compile(pattern, flags):
    if not isinstance(pattern, re.Pattern) and (type(pattern), pattern, flags) not in _seen:
        _seen.add((type(pattern), pattern, flags))
        f, where = sys._getframe(1), "run"
        while f is not None:
            if f.f_code.co_name == "<module>" and f.f_globals.get("__name__") != "__main__":
                where = "import"
                break
            f = f.f_back
        _n[where] += 1
    return _orig(pattern, flags)
re._compile = _compile
def _report():
    mods = list(sys.modules)
    sys.stderr.write("\n" + json.dumps({
        "modules": len(mods),
        "citejudge_modules": sum(1 for m in mods if m == "citejudge" or m.startswith("citejudge.")),
        "regexes_at_import": _n["import"], "regexes_at_run": _n["run"],
    }) + "\n")
atexit.register(_report)
from citejudge.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _timed(tree: Tree, args: list[str]) -> tuple[float, float]:
    """(wall ms, CPU ms of the process and its children) of the tree's CLI with ``args``."""
    wall, cpu = _run(tree, args)
    return 1000 * wall, 1000 * cpu


def _counts(tree: Tree, args: list[str]) -> dict[str, int]:
    done = subprocess.run(
        [sys.executable, "-c", _COUNTING_CLI, *args], env=tree.env, capture_output=True, text=True
    )
    if done.returncode:
        raise SystemExit(f"{tree.name}: counting run failed:\n{done.stderr[-2000:]}")
    counts: dict[str, int] = json.loads(done.stderr.strip().splitlines()[-1])
    return counts


def _stats(xs: list[float]) -> dict[str, float]:
    return {"min": round(min(xs), 1), "median": round(statistics.median(xs), 1)}


def run(
    shared: Path, baselines: list[str], *, rounds: int, citations: int, workers: int
) -> dict[str, Any]:
    """Start-up times and counts of the current tree and each baseline, versions in turns."""
    with tempfile.TemporaryDirectory() as tmp_s:
        tmp = Path(tmp_s)
        items = tmp / "items.jsonl"
        n = write_workload(shared, citations, items)
        trees = [Tree("current", REPO / "src", dict(os.environ, PYTHONPATH=str(REPO / "src")))]
        trees += [_export(rev, tmp / f"rev{i}") for i, rev in enumerate(baselines)]
        world = shared / "openalex" / "works.jsonl"
        args: dict[str, list[str]] = {}
        for i, tree in enumerate(trees):
            index = tmp / f"idx{i}"
            _timed(tree, ["index", "build", str(world), "--index", str(index), "--quiet"])
            args[tree.name] = [
                "check", "references", str(items), "--index", str(index),
                "--out", str(tmp / f"out{i}.jsonl"), "--no-llm", "-q", "--workers", str(workers),
            ]  # fmt: skip
            _timed(tree, args[tree.name])  # (warm: byte code written, files in the page cache)
        wall: dict[str, list[float]] = {t.name: [] for t in trees}
        cpu: dict[str, list[float]] = {t.name: [] for t in trees}
        for r in range(rounds):
            for tree in trees if r % 2 == 0 else trees[::-1]:
                w, c = _timed(tree, args[tree.name])
                wall[tree.name].append(w)
                cpu[tree.name].append(c)
            sys.stderr.write(
                f"round {r + 1}: "
                + ", ".join(f"{t.name} {wall[t.name][-1]:.0f} ms" for t in trees)
                + "\n"
            )
        versions = {
            t.name: {
                "wall_ms": _stats(wall[t.name]),
                "cpu_ms": _stats(cpu[t.name]),
                **_counts(t, args[t.name]),
            }
            for t in trees
        }
        cur = versions["current"]
        return {
            "workload": {
                "citations": n,
                "command": f"citejudge check references ITEMS --index INDEX --out OUT --no-llm "
                f"-q --workers {workers} (whole process, versions in turns, {rounds} rounds)",
                "index": "the 492 works of ../shared/data/openalex/works.jsonl",
                "load_average": [round(x, 2) for x in os.getloadavg()],
            },
            "versions": versions,
            "baseline_over_current": {
                t.name: {
                    f"{kind}_{stat}": round(versions[t.name][kind][stat] / cur[kind][stat], 3)
                    for kind in ("wall_ms", "cpu_ms")
                    for stat in ("min", "median")
                }
                | {
                    "wall_per_round": [
                        round(b / a, 3) for a, b in zip(wall["current"], wall[t.name], strict=True)
                    ]
                }
                for t in trees[1:]
            },
        }


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--shared", type=Path, default=DEFAULT_SHARED, help="path of shared/data")
    ap.add_argument(
        "--baseline",
        action="append",
        default=[],
        metavar="REV",
        help="a git revision timed in turns with the current tree (repeatable)",
    )
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--citations", type=int, default=1, help="citations in the input (1)")
    ap.add_argument("--workers", type=int, default=1, help="--workers of the check (1)")
    args = ap.parse_args()
    if not args.shared.is_dir():
        sys.stderr.write(f"shared data not found at {args.shared}\n")
        return 2
    out = run(
        args.shared,
        args.baseline,
        rounds=args.rounds,
        citations=args.citations,
        workers=args.workers,
    )
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
