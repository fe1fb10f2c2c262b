"""Quality of the deterministic reference check on HALLMARK, and reference throughput.

Builds an index from ``../shared/data/hallmark/world.bib``, renders every entry of
``dev_public.jsonl`` as a BibTeX ``full_citation``, runs ``check references --no-llm`` logic
in-process, and prints JSON: F1 for detecting "No" (HALLUCINATED), the false-positive rate on
VALID, and recall per hallucination type, with the default rules and with
``--strict-identifiers`` / ``--strict-venues``. ``--errors FILE`` writes the misclassified items.

``--throughput`` (and each ``--baseline REV``) measures reference throughput on the issue's
workload: ``--citations`` (12,000) citations rendered from the 492 real OpenAlex works by
``render_citations.py``, checked against those works' index by the whole ``citejudge check
references --no-llm`` process (``--workers`` 2), each version building its own index and the
versions run in turns for ``--rounds`` rounds. A baseline is a git revision exported with
``git archive`` (its C module built in place when it has one). It prints citations/s per round
and version, the ratios to each baseline, the microseconds a citation spends in each stage in
one process (parse, lookup, validation, other, output), and the verdicts that differ from each
baseline's (by change and fault, with examples).

    python scripts/bench_references.py [--shared ../shared/data] [--errors errs.jsonl]
    python scripts/bench_references.py --skip-hallmark --skip-curated --baseline 0ea21eb \
        --baseline main [--rounds 3] [--citations 12000] [--workers 2] [--show 20]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from citejudge.index import WorldIndex, build_index
from citejudge.io import Item
from citejudge.tasks.references import ReferencesTask

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_SHARED = HERE.parent.parent / "shared" / "data"


def render_bibtex(entry: dict[str, Any]) -> str:
    """The HALLMARK entry as a BibTeX string (fields in their given order)."""
    fields = entry["fields"]
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields.items())
    return f"@{entry.get('bibtex_type', 'misc')}{{{entry.get('bibtex_key', 'k')},\n{body}\n}}"


def f1_stats(pairs: list[tuple[bool, bool]]) -> dict[str, float]:
    """Precision/recall/F1 of predicting positive (= hallucinated), FPR on negatives."""
    tp = sum(1 for gold, pred in pairs if gold and pred)
    fp = sum(1 for gold, pred in pairs if not gold and pred)
    fn = sum(1 for gold, pred in pairs if gold and not pred)
    tn = sum(1 for gold, pred in pairs if not gold and not pred)
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
        "fpr": round(fp / (fp + tn), 4) if fp + tn else 0.0,
    }


def run_hallmark(
    shared: Path,
    index_dir: Path,
    errors: Path | None,
    *,
    strict_identifiers: bool = False,
    strict_venues: bool = False,
    build: bool = True,
) -> dict[str, Any]:
    """Run the benchmark on HALLMARK dev against its world."""
    t0 = time.perf_counter()
    report = (
        build_index([shared / "hallmark" / "world.bib"], index_dir, workers=1) if build else None
    )
    build_s = time.perf_counter() - t0
    entries = [
        json.loads(x)
        for x in (shared / "hallmark" / "dev_public.jsonl").read_text().splitlines()
        if x
    ]
    # HALLMARK dates its entries in 2026; "future" is relative to the benchmark's own time.
    task = ReferencesTask(
        WorldIndex.open(index_dir),
        today_year=2026,
        strict_identifiers=strict_identifiers,
        strict_venues=strict_venues,
    )
    pairs: list[tuple[bool, bool]] = []
    per_type: dict[str, list[bool]] = defaultdict(list)
    errs = []
    t1 = time.perf_counter()
    for n, e in enumerate(entries):
        item = Item(
            e.get("bibtex_key") or str(n),
            {"full_citation": render_bibtex(e)},
            "dev_public.jsonl",
            n + 1,
        )
        line = task.check(item)
        pred_no = line.result is None or line.result["reference_grounding"].startswith("No")
        gold_no = e["label"] == "HALLUCINATED"
        pairs.append((gold_no, pred_no))
        per_type[e.get("hallucination_type") or "VALID"].append(pred_no == gold_no)
        if pred_no != gold_no:
            errs.append(
                {
                    "key": item.id,
                    "label": e["label"],
                    "type": e.get("hallucination_type"),
                    "citation": item.data["full_citation"],
                    "verdict": line.result["reference_grounding"] if line.result else line.error,
                    "match": line.details.get("match"),
                }
            )
    check_s = time.perf_counter() - t1
    if errors:
        errors.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in errs))
    return {
        "dataset": "hallmark/dev_public.jsonl",
        "world": "hallmark/world.bib",
        "world_works": report.works if report else None,
        "strict_identifiers": strict_identifiers,
        "strict_venues": strict_venues,
        "items": len(entries),
        "labels": dict(Counter(e["label"] for e in entries)),
        "detect_hallucinated": f1_stats(pairs),
        "per_type_accuracy": {
            k: {"n": len(v), "accuracy": round(sum(v) / len(v), 4)}
            for k, v in sorted(per_type.items())
        },
        "anchors": {
            "bibtex-check dev": {"f1": 0.890, "fpr": 0.092},
            "claude-sonnet-4.6 zero-shot": {"f1": 0.840},
        },
        "seconds": {
            "build": round(build_s, 2),
            "check": round(check_s, 2),
            "refs_per_s_single_process": round(len(entries) / check_s, 1),
        },
    }


def run_curated(shared: Path, index_dir: Path) -> dict[str, Any]:
    """The 12 real README citations against the 492 real OpenAlex works: what the matcher says."""
    build_index([shared / "openalex" / "works.jsonl"], index_dir, workers=1)
    task = ReferencesTask(WorldIndex.open(index_dir))
    rows = []
    for x in (shared / "citations" / "curated_readme_citations.jsonl").read_text().splitlines():
        if not x.strip():
            continue
        c = json.loads(x)
        line = task.check(Item(c["id"], {"full_citation": c["raw"]}, "curated", 0))
        match = line.details.get("match", {})
        target = (c.get("target_openalex_id") or "").rsplit("/", 1)[-1] or None
        rows.append(
            {
                "id": c["id"],
                "target": target,
                "matched": match.get("work_id"),
                "found_target": target is not None and match.get("work_id") == target,
                "verdict": line.result["reference_grounding"] if line.result else line.error,
                "relation": c.get("relation"),
            }
        )
    return {
        "dataset": "citations/curated_readme_citations.jsonl",
        "items": len(rows),
        "target_found": sum(r["found_target"] for r in rows),
        "with_target": sum(1 for r in rows if r["target"]),
        "rows": rows,
    }


# ------------------------------------------------------------------------------ throughput
# The workload: 12,000 citations against the 492-work index of the real OpenAlex records,
# the whole ``citejudge check references --no-llm`` process, versions measured in turns.

#: ``python -c`` body: the CLI of the tree on PYTHONPATH, with the given arguments
_CLI = "import sys; from citejudge.cli import main; sys.exit(main(sys.argv[1:]))"

#: ``python -c`` body: one process checks every item and times each stage of a citation (CPU
#: time of the process: on a shared machine, wall time counts the other processes' turns too)
_SPLIT = r"""
import json, sys, time
from pathlib import Path
import importlib
import orjson
mr = importlib.import_module("citejudge.match.resolve")  # (citejudge.match.resolve: a function)
tr = importlib.import_module("citejudge.tasks.references")
from citejudge.index import WorldIndex
from citejudge.io import Item
try:
    from citejudge.schema import validate_result
