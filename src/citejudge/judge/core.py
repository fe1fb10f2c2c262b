"""The boundary to language models: one protocol, one validating and caching front.

A backend turns a batch of prompts plus an answer model into raw JSON strings. :class:`Judge`
hashes every request (rendered prompt, schema hash, model revision, sampling, seed), serves
cache hits, sends only the misses in one batch, validates each answer with the pydantic model,
retries an invalid one once, and turns what is still invalid into a per-request error — never
into a guessed verdict.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from citejudge.errors import BackendUnavailableError
from citejudge.hashing import canonical_json, sha256_text
from citejudge.judge.decide import SupportDecider
from citejudge.judge.schemas import answer_budget, schema_sha256

__all__ = [
    "Judge",
    "JudgeBackend",
    "JudgeOutcome",
    "RequestCache",
    "Sampling",
    "request_hash",
]

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)


class Sampling(BaseModel):
    """Decoding settings. Greedy with a fixed seed unless a config says otherwise."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    temperature: float = Field(default=0.0, ge=0.0, description="0 = greedy decoding.")
    max_tokens: int = Field(
        default=256, ge=1, le=8192, description="Upper bound on generated tokens."
    )
    seed: int = Field(
        default=0, description="Sampling seed (kept even for greedy decoding, for the record)."
    )
    top_p: float = Field(default=1.0, gt=0.0, le=1.0, description="Nucleus sampling mass.")


@runtime_checkable
class JudgeBackend(Protocol):
    """A model that answers prompts with JSON constrained to a schema.

    ``revision`` identifies the weights (a card's revision or weight sha256) and is part of
    every cache key.
    """

    name: str
    revision: str

    def generate_batch(
        self, prompts: Sequence[str], schema: type[BaseModel], sampling: Sampling
    ) -> list[str]:
        """One raw JSON string per prompt, in order (one model call for the whole batch)."""
        ...


def request_hash(prompt: str, schema: type[BaseModel], revision: str, sampling: Sampling) -> str:
    """Content hash of a request: everything that can change the answer, nothing else."""
    return sha256_text(
        canonical_json(
            {
                "prompt": prompt,
                "schema": schema_sha256(schema),
                "model": revision,
                "sampling": sampling.model_dump(mode="json"),
            }
        )
    )


