"""One pipeline for ``citejudge check`` and ``citejudge run``.

Both commands run the same flow (see docs/ARCHITECTURE.md)::

    options (RunConfig, validated once) → task.validate_options → read items (input shards)
      → manifest (written first) → stages (deterministic; judged when a model is used)
      → executor (local process pool, or Ray) → ordered writer (one line per item, input order)
      → counts, error budget → manifest (finalised last)

``check`` is that flow with no directory ceremony: one input file, results to a file (or
stdout), the manifest beside the file (``OUT.manifest.json``), the judge cache beside it.
``run`` adds the run directory: a lock, ``--resume`` (complete lines are kept, a corrupted last
line is dropped, only the remaining items are processed; judge answers already paid for come
from the cache), ``errors.jsonl`` and ``report.html``. Results are byte-identical between the
two, and between executors.
"""

from __future__ import annotations

import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from pydantic import ValidationError

from citejudge.errors import ConfigError
from citejudge.hashing import code_revision, package_versions
from citejudge.io import Item, ItemError, OutputLine, dumps_line
from citejudge.run.config import RunConfig
from citejudge.run.manifest import (
    CheckOptionsRecord,
    CodeRevision,
    Counts,
    InputFile,
    Inputs,
    RayRecord,
    RunManifest,
    Seeds,
    Timings,
    Tokens,
    index_identity,
    input_files,
    now_utc,
)
from citejudge.run.stages import Executor, Stages, build_stages, execute_local
from citejudge.run.store import (
    Appender,
    LineSink,
    RunError,
    StreamSink,
    expand_inputs,
    load_items,
    lock_run_dir,
    read_done,
)
from citejudge.schema import schema_hash
from citejudge.tasks.protocol import TASKS, TaskSpec, load_task

if TYPE_CHECKING:  # (documents load only when a run reads documents; rich when it shows progress)
    from rich.progress import Progress

    from citejudge.documents import Document, DocumentError

__all__ = [
    "DOC_ITEMS",
    "ERRORS",
    "MANIFEST",
    "RESULTS",
    "RunSummary",
    "check_items",
    "run",
    "run_check",
    "used_model",
]

RESULTS, ERRORS, MANIFEST = "results.jsonl", "errors.jsonl", "manifest.json"
#: The items extracted from documents (a ``document`` run; ``check document``: ``OUT.items.jsonl``).
DOC_ITEMS = "items.jsonl"