except ImportError:  # (an older tree)
    validate_result = None
spent = {"parse": 0.0, "lookup": 0.0, "validation": 0.0}

def timed(module, name, stage):
    inner = getattr(module, name)
    def wrapper(*args, **kwargs):
        t = time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            spent[stage] += time.process_time() - t
    setattr(module, name, wrapper)

timed(tr, "parse_item_citation", "parse")
timed(mr, "resolve", "lookup")
timed(mr, "validate_family" if hasattr(mr, "validate_family") else "validate", "validation")
lines = Path(sys.argv[2]).read_bytes().splitlines()
items = [Item(d["id"], d, "workload", n) for n, d in enumerate(map(orjson.loads, lines), 1)]
task = tr.ReferencesTask(WorldIndex.open(Path(sys.argv[1])))
check = out = 0.0
for it in items:
    t0 = time.process_time()
    line = task.check(it)
    t1 = time.process_time()
    if validate_result is not None and line.result is not None:
        validate_result("references", line.result)
    orjson.dumps(line.to_dict())
    out += time.process_time() - t1
    check += t1 - t0
us = 1e6 / len(items)
split = {k: round(v * us, 1) for k, v in spent.items()}
split["other"] = round((check - sum(spent.values())) * us, 1)  # abstention, merging, details
split["output"] = round(out * us, 1)  # schema check and JSON of the line
split["total"] = round((check + out) * us, 1)
print(json.dumps(split))
"""


@dataclass
class Tree:
    """A version of citejudge to run: the current tree or an exported revision."""

    name: str
    src: Path
    env: dict[str, str]


def _export(rev: str, dest: Path) -> Tree:
    """``git archive`` of ``rev`` into ``dest``, its C module built in place when it has one."""
    dest.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", rev], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    env = dict(os.environ, PYTHONPATH=str(dest / "src"))
    if (dest / "src" / "citejudge" / "_native.c").is_file():
        built = subprocess.run(
            [sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
            cwd=dest,
            capture_output=True,
        )
        if built.returncode:  # the same results at Python speed
            env["CITEJUDGE_NO_NATIVE"] = "1"
    return Tree(rev, dest / "src", env)


def write_workload(shared: Path, n: int, path: Path) -> int:
    """``n`` citations rendered from the real works (seeds 0, 1, ... of render_citations), ids r0.."""
    sys.path.insert(0, str(HERE))
    from render_citations import generate_items, load_works

    works = load_works(shared / "openalex" / "works.jsonl")
    rows: list[bytes] = []
    seed = 0
    while len(rows) < n:
        for it in generate_items(works, seed=seed):
            if len(rows) == n:
                break
            rows.append(orjson.dumps({**it, "id": f"r{len(rows)}"}))
        seed += 1
    path.write_bytes(b"\n".join(rows) + b"\n")
    return len(rows)


def _run(tree: Tree, args: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process and its children) of the tree's CLI."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _CLI, *args], env=tree.env, capture_output=True, text=True
    )
    wall = time.perf_counter() - t
    if done.returncode:
        tail = "\n".join(done.stderr.strip().splitlines()[-10:])
        raise SystemExit(f"{tree.name}: citejudge {' '.join(args[:2])} failed:\n{tail}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _verdicts(path: Path) -> dict[str, str]:
    """Item id → its reference-grounding verdict as written (or the error kind)."""
    out = {}
    for raw in path.read_bytes().splitlines():
        d = orjson.loads(raw)
        res = d.get("result")
        out[d["id"]] = res["reference_grounding"] if res else f"error: {d['error']['kind']}"
    return out


def _diff(
    items: dict[str, dict[str, Any]], base: dict[str, str], cur: dict[str, str], show: int
) -> dict[str, Any]:
    """Items whose verdict label (Yes/No/...) differs between two versions, by change and fault."""
    flips = [k for k in cur if base.get(k, "").split(".", 1)[0] != cur[k].split(".", 1)[0]]
    by: Counter[str] = Counter()
    for k in flips:
        it = items[k]
        change = f"{base.get(k, '').split('.', 1)[0]} -> {cur[k].split('.', 1)[0]}"
        by[f"{change} ({it.get('fault') or 'faithful'}, expected {it.get('expect')})"] += 1
    flipped = set(flips)
    reworded = sum(1 for k in cur if k not in flipped and base.get(k) != cur[k])
    return {
        "items": len(cur),
        "same_verdict": len(cur) - len(flips),
        "same_verdict_other_explanation": reworded,
        "changed": len(flips),
        "changes": dict(by.most_common()),
        "examples": [
            {
                "id": k,
                "work": items[k].get("work_id"),
                "style": items[k].get("style"),
                "fault": items[k].get("fault"),
                "before": base.get(k, "")[:300],
                "after": cur[k][:300],
            }
            for k in flips[:show]
        ],
    }


def run_throughput(
    shared: Path,
    baselines: list[str],
    *,
    citations: int,
    rounds: int,
    workers: int,
    show: int,
) -> dict[str, Any]:
    """Whole-process refs/s of the current tree and each baseline revision, in turns."""
    with tempfile.TemporaryDirectory() as tmp_s:
        tmp = Path(tmp_s)
        items_path = tmp / "workload.jsonl"
        n = write_workload(shared, citations, items_path)
        items = {d["id"]: d for d in map(orjson.loads, items_path.read_bytes().splitlines())}
        trees = [Tree("current", REPO / "src", dict(os.environ, PYTHONPATH=str(REPO / "src")))]
        trees += [_export(rev, tmp / f"rev{i}") for i, rev in enumerate(baselines)]
        world = shared / "openalex" / "works.jsonl"
        for i, tree in enumerate(trees):  # each version builds its own index
            _run(tree, ["index", "build", str(world), "--index", str(tmp / f"idx{i}"), "--quiet"])
        runs: dict[str, list[dict[str, float]]] = {t.name: [] for t in trees}
        for r in range(rounds):
            order = list(enumerate(trees))
            for i, tree in order if r % 2 == 0 else order[::-1]:
                out = tmp / f"out{i}.jsonl"
                args = ["check", "references", str(items_path), "--index", str(tmp / f"idx{i}")]
                wall, cpu = _run(tree, [*args, "--out", str(out), "--no-llm", "-q",
                                        "--workers", str(workers)])  # fmt: skip
                runs[tree.name].append(
                    {"refs_per_s": round(n / wall, 1), "cpu_us_per_ref": round(1e6 * cpu / n, 1)}
                )
                sys.stderr.write(f"round {r + 1}: {tree.name} {n / wall:,.0f} citations/s\n")
        splits = {}
        for i, tree in enumerate(trees):
            done = subprocess.run(
                [sys.executable, "-c", _SPLIT, str(tmp / f"idx{i}"), str(items_path)],
                env=tree.env,
                capture_output=True,
                text=True,
            )
            splits[tree.name] = (
                json.loads(done.stdout.strip().splitlines()[-1])
                if done.returncode == 0
                else {"error": done.stderr.strip().splitlines()[-1:]}
            )
        current = _verdicts(tmp / "out0.jsonl")
        best = {k: max(x["refs_per_s"] for x in v) for k, v in runs.items()}
        return {
            "workload": {
                "citations": n,
                "source": "scripts/render_citations.py over ../shared/data/openalex/works.jsonl "
                "(seeds 0, 1, ...), faithful and faulted, every style",
                "index": "the 492 works of ../shared/data/openalex/works.jsonl",
                "command": f"citejudge check references WORKLOAD --index INDEX --out OUT "
                f"--no-llm -q --workers {workers} (whole process, versions in turns)",
            },
            "rounds": runs,
            "best_refs_per_s": best,
            "current_over_baseline": {
                t.name: {
                    "best": round(best["current"] / best[t.name], 3),
                    "per_round": [
                        round(a["refs_per_s"] / b["refs_per_s"], 3)
                        for a, b in zip(runs["current"], runs[t.name], strict=True)
                    ],
                }
                for t in trees[1:]
            },
            "us_per_citation_single_process": splits,
            "verdicts_against": {
                t.name: _diff(items, _verdicts(tmp / f"out{i}.jsonl"), current, show)
                for i, t in enumerate(trees)
                if i
            },
        }


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--shared", type=Path, default=DEFAULT_SHARED, help="path of shared/data")
    ap.add_argument("--errors", type=Path, help="write misclassified HALLMARK items here (JSONL)")
    ap.add_argument("--skip-curated", action="store_true")
    ap.add_argument("--skip-hallmark", action="store_true")
    ap.add_argument(
        "--throughput", action="store_true", help="measure reference throughput (see above)"
    )
    ap.add_argument(
        "--baseline",
        action="append",
        default=[],
        metavar="REV",
        help="a git revision to measure in turns with the current tree (repeatable; implies "
        "--throughput)",
    )
    ap.add_argument("--citations", type=int, default=12_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--show", type=int, default=20, help="changed verdicts listed per baseline")
    args = ap.parse_args()
    logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)
    if not args.shared.is_dir():
        sys.stderr.write(f"shared data not found at {args.shared}\n")
        return 2
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        if not args.skip_hallmark:
            out["hallmark"] = run_hallmark(args.shared, Path(tmp) / "hallmark.index", args.errors)
            # a stated id / a cited venue the records cannot confirm is a mismatch
            for flag in ("strict_identifiers", "strict_venues"):
                strict = run_hallmark(
                    args.shared, Path(tmp) / "hallmark.index", None, build=False, **{flag: True}
                )
                out[f"hallmark_{flag}"] = {
                    k: strict[k] for k in ("detect_hallucinated", "per_type_accuracy")
                }
        if not args.skip_curated:
            out["curated"] = run_curated(args.shared, Path(tmp) / "openalex.index")
    if args.throughput or args.baseline:
        out["throughput"] = run_throughput(
            args.shared,
            args.baseline,
            citations=args.citations,
            rounds=args.rounds,
            workers=args.workers,
            show=args.show,
        )
    print(json.dumps(out, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
