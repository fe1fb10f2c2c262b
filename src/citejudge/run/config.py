"""The options of ``check`` and ``run``: one typed, frozen object, validated once.

``citejudge run`` reads it from YAML, ``CITEJUDGE_<FIELD>`` environment variables and flags
(later wins; relative paths in the file are relative to the file's folder); ``citejudge check``
builds it from its flags. Both go through :func:`validate_config`, which turns the first
validation error into one :class:`~citejudge.errors.ConfigError` (with a "did you mean" for
unknown keys).
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from citejudge.errors import ConfigError
from citejudge.hashing import canonical_json, sha256_text
from citejudge.judge.core import Sampling
from citejudge.tasks.protocol import TASKS

__all__ = ["RunConfig", "load_config", "validate_config"]


class RunConfig(BaseModel):
    """Everything that defines a run: ``citejudge run --config FILE``, or ``citejudge check``'s flags."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task: str = Field(
        description="Which evaluator to run (a name in citejudge.tasks.protocol.TASKS).",
        json_schema_extra={"enum": list(TASKS)},
    )
    input: list[str] = Field(
        default_factory=list,
        description="Input file(s) or glob(s) of shards: JSONL, JSON, CSV (and BibTeX for references). "
        "Shards are read in sorted order; items keep that order in results.jsonl. "
        "check: the one input file, as given. Give this or `document`.",
    )
    document: list[str] | None = Field(
        default=None,
        description="references only, instead of `input`: document file(s) or glob(s) (PDF, .tex "
        "with its .bib/.bbl, JATS .xml, .html, .docx, .odt, .md, .txt). Each document's reference list and citing "
        "sentences become references items (written to items.jsonl beside the results); the "
        "manifest and the report get a summary per document.",
    )
    out: Path = Field(
        description="run: the run directory (results.jsonl, errors.jsonl, manifest.json, "
        "report.html); check: the results file, `-` for stdout."
    )
    index: Path | None = Field(
        default=None,
        description="World index from `citejudge index build` (required by references).",
    )
    model: str = Field(
        default="cpu-default",
        description="Model card name in models/, or `none` for the deterministic stages only.",
    )
    executor: Literal["local", "ray"] = Field(default="local", description="Where stages run.")
    sampling: Sampling | None = Field(
        default=None, description="Decoding settings; default: the card's."
    )
    batch_size: int = Field(default=64, ge=1, le=100_000, description="Items per judge batch.")
    workers: int = Field(
        default=2,
        ge=1,
        le=512,
        description="Processes for the deterministic stage (Ray: CPU workers).",
    )
    fail_on_error: bool | float = Field(
        default=False,
        description="Error budget: true = any item error fails "
        "the run; a fraction = the allowed share.",
    )
    cache_dir: Path | None = Field(
        default=None,
        description="Judge request cache folder (default: OUT/cache); "
        "share it between runs to reuse answers. citation-eval keeps the quote indexes of its "
        "source store and index in its source-index/ (default: ~/.cache/citejudge/source-index, "
        "or CITEJUDGE_SOURCE_CACHE).",
    )
    fulltext_dir: Path | None = Field(
        default=None, description="Local full texts / source store folder."
    )
    no_gold: bool = Field(default=False, description="citation-eval: items have no gold answer.")
    today_year: int | None = Field(
        default=None,
        description="Year 'now' for future-date checks "
        "(default: the current year; set it to reproduce).",
    )
    strict_identifiers: bool = Field(
        default=False,
        description="references: a stated arXiv id, PMID or PMCID "
        "that the matched work's records lack is a mismatch (default: unverified).",
    )
    strict_venues: bool = Field(
        default=False,
        description="references: a cited venue that the matched work's records cannot confirm "
        "(every copy is in a repository or on a preprint server) is a mismatch "
        "(default: unverified).",
    )
    seed: int = Field(default=0, description="Seed recorded in the manifest and used for sampling.")
    gold: str | None = Field(
        default=None, description="For the report: a gold file or an input field name."
    )
    gold_map: str | None = Field(
        default=None, description="For the report: label mapping, e.g. 'VALID=Yes,HALLUCINATED=No'."
    )
    ray_address: str | None = Field(
        default=None,
        description="executor ray: the cluster to join, `auto` or HOST:PORT of its head (default: "
        "start a local Ray). Every node opens `index` at the same path (shared storage).",
    )

    @field_validator("task")
    @classmethod
    def _known_task(cls, v: str) -> str:
        if v not in TASKS:
            close = difflib.get_close_matches(v, list(TASKS), n=1)
            raise ValueError(
                f"unknown task {v!r}"
                + (f"; did you mean {close[0]!r}?" if close else "")
                + f" (one of: {', '.join(TASKS)})"
            )
        return v

    @model_validator(mode="after")
    def _one_input(self) -> RunConfig:
        if self.document is not None:
            if self.input:
                raise ValueError("give `input` (items) or `document` (documents), not both")
            if self.task != "references":
                raise ValueError("`document` input is checked by the references task")
        return self

    @field_validator("input", "document", mode="before")
    @classmethod
    def _listify(cls, v: Any) -> Any:
        if isinstance(v, (str, os.PathLike)):
            v = [v]
        return (
            [os.fspath(x) if isinstance(x, os.PathLike) else x for x in v]
            if isinstance(v, list)
            else v
        )

    @field_validator("fail_on_error")
    @classmethod
    def _budget(cls, v: bool | float) -> bool | float:
        if not isinstance(v, bool) and not 0 <= v <= 1:
            raise ValueError("fail_on_error must be true, false or a fraction between 0 and 1")
        return v

    @property
    def no_llm(self) -> bool:
        """True when no model is used."""
        return self.model.lower() == "none"

    def sha256(self) -> str:
        """Hash of the resolved config (recorded in the manifest).

        An unset ``document`` is left out, so configs of item runs hash as they did before it existed.
        """
        data = self.model_dump(mode="json")
        if data.get("document") is None:
            data.pop("document", None)
        return sha256_text(canonical_json(data))