@dataclass
class RunSummary:
    """What a check or run did: printed on stderr, stored in the manifest (``counts``)."""

    items: int = 0
    errors: int = 0
    decided_without_model: int = 0
    verdicts: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    over_budget: bool = False
    resumed_from: int = 0
    processed: int = 0
    startup_seconds: float | None = None

    def count(self, spec: TaskSpec, line: dict[str, Any]) -> None:
        """Count one output line (as written): its verdict, whether it failed, whether a model was needed."""
        self.verdicts[spec.verdict(line.get("result"))] += 1
        if line.get("error") is not None:
            self.errors += 1
        elif not used_model(line.get("details") or {}):
            self.decided_without_model += 1

    def counts(self) -> Counts:
        """The manifest's ``counts``."""
        return Counts(
            items=self.items,
            errors=self.errors,
            decided_without_model=self.decided_without_model,
            verdicts=dict(sorted(self.verdicts.items())),
            seconds=round(self.seconds, 3),
            resumed_from=self.resumed_from,
            processed=self.processed,
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of :meth:`counts` (``citejudge run`` prints it)."""
        return self.counts().model_dump(mode="json")


def used_model(details: dict[str, Any]) -> bool:
    """Whether the model contributed to a line with these ``details`` (else code alone decided it)."""
    if details.get("judged") is True:  # rag-audit, citation-eval
        return True
    return bool((details.get("content") or {}).get("subclaims")) or "judge" in (
        details.get("abstention_check") or {}
    )


def _over_budget(errors: int, items: int, budget: bool | float) -> bool:
    if budget is False or items == 0:
        return False
    if budget is True:
        return errors > 0
    return errors / items > float(budget)


# ------------------------------------------------------------------------------ the shared flow


def _manifest(
    command: str,
    cfg: RunConfig,
    shards: list[Path],
    items: list[Item | ItemError],
    *,
    previous: dict[str, Any] | None = None,
    config_file: Path | None = None,
    inputs: list[InputFile] | None = None,
) -> RunManifest:
    """The manifest at the start of a session (a resumed run keeps its id, start time and extra keys).

    ``inputs``: the input files when the caller has hashed them already.
    """
    if inputs is None:
        inputs = input_files(_document_inputs(cfg, shards))
    known = {f.path for f in inputs}

    def owner(file: str) -> str:  # a document inside an archive counts for the archive
        if file in known:
            return file
        return next((f.path for f in inputs if file.startswith(f.path + "/")), file)

    per_file = Counter(owner(it.file) for it in items)
    files = [f.model_copy(update={"items": per_file[f.path]}) for f in inputs]
    prev = previous or {}
    data = {
        **prev,
        "run_id": prev.get("run_id") or uuid.uuid4().hex[:12],
        "command": command,
        "started_utc": prev.get("started_utc") or now_utc(),
        "finished_utc": None,
        "status": "running",
        "task": cfg.task,
        "code": CodeRevision(**code_revision()),
        "versions": package_versions(),
        "config": cfg.model_dump(mode="json"),
        "config_sha256": cfg.sha256(),
        "config_file": str(config_file) if config_file else None,
        "input": Inputs(files=files),
        "seeds": Seeds(sampling=cfg.sampling.seed if cfg.sampling else cfg.seed, run=cfg.seed),
        "schema_sha256": schema_hash(cfg.task),
        "index": index_identity(cfg.index),
        "executor": cfg.executor,
        "resumes": prev.get("resumes", 0) + (1 if previous is not None else 0),
        "judge": prev.get("judge"),
    }
    try:
        return RunManifest.model_validate(data)
    except ValidationError as exc:  # only a previous manifest.json can be malformed
        raise RunError(
            f"the manifest of this run directory is not readable: {exc.errors()[0]['msg']}",
            hint="start a new run directory",
        ) from exc


def _document_inputs(cfg: RunConfig, shards: list[Path]) -> list[Path]:
    """The files a run reads: the shards, or for documents each document and what it reads.

    A folder stands for the documents under it; a LaTeX document also reads its parts, its
    .bib or .bbl.
    """
    if not cfg.document:
        return shards
    from citejudge.documents import document_files, read_along

    docs = document_files(shards)
    return [*docs, *read_along(docs)]


def _executor(cfg: RunConfig, shards_dir: Path | None, record: dict[str, Any]) -> Executor:
    """The configured executor; the Ray one fills ``record`` (the manifest's ``ray``)."""
    if cfg.executor != "ray":
        return execute_local

    def on_ray(stages: Stages, todo: list[Item | ItemError]) -> Iterator[OutputLine]:
        from citejudge.run import ray_executor

        return ray_executor.execute_ray(stages, todo, shards_dir, record=record)

    return on_ray


@dataclass
class _Session:
    """One session of the flow: what differs between ``check`` and ``run`` is in here."""

    cfg: RunConfig
    manifest: RunManifest
    manifest_path: Path | None
    open_sink: Callable[[], LineSink]
    cache_dir: Path
    shards_dir: Path | None
    quiet: bool
    collect: list[dict[str, Any]] | None = None  # the lines written (document input: summaries)


def _process(s: _Session, todo: list[Item | ItemError], summary: RunSummary) -> None:
    """Stages → executor → ordered writer → counts; the manifest is finalised (not written) here."""
    cfg, manifest = s.cfg, s.manifest
    manifest.write(s.manifest_path)
    stages = build_stages(cfg, s.cache_dir)
    if stages.judged is not None:
        manifest.judge = stages.judge_builder.description
    manifest.write(s.manifest_path)

    spec = TASKS[cfg.task]
    ray_record: dict[str, Any] = {}
    t0 = time.perf_counter()
    sink = s.open_sink()
    try:
        with _Progress(cfg.task, summary.items, summary.resumed_from, s.quiet) as bar:
            for line in _executor(cfg, s.shards_dir, ray_record)(stages, todo):
                if (
                    summary.startup_seconds is None
                ):  # the executor's start-up ends with its first line
                    summary.startup_seconds = time.perf_counter() - t0
                d = line.to_dict()
                sink.write(dumps_line(d))
                if s.collect is not None:
                    s.collect.append(d)
                summary.processed += 1
                summary.count(spec, d)
                bar.update(summary, t0)
    finally:
        sink.close()
    summary.seconds = time.perf_counter() - t0
    summary.over_budget = _over_budget(summary.errors, summary.items, cfg.fail_on_error)
    manifest.status = "failed" if summary.over_budget else "finished"
    manifest.finished_utc = now_utc()
    manifest.counts = summary.counts()
    manifest.timings = Timings(
        seconds_this_session=round(summary.seconds, 3),
        startup_s=None if summary.startup_seconds is None else round(summary.startup_seconds, 3),
    )
    if ray_record:
        manifest.ray = RayRecord(**ray_record)
    judge = stages.judge
    if judge is not None and manifest.judge is not None:
        manifest.judge = {**manifest.judge, "stats": dict(judge.stats)}
        st = judge.stats
        manifest.tokens = (
            Tokens(prompt=st["prompt_tokens"], output=st.get("output_tokens", 0))
            if "prompt_tokens" in st
            else None
        )


class _Progress:
    """Progress on stderr: a bar on a terminal, a line every 10 s otherwise; redraws are throttled."""

    def __init__(self, task: str, total: int, done: int, quiet: bool) -> None:
        self.task, self.total, self.done, self.quiet = task, total, done, quiet
        self.last_log = self.last_update = time.perf_counter()
        self.progress: Progress | None = None
        if quiet:  # (nothing to show: rich is not even imported)
            return
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        self.console = Console(stderr=True, highlight=False)
        self.tty = sys.stderr.isatty()
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]} items/s"),
            TextColumn("no model: {task.fields[nomodel]}"),
            TextColumn("errors: {task.fields[errors]}"),
            TimeRemainingColumn(),
            console=self.console,
            disable=not self.tty,
            transient=False,
        )
        self.bar = self.progress.add_task(
            task, total=total, completed=done, rate="-", nomodel=0, errors=0
        )

    def __enter__(self) -> _Progress:
        if self.progress is not None:
            self.progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.__exit__(None, None, None)

    def update(self, summary: RunSummary, t0: float) -> None:
        """Show the counts after one more line (at most every 0.1 s, and at the last line)."""
        if self.progress is None:
            return
        n = summary.processed
        now = time.perf_counter()
        if now - self.last_update < 0.1 and self.done + n < self.total:
            return
        self.last_update = now
        rate = n / max(now - t0, 1e-9)
        self.progress.update(
            self.bar,
            completed=self.done + n,
            rate=f"{rate:,.1f}",
            nomodel=summary.decided_without_model,
            errors=summary.errors,
        )
        if not self.quiet and not self.tty and now - self.last_log > 10:
            self.console.print(
                f"{self.task}: {self.done + n}/{self.total} items, {rate:,.1f} items/s, "
                f"decided without model {summary.decided_without_model}, errors {summary.errors}"
            )
            self.last_log = now


