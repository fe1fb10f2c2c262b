"""The Python API: what the command line does, as functions (the CLI calls these).

Three lines score a list of dicts in a notebook::

    import citejudge
    index = citejudge.open_index("world.index")
    results = list(citejudge.check("references", items, index=index))

* :func:`open_index` — a world index from ``citejudge index build``, opened read-only;
* :func:`check` — any task over items (dicts) in memory: an iterator of :class:`Result`, in
  input order, through the same stages and executor as ``citejudge check``;
* :func:`read_document` — a PDF, LaTeX, JATS, Markdown or text file as a
  :class:`~citejudge.documents.Document` (references, citing sentences, items);
* :func:`check_documents` — documents in memory: their items through :func:`check`;
* :func:`check_file` and :func:`run` — ``citejudge check`` / ``check document`` and
  ``citejudge run``: results files, manifest, items and report as the CLI writes them.

A :class:`Result` is a pydantic model whose :meth:`~Result.model_dump` is exactly the dict of
a results-file line (``json_line`` gives the line's bytes). ``model=None`` runs the
deterministic stages only (content grounding "N/A"); name a model card to judge.
Importing this module loads no model library: they load when a model is asked for.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from citejudge.documents import Document
    from citejudge.index import WorldIndex
    from citejudge.io import Item, ItemError
    from citejudge.run.config import RunConfig
    from citejudge.run.pipeline import RunSummary

__all__ = [
    "Result",
    "check",
    "check_documents",
    "check_file",
    "load_run_config",
    "open_index",
    "read_document",
    "run",
    "run_config",
]


class Result(BaseModel):
    """One results-file line: ``{"id", "task", "result", "details", "error"}``."""

    model_config = ConfigDict(frozen=True)
    id: str | int = Field(description="The item's id (generated from its position if it had none).")
    task: str = Field(description="The task that produced it.")
    result: dict[str, Any] | None = Field(
        description="Exactly the task specification's JSON object; None when the item failed."
    )
    details: dict[str, Any] = Field(description="What explains the verdict.")
    error: dict[str, Any] | None = Field(
        description="Why the item failed: kind, message, field, file, line."
    )

    def json_line(self) -> bytes:
        """The line as ``citejudge check`` writes it (canonical JSON, newline-terminated)."""
        from citejudge.io import dumps_line

        return dumps_line(self.model_dump())


def open_index(path: str | Path) -> WorldIndex:
    """The world index at ``path``, read-only (:class:`~citejudge.errors.IndexError_` if unusable)."""
    from citejudge.index import WorldIndex

    return WorldIndex.open(Path(path))


def read_document(path: str | Path, *, fmt: str | None = None) -> Document:
    """A document's references and citing sentences (``fmt`` overrides the suffix)."""
    from citejudge.documents import read_document as _read

    return _read(path, fmt=fmt)


def _index_path(index: Any) -> str | None:
    if index is None:
        return None
    path = getattr(index, "path", index)
    return str(path)


def _config(task: str, index: Any, model: str | None, source: str, **options: Any) -> RunConfig:
    from citejudge.run.config import validate_config

    data = {
        "task": task,
        "out": "-",
        "index": _index_path(index),
        "model": model or "none",
        **{k: v for k, v in options.items() if v is not None},
    }
    return validate_config({k: v for k, v in data.items() if v is not None}, source)


def _as_items(items: Iterable[Any], source: str) -> list[Any]:
    from citejudge.io import Item, ItemError

    out: list[Item | ItemError] = []
    for n, obj in enumerate(items, start=1):
        if isinstance(obj, (Item, ItemError)):
            out.append(obj)
        elif isinstance(obj, dict):
            raw = obj.get("id")
            ident = (
                f"line-{n}"
                if raw is None or raw == "" or isinstance(raw, (dict, list, bool))
                else str(raw)
            )
            out.append(Item(ident, obj, source, n))
        else:
            out.append(
                ItemError(f"line-{n}", source, n, f"expected a dict, got {type(obj).__name__}")
            )
    return out


