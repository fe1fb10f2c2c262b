"""The tasks ``check`` and ``run`` know, and how each builds its two stages.

A task provides ``make_checker(opts)`` (the deterministic stage, built once per worker
process), ``make_stage(opts, manifest)`` (the judged stage, built once in the main process,
or None) and ``validate_options(opts)`` (usage errors before any work starts).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from citejudge.errors import ConfigError

if TYPE_CHECKING:
    from citejudge.io import Item, OutputLine
    from citejudge.tasks.options import CheckOptions

__all__ = ["TASK_MODULES", "TaskSpec", "get_task", "make_judge"]

#: Task name → module implementing ``make_checker``, ``make_stage`` and ``validate_options``.
TASK_MODULES = {
    "references": "citejudge.tasks.references",
    "rag-audit": "citejudge.tasks.rag_audit",
    "citation-eval": "citejudge.tasks.citation_eval",
}


@dataclass(frozen=True)
class TaskSpec:
    """The entry points of one task."""

    name: str
    make_checker: Callable[[CheckOptions], Callable[[Item], OutputLine]]
    make_stage: Callable[[CheckOptions, dict[str, Any]], Any]
    validate_options: Callable[[CheckOptions], None]


def get_task(name: str) -> TaskSpec:
    """The task called ``name``."""
    if name not in TASK_MODULES:
        raise ConfigError(f"unknown task {name!r}", hint=f"one of: {', '.join(TASK_MODULES)}")
    try:
        mod = importlib.import_module(TASK_MODULES[name])
    except ModuleNotFoundError as exc:
        if exc.name == TASK_MODULES[name]:
            raise ConfigError(f"task {name!r} is not available in this version", hint="available: references") from exc
        raise
    return TaskSpec(name, mod.make_checker, mod.make_stage, mod.validate_options)


def make_judge(opts: CheckOptions, manifest: dict[str, Any], prompts: list[str], schemas: list[Any]) -> Any:
    """Model card → backend → cached :class:`~citejudge.judge.core.Judge`; recorded in the manifest."""
    from pathlib import Path

    from citejudge.judge.cards import load_card
    from citejudge.judge.core import Judge, RequestCache
    from citejudge.judge.deciders import card_support_decider
    from citejudge.judge.prompts import template_sha256
    from citejudge.judge.registry import make_backend
    from citejudge.judge.schemas import schema_sha256

    card = load_card(opts.model or "cpu-default")
    backend = make_backend(card)
    cache_dir = opts.cache_dir or (opts.out.parent if opts.out else Path.cwd())
    judge = Judge(backend, card.sampling, cache=RequestCache(cache_dir / ".citejudge-cache.sqlite"))
    manifest["judge"] = {
        "card": card.model_dump(mode="json"), **judge.describe(),
        "prompts": {p: template_sha256(p) for p in prompts},
        "schemas": {s.__name__: schema_sha256(s) for s in schemas},
    }
    judge.support = card_support_decider(card, backend)
    if judge.support is not None:
        manifest["judge"]["support_scorer"] = judge.support.describe()
    return judge
