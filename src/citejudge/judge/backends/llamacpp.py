"""llama.cpp backend: a GGUF file through llama-cpp-python, constrained by Outlines.

llama-cpp-python is optional and not installed by default: it compiles for 15–36 minutes, and
its default build segfaults in the AMX matmul on some CPUs (build with AMX off, see
``INSTALL_HINTS["llama_cpp"]``). Outlines needs ``numba`` for its llama.cpp logits processor;
without it the constraint can be silently dropped, so a missing ``numba`` is an error here.

llama.cpp's Outlines model has no batch generation: prompts are generated one after another
with one reused ``outlines.Generator`` per answer schema. The chat template is the one stored
in the GGUF metadata (``tokenizer.chat_template``); its sha256 is part of the revision.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from citejudge.errors import ConfigError
from citejudge.hashing import sha256_text
from citejudge.judge._deps import require
from citejudge.judge.cards import ModelCard
from citejudge.judge.core import Sampling
from citejudge.judge.gguf import checked_files
from citejudge.judge.schemas import schema_sha256

__all__ = ["LlamaCppBackend"]

log = logging.getLogger(__name__)


@dataclass
class LlamaCppBackend:
    """A GGUF model run by llama.cpp (implements ``JudgeBackend``)."""

    llm: Any
    name: str
    revision: str
    load_seconds: float = 0.0
    _outlines_model: Any = field(default=None, repr=False)
    _generators: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_card(
        cls, card: ModelCard, models_dir: Path | None = None, **options: Any
    ) -> LlamaCppBackend:
        """Check the card's files and load its GGUF file (options: ``threads``, default 2; ``n_ctx``)."""
        llama_cpp = require("llama_cpp")
        require("numba")  # outlines[llamacpp]: without it the JSON constraint is silently dropped
        outlines = require("outlines")
        files = checked_files(card, models_dir)
        ggufs = [f for f in files if f.spec.role == "gguf" or f.path.suffix == ".gguf"]
        if not ggufs:
            raise ConfigError(
                f"model card {card.name!r} lists no GGUF file", hint="add a file with role: gguf"
            )
        threads = int(options.get("threads", 2))
        t0 = time.perf_counter()
        llm = llama_cpp.Llama(
            model_path=str(ggufs[0].path),
            n_threads=threads,
            n_threads_batch=threads,
            n_ctx=int(options.get("n_ctx", card.context_length)),
            seed=card.sampling.seed,
            verbose=False,
        )
        load_s = time.perf_counter() - t0
        template = str((getattr(llm, "metadata", None) or {}).get("tokenizer.chat_template", ""))
        revision = "+".join(
            [card.revision, "tmpl:" + sha256_text(template)[:16], "w:" + ggufs[0].sha256[:16]]
        )
        log.info("loaded %s with llama.cpp in %.1f s (%d threads)", ggufs[0].path, load_s, threads)
        return cls(
            llm=llm,
            name=f"llamacpp:{card.name}",
            revision=revision,
            load_seconds=load_s,
            _outlines_model=outlines.from_llamacpp(llm, chat_mode=True),
        )

    def _generator(self, schema: type[BaseModel]) -> Any:
        import outlines

        from citejudge.judge.backends.hf import json_output_type

        key = schema_sha256(schema)
        gen = self._generators.get(key)
        if gen is None:
            gen = outlines.Generator(self._outlines_model, json_output_type(schema))
            self._generators[key] = gen
        return gen

    def generate_batch(
        self, prompts: Sequence[str], schema: type[BaseModel], sampling: Sampling
    ) -> list[str]:
        """One JSON string per prompt (a loop: llama.cpp's Outlines model has no batch call)."""
        gen = self._generator(schema)
        kw: dict[str, Any] = {
            "max_tokens": sampling.max_tokens,
            "seed": sampling.seed,
            "temperature": sampling.temperature,
            "top_p": sampling.top_p,
        }
        if sampling.temperature == 0:
            kw.update(top_k=1)
        return [str(gen(p, **kw)).strip() for p in prompts]
