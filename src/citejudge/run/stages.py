"""The two stages of a task as the executors run them, and the local executor.

* **Deterministic stage**: :class:`TaskWorker` wraps a task's checker (built once per worker
  process: the index is opened read-only there), turns an unexpected exception into an error
  record and checks every result against the task's schema.
* **Judged stage**: :func:`judge_lines` feeds ordered deterministic lines to the task's judged
  stage a batch of ``batch_size`` items at a time and re-checks what it changed.
* **Executors** turn the remaining items into ordered output lines: :func:`execute_local`
  (a process pool on this machine) here, :func:`citejudge.run.ray_executor.execute_ray` on Ray.
  Both take the same :class:`Stages`.
"""

from __future__ import annotations

import multiprocessing as mp
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import orjson

from citejudge.io import Item, ItemError, OutputLine
from citejudge.run.config import RunConfig
from citejudge.schema import validate_result
from citejudge.tasks.protocol import JudgedStage, load_task

if TYPE_CHECKING:
    from pydantic import BaseModel

    from citejudge.judge.core import Judge, Sampling

__all__ = [
    "Executor",
    "JudgeBuilder",
    "Stages",
    "TaskWorker",
    "build_judge",
    "build_stages",
    "error_line",
    "execute_local",
    "judge_lines",
]

#: Fewer good items than this are checked in this process (a pool costs more than it saves).
POOL_MIN_ITEMS = 200


class TaskWorker:
    """Per-process state of a task's deterministic stage (e.g. the index opened read-only)."""

    def __init__(self, cfg: RunConfig) -> None:
        self.task_name = cfg.task
        self.check = load_task(cfg.task).make_checker(cfg)

    def __call__(self, item: Item | ItemError) -> OutputLine:
        """One output line for one item; input errors and unexpected exceptions become error records."""
        if isinstance(item, ItemError):
            return error_line(self.task_name, item)
        try:
            line = self.check(item)
        except Exception as exc:
            return OutputLine(
                item.id,
                self.task_name,
                None,
                {},
                {
                    "kind": "internal",
                    "message": f"{type(exc).__name__}: {exc}",
                    "file": item.file,
                    "line": item.line,
                },
            )
        return _validated(self.task_name, item, line)


def error_line(task: str, err: ItemError) -> OutputLine:
    """The output line of an input that could not become an item."""
    return OutputLine(err.id, task, None, {}, err.as_error())


def _validated(task: str, item: Item, line: OutputLine) -> OutputLine:
    """The line, or an error record if its result does not validate against the task's schema."""
    if line.result is not None:
        problems = validate_result(task, line.result)
        if problems:
            return OutputLine(
                item.id,
                task,
                None,
                line.details,
                {
                    "kind": "schema",
                    "message": "; ".join(problems),
                    "file": item.file,
                    "line": item.line,
                },
            )
    return line


def judge_lines(
    lines: Iterator[OutputLine],
    items: Sequence[Item | ItemError],
    stage: JudgedStage,
    batch_size: int,
) -> Iterator[OutputLine]:
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


def _revalidated(
    order: list[OutputLine], pairs: list[tuple[Item, OutputLine]]
) -> Iterator[OutputLine]:
    """Judged lines are checked against the schema again (the judged stage changed them)."""
    items = {id(ln): it for it, ln in pairs}
    for ln in order:
        it = items.get(id(ln))
        yield _validated(ln.task, it, ln) if it is not None else ln


# ------------------------------------------------------------------------------ the judge


@dataclass
class JudgeBuilder:
    """The :class:`~citejudge.tasks.protocol.JudgeFactory` a task's judged stage gets.

    Builds the judge of the run's model card with the run's request cache and sampling, and
    keeps it and its description (for the manifest). :meth:`unbuilt` is the picklable copy a
    Ray judge actor builds its own judge with.
    """

    model: str
    cache_dir: Path
    sampling: Sampling | None = None
    judge: Judge | None = field(default=None, init=False, repr=False)
    description: dict[str, Any] | None = field(default=None, init=False, repr=False)

    def __call__(self, prompts: Sequence[str], schemas: Sequence[type[BaseModel]]) -> Judge:
        """The judge for these prompt templates and answer schemas."""
        self.judge, self.description = build_judge(
            self.model, self.cache_dir, self.sampling, prompts, schemas
        )
        return self.judge

    def unbuilt(self) -> JudgeBuilder:
        """The same settings without the built judge (which holds a backend and a database connection)."""
        return JudgeBuilder(self.model, self.cache_dir, self.sampling)