def _startup(summary: RunSummary) -> str:
    """``, start-up Xs`` for the summary line: the time until the executor's first result."""
    if summary.startup_seconds is None:
        return ""
    return f", start-up {summary.startup_seconds:.2f}s"


def _stderr() -> Any:
    from rich.console import Console

    return Console(stderr=True, highlight=False)


# ------------------------------------------------------------------------------ documents


def _read_inputs(
    cfg: RunConfig, shards: list[Path]
) -> tuple[list[Item | ItemError], list[Document | DocumentError] | None]:
    """Items of the input shards, or of the documents (and the documents) for ``document`` input."""
    if cfg.document is None:
        return load_items(shards), None
    from citejudge.documents import load_documents

    return load_documents(shards)


def _write_doc_items(path: Path, docs: list[Document | DocumentError]) -> None:
    """The extracted items of every readable document, one JSON line each (re-runnable with check)."""
    from citejudge.documents import Document, document_items

    with path.open("wb") as fh:
        for d in docs:
            if isinstance(d, Document):
                for it in document_items(d):
                    fh.write(dumps_line(it))


def _document_summaries(
    manifest: RunManifest, docs: list[Document | DocumentError], lines: list[dict[str, Any]]
) -> None:
    from citejudge.documents import summarize_documents

    manifest.documents = summarize_documents(docs, lines)