_ENV_FIELDS = {
    "model",
    "executor",
    "batch_size",
    "workers",
    "fail_on_error",
    "cache_dir",
    "index",
    "today_year",
    "ray_address",
}


def _env_overrides() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in _ENV_FIELDS:
        val = os.environ.get(f"CITEJUDGE_{name.upper()}")
        if val is None:
            continue
        if name == "fail_on_error":
            low = val.lower()
            out[name] = True if low == "true" else False if low == "false" else float(val)
        else:
            out[name] = val
    return out


def _resolve_paths(data: dict[str, Any], base: Path) -> dict[str, Any]:
    def rel(p: str) -> str:
        return p if os.path.isabs(p) else os.path.normpath(base / p)

    for key in ("out", "index", "cache_dir", "fulltext_dir"):
        if isinstance(data.get(key), str):
            data[key] = rel(data[key])
    for key in ("input", "document"):
        if isinstance(data.get(key), str):
            data[key] = [data[key]]
        if isinstance(data.get(key), list):
            data[key] = [rel(x) if isinstance(x, str) else x for x in data[key]]
    gold = data.get("gold")
    if isinstance(gold, str) and ("/" in gold or gold.endswith((".jsonl", ".csv", ".json"))):
        data["gold"] = rel(gold)
    return data


def validate_config(data: dict[str, Any], source: str) -> RunConfig:
    """``data`` as a :class:`RunConfig`; the first problem becomes a one-line :class:`ConfigError`.

    ``source`` names where the data came from in the message (``config FILE``, ``check``).
    """
    try:
        return RunConfig.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"])) or "<config>"
        hint = "see the field list in citejudge.run.config.RunConfig"
        if first["type"] == "extra_forbidden":
            close = difflib.get_close_matches(
                str(first["loc"][-1]), list(RunConfig.model_fields), n=1
            )
            if close:
                hint = f"did you mean {close[0]!r}?"
        raise ConfigError(f"{source}: {where}: {first['msg']}", hint=hint) from exc


def load_config(path: Path, **overrides: Any) -> RunConfig:
    """The run config of a YAML file, with environment and flag overrides applied."""
    import yaml

    if not path.is_file():
        raise ConfigError(f"config file {path} does not exist", hint="see configs/ for examples")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"config file {path} is not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"config file {path} must be a mapping of fields")
    data = _resolve_paths(data, path.resolve().parent)
    data.update(_env_overrides())
    data.update({k: v for k, v in overrides.items() if v is not None})
    return validate_config(data, f"config {path}")