def check(
    task: str,
    items: Iterable[dict[str, Any] | Item | ItemError],
    *,
    index: WorldIndex | str | Path | None = None,
    model: str | None = None,
    fulltext_dir: str | Path | None = None,
    cache_dir: str | Path | None = None,
    batch_size: int = 64,
    workers: int = 1,
    strict_identifiers: bool = False,
    strict_venues: bool = False,
    no_gold: bool = False,
    today_year: int | None = None,
) -> Iterator[Result]:
    """Evaluate ``items`` with ``task``; one :class:`Result` per item, in order.

    ``index`` is an :func:`open_index` handle or a path (``references`` needs one); ``model``
    a model card name (None: no model); ``cache_dir`` holds the judge's request cache (default:
    the working directory). Bad items become results with an ``error``, as in a results file.
    """
    from citejudge.run.pipeline import check_items

    cfg = _config(
        task,
        index,
        model,
        "check()",
        fulltext_dir=str(fulltext_dir) if fulltext_dir else None,
        cache_dir=str(cache_dir) if cache_dir else None,
        batch_size=batch_size,
        workers=workers,
        strict_identifiers=strict_identifiers,
        strict_venues=strict_venues,
        no_gold=no_gold,
        today_year=today_year,
    )
    todo = _as_items(items, "<items>")
    for line in check_items(cfg, todo, Path(cache_dir) if cache_dir else Path.cwd()):
        yield Result.model_validate(line.to_dict())


def check_documents(
    paths: Sequence[str | Path],
    *,
    index: WorldIndex | str | Path,
    model: str | None = None,
    **options: Any,
) -> Iterator[Result]:
    """Every document's items (see :func:`read_document`) through :func:`check` (``references``).

    A document that cannot be read, and a marker that points to no entry, are results with an
    ``error`` naming the file; the others go on.
    """
    from citejudge.documents import load_documents

    todo, _ = load_documents([Path(p) for p in paths])
    yield from check("references", todo, index=index, model=model, **options)


def check_file(
    task: str,
    input: str | Path | None = None,
    out: str | Path = "-",
    *,
    documents: Sequence[str | Path] | None = None,
    quiet: bool = True,
    **options: Any,
) -> RunSummary:
    """``citejudge check TASK INPUT --out OUT`` (or ``check document`` with ``documents``).

    Writes the results (``-``: stdout), ``OUT.manifest.json`` and, for documents,
    ``OUT.items.jsonl``; options are :class:`~citejudge.run.config.RunConfig` fields.
    """
    from citejudge.run.config import validate_config
    from citejudge.run.pipeline import run_check

    data: dict[str, Any] = {"task": task, "out": str(out), **options}
    if documents is not None:
        data["document"] = [str(d) for d in documents]
    elif input is not None:
        data["input"] = [str(input)]
    cfg = validate_config({k: v for k, v in data.items() if v is not None}, "check")
    return run_check(cfg, quiet=quiet)


def run(
    config: str | Path,
    *,
    resume: bool = False,
    quiet: bool = True,
    **overrides: Any,
) -> RunSummary:
    """``citejudge run --config FILE``: the run directory the config names (``overrides``: fields)."""
    cfg = load_run_config(config, **overrides)
    return run_config(cfg, resume=resume, quiet=quiet, config_path=Path(config))


def run_config(
    cfg: RunConfig, *, resume: bool = False, quiet: bool = True, config_path: Path | None = None
) -> RunSummary:
    """Execute (or resume) the run ``cfg`` describes (see :func:`load_run_config`)."""
    from citejudge.run import run as _run

    return _run(cfg, resume=resume, quiet=quiet, config_path=config_path)


def load_run_config(config: str | Path, **overrides: Any) -> RunConfig:
    """The run config of a YAML file with overrides (what :func:`run` would run)."""
    from citejudge.run import load_config

    return load_config(Path(config), **overrides)