def _print_documents(manifest: RunManifest) -> None:
    console = _stderr()
    for d in manifest.documents or []:
        if d.error:
            console.print(f"[red]error[/red] {d.error}")
            continue
        rg = ", ".join(f"{k} {v}" for k, v in d.reference_grounding.items())
        console.print(
            f"{d.file}: {d.references} references ({rg}); {d.citing_sentences} citing sentences, "
            f"{d.citing_sentences_judged} judged; {d.uncited} uncited; "
            f"{len(d.unresolved)} markers point to no entry"
        )


# ------------------------------------------------------------------------------ in memory


def check_items(
    cfg: RunConfig, items: list[Item | ItemError], cache_dir: Path
) -> Iterator[OutputLine]:
    """The output lines of ``items`` through the same stages and executor as ``check`` (no files)."""
    load_task(cfg.task).validate_options(cfg)
    stages = build_stages(cfg, cache_dir)
    yield from _executor(cfg, None, {})(stages, items)


# ------------------------------------------------------------------------------ check


def run_check(cfg: RunConfig, *, quiet: bool = False) -> RunSummary:
    """``citejudge check``: run one task over one input file; results to ``cfg.out`` (``-``: stdout).

    The manifest goes beside the results (``OUT.manifest.json``; none for stdout), the judge
    request cache into ``cfg.cache_dir`` or beside the results.
    """
    if cfg.document is None and len(cfg.input) != 1:
        raise ConfigError(
            "check reads one input file", hint="use 'citejudge run' for several shards"
        )
    out = None if str(cfg.out) == "-" else cfg.out
    shards = [Path(x) for x in (cfg.document or cfg.input)]  # as given: error records name them so
    load_task(cfg.task).validate_options(cfg)
    items, docs = _read_inputs(cfg, shards)
    manifest = _manifest("check", cfg, shards, items)
    manifest.input_sha256 = (
        manifest.input.files[0].sha256 if len(shards) == 1 and not shards[0].is_dir() else None
    )
    manifest.options = CheckOptionsRecord(
        documents=cfg.document,
        input=(cfg.document or cfg.input)[0],
        out=str(cfg.out),
        index=str(cfg.index) if cfg.index else None,
        model=cfg.model,
        no_llm=cfg.no_llm,
        workers=cfg.workers,
        fail_on_error=cfg.fail_on_error,
        today_year=cfg.today_year,
        strict_identifiers=cfg.strict_identifiers,
        strict_venues=cfg.strict_venues,
    )

    def open_sink() -> LineSink:
        if out is None:
            return StreamSink(sys.stdout.buffer)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(b"")
        return Appender(out)

    session = _Session(
        cfg,
        manifest,
        out.with_name(out.name + ".manifest.json") if out else None,
        open_sink,
        cfg.cache_dir or (out.parent if out else Path.cwd()),
        None,
        quiet,
        [] if docs is not None else None,
    )
    summary = RunSummary(items=len(items))
    _process(session, items, summary)
    if docs is not None:
        if out is not None:
            _write_doc_items(out.with_name(out.name + "." + DOC_ITEMS), docs)
        _document_summaries(manifest, docs, session.collect or [])
    manifest.write(session.manifest_path)
    if not quiet:
        parts = ", ".join(f"{k}: {v}" for k, v in sorted(summary.verdicts.items()))
        rate = summary.items / summary.seconds if summary.seconds > 0 else 0.0
        console = _stderr()
        console.print(
            f"{cfg.task}: {summary.items} items in {summary.seconds:.2f}s ({rate:,.0f}/s){_startup(summary)}; "
            f"{parts}; errors {summary.errors}"
            + (" [red](over the error budget)[/red]" if summary.over_budget else "")
        )
        if docs is not None:
            _print_documents(manifest)
        if out is not None:
            console.print(f"results: {out}")
    return summary


# ------------------------------------------------------------------------------ run