class RequestCache:
    """Content-addressed store of validated answers (SQLite; safe for several processes)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, timeout=30, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, answer TEXT NOT NULL)"
        )
        self._db.commit()

    def get_many(self, keys: Sequence[str]) -> dict[str, str]:
        """Cached answers for the keys that have one."""
        out: dict[str, str] = {}
        with self._lock:
            for i in range(0, len(keys), 500):
                chunk = list(keys[i : i + 500])
                marks = ",".join("?" * len(chunk))
                for k, v in self._db.execute(
                    f"SELECT key, answer FROM answers WHERE key IN ({marks})", chunk
                ):
                    out[k] = v
        return out

    def put_many(self, items: dict[str, str]) -> None:
        """Store validated answers."""
        if not items:
            return
        with self._lock:
            self._db.executemany(
                "INSERT OR REPLACE INTO answers VALUES (?, ?)", list(items.items())
            )
            self._db.commit()

    def close(self) -> None:
        """Close the database."""
        self._db.close()


@dataclass
class JudgeOutcome(Generic[T]):
    """The validated answer to one request, or why there is none."""

    answer: T | None
    request_hash: str
    cached: bool = False
    error: str | None = None
    attempts: int = 0

    @property
    def ok(self) -> bool:
        """True when a schema-valid answer is available."""
        return self.answer is not None


@dataclass
class Judge:
    """Validating, caching, batching front of a :class:`JudgeBackend`."""

    backend: JudgeBackend
    sampling: Sampling = field(default_factory=Sampling)
    cache: RequestCache | None = None
    retries: int = 1
    #: The card's CPU support decider (a calibrated scorer, see
    #: :func:`citejudge.judge.deciders.card_support_decider`) that answers support questions
    #: instead of the model; None: the model's constrained answer decides.
    support: SupportDecider | None = None
    stats: dict[str, int] = field(
        default_factory=lambda: {
            "requests": 0,
            "cache_hits": 0,
            "model_calls": 0,
            "invalid": 0,
            "retries": 0,
            "errors": 0,
        }
    )

    def sampling_for(self, schema: type[BaseModel]) -> Sampling:
        """The card's sampling, with ``max_tokens`` raised to what the longest answer of ``schema`` needs.

        A constrained answer cut by ``max_tokens`` is invalid JSON and becomes an item error;
        :func:`citejudge.judge.schemas.answer_budget` is enough for any answer of the schema.
        """
        need = answer_budget(schema)
        if need <= self.sampling.max_tokens:
            return self.sampling
        return self.sampling.model_copy(update={"max_tokens": need})

    def ask(self, prompts: Sequence[str], schema: type[T]) -> list[JudgeOutcome[T]]:
        """Answers to ``prompts`` (same order); misses go to the backend in one batch per attempt."""
        sampling = self.sampling_for(schema)
        keys = [request_hash(p, schema, self.backend.revision, sampling) for p in prompts]
        self.stats["requests"] += len(prompts)
        outcomes: list[JudgeOutcome[T]] = [JudgeOutcome(None, k) for k in keys]
        cached = self.cache.get_many(list(dict.fromkeys(keys))) if self.cache else {}
        pending: list[int] = []
        for i, k in enumerate(keys):
            if k in cached:
                try:
                    outcomes[i].answer = schema.model_validate_json(cached[k])
                    outcomes[i].cached = True
                    self.stats["cache_hits"] += 1
                    continue
                except ValidationError:
                    log.warning("cached answer %s no longer validates; asking again", k[:12])
            pending.append(i)
        fresh: dict[str, str] = {}
        for attempt in range(1 + self.retries):
            if not pending:
                break
            # Identical prompts in one batch are asked once.
            if attempt:
                self.stats["retries"] += len(pending)
            uniq = list(dict.fromkeys(keys[i] for i in pending))
            first = {keys[i]: i for i in reversed(pending)}
            batch = [prompts[first[k]] for k in uniq]
            self.stats["model_calls"] += 1
            try:
                raws = self.backend.generate_batch(batch, schema, sampling)
            except BackendUnavailableError:
                raise  # nothing can be judged: stop the run instead of failing every item
            except Exception as exc:
                log.warning(
                    "backend %s failed on a batch of %d: %s", self.backend.name, len(batch), exc
                )
                for i in pending:
                    outcomes[i].error = f"backend error: {type(exc).__name__}: {exc}"
                    outcomes[i].attempts = attempt + 1
                continue
            usage = getattr(self.backend, "last_usage", None)  # (prompt, output) tokens, if counted
            if usage:
                self.stats["prompt_tokens"] = self.stats.get("prompt_tokens", 0) + int(usage[0])
                self.stats["output_tokens"] = self.stats.get("output_tokens", 0) + int(usage[1])
            if len(raws) != len(batch):
                for i in pending:
                    outcomes[
                        i
                    ].error = f"backend returned {len(raws)} answers for {len(batch)} prompts"
                continue
            by_key = dict(zip(uniq, raws, strict=True))
            still: list[int] = []
            for i in pending:
                raw = by_key[keys[i]]
                outcomes[i].attempts = attempt + 1
                try:
                    outcomes[i].answer = schema.model_validate_json(raw)
                    outcomes[i].error = None
                    fresh[keys[i]] = outcomes[i].answer.model_dump_json()  # type: ignore[union-attr]
                except ValidationError as exc:
                    self.stats["invalid"] += 1
                    outcomes[i].error = f"invalid answer: {exc.errors()[0]['msg']} in {raw[:200]!r}"
                    still.append(i)
            pending = still
        self.stats["errors"] += sum(1 for o in outcomes if o.answer is None)
        if self.cache is not None:
            self.cache.put_many(fresh)
        return outcomes

    def describe(self) -> dict[str, Any]:
        """What identifies this judge in manifests and details."""
        return {
            "backend": self.backend.name,
            "revision": self.backend.revision,
            "sampling": self.sampling.model_dump(mode="json"),
        }
