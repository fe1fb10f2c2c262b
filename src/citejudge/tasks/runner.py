"""``citejudge check``: read items, run a task over them (in parallel), write results in order.

The deterministic stage runs in worker processes that each open the index read-only. Every
item yields exactly one output line, in input order; an item that fails becomes an error
record and the run goes on. A manifest (``OUT.manifest.json``) records what makes the run
reproducible.
"""

from __future__ import annotations

import datetime as _dt
import multiprocessing as mp
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from citejudge.errors import ConfigError
from citejudge.hashing import code_revision, file_sha256, package_versions, sha256_text
from citejudge.io import Item, ItemError, OutputLine, ResultWriter, read_items
from citejudge.schema import schema_hash, validate_result
from citejudge.tasks.options import CheckOptions

__all__ = ["CheckOptions", "CheckSummary", "TaskWorker", "judge_lines", "process_items", "run_check", "used_model"]

TASKS = ("references", "rag-audit", "citation-eval")


@dataclass
class CheckSummary:
    """Counts of one run, printed on stderr and stored in the manifest."""

    items: int = 0
    errors: int = 0
    decided_without_model: int = 0
    verdicts: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    over_budget: bool = False

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for the manifest."""
        return {"items": self.items, "errors": self.errors, "decided_without_model": self.decided_without_model,
                "verdicts": dict(sorted(self.verdicts.items())), "seconds": round(self.seconds, 3)}


class TaskWorker:
    """Per-process state of a task's deterministic stage (e.g. the index opened read-only)."""

    def __init__(self, opts: CheckOptions) -> None:
        from citejudge.tasks.registry import get_task

        self.task_name = opts.task
        self.check = get_task(opts.task).make_checker(opts)

    def __call__(self, item: Item) -> OutputLine:
        """One output line for one item; unexpected exceptions become error records."""
        try:
            line = self.check(item)
        except Exception as exc:
            return OutputLine(item.id, self.task_name, None, {},
                              {"kind": "internal", "message": f"{type(exc).__name__}: {exc}",
                               "file": item.file, "line": item.line})
        return _validated(self.task_name, item, line)


def _validated(task: str, item: Item, line: OutputLine) -> OutputLine:
    """The line, or an error record if its result does not validate against the task's schema."""
    if line.result is not None:
        problems = validate_result(task, line.result)
        if problems:
            return OutputLine(item.id, task, None, line.details,
                              {"kind": "schema", "message": "; ".join(problems), "file": item.file,
                               "line": item.line})
    return line


_WORKER: TaskWorker | None = None


def _init_worker(opts: CheckOptions) -> None:  # pragma: no cover - child process
    global _WORKER
    _WORKER = TaskWorker(opts)


def _work(item: Item) -> bytes:  # pragma: no cover - child process
    if _WORKER is None:
        raise RuntimeError("worker not initialised")
    return orjson.dumps(_WORKER(item).to_dict())


def _error_line(task: str, err: ItemError) -> OutputLine:
    return OutputLine(err.id, task, None, {}, err.as_error())


def process_items(opts: CheckOptions, items: list[Item | ItemError], stage: Any = None) -> Iterator[OutputLine]:
    """Output lines for ``items`` in input order: deterministic stage, then the judged stage."""
    lines = _iter_lines(opts, items)
    return judge_lines(lines, items, stage, opts.batch_size) if stage is not None else lines


def _iter_lines(opts: CheckOptions, items: list[Item | ItemError]) -> Iterator[OutputLine]:
    """Output lines in input order; items are processed in a process pool when it pays."""
    from citejudge.tasks.registry import get_task

    get_task(opts.task).validate_options(opts)
    good = [it for it in items if isinstance(it, Item)]
    workers = max(1, opts.workers)
    if workers == 1 or len(good) < 200:
        worker = TaskWorker(opts)
        for it in items:
            yield _error_line(opts.task, it) if isinstance(it, ItemError) else worker(it)
        return
    ctx = mp.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    with ctx.Pool(workers, initializer=_init_worker, initargs=(opts,)) as pool:
        results = pool.imap(_work, good, chunksize=64)
        for it in items:
            if isinstance(it, ItemError):
                yield _error_line(opts.task, it)
            else:
                d = orjson.loads(next(results))
                yield OutputLine(d["id"], d["task"], d["result"], d["details"], d["error"])


def judge_lines(lines: Iterator[OutputLine], items: list[Item | ItemError], stage: Any,
            batch_size: int) -> Iterator[OutputLine]:
    """Deterministic lines in, judged lines out, in order; the judge sees a batch at a time."""
    buf: list[tuple[Item, OutputLine]] = []
    order: list[OutputLine] = []
    for it, line in zip(items, lines, strict=True):
        order.append(line)
        if isinstance(it, Item):
            buf.append((it, line))
        if len(buf) >= batch_size:
            stage.apply(buf)
            yield from _revalidated(order, buf)
            buf, order = [], []
    if buf:
        stage.apply(buf)
    yield from _revalidated(order, buf)