def run(
    cfg: RunConfig, *, resume: bool = False, quiet: bool = False, config_path: Path | None = None
) -> RunSummary:
    """``citejudge run``: execute (or resume) the run ``cfg`` describes in its run directory."""
    if str(cfg.out) == "-":
        raise ConfigError(
            "a run needs a run directory in 'out'", hint="use 'citejudge check' to write to stdout"
        )
    lock = lock_run_dir(cfg.out)
    try:
        return _run_locked(cfg, cfg.out, resume=resume, quiet=quiet, config_path=config_path)
    finally:
        lock.close()


def _run_locked(
    cfg: RunConfig, out: Path, *, resume: bool, quiet: bool, config_path: Path | None
) -> RunSummary:
    results_path, manifest_path = out / RESULTS, out / MANIFEST
    previous: dict[str, Any] | None = None
    if manifest_path.exists():
        previous = orjson.loads(manifest_path.read_bytes())
    if results_path.exists() and results_path.stat().st_size > 0 and not resume:
        raise RunError(
            f"{out} already holds results",
            hint="add --resume to continue it, or choose another 'out'",
        )
    if resume and previous is not None and previous.get("config_sha256") != cfg.sha256():
        raise RunError(
            f"the config differs from the one {out} was started with",
            hint="resume with the same config, or start a new run directory",
        )

    shards = expand_inputs(cfg.document or cfg.input)
    if cfg.document:
        from citejudge.documents import document_files

        shards = document_files(shards)  # a folder: the documents under it
    inputs = input_files(_document_inputs(cfg, shards))
    missing = [i.path for i in inputs if i.sha256 is None]
    if previous is not None and resume:
        before = {i["path"]: i["sha256"] for i in previous.get("input", {}).get("files", [])}
        gone = [p for p in before if p not in {i.path for i in inputs} or p in missing]
        changed = [
            i.path for i in inputs if i.path in before and i.sha256 not in (None, before[i.path])
        ]
        if gone or changed:
            raise RunError(
                "input shards changed since the run started: "
                + "; ".join([f"missing {p}" for p in gone] + [f"changed {p}" for p in changed]),
                hint="restore the original inputs, or start a new run directory",
            )
    if missing:
        raise RunError(
            f"{'document(s)' if cfg.document else 'input shard(s)'} not found: {', '.join(missing)}",
            hint=f"check '{'document' if cfg.document else 'input'}' in the config (paths are "
            "relative to the config file's folder)",
        )
    if not shards:
        raise ConfigError(
            f"no input files match {cfg.document or cfg.input}",
            hint="check 'input' (or 'document') in the config",
        )

    load_task(cfg.task).validate_options(cfg)
    items, docs = _read_inputs(cfg, shards)
    done, repaired = read_done(results_path) if resume else ([], False)
    if len(done) > len(items) or any(d["id"] != it.id for d, it in zip(done, items, strict=False)):
        raise RunError(
            f"{results_path} does not match the inputs (ids differ)",
            hint="start a new run directory",
        )

    manifest = _manifest(
        "run",
        cfg,
        shards,
        items,
        previous=previous if resume else None,
        config_file=config_path,
        inputs=inputs,
    )
    summary = RunSummary(items=len(items), resumed_from=len(done))
    spec = TASKS[cfg.task]
    for d in done:
        summary.count(spec, d)
    session = _Session(
        cfg,
        manifest,
        manifest_path,
        lambda: Appender(results_path, hint="free disk space, then rerun with --resume"),
        cfg.cache_dir or out / "cache",
        out / "shards",
        quiet,
    )
    _process(session, items[len(done) :], summary)
    final, _ = read_done(results_path)
    (out / ERRORS).write_bytes(b"".join(dumps_line(x) for x in final if x.get("error") is not None))
    manifest.repaired_tail = repaired
    if docs is not None:
        _write_doc_items(out / DOC_ITEMS, docs)
        _document_summaries(manifest, docs, final)
    manifest.write(manifest_path)
    if not quiet:
        _stderr().print(
            f"{cfg.task}: {summary.items} items ({summary.resumed_from} from before, "
            f"{summary.processed} now{_startup(summary)}); errors {summary.errors}; decided without "
            f"a model {summary.decided_without_model}; results in {results_path}"
        )
        if docs is not None:
            _print_documents(manifest)
    _write_report(out, cfg)
    return summary


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