def build_judge(
    model: str,
    cache_dir: Path,
    sampling: Sampling | None,
    prompts: Sequence[str],
    schemas: Sequence[type[BaseModel]],
) -> tuple[Judge, dict[str, Any]]:
    """Model card → backend → cached :class:`~citejudge.judge.core.Judge`, and its manifest record."""
    from citejudge.judge.cards import load_card
    from citejudge.judge.core import Judge, RequestCache
    from citejudge.judge.deciders import card_support_decider
    from citejudge.judge.prompts import template_sha256
    from citejudge.judge.registry import make_backend
    from citejudge.judge.schemas import schema_sha256

    card = load_card(model)
    backend = make_backend(card)
    judge = Judge(
        backend,
        sampling or card.sampling,
        cache=RequestCache(cache_dir / ".citejudge-cache.sqlite"),
    )
    record: dict[str, Any] = {
        "card": card.model_dump(mode="json"),
        **judge.describe(),
        "prompts": {p: template_sha256(p) for p in prompts},
        "schemas": {s.__name__: schema_sha256(s) for s in schemas},
    }
    judge.support = card_support_decider(card, backend)
    if judge.support is not None:
        record["support_scorer"] = judge.support.describe()
    return judge, record


# ------------------------------------------------------------------------------ executors


@dataclass
class Stages:
    """What an executor needs: the options, and the judged stage built in the main process (if any)."""

    cfg: RunConfig
    judge_builder: JudgeBuilder
    judged: JudgedStage | None = None

    @property
    def judge(self) -> Judge | None:
        """The judge of the judged stage (its statistics go into the manifest)."""
        return self.judge_builder.judge


def build_stages(cfg: RunConfig, cache_dir: Path) -> Stages:
    """The run's stages; the judged one only when a model is used."""
    builder = JudgeBuilder(cfg.model, cache_dir, cfg.sampling)
    judged = None if cfg.no_llm else load_task(cfg.task).make_stage(cfg, builder)
    return Stages(cfg, builder, judged)


class Executor(Protocol):
    """Turns the remaining items into their output lines, in input order."""

    def __call__(self, stages: Stages, todo: list[Item | ItemError]) -> Iterator[OutputLine]:
        """Output lines of ``todo``, one per item, in order."""
        ...


def execute_local(stages: Stages, todo: list[Item | ItemError]) -> Iterator[OutputLine]:
    """Deterministic stage in a local process pool (or in this process when that pays), then the judged stage."""
    lines = _deterministic_local(stages.cfg, todo)
    if stages.judged is None:
        return lines
    return judge_lines(lines, todo, stages.judged, stages.cfg.batch_size)


def _deterministic_local(cfg: RunConfig, items: list[Item | ItemError]) -> Iterator[OutputLine]:
    good = [it for it in items if isinstance(it, Item)]
    if cfg.workers == 1 or len(good) < POOL_MIN_ITEMS:
        worker = TaskWorker(cfg)
        for it in items:
            yield worker(it)
        return
    ctx = mp.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    with ctx.Pool(cfg.workers, initializer=_init_worker, initargs=(cfg,)) as pool:
        results = pool.imap(_work, good, chunksize=64)
        for it in items:
            if isinstance(it, ItemError):
                yield error_line(cfg.task, it)
            else:
                d = orjson.loads(next(results))
                yield OutputLine(d["id"], d["task"], d["result"], d["details"], d["error"])


_WORKER: TaskWorker | None = None


def _init_worker(cfg: RunConfig) -> None:  # pragma: no cover - child process
    global _WORKER
    _WORKER = TaskWorker(cfg)


def _work(item: Item) -> bytes:  # pragma: no cover - child process
    if _WORKER is None:
        raise RuntimeError("worker not initialised")
    return orjson.dumps(_WORKER(item).to_dict())
