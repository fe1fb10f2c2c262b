"""``citejudge run``: resumable, reproducible batch runs in a run directory.

The run directory holds ``results.jsonl`` (one line per input item, input order),
``errors.jsonl``, ``manifest.json`` (written first, finalised last), ``report.html`` and the
judge request cache. Lines are appended and flushed as they complete; each line is written
with one ``write`` call and a failed write is rolled back, so the file never ends in a partial
line that was accepted. ``--resume`` keeps every complete line, drops a corrupted last line,
and processes only the remaining items; judge answers already paid for come from the cache.
A lock file refuses a second run on the same directory.
"""

from __future__ import annotations

import datetime as _dt
import errno
import fcntl
import glob
import os
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from citejudge.errors import CitejudgeError, ConfigError
from citejudge.hashing import code_revision, file_sha256, package_versions, sha256_text
from citejudge.io import Item, ItemError, OutputLine, dumps_line, read_items
from citejudge.run.config import RunConfig
from citejudge.schema import schema_hash
from citejudge.tasks.runner import CheckOptions, CheckSummary, process_items, used_model

__all__ = ["RunError", "RunSummary", "expand_inputs", "read_done", "run"]

RESULTS, ERRORS, MANIFEST, LOCK = "results.jsonl", "errors.jsonl", "manifest.json", "run.lock"


class RunError(CitejudgeError):
    """The run cannot start or go on (lock held, disk full, inputs changed)."""

    exit_code = 2


