"""What a task is, and the one table of tasks every other place reads.

A task is a module with three entry points (the :class:`Task` protocol):

* ``validate_options(opts)`` — usage errors before any work starts;
* ``make_checker(opts)`` — the deterministic stage, built once per worker process: reads one
  :class:`~citejudge.io.Item` and returns its :class:`~citejudge.io.OutputLine`;
* ``make_stage(opts, make_judge)`` — the judged stage, built in the main process when a model
  is used: ``apply`` fills in, in place, what the model decides for a batch of those lines.
  It asks ``make_judge`` for its judge, so the pipeline decides which model, cache and sampling
  the judge gets and records them in the manifest.

Adding a task = one module implementing the protocol + one line in :data:`TASKS`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

from citejudge.errors import ConfigError

if TYPE_CHECKING:
    from pydantic import BaseModel

    from citejudge.io import Item, OutputLine
    from citejudge.judge.core import Judge

__all__ = [
    "TASKS",
    "Checker",
    "JudgeFactory",
    "JudgedStage",
    "Task",
    "TaskOptions",
    "TaskSpec",
    "load_task",
]


class TaskOptions(Protocol):
    """The options a task reads (:class:`citejudge.run.config.RunConfig` provides them)."""

    @property
    def index(self) -> Path | None:
        """World index folder, if any."""

    @property
    def fulltext_dir(self) -> Path | None:
        """Folder of local full texts / the source store, if any."""

    @property
    def cache_dir(self) -> Path | None:
        """Cache folder of the run, if one was given (citation-eval keeps its quote indexes there)."""

    @property
    def no_gold(self) -> bool:
        """citation-eval: items carry no gold answer."""

    @property
    def today_year(self) -> int | None:
        """Year 'now' for future-date checks (None: the current year)."""

    @property
    def strict_identifiers(self) -> bool:
        """references: a stated identifier the matched work lacks is a mismatch."""

    @property
    def strict_venues(self) -> bool:
        """references: a cited venue only repository copies stand against is a mismatch."""


#: The deterministic stage of a task: one item in, its output line out.
Checker = Callable[["Item"], "OutputLine"]


class JudgeFactory(Protocol):
    """Builds the judge a judged stage asks for (model card, cache and sampling come from the run)."""

    def __call__(self, prompts: Sequence[str], schemas: Sequence[type[BaseModel]]) -> Judge:
        """A judge for answers to ``prompts`` (template names) constrained by ``schemas``."""
        ...


class JudgedStage(Protocol):
    """The judged stage of a task: completes a batch of deterministic lines in place."""

    def apply(self, pairs: list[tuple[Item, OutputLine]]) -> None:
        """Judge what the batch needs and rewrite each pair's line in place."""
        ...


@runtime_checkable
class Task(Protocol):
    """The entry points of one task module."""

    def validate_options(self, opts: TaskOptions) -> None:
        """Raise :class:`~citejudge.errors.ConfigError` for options the task cannot run with."""
        ...

    def make_checker(self, opts: TaskOptions) -> Checker:
        """The deterministic stage (opens what it needs read-only in this process)."""
        ...

    def make_stage(self, opts: TaskOptions, make_judge: JudgeFactory) -> JudgedStage:
        """The judged stage, with its judge from ``make_judge``."""
        ...


@dataclass(frozen=True)
class TaskSpec:
    """One line of :data:`TASKS`: where a task lives and how the pipeline and the CLI present it."""

    module: str
    """Module implementing :class:`Task`."""
    help: str
    """One line for ``citejudge check TASK --help``."""
    verdict_field: str | None = None
    """Result field whose first sentence is the verdict counted in summaries (None: ``evaluated``)."""
    flags: tuple[str, ...] = ()
    """Task-specific options offered as ``check`` flags (names of run config fields)."""

    def verdict(self, result: Mapping[str, Any] | None) -> str:
        """The label a result line is counted under (``error`` when it has no result)."""
        if result is None:
            return "error"
        if self.verdict_field is None:
            return "evaluated"
        return str(result.get(self.verdict_field, "")).split(".", 1)[0]


#: Task name → its spec. The CLI's choices, config validation and the pipeline all read this.
TASKS: Mapping[str, TaskSpec] = MappingProxyType(
    {
        "references": TaskSpec(
            "citejudge.tasks.references",
            "reference and content grounding of cited works",
            "reference_grounding",
            ("strict_identifiers", "strict_venues"),
        ),
        "rag-audit": TaskSpec(
            "citejudge.tasks.rag_audit", "citation audit of a RAG answer", "verdict"
        ),
        "citation-eval": TaskSpec(
            "citejudge.tasks.citation_eval",
            "per-citation support, source verification, answer correctness",
            None,
            ("no_gold",),
        ),
    }
)


def load_task(name: str) -> Task:
    """The task module called ``name`` (imported on first use: the CLI stays light)."""
    spec = TASKS.get(name)
    if spec is None:
        raise ConfigError(f"unknown task {name!r}", hint=f"one of: {', '.join(TASKS)}")
    return cast(Task, importlib.import_module(spec.module))
