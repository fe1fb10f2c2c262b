"""The options of one ``check`` run, shared by the task registry and the runner."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["CheckOptions"]


@dataclass
class CheckOptions:
    """Options of one ``check`` invocation (mirrors the CLI flags)."""

    task: str
    input: Path
    out: Path | None
    index: Path | None = None
    model: str | None = None
    no_llm: bool = False
    workers: int = 2
    quiet: bool = False
    fail_on_error: bool | float = False
    fulltext_dir: Path | None = None
    no_gold: bool = False
    today_year: int | None = None
    strict_identifiers: bool = False
    batch_size: int = 64
    cache_dir: Path | None = None