@dataclass
class RunSummary(CheckSummary):
    """What a run did (also stored in the manifest): a check's counts plus where it resumed."""

    resumed_from: int = 0
    processed: int = 0

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for the manifest."""
        return {**super().to_dict(), "resumed_from": self.resumed_from, "processed": self.processed}


def expand_inputs(patterns: list[str]) -> list[Path]:
    """Input shards: every file matching the patterns, sorted, without repeats."""
    out: list[Path] = []
    for pat in patterns:
        matches = sorted(glob.glob(pat)) if any(c in pat for c in "*?[") else [pat]
        for m in matches:
            p = Path(m)
            if p not in out:
                out.append(p)
    return out


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def _atomic_json(path: Path, obj: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
    os.replace(tmp, path)


def read_done(path: Path) -> tuple[list[dict[str, Any]], bool]:
    """Complete result lines of a results file; truncates a corrupted tail. Returns (lines, repaired)."""
    if not path.exists():
        return [], False
    data = path.read_bytes()
    lines: list[dict[str, Any]] = []
    good_end = 0
    pos = 0
    while pos < len(data):
        nl = data.find(b"\n", pos)
        if nl < 0:
            break  # no newline: an unfinished write
        try:
            obj = orjson.loads(data[pos:nl])
            if not isinstance(obj, dict) or "id" not in obj:
                raise ValueError("not a result line")
        except (orjson.JSONDecodeError, ValueError):
            break
        lines.append(obj)
        pos = good_end = nl + 1
    repaired = good_end != len(data)
    if repaired:
        with path.open("r+b") as fh:
            fh.truncate(good_end)
    return lines, repaired


class _Appender:
    """Appends lines with one write each; rolls back a failed write (e.g. disk full)."""

    def __init__(self, path: Path) -> None:
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self.size = os.fstat(self.fd).st_size  # this process is the only writer (run lock)

    def write(self, data: bytes) -> None:
        start = self.size
        try:
            n = os.write(self.fd, data)
            if n != len(data):
                raise OSError(errno.ENOSPC, "short write")
            self.size += n
        except OSError as exc:
            os.ftruncate(self.fd, start)
            raise RunError(f"cannot write results: {exc.strerror or exc}",
                           hint="free disk space, then rerun with --resume") from exc

    def sync(self) -> None:
        os.fsync(self.fd)

    def close(self) -> None:
        os.close(self.fd)


def _lock(out: Path) -> IO[str]:
    out.mkdir(parents=True, exist_ok=True)
    fh = (out / LOCK).open("a+")
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        fh.close()
        raise RunError(f"another citejudge run is using {out}",
                       hint="wait for it to finish, or give this run another 'out' directory") from exc
    fh.seek(0)
    fh.truncate()
    fh.write(f"{os.getpid()}\n")
    fh.flush()
    return fh


def _input_identity(shards: list[Path]) -> list[dict[str, Any]]:
    return [{"path": str(p), "sha256": file_sha256(p) if p.is_file() else None} for p in shards]


def _options(cfg: RunConfig, out: Path) -> CheckOptions:
    return CheckOptions(
        task=cfg.task, input=Path(cfg.input[0]), out=out / RESULTS, index=cfg.index,
        model=None if cfg.no_llm else cfg.model, no_llm=cfg.no_llm, workers=cfg.workers, quiet=True,
        fail_on_error=cfg.fail_on_error, fulltext_dir=cfg.fulltext_dir, no_gold=cfg.no_gold,
        today_year=cfg.today_year, strict_identifiers=cfg.strict_identifiers, batch_size=cfg.batch_size,
        cache_dir=cfg.cache_dir or out / "cache",
    )


def _verdict(task: str, line: dict[str, Any]) -> str:
    res = line.get("result")
    if res is None:
        return "error"
    if task == "references":
        return str(res.get("reference_grounding", "")).split(".", 1)[0]
    if task == "rag-audit":
        return str(res.get("verdict"))
    return "evaluated"


def _load_items(shards: list[Path]) -> list[Item | ItemError]:
    items: list[Item | ItemError] = []
    for n, shard in enumerate(shards):
        for it in read_items(shard):
            # Ids must be unique across shards: prefix generated ids with the shard number.
            if isinstance(it, Item) and it.id.startswith("line-") and len(shards) > 1:
                it.id = f"{n}:{it.id}"
            items.append(it)
    return items


def run(cfg: RunConfig, *, resume: bool = False, quiet: bool = False, config_path: Path | None = None) -> RunSummary:
    """Execute (or resume) the run ``cfg`` describes."""
    out = cfg.out
    lock = _lock(out)
    try:
        return _run_locked(cfg, out, resume=resume, quiet=quiet, config_path=config_path)
    finally:
        lock.close()


def _run_locked(cfg: RunConfig, out: Path, *, resume: bool, quiet: bool, config_path: Path | None) -> RunSummary:
    results_path, manifest_path = out / RESULTS, out / MANIFEST
    previous: dict[str, Any] | None = None
    if manifest_path.exists():
        previous = orjson.loads(manifest_path.read_bytes())
    if results_path.exists() and results_path.stat().st_size > 0 and not resume:
        raise RunError(f"{out} already holds results", hint="add --resume to continue it, or choose another 'out'")
    if resume and previous is not None and previous.get("config_sha256") != cfg.sha256():
        raise RunError(f"the config differs from the one {out} was started with",
                       hint="resume with the same config, or start a new run directory")

    shards = expand_inputs(cfg.input)
    inputs = _input_identity(shards)
    missing = [i["path"] for i in inputs if i["sha256"] is None]
    if previous is not None and resume:
        before = {i["path"]: i["sha256"] for i in previous.get("input", {}).get("files", [])}
        gone = [p for p in before if p not in {i["path"] for i in inputs} or p in missing]
        changed = [i["path"] for i in inputs if i["path"] in before and i["sha256"] not in (None, before[i["path"]])]
        if gone or changed:
            raise RunError("input shards changed since the run started: "
                           + "; ".join([f"missing {p}" for p in gone] + [f"changed {p}" for p in changed]),
                           hint="restore the original inputs, or start a new run directory")
    if missing:
        raise RunError(f"input shard(s) not found: {', '.join(missing)}", hint="check 'input' in the config")
    if not shards:
        raise ConfigError(f"no input files match {cfg.input}", hint="check 'input' in the config")

    opts = _options(cfg, out)
    from citejudge.tasks.registry import get_task

    spec = get_task(cfg.task)
    spec.validate_options(opts)
    items = _load_items(shards)
    done, repaired = read_done(results_path) if resume else ([], False)
    if len(done) > len(items) or any(d["id"] != _item_id(it) for d, it in zip(done, items, strict=False)):
        raise RunError(f"{results_path} does not match the inputs (ids differ)",
                       hint="start a new run directory")

    manifest = previous if (resume and previous) else {}
    manifest.update({
        "run_id": manifest.get("run_id") or uuid.uuid4().hex[:12],
        "started_utc": manifest.get("started_utc") or _now(),
        "finished_utc": None, "status": "running", "task": cfg.task,
        "code": code_revision(), "versions": package_versions(),
        "config": cfg.model_dump(mode="json"), "config_sha256": cfg.sha256(),
        "config_file": str(config_path) if config_path else None,
        "input": {"files": [{**i, "items": sum(1 for it in items if _file_of(it) == i["path"])} for i in inputs]},
        "seeds": {"sampling": cfg.sampling.seed if cfg.sampling else cfg.seed, "run": cfg.seed},
        "schema_sha256": schema_hash(cfg.task), "index": _index_identity(cfg.index), "executor": cfg.executor,
        "resumes": manifest.get("resumes", 0) + (1 if resume and previous else 0),
    })
    manifest.setdefault("judge", None)
    _atomic_json(manifest_path, manifest)

    stage = None if cfg.no_llm else spec.make_stage(opts, manifest)
    if stage is not None and cfg.sampling is not None:
        stage.judge.sampling = cfg.sampling
        manifest["judge"]["sampling"] = cfg.sampling.model_dump(mode="json")
    _atomic_json(manifest_path, manifest)

    summary = RunSummary(items=len(items), resumed_from=len(done))
    for d in done:
        _count(summary, cfg.task, d)
    todo = items[len(done):]
    t0 = time.perf_counter()
    appender = _Appender(results_path)
    try:
        stream = _execute(cfg, opts, todo, stage, out)
        _consume(stream, appender, summary, cfg, quiet, len(items), len(done), t0)
    finally:
        appender.sync()
        appender.close()
    summary.seconds = time.perf_counter() - t0
    final, _ = read_done(results_path)
    (out / ERRORS).write_bytes(b"".join(dumps_line(x) for x in final if x.get("error") is not None))
    summary.over_budget = _over_budget(summary.errors, summary.items, cfg.fail_on_error)
    manifest.update(status="failed" if summary.over_budget else "finished", finished_utc=_now(),
                    counts=summary.to_dict(), repaired_tail=repaired,
                    timings={"seconds_this_session": round(summary.seconds, 3)})
    if stage is not None:
        manifest["judge"]["stats"] = dict(stage.judge.stats)
        st = stage.judge.stats
        manifest["tokens"] = ({"prompt": st["prompt_tokens"], "output": st.get("output_tokens", 0)}
                              if "prompt_tokens" in st else None)
    _atomic_json(manifest_path, manifest)
    _write_report(out, cfg)
    return summary


def _item_id(it: Item | ItemError) -> str:
    return it.id


def _file_of(it: Item | ItemError) -> str:
    return it.file


def _index_identity(index: Path | None) -> dict[str, Any] | None:
    if index is None or not (index / "meta.json").exists():
        return None
    meta = (index / "meta.json").read_bytes()
    return {"path": str(index), "meta_sha256": sha256_text(meta), "meta": orjson.loads(meta)}


def _execute(cfg: RunConfig, opts: CheckOptions, todo: list[Item | ItemError], stage: Any,
             out: Path) -> Iterator[OutputLine]:
    if cfg.executor == "ray":
        from citejudge.run.ray_executor import execute_ray

        return execute_ray(cfg, opts, todo, stage, out)
    return process_items(opts, todo, stage)


def _count(summary: RunSummary, task: str, line: dict[str, Any]) -> None:
    summary.verdicts[_verdict(task, line)] += 1
    if line.get("error") is not None:
        summary.errors += 1
    elif not used_model(line.get("details") or {}):
        summary.decided_without_model += 1


def _consume(stream: Iterator[OutputLine], appender: _Appender, summary: RunSummary, cfg: RunConfig,
             quiet: bool, total: int, done: int, t0: float) -> None:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    console = Console(stderr=True, highlight=False)
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[rate]} items/s"), TextColumn("no model: {task.fields[nomodel]}"),
                  TextColumn("errors: {task.fields[errors]}"), TimeRemainingColumn(),
                  console=console, disable=quiet or not sys.stderr.isatty(), transient=False) as progress:
        bar = progress.add_task(cfg.task, total=total, completed=done, rate="-", nomodel=0, errors=0)
        last_log = last_update = time.perf_counter()
        for n, line in enumerate(stream, start=1):
            d = line.to_dict()
            appender.write(dumps_line(d))
            summary.processed += 1
            _count(summary, cfg.task, d)
            now = time.perf_counter()
            if now - last_update < 0.1 and done + n < total:  # redraws are throttled, counts are not
                continue
            last_update = now
            rate = n / max(now - t0, 1e-9)
            progress.update(bar, completed=done + n, rate=f"{rate:,.1f}", nomodel=summary.decided_without_model,
                            errors=summary.errors)
            if not quiet and not sys.stderr.isatty() and now - last_log > 10:
                console.print(f"{cfg.task}: {done + n}/{total} items, {rate:,.1f} items/s, "
                              f"decided without model {summary.decided_without_model}, errors {summary.errors}")
                last_log = now
    if not quiet:
        console.print(f"{cfg.task}: {summary.items} items ({summary.resumed_from} from before, "
                      f"{summary.processed} now); errors {summary.errors}; decided without a model "
                      f"{summary.decided_without_model}; results in {cfg.out / RESULTS}")


def _over_budget(errors: int, items: int, budget: bool | float) -> bool:
    if budget is False or items == 0:
        return False
    if budget is True:
        return errors > 0
    return errors / items > float(budget)


def _write_report(out: Path, cfg: RunConfig) -> None:
    try:
        from citejudge.run.report import build_report
    except ImportError:  # pragma: no cover - report module optional at this stage
        return
    try:
        build_report(out, cfg.gold, out / "report.html", gold_map=cfg.gold_map)
    except Exception as exc:
        import logging

        logging.getLogger(__name__).warning("could not write the report: %s", exc)
