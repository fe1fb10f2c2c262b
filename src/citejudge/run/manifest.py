"""The run manifest: what makes a ``check`` or a ``run`` reproducible, written first, finalised last.

``check`` writes it beside its results (``OUT.manifest.json``), ``run`` into the run directory
(``manifest.json``). Its JSON Schema ships as ``citejudge/schemas/run_manifest.json``; a test
checks the shipped file equals :func:`manifest_schema` (regenerate it with
``CITEJUDGE_UPDATE_SCHEMA=1 pytest tests/test_pipeline.py`` and review the diff).
"""

from __future__ import annotations

import datetime as _dt
import os
from pathlib import Path
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from citejudge.documents import DocumentSummary
from citejudge.hashing import file_sha256, sha256_text

__all__ = [
    "CheckOptionsRecord",
    "CodeRevision",
    "Counts",
    "IndexIdentity",
    "InputFile",
    "Inputs",
    "RayRecord",
    "RunManifest",
    "Seeds",
    "Timings",
    "Tokens",
    "index_identity",
    "input_files",
    "manifest_schema",
    "now_utc",
    "write_json_atomic",
]

_STRICT = ConfigDict(extra="forbid")


class CodeRevision(BaseModel):
    """The git commit of the citejudge checkout and whether it had uncommitted changes."""

    model_config = _STRICT
    commit: str | None = Field(description="Commit hash (None outside a git checkout).")
    dirty: bool | None = Field(description="Uncommitted changes to tracked files.")


class InputFile(BaseModel):
    """One input shard."""

    model_config = _STRICT
    path: str = Field(description="The shard's path as configured.")
    sha256: str | None = Field(description="sha256 of its bytes (None: not found).")
    items: int = Field(default=0, description="Items (and input errors) read from it.")


class Inputs(BaseModel):
    """The input shards, in reading order."""

    model_config = _STRICT
    files: list[InputFile] = Field(description="Shards in the order their items were processed.")


class Seeds(BaseModel):
    """Seeds in effect."""

    model_config = _STRICT
    sampling: int = Field(description="Decoding seed (the config's sampling seed, else its seed).")
    run: int = Field(description="The config's seed.")


class IndexIdentity(BaseModel):
    """Which world index the run read."""

    model_config = _STRICT
    path: str = Field(description="Index folder.")
    meta_sha256: str = Field(description="sha256 of the index's meta.json.")
    meta: dict[str, Any] = Field(
        description="The index's meta.json (counts, sources, build facts)."
    )


class CheckOptionsRecord(BaseModel):
    """``check`` only: the options as the command received them (kept for older readers)."""

    model_config = _STRICT
    input: str
    out: str = Field(description="Results file, `-` for stdout.")
    index: str | None
    model: str
    no_llm: bool
    workers: int
    fail_on_error: bool | float
    today_year: int | None
    strict_identifiers: bool
    strict_venues: bool = False
    documents: list[str] | None = Field(
        default=None, description="check document: the documents, as given."
    )


class Counts(BaseModel):
    """What the run did (``citejudge run`` also prints these on stdout)."""

    model_config = _STRICT
    items: int = Field(description="Items in the input (all sessions).")
    errors: int = Field(description="Output lines with an error record.")
    decided_without_model: int = Field(description="Lines the deterministic stage decided alone.")
    verdicts: dict[str, int] = Field(
        description="Lines per verdict label (``error`` for error records)."
    )
    seconds: float = Field(description="Wall time of this session's processing.")
    resumed_from: int = Field(default=0, description="Lines kept from an earlier session.")
    processed: int = Field(default=0, description="Lines written in this session.")


class Timings(BaseModel):
    """Timings of the last session."""

    model_config = _STRICT
    seconds_this_session: float
    startup_s: float | None = Field(
        default=None,
        description="Seconds from the executor's start to the first result line: process pool or "
        "Ray start/connection, actor pool creation, index opening, the first item (and its judge "
        "batch). None when the session had nothing to process.",
    )


class RayRecord(BaseModel):
    """``executor: ray``: the cluster the last session ran on."""

    model_config = _STRICT
    address: str | None = Field(
        description="The configured `ray_address` (None: a local Ray started for the run)."
    )
    nodes: list[str] = Field(
        description="Ids of the Ray nodes whose CPU workers returned results (sorted)."
    )


class Tokens(BaseModel):
    """Tokens the model read and wrote (when the backend reports them)."""

    model_config = _STRICT
    prompt: int
    output: int