def _revalidated(order: list[OutputLine], pairs: list[tuple[Item, OutputLine]]) -> Iterator[OutputLine]:
    """Judged lines are checked against the schema again (the judged stage changed them)."""
    items = {id(ln): it for it, ln in pairs}
    for ln in order:
        it = items.get(id(ln))
        yield _validated(ln.task, it, ln) if it is not None else ln


def used_model(details: dict[str, Any]) -> bool:
    """Whether the model contributed to a line with these ``details`` (else code alone decided it)."""
    if details.get("judged") is True:  # rag-audit, citation-eval
        return True
    return bool((details.get("content") or {}).get("subclaims")) or "judge" in (
        details.get("abstention_check") or {})


def _verdict_key(task: str, line: OutputLine) -> str:
    if line.result is None:
        return "error"
    if task == "references":
        return "reference:" + str(line.result.get("reference_grounding", "")).split(".", 1)[0]
    return "done"


def _manifest(opts: CheckOptions, run_id: str, started: str) -> dict[str, Any]:
    index_meta: dict[str, Any] | None = None
    if opts.index is not None and (opts.index / "meta.json").exists():
        meta_bytes = (opts.index / "meta.json").read_bytes()
        index_meta = {"path": str(opts.index), "meta_sha256": sha256_text(meta_bytes),
                      "meta": orjson.loads(meta_bytes)}
    return {
        "run_id": run_id, "command": "check", "task": opts.task, "started_utc": started, "finished_utc": None,
        "status": "running", "code": code_revision(), "versions": package_versions(),
        "options": {"input": str(opts.input), "out": str(opts.out) if opts.out else "-",
                    "index": str(opts.index) if opts.index else None, "model": opts.model, "no_llm": opts.no_llm,
                    "workers": opts.workers, "fail_on_error": opts.fail_on_error,
                    "today_year": opts.today_year, "strict_identifiers": opts.strict_identifiers},
        "input_sha256": file_sha256(opts.input), "schema_sha256": schema_hash(opts.task),
        "index": index_meta,
    }


def _write_manifest(path: Path | None, manifest: dict[str, Any]) -> None:
    if path is None:
        return
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(orjson.dumps(manifest, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
    tmp.replace(path)


def _over_budget(errors: int, items: int, budget: bool | float) -> bool:
    if budget is False or items == 0:
        return False
    if budget is True:
        return errors > 0
    return errors / items > float(budget)


def run_check(opts: CheckOptions) -> CheckSummary:
    """Run one task over an input file; write results and a manifest; return the counts."""
    if opts.task not in TASKS:
        raise ConfigError(f"unknown task {opts.task!r}", hint=f"one of: {', '.join(TASKS)}")
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    console = Console(stderr=True, highlight=False)
    run_id = uuid.uuid4().hex[:12]
    started = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
    manifest_path = opts.out.with_name(opts.out.name + ".manifest.json") if opts.out else None
    manifest = _manifest(opts, run_id, started)
    _write_manifest(manifest_path, manifest)

    items = list(read_items(opts.input))
    summary = CheckSummary(items=len(items))
    from citejudge.tasks.registry import get_task

    stage = None if opts.no_llm else get_task(opts.task).make_stage(opts, manifest)
    _write_manifest(manifest_path, manifest)
    t0 = time.perf_counter()
    stream = None if opts.out else sys.stdout.buffer
    with ResultWriter(opts.out, stream) as writer, Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
        TextColumn("{task.fields[rate]} items/s"), TextColumn("errors {task.fields[errors]}"),
        TimeRemainingColumn(), console=console, disable=opts.quiet, transient=True,
    ) as progress:
        bar = progress.add_task(opts.task, total=len(items), rate="-", errors=0)
        for n, line in enumerate(process_items(opts, items, stage), start=1):
            writer.write(line)
            key = _verdict_key(opts.task, line)
            summary.verdicts[key] += 1
            if line.error is not None:
                summary.errors += 1
            elif not used_model(line.details):
                summary.decided_without_model += 1
            if n % 50 == 0 or n == len(items):
                rate = n / max(time.perf_counter() - t0, 1e-9)
                progress.update(bar, completed=n, rate=f"{rate:,.0f}", errors=summary.errors)
    summary.seconds = time.perf_counter() - t0
    if stage is not None and "judge" in manifest:
        manifest["judge"]["stats"] = dict(stage.judge.stats)
    summary.over_budget = _over_budget(summary.errors, summary.items, opts.fail_on_error)
    manifest.update(status="failed" if summary.over_budget else "finished",
                    finished_utc=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
                    counts=summary.to_dict())
    _write_manifest(manifest_path, manifest)
    if not opts.quiet:
        _print_summary(console, opts, summary)
    return summary


def _print_summary(console: Any, opts: CheckOptions, s: CheckSummary) -> None:
    parts = ", ".join(f"{k.split(':', 1)[-1]}: {v}" for k, v in sorted(s.verdicts.items()))
    rate = s.items / s.seconds if s.seconds > 0 else 0.0
    console.print(f"{opts.task}: {s.items} items in {s.seconds:.2f}s ({rate:,.0f}/s); {parts}; "
                  f"errors {s.errors}" + (" [red](over the error budget)[/red]" if s.over_budget else ""))
    if opts.out:
        console.print(f"results: {opts.out}")