_CHECK_ONLY = ("options", "input_sha256")
#: Keys left out when unset (``ray`` is only there for the Ray executor).
_OMIT_UNSET = (*_CHECK_ONLY, "ray", "documents")


class RunManifest(BaseModel):
    """The manifest of one ``check`` or ``run``.

    Keys other tools add to a run directory's manifest survive a resume (``extra="allow"``).
    """

    model_config = ConfigDict(extra="allow", validate_assignment=True)

    run_id: str = Field(description="Random id of the run (kept across resumes).")
    command: Literal["check", "run"] = Field(
        default="run", description="The command that wrote it."
    )
    task: str = Field(description="The task run.")
    started_utc: str = Field(description="When the run started (first session), ISO 8601 UTC.")
    finished_utc: str | None = Field(default=None, description="When the last session finished.")
    status: Literal["running", "finished", "failed"] = Field(
        default="running", description="`failed`: more item errors than the error budget allows."
    )
    code: CodeRevision
    versions: dict[str, str | None] = Field(
        description="Versions of python and the packages that matter."
    )
    config: dict[str, Any] = Field(
        description="The resolved run config (citejudge.run.config.RunConfig)."
    )
    config_sha256: str = Field(description="sha256 of the canonical JSON of `config`.")
    config_file: str | None = Field(default=None, description="The YAML file it came from (run).")
    options: CheckOptionsRecord | None = Field(default=None, description="check only: its options.")
    input: Inputs
    input_sha256: str | None = Field(
        default=None, description="check only: sha256 of the input file."
    )
    seeds: Seeds
    schema_sha256: str = Field(description="sha256 of the task's result schema.")
    index: IndexIdentity | None = Field(default=None, description="The world index read, if any.")
    executor: Literal["local", "ray"] = Field(default="local", description="Where the stages ran.")
    resumes: int = Field(default=0, description="How often the run was resumed.")
    judge: dict[str, Any] | None = Field(
        default=None,
        description="Model card, backend, sampling, prompt and schema hashes, request statistics "
        "(None: deterministic stages only).",
    )
    counts: Counts | None = Field(default=None, description="Set when the run ends.")
    repaired_tail: bool | None = Field(
        default=None, description="A corrupted last line was dropped on resume."
    )
    timings: Timings | None = None
    tokens: Tokens | None = None
    ray: RayRecord | None = Field(
        default=None, description="executor ray only: cluster address and the nodes used."
    )
    documents: list[DocumentSummary] | None = Field(
        default=None,
        description="Document input only: per document, the references found, their verdicts "
        "(Yes / No / Not found), citing sentences and how many were judged, markers that point "
        "nowhere, or why the document could not be read.",
    )

    @model_serializer(mode="wrap")
    def _omit_unused_check_keys(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for key in _OMIT_UNSET:
            if data.get(key) is None:
                data.pop(key, None)
        return data

    def write(self, path: Path | None) -> None:
        """Write the manifest to ``path`` atomically (nothing when ``path`` is None)."""
        if path is not None:
            write_json_atomic(path, self.model_dump(mode="json"))


def now_utc() -> str:
    """The current UTC time, ISO 8601, to the second."""
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def write_json_atomic(path: Path, obj: dict[str, Any]) -> None:
    """Indented, key-sorted JSON written to a temporary file and renamed over ``path``."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
    os.replace(tmp, path)


def index_identity(index: Path | None) -> IndexIdentity | None:
    """Path, meta.json hash and content of an index folder (None without one)."""
    if index is None or not (index / "meta.json").exists():
        return None
    meta = (index / "meta.json").read_bytes()
    return IndexIdentity(path=str(index), meta_sha256=sha256_text(meta), meta=orjson.loads(meta))


def input_files(shards: list[Path]) -> list[InputFile]:
    """Path and sha256 of each shard (sha256 None for a shard that is not a file)."""
    return [InputFile(path=str(p), sha256=file_sha256(p) if p.is_file() else None) for p in shards]


def manifest_schema() -> dict[str, Any]:
    """The JSON Schema of :class:`RunManifest` (the shipped ``run_manifest.json``)."""
    # The validation-mode schema: serialisation only leaves out the unset keys of _OMIT_UNSET.
    schema = RunManifest.model_json_schema(mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://citejudge.invalid/schemas/run_manifest/1"
    return schema
